"""Ratings: one joint fit of every game, with the first move, draws and paired openings.

``ratings(games)`` is the Elo table every report shows: one row per bot, ``elo``,
``elo_low``, ``elo_high`` (95%) and ``se``, with the fitted first-move advantage and draw
parameter in ``attrs``. ``fit(games)`` returns the same with the joint covariance, which
``superiority`` turns into a likelihood-of-superiority matrix. ``strengths`` is the point
estimate alone from plain arrays, for callers that refit often (the ladder).

The model (docs/ratings.md has it in full, with sources):

- ``elo`` is the colour-neutral strength: with no first-move advantage, two bots ``d``
  apart score ``1 / (1 + 10**(-d / 400))`` against each other. The first mover's expected
  score is that curve at ``d + first_move``; a draw counts half a point. The point
  estimate maximises the Bernoulli quasi-likelihood of the scores, whose equations only
  ask that each bot's expected points match its real ones: so draws do not change the
  scale, whatever their rate.
- Draws shape the intervals instead: the covariance is the inverse information times a
  dispersion estimated from the data (below 1 when draws are common, since a draw varies
  less than a coin flip).
- Games in colour-swapped pairs (same pairing, same opening) are not independent: the
  dispersion is estimated from the pairs' summed residuals, so an opening that favours one
  side widens nothing and a pair counts for what it tells (fastchess's and fishtest's
  pentanomial view, for any number of bots).
- The draw parameter is Davidson's, fitted at the ratings: it describes draws and is
  reported beside them, not used for the point estimate, because Davidson's strengths are
  on another scale than ``elo``.
- A prior of ``prior`` (``PRIOR``) virtual drawn games of each bot against the field's
  mean (and of the first mover against an equal opponent) keeps every rating finite; it
  moves a bot's expected points at most ``prior`` from its real ones. A perfect score's
  interval stays open on the side the data cannot bound.

A fit over rankings of more than two players (Plackett-Luce) belongs beside ``fit``,
returning the same ``Fit``; with ``first_move=False, pairs=False`` this fit is the plain
Bradley-Terry one it must agree with on two-player games.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from arena.errors import ParameterError
from results import bradley_terry as bt
from results.bradley_terry import quantile
from results.ratingview import View
from results.sprt import Z95

K = math.log(10) / 400
"""Elo's logistic scale: P(i beats j) = 1 / (1 + 10**(-(r_i - r_j) / 400)) = sigmoid(K * (r_i - r_j))."""
COLUMNS = ["elo", "elo_low", "elo_high", "se"]
PRIOR = 0.3
"""Virtual drawn games of each bot against the field's mean (docs/ratings.md: what it compresses)."""
SMALL_DF = 30
"""Below this many degrees of freedom the dispersion is noisy enough to widen the intervals."""

__all__ = [
    "COLUMNS", "Fit", "K", "View", "Z95", "fit", "interval_quantile", "origin", "quantile", "ratings", "strengths",
    "superiority",
]


@dataclass(frozen=True)
class Fit:
    """A fit's table, its joint covariance and the parameters reported beside the ratings."""

    table: pd.DataFrame
    """``elo``, ``elo_low``, ``elo_high``, ``se`` by bot (sorted by name)."""
    covariance: np.ndarray
    """Covariance of the ratings in Elo squared, rows and columns in the table's order."""
    first_move: float = 0.0
    """Elo the first mover gains (0 when not fitted)."""
    first_move_se: float = 0.0
    draw_rate: float = 0.0
    """Share of the rated games that were drawn."""
    draw_nu: float = 0.0
    """Davidson's draw parameter at the ratings: equal bots draw nu / (2 + nu) of their games."""
    dispersion: float = 1.0
    """Variance of the scores over the model's coin-flip variance, from the pairs' residuals."""
    dispersion_df: int = 0
    """Degrees of freedom of the dispersion: clusters minus fitted parameters (0: not estimated)."""
    clusters: int = 0
    """Independent units of the dispersion: colour-swapped pairs, or single games."""
    anchors: Mapping[str, float] = field(default_factory=dict)

    @property
    def draw_equal(self) -> float:
        """The share of games two equal bots draw, by Davidson's model."""
        return 1.0 if math.isinf(self.draw_nu) else self.draw_nu / (2.0 + self.draw_nu)

    @property
    def quantile(self) -> float:
        """The 95% quantile the intervals use (see ``interval_quantile``)."""
        return interval_quantile(self.dispersion_df)

    def attrs(self) -> dict:
        """The scalar parameters, as ``ratings`` puts them in its frame's ``attrs``."""
        return {
            "first_move": self.first_move, "first_move_se": self.first_move_se,
            "draw_rate": self.draw_rate, "draw_nu": self.draw_nu, "draw_equal": self.draw_equal,
            "dispersion": self.dispersion, "dispersion_df": self.dispersion_df, "clusters": self.clusters,
            "anchors": dict(self.anchors),
        }


