"""Results that are not transitive: the payoff matrix of two-seat games and its 3-cycles.

Elo is a transitive model: a bot rated above another is expected to beat it, and every bot
it beats. Rock-paper-scissors bots beat each other in a cycle (A beats B, B beats C, C beats
A), which no rating can show. ``intransitivity(games)`` gives each ordered pair's mean
score (the payoff matrix), the 3-cycles among the bots (each bot scoring above half against
the next) and which of them are significant.

The test (tests/test_cycles.py measures its power and its false positives):

- An edge "A over B" is tested one-sided, against a mean score of at most 1/2, a draw
  counting half. Games in colour-swapped pairs (``results.sprt_report.game_pairs``: one
  opening, and in a game with chance the same dice) may be correlated, so the unit is the
  pair: its residual is the sum of its games' scores minus 1/2 each, and the statistic is
  the residuals' sum over the root of the sum of their squares (a score test, robust to any
  correlation within a pair; pairs are independent of each other). A game without a
  partner is a unit of its own. The p-value is the normal tail.
- A cycle's p-value is the largest of its three edges' (it exists only if every edge does:
  an intersection-union test), and the cycles are corrected by Holm's step-down over every
  3-cycle the schedule could show: two orientations of each three bots that all played
  each other. A cycle is significant when its Holm p-value is at most ``ALPHA``: then each
  of its edges is significantly above 1/2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from results.sprt_report import game_pairs

ALPHA = 0.05
"""The family-wise error rate of the cycles flagged significant."""
CYCLE_COLUMNS = [
    "a", "b", "c", "games_ab", "games_bc", "games_ca", "score_ab", "score_bc", "score_ca",
    "p_ab", "p_bc", "p_ca", "p", "p_holm", "significant",
]


@dataclass(frozen=True)
class Edges:
    """Every ordered pair's games, points and one-sided p-value (arrays of bots x bots)."""

    games: np.ndarray
    """Games bot i played against bot j, either colour."""
    points: np.ndarray
    """Bot i's points in them (a draw half)."""
    p: np.ndarray
    """P-value of "i scores above 1/2 against j" (0.5 where the pairs' residuals are all 0;
    NaN without games)."""


def edges(first: np.ndarray, second: np.ndarray, score: np.ndarray, unit: np.ndarray, size: int) -> Edges:
    """The edges of ``size`` bots from games of bot ``first[k]`` against ``second[k]``, the
    first scoring ``score[k]``, each in the unit ``unit[k]`` (its colour-swapped pair's
    number, or its own); games of a bot against itself say nothing."""
    keep = first != second
    first, second, score, unit = first[keep], second[keep], score[keep].astype(float), unit[keep]
    low, high = np.minimum(first, second), np.maximum(first, second)
    residual = np.where(first == low, score, 1.0 - score) - 0.5  # the lower-numbered bot's
    cells = size * size
    pair = low * size + high  # the upper-triangle cell of the two bots
    # a unit's games share their two bots; keyed by its pair of bots too, whatever the numbering
    keys, inverse = np.unique(unit.astype(np.int64) * cells + pair, return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=residual, minlength=len(keys))
    games = np.bincount(pair, minlength=cells).reshape(size, size).astype(float)
    excess = np.bincount(pair, weights=residual, minlength=cells).reshape(size, size)
    variance = np.bincount(keys % cells, weights=sums**2, minlength=cells).reshape(size, size)
    i, j = np.nonzero(games)  # upper cells only, so far
    z = np.zeros(len(i))
    spread = variance[i, j] > 0
    z[spread] = excess[i, j][spread] / np.sqrt(variance[i, j][spread])
    upper = np.array([0.5 * math.erfc(v / math.sqrt(2.0)) for v in z.tolist()])
    p = np.full((size, size), np.nan)
    p[i, j], p[j, i] = upper, 1.0 - upper
    points = np.zeros((size, size))
    points[i, j] = excess[i, j] + games[i, j] / 2
    points[j, i] = games[i, j] - points[i, j]
    games = games + games.T
    return Edges(games, points, p)


def cycles(found: Edges, alpha: float = ALPHA) -> tuple[list[tuple], int]:
    """The 3-cycles i > j > k > i of ``found`` whose three scores are above 1/2, each once
    (starting at its lowest-numbered bot), as ``(i, j, k, p, p_holm, significant)`` sorted
    by p; and how many cycles the Holm correction counts (two per three bots that all met)."""
    games, points, p = found.games, found.points, found.p
    beats = 2 * points > games  # NaN-free: no games, no edge
    met = (games > 0).astype(float)
    family = int(round(np.trace(met @ met @ met) / 3))  # oriented triangles: trace counts each 3 times
    out = []
    for i in range(len(games)):
        for j in np.flatnonzero(beats[i]):
            if j < i:
                continue
            for k in np.flatnonzero(beats[j] & beats[:, i]):
                if k > i:
                    out.append((i, int(j), int(k), float(max(p[i, j], p[j, k], p[k, i]))))
    out.sort(key=lambda c: c[3])
    adjusted, running = [], 0.0
    for rank, (i, j, k, worst) in enumerate(out):
        running = max(running, min(1.0, (family - rank) * worst))  # Holm's step-down, kept monotone
        adjusted.append((i, j, k, worst, running, running <= alpha))
    return adjusted, family


