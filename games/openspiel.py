"""OpenSpiel's games as arena games (a default plugin; it registers nothing without open-spiel).

Every game that ``pyspiel.registered_games()`` declares two-player, sequential,
perfect-information and zero-sum, deterministic or with explicit chance (its chance nodes
list their outcomes' probabilities: ``ChanceRules``), becomes the arena game
``openspiel.<short name>`` (``openspiel.hex``), with OpenSpiel's parameters as declared
parameters (``openspiel.hex:board_size=7``). So does every such game of more seats
(sequential, perfect-information, of any utility), with ``players`` a parameter where
the game allows several (``openspiel.chinese_checkers:players=3``); where it allows only
two, ``players`` is left out. So does every game of hidden information or simultaneous
moves, of any utility, that loads at its default settings (``ImperfectRules``; see
games/openspiel_hidden.py for what a seat is told and what is left out, and why): with
open-spiel 2.0.2, 29 of two seats with hidden information (``openspiel.kuhn_poker``,
leduc_poker, liars_dice, dark_hex, phantom_ttt...), 18 of two seats with simultaneous moves
(goofspiel, oshi_zumo, the matrix games...) and 12 of more seats (bridge, hearts, skat...).

States wrap a pyspiel state that is never changed once wrapped (``apply`` clones). They
compare by a key, made once per state, from the parent's as ``apply`` goes where it can
be. For games where OpenSpiel's picture of the state (``str(state)``), with the player to
move and the move number, decides everything that can still happen, the key is that
triple, so transposed move orders give equal states; placement games (a move puts the
mover's stone on an empty cell, nothing else counts) use the cells each player holds, a
bit per cell and player in one int, which says the same for less. Games with a rule that
depends on the way a position was reached keep the whole move history as the key:
repetition draws (the chess family, shogi, xiangqi, lines of action, hive), a count of
moves without a capture (checkers), ko and two passes ending the game (go, cursor go),
oware's end on a repeated cycle, and amazons, whose turn is a queen picked and then moved
(the pick is not in the picture). A game not named below also keeps its history: the safe
choice. A history key is a hash chained move by move; states with equal hashes then
compare their histories. States pickle as the game's string and the move history. Where
the players take turns (``ALTERNATING``), the player to move comes from the parent.

A move is an OpenSpiel action (an int), written as OpenSpiel's action string for the
player to move, without spaces (see games/openspiel_text.py): without a position where
the strings depend on the action alone ('d4', '(1,1)'), through ``move_text`` and
``parse_move_in`` where they depend on the position (chess's SAN). Every game also reads
the action number.

The heuristic is 0 everywhere (the middle of the bounds in games where 0 is not inside them):
search bots then play by the game's end values alone, which suits short games; MCTS, with its
random playouts, plays every game reasonably.
"""

# No `from __future__ import annotations`: each generated class has its annotations read by
# typing.get_type_hints, and string annotations made registering 31 classes 4x slower.
import typing
from dataclasses import replace

from arena import CHANCE, Game, Model, hookimpl, param
from arena.errors import ParameterError
from arena.params import format_value
from games.openspiel_states import (  # noqa: F401 (the keying's names are read from here too)
    MARKS_LAST_MOVE, PLACEMENT, PLACEMENT_UNLESS, POSITION_KEYED, HistoryState, MarkedState, PlacementState,
    PositionState, _after, _restore, state_class_of,
)
from games.openspiel_hidden import SAMPLED, ImperfectRules, Sampling, class_model, imperfect, playable
from games.openspiel_text import ActionTexts, PositionTexts, quiet as _quiet

PREFIX = "openspiel."
#: Parameters not offered, with the value always given: the arena plays two-player games.
FIXED = {"players": 2}
#: Games whose action strings depend on the action and the player only.
STATE_FREE_TEXTS = frozenset({
    "breakthrough", "checkers", "clobber", "connect_four", "cursor_go", "dots_and_boxes", "go", "gomoku",
    "havannah", "hex", "lines_of_action", "mancala", "mnk", "nim", "nine_mens_morris", "othello", "oware",
    "pentago", "tic_tac_toe", "twixt", "y",
})

