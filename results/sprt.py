"""The statistics of a sequential probability ratio test (SPRT) between two bots.

Counts come in two shapes, lowest score first: ``(L, D, W)`` for single games, or
``(LL, LD, WL+DD, WD, WW)`` for pairs of games (one opening, colours swapped; a pair
scores 0, 0.5, 1, 1.5 or 2 points). ``llr`` is the generalized SPRT's log-likelihood
ratio, as in fishtest's ``LLRcalc.py`` and fastchess's ``sprt.cpp``: each hypothesis's
distribution is the maximum-likelihood one for the observed frequencies among those that
satisfy it. Hypotheses are in normalized Elo (``model="normalized"``, the default) or in
logistic Elo (``model="logistic"``). ``elo``, ``nelo``, ``los`` and ``draw_rate`` are the
estimates fastchess prints beside it, fixed-sample ones (``results.sprt_stopped`` corrects
them for the stopping rule). Pure functions of the counts; only ``math``.
See docs/sprt.md for the formulas and their sources.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from arena.errors import ParameterError

MODELS = ("normalized", "logistic")
"""The hypothesis scales ``llr`` knows."""

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of t-value, (score - 1/2) / (standard deviation per game)."""

EMPTY = 1e-3
"""What an empty count becomes before the LLR, so every outcome has a probability."""

_BISECTIONS = 200  # the secular root: 50 to 85 halvings reach the resolution of a double
_ROUNDS = 50  # fixed-point rounds for one normalized hypothesis
_STEPS = 60  # continuation steps when the fixed point cannot start from uniform
_CONVERGED = 1e-9  # largest change in any probability between two rounds at the fixed point
_WOBBLE = 1e-6  # ... or, once the changes stop shrinking, the largest accepted

Verdict = Literal["H0", "H1"] | None


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% confidence interval."""

    value: float
    """The point estimate."""
    low: float
    """Lower end of the 95% interval."""
    high: float
    """Upper end of the 95% interval."""

    @property
    def error(self) -> float:
        """Half the interval's width: the ``+/-`` fastchess prints."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Status:
    """Where a test stands after some games."""

    verdict: Verdict
    """``"H1"`` when the LLR reached the upper bound, ``"H0"`` the lower, None to play on."""
    llr: float
    """The log-likelihood ratio of H1 against H0."""
    lower: float
    """The bound at or below which H0 is accepted."""
    upper: float
    """The bound at or above which H1 is accepted."""


