"""OpenSpiel's games of hidden information and of simultaneous moves through the adapter
(games/openspiel.py): what a seat is told, joint moves, and move texts that need no position.

- **What a seat sees.** ``observation`` and ``information_key`` are OpenSpiel's information-state
  string of the seat (everything it has seen, perfect recall) where the game has one, else its
  observation string (what it sees now: those games', such as dark_chess, phantom_go, gin_rummy
  and hanabi, forget earlier observations, as OpenSpiel defines them). Longer than
  ``arena.view.MAX_OBSERVATION``, the observation keeps its end and the key is a digest of it all.
- **What all seats see** (``public_text``): a chance outcome is "?"; so is a seat's move, except in
  the games of ``PUBLIC_ACTIONS``, whose every move all seats see (the poker family, liar's dice,
  go fish, gin rummy...: checked in the tests against OpenSpiel's information states). Where
  nothing is hidden (goofspiel, oshi_zumo, the matrix games), every ply is public.
- **Joint moves.** At OpenSpiel's simultaneous node (its player id -2 is ``JOINT``) the acting
  seats are those with legal actions; a seat without gets OpenSpiel's 0, as OpenSpiel asks.
- **Chance.** A chance outcome ``a`` is the move ``-1 - a``, so that a move's text needs no position
  ('Deal:2', not the 'Bet' of the action of the same number). Every event draws from seat 0's
  stream: a pair's games deal the same cards in the same order whoever plays what, as from one
  deck shuffled once.
- **Texts** (games/openspiel_text.py ``free_tables``): OpenSpiel's strings without the part naming
  the player ('[P0]Bid: 1' is 'Bid:1'), numbers ('17', 'chance:3') in the games whose strings
  depend on the position (``MOVES_BY_POSITION``, ``CHANCE_BY_POSITION``).
- **Sampling** (``SAMPLED``): ``sample_state`` enumerates every state that fits the public history
  and the seat's key, weighs each by its chance probability (the others' moves are public there),
  and draws one; in other games it is not offered.

Left out: mean-field games (one population, not seats); games whose chance OpenSpiel samples
inside a move rather than listing its outcomes (negotiation, bridge_uncontested_bidding, tarok:
a replay would not give the same state); games that load only with parameters (nfg_game,
repeated_game, repeated_poker, the wrappers of another game); one-player games (blackjack,
solitaire, deep_sea, crossword, coop_to_1p); and ``EXCLUDED``.
"""

import hashlib
from dataclasses import replace

from arena import CHANCE, JOINT, Model
from arena.errors import IllegalMoveError
from arena.view import MAX_OBSERVATION
from games.openspiel_states import HistoryState, _after
from games.openspiel_text import compact, free_tables

#: Games whose every move each seat sees (chance outcomes aside).
PUBLIC_ACTIONS = frozenset({
    "bargaining", "bridge", "crazy_eights", "gin_rummy", "go_fish", "kuhn_poker", "leduc_poker", "liars_dice",
    "liars_dice_ir", "oh_hell", "repeated_leduc_poker", "spades", "tiny_bridge_2p", "tiny_bridge_4p",
    "tiny_hanabi", "universal_poker",
})
#: Games whose players' action strings depend on the position: moves are written as numbers.
MOVES_BY_POSITION = frozenset({"dark_chess", "euchre", "hearts", "kriegspiel", "oh_hell", "rbc", "social_deduction"})
#: Games whose chance outcomes' strings depend on the position: written 'chance:N'.
CHANCE_BY_POSITION = frozenset({"euchre", "first_sealed_auction", "hearts", "oh_hell", "social_deduction"})
#: Games that offer ``sample_state`` (the states a view allows stay few).
SAMPLED = frozenset({
    "bargaining", "kuhn_poker", "leduc_poker", "liars_dice", "liars_dice_ir", "tiny_bridge_2p", "tiny_hanabi",
    "universal_poker",
})
#: The most states ``sample_state`` enumerates for one view.
MOST_SAMPLED = 50_000
#: Games of these kinds left out by name, and why.
EXCLUDED = {"pathfinding": "one player at default settings (more need a grid with their starts)"}


