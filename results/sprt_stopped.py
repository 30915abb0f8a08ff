"""The Elo of an SPRT that has stopped, corrected for its stopping rule, as fishtest gives it.

Once the LLR has crossed a bound, ``results.sprt.elo`` and ``nelo`` (fixed-sample estimates)
lean away from the hypotheses: a test stops early on a lucky run. ``stopped_elo`` and
``stopped_nelo`` model the LLR as a Brownian motion between the bounds (``results.brownian``)
and return the median-unbiased estimate with its 95% interval, as fishtest's
``server/fishtest/stats/sprt.py`` does. Pure functions of the counts and the test; only
``math``. See docs/sprt.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from results import brownian
from results.sprt import (EMPTY, SPRT, Z95, Interval, _expected_score, _logistic_elo, _mean, _nelo_per_t,
                          _scores, check_counts)

_TAIL = (1 - math.erf(Z95 / math.sqrt(2))) / 2  # 0.025: each end of the 95% interval


def stopped_elo(counts: Sequence[int], test: SPRT) -> Interval:
    """Logistic Elo and its 95% interval, corrected for the stopping rule of ``test``.

    Median-unbiased, and the interval holds the truth 95% of the time, under the model of
    ``_stopped_scores``. For counts that have not crossed a bound: the estimate of a test cut
    off at these games (an inconclusive one), which tends to ``elo`` as the bounds move away.
    From -inf to inf when no game has been played.
    """
    scores = _stopped_scores(counts, test)
    if scores is None:
        return Interval(0.0, -math.inf, math.inf)
    return Interval(*(_logistic_elo(s) for s, _ in scores))


def stopped_nelo(counts: Sequence[int], test: SPRT) -> Interval:
    """``stopped_elo`` in normalized Elo: the corrected score's t-value, as ``nelo`` converts it."""
    scores = _stopped_scores(counts, test)
    if scores is None:
        return Interval(0.0, -math.inf, math.inf)
    per_t = _nelo_per_t(len(counts))
    return Interval(*(t * per_t if 0 < s < 1 else math.copysign(math.inf, s - 0.5) for s, t in scores))


def _stopped_scores(counts, test: SPRT) -> list[tuple[float, float]] | None:
    """(score, t-value) at the median, the 2.5% end and the 97.5% end; None when empty.

    The model (fishtest's ``stats/sprt.py`` and ``LLR_drift_variance_alt2``): each game (pair)
    adds ``(x - m) (s1 - s0) / v`` to the LLR, x its score, m the mean of the hypotheses' scores
    s0 and s1, v the variance of x in the (regularized) counts; so the LLR is a Brownian motion
    with drift ``(s - m) (s1 - s0) / v`` at true score s, and ``brownian`` in units of its sd
    ``(s1 - s0) / sqrt(v)``, with drift ``theta = (s - m) / sqrt(v)``. The outcome is where the
    test stopped: on the verdict's bound at the time the observed drift reaches it
    (``bound / observed drift``, which drops the overshoot), or inside at the games played. The
    estimate is the theta that puts that outcome at the median of the stagewise order, the
    interval's ends those that put it at 97.5% and 2.5%.
    """
    counts = check_counts(counts)
    if not any(counts):
        return None
    regular = [c if c else EMPTY for c in counts]
    n = sum(regular)
    scores, probs = _scores(len(counts)), [c / n for c in regular]
    mean = _mean(scores, probs)
    sd = math.sqrt(sum(p * (a - mean) ** 2 for a, p in zip(scores, probs)))
    if test.model == "normalized":
        s0, s1 = (0.5 + elo / _nelo_per_t(len(counts)) * sd for elo in (test.elo0, test.elo1))
    else:
        s0, s1 = _expected_score(test.elo0), _expected_score(test.elo1)
    middle, unit = (s0 + s1) / 2, (s1 - s0) / sd
    a, b = (bound / unit for bound in test.bounds)
    observed = (mean - middle) / sd
    verdict = test.status(counts).verdict
    if verdict is None:
        t, y = n, n * observed
    else:
        y = b if verdict == "H1" else a
        t = y / observed if y * observed > 0 else n
    low, high = -middle / sd, (1 - middle) / sd  # the scores 0 and 1
    out = []
    for p in (0.5, 1 - _TAIL, _TAIL):
        theta = brownian.drift(p, t, y, a, b, observed, low, high, 1e-7 / sd)
        s = 0.0 if theta == low else 1.0 if theta == high else middle + theta * sd
        out.append((s, (s - 0.5) / sd))
    return out