@dataclass(frozen=True)
class SPRT:
    """One test: H0 "the Elo difference is elo0" against H1 "it is elo1"."""

    elo0: float
    """The difference under H0, in the model's Elo."""
    elo1: float
    """The difference under H1, larger than elo0."""
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds (false positive)."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds (false negative)."""
    model: str = "normalized"
    """The Elo of elo0 and elo1: "normalized" or "logistic"."""

    def __post_init__(self):
        _check_hypotheses(self.elo0, self.elo1, self.model)
        bounds(self.alpha, self.beta)

    @property
    def bounds(self) -> tuple[float, float]:
        """The (lower, upper) LLR bounds."""
        return bounds(self.alpha, self.beta)

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of these counts."""
        return llr(counts, self.elo0, self.elo1, self.model)

    def status(self, counts: Sequence[int]) -> Status:
        """The verdict, LLR and bounds for these counts."""
        value = self.llr(counts)
        lower, upper = self.bounds
        verdict = "H1" if value >= upper else "H0" if value <= lower else None
        return Status(verdict, value, lower, upper)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not _real(value) or not 0 < value < 1:
            raise ParameterError(f"bad SPRT {name}={value!r}; expected a number between 0 and 1")
    if alpha + beta >= 1:
        raise ParameterError(f"bad SPRT alpha={alpha!r}, beta={beta!r}; their sum must be less than 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr(counts: Sequence[int], elo0: float, elo1: float, model: str = "normalized") -> float:
    """The generalized log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``).

    ``N * sum(p_obs * ln(p1 / p0))`` over the outcomes, with empty counts set to
    ``EMPTY`` first; 0.0 when no game has been played.
    """
    counts = check_counts(counts)
    _check_hypotheses(elo0, elo1, model)
    if not any(counts):
        return 0.0
    regular = [c if c else EMPTY for c in counts]
    total = sum(regular)
    observed = [c / total for c in regular]
    scores = _scores(len(counts))
    if model == "normalized":
        per_t = _nelo_per_t(len(counts))
        p0 = _nearest_with_t(observed, scores, elo0 / per_t)
        p1 = _nearest_with_t(observed, scores, elo1 / per_t)
    else:
        p0 = _nearest_with_mean(observed, scores, _expected_score(elo0))
        p1 = _nearest_with_mean(observed, scores, _expected_score(elo1))
    return total * sum(q * math.log(b / a) for q, a, b in zip(observed, p0, p1))


def score(counts: Sequence[int]) -> float:
    """Points per game, from 0 to 1 (0.5 when no game has been played)."""
    counts = check_counts(counts)
    n = sum(counts)
    return _mean(_scores(len(counts)), [c / n for c in counts]) if n else 0.5


def elo(counts: Sequence[int]) -> Interval:
    """Logistic Elo, ``-400 log10(1 / score - 1)``, with the Elo of the score's 95% interval.

    As fastchess's ``EloWDL``/``EloPentanomial``: the score's standard error comes from
    the observed games (or pairs). Infinite for a perfect or a null score; from -inf to
    inf when no game has been played.
    """
    s, se = _score_and_error(counts)
    if se is None:
        return Interval(0.0, -math.inf, math.inf)
    return Interval(_logistic_elo(s), _logistic_elo(s - Z95 * se), _logistic_elo(s + Z95 * se))


def nelo(counts: Sequence[int]) -> Interval:
    """Normalized Elo, ``(score - 1/2) / sigma * 800 / ln 10``, with its 95% interval.

    sigma is the standard deviation of one game's score (for pairs: that of a pair's
    average, times sqrt 2), so the interval is ``value -/+ 1.96 * 800 / ln 10 / sqrt(games)``.
    0 for all draws (or all 1-1 pairs); from -inf to inf when no game has been played.
    """
    counts = check_counts(counts)
    s, se = _score_and_error(counts)
    if se is None:
        return Interval(0.0, -math.inf, math.inf)
    games = sum(counts) * (2 if len(counts) == 5 else 1)
    half = Z95 * NELO_PER_T / math.sqrt(games)
    if se == 0:  # every game (pair) scored alike: the t-value is infinite, or 0 at 1/2
        value = math.copysign(math.inf, s - 0.5) if s != 0.5 else 0.0
    else:
        sigma = se * math.sqrt(games)
        value = (s - 0.5) / sigma * NELO_PER_T
    return Interval(value, value - half, value + half)


def los(counts: Sequence[int]) -> float:
    """Likelihood of superiority: the chance the first bot is the stronger, ``Phi((score - 1/2) / se)``."""
    s, se = _score_and_error(counts)
    if se is None or (se == 0 and s == 0.5):
        return 0.5
    if se == 0:
        return 1.0 if s > 0.5 else 0.0
    return (1 + math.erf((s - 0.5) / (math.sqrt(2) * se))) / 2


def draw_rate(counts: Sequence[int]) -> float:
    """Share of draws; for pairs, the share of pairs scoring 1-1 (WL+DD), as fastchess. 0 when empty."""
    counts = check_counts(counts)
    n = sum(counts)
    return counts[len(counts) // 2] / n if n else 0.0


def pentanomial(pair_scores: Iterable[float]) -> tuple[int, int, int, int, int]:
    """``(LL, LD, WL+DD, WD, WW)`` from each pair's total points (0, 0.5, 1, 1.5 or 2)."""
    counts = [0] * 5
    for points in pair_scores:
        index = points * 2 if _real(points) else None
        if index not in (0, 1, 2, 3, 4):
            raise ParameterError(f"bad pair score {points!r}; expected 0, 0.5, 1, 1.5 or 2")
        counts[int(index)] += 1
    return tuple(counts)


