"""The rule-book interface every game implements."""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from typing import Any, Callable, Hashable, NamedTuple, Sequence

from arena.errors import IllegalMoveError
from arena.legal import legal_index
from arena.params import Configurable

State = Hashable
Move = Hashable

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
"""Seats in words, the default ``Game.player_name``."""

CHANCE = -1
"""What ``to_move`` returns at a chance node: the referee draws one of ``chance_outcomes``."""
JOINT = -2
"""What ``to_move`` returns where several seats move at once (``acting``, ``apply_joint``)."""


@dataclass(frozen=True)
class Model:
    """What kind of game a rule book is (docs/game-model.md): read once per game, never per node."""

    players: int = 2
    """Seats, numbered 0 (moves first) to players - 1."""
    chance: bool = False
    """Some states are chance nodes (``to_move`` returns ``CHANCE``)."""
    simultaneous: bool = False
    """Some states ask several seats to move at once (``to_move`` returns ``JOINT``)."""
    hidden: bool = False
    """Seats see observations, not the state (``observation``); bots are never handed a state."""
    total: float | None = 0.0
    """The sum of the seats' utilities at every end; None for a general-sum game."""

    def __post_init__(self):
        if not (isinstance(self.players, int) and self.players >= 1):
            raise ValueError(f"a game has 1 or more players, not {self.players!r}")

    @property
    def features(self) -> frozenset[str]:
        """What this game has beyond a two-player, zero-sum, deterministic one: the names bots
        declare in ``Bot.handles`` ("chance", "players", "nonzero-sum")."""
        out = set()
        if self.chance:
            out.add("chance")
        if self.players != 2:
            out.add("players")
        if self.total != 0.0:
            out.add("nonzero-sum")
        if self.simultaneous:
            out.add("simultaneous")
        if self.hidden:
            out.add("hidden")
        return frozenset(out)

    @property
    def imperfect(self) -> bool:
        """Bots get a ``arena.View`` of what their seat knows, not the state: hidden information,
        or moves made at once (where the state must not show another seat's choice)."""
        return self.hidden or self.simultaneous

    @property
    def secret(self) -> bool:
        """Chance and the bots' seeds come from the run's secret key, one way (``arena.dice``): a
        bot could otherwise foresee the dice, or an opponent's random choices it must not see."""
        return self.chance or self.hidden or self.simultaneous

    def describe(self, features) -> str:
        """``features`` of this game in words, e.g. "chance and 3 players"."""
        words = {"chance": "chance", "players": f"{self.players} players",
                 "nonzero-sum": "utilities that do not sum to zero", "simultaneous": "simultaneous moves",
                 "hidden": "hidden information"}
        return " and ".join(words[f] for f in words if f in features)


class SearchHooks(NamedTuple):
    """The optional search hooks a game offers, each a callable or None (not offered).

    Returned by ``Game.search_hooks()`` and read once when a search is set up, so that no
    node asks the game what it has. The fields are named after the ``Game`` methods whose
    contracts they keep.
    """

    key: Callable[[State], Hashable] | None = None
    """``key(state)``: a table key; see ``Game.key``."""
    tactics: Callable[[State, bool], tuple] | None = None
    """``tactics(state, rank)``: one ply of look-ahead; see ``Game.tactics``."""
    move_priorities: Callable[[State, Sequence], Sequence[float]] | None = None
    """``move_priorities(state, moves)``: a number per move; see ``Game.move_priorities``."""
    value_bounds: Callable[[State, int], tuple[float, float]] | None = None
    """``value_bounds(state, player)``: bounds on the game value; see ``Game.value_bounds``."""


