"""A Brownian motion between two absorbing bounds: the law behind a stopped SPRT's estimate.

``X(t) = theta * t + W(t)``, with ``W`` a standard Wiener process, starts at 0 and is absorbed at
``a < 0`` or ``b > 0``. Outcomes are ordered stagewise (Whitehead; fishtest's ``brownian.py``):
absorbed at ``a`` early < absorbed at ``a`` late < still running at time ``t``, by level <
absorbed at ``b`` late < absorbed at ``b`` early. ``worse(theta, t, y, a, b)`` is the chance of an
outcome below "running at level y at time t" (``y = a``: absorbed at a at t; ``y = b``: absorbed at
b at t), and ``drift(p, t, y, a, b)`` the theta that gives it chance ``p``.

Every chance is a sum over the images of the start in the two bounds (their positions
``2kA`` and ``2b + 2kA``, ``A = b - a``), each term a normal tail times an exponential, evaluated
in logarithms and bounded by 1, so no term overflows and none cancels another. The series needs
about ``sqrt(t) / A`` terms. Only ``math``; see docs/sprt.md.
"""

from __future__ import annotations

import math

_SQRT2 = math.sqrt(2)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_NEGLIGIBLE = 1e-17  # a term this small no longer changes a chance
_MAX_IMAGES = 100_000


def _log_phi(u: float) -> float:
    """ln Phi(u), the standard normal distribution function, also far out in the lower tail."""
    if u > -30:
        return math.log(math.erfc(-u / _SQRT2) / 2)
    # Mills' ratio: Phi(u) = phi(u) / |u| * (1 - 1/u^2 + 3/u^4 - 15/u^6 + ...)
    return -u * u / 2 - math.log(-u) - _LOG_SQRT_2PI + math.log1p(-1 / u**2 + 3 / u**4 - 15 / u**6)


def _e_phi(x: float, u: float) -> float:
    """``e^x * Phi(u)``."""
    return math.exp(x + _log_phi(u))


def _e_mass(x: float, low: float, high: float) -> float:
    """``e^x * (Phi(high) - Phi(low))``, from the tail on the side where both lie when they do."""
    if low >= 0:
        return _e_phi(x, -low) - _e_phi(x, -high)
    return _e_phi(x, high) - _e_phi(x, low)


def _images(term, period: float, reach: float) -> float:
    """``sum(term(k))`` over all integers k, outwards from 0, until past ``reach`` and negligible."""
    total = term(0)
    for j in range(1, _MAX_IMAGES):
        step = term(j) + term(-j)
        total += step
        if 2 * j * period > reach and abs(step) < _NEGLIGIBLE:
            break
    return total


def upper_by(theta: float, t: float, a: float, b: float) -> float:
    """The chance of being absorbed at ``b`` (before ``a``) by time ``t``.

    The first-passage density at ``b`` without drift is the images' sum of
    ``d / sqrt(2 pi t^3) * exp(-d^2 / 2t)``, ``d = b + 2kA``; the drift multiplies it by
    ``exp(theta b - theta^2 t / 2)``, and each term integrates to a one-bound passage chance.
    """
    root = math.sqrt(t)
    span = b - a

    def term(k):
        d = b + 2 * k * span
        sign, d = (1.0, d) if d > 0 else (-1.0, -d)
        return sign * (_e_phi(theta * (b - d), (theta * t - d) / root)
                       + _e_phi(theta * (b + d), -(theta * t + d) / root))

    return _images(term, span, abs(theta) * t + b - a)


def lower_by(theta: float, t: float, a: float, b: float) -> float:
    """The chance of being absorbed at ``a`` (before ``b``) by time ``t``: ``upper_by`` mirrored."""
    return upper_by(-theta, t, -b, -a)


def running_below(theta: float, t: float, y: float, a: float, b: float) -> float:
    """The chance of being unabsorbed at time ``t``, at a level below ``y`` (``a <= y <= b``).

    The density without drift is the images' sum of ``phi_t(z - 2kA) - phi_t(z - 2b - 2kA)``;
    with drift, each image ``c`` integrates from a to y to
    ``e^(theta c) * (Phi((y - c - theta t) / sqrt t) - Phi((a - c - theta t) / sqrt t))``.
    """
    root = math.sqrt(t)
    span = b - a

    def mass(c):
        return _e_mass(theta * c, (a - c - theta * t) / root, (y - c - theta * t) / root)

    return _images(lambda k: mass(2 * k * span) - mass(2 * b + 2 * k * span), span, abs(theta) * t + b - a)


def worse(theta: float, t: float, y: float, a: float, b: float) -> float:
    """The chance of an outcome below "at level y at time t" in the stagewise order; falls as theta grows."""
    y = min(max(y, a), b)
    if y == b:
        return 1 - upper_by(theta, t, a, b)
    return lower_by(theta, t, a, b) + (running_below(theta, t, y, a, b) if y > a else 0.0)


def drift(p: float, t: float, y: float, a: float, b: float, near: float, low: float, high: float,
          tolerance: float) -> float:
    """The theta in ``[low, high]`` at which ``worse`` is ``p``, to within ``tolerance``.

    The search starts around ``near`` and widens until it holds the root; it returns ``low`` (or
    ``high``) when even that end gives a chance below (or above) ``p``.
    """

    def above(theta):  # worse falls as theta grows: the root is right of theta when this holds
        return worse(theta, t, y, a, b) > p

    step = 4 / math.sqrt(t)
    left, right = max(low, near - step), min(high, near + step)
    while left > low and not above(left):
        left, right, step = max(low, left - 2 * step), left, 2 * step
    if not above(left):
        return low
    while right < high and above(right):
        left, right, step = right, min(high, right + 2 * step), 2 * step
    if above(right):
        return high
    while right - left > tolerance:
        middle = (left + right) / 2
        if above(middle):
            left = middle
        else:
            right = middle
    return (left + right) / 2