def imperfect(game_type) -> bool:
    """Whether an OpenSpiel game type hides information or has simultaneous moves."""
    GameType = type(game_type)
    return (game_type.dynamics == GameType.Dynamics.SIMULTANEOUS
            or game_type.information != GameType.Information.PERFECT_INFORMATION)


def playable(game_type) -> bool:
    """Whether the arena plays such a game: sequential or simultaneous (not mean-field), chance
    listed with its probabilities, loadable without parameters, not ``EXCLUDED``."""
    GameType = type(game_type)
    return (game_type.dynamics in (GameType.Dynamics.SEQUENTIAL, GameType.Dynamics.SIMULTANEOUS)
            and game_type.chance_mode in (GameType.ChanceMode.DETERMINISTIC, GameType.ChanceMode.EXPLICIT_STOCHASTIC)
            and game_type.default_loadable and game_type.short_name not in EXCLUDED)


def class_model(game_type) -> Model:
    """The model of such a game at default settings (two seats: players and total are set per game)."""
    GameType = type(game_type)
    return Model(chance=game_type.chance_mode == GameType.ChanceMode.EXPLICIT_STOCHASTIC,
                 simultaneous=game_type.dynamics == GameType.Dynamics.SIMULTANEOUS,
                 hidden=game_type.information == GameType.Information.IMPERFECT_INFORMATION)


class ImperfectRules:
    """Mixed into the class of an OpenSpiel game of hidden information or simultaneous moves
    (see the module docstring); its states are ``HistoryState``s."""

    def __init__(self, **params):
        super().__init__(**params)
        loaded = self.spiel.get_type()  # parameters may hide information (goofspiel's imp_info)
        self.model = replace(self.model, hidden=loaded.information == type(loaded).Information.IMPERFECT_INFORMATION)
        self._recall = loaded.provides_information_state_string
        low, high = self.bounds
        self._estimate = 0.0 if low < 0 < high else (low + high) / 2  # strictly inside the bounds
        self._pools: dict = {}  # sample_state's states per view

    def legal_moves(self, state):
        return state.state.legal_actions() if state.player >= 0 else []

    def heuristic(self, state, player: int) -> float:
        return self._estimate

    def legal_moves_for(self, state, seat: int):
        if state.player == JOINT:
            return state.state.legal_actions(seat)
        return state.state.legal_actions() if seat == state.player else []

    def acting(self, state) -> tuple[int, ...]:
        spiel = state.state
        return tuple(seat for seat in range(self._seats) if spiel.legal_actions(seat))

    def chance_outcomes(self, state):
        return [(-1 - a, p) for a, p in state.state.chance_outcomes()]

    def chance_seat(self, state, last: int) -> int:
        return 0

    def _chain(self, state, move):
        """``apply``: a seat's action, or a chance outcome (a negative move)."""
        if move < 0:
            move = -1 - move
        elif state.player == JOINT:
            raise IllegalMoveError(f"the seats of {self.name} move at once here: apply_joint, not apply")
        return self._child(state, state.state.child(move), (move,))

    def apply_joint(self, state, moves):
        seats = self.acting(state)
        if state.player != JOINT or len(moves) != len(seats):
            raise IllegalMoveError(f"a joint move of {self.name} is a move of each of seats {seats}, here {len(moves)}")
        actions = [0] * self._seats  # OpenSpiel's action for a seat that has none
        for seat, move in zip(seats, moves):
            actions[seat] = move
        child = state.state.clone()
        child.apply_actions(actions)
        return self._child(state, child, actions)

    def _child(self, state, child, actions):
        key = state._key
        if key is None:
            key = state._key = state.key()
        for action in actions:  # HistoryState.key, one move at a time
            key = hash((key, action))
        player = child.current_player()  # a player, CHANCE, JOINT, or at the end a lower id
        return HistoryState(child, player if player >= JOINT else _after(state.player, self._seats), key)

    def observation(self, state, seat: int) -> str:
        text = self._seen(state.state, seat)
        return text if len(text) <= MAX_OBSERVATION else "…" + text[1 - MAX_OBSERVATION:]

    def information_key(self, state, seat: int):
        text = self._seen(state.state, seat)
        return text if len(text) <= MAX_OBSERVATION else "#" + hashlib.blake2b(text.encode()).hexdigest()

    def _seen(self, spiel, seat: int) -> str:
        return spiel.information_state_string(seat) if self._recall else spiel.observation_string(seat)

    def public_text(self, state, move) -> str:
        if not self.model.hidden or (move >= 0 and self.short_name in PUBLIC_ACTIONS):
            return self.format_move(move)
        return "?"

    def format_move(self, move) -> str:
        texts, chances, _ = self._tables or self._free_tables()
        try:
            return texts[move] if move >= 0 else chances[-1 - move]
        except (IndexError, TypeError):
            return str(move)

    def parse_move(self, text: str):
        texts, chances, parse = self._tables or self._free_tables()
        word = compact(text)
        move = parse.get(word)
        chance = word.startswith("chance:")
        number = word[7:] if chance else word
        if move is None and number.isdigit() and number.isascii():
            if not chance and int(number) < len(texts):
                move = int(number)
            elif chance and int(number) < len(chances):
                move = -1 - int(number)
        if move is None:
            examples = [t for t in texts if not t.isdigit()][:3]
            such = f", or a move's text such as {', '.join(examples)}" if examples else ""
            raise self.bad_move_text(text, f"an action number 0-{len(texts) - 1}{such}")
        return move

    def _free_tables(self):
        short = self.short_name
        self._tables = free_tables(self.spiel, short in MOVES_BY_POSITION, short in CHANCE_BY_POSITION)
        return self._tables

    def render(self, state) -> str:
        spiel = state.state
        moves = " ".join(self.format_move(a.action if a.player >= 0 else -1 - a.action) for a in spiel.full_history())
        if spiel.is_terminal():
            end = self.result_text(state)
        elif state.player == JOINT:
            end = f"{' and '.join(self.player_name(seat) for seat in self.acting(state))} move at once"
        else:
            end = "chance to move" if state.player == CHANCE else f"{self.player_name(state.player)} to move"
        return f"{spiel}\nmoves: {moves or '(none)'}\n{end}"

    def result_text(self, state) -> str:
        if self.model.players == 2 and self.model.total == 0.0:
            return super().result_text(state)
        utilities = self.utilities(state)  # general-sum: the best utility, whatever its sign
        tops = [self.player_name(seat) for seat, u in enumerate(utilities) if u == max(utilities)]
        shown = ", ".join(f"{u:g}" for u in utilities)
        best = f"{tops[0]} wins" if len(tops) == 1 else f"{' and '.join(tops)} share first place"
        return f"{best} (utilities {shown})"


