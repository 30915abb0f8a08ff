"""What the referee writes down: one record per move and one per game."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple


class Termination(enum.Enum):
    """Why a game ended."""

    NORMAL = "normal"
    """The rules ended the game."""
    ILLEGAL_MOVE = "illegal_move"
    """A bot returned something that is not a legal move; it loses."""
    TIMEOUT = "timeout"
    """A bot took longer than its time budget plus the margin; it loses."""
    CRASH = "crash"
    """A bot raised an error, or its process died; it loses."""
    MEMORY = "memory"
    """A bot used more memory than its limit; it loses."""
    OUTPUT = "output"
    """A bot wrote more to stdout and stderr than its limit; it loses."""
    PROTOCOL = "protocol"
    """A bot broke the protocol: an engine's garbled line, a host's malformed answer, or a
    decision whose fields cannot be stored (see ``arena.Decision``); it loses."""
    CPU_CEILING = "cpu_ceiling"
    """An isolated bot under a node budget used more CPU time than the budget's ceiling (see
    ``arena.execution.ceiling``): it searched far more than it counted, or its nodes cost far
    more than the arena's own; it loses. The one end of a node-budget game that depends on the machine."""
    CLOCK = "clock"
    """A bot's clock ran out (its time control's, past the time margin): it lost on time."""
    DRAW_ADJUDICATION = "draw_adjudication"
    """Drawn by the referee: both bots' scores stayed near zero for long enough (``arena.adjudication``)."""
    RESIGN_ADJUDICATION = "resign_adjudication"
    """Won by the referee's decision: a bot's own score said it was lost for long enough (``arena.adjudication``)."""
    MAX_MOVES = "max_moves"
    """Drawn by the referee at the most moves a game may last (``arena.adjudication``)."""

    def __str__(self):
        return self.value


class MoveRecord(NamedTuple):
    """One move as the referee saw it.

    A named tuple rather than a dataclass: the referee makes one per move, and a tuple is
    built several times faster.
    """

    ply: int
    """Number of moves played before this one (0 for the first)."""
    player: int
    """Who moved: the seat, 0 to n-1; -1 (``arena.CHANCE``) for a chance outcome the referee drew."""
    move: str
    """The move, in the game's notation."""
    nodes: int
    """Positions the search examined, counted by the arena's counter (or reported: see ``reported``)."""
    seconds: float
    """Wall-clock time the bot took."""
    depth: int | None = None
    """Depth the bot reports having completed, if any."""
    score: float | None = None
    """The bot's value of the position for itself, if it gave one."""
    pv: tuple[str, ...] = ()
    """The bot's principal variation, in the game's notation."""
    reported: bool = False
    """True when ``nodes`` is what the bot's own search reported (an engine), not the arena's count."""
    over_budget: bool = False
    """True when the reported nodes exceed the node budget."""
    cpu: float | None = None
    """CPU seconds the move took, measured outside the bot: its process tree's, as the kernel
    counts them (a cgroup); for a bot in the referee's own process, its thread's, and only
    under a cpu budget (reading the clock costs a system call). None where it is not measured."""
    clock: float | None = None
    """Seconds left on the mover's clock after the move, its increment included; None without a time control."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game: who played, how, and why it ended. Tuples per seat, in seat order
    (seat 0 moved first); with two seats, ``result`` and ``score_first`` read as in chess."""

    game: str
    """Spec of the game played, e.g. ``connect4`` or ``connect4:columns=8``."""
    players: tuple[str, ...]
    """Display name of the bot in each seat (``seats``)."""
    budgets: tuple[str, ...]
    """Each seat's per-move budget, as text."""
    seed: int
    """Seed the bots' randomness was derived from."""
    opening: tuple[str, ...]
    """Moves played before the bots took over."""
    moves: tuple[MoveRecord, ...]
    """Every move the bots made, in order."""
    utilities: tuple[float, ...]
    """Final value for each seat (summing to the game's ``model.total`` where it has one)."""
    termination: Termination
    """Why the game ended."""
    loser: int | None = None
    """The seat that forfeited (illegal move, timeout, crash), else None."""
    message: str = ""
    """A readable account of how the game ended."""

    @property
    def seats(self) -> tuple[str, ...]:
        """The bot in each seat: ``players``."""
        return self.players

    @property
    def points(self) -> tuple[float, ...]:
        """Each seat's points: 1 shared among the seats of the best utility (a win 1, a
        two-player draw 1/2 each), 0 for the rest."""
        return seat_points(self.utilities)

    @property
    def ranks(self) -> tuple[float, ...]:
        """Each seat's place by utility, 1 for the best; tied seats share the mean of their places."""
        return seat_ranks(self.utilities)

    @property
    def winner(self) -> int | None:
        """The seat with the best utility alone, or None for a draw or a shared first place."""
        if len(self.utilities) == 2:  # the common case, without sorting
            u = self.utilities[0] - self.utilities[1]
            return 0 if u > 0 else 1 if u < 0 else None
        best = max(self.utilities)
        tops = [s for s, u in enumerate(self.utilities) if u == best]
        return tops[0] if len(tops) == 1 else None

    @property
    def score_first(self) -> float:
        """Points of the first seat: 1 for a win, 0.5 for a two-player draw, 0 for a loss."""
        return points(self.result)

    @property
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``, as in chess notation; with more seats each seat's
        points in seat order, e.g. ``1-0-0`` or ``1/2-0-1/2``."""
        if len(self.utilities) == 2:
            return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[self.winner]
        return result_text(self.points)

    @property
    def plies(self) -> int:
        """Moves played in all, the opening included."""
        return len(self.opening) + len(self.moves)


def points(result: str) -> float:
    """The first seat's points for a result as stored (``1-0``: 1, ``0-1``: 0, a draw: 0.5;
    ``1/3-1/3-0-1/3``: 1/3)."""
    if result == "1-0":
        return 1.0
    if result == "0-1":
        return 0.0
    if result == "1/2-1/2":
        return 0.5
    first = result.split("-", 1)[0]
    top, _, bottom = first.partition("/")
    return int(top) / int(bottom) if bottom else float(top)


def seat_points(utilities) -> tuple[float, ...]:
    """1 shared among the seats of the best utility, 0 for the rest."""
    best = max(utilities)
    tops = sum(1 for u in utilities if u == best)
    return tuple(1.0 / tops if u == best else 0.0 for u in utilities)


def seat_ranks(utilities) -> tuple[float, ...]:
    """Each seat's place, 1 for the best utility; tied seats share the mean of their places."""
    return tuple(1 + sum(v > u for v in utilities) + (sum(v == u for v in utilities) - 1) / 2 for u in utilities)


def result_text(seat_points) -> str:
    """Points per seat as a result, e.g. ``1-0-0``, ``1/2-0-1/2``."""
    out = []
    for p in seat_points:
        if p == 0:
            out.append("0")
        elif p == 1:
            out.append("1")
        else:
            out.append(f"1/{round(1 / p)}")
    return "-".join(out)
