"""The ladder format on its own, without playing a game: its settings and their checks, who is
active in a batch, the ratings a batch is drawn from, placement opponents, rating pairings,
drawing a batch (founders, placement gauntlets, a full batch, rematches), the ladder table of
reports, and the watcher's batches, limits, resumes and messages. Games are hand-made rows;
schedules and members are stand-ins that record how they are called."""

import json
import random
from types import SimpleNamespace

import pandas as pd
import pytest

from arena.errors import ParameterError
from arena.formats import ladder as module
from arena.formats.ladder import (
    MAX_PAIRS, PLACEMENT, REMATCH_ELO, STRIDE, Batch, Ladder, LadderWatcher, Pairing, _when, active_at, draw_batch,
    ladder_table, placement_opponents, rating_pairs, ratings,
)
from results.report import elo

RESULT = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}


def member(name, batch=0, left_batch=None, left=None, joined=None):
    return {"name": name, "from_batch": batch, "left_batch": left_batch, "left": left, "joined": joined}


def frame(games):
    return pd.DataFrame([{"game_id": i, "first": f, "second": s, "score_first": x} for i, (f, s, x) in games.items()],
                        columns=["game_id", "first", "second", "score_first"])


class Draws:
    """A stand-in for random.Random whose draws are the numbers given, in order."""

    def __init__(self, *values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


# ---- the format's settings ------------------------------------------------------------------

def test_the_constants_of_stored_ladders():
    # stored ladders' game ids are b * 1000 + k: changing STRIDE would misread every stored ladder
    assert (STRIDE, PLACEMENT, REMATCH_ELO, MAX_PAIRS) == (1000, 4, 50.0, 499)  # 499 pairings: ids k < 998


def test_a_ladder_defaults_to_four_placement_pairings_and_no_most_per_batch():
    assert Ladder() == Ladder(4, None)
    assert Ladder.build({}) == Ladder.build({"placement": None, "batch": None}) == Ladder(4, None)
    assert Ladder.build({"placement": 2, "batch": 7}) == Ladder(2, 7)
    assert Ladder.build({"batch": 3}) == Ladder(4, 3)
    assert Ladder(2, 7).stored() == {"placement": 2, "batch": 7}
    assert Ladder().stored() == {"placement": 4, "batch": None}


def test_a_ladder_declares_its_settings_fixed_at_creation_and_runs_open_ended():
    rows = [(s.key, s.kind, s.default, s.flag, s.metavar, s.commands, s.stored, s.grows, s.fixed, s.choices)
            for s in Ladder.settings]
    assert rows == [("placement", "int", 4, "", "K", ("ladder",), (), False, True, ()),
                    ("batch", "int", None, "", "P", ("ladder",), (), False, True, ())]
    placement, batch = (s.help for s in Ladder.settings)
    assert placement.endswith("(default {default})") and batch.endswith("(default: every placed bot once a batch)")
    # the ladder's help adds "set at creation" to every fixed row itself (arena.front.options.add_flags)
    assert "creation" not in placement + batch
    assert (Ladder.name, Ladder.command, Ladder.in_files, Ladder.fixed_at_creation, Ladder.grows, Ladder.laid_out,
            Ladder.min_bots, Ladder.open_ended, Ladder.games_per_round) == ("ladder", "ladder", False, True, False,
                                                                            False, 0, True, 2)


@pytest.mark.parametrize("placement, batch, message", [
    (0, None, "--placement must be between 1 and 499 pairings, got 0"),
    (500, None, "--placement must be between 1 and 499 pairings, got 500"),
    (-1, 3, "--placement must be between 1 and 499 pairings, got -1"),
    (4, 0, "--batch must be between 1 and 499 pairings, got 0"),
    (4, 500, "--batch must be between 1 and 499 pairings, got 500"),
])
def test_a_ladder_refuses_pairings_outside_one_to_the_most_a_batch_holds(placement, batch, message):
    with pytest.raises(ParameterError) as error:
        Ladder(placement, batch)
    assert str(error.value) == message


def test_a_ladder_takes_one_to_499_pairings():
    assert Ladder(1, 1).stored() == {"placement": 1, "batch": 1}
    assert Ladder(499, 499).stored() == {"placement": 499, "batch": 499}


def test_a_ladder_takes_any_field_and_any_games_per_pairing_when_checked():
    # the base check would refuse three games per pairing; a ladder's field changes while it runs
    assert Ladder().check(SimpleNamespace(games_per_pairing=3, bots=[])) is None


def test_a_ladder_describes_its_pairings():
    assert Ladder().describe({}) == "placement gauntlet, then rating pairings, one opening with both colours per pairing"


def test_a_ladder_report_and_page_have_the_ladder_table_from_the_standings_fit():
    games = frame({0: ("a", "b", 1.0), 1: ("b", "a", 0.0)})
    config = {"bots": [member("a"), member("b")]}
    fit = pd.DataFrame({"elo": [5.0, -5.0], "elo_low": [-1.0, -9.0], "elo_high": [9.0, 1.0]}, index=["a", "b"])
    for tables in (Ladder().own_tables(games, config, fit), Ladder().page(games, config, fit)):
        assert list(tables) == ["ladder"]
        pd.testing.assert_frame_equal(tables["ladder"], ladder_table(games, config, fit))
        assert tables["ladder"].at["a", "elo"] == 5.0  # the fit given, not one made here


# ---- pairings, batches, members ------------------------------------------------------------

def test_a_pairing_is_not_a_placement_one_unless_said():
    assert Pairing("a", "b").placing is False and Pairing("a", "b", True).placing is True


def test_a_batchs_games_are_two_per_pairing_from_its_first_id_colours_swapped():
    batch = Batch(2, [Pairing("a", "b"), Pairing("c", "a", True), Pairing("d", "e")], {})
    assert batch.start == 2000
    assert batch.games() == [(2000, "a", "b"), (2001, "b", "a"), (2002, "c", "a"), (2003, "a", "c"),
                             (2004, "d", "e"), (2005, "e", "d")]
    assert Batch(0, [], {}).games() == []
    assert (batch.placing, batch.founders, batch.active, batch.waiting) == ({}, [], [], [])


def test_a_member_plays_from_its_first_batch_until_the_batch_it_left():
    members = [member("a", 0), member("b", 2), member("c", 0, left_batch=2), member("d", 1, left_batch=3),
               member("e", None), {"name": "f"}, {"name": "g", "from_batch": 1}]
    assert active_at(members, 0) == ["a", "c"]
    assert active_at(members, 1) == ["a", "c", "d", "g"]
    assert active_at(members, 2) == ["a", "b", "d", "g"]  # joined at 2: in; left at 2: out
    assert active_at(members, 3) == ["a", "b", "g"]


# ---- ratings --------------------------------------------------------------------------------

def test_the_ratings_are_the_reports_elo_fit_of_the_games_before_the_batch():
    games = {0: ("a", "b", 1.0), 1: ("b", "a", 0.5), 2: ("b", "c", 1.0), 3: ("c", "b", 0.0), 4: ("a", "c", 0.5),
             1000: ("c", "a", 1.0), 1001: ("a", "c", 0.0)}
    got = ratings(games, 1000)
    expected = elo(frame({i: g for i, g in games.items() if i < 1000}))["elo"]  # the reports' fit, from pandas
    assert list(got) == ["a", "b", "c"]
    assert got == pytest.approx(expected.to_dict(), abs=1e-9)
    assert got["a"] > got["b"] > got["c"]
    later = ratings(games, 1001)  # id 1000 is below 1001: c's win counts
    assert later == pytest.approx(elo(frame({i: g for i, g in games.items() if i < 1001}))["elo"].to_dict(), abs=1e-9)
    assert later["c"] > got["c"]


def test_the_ratings_leave_out_games_against_oneself_and_are_empty_without_games():
    games = {0: ("a", "a", 1.0), 1: ("b", "c", 1.0), 2: ("c", "b", 0.5), 3: ("c", "c", 0.0)}
    got = ratings(games, 10)
    assert set(got) == {"b", "c"}  # a played only itself
    assert got == pytest.approx(elo(frame({1: games[1], 2: games[2]}))["elo"].to_dict(), abs=1e-9)
    assert ratings({}, 10) == {}
    assert ratings({5: ("a", "b", 1.0)}, 5) == {}
    assert ratings({0: ("a", "a", 1.0)}, 5) == {}


# ---- placement opponents --------------------------------------------------------------------

def test_placement_opponents_sit_at_the_quantiles_of_the_field():
    field = [f"b{k:02d}" for k in range(12)]  # best first
    # (k + 1/2) / 4 of 12 bots: 1.5, 4.5, 7.5, 10.5 rounded down
    assert placement_opponents(field, 4) == ["b01", "b04", "b07", "b10"]
    assert placement_opponents(field, 4, 0.5) == ["b01", "b04", "b07", "b10"]
    assert placement_opponents(field, 3, 0.0) == ["b00", "b04", "b08"]  # k * 12 / 3
    assert placement_opponents(field, 2, 0.25) == ["b01", "b07"]  # 0.25 * 6, 1.25 * 6
    assert placement_opponents(field, 1) == ["b06"]


def test_placement_opponents_are_the_whole_field_when_it_is_smaller_than_asked():
    assert placement_opponents(["a", "b", "c"], 4) == ["a", "b", "c"]
    assert placement_opponents(["a", "b", "c", "d"], 4) == ["a", "b", "c", "d"]  # 3.5 * 4 / 4 = 3.5: the last
    assert placement_opponents([], 4) == []


def test_placement_opponents_stop_at_the_last_bot_of_the_field():
    # an offset of 1 puts the last quantile at the field's end: the last bot, not past it
    assert placement_opponents(["a", "b", "c", "d"], 2, 1.0) == ["c", "d"]
    assert placement_opponents(["a", "b", "c", "d"], 4, 1.0) == ["b", "c", "d", "d"]


# ---- rating pairings ------------------------------------------------------------------------

RATING = {"a": 300.0, "b": 290.0, "c": 200.0, "d": -100.0}


def test_each_bot_in_turn_takes_the_free_partner_nearest_in_rating():
    # ties 0.1..0.4 put a first: it takes b (10 away); b is taken; c takes d
    assert rating_pairs("abcd", RATING, {}, {}, 4, Draws(0.1, 0.2, 0.3, 0.4)) == [("a", "b"), ("c", "d")]
    # c first: b (90 away) over a (100); then a takes d
    assert rating_pairs("abcd", RATING, {}, {}, 4, Draws(0.2, 0.3, 0.1, 0.4)) == [("b", "c"), ("a", "d")]


def test_rating_pairings_stop_at_the_most_asked():
    assert rating_pairs("abcd", RATING, {}, {}, 1, Draws(0.1, 0.2, 0.3, 0.4)) == [("a", "b")]
    assert rating_pairs("abcd", RATING, {}, {}, 2, Draws(0.1, 0.2, 0.3, 0.4)) == [("a", "b"), ("c", "d")]
    assert rating_pairs("abcd", RATING, {}, {}, 0, Draws(0.1, 0.2, 0.3, 0.4)) == []


def test_an_odd_field_leaves_one_bot_out():
    assert rating_pairs("abc", RATING, {}, {}, 5, Draws(0.1, 0.2, 0.3)) == [("a", "b")]
    assert rating_pairs("abc", RATING, {}, {}, 5, Draws(0.3, 0.2, 0.1)) == [("b", "c")]  # c chooses first
    assert rating_pairs("a", RATING, {}, {}, 5, Draws(0.1)) == []
    assert rating_pairs("", RATING, {}, {}, 5, Draws()) == []


def test_the_least_played_bot_chooses_first_and_the_higher_rated_is_listed_first():
    played = {"a": 5, "b": 5, "c": 5, "d": 0}
    # d chooses first: c is 300 away, b 390; then a and b
    assert rating_pairs("abcd", RATING, {}, played, 4, Draws(0.1, 0.2, 0.3, 0.4)) == [("c", "d"), ("a", "b")]
    # a bot missing from the counts has played none: here d, before a, b, c who have played one each
    assert rating_pairs("abcd", RATING, {}, {"a": 1, "b": 1, "c": 1}, 1, Draws(0.1, 0.2, 0.3, 0.4)) == [("c", "d")]
    # and a missing one comes before a bot with one game, by the ties among those with none
    assert rating_pairs("abcd", RATING, {}, {"a": 1, "b": 0}, 1, Draws(0.1, 0.4, 0.3, 0.2)) == [("c", "d")]


def test_a_pairing_played_before_counts_fifty_elo_further_per_time():
    played = {"a": 0, "b": 9, "c": 9, "d": 9}
    # a chooses: b is 10 away, c 100
    assert rating_pairs("abcd", RATING, {frozenset("ab"): 1}, played, 1, Draws(0.1, 0.2, 0.3, 0.4)) == [("a", "b")]
    assert rating_pairs("abcd", RATING, {frozenset("ab"): 2}, played, 1, Draws(0.1, 0.2, 0.3, 0.4)) == [("a", "c")]
    # 10 + 50 against 40 + 0: the rematch loses; met c instead and b is nearer again
    rating = {"a": 300.0, "b": 290.0, "c": 260.0}
    assert rating_pairs("abc", rating, {frozenset("ab"): 1}, {"a": 0}, 1, Draws(0.1, 0.2, 0.3)) == [("a", "c")]
    assert rating_pairs("abc", rating, {frozenset("ac"): 1}, {"a": 0}, 1, Draws(0.1, 0.2, 0.3)) == [("a", "b")]


def test_a_partner_at_the_same_distance_is_the_one_with_the_lower_tie_break():
    rating = {"a": 300.0, "b": 250.0, "c": 350.0}
    # b and c are 50 from a; a chooses first (lowest tie)
    assert rating_pairs("abc", rating, {}, {}, 1, Draws(0.1, 0.3, 0.2)) == [("c", "a")]
    assert rating_pairs("abc", rating, {}, {}, 1, Draws(0.1, 0.2, 0.3)) == [("a", "b")]
    # 10 + 50 for a rematch equals 60 for a new partner: the tie-break decides
    rating = {"a": 300.0, "b": 290.0, "c": 240.0}
    assert rating_pairs("abc", rating, {frozenset("ab"): 1}, {}, 1, Draws(0.1, 0.2, 0.3)) == [("a", "b")]
    assert rating_pairs("abc", rating, {frozenset("ab"): 1}, {}, 1, Draws(0.1, 0.3, 0.2)) == [("a", "c")]


def test_bots_of_equal_rating_are_listed_by_their_tie_breaks():
    rating = {"a": 7.0, "b": 7.0}
    assert rating_pairs("ab", rating, {}, {"a": 1}, 1, Draws(0.2, 0.1)) == [("b", "a")]  # b: lower tie, listed first
    assert rating_pairs("ab", rating, {}, {"b": 1}, 1, Draws(0.1, 0.2)) == [("a", "b")]
    assert rating_pairs("ab", rating, {}, {"b": 1}, 1, Draws(0.5, 0.5)) == [("a", "b")]  # all equal: the chooser
    assert rating_pairs("ab", rating, {}, {"b": 1}, 1, Draws(0.2, 0.1)) == [("b", "a")]  # a chooses; b listed first


def test_a_bot_without_a_rating_counts_as_rated_zero():
    # the chooser a is unrated (0): b at 0.6 is further than c at -0.5
    assert rating_pairs("abc", {"b": 0.6, "c": -0.5}, {}, {}, 1, Draws(0.1, 0.2, 0.3)) == [("a", "c")]
    # the chooser a at 0.9: the unrated b (0.9 away) is further than c at 0.3 (0.6 away)
    assert rating_pairs("abc", {"a": 0.9, "c": 0.3}, {}, {}, 1, Draws(0.1, 0.2, 0.3)) == [("a", "c")]
    # listed by rating: the unrated one (0) under one at 0.5, over one at -0.5
    assert rating_pairs("ab", {"b": 0.5}, {}, {}, 1, Draws(0.1, 0.2)) == [("b", "a")]
    assert rating_pairs("ab", {"a": 0.5}, {}, {}, 1, Draws(0.1, 0.2)) == [("a", "b")]
    assert rating_pairs("ab", {"b": -0.5}, {}, {}, 1, Draws(0.1, 0.2)) == [("a", "b")]


def test_rating_pairs_draw_one_tie_break_per_bot_from_the_stream_given():
    rng = random.Random(4)
    stream = random.Random(4)
    draws = [stream.random() for _ in range(4)]
    assert rating_pairs("abcd", {}, {}, {}, 4, rng) == rating_pairs("abcd", {}, {}, {}, 4, Draws(*draws))
    assert rng.random() == stream.random()  # four draws taken, no more


# ---- drawing a batch ------------------------------------------------------------------------

def stream_pairs(active, seed, number):
    """The pairings of a field without games or ratings: the ladder's stream for the batch (seeded with
    ``["ladder", seed, number]`` in JSON) orders the field (one draw per bot), then draws each bot's
    tie-break in that order; the bot with the lowest takes the next lowest, and so on."""
    stream = random.Random(json.dumps(["ladder", seed, number]))
    first = {b: stream.random() for b in active}
    field = sorted(active, key=first.get)
    second = {b: stream.random() for b in field}
    order = sorted(field, key=second.get)
    return [(order[k], order[k + 1]) for k in range(0, len(order) - 1, 2)]


def test_the_first_batch_of_a_ladder_pairs_its_founders_by_the_batchs_stream():
    members = [member(n) for n in "abcdef"]
    batch = draw_batch(members, 0, {}, seed=1, placement=4, most=None)
    assert batch.number == 0 and batch.ratings == {} and batch.active == list("abcdef")
    assert batch.founders == list("abcdef") and batch.placing == {} and batch.waiting == []
    assert [(p.first, p.second, p.placing) for p in batch.pairings] == [(a, b, False) for a, b in
                                                                        stream_pairs(list("abcdef"), 1, 0)]
    # another seed, another batch number: other streams
    assert {(p.first, p.second) for p in draw_batch(members, 0, {}, 2, 4, None).pairings} == set(stream_pairs(list("abcdef"), 2, 0))
    assert [(p.first, p.second) for p in draw_batch(members, 3, {}, 1, 4, None).pairings] == stream_pairs(list("abcdef"), 1, 3)
    assert stream_pairs(list("abcdef"), 1, 3) != stream_pairs(list("abcdef"), 1, 0)


@pytest.fixture
def spied(monkeypatch):
    """draw_batch with its ratings set by the test (``spied.rating``) and its calls of ratings and
    rating_pairs recorded (the real rating_pairs still pairs)."""
    spy = SimpleNamespace(rating={}, ratings=[], pairs=[])

    def fake_ratings(results, before):
        spy.ratings.append((dict(results), before))
        return dict(spy.rating)

    def pairs(bots, rating, met, played, most, rng):
        out = rating_pairs(bots, rating, met, played, most, rng)
        spy.pairs.append(SimpleNamespace(bots=list(bots), rating=dict(rating), met=dict(met), played=dict(played),
                                         most=most, out=out))
        return out

    monkeypatch.setattr(module, "ratings", fake_ratings)
    monkeypatch.setattr(module, "rating_pairs", pairs)
    return spy


def placed_field():
    """p1..p8 rated 800 down to 100, each with one pairing of batch 0 (p1-p2, p3-p4, ...)."""
    rating = {f"p{k}": 900.0 - 100 * k for k in range(1, 9)}
    results = {}
    for k in range(4):
        a, b = f"p{2 * k + 1}", f"p{2 * k + 2}"
        results[2 * k] = (a, b, 1.0)
        results[2 * k + 1] = (b, a, 0.5)
    return rating, results


def test_a_batch_places_each_new_bot_against_the_quantiles_of_the_rated_field_at_its_own_offset(spied):
    spied.rating, results = placed_field()
    members = [member(f"p{k}") for k in range(1, 9)] + [member("x", 1), member("y", 1)]
    batch = draw_batch(members, 1, results, seed=5, placement=2, most=None)
    # x at offset 1/4: quantiles 1/8 and 5/8 of 8 (p2, p6); y at 3/4: 3/8 and 7/8 (p4, p8)
    assert batch.placing == {"x": ["p2", "p6"], "y": ["p4", "p8"]}
    assert batch.pairings[:4] == [Pairing("x", "p2", True), Pairing("x", "p6", True), Pairing("y", "p4", True),
                                  Pairing("y", "p8", True)]
    assert batch.founders == [] and batch.waiting == [] and batch.ratings == spied.rating
    assert batch.active == [f"p{k}" for k in range(1, 9)] + ["x", "y"]
    assert spied.ratings == [(results, 1000)]
    # then rating pairings of the placed field, best first, with what the batches before played
    [call] = spied.pairs
    assert call.bots == [f"p{k}" for k in range(1, 9)] and call.rating == spied.rating
    assert call.met == {frozenset((f"p{2 * k + 1}", f"p{2 * k + 2}")): 1 for k in range(4)}
    assert call.played == {f"p{k}": 2 for k in range(1, 9)}
    assert call.most == MAX_PAIRS - 4
    assert batch.pairings[4:] == [Pairing(a, b) for a, b in call.out] and len(call.out) == 4


def test_a_single_new_bot_is_placed_at_the_middle_quantiles(spied):
    spied.rating, results = placed_field()
    members = [member(f"p{k}") for k in range(1, 9)] + [member("x", 1)]
    batch = draw_batch(members, 1, results, seed=5, placement=4, most=2)
    assert batch.placing == {"x": ["p2", "p4", "p6", "p8"]}  # (k + 1/2) * 8 / 4
    assert spied.pairs[0].most == 2 and len(batch.pairings) == 4 + 2


def test_the_most_rating_pairings_of_a_batch_is_what_the_batch_has_room_for():
    # placement 1: 497 new bots take 497 pairings; six placed bots have room for two more, whatever was asked
    rating_field = [member(n) for n in "abcdef"]
    results = {0: ("a", "b", 1.0), 1: ("b", "a", 0.0), 2: ("c", "d", 1.0), 3: ("d", "c", 0.0), 4: ("e", "f", 1.0),
               5: ("f", "e", 0.0)}
    crowd = rating_field + [member(f"n{k:03d}", 1) for k in range(497)]
    for most in (None, 1000, 2):
        batch = draw_batch(crowd, 1, results, seed=1, placement=1, most=most)
        assert len(batch.placing) == 497 and batch.waiting == []
        assert len(batch.pairings) == MAX_PAIRS and [p.placing for p in batch.pairings[497:]] == [False, False]
    assert len(draw_batch(crowd, 1, results, 1, 1, 1).pairings) == 498


def test_new_bots_beyond_what_a_batch_holds_wait_for_the_next():
    results = {0: ("a", "b", 1.0), 1: ("b", "a", 0.0)}
    crowd = [member("a"), member("b")] + [member(f"n{k:03d}", 1) for k in range(501)]
    batch = draw_batch(crowd, 1, results, seed=1, placement=1, most=None)
    # one pairing each: 499 fit exactly, the last two wait, and nothing is left for rating pairings
    assert len(batch.placing) == 499 and batch.waiting == ["n499", "n500"]
    assert len(batch.pairings) == MAX_PAIRS and all(p.placing for p in batch.pairings)
    batch = draw_batch(crowd, 1, results, seed=1, placement=2, most=None)
    assert len(batch.placing) == 249 and batch.waiting == [f"n{k:03d}" for k in range(249, 501)]
    # 498 placement pairings leave room for one rating pairing: a and b, the two placed bots
    assert len(batch.pairings) == MAX_PAIRS and {batch.pairings[-1].first, batch.pairings[-1].second} == {"a", "b"}
    assert not batch.pairings[-1].placing


def test_a_bot_without_games_joins_the_rating_pairings_while_fewer_than_two_bots_have_games(spied):
    spied.rating = {"a": 0.5, "z": -0.5}
    results = {0: ("a", "z", 1.0), 1: ("z", "a", 0.5)}  # z has left: a is the only placed bot
    members = [member("a"), member("z", 0, left_batch=1, left="t"), member("b", 1)]
    batch = draw_batch(members, 1, results, seed=3, placement=4, most=None)
    assert batch.founders == ["b"] and batch.placing == {} and batch.active == ["a", "b"]
    assert spied.pairs[0].bots == ["a", "b"]  # a rated 0.5 above b unrated (0)
    assert [(p.first, p.second, p.placing) for p in batch.pairings] == [("a", "b", False)]
    spied.rating = {"a": -0.5, "z": 0.5}
    draw_batch(members, 1, results, seed=3, placement=4, most=None)
    assert spied.pairs[1].bots == ["b", "a"]


def test_two_bots_with_games_are_a_field_to_place_new_bots_against(spied):
    spied.rating = {"a": 10.0, "b": -10.0}
    results = {0: ("a", "b", 1.0), 1: ("b", "a", 0.0)}
    batch = draw_batch([member("a"), member("b"), member("c", 1)], 1, results, seed=3, placement=4, most=None)
    assert batch.founders == [] and batch.placing == {"c": ["a", "b"]}
    assert batch.pairings == [Pairing("c", "a", True), Pairing("c", "b", True), Pairing("a", "b")]


def test_the_games_of_the_batch_drawn_and_later_do_not_count_for_it(spied):
    spied.rating, results = placed_field()
    results.update({1000: ("x", "p2", 1.0), 1001: ("p2", "x", 1.0), 2000: ("p1", "p3", 1.0)})
    batch = draw_batch([member(f"p{k}") for k in range(1, 9)] + [member("x", 1)], 1, results, 5, 2, None)
    assert batch.placing == {"x": ["p3", "p7"]}  # still new: its games are this batch's
    assert spied.pairs[0].played == {f"p{k}": 2 for k in range(1, 9)}
    assert spied.ratings[0][1] == 1000


def test_a_pairing_counts_as_met_once_by_its_first_game_and_every_game_counts_as_played(spied):
    spied.rating, results = placed_field()
    results.update({8: ("p1", "p2", 1.0), 9: ("p2", "p1", 1.0),  # p1-p2 again: met twice
                    11: ("p1", "p8", 0.0),  # the second game of a pairing without its first: not met
                    12: ("p3", "p7", 0.5)})  # a first game without its second: met
    draw_batch([member(f"p{k}") for k in range(1, 9)], 1, results, 5, 2, None)
    call = spied.pairs[0]
    assert call.met == {frozenset(("p1", "p2")): 2, frozenset(("p3", "p4")): 1, frozenset(("p5", "p6")): 1,
                        frozenset(("p7", "p8")): 1, frozenset(("p3", "p7")): 1}
    assert call.played == {"p1": 5, "p2": 4, "p3": 3, "p4": 2, "p5": 2, "p6": 2, "p7": 3, "p8": 3}


def test_a_batch_of_fewer_than_two_active_bots_has_no_pairings():
    assert draw_batch([member("a")], 0, {}, 1, 4, None).pairings == []
    batch = draw_batch([member("a", 0, left_batch=0), member("b", 1)], 0, {}, 1, 4, None)
    assert batch.pairings == [] and batch.active == []


# ---- the ladder table -----------------------------------------------------------------------

FIT = pd.DataFrame({"elo": [30.0, -10.0, 5.0, -25.0, 0.0], "elo_low": [10.0, -30.0, -15.0, -45.0, -20.0],
                    "elo_high": [50.0, 10.0, 25.0, -5.0, 20.0]}, index=["a", "b", "c", "d", "f"])


def table_games():
    """a and b from batch 0, c placed in batch 1, d in batch 2 (the last), f (left) in batch 0."""
    return frame({0: ("a", "b", 1.0), 1: ("b", "a", 0.5), 2: ("f", "a", 0.0), 3: ("a", "f", 1.0),
                  1000: ("c", "a", 0.5), 1001: ("a", "c", 0.5), 1002: ("b", "c", 0.0), 1003: ("c", "b", 1.0),
                  2000: ("d", "c", 0.0), 2001: ("c", "d", 1.0), 2005: ("a", "b", 1.0)})


def test_the_ladder_table_ranks_members_by_elo_with_their_games_dates_and_status():
    config = {"bots": [member("a", joined="2026-11-24T04:05:33.123+00:00"), member("b"), member("c", 1),
                       member("d", 2), member("e", 2), member("f", 0, 1, left="2026-12-01T10:11:12+00:00"),
                       member("g", None)]}
    table = ladder_table(table_games(), config, FIT)
    expected = pd.DataFrame({
        "rank": [1, 2, 3, 4, 5, 6, 7],
        "elo": [30.0, 5.0, 0.0, -10.0, -25.0, None, None],
        "elo_low": [10.0, -15.0, -20.0, -30.0, -45.0, None, None],
        "elo_high": [50.0, 25.0, 20.0, 10.0, -5.0, None, None],
        "games": [7, 6, 2, 5, 2, 0, 0],
        "joined": ["2026-11-24 04:05", None, None, None, None, None, None],
        "left": [None, None, "2026-12-01 10:11", None, None, None, None],
        # c played its gauntlet in batch 1, before the last (2): active; d's is the last batch; e's the next
        "status": ["active", "active", "left", "active", "placing", "placing", "joining"],
    }, index=pd.Index(["a", "c", "f", "b", "d", "e", "g"], name="bot"))
    pd.testing.assert_frame_equal(table, expected)


def test_the_ladder_table_fits_the_elo_of_the_games_when_not_given():
    games = table_games()
    config = {"bots": [member(n) for n in "abcdf"]}
    table = ladder_table(games, config)
    fit = elo(games)  # the reports' fit
    for name in "abcdf":
        for column in ("elo", "elo_low", "elo_high"):
            assert table.at[name, column] == pytest.approx(float(fit.at[name, column]), abs=1e-9)
    assert list(table.index) == list(fit["elo"].sort_values(ascending=False).index)


def test_a_ladder_table_without_games_lists_every_member_unrated_in_member_order():
    config = {"bots": [member("b"), member("a"), member("c", None), member("d", 0, 0, left="2026-01-02T03:04:05")]}
    table = ladder_table(frame({}), config)
    assert list(table.index) == ["b", "a", "c", "d"] and list(table["rank"]) == [1, 2, 3, 4]
    assert list(table.status) == ["active", "active", "joining", "left"]
    assert list(table.games) == [0, 0, 0, 0]
    assert table["elo"].isna().all() and table["elo_low"].isna().all() and table["elo_high"].isna().all()
    assert list(table.columns) == ["rank", "elo", "elo_low", "elo_high", "games", "joined", "left", "status"]
    assert ladder_table(frame({}), {}).empty


def test_the_first_batch_bots_are_active_not_placing():
    games = frame({0: ("a", "b", 1.0), 1: ("b", "a", 0.0), 2: ("c", "a", 0.5), 3: ("a", "c", 0.5)})
    table = ladder_table(games, {"bots": [member(n) for n in "abc"]}, FIT)
    assert list(table.status) == ["active", "active", "active"]


def test_a_bot_is_placing_only_once_two_bots_started_in_batches_before_its_own():
    # a played only itself in batch 0; b's and x's first games are in batch 1, against a
    games = frame({0: ("a", "a", 0.5), 1000: ("b", "a", 1.0), 1001: ("a", "b", 0.0), 1002: ("x", "a", 1.0),
                   1003: ("a", "x", 0.0)})
    config = {"bots": [member("a"), member("b", 1), member("x", 1)]}
    table = ladder_table(games, config, FIT)
    assert table.at["b", "status"] == "active" and table.at["x", "status"] == "active"  # one bot before them: a
    # two before it: placing, in the last batch
    games = frame({0: ("a", "b", 0.5), 1: ("b", "a", 0.5), 1000: ("x", "a", 1.0), 1001: ("a", "x", 0.0)})
    table = ladder_table(games, {"bots": [member("a"), member("b"), member("x", 1)]}, FIT)
    assert table.at["x", "status"] == "placing"


def test_a_bot_whose_first_games_are_in_the_last_batch_is_placing_whatever_their_ids():
    games = frame({0: ("a", "b", 0.5), 1: ("b", "a", 0.5), 2002: ("x", "a", 1.0), 2003: ("a", "x", 0.0),
                   2004: ("y", "b", 1.0), 2005: ("b", "y", 0.0)})
    table = ladder_table(games, {"bots": [member("a"), member("b"), member("x", 2), member("y", 2)]}, FIT)
    assert table.at["x", "status"] == "placing" and table.at["y", "status"] == "placing"
    # a member with no games yet is placed in the batch after the last
    games = frame({0: ("a", "b", 0.5), 1: ("b", "a", 0.5), 1002: ("a", "b", 1.0), 1003: ("b", "a", 0.0)})
    table = ladder_table(games, {"bots": [member("a"), member("b"), member("z", 2)]}, FIT)
    assert table.at["z", "status"] == "placing"


def test_a_bots_first_batch_counts_its_games_in_either_seat():
    # x's first game is in batch 1 as first, its first as second in batch 2; y's the other way round
    games = frame({0: ("a", "b", 0.5), 1: ("b", "a", 0.5), 1000: ("x", "a", 1.0), 1001: ("a", "y", 0.0),
                   2000: ("a", "x", 0.0), 2001: ("y", "a", 1.0)})
    config = {"bots": [member("a"), member("b"), member("x", 1), member("y", 1)]}
    table = ladder_table(games, config, FIT)
    assert table.at["x", "status"] == "active" and table.at["y", "status"] == "active"  # placed in batch 1, not 2


def test_the_ladder_table_keeps_member_order_among_equal_ratings():
    # 41 members rated alike but one: a sort that is not stable would shuffle them (numpy's quicksort does)
    names = [f"m{k:02d}" for k in range(41)]
    fit = pd.DataFrame({"elo": [0.0] * 40 + [1.0], "elo_low": 0.0, "elo_high": 0.0}, index=names)
    table = ladder_table(frame({}), {"bots": [member(n) for n in names]}, fit)
    assert list(table.index) == ["m40"] + names[:40]
    assert list(table["rank"]) == list(range(1, 42))


def test_times_are_shown_to_the_minute_with_a_space():
    assert _when("2026-11-24T04:05:33.123456+00:00") == "2026-11-24 04:05"
    assert _when("2026-11-24T04:05") == "2026-11-24 04:05"
    assert _when(None) is None


# ---- the watcher ----------------------------------------------------------------------------

class Run:
    """The members and schedule a ladder run gives its watcher, recording each call."""

    def __init__(self, members, news=""):
        self.member_list, self.news, self.asked, self.scheduled = members, news, [], []

    def members(self, number, fresh):
        self.asked.append((number, fresh))
        if len(self.asked) > 20:
            raise AssertionError("asked for the members over and over")
        return self.member_list, self.news

    def schedule_for(self, members, number):
        self.scheduled.append((list(m["name"] for m in members), number))
        return SimpleNamespace(task=lambda i, pairing, rnd, first, second: (i, pairing, rnd, first, second))


def watcher(run, stored=(), limit=None, seed=1, most=None, placement=4):
    return LadderWatcher(list(stored), seed=seed, placement=placement, most=most, limit=limit, members=run.members,
                         schedule_for=run.schedule_for)


def play(w, tasks, score=1.0, skip=()):
    for i, _, _, first, second in tasks:
        if i not in skip:
            assert w.add(SimpleNamespace(game_id=i, first=first, second=second, score_first=score)) == 1


def stored(results):
    return [{"game_id": i, "first": f, "second": s, "result": RESULT[x]} for i, (f, s, x) in results.items()]


def test_a_new_watcher_starts_at_the_batch_of_the_last_stored_game():
    rows = stored({0: ("a", "b", 1.0), 1: ("b", "a", 0.5), 2005: ("a", "b", 0.0)})
    run = Run([])
    w = LadderWatcher(rows, seed=3, placement=2, most=5, limit=9, members=run.members, schedule_for=run.schedule_for)
    assert w.results == {0: ("a", "b", 1.0), 1: ("b", "a", 0.5), 2005: ("a", "b", 0.0)}
    assert w.number == 2
    assert (w.seed, w.placement, w.most, w.limit) == (3, 2, 5, 9)
    assert (w.total, w.initial, w.played, w.batches) == (9, 0, 0, 0)
    assert (w.batch, w.stopped, w.said, w.lines) == (None, "", [], [])
    assert w.board.points == {} and w.postfix() == ""
    assert watcher(Run([])).number == 0


def test_the_watcher_plays_batch_after_batch_until_its_limit_cutting_the_last():
    run = Run([member(n) for n in "abcd"])
    w = watcher(run, limit=6)
    batches = w.rounds([], None)
    first = next(batches)
    assert first == [(i, i // 2, 0, f, s) for i, f, s in w.batch.games()] and len(first) == 4
    assert w.said == ["batch 1: no rated field to place against yet: a, b, c, d start in rating pairings"]
    assert w.lines == ["arena: batch 1: no rated field to place against yet: a, b, c, d start in rating pairings"]
    play(w, first)
    second = next(batches)
    assert w.batch.number == 1 and len(w.batch.games()) == 4
    assert second == [(i, i // 2, 1, f, s) for i, f, s in w.batch.games()[:2]]  # 6 - 4 games left
    assert second[0][:3] == (1000, 500, 1)
    play(w, second)
    with pytest.raises(StopIteration):
        next(batches)
    assert (w.played, w.batches, w.number) == (6, 2, 1)  # batch 1 is not finished
    assert run.asked == [(0, True), (1, True)] and run.scheduled == [(list("abcd"), 0), (list("abcd"), 1)]
    assert len(w.said) == 1  # batch 2 draws on ratings: nothing to say


def test_a_limit_of_no_games_plays_none():
    run = Run([member(n) for n in "abcd"])
    assert list(watcher(run, limit=0).rounds([], None)) == [] and run.asked == []


def test_a_game_that_failed_ends_the_run_with_its_batch_unfinished():
    run = Run([member(n) for n in "abcd"])
    w = watcher(run, limit=100)
    batches = w.rounds([], None)
    tasks = next(batches)
    play(w, tasks, skip={tasks[2][0]})
    with pytest.raises(StopIteration):
        next(batches)
    assert (w.played, w.batches, w.number) == (3, 1, 0)


def test_a_resumed_batch_plays_only_its_missing_games_and_says_nothing_of_it_again():
    run = Run([member(n) for n in "abcd"])
    whole = draw_batch(run.member_list, 0, {}, 1, 4, None)
    done = {i: (f, s, 1.0) for i, f, s in whole.games()[1:]}  # the batch's first game is missing
    w = watcher(run, stored(done), limit=1)
    tasks = next(w.rounds([], None))
    i, f, s = whole.games()[0]
    assert tasks == [(i, i // 2, 0, f, s)]
    assert run.asked == [(0, False)] and w.said == [] and w.lines == []


def test_a_finished_batch_in_the_database_is_skipped_for_the_next():
    run = Run([member(n) for n in "abcd"])
    first = draw_batch(run.member_list, 0, {}, 1, 4, None)
    done = {i: (f, s, 0.5) for i, f, s in first.games()}
    second = draw_batch(run.member_list, 1, done, 1, 4, None)
    done.update({i: (f, s, 1.0) for i, f, s in second.games()})
    w = watcher(run, stored(done), limit=2)
    tasks = next(w.rounds([], None))
    assert [t[0] for t in tasks] == [2000, 2001] and w.batch.number == 2
    assert run.asked == [(1, False), (2, True)]


def test_after_a_finished_batch_the_next_is_drawn_fresh():
    run = Run([member(n) for n in "abcd"])
    w = watcher(run, limit=12)
    batches = w.rounds([], None)
    for number in range(3):
        tasks = next(batches)
        assert {t[2] for t in tasks} == {number}
        play(w, tasks, score=0.5)
    with pytest.raises(StopIteration):
        next(batches)
    assert run.asked == [(0, True), (1, True), (2, True)]
    assert w.number == 3 and w.batches == 3


def test_the_watcher_draws_batches_with_its_placement_and_its_most_rating_pairings():
    run = Run([member(n) for n in "abcd"] + [member("e", 1)])
    w = watcher(run, limit=100, most=1, placement=2)
    batches = w.rounds([], None)
    tasks = next(batches)
    assert len(tasks) == 2 and w.batch.founders == list("abcd")  # one rating pairing of the four founders
    played = {tasks[0][3], tasks[0][4]}
    play(w, tasks)
    tasks = next(batches)
    # two bots have games: the other two founders and e are placed against both, then one rating pairing
    batch = w.batch
    assert batch.number == 1 and set(batch.placing) == set("abcde") - played
    assert all(sorted(o) == sorted(played) for o in batch.placing.values())
    assert len(tasks) == 2 * (3 * 2 + 1) and batch.pairings[-1] in (Pairing(*sorted(played)), Pairing(*sorted(played)[::-1]))
    assert sum(line.startswith("batch 2: placing ") for line in w.said) == 3


def test_news_of_members_is_said_before_the_batch():
    run = Run([member(n) for n in "abcd"], news="added d")
    w = watcher(run, limit=4)
    next(w.rounds([], None))
    assert w.said[0] == "batch 1: added d" and w.lines[0] == "arena: batch 1: added d"


@pytest.mark.parametrize("members, why", [
    ([member("a")], "fewer than two active bots (a)"),
    ([], "fewer than two active bots (none)"),
    ([member("a"), member("b", 0, 0, left="t")], "fewer than two active bots (a)"),
])
def test_the_watcher_stops_when_fewer_than_two_bots_are_active(members, why):
    w = watcher(Run(members), limit=10)
    assert list(w.rounds([], None)) == []
    assert w.stopped == why and w.batches == 0


def test_without_a_limit_the_watcher_plays_until_nothing_can_be_paired():
    run = Run([member(n) for n in "ab"])
    w = watcher(run)
    batches = w.rounds([], None)
    play(w, next(batches))
    play(w, next(batches))
    run.member_list = [member("a"), member("b", 0, 2, left="t")]  # b leaves at batch 3
    with pytest.raises(StopIteration):
        next(batches)
    assert w.stopped == "fewer than two active bots (a)" and w.played == 4


def test_the_progress_shows_the_batch_the_active_bots_the_leader_and_who_is_placing():
    w = watcher(Run([]))
    w.batch = Batch(2, [], {}, active=["a", "b"])
    assert w.postfix() == "batch 3, 2 active"
    w.batch = Batch(2, [], {"a": 20.4, "b": 12.0, "z": 99.0}, active=["a", "b"])
    assert w.postfix() == "batch 3, 2 active, leader a +20"  # z is not active
    w.batch = Batch(0, [], {"a": -13.6, "b": -20.0}, active=["a", "b", "c"], placing={"x": [], "y": []})
    assert w.postfix() == "batch 1, 3 active, leader a -14, placing x, y"
    w.batch = Batch(4, [], {"z": 5.0}, active=["a", "b"])
    assert w.postfix() == "batch 5, 2 active"  # no active bot rated yet


def test_the_watcher_says_who_founds_who_is_placed_against_whom_and_who_waits():
    w = watcher(Run([]), placement=3)
    batch = Batch(2, [Pairing("x", "a", True), Pairing("x", "b", True), Pairing("y", "a", True),
                      Pairing("y", "b", True), Pairing("y", "c", True)], {"a": 12.4, "b": -3.6},
                  placing={"x": ["a", "b"], "y": ["a", "b", "c"]}, founders=["f", "g"], waiting=["p", "q"])
    w._tell(batch, batch.games())
    assert w.said == [
        "batch 3: no rated field to place against yet: f, g start in rating pairings",
        "batch 3: placing x against a (+12), b (-4) (only 2 rated bots: 3 pairings asked)",
        "batch 3: placing y against a (+12), b (-4), c (+0)",
        "batch 3 is full: 2 new bots are placed in the next",
    ]
    assert w.lines == [f"arena: {line}" for line in w.said]


def test_the_watcher_says_nothing_of_a_batch_it_resumes():
    w = watcher(Run([]))
    batch = Batch(0, [Pairing("a", "b"), Pairing("c", "d")], {}, founders=["a", "b", "c", "d"], waiting=["e"])
    w._tell(batch, batch.games()[1:])
    assert w.said == [] and w.lines == []
    w._tell(Batch(0, [Pairing("a", "b")], {}), [(0, "a", "b"), (1, "b", "a")])
    assert w.said == []  # a batch without founders, placements or waiting bots: nothing to say
