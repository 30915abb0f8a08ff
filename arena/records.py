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
    """Who moved: 0 or 1; -1 (``arena.CHANCE``) for a chance outcome the referee drew."""
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


@dataclass(frozen=True)
class GameRecord:
    """One finished game: who played, how, and why it ended."""

    game: str
    """Spec of the game played, e.g. ``connect4`` or ``connect4:columns=8``."""
    players: tuple[str, str]
    """Display names of the first and second player."""
    budgets: tuple[str, str]
    """Each player's per-move budget, as text."""
    seed: int
    """Seed the bots' randomness was derived from."""
    opening: tuple[str, ...]
    """Moves played before the bots took over."""
    moves: tuple[MoveRecord, ...]
    """Every move the bots made, in order."""
    utilities: tuple[float, float]
    """Final value for each player; they sum to zero."""
    termination: Termination
    """Why the game ended."""
    loser: int | None = None
    """The player who forfeited (illegal move, timeout, crash), else None."""
    message: str = ""
    """A readable account of how the game ended."""

    @property
    def winner(self) -> int | None:
        """0 or 1, or None for a draw."""
        u = self.utilities[0]
        return 0 if u > 0 else 1 if u < 0 else None

    @property
    def score_first(self) -> float:
        """Points of the first player: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return points(self.result)

    @property
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``, as in chess notation."""
        return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[self.winner]

    @property
    def plies(self) -> int:
        """Moves played in all, the opening included."""
        return len(self.opening) + len(self.moves)


def points(result: str) -> float:
    """The first player's points for a result as stored (``1-0``: 1, ``0-1``: 0, a draw: 0.5)."""
    return 1.0 if result == "1-0" else 0.0 if result == "0-1" else 0.5