def interval_quantile(df: int) -> float:
    """The quantile of the 95% intervals: Student's t on the dispersion's ``df`` (its prior's
    included) below ``SMALL_DF``, the normal one from there on (the two differ by under 4%,
    and bench/ratings.py finds the normal one already a little wide on sparse schedules)."""
    return quantile(df) if 0 < df < SMALL_DF else Z95


def origin(anchors) -> str:
    """Where ratings are measured from, in words: "mean 0", or "anchored at random +0, sf +2800"."""
    held = dict(anchors)
    return "anchored at " + ", ".join(f"{b} {e:+g}" for b, e in held.items()) if held else "mean 0"


def _anchors(anchors) -> dict[str, float]:
    """Anchors as a dict of bot -> finite Elo; ParameterError names a bad one."""
    try:
        pairs = dict(anchors or {})
    except (TypeError, ValueError):
        raise ParameterError(f"anchors are bot -> Elo (a dict, or (bot, Elo) pairs), not {anchors!r}") from None
    out = {}
    for bot, value in pairs.items():
        try:
            elo = float(value)
        except (TypeError, ValueError):
            elo = math.nan
        if isinstance(value, str) or not math.isfinite(elo):
            raise ParameterError(f"anchor {bot}'s Elo must be a finite number, not {value!r}")
        out[bot] = elo
    return out


# ---- the frame's public face ------------------------------------------------------------------

def ratings(games: pd.DataFrame, *, anchors: Mapping[str, float] | Sequence | None = None, first_move: bool = True,
            pairs: bool = True, prior: float = PRIOR) -> pd.DataFrame:
    """Elo by bot from a games table as stored (``first``, ``second``, ``score_first``; and
    ``game_id``, ``pairing``, ``opening`` to find colour-swapped pairs; more columns ignored).

    Columns ``elo``, ``elo_low``, ``elo_high`` (95%), ``se``; ``attrs`` holds ``first_move``
    (Elo) and ``first_move_se``, ``draw_rate``, ``draw_nu`` and ``draw_equal`` (Davidson's
    draw parameter and the draw share of equal bots), ``dispersion`` and its
    ``dispersion_df``, ``clusters`` and ``anchors``. Ratings have mean 0, or equal the
    ``anchors`` (bot -> Elo) where given, the intervals then relative to them.
    A bot that won every game has no upper end (``elo_high`` is inf; its ``elo`` is where
    the prior holds it), one that lost every game no lower end. ``first_move=False`` leaves
    out the first-move term, ``pairs=False`` treats games as independent coin flips (the
    plain Bradley-Terry covariance), ``prior`` sets the virtual games (``PRIOR``), and
    ``prior=0`` gives the maximum likelihood (ValueError where it is infinite).
    """
    result = fit(games, anchors=anchors, first_move=first_move, pairs=pairs, prior=prior)
    table = result.table.copy()
    table.attrs = result.attrs()
    return table


