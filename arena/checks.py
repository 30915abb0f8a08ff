"""What the referee checks of what a bot hands back, and of what a game says at its end."""

from __future__ import annotations

import math

from arena.bot import Decision
from arena.game import Game, State
from arena.legal import _find, legal_index  # noqa: F401 (imported from here too)

#: The deepest search a decision may claim, in plies.
MAX_DEPTH = 10_000
#: The most nodes a decision may report.
MAX_NODES = (1 << 62) - 1
#: Most moves in a decision's principal variation.
MAX_PV = 1000


def forfeit_utilities(game: Game, loser: int, seats: int) -> tuple[float, ...]:
    """The utilities of a game ``loser`` forfeits: the lowest for it; for each other seat an
    equal share of what the game's constant sum leaves (two seats, zero-sum: the negation),
    or the highest utility in a general-sum game."""
    low, high = game.bounds
    total = game.model.total
    other = high if total is None else (total - low) / (seats - 1) if seats > 1 else low
    return tuple(low if seat == loser else other for seat in range(seats))


def _checked_utilities(game: Game, state: State, seats: int) -> tuple[float, ...]:
    """The terminal utilities, one finite number per seat; ValueError names the game's mistake."""
    utilities = tuple(game.utilities(state))
    if len(utilities) != seats or not all(_real(u) for u in utilities):
        raise ValueError(f"{game.name}: utilities returned {_shown(utilities)}: {seats} finite numbers, one per seat")
    return tuple(float(u) if type(u) is not float else u for u in utilities)


def _checked_decision(game: Game, state: State, decision: Decision) -> tuple[str, ...]:
    """The decision's principal variation as text, once every field is found fit to store:
    ValueError names the first that is not (see ``Decision``)."""
    score, depth, nodes, pv = decision.score, decision.depth, decision.nodes, decision.pv
    if score is not None:
        low, high = game.bounds
        slack = 1e-9 * (high - low)
        if not _real(score) or not low - slack <= score <= high + slack:  # nan fails too
            raise ValueError(f"score {_shown(score)} is not a number within the game's bounds [{low:g}, {high:g}]")
    if depth is not None and not (_whole(depth) and 0 <= depth <= MAX_DEPTH):
        raise ValueError(f"depth {_shown(depth)} is not a whole number from 0 to {MAX_DEPTH:,}")
    if nodes is not None and not (_whole(nodes) and 0 <= nodes <= MAX_NODES):
        raise ValueError(f"reported nodes {_shown(nodes)} is not a whole number from 0 to {MAX_NODES:,}")
    if not pv:
        return ()
    if not isinstance(pv, (tuple, list)) or len(pv) > MAX_PV:
        raise ValueError(f"principal variation is not a tuple of at most {MAX_PV:,} moves")
    try:
        # each a move the game can write; where it writes moves by position, legal where it is
        # played (line_text walks it). A full legality walk elsewhere would cost more than a fast
        # engine's move (1.4 ms for 20 chess moves): a principal variation is the bot's forecast
        return tuple(game.line_text(state, pv))
    except Exception as exc:
        raise ValueError(f"principal variation cannot be written: {_describe(exc)}") from None


def _real(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value, size: int = 60) -> str:
    """A value from a bot, shown in at most ``size`` characters."""
    try:
        text = repr(value)
    except Exception:  # a repr that raises, or recurses too deep
        return f"<unprintable {type(value).__name__}>"
    return text if len(text) <= size else text[: size - 1] + "…"


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
