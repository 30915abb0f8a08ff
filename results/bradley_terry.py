"""The Bradley-Terry model behind ``results.ratings``: its log-posterior and Newton fit
(``Model``), the dispersion of colour-swapped pairs, Davidson's draw parameter, and the
quantiles of the intervals. docs/ratings.md describes the model and its sources."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from results.sprt import Z95

PRIOR_DF = 4
"""Degrees of freedom of the dispersion's prior, centred on the coin-flip model's 1."""


def quantile(df: int) -> float:
    """Student's t 97.5% quantile on ``df`` degrees of freedom (the normal one when ``df`` is 0).

    Exact for 1 and 2; from 3 on, the Cornish-Fisher expansion of Abramowitz and Stegun,
    26.7.5 (off by under 0.004 at 3 degrees of freedom).
    """
    z = Z95
    if df <= 0:
        return z
    if df == 1:
        return math.tan(math.pi * 0.475)
    if df == 2:
        return 0.95 / math.sqrt(2 * 0.975 * 0.025)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow for large |x|


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


NO_MLE = ("no finite maximum-likelihood Elo: some bots (or the first movers) scored all or none of the points against "
          "the others; use prior > 0")
DIVERGED = 30.0  # natural units (over 5,000 Elo, an expected score of 1e-13): a fit running off to infinity
erf = np.vectorize(math.erf, otypes=[float])


class Model:
    """The log-posterior of bots' strengths (natural units, Elo * K) and the first-move term.

    Games are tallied by ordered pairing: ``n[f, s]`` games with f moving first against s,
    ``s[f, s]`` the first mover's points, so every step costs O(bots^2) whatever the games.
    Parameters are the strengths (anchored ones held at their values) and, with
    ``first_move``, the advantage as the last one.
    """

    def __init__(self, size, i, j, x, prior, first_move, fixed):
        self.size, self.prior, self.first_move = size, prior, first_move
        self.n = np.zeros((size, size))
        self.s = np.zeros((size, size))
        np.add.at(self.n, (i, j), 1.0)
        np.add.at(self.s, (i, j), x)
        self.fixed = fixed
        self.free = np.array([k not in fixed for k in range(size)] + ([True] if first_move else []))
        if not (math.isfinite(prior) and prior >= 0):
            raise ValueError(f"prior must be a number of virtual games, 0 or more, not {prior!r}")
        if prior <= 0 and not mle_exists(self.s + (self.n - self.s).T):
            raise ValueError(NO_MLE)

    def _split(self, params):
        return params[: self.size], (params[self.size] if self.first_move else 0.0)

    def log_posterior(self, params) -> float:
        theta, a = self._split(params)
        d = theta[:, None] - theta[None, :] + a
        value = (self.s * _log_sigmoid(d) + (self.n - self.s) * _log_sigmoid(-d)).sum()
        u = theta - theta.mean()
        value += self.prior * 0.5 * (_log_sigmoid(u) + _log_sigmoid(-u)).sum()
        if self.first_move:
            value += self.prior * 0.5 * (_log_sigmoid(a) + _log_sigmoid(-a))
        return float(value)

    def derivatives(self, params):
        """Gradient and information (minus the Hessian) of the log-posterior."""
        theta, a = self._split(params)
        size = self.size
        p = _sigmoid(theta[:, None] - theta[None, :] + a)
        r = self.s - self.n * p
        w = self.n * p * (1 - p)
        q = _sigmoid(theta - theta.mean())
        pull = self.prior * (0.5 - q)
        gradient = np.zeros(len(self.free))
        gradient[:size] = r.sum(axis=1) - r.sum(axis=0) + pull - pull.mean()
        information = np.zeros((len(self.free),) * 2)
        block = np.diag(w.sum(axis=1) + w.sum(axis=0)) - w - w.T
        block += centred_diagonal(self.prior * q * (1 - q))
        information[:size, :size] = block
        if self.first_move:
            qa = float(_sigmoid(a))
            gradient[size] = r.sum() + self.prior * (0.5 - qa)
            information[:size, size] = information[size, :size] = w.sum(axis=1) - w.sum(axis=0)
            information[size, size] = w.sum() + self.prior * qa * (1 - qa)
        return gradient, information

    def _regular(self, information):
        """The information on the free parameters, made invertible: without anchors, a
        shift of every strength changes nothing, so that direction gets information 1
        (the gradient never points along it, and ``inverse`` centres it away)."""
        out = information[np.ix_(self.free, self.free)]
        if not self.fixed:
            out = out.copy()
            out[: self.size, : self.size] += 1.0 / self.size
        return out

    def solve(self, start=None):
        """Newton's method with step halving; returns strengths and the first-move term.

        ``start``: strengths to begin from (anchored ones are set to their values). A step
        that improves nothing even when halved twenty times ends the search: the maximum is
        reached as closely as doubles tell.
        """
        params = np.zeros(len(self.free))
        if start is not None:
            params[: self.size] = start
        for k, value in self.fixed.items():
            params[k] = value
        value = self.log_posterior(params)
        for _ in range(200):
            gradient, information = self.derivatives(params)
            step = np.zeros_like(params)
            try:
                step[self.free] = np.linalg.solve(self._regular(information), gradient[self.free])
            except np.linalg.LinAlgError:
                step[self.free] = np.linalg.pinv(self._regular(information)) @ gradient[self.free]
            t = 1.0
            while (new := self.log_posterior(params + t * step)) < value and t > 1e-6:
                t /= 2
            if new < value:  # no step uphill is left
                return self._finite(params)
            params, value = params + t * step, new
            if np.abs(t * step).max(initial=0.0) < 1e-10:
                return self._finite(params)
        raise ValueError("Elo fit did not converge")

    def _finite(self, params):
        """The fit's parameters, or ValueError where the maximum likelihood ran off to infinity."""
        theta, a = self._split(params)
        if self.prior <= 0 and max(np.abs(theta - theta.mean()).max(initial=0.0), abs(a)) > DIVERGED:
            raise ValueError(NO_MLE)  # e.g. the first mover always won: Ford's test sees no colours
        return theta, a

    def inverse(self, theta, a) -> np.ndarray:
        """The inverse information at the fit over every parameter (zero rows for anchors;
        without anchors, the strengths' part is that of ratings centred to mean 0)."""
        params = np.concatenate([theta, [a] if self.first_move else []])
        _, information = self.derivatives(params)
        out = np.zeros_like(information)
        out[np.ix_(self.free, self.free)] = np.linalg.pinv(self._regular(information), hermitian=True)
        if not self.fixed:  # centre the strengths: C out C with C = I - 1/size on their block, in O(size^2)
            block = out[: self.size]
            block -= block.mean(axis=0)
            out[:, : self.size] -= out[:, : self.size].mean(axis=1, keepdims=True)
        return out


