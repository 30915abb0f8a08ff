"""SPRT edges: verdicts exactly at a bound, hypotheses far beyond any real Elo, the score and
estimates of empty and one-sided counts, and messages naming the hypothesis at fault."""

import math

import pytest

from arena.errors import ParameterError
from results import sprt
from results.sprt import SPRT, Interval, llr, nelo


class Pinned(SPRT):
    """An SPRT whose LLR is fixed, to put it exactly on a bound."""

    value = 0.0

    def llr(self, counts):
        return self.value


def test_a_verdict_is_reached_exactly_at_a_bound():
    # Status: H1 "at or above" the upper bound, H0 "at or below" the lower (results.sprt.Status)
    test = Pinned(0, 2)
    lower, upper = test.bounds
    for value, verdict in ((upper, "H1"), (lower, "H0"), (math.nextafter(upper, 0), None),
                           (math.nextafter(lower, 0), None)):
        Pinned.value = value
        assert test.status((1, 1, 1)).verdict == verdict


@pytest.mark.parametrize("elo0, elo1", [(-300000, -200000), (200000, 300000), (-300000, 300000)])
def test_logistic_hypotheses_far_beyond_any_rating_still_give_a_finite_llr(elo0, elo1):
    # 10 ** (elo / 400) overflows a double past about +/-123,000 Elo: the expected score must
    # be computed on the side that does not
    for counts in ((3, 4, 5), (1, 2, 3, 2, 1)):
        assert math.isfinite(llr(counts, elo0, elo1, "logistic"))
    assert llr((0, 0, 50), 0, 200000, "logistic") > 0 > llr((50, 0, 0), -200000, 0, "logistic")


@pytest.mark.parametrize("name, elo0, elo1", [("elo0", math.nan, 2), ("elo0", "1", 2), ("elo1", 0, math.inf)])
def test_a_bad_hypothesis_is_named(name, elo0, elo1):
    with pytest.raises(ParameterError) as caught:
        SPRT(elo0, elo1)
    value = {"elo0": elo0, "elo1": elo1}[name]
    assert str(caught.value) == f"bad SPRT {name}={value!r}; expected a finite number"


def test_the_score_is_points_per_game():
    assert sprt.score((0, 0, 0)) == 0.5 and sprt.score((0, 0, 0, 0, 0)) == 0.5
    assert sprt.score((1, 2, 3)) == pytest.approx((0 * 1 + 0.5 * 2 + 1 * 3) / 6)
    assert sprt.score((1, 0, 0, 0, 3)) == pytest.approx(3 / 4)  # a pair's points / 2
    assert sprt.score((4, 0, 0)) == 0.0 and sprt.score((0, 0, 2)) == 1.0


def test_normalized_elo_of_no_games_and_of_one_sided_results():
    assert nelo((0, 0, 0)) == Interval(0.0, -math.inf, math.inf)
    assert nelo((0, 0, 0, 0, 0)) == Interval(0.0, -math.inf, math.inf)
    assert nelo((5, 0, 0)).value == -math.inf and nelo((0, 0, 5)).value == math.inf
    assert nelo((3, 0, 0, 0, 0)).value == -math.inf
