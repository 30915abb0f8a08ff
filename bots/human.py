"""A person at the terminal, as a bot."""

import sys

from arena import Bot, Decision, IllegalMoveError


class HumanBot(Bot):
    """Asks for a move on standard input and asks again until it gets a legal one."""

    name = "human"
    description = "a person typing moves in the terminal"
    interactive = True

    def __init__(self, *, input=input, output=sys.stdout, **params):
        super().__init__(**params)
        self._input = input
        self._output = output

    def choose(self, game, state, budget):
        legal = game.legal_moves(state)
        shown = " ".join(game.format_move(m) for m in legal)
        who = game.player_name(game.to_move(state))
        while True:
            try:
                text = self._input(f"{who} to move; legal: {shown}\nyour move> ").strip()
            except EOFError:
                raise KeyboardInterrupt from None  # input closed: the person has left
            if not text:
                continue
            try:
                move = game.parse_move(text)
            except IllegalMoveError as exc:
                print(exc, file=self._output)
                continue
            if move in legal:
                return Decision(move)
            print(f"{text!r} is not legal here; legal: {shown}", file=self._output)