def check_counts(counts: Sequence[int]) -> tuple[int, ...]:
    """The counts as a tuple, or a ParameterError naming what is wrong with them."""
    try:
        counts = tuple(counts)
    except TypeError:
        raise ParameterError(f"bad counts {counts!r}; expected (L, D, W) or (LL, LD, WL+DD, WD, WW)") from None
    if len(counts) not in (3, 5):
        raise ParameterError(
            f"bad counts {counts!r}: {len(counts)} numbers; expected 3 (L, D, W) or 5 (LL, LD, WL+DD, WD, WW)"
        )
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 0:
            raise ParameterError(f"bad count {c!r} in {counts!r}; expected whole numbers of at least 0")
    return tuple(int(c) for c in counts)


def _check_hypotheses(elo0, elo1, model) -> None:
    if model not in MODELS:
        raise ParameterError(f"unknown SPRT model {model!r}; available: {', '.join(MODELS)}")
    for name, value in (("elo0", elo0), ("elo1", elo1)):
        if not _real(value) or not math.isfinite(value):
            raise ParameterError(f"bad SPRT {name}={value!r}; expected a finite number")
    if not elo0 < elo1:
        raise ParameterError(f"bad SPRT hypotheses elo0={elo0!r}, elo1={elo1!r}; elo0 must be less than elo1")


def _real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


# ---- Estimates ---------------------------------------------------------------------------


def _score_and_error(counts) -> tuple[float, float | None]:
    """Mean score and its standard error over games (or pairs); se None when empty."""
    counts = check_counts(counts)
    n = sum(counts)
    if not n:
        return 0.5, None
    probs = [c / n for c in counts]
    scores = _scores(len(counts))
    s = _mean(scores, probs)
    var = sum(p * (a - s) ** 2 for a, p in zip(scores, probs))
    return s, math.sqrt(var / n)


def _logistic_elo(s: float) -> float:
    """The Elo difference that expects score s; a score beyond [0, 1] counts as 0 or 1."""
    if s <= 0:
        return -math.inf
    if s >= 1:
        return math.inf
    return -400 * math.log10(1 / s - 1) + 0.0  # + 0.0: an even score is 0, not -0 (printed "-0")


def _expected_score(elo: float) -> float:
    """1 / (1 + 10^(-elo / 400)), kept strictly inside (0, 1) so a hypothesis stays reachable."""
    x = elo * math.log(10) / 400
    s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
    return min(max(s, 1e-15), 1 - 1e-15)


def _nelo_per_t(size: int) -> float:
    """Normalized Elo per unit of t-value of one game (size 3) or pair (size 5): nElo is per game."""
    return NELO_PER_T / (math.sqrt(2) if size == 5 else 1)


# ---- The hypotheses' distributions ---------------------------------------------------------


def _scores(size: int) -> tuple[float, ...]:
    return (0.0, 0.5, 1.0) if size == 3 else (0.0, 0.25, 0.5, 0.75, 1.0)


def _mean(scores, probs) -> float:
    return sum(a * p for a, p in zip(scores, probs))


def _t_value(scores, probs) -> float:
    mu = _mean(scores, probs)
    return (mu - 0.5) / math.sqrt(sum(p * (a - mu) ** 2 for a, p in zip(scores, probs)))


