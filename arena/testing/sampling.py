"""The referee's dice against a game's rule book: a chi-square test of the outcomes drawn.

``check_sampling`` finds chance nodes by random playouts and draws each one's outcome
``draws`` times as the referee does (``arena.dice.Dice.pick``, with a fixed key), then
tests the counts against ``chance_outcomes``. The p-value is the chi-square distribution's
upper tail, the regularized incomplete gamma function Q(k/2, x/2): its series and its
continued fraction (Abramowitz and Stegun 6.5.29 and 6.5.31).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from dataclasses import dataclass

from arena.dice import Dice, seed_key
from arena.game import CHANCE, Game
from arena.testing.playout import OneSeatAtATime, random_playout

#: Below this p-value the draws are taken not to follow the rule book's probabilities.
LEVEL = 0.01
#: Cells expected to hold fewer draws are pooled, so the chi-square approximation holds.
SMALLEST_EXPECTED = 5.0


@dataclass(frozen=True)
class SamplingReport:
    """What ``check_sampling`` tested: the chance nodes, and each one's p-value."""

    nodes: int
    draws: int
    p_values: tuple[float, ...]


def check_sampling(game: Game, *, draws: int = 100_000, nodes: int = 3, seed: int = 0) -> SamplingReport:
    """Draw ``draws`` outcomes at each of up to ``nodes`` distinct chance nodes (found by seeded
    random playouts) as the referee does; fail if a node's counts give p <= ``LEVEL``."""
    if game.model.simultaneous:  # its playouts replayed a move at a time
        game = OneSeatAtATime(game)
    found = _chance_nodes(game, nodes, random.Random(seed))
    assert found or not game.model.chance, f"{game.name}: declares chance but no playout reached a chance node"
    dice = Dice(seed_key(seed))
    p_values = []
    for number, state in enumerate(found):
        outcomes = list(game.chance_outcomes(state))
        index = {outcome: i for i, (outcome, _) in enumerate(outcomes)}
        counts = [0] * len(outcomes)
        # each node its own seat number, so the nodes' draws come from different streams
        pick = _picker(dice, outcomes)
        for n in range(draws):
            counts[index[pick(number, n)]] += 1
        expected = [draws * float(p) for _, p in outcomes]
        p = chi_square_p(counts, expected)
        shown = ", ".join(f"{game.move_text(state, o)}: {c} of {e:.0f}" for (o, _), c, e in zip(outcomes, counts, expected))
        assert p > LEVEL, f"{game.name}: the referee's draws do not follow chance_outcomes (p = {p:.2g}): {shown}"
        p_values.append(p)
    return SamplingReport(len(found), draws, tuple(p_values))


#: Draws at a node of many outcomes checked against ``Dice.pick`` itself (see ``_picker``).
CROSS_CHECKED = 2_000


def _picker(dice: Dice, outcomes: list):
    """``dice.pick(outcomes, seat, n)``, as a function of (seat, n). ``pick`` walks the outcomes
    in Python, 0.2 ms a draw at a node of thousands (five dice: 7,776); there the same running
    sums are made once and searched by bisection, and the first ``CROSS_CHECKED`` draws are
    checked to be ``pick``'s."""
    if len(outcomes) <= 64:
        return lambda seat, n: dice.pick(outcomes, seat, n)
    ends, total = [], 0.0
    for _, probability in outcomes:  # as arena.dice.outcome_at adds them
        total += float(probability)
        ends.append(total)
    last = len(ends) - 1

    def pick(seat: int, n: int):
        i = bisect_right(ends, dice.uniform(seat, n))
        outcome = outcomes[min(i, last)][0]
        if n < CROSS_CHECKED:
            assert outcome == dice.pick(outcomes, seat, n), f"draw {n}: the bisection and Dice.pick disagree"
        return outcome

    return pick


def chi_square_p(counts, expected) -> float:
    """Pearson's test of ``counts`` against ``expected`` (same total): the p-value, cells
    expected to hold fewer than ``SMALLEST_EXPECTED`` pooled."""
    cells: list[tuple[float, float]] = []
    small_count = small_expected = 0.0
    for c, e in zip(counts, expected):
        if e < SMALLEST_EXPECTED:
            small_count, small_expected = small_count + c, small_expected + e
        else:
            cells.append((c, e))
    if small_expected > 0:
        cells.append((small_count, small_expected))
    if len(cells) < 2:
        return 1.0  # one cell: nothing to test
    x = sum((c - e) ** 2 / e for c, e in cells)
    return upper_gamma((len(cells) - 1) / 2, x / 2)


def upper_gamma(a: float, x: float) -> float:
    """Q(a, x), the regularized upper incomplete gamma function, for a > 0 and x >= 0."""
    if x <= 0:
        return 1.0
    front = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x < a + 1:  # the series of P(a, x) (A&S 6.5.29), Q = 1 - P
        term = total = 1.0 / a
        k = a
        while abs(term) > 1e-16 * abs(total):
            k += 1
            term *= x / k
            total += term
        return max(0.0, 1.0 - front * total)
    # the continued fraction of Q(a, x) (A&S 6.5.31), by the modified Lentz method
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return front * h


def _chance_nodes(game: Game, most: int, rng: random.Random, playouts: int = 20) -> list:
    """Up to ``most`` distinct chance nodes of seeded random playouts, those with the most outcomes first."""
    seen: dict = {}
    if not game.model.chance:
        return []
    for _ in range(playouts):
        state = game.initial_state()
        for move in random_playout(game, rng):
            if game.to_move(state) == CHANCE:
                seen.setdefault(state, len(game.chance_outcomes(state)))
            state = game.apply(state, move)
    return sorted(seen, key=lambda s: -seen[s])[:most]
