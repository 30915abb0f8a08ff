"""What a move's budget becomes in the ``go`` line of the arena's protocol and of UCI."""

from __future__ import annotations


def movetime(limits) -> float | None:
    """The seconds an engine is given for a move: its time budget, else its cpu budget (the
    protocols know only wall time; the referee charges the engine's CPU all the same)."""
    return limits.time if limits.time is not None else limits.cpu


def go_line(limits, clock_words) -> str:
    """``go`` with the budget's limits; under a clock, the clocks as ``clock_words`` writes them."""
    words = ["go"]
    if limits.nodes is not None:
        words += ["nodes", str(limits.nodes)]
    if limits.depth is not None:
        words += ["depth", str(limits.depth)]
    seconds = movetime(limits)
    if seconds is not None:
        words += ["movetime", str(max(1, int(seconds * 1000)))]
    if limits.clock is not None:
        words += clock_words(limits.clock)
    return " ".join(words)


def arena_clock(clock) -> list[str]:
    """The arena protocol's clocks: ``time0 MS time1 MS inc0 MS inc1 MS [movestogo N]`` (seats without a clock left out)."""
    seats = [s for s, left in enumerate(clock.remaining) if left is not None]
    words = [w for s in seats for w in (f"time{s}", ms(clock.remaining[s]))]
    words += [w for s in seats for w in (f"inc{s}", ms(clock.increments[s]))]
    return words + (["movestogo", str(clock.moves_to_go)] if clock.moves_to_go else [])


def uci_clock(clock) -> list[str]:
    """UCI's clocks: ``wtime MS btime MS winc MS binc MS [movestogo N]``; seat 0 is White (the chess game's)."""
    sides = [(side, seat) for seat, side in enumerate("wb") if clock.remaining[seat] is not None]
    words = [w for side, seat in sides for w in (f"{side}time", ms(clock.remaining[seat]))]
    words += [w for side, seat in sides for w in (f"{side}inc", ms(clock.increments[seat]))]
    return words + (["movestogo", str(clock.moves_to_go)] if clock.moves_to_go else [])


def ms(seconds: float) -> str:
    """Seconds as the whole milliseconds the protocols send (at least 1 for a clock not run out)."""
    whole = int(seconds * 1000)
    return str(whole if whole > 0 or seconds <= 0 else 1)