def centred_diagonal(d: np.ndarray) -> np.ndarray:
    """C diag(d) C with C = I - 1/k: the prior's information, written out in O(k^2) (two
    matrix products would cost O(k^3) per Newton step)."""
    k = len(d)
    return np.diag(d) - (d[:, None] + d[None, :]) / k + d.sum() / k**2


def mle_exists(s) -> bool:
    """Ford's condition: every bot reaches every other along "scored points against" links."""
    reach = (s > 0) | np.eye(len(s), dtype=bool)
    for _ in range(len(s).bit_length()):
        reach = (reach.astype(int) @ reach.astype(int)) > 0
    return bool(reach.all())


def dispersion(played, i, j, x, theta, a, inverse, first_move) -> tuple[float, int, int]:
    """The scores' variance over the model's, from the residuals summed over each
    colour-swapped pair (same pairing and opening; the k-th game with one bot first pairs
    with the k-th with the other first), each seen from the pair's lower-numbered bot.

    The fit takes up part of the residuals: each pair's share (its leverage, from the
    inverse information ``inverse``) comes off the denominator and the degrees of freedom,
    so the first-move term, which a colour-swapped pair cancels, costs nothing, and the
    prior's shrinkage costs less than a parameter. The estimate is then pulled toward 1 by
    a prior worth ``PRIOR_DF`` degrees of freedom. Returns the dispersion, its degrees of
    freedom (the prior's included, rounded) and the pairs.
    """
    p = _sigmoid(theta[i] - theta[j] + a)
    w = p * (1 - p)
    sign = np.where(i < j, 1.0, -1.0)
    low, high = np.minimum(i, j), np.maximum(i, j)
    pairing = _keys(played["pairing"]) if "pairing" in played else low * len(theta) + high
    opening = _keys(played["opening"]) if "opening" in played else np.zeros(len(x))
    keys = pd.DataFrame({"pairing": pairing, "low": low, "high": high, "opening": opening, "first": i})
    if "game_id" in played:
        keys = keys.iloc[np.argsort(played["game_id"].to_numpy(), kind="stable")]
    keys["k"] = keys.groupby(["pairing", "low", "high", "opening", "first"], sort=False).cumcount()
    keys = keys.sort_index()
    cluster = keys.groupby(["pairing", "low", "high", "opening", "k"], sort=False).ngroup().to_numpy()
    count = int(cluster.max()) + 1 if len(cluster) else 0
    sums = np.bincount(cluster, weights=sign * (x - p), minlength=count)
    # a pair's summed residual moves the strengths by alpha (e_low - e_high) and the
    # first-move term by beta: its leverage is that direction's quadratic form in the inverse
    alpha = np.bincount(cluster, weights=w, minlength=count)
    beta = np.bincount(cluster, weights=sign * w, minlength=count)
    lo, hi = np.zeros(count, int), np.zeros(count, int)
    lo[cluster], hi[cluster] = low, high  # a pair's games share its two bots
    m = inverse
    taken = alpha**2 * (m[lo, lo] + m[hi, hi] - 2 * m[lo, hi])
    if first_move:
        last = len(m) - 1
        taken += 2 * alpha * beta * (m[lo, last] - m[hi, last]) + beta**2 * m[last, last]
    leverage = float(np.clip(taken / np.maximum(alpha, 1e-300), 0.0, 1.0).sum())
    df = max(count - leverage, 0.0)
    denominator = alpha.sum() - taken.sum()
    if df <= 0 or denominator <= 0:
        return 1.0, PRIOR_DF, count
    # a scaled inverse chi-square prior of PRIOR_DF degrees of freedom at 1: a few pairs
    # cannot claim that scores hardly vary, and the t quantile counts both
    estimate = float((sums**2).sum() / denominator)
    return (df * estimate + PRIOR_DF) / (df + PRIOR_DF), int(round(df)) + PRIOR_DF, count


def _keys(column: pd.Series) -> np.ndarray:
    """A column as plain text keys, a missing value its own key (whatever the dtype)."""
    return column.astype(object).where(column.notna(), "<missing>").astype(str).to_numpy()


def davidson(d: np.ndarray, draws: np.ndarray) -> float:
    """Davidson's draw parameter nu by maximum likelihood, the strength differences held at
    ``d``: P(draw) = nu / (e^(d/2) + e^(-d/2) + nu). The score equation, draws / nu =
    sum 1 / (c + nu), has one root; found by bisection on log nu."""
    drawn = int(draws.sum())
    if drawn == 0 or len(d) == 0:
        return 0.0
    c = 2 * np.cosh(np.clip(d, -60, 60) / 2)
    if drawn == len(d):
        return math.inf
    low, high = -30.0, 30.0
    for _ in range(80):
        mid = (low + high) / 2
        nu = math.exp(mid)
        if drawn / nu > (1 / (c + nu)).sum():
            low = mid
        else:
            high = mid
    return math.exp((low + high) / 2)