#: Games where the players take turns, one action each (checked in the tests): the
#: player to move comes from the parent without asking OpenSpiel.
ALTERNATING = frozenset({
    "antichess", "breakthrough", "chess", "clobber", "connect_four", "crazyhouse", "go", "gomoku", "havannah", "hex",
    "hive", "lines_of_action", "mnk", "nim", "othello", "oware", "pentago", "quoridor", "shogi", "tic_tac_toe",
    "twixt", "xiangqi", "y",
})

#: Games whose players move in another order than their numbers, by (game, seats): OpenSpiel's
#: player of each arena seat, in turn order (the arena numbers seats in turn order).
TURN_ORDER = {("quoridor", 4): (0, 2, 1, 3)}

_classes: dict[str, type] = {}  # arena name -> game class, built once per process


def suitable(game_type) -> bool:
    """Whether an OpenSpiel game type is one the arena can play: two seats or more (some number
    of them from 2 up); deterministic or with chance nodes that list their outcomes'
    probabilities (OpenSpiel's explicit stochastic chance); sequential and perfect-information,
    zero-sum with two seats, of any utility with more; or, of any utility, with hidden
    information or simultaneous moves (games/openspiel_hidden.py ``playable``). Not the games
    written in Python (``python_*``): OpenSpiel registers them when their module is imported,
    so the games found would depend on what ran before."""
    GameType = type(game_type)
    if game_type.short_name.startswith("python_"):  # registered only once its Python module is imported
        return False
    seats = game_type.min_num_players <= 2 <= game_type.max_num_players or game_type.min_num_players > 2
    if seats and imperfect(game_type):
        return playable(game_type)
    return (
        seats
        and game_type.dynamics == GameType.Dynamics.SEQUENTIAL
        and game_type.chance_mode in (GameType.ChanceMode.DETERMINISTIC, GameType.ChanceMode.EXPLICIT_STOCHASTIC)
        and game_type.information == GameType.Information.PERFECT_INFORMATION
        and (game_type.utility == GameType.Utility.ZERO_SUM or game_type.max_num_players > 2)
    )


def has_chance(game_type) -> bool:
    return game_type.chance_mode == type(game_type).ChanceMode.EXPLICIT_STOCHASTIC


def game_classes() -> list[type]:
    """One arena game class per suitable OpenSpiel game; none when open-spiel is absent."""
    try:
        import pyspiel
    except ImportError:
        return []
    if not _classes:
        for game_type in pyspiel.registered_games():
            if suitable(game_type):
                cls = _make_class(game_type)
                _classes[cls.name] = cls
    return list(_classes.values())


@hookimpl
def register_games(register):
    for cls in game_classes():
        register(cls)


def unavailable(kind: str, name: str) -> str | None:
    """What to install for the game ``name`` when it is OpenSpiel's and open-spiel is not installed
    (the registry's message for a name nothing registered); None otherwise."""
    if kind == "game" and name.startswith(PREFIX) and not game_classes():
        return f"the game {name!r} needs OpenSpiel: pip install 'botarena[openspiel]'"
    return None


def _make_class(game_type) -> type:
    short = game_type.short_name
    annotations, namespace = {}, {}
    several = game_type.max_num_players > 2  # players is a parameter
    for key, default in sorted(game_type.parameter_specification.items()):
        if key == "players" and several:
            annotations[key] = int
            low, high = max(game_type.min_num_players, 2), game_type.max_num_players
            namespace[key] = param(max(default, low), f"seats, {low} to {high}", min=low, max=high)  # hanabi's 0: 2
            continue
        if key in FIXED or not isinstance(default, (bool, int, float, str)):
            continue  # fixed, or a kind of value a spec cannot write (none in open-spiel 2.0)
        annotations[key] = type(default)
        namespace[key] = param(default, f"OpenSpiel's {key!r} of {short}")
    state_class = state_class_of(short, {})
    qualname = "OpenSpiel_" + short
    bases = (OpenSpielGame,) if short in STATE_FREE_TEXTS else (PositionTexts, OpenSpielGame)
    if has_chance(game_type):
        bases = (ChanceRules, *bases)
    if imperfect(game_type):
        bases = (Sampling, ImperfectRules, OpenSpielGame) if short in SAMPLED else (ImperfectRules, OpenSpielGame)
        namespace["model"] = class_model(game_type)
    namespace.update(
        __module__=__name__, __qualname__=qualname, __annotations__=annotations, name=PREFIX + short,
        description=f"{game_type.long_name}, from OpenSpiel", short_name=short, state_class=state_class,
        state_free_texts=short in STATE_FREE_TEXTS,
        fixed={k: v for k, v in FIXED.items() if k in game_type.parameter_specification and not several},
    )
    return type(qualname, bases, namespace)


