"""Chess clocks: a time control (``40/60+0.6``, ``10+0.1``, ``60``), what a bot under one is
shown as its move starts (``Clock``), and the referee's running clocks of a game (``Clocks``).

The clock follows fastchess's (app/src/game/timecontrol/timecontrol.cpp): a clock starts with
its time plus one increment; after each move its time is taken off, a period's time added
before the move that completes the period, and the increment after the move. A move that
takes the clock below zero by more than the time margin loses on time; one within the margin
leaves the clock at zero (plus the increment).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from arena.errors import ParameterError

#: The share of the clock a move plans to spend in sudden death (no moves to go): 1/30.
SUDDEN_DEATH_MOVES = 30
#: The most of its remaining time a move plans to spend, however few moves are left.
MOST_OF_CLOCK = 0.5

_TC = re.compile(r"^(?:(\d+)/)?(\d+(?:\.\d*)?|\.\d+|\d+:\d{1,2}(?:\.\d*)?)(?:\+(\d+(?:\.\d*)?|\.\d+))?$")


@dataclass(frozen=True)
class TimeControl:
    """A clock's settings: ``moves`` moves in ``seconds``, plus ``increment`` after every move.

    Written as fastchess and cutechess-cli write it: ``40/60+0.6`` (40 moves in 60 seconds,
    0.6 s a move), ``10+0.1``, ``60`` (sudden death), ``1:30+1`` (minutes:seconds).
    """

    seconds: float
    increment: float = 0.0
    moves: int | None = None
    """Moves per period; after each period the clock gets ``seconds`` more. None: one period, the game."""

    def __post_init__(self):
        for key in ("seconds", "increment"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ParameterError(f"bad time control {key}={value!r}; expected seconds, 0 or more")
            object.__setattr__(self, key, float(value))
        if self.seconds + self.increment <= 0:
            raise ParameterError("bad time control: a clock needs some time (seconds or an increment above 0)")
        if self.moves is not None and (type(self.moves) is not int or self.moves < 1):
            raise ParameterError(f"bad time control moves={self.moves!r}; expected a whole number of at least 1")

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """``[MOVES/]SECONDS[+INCREMENT]``, SECONDS also as ``M:SS``."""
        found = _TC.match(text.strip()) if isinstance(text, str) else None
        if found is None:
            raise ParameterError(
                f"bad time control {text!r}; expected [MOVES/]SECONDS[+INCREMENT] as fastchess and cutechess write it: "
                "40/60+0.6, 10+0.1, 60 or 1:30+1"
            )
        moves, base, increment = found.groups()
        minutes, colon, seconds = base.rpartition(":")
        total = float(minutes) * 60 + float(seconds) if colon else float(base)
        return cls(total, float(increment or 0), int(moves) if moves else None)

    def __str__(self):
        text = f"{self.moves}/" if self.moves else ""
        text += f"{self.seconds:g}"
        return text + (f"+{self.increment:g}" if self.increment else "")


@dataclass(frozen=True)
class Clock:
    """Every seat's clock as a move starts: what a bot under a time control is shown in its budget."""

    seat: int
    """The seat to move."""
    remaining: tuple[float | None, ...]
    """Seconds on each seat's clock (None for a seat without one)."""
    increments: tuple[float, ...]
    """Each seat's increment, in seconds (0 without a clock)."""
    moves_to_go: int | None = None
    """Moves the seat to move has left in its period (None in sudden death)."""

    @property
    def left(self) -> float:
        """Seconds on the mover's clock: a move taking longer (and the time margin) loses on time."""
        return self.remaining[self.seat]

    @property
    def increment(self) -> float:
        return self.increments[self.seat]

    def share(self) -> float:
        """Seconds the move plans to spend: the remaining time over the moves to go (1/30 in sudden
        death), plus the increment; at most half the remaining time."""
        left = self.left
        return min(left / (self.moves_to_go or SUDDEN_DEATH_MOVES) + self.increment, left * MOST_OF_CLOCK)


class Clocks:
    """The running clocks of one game, a ``TimeControl`` per seat (None: no clock)."""

    __slots__ = ("controls", "left", "to_go")

    def __init__(self, controls):
        self.controls = tuple(controls)
        self.left = [None if tc is None else tc.seconds + tc.increment for tc in self.controls]
        self.to_go = [None if tc is None else tc.moves for tc in self.controls]

    def clock(self, seat: int) -> Clock:
        """What the seat to move is shown."""
        return Clock(seat, tuple(self.left), tuple(0.0 if tc is None else tc.increment for tc in self.controls),
                     self.to_go[seat])

    def charge(self, seat: int, seconds: float, margin: float) -> float | None:
        """Take a move's ``seconds`` off the seat's clock: the seconds left after the move
        (increment included), or None if the clock ran out (past ``margin``)."""
        tc = self.controls[seat]
        left = self.left[seat]
        if tc.moves is not None:
            if self.to_go[seat] == 1:  # the move that completes a period: the next period's time first
                self.to_go[seat] = tc.moves
                left += tc.seconds
            else:
                self.to_go[seat] -= 1
        left -= seconds
        if left < -margin:
            self.left[seat] = left
            return None
        self.left[seat] = left = max(left, 0.0) + tc.increment
        return left

    def flag(self, seat: int, seconds: float, margin: float) -> str:
        """Why the seat lost on time, for the game's message."""
        return (f"lost on time: took {seconds:.3f}s with {self.left[seat] + seconds:.3f}s on its clock "
                f"({self.controls[seat]}, margin {margin:g}s)")