class Game(Configurable):
    """A game's rule book: by default two-player, zero-sum, perfect-information and
    deterministic; ``model`` declares more (chance nodes, see docs/game-model.md).

    A game object is a stateless rule book built from declared parameters; a state is an
    immutable, hashable value. ``apply`` returns a new state, so a search may explore
    freely and states can key transposition tables. Players are numbered 0 (moves first)
    and 1.

    Subclasses set ``name``, ``description`` and ``bounds`` and implement the methods
    below. ``heuristic`` must stay strictly inside ``bounds`` so that a proven result
    always outranks an estimate, and be zero-sum like ``utility``.

    The search hooks ``key``, ``tactics``, ``move_priorities`` and ``value_bounds`` are
    optional: a game offers one by overriding it, and the search bots read what is offered
    once per search through ``search_hooks()`` (see docs/search-hooks.md).
    """

    kind: typing.ClassVar[str] = "game"
    model: typing.ClassVar[Model] = Model()
    """What kind of game this is; the default is a two-player, zero-sum, deterministic one."""
    bounds: tuple[float, float] = (-1, 1)
    """Lowest and highest utility a player can get (set per instance if parameters change it)."""

    def initial_state(self) -> State:
        """The position before the first move."""
        raise NotImplementedError

    def to_move(self, state: State) -> int:
        """The seat to move: 0 to ``model.players - 1`` (0 or 1 in a two-player game);
        ``CHANCE`` at a chance node (``model.chance``); ``JOINT`` where several seats move at
        once (``model.simultaneous``)."""
        raise NotImplementedError

    def chance_outcomes(self, state: State) -> Sequence[tuple[Move, float]]:
        """At a chance node: every outcome with its exact probability (each above 0, summing
        to 1), in a fixed order. ``apply(state, outcome)`` applies one; the rule book never
        draws at random itself."""
        raise NotImplementedError(f"{self.name} has no chance nodes")

    def chance_seat(self, state: State, last: int) -> int:
        """The seat a chance event belongs to, whose stream of outcomes it draws from:
        ``last`` (the seat of the latest decision, 0 before any) by default, the seat whose
        turn the event continues. A game where events start the next seat's turn overrides it."""
        return last

    # Simultaneous moves and hidden information (``model.simultaneous``, ``model.hidden``):
    # bots are handed an ``arena.View`` made from these, never the state (docs/game-model.md).

    def acting(self, state: State) -> tuple[int, ...]:
        """At a ``JOINT`` state: the seats that move at once, in seat order."""
        raise NotImplementedError(f"{self.name} has no simultaneous moves")

    def legal_moves_for(self, state: State, seat: int) -> Sequence[Move]:
        """The legal moves of ``seat`` (at a ``JOINT`` state, its own); by default ``legal_moves``."""
        return self.legal_moves(state)

    def apply_joint(self, state: State, moves: tuple) -> State:
        """The state after the acting seats' moves, one each in the order of ``acting``, made at once."""
        raise NotImplementedError(f"{self.name} has no simultaneous moves")

    def observation(self, state: State, seat: int) -> str:
        """All ``seat`` knows of ``state`` as text (its cards, what it has seen of the moves):
        at most ``arena.view.MAX_OBSERVATION`` characters. By default ``render`` (nothing hidden)."""
        return self.render(state)

    def information_key(self, state: State, seat: int) -> Hashable:
        """Equal for the states ``seat`` cannot tell apart (its information state): text, numbers
        or tuples of them. By default its ``observation``."""
        return self.observation(state, seat)

    def public_text(self, state: State, move: Move) -> str:
        """How a ply played in ``state`` looks to every seat (a bot's public history). In a game
        with hidden information a chance outcome shows as "?" by default, a seat's move as its text."""
        if self.model.hidden and self.to_move(state) == CHANCE:
            return "?"
        return self.move_text(state, move)

    def sample_state(self, view, rng) -> State:
        """A state ``view``'s seat cannot tell from the true one, drawn with ``rng`` (a
        ``random.Random``) in proportion to the chance of its hidden outcomes (not weighted by
        how likely the others' strategies made their moves there): for bots that search by
        sampling. Optional; where nothing is hidden, the state itself."""
        if view.state is not None:
            return view.state
        raise NotImplementedError(f"{self.name} cannot sample the states a seat cannot tell apart")

    def utilities(self, state: State) -> tuple[float, ...]:
        """The utility of every seat at a terminal state, in seat order."""
        return tuple(self.utility(state, seat) for seat in range(self.model.players))

    def legal_moves(self, state: State) -> Sequence[Move]:
        """The legal moves, in a fixed order (searches rely on it to be reproducible); none at a
        ``JOINT`` state, where each seat has its own (``legal_moves_for``)."""
        raise NotImplementedError

    def legal_move(self, state: State, move: Move) -> Move | None:
        """The game's own value of ``move`` (equal, of the same type) if it is legal in ``state``,
        else None: the referee's check of every move. By default found among ``legal_moves``; a
        game that tests one move faster than it lists them all overrides it (chess)."""
        legal = self.legal_moves(state)
        index = legal_index(legal, move)
        return None if index is None else legal[index]

    def apply(self, state: State, move: Move) -> State:
        """The state after ``move``; ``state`` itself is never changed."""
        raise NotImplementedError

    def is_terminal(self, state: State) -> bool:
        """True when the game is over."""
        raise NotImplementedError

    def utility(self, state: State, player: int) -> float:
        """The final value of a terminal state for ``player``; in a two-player zero-sum game
        the other gets its negation (else see ``utilities``)."""
        raise NotImplementedError

    def heuristic(self, state: State, player: int) -> float:
        """An estimate of a non-terminal state for ``player``, strictly inside ``bounds``."""
        return 0.0

    def render(self, state: State) -> str:
        """A text picture of the state for a terminal."""
        return repr(state)

    def svg(self, state: State) -> str | None:
        """A picture of the state as one ``<svg>`` element, for HTML reports; None: none.

        Optional: a game that returns None (the default) is shown by its ``render`` text in
        a monospaced block. The picture is inlined into the page once per ply, so keep it
        small and self-contained (no scripts, no external images or fonts); a ``viewBox``
        lets the page scale it.
        """
        return None

    def format_move(self, move: Move) -> str:
        """Text for a move; ``parse_move(format_move(m)) == m``."""
        return str(move)

    def parse_move(self, text: str) -> Move:
        """The move written as ``text``; raise IllegalMoveError if it cannot be one.

        Parsing checks the form only; whether the move is legal in a position is the
        caller's business (see ``legal_moves``).
        """
        raise NotImplementedError

    # Move text in a position: for games whose moves are written differently in different
    # positions (chess's SAN). A game overrides both; everything that shows, stores or
    # sends a move (the referee's records, the human bot, openings, ``arena show``) uses them.

    def move_text(self, state: State, move: Move) -> str:
        """Text for ``move`` in ``state``, no spaces: ``parse_move_in(state, text)`` gives the
        move back, and no two legal moves of ``state`` share a text. By default ``format_move(move)``."""
        return self.format_move(move)

    def parse_move_in(self, state: State, text: str) -> Move:
        """The move written as ``text`` in ``state`` (see ``move_text``); by default
        ``parse_move(text)``. Like ``parse_move`` it may return a move that is not legal."""
        return self.parse_move(text)

    def line_text(self, state: State, moves: Sequence[Move]) -> list[str]:
        """The texts of ``moves`` played one after another from ``state`` (an opening, a
        principal variation); IllegalMoveError at the first that is not legal where it is played."""
        if not texts_need_state(self):
            return [self.format_move(m) for m in moves]
        out = []
        for ply, move in enumerate(moves):
            if move not in self.choices(state):
                raise IllegalMoveError(f"illegal move {move!r} in {self.name} at ply {ply} of the line")
            out.append(self.move_text(state, move))
            state = self.apply(state, move)
        return out

    # Optional search hooks: a game offers one by overriding it (see ``search_hooks``).
    # Each is asked only of non-terminal states.

    def key(self, state: State) -> Hashable:
        """A hashable transposition-table key: equal for equal states, and equal for states
        the game deems equivalent (e.g. mirror images), which must have the same value."""
        return state

    def tactics(self, state: State, rank: bool) -> tuple[float, float, list | None]:
        """One ply of look-ahead: ``(floor, ceiling, moves)``.

        The value of ``state`` for the player to move lies in [floor, ceiling] (equal when
        the position is settled; ``moves`` may then be None). ``moves`` are the legal moves
        worth searching, best first: it may leave out moves that lose at once but never the
        best move. ``rank=False`` asks for a cheaper, rougher order. The search uses it
        where at least two plies remain, so it must not change a depth-2 value.
        """
        low, high = self.bounds
        return (low, high, list(self.legal_moves(state)))

    def move_priorities(self, state: State, moves: Sequence[Move]) -> Sequence[float]:
        """One number per move of ``moves``, higher to be searched first (ties keep order)."""
        return [0.0] * len(moves)

    def value_bounds(self, state: State, player: int) -> tuple[float, float]:
        """``(floor, ceiling)`` around the exact game value of ``state`` for ``player``, the
        player to move, within ``bounds`` (e.g. a win now scores more than one later)."""
        return self.bounds

    def search_hooks(self) -> SearchHooks:
        """The search hooks this game offers: its overridden hook methods, bound.

        A game withholds a hook it overrides (e.g. one that only some parameters make
        useful) by overriding this: ``return super().search_hooks()._replace(value_bounds=None)``.
        """
        cls = type(self)
        offered = (getattr(cls, name) is not getattr(Game, name) for name in SearchHooks._fields)
        return SearchHooks(*(getattr(self, name) if on else None for name, on in zip(SearchHooks._fields, offered)))

    # Conveniences built on the methods above.

    def player_name(self, player: int) -> str:
        """How a player is called in this game (e.g. 'X', 'black'); by default its seat in
        words: 'first', 'second', 'third', ... ('seat 11' on)."""
        return ORDINALS[player] if 0 <= player < len(ORDINALS) else f"seat {player + 1}"

    def bad_move_text(self, text: str, expected: str) -> IllegalMoveError:
        """The error ``parse_move`` raises for text that is not a move."""
        return IllegalMoveError(f"cannot read {text!r} as a move in {self.name}; expected {expected}")

    def result_text(self, state: State) -> str:
        """One line saying how a terminal state ended."""
        if self.model.players != 2 or self.model.total != 0.0:  # by rank: the sign of seat 0's says nothing
            utilities = self.utilities(state)
            best = max(utilities)
            tops = [self.player_name(s) for s, u in enumerate(utilities) if u == best]
            return f"{tops[0]} wins" if len(tops) == 1 else f"{' and '.join(tops)} share first place"
        u = self.utility(state, 0)
        if u > 0:
            return f"{self.player_name(0)} wins"
        if u < 0:
            return f"{self.player_name(1)} wins"
        return "draw"

    def choices(self, state: State) -> Sequence[Move]:
        """What may come next: the legal moves, or at a chance node the outcomes."""
        if self.model.chance and self.to_move(state) == CHANCE:
            return [outcome for outcome, _ in self.chance_outcomes(state)]
        return self.legal_moves(state)

    def play(self, moves: Sequence[Any], state: State | None = None) -> State:
        """The state after playing ``moves`` (values or text; chance outcomes among them)
        from ``state`` or the start. At a ``JOINT`` state the next ``len(acting)`` moves are
        the acting seats' (as the referee records them: one ply per seat)."""
        after = self.initial_state() if state is None else state
        for _, _, after in self.turns(moves, after):
            pass
        return after

    def turns(self, moves: Sequence[Any], state: State | None = None):
        """Each turn of ``moves`` (as ``play`` reads them) from ``state`` or the start:
        ``(state, parts, after)``, the state before it, its ``(seat, move)`` parts (one, or one
        per acting seat of a joint move, in the order of ``acting``) and the state after it.
        IllegalMoveError at the first move that is not legal where it is played."""
        state = self.initial_state() if state is None else state
        ply, count = 0, len(moves)
        while ply < count:
            if self.model.simultaneous and self.to_move(state) == JOINT:
                seats = self.acting(state)
                if ply + len(seats) > count:
                    raise IllegalMoveError(f"the line of {self.name} ends inside a joint move at ply {ply}")
                joint = tuple(self._line_move(state, moves[ply + i], ply + i, seat) for i, seat in enumerate(seats))
                after = self.apply_joint(state, joint)
                parts = list(zip(seats, joint))
            else:
                move = self._line_move(state, moves[ply], ply)
                after = self.apply(state, move)
                parts = [(self.to_move(state), move)]
            yield state, parts, after
            state = after
            ply += len(parts)

    def _line_move(self, state: State, move: Any, ply: int, seat: int | None = None) -> Move:
        """``move`` (a value or text) if legal in ``state`` (for ``seat`` at a joint move), else IllegalMoveError."""
        if isinstance(move, str):
            move = self.parse_move_in(state, move)
        legal = self.choices(state) if seat is None else self.legal_moves_for(state, seat)
        if move not in legal:
            shown = ", ".join(self.move_text(state, m) for m in legal)
            raise IllegalMoveError(
                f"illegal move {self.move_text(state, move)!r} in {self.name} at ply {ply}; legal: {shown}"
            )
        return move


def bounds_problem(bounds) -> str | None:
    """What is wrong with a game's ``bounds``, or None: two finite numbers, the lower first."""
    try:
        low, high = bounds
        fine = all(isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b) for b in (low, high))
    except (TypeError, ValueError):
        fine = False
    if not fine:
        return "expected two finite numbers (lowest, highest utility)"
    return None if low < high else "the lowest utility must be below the highest"


def texts_need_state(game: Game) -> bool:
    """Whether ``game`` writes moves by position (overrides ``move_text``): callers that
    would write a move once for every position (the referee) then ask per position."""
    return type(game).move_text is not Game.move_text