def fit(games: pd.DataFrame, *, anchors: Mapping[str, float] | Sequence | None = None, first_move: bool = True,
        pairs: bool = True, prior: float = PRIOR) -> Fit:
    """The fit behind ``ratings``, with its joint covariance (see ``ratings``)."""
    anchors = _anchors(anchors)
    played = games[games["first"] != games["second"]]  # a game against oneself says nothing
    x = played["score_first"].to_numpy(float, na_value=np.nan)
    if not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
        bad = x[~(np.isfinite(x) & (x >= 0) & (x <= 1))][0]
        raise ParameterError(f"score_first must be a score from 0 to 1 (1, 0.5 or 0 for a win, draw or loss), not {bad!r}")
    bots = sorted(set(games["first"]) | set(games["second"]))
    unknown = sorted(set(anchors) - set(bots))
    if unknown:
        raise ParameterError(f"anchor {', '.join(unknown)} played no game here; bots: {', '.join(bots) or 'none'}")
    if not bots:
        empty = pd.DataFrame(columns=COLUMNS, index=pd.Index([], name="bot"), dtype=float)
        return Fit(empty, np.zeros((0, 0)), anchors=anchors)
    index = {b: k for k, b in enumerate(bots)}
    i = played["first"].map(index).to_numpy(int)
    j = played["second"].map(index).to_numpy(int)
    # the fit is the same under a shift of every strength, so it runs with the anchors' mean
    # at 0 and is shifted back: an anchor of 10^9 Elo costs no precision
    offset = float(np.mean(list(anchors.values()))) * K if anchors else 0.0
    fixed = {index[b]: value * K - offset for b, value in anchors.items()}
    model = bt.Model(len(bots), i, j, x, prior, first_move, fixed)
    start = None
    if fixed:  # from the free fit moved onto the anchors: one anchor then needs no step at all
        free, _ = bt.Model(len(bots), i, j, x, prior, first_move, {}).solve()
        start = free + np.mean([v - free[k] for k, v in fixed.items()])
    theta, advantage = model.solve(start)
    inverse = model.inverse(theta, advantage)
    dispersion, df, clusters = (bt.dispersion(played, i, j, x, theta, advantage, inverse, first_move) if pairs
                                else (1.0, 0, len(x)))
    covariance = dispersion * inverse / K**2
    rating = (theta + offset if fixed else theta - theta.mean()) / K
    theta_cov = covariance[: len(bots), : len(bots)]
    se = np.sqrt(np.clip(np.diag(theta_cov), 0.0, None))
    q = interval_quantile(df)
    table = pd.DataFrame({"elo": rating, "elo_low": rating - q * se, "elo_high": rating + q * se, "se": se},
                         index=pd.Index(bots, name="bot"))
    if prior > 0:  # a perfect score has no finite maximum-likelihood end: the interval stays open there
        points = np.bincount(i, x, len(bots)) + np.bincount(j, 1 - x, len(bots))
        games_of = np.bincount(i, minlength=len(bots)) + np.bincount(j, minlength=len(bots))
        held = np.isin(np.arange(len(bots)), list(fixed))
        table.loc[(games_of > 0) & (points == games_of) & ~held, "elo_high"] = math.inf
        table.loc[(games_of > 0) & (points == 0) & ~held, "elo_low"] = -math.inf
    a_se = math.sqrt(max(covariance[-1, -1], 0.0)) if first_move else 0.0
    draws = x == 0.5
    return Fit(
        table, theta_cov, first_move=float(advantage) / K, first_move_se=a_se,
        draw_rate=float(draws.mean()) if len(x) else 0.0,
        draw_nu=bt.davidson(theta[i] - theta[j] + advantage, draws),
        dispersion=dispersion, dispersion_df=df, clusters=clusters, anchors=anchors,
    )


def superiority(result: Fit | pd.DataFrame, top: int | None = None) -> pd.DataFrame:
    """P(row bot is stronger than column bot) from a ``Fit``'s joint covariance (a games
    table is fitted first), for the ``top`` best-rated bots (all when None), best first.

    Each cell is F((r_a - r_b) / sd(r_a - r_b)), the difference's sd including the two
    ratings' covariance (two overlapping intervals can still say 99%), F the distribution the
    intervals use: Student's t on the dispersion's degrees of freedom below ``SMALL_DF``, else
    the normal one. Two anchors have no chance between them: NaN.
    """
    if not isinstance(result, Fit):
        if not {"first", "second", "score_first"} <= set(result.columns):
            raise ParameterError("superiority takes a Fit (results.ratings.fit) or a games table")
        result = fit(result)
    table = result.table
    order = np.argsort(-table["elo"].to_numpy(), kind="stable")
    if top is not None:
        order = order[: max(top, 0)]
    r = table["elo"].to_numpy()[order]
    v = result.covariance[np.ix_(order, order)]
    var = np.diag(v)[:, None] + np.diag(v)[None, :] - 2 * v
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r[:, None] - r[None, :]) / np.sqrt(np.clip(var, 0.0, None))
    df = result.dispersion_df
    if 0 < df < SMALL_DF:  # t to a normal deviate, Abramowitz and Stegun 26.7.8
        z = z * (1 - 1 / (4 * df)) / np.sqrt(1 + z**2 / (2 * df))
    cells = 0.5 * (1.0 + bt.erf(z / math.sqrt(2.0)))
    cells[~(var > 0)] = np.nan  # two anchors, or a bot against itself: nothing to tell
    names = table.index[order]
    return pd.DataFrame(cells, index=pd.Index(names, name="bot"), columns=list(names))


def strengths(first: np.ndarray, second: np.ndarray, score: np.ndarray, size: int, *,
              first_move: bool = True, prior: float = PRIOR) -> np.ndarray:
    """The Elo of ``ratings`` alone (mean 0) of ``size`` bots from games of bot ``first[k]``
    against ``second[k]`` scoring ``score[k]``: for callers that refit often."""
    if size == 0:
        return np.zeros(0)
    keep = first != second
    model = bt.Model(size, first[keep], second[keep], score[keep], prior, first_move, {})
    theta, _ = model.solve()
    return (theta - theta.mean()) / K