def _tilt(observed, phi) -> list[float] | None:
    """``1 + x * phi_i`` at the root x of ``sum(q_i * phi_i / (1 + x * phi_i)) = 0``, or None.

    Between its poles ``-1/max(phi)`` and ``-1/min(phi)`` the sum falls strictly from +inf
    to -inf, so bisection finds the one root; there is none when phi does not change sign.
    x is measured from the pole on the root's side, so that the denominator which nearly
    vanishes there keeps its relative precision (far-off hypotheses put the root close to a
    pole, and that denominator becomes a probability's divisor).
    """
    low, high = min(phi), max(phi)
    if not low < 0 < high:
        return None
    from_left = [1 - f / high for f in phi]  # 1 + x phi_i at the left pole, exactly 0 at the top
    from_right = [1 - f / low for f in phi]
    half = (1 / high - 1 / low) / 2
    middle = [c + half * f for c, f in zip(from_left, phi)]
    value = _secular_sum(observed, phi, middle)
    if value == 0:
        return middle
    # right of the middle the offset runs leftwards from the right pole
    base, sign = (from_right, -1.0) if value > 0 else (from_left, 1.0)
    near, far = 0.0, half
    for _ in range(_BISECTIONS):
        offset = (near + far) / 2
        denominators = [c + sign * offset * f for c, f in zip(base, phi)]
        if far - near <= 4 * math.ulp(far):
            break
        value = _secular_sum(observed, phi, denominators)
        if value == 0:
            break
        if (value > 0) == (sign > 0):
            near = offset
        else:
            far = offset
    return denominators


def _secular_sum(observed, phi, denominators) -> float:
    return sum(q * f / d for q, f, d in zip(observed, phi, denominators))


def _nearest_with_mean(observed, scores, s) -> list[float]:
    """The most likely distribution with mean score s: ``q_i / (1 + x (a_i - s))`` (fishtest's MLE_expected)."""
    return [q / d for q, d in zip(observed, _tilt(observed, [a - s for a in scores]))]


def _nearest_with_t(observed, scores, t) -> list[float]:
    """The most likely distribution with t-value ``(mean - 1/2) / sd = t`` (fishtest's MLE_t_value).

    A fixed point: with the current mean and sd, the constraint is linearised into weights
    phi and solved like a mean constraint. It starts from the uniform distribution, as
    fishtest and fastchess do; when a far-off hypothesis leaves phi without a root there
    (fastchess#877, #879), it walks from the observed distribution's own t-value to t.
    """
    n = len(scores)
    found = _fixed_point(observed, scores, t, [1 / n] * n)
    return found if found is not None else _walk(observed, scores, t)


def _fixed_point(observed, scores, t, p) -> list[float] | None:
    """Rounds of the fixed point from p; None if one has no root or they do not settle."""
    settled = math.inf
    for _ in range(_ROUNDS):
        mu = _mean(scores, p)
        sd = math.sqrt(sum(pi * (a - mu) ** 2 for a, pi in zip(scores, p)))
        if not sd > 0:
            return None
        phi = [a - 0.5 - t * sd * (1 + ((a - mu) / sd) ** 2) / 2 for a in scores]
        denominators = _tilt(observed, phi)
        if denominators is None:
            return None
        new = [q / d for q, d in zip(observed, denominators)]
        change = max(abs(u - v) for u, v in zip(new, p))
        p = new
        # the rounds can end wobbling at the level of rounding errors instead of shrinking
        if change < _CONVERGED or (change >= settled and change < _WOBBLE):
            return p
        settled = min(settled, change)
    return p if settled < _WOBBLE else None


def _walk(observed, scores, t) -> list[float]:
    """Continuation: the fixed point for t-values stepping from the observed one to t.

    Each step starts from the previous step's answer, which nearly satisfies the next
    constraint; a step that fails is halved. Returns the nearest t reached if the walk
    runs out of steps (not seen in practice).
    """
    p, now = list(observed), _t_value(scores, observed)
    step = t - now
    for _ in range(_STEPS):
        target = t if abs(step) >= abs(t - now) else now + step
        found = _fixed_point(observed, scores, target, p)
        if found is None:
            step /= 2
            continue
        p, now = found, target
        if now == t:
            break
        step *= 2
    return p
