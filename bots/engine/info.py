"""An arena-protocol ``info`` line, read (docs/protocol.md)::

    info [depth D] [nodes N] [time MS] [score S] [utilities U0 U1 ... U(N-1)] [pv M1 M2 ...]

Fields come in any order; ``pv`` comes last and takes the rest of the line. ``utilities`` is
the engine's forecast of every seat's utility, exactly one number per seat: it ends at the
next field's name or the end of the line, so it may stand anywhere before ``pv``. Without
``score`` the score is the utility of the engine's own seat; with it the two must agree.
"""

from __future__ import annotations

import math

#: The fields of an info line other than ``pv`` (which takes the rest of the line).
FIELDS = frozenset(("depth", "nodes", "time", "score", "utilities"))
#: How far ``score`` may be from the engine's own seat's utility on the same line.
AGREEMENT = 1e-9


class BadUtilities(ValueError):
    """``utilities`` that break the protocol: the message, one line, names what is wrong."""


def read_info(line: str, info: dict, game=None, seat: int = 0) -> None:
    """Read an ``info`` line into ``info`` (depth, nodes, time, score, utilities, pv).

    ``utilities`` are checked against ``game`` (one finite number per seat within its bounds,
    agreeing with ``score`` on the line) and ``seat``, the engine's own. BadUtilities (a
    ValueError) names a fault of the utilities, ValueError or IndexError a garbled line.
    """
    words = line.split()
    found: dict = {}
    i = 1
    while i < len(words):
        key = words[i]
        if key == "pv":
            found["pv"] = words[i + 1 :]
            break
        if key == "utilities":
            end = i + 1
            while end < len(words) and words[end] not in FIELDS and words[end] != "pv":
                end += 1
            if game is None:  # no game to check them against
                raise ValueError(key)
            found["utilities"] = utilities(words[i + 1 : end], game)
            i = end
            continue
        if key in ("depth", "nodes", "time"):
            found[key] = int(words[i + 1])
        elif key == "score":
            found["score"] = score = float(words[i + 1])
            if not math.isfinite(score):
                raise ValueError(score)
        else:
            raise ValueError(key)
        i += 2
    if "utilities" in found:
        own = found["utilities"][seat]
        if "score" not in found:
            found["score"] = own
        elif abs(found["score"] - own) > AGREEMENT:
            raise BadUtilities(
                f"score {found['score']!r} disagrees with utility {own!r} of its own seat {seat} by more than 1e-9"
            )
    info.update(found)


def utilities(words: list[str], game) -> tuple[float, ...]:
    """The utilities ``words`` give, one per seat of ``game``, each finite and within its bounds."""
    seats = game.model.players
    if len(words) != seats:
        shown = " ".join(words)
        shown = shown if len(shown) <= 60 else shown[:59] + "…"
        raise BadUtilities(f"utilities {shown!r}: {len(words)} numbers for the {seats} seats of {game.name}, one each")
    low, high = game.bounds
    slack = 1e-9 * (high - low)  # as the referee allows a score
    out = []
    for seat, word in enumerate(words):
        try:
            value = float(word)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise BadUtilities(f"utility {word[:40]!r} of seat {seat} is not a finite number")
        if not low - slack <= value <= high + slack:
            raise BadUtilities(f"utility {word[:40]!r} of seat {seat} is outside the game's bounds [{low:g}, {high:g}]")
        out.append(value)
    return tuple(out)