def _game_class(short: str) -> type:
    game_classes()
    return _classes[PREFIX + short]


def _rebuild_game(short: str, params: dict) -> "OpenSpielGame":
    return _game_class(short)(**params)


_SPIEL: dict[tuple, object] = {}  # (name, parameters) -> a loaded OpenSpiel game, which no state changes


def _load(short_name: str, changed: dict):
    """OpenSpiel's game of ``short_name`` with the ``changed`` parameters, loaded once a process (some
    games read a file or build tables as they load: colored_trails takes half a second)."""
    import pyspiel

    key = (short_name, tuple(sorted(changed.items())))
    game = _SPIEL.get(key)
    if game is None:
        game = pyspiel.load_game(short_name, changed)
        initial = game.new_initial_state()
        str(initial), initial.legal_actions()  # some bad values fail only here
        _SPIEL[key] = game
    return game


class OpenSpielGame(ActionTexts, Game):
    """Base of the generated classes: an OpenSpiel game behind the arena's rule-book methods."""

    short_name: typing.ClassVar[str] = ""
    fixed: typing.ClassVar[dict] = {}
    """The FIXED parameters this game declares, always given to OpenSpiel."""
    state_class: typing.ClassVar[type] = HistoryState

    def __init__(self, **params):
        import pyspiel

        super().__init__(**params)
        # only the values a user changed: some games read a parameter's presence (hex's board_size)
        changed = {k: v for k, v in self.params.items() if v != self.parameters[k].default}
        changed.update(self.fixed)
        try:
            with _quiet():
                self.spiel = _load(self.short_name, changed)
                initial = self.spiel.new_initial_state()
        except (pyspiel.SpielError, ValueError, RuntimeError, IndexError) as exc:
            values = ", ".join(f"{k}={format_value(v)}" for k, v in changed.items())
            why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ParameterError(f"bad parameters {values} for game {self.name!r}; OpenSpiel says: {why}") from None
        if initial.is_chance_node() and not self.model.chance:  # chess960: the start position is drawn
            values = ", ".join(f"{k}={format_value(v)}" for k, v in changed.items())
            raise ParameterError(f"parameters {values} make {self.name!r} start with a chance move; the arena plays "
                                 "deterministic games")
        self.bounds = (self.spiel.min_utility(), self.spiel.max_utility())
        self._seats = seats = self.spiel.num_players()
        utility = self.spiel.get_type().utility
        if seats != 2 or utility != type(utility).ZERO_SUM:
            total = {"ZERO_SUM": 0.0, "CONSTANT_SUM": None}.get(utility.name, None)
            if utility.name == "CONSTANT_SUM":
                total = self.spiel.utility_sum()
            self.model = replace(type(self).model, players=seats, total=total)
        self._next = tuple((seat + 1) % seats for seat in range(seats))
        self.state_class = self.state_class_for(self.params)
        self._alternates = self.short_name in ALTERNATING and seats == 2  # with more, some jump or skip turns
        order = TURN_ORDER.get((self.short_name, seats))
        if order is not None:  # OpenSpiel's players move out of number order: seats are numbered in turn order
            self._player, self._seat = order, {player: seat for seat, player in enumerate(order)}
            self.to_move, self.utility, self.utilities = self._seat_to_move, self._seat_utility, self._seat_utilities
        self._apply_name = {PlacementState: "_place", HistoryState: "_chain"}.get(
            self.state_class, "_alternate" if self._alternates else None
        )
        if self._apply_name:
            self.apply = getattr(self, self._apply_name)
        self._initial = self.state_class(initial, initial.current_player())
        self._initial._key = self._initial.key()  # the placement and history applies build on it
        self._tables: tuple[list, dict] | None = None  # built on first use

    def __reduce__(self):
        return (_rebuild_game, (self.short_name, self.params))

    def __copy__(self):
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        if "apply" in copy.__dict__:
            copy.apply = getattr(copy, copy._apply_name)
        return copy

    @classmethod
    def state_class_for(cls, params: dict) -> type:
        """The state class for these parameter values (a placement game's swap rule adds history)."""
        return state_class_of(cls.short_name, params)

    def initial_state(self):
        return self._initial

    def to_move(self, state) -> int:
        return state.player

    def legal_moves(self, state):
        return state.state.legal_actions()

    # Four ``apply``s, one chosen per game in __init__ (set on the instance): each is run
    # once per node of every search, hence the repetition. ``child`` is OpenSpiel's clone
    # and apply in one call into C++, about 0.1 us a node less than the two.

    def apply(self, state, move):
        child = state.state.child(move)
        player = child.current_player()
        return self.state_class(child, player if player >= 0 else self._next[state.player])

    def _alternate(self, state, move):
        """``apply`` for games where the players take turns: the next player without asking."""
        child = state.state.child(move)
        return self.state_class(child, self._next[state.player])

    def _place(self, state, move):
        """``apply`` for placement games: the child's key from the parent's, one bit more."""
        child = state.state.child(move)
        mover, key = state.player, state._key
        if key is None:  # a state unpickled
            key = state._key = state.key()
        return PlacementState(child, 1 - mover, key | 1 << (2 * move + mover))

    def _chain(self, state, move):
        """``apply`` for history games: the child's key hashed from the parent's and the move."""
        child = state.state.child(move)
        key = state._key
        if key is None:
            key = state._key = state.key()
        if self._alternates:
            return HistoryState(child, self._next[state.player], hash((key, move)))
        player = child.current_player()
        return HistoryState(child, player if player >= 0 else self._next[state.player], hash((key, move)))

    def is_terminal(self, state) -> bool:
        return state.state.is_terminal()

    def utility(self, state, player: int) -> float:
        return state.state.player_return(player)

    def utilities(self, state) -> tuple[float, ...]:
        return tuple(state.state.returns())

    # The three above for a game whose players move out of number order (``TURN_ORDER``),
    # set on the instance: arena seat s is OpenSpiel's player ``_player[s]``.

    def _seat_to_move(self, state) -> int:
        player = state.player
        return self._seat[player] if player >= 0 else player

    def _seat_utility(self, state, seat: int) -> float:
        return state.state.player_return(self._player[seat])

    def _seat_utilities(self, state) -> tuple[float, ...]:
        returns = state.state.returns()
        return tuple(returns[player] for player in self._player)

    def player_name(self, seat: int) -> str:
        name = super().player_name(seat)
        order = getattr(self, "_player", None)
        return name if order is None else f"{name} (OpenSpiel's player {order[seat]})"

    def render(self, state) -> str:
        state_ = state.state
        end = self.result_text(state) if state_.is_terminal() else f"{self.player_name(state.player)} to move"
        if self.state_class is HistoryState:  # the moves are part of the position: show them
            if isinstance(self, PositionTexts):
                moves = " ".join(self.history_text(state))
            else:
                moves = " ".join(map(self.format_move, state_.history()))
            end = f"moves: {moves or '(none)'}\n{end}"
        return f"{state_}\n{end}"


class ChanceRules:
    """Mixed into a game class with chance nodes (OpenSpiel's explicit stochastic games): at a
    chance node the player is ``CHANCE`` (OpenSpiel's chance player id, -1, too), there are no
    legal moves, and ``chance_outcomes`` are OpenSpiel's actions with its probabilities."""

    model = Model(chance=True)

    def legal_moves(self, state):
        return [] if state.player == CHANCE else state.state.legal_actions()

    def chance_outcomes(self, state):
        return state.state.chance_outcomes()

    def _chain(self, state, move):
        child = state.state.child(move)
        key = state._key
        if key is None:
            key = state._key = state.key()
        player = child.current_player()  # a player, CHANCE, or at the end a negative id
        return HistoryState(child, player if player >= CHANCE else _after(state.player, self._seats), hash((key, move)))