class Sampling:
    """Mixed into the games of ``SAMPLED``: ``sample_state`` by enumeration (see the module docstring)."""

    def sample_state(self, view, rng):
        if view.state is not None:
            return view.state
        found = self._pools.get((view.seat, view.key, view.history))
        if found is None:
            if len(self._pools) > 256:
                self._pools.clear()
            found = self._pools[view.seat, view.key, view.history] = self._fitting(view)
        states, weights = found
        return rng.choices(states, weights)[0]

    def _fitting(self, view) -> tuple[list, list]:
        """Every state that fits ``view``'s public history and key, and its chance probability.
        The rule book's own work: its applies (``_chain``) count no node against a bot's budget."""
        frontier = [(self.initial_state(), 1.0)]
        for ply, text in enumerate(view.history):
            after = []
            for state, weight in frontier:
                if state.player == CHANCE:
                    outcomes = self.chance_outcomes(state)
                    if len(after) + len(outcomes) > MOST_SAMPLED:
                        raise NotImplementedError(f"{self.name}: more than {MOST_SAMPLED:,} states fit ply {ply} "
                                                  "of the view: too many to sample from")
                    after.extend((self._chain(state, o), weight * p) for o, p in outcomes)
                    continue
                move = self.parse_move(text)
                if move in self.legal_moves(state):
                    after.append((self._chain(state, move), weight))
            frontier = after
        fitting = [(s, w) for s, w in frontier if self.information_key(s, view.seat) == view.key]
        if not fitting:
            raise ValueError(f"{self.name}: no state fits the view of seat {view.seat} (key {view.key!r})")
        return [s for s, _ in fitting], [w for _, w in fitting]