def units(games: pd.DataFrame) -> np.ndarray:
    """Each game's unit: its colour-swapped pair's number (``game_pairs``), or its own."""
    if "game_id" not in games or "opening" not in games:
        return np.arange(len(games))
    pairs, _ = game_pairs(games)
    unit = {g: k for k, pair in enumerate(pairs) for g in pair}
    start = len(pairs)
    ids = games["game_id"].astype(int).tolist()
    return np.array([unit.get(g, start + n) for n, g in enumerate(ids)], dtype=np.int64)


@dataclass(frozen=True)
class Intransitivity:
    """A two-seat tournament's payoff matrix and 3-cycles (``intransitivity``)."""

    payoff: pd.DataFrame
    """Per ordered pair (index ``bot``, column ``opponent``): games, mean score 0..1 and p."""
    cycles: pd.DataFrame
    """One row per 3-cycle (``CYCLE_COLUMNS``), index its text ``a > b > c > a``, by p."""
    family: int
    """Cycles the Holm correction counts."""
    alpha: float = ALPHA

    @property
    def significant(self) -> pd.DataFrame:
        return self.cycles[self.cycles["significant"]]

    def matrix(self, order: Sequence[str]) -> pd.DataFrame:
        """The payoff matrix: the row bot's mean score against the column bot (NaN: no games)."""
        cells = self.payoff.reset_index().pivot(index="bot", columns="opponent", values="score_rate")
        table = cells.reindex(index=list(order), columns=list(order)).astype(float)
        table.index.name, table.columns.name = "bot", None
        games = self.payoff["games"]
        low, high = int(games.min()), int(games.max())
        table.attrs["note"] = (f"mean score in % of the row's bot against the column's bot (a draw counts half), "
                               f"{low:,}" + (f" to {high:,}" if high != low else "") + " games a pair")
        return table

    def line(self, shown: int = 3) -> str | None:
        """One line for people beside the Elo, naming the significant cycles; None without one."""
        flagged = self.significant
        if flagged.empty:
            return None
        named = [f"{text} (scores {row.score_ab:.0%}, {row.score_bc:.0%}, {row.score_ca:.0%}; p = {_p(row.p_holm)})"
                 for text, row in flagged.head(shown).iterrows()]
        more = f", and {len(flagged) - shown:,} more" if len(flagged) > shown else ""
        return (f"Results are not transitive: {'; '.join(named)}{more}, each bot scoring significantly above half "
                f"against the next (one-sided tests on colour-swapped pairs, Holm over {self.family:,} possible "
                f"cycles, alpha {self.alpha:g}). Elo, a transitive model, cannot represent a cycle: see the payoff matrix")


def _p(value: float) -> str:
    return "< 0.0001" if value < 1e-4 else f"{value:.2g}"


def intransitivity(games: pd.DataFrame, order: Sequence[str] | None = None, alpha: float = ALPHA) -> Intransitivity:
    """The payoff matrix and 3-cycles of a two-seat games table (``first``, ``second``,
    ``score_first``; ``game_id`` and ``opening`` pair the games), bots in ``order`` (default:
    by name). See the module's doc for the test."""
    bots = list(order) if order is not None else sorted(set(games["first"]) | set(games["second"]))
    index = {b: k for k, b in enumerate(bots)}
    first = games["first"].map(index).to_numpy(int)
    second = games["second"].map(index).to_numpy(int)
    found = edges(first, second, games["score_first"].to_numpy(float), units(games), len(bots))
    i, j = np.nonzero(found.games)
    payoff = pd.DataFrame({
        "opponent": [bots[k] for k in j], "games": found.games[i, j].astype(int),
        "score_rate": found.points[i, j] / found.games[i, j], "p": found.p[i, j],
    }, index=pd.Index([bots[k] for k in i], name="bot"))
    listed, family = cycles(found, alpha)
    rows = {}
    for a, b, c, worst, adjusted, significant in listed:
        trio = ((a, b), (b, c), (c, a))
        rows[f"{bots[a]} > {bots[b]} > {bots[c]} > {bots[a]}"] = [
            bots[a], bots[b], bots[c], *(int(found.games[x, y]) for x, y in trio),
            *(found.points[x, y] / found.games[x, y] for x, y in trio), *(found.p[x, y] for x, y in trio),
            worst, adjusted, significant,
        ]
    table = pd.DataFrame(list(rows.values()), index=pd.Index(list(rows), name="cycle", dtype=object),
                         columns=CYCLE_COLUMNS).astype({"significant": bool})
    return Intransitivity(payoff, table, family, alpha)
