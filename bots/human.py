"""A person at the terminal, as a bot."""

import sys
import textwrap

from arena import Bot, Decision, IllegalMoveError
from arena.errors import BotFault
from arena.records import Termination
from arena.view import View, view_texts

#: What a person may type instead of a move: the verb the game record uses for each.
GIVING_UP = {"resign": "resigned", "quit": "quit"}
HELP = ("help", "?")


class HumanBot(Bot):
    """Asks for a move on standard input and asks again until it gets a legal one.

    ``help`` lists what can be typed; ``resign`` or ``quit`` gives up the game, which the
    person then loses. ``show_board`` (set by ``arena play --quiet``) draws the position
    before each of the person's moves. In a game of hidden information the person sees their
    seat's observation before each move, never the position.
    """

    name = "human"
    description = "a person typing moves in the terminal (help, resign, quit)"
    # never asked at a chance node (the referee draws); in a game of hidden information or
    # simultaneous moves it shows only the seat's observation, and asks before any other choice shows
    handles = frozenset({"chance", "players", "nonzero-sum", "simultaneous", "hidden"})
    interactive = True

    def __init__(self, *, input=input, output=None, **params):
        super().__init__(**params)
        self._input = input
        self._given = output  # None: the standard output of the moment
        self.show_board = False

    @property
    def _output(self):
        return self._given if self._given is not None else sys.stdout

    def choose(self, game, state, budget):
        if isinstance(state, View):  # a game of hidden information or simultaneous moves: the seat's view
            view, state = state, state.state
            legal, texts = view.legal, view_texts(game, view)[3]
            who = game.player_name(view.seat)
            if game.model.hidden or self.show_board:  # all the person may know, and nothing more
                seen = textwrap.indent(view.observation, "  ", lambda _: True) or "  (nothing yet)"
                print(f"\n{who}, you see:\n{seen}", file=self._output)
        else:
            legal = game.legal_moves(state)
            texts = [game.move_text(state, m) for m in legal]
            who = game.player_name(game.to_move(state))
            if self.show_board:
                print(game.render(state), file=self._output)
        shown = " ".join(texts)
        while True:
            try:
                text = self._input(f"{who} to move; legal: {shown}\nyour move> ").strip()
            except EOFError:
                raise KeyboardInterrupt from None  # input closed: the person has left
            command = text.lower()
            if not text:
                continue
            if command in HELP:
                print(
                    f"type a move as listed ({shown}); 'resign' or 'quit' gives up the game "
                    "(you lose it); 'help' shows this",
                    file=self._output,
                )
                continue
            if command in GIVING_UP:
                # Not a fault: a resigned game ended in the "normal" way, as PGN's Termination
                # tag has it (lichess writes "Normal" for resignations); the record names the loser.
                raise BotFault(Termination.NORMAL, GIVING_UP[command], f"{who} typed {text!r} and loses")
            if text in texts:
                return Decision(legal[texts.index(text)])
            try:
                move = game.parse_move_in(state, text) if state is not None else game.parse_move(text)
            except IllegalMoveError as exc:
                print(f"{exc} (type 'help' for help)", file=self._output)
                continue
            if move in legal:
                return Decision(move)
            print(f"{text!r} is not legal here; legal: {shown}", file=self._output)
