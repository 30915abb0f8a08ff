"""The race format on its own, without playing a game: its settings and their checks, the
sign test and Holm's procedure it drops bots by, the race's state between rounds (leader,
pairings, the games budget, drops), the replay of stored rounds, the race table of reports,
and what the watcher yields and says. Games are hand-made rows."""

import itertools
import json
import random
from fractions import Fraction
from types import SimpleNamespace

import pandas as pd
import pytest

from arena.errors import ParameterError
from arena.formats.base import Setting
from arena.formats.race import Drop, Race, RaceState, RaceWatcher, holm, race_table, replay, sign_p


def ties(bots, seed):
    """Each bot's tie-break of a race with ``seed``: a stream seeded with ``["race", seed]`` in JSON,
    one draw per bot in the order given (the lowest leads a race with no games)."""
    stream = random.Random(json.dumps(["race", seed]))
    return {b: stream.random() for b in bots}


# seed 2 orders the tie-breaks of a, b, c, d as a < b < c < d; seed 33 as d < c < b < a
assert sorted(ties("abcd", 2).items(), key=lambda kv: kv[1])[0][0] == "a"
assert [b for b, _ in sorted(ties("abcd", 2).items(), key=lambda kv: kv[1])] == list("abcd")
assert [b for b, _ in sorted(ties("abcd", 33).items(), key=lambda kv: kv[1])] == list("dcba")

# A four-bot race with seed 2 and confidence 0.5 (alpha 0.5), by game id: (first, second, first's score).
# Round 0 (leader a by the tie-break): a draws b twice, splits with c, loses both to d.
# Round 1 (leader d: 2 points of 2): d wins both against a and b; d and c win one each.
# After it: d's wins against a 4-0 (p 1/16), b 2-0 (p 1/4), c 1-1 (p 3/4); Holm's levels 0.5/3, 0.5/2,
# 0.5/1: a and b go, c stays. Round 2: d wins both against c: 3-1 (p 5/16 <= 0.5): c goes, d wins.
GAMES = {
    0: ("a", "b", 0.5), 1: ("b", "a", 0.5), 2: ("a", "c", 1.0), 3: ("c", "a", 1.0), 4: ("a", "d", 0.0),
    5: ("d", "a", 1.0),
    6: ("d", "a", 1.0), 7: ("a", "d", 0.0), 8: ("d", "b", 1.0), 9: ("b", "d", 0.0), 10: ("d", "c", 1.0),
    11: ("c", "d", 1.0),
    12: ("d", "c", 1.0), 13: ("c", "d", 0.0),
}
RESULT = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}


def binomial_tail(wins, n):
    """P(at least ``wins`` heads in ``n`` fair coin flips), counted over all 2**n sequences."""
    return Fraction(sum(sum(flips) >= wins for flips in itertools.product((0, 1), repeat=n)), 2**n)


def config(race, bots="abcd", seed=2):
    """A race's config as the database stores it (race_table's input)."""
    return {"bots": [{"name": b} for b in bots], "seed": seed, **race.stored()}


def frame(games):
    return pd.DataFrame([{"game_id": i, "first": f, "second": s, "score_first": x} for i, (f, s, x) in games.items()],
                        columns=["game_id", "first", "second", "score_first"])


def stored_rows(games):
    return [{"game_id": i, "first": f, "second": s, "result": RESULT[x]} for i, (f, s, x) in games.items()]


# ---- the format's settings ------------------------------------------------------------------

def test_a_race_defaults_to_95_percent_confidence_and_a_budget_of_a_thousand_games():
    assert Race() == Race(0.95, 1000)
    assert Race.build({}) == Race.build({"confidence": None, "max_games": None}) == Race(0.95, 1000)
    built = Race.build({"confidence": 0.9, "max_games": 40})
    assert built == Race(0.9, 40) and type(built.confidence) is float
    assert Race.build({"confidence": 0.5}) == Race(0.5, 1000)
    assert Race.build({"max_games": 2}) == Race(0.95, 2)


def test_a_race_declares_its_two_settings_and_is_paired_round_by_round_two_games_a_pairing():
    assert Race.settings == (
        Setting("confidence", "float", None, "a race drops a bot worse than the leader at this confidence (default "
                "{default})", stored=("race",), none="0.95"),
        Setting("max_games", "int", None, "a race's games budget (default {default})", metavar="N", stored=("race",),
                none="1000"),
    )
    assert (Race.name, Race.grows, Race.laid_out, Race.open_ended, Race.games_per_round) == ("race", False, False,
                                                                                             True, 2)


@pytest.mark.parametrize("confidence, shown", [(0, "0"), (1, "1"), (1.0, "1.0"), (-0.5, "-0.5"), (1.5, "1.5")])
def test_a_race_refuses_a_confidence_outside_zero_to_one_naming_the_value(confidence, shown):
    with pytest.raises(ParameterError) as error:
        Race(confidence)
    assert str(error.value) == f"confidence must be between 0 and 1, got {shown}"


def test_a_race_takes_any_confidence_strictly_between_zero_and_one():
    assert Race(1e-9).confidence == 1e-9
    assert Race(1 - 1e-9).confidence == 1 - 1e-9


@pytest.mark.parametrize("games", [1, 0, -3])
def test_a_race_refuses_a_budget_of_fewer_than_two_games(games):
    with pytest.raises(ParameterError) as error:
        Race(0.9, games)
    assert str(error.value) == f"max-games must be at least 2, got {games}"


def test_a_budget_of_two_games_is_the_smallest_a_race_takes():
    assert Race(0.9, 2).max_games == 2


@pytest.mark.parametrize("values, message", [
    ({"confidence": "high"}, "confidence must be a number, got 'high'"),
    ({"confidence": True}, "confidence must be a number, got True"),
    ({"max_games": 2.5}, "max_games must be a whole number, got 2.5"),
    ({"max_games": "10"}, "max_games must be a whole number, got '10'"),
    ({"confidence": 1}, "confidence must be between 0 and 1, got 1.0"),  # a number is taken as a float
])
def test_a_race_built_from_settings_names_the_bad_one(values, message):
    with pytest.raises(ParameterError) as error:
        Race.build(values)
    assert str(error.value) == message


def test_a_race_is_stored_under_its_name_and_read_back_alike():
    race = Race(0.9, 40)
    assert race.stored() == {"race": {"confidence": 0.9, "max_games": 40}}
    assert Race.from_stored({"race": {"confidence": 0.9, "max_games": 40}, "seed": 3}) == race


def test_a_race_plans_its_budget_in_rounds_of_two_games():
    race = Race(0.9, 7)
    assert race.round_count(None, 100) == 3  # 7 // 2: the round of the seventh game never starts
    assert Race(0.9, 8).round_count(None, 0) == 4
    assert race.planned(None) == 7


def test_a_race_describes_its_budget_and_confidence():
    assert Race(0.9, 12345).describe({}) == "at most 12,345 games, drops at 0.9 confidence"
    assert Race().describe({"games_per_pairing": 2}) == "at most 1,000 games, drops at 0.95 confidence"


def test_a_race_watches_its_run_with_a_race_watcher_of_the_stored_games():
    rows = stored_rows({0: ("a", "b", 1.0), 1: ("b", "a", 0.5)})
    watcher = Race().watcher(None, rows, 17)
    assert type(watcher) is RaceWatcher
    assert (watcher.total, watcher.initial, watcher.state) == (17, 2, None)
    assert watcher.results == {0: ("a", "b", 1.0), 1: ("b", "a", 0.5)}


def test_a_race_report_has_one_table_of_its_own_the_race_table():
    race = Race(0.5, 14)
    tables = race.own_tables(frame(GAMES), config(race), None)
    assert list(tables) == ["race"]
    pd.testing.assert_frame_equal(tables["race"], race_table(frame(GAMES), config(race)))


# ---- the statistics -------------------------------------------------------------------------

@pytest.mark.parametrize("wins, losses", [(w, l) for w in range(7) for l in range(7) if w + l])
def test_the_sign_test_is_the_chance_of_as_many_wins_or_more_from_fair_coin_flips(wins, losses):
    assert sign_p(wins, losses) == pytest.approx(float(binomial_tail(wins, wins + losses)), rel=1e-12)


def test_the_sign_test_of_no_decisive_games_says_nothing():
    assert sign_p(0, 0) == 1.0
    assert sign_p(3, 0) == 0.125 and sign_p(0, 3) == 1.0 and sign_p(3, 1) == 0.3125  # 1/8, 1, 5/16


def test_holm_rejects_the_smallest_p_values_while_each_is_within_its_level():
    # levels alpha/3, alpha/2, alpha of the sorted p values: 0.01 <= 0.05/3, then 0.03 > 0.05/2 stops it
    assert holm([0.04, 0.01, 0.03], 0.05) == [False, True, False]
    assert holm([0.2, 0.01, 0.024], 0.05) == [False, True, True]  # 0.024 <= 0.025; 0.2 > 0.05
    assert holm([0.04, 0.01, 0.02], 0.05) == [True, True, True]
    assert holm([0.9, 0.8], 0.05) == [False, False]
    assert holm([], 0.05) == []


def test_holm_rejects_a_p_value_equal_to_its_level():
    # 0.5 / 4, 0.5 / 3 is not exact in binary; 0.5 / 2 and 0.5 / 1 are
    assert holm([0.5, 0.25], 0.5) == [True, True]
    assert holm([0.5, 0.5], 0.5) == [False, False]


def test_holm_stops_at_the_first_p_value_over_its_level_even_if_a_later_one_is_under_its_own():
    # 0.06 > 0.1 / 2 stops it, although the second 0.06 would be under 0.1 / 1
    assert holm([0.06, 0.06], 0.1) == [False, False]


# ---- the state between rounds ---------------------------------------------------------------

def test_a_new_race_has_every_bot_alive_without_games_and_ties_broken_by_its_seed():
    state = RaceState(("a", "b", "c"), 7, Race(0.9, 20))
    assert state.race == Race(0.9, 20)
    assert state.tie == ties("abc", 7)
    assert state.alive == ["a", "b", "c"] and state.dropped == [] and state.head == {}
    assert state.points == {"a": 0.0, "b": 0.0, "c": 0.0} and state.games == {"a": 0, "b": 0, "c": 0}
    assert state.played == 0
    assert RaceState("abc", 8, Race()).tie == ties("abc", 8) != ties("abc", 7)


def test_the_leader_has_the_best_score_rate_shrunk_towards_a_half_and_the_lower_tie_break_on_a_tie():
    # 300 fields of small scores (many ties), against (points + 1) / (games + 2) in exact fractions
    rng = random.Random(5)
    bots = "abcde"
    for _ in range(300):
        state = RaceState(bots, rng.randrange(1000), Race())
        for b in bots:
            state.games[b] = rng.randrange(5)
            state.points[b] = rng.randrange(2 * state.games[b] + 1) / 2
        rate = {b: (Fraction(state.points[b]) + 1) / (state.games[b] + 2) for b in bots}
        best = max(rate.values())
        expected = min((b for b in bots if rate[b] == best), key=state.tie.get)
        assert state.leader() == expected, (state.points, state.games)


def test_the_leader_is_shrunk_one_point_of_two_games_towards_a_half():
    state = RaceState("ab", 2, Race())  # a breaks ties
    state.points.update(a=1.0, b=6.0)
    state.games.update(a=1, b=8)
    assert state.leader() == "b"  # 7/10 against 2/3, though a's raw rate is 1 and b's 3/4
    state.points.update(a=0.0, b=0.0)
    state.games.update(a=0, b=3)
    assert state.leader() == "a"  # 1/2 against 1/5


def test_a_bot_without_games_against_one_with_a_perfect_score():
    state = RaceState("ab", 2, Race())
    state.points.update(a=0.0, b=1.0)
    state.games.update(a=0, b=1)
    assert state.leader() == "b"  # 2/3 against 1/2
    state.points.update(a=1.0, b=2.0)
    state.games.update(a=2, b=4)
    assert state.leader() == "a"  # 2/4 against 3/6: equal, a's tie-break is lower


def test_a_round_pairs_the_leader_first_against_every_other_survivor_in_tie_break_order():
    state = RaceState("abcd", 33, Race())  # tie-breaks d < c < b < a: d leads a race without games
    assert state.pair() == [("d", "c"), ("d", "b"), ("d", "a")]
    state.points["b"], state.games["b"] = 2.0, 2
    assert state.pair() == [("b", "d"), ("b", "c"), ("b", "a")]


def test_a_race_of_one_bot_pairs_nothing_and_of_two_pairs_them():
    assert RaceState("a", 1, Race()).pair() == []
    assert RaceState("ab", 2, Race()).pair() == [("a", "b")]
    state = RaceState("abc", 2, Race())
    state.alive = ["c"]
    assert state.pair() == []


def test_a_round_that_would_pass_the_games_budget_is_not_paired():
    # three bots: a round is two pairings, four games
    assert RaceState("abc", 2, Race(0.9, 4)).pair() == [("a", "b"), ("a", "c")]
    assert RaceState("abc", 2, Race(0.9, 3)).pair() == []
    state = RaceState("abc", 2, Race(0.9, 6))
    state.played = 2
    assert state.pair() == [("a", "b"), ("a", "c")]  # 2 + 4 games: just within
    state.played = 3
    assert state.pair() == []
    assert RaceState("abcd", 2, Race(0.9, 6)).pair() == [("a", "b"), ("a", "c"), ("a", "d")]
    assert RaceState("abcd", 2, Race(0.9, 5)).pair() == []
    short = RaceState("abc", 2, Race(0.9, 5))
    short.played = 2
    assert short.pair() == []


def test_recording_a_round_counts_points_games_and_head_to_head_wins_of_both_sides():
    state = RaceState("abc", 2, Race(0.6, 100))
    drops = state.record(0, [("a", "b", 1.0), ("b", "a", 1.0), ("a", "b", 0.5), ("c", "a", 0.0), ("a", "c", 1.0)])
    assert drops == []
    assert state.points == {"a": 3.5, "b": 1.5, "c": 0.0}
    assert state.games == {"a": 5, "b": 3, "c": 2}
    assert state.head == {("a", "b"): [1, 1.5], ("b", "a"): [1, 1.5], ("a", "c"): [2, 2.0], ("c", "a"): [0, 0.0]}
    assert state.played == 5
    # after it: leader a (4.5/7); against c 2-0 (p 1/4), against b 1-1 (p 3/4): 1/4 > 0.4 / 2 stops Holm
    assert state.alive == ["a", "b", "c"] and state.dropped == []
    state.record(1, [("b", "c", 0.5)])
    assert state.played == 6 and state.points["b"] == 2.0 and state.games["c"] == 3
    assert state.head[("b", "c")] == [0, 0.5] and state.head[("c", "b")] == [0, 0.5]


def test_a_round_drops_the_bots_holm_finds_worse_than_the_leader_with_the_evidence():
    state = RaceState("abcd", 2, Race(0.5, 100))
    games = [("a", "b", 1.0), ("b", "a", 0.0), ("a", "b", 1.0),  # a: 3-0 against b, p 1/8
             ("a", "c", 1.0), ("c", "a", 0.0),  # 2-0 against c, p 1/4
             ("a", "d", 1.0), ("d", "a", 0.5)]  # 1-0 against d and a draw, p 1/2
    drops = state.record(4, games)
    # Holm's levels 0.5/3, 0.5/2, 0.5/1, in order of the p values: each is within its own
    assert drops == [Drop("b", 4, 7, "a", 0.0, 3.0, 0.125, 0.5 / 3), Drop("c", 4, 7, "a", 0.0, 2.0, 0.25, 0.25),
                     Drop("d", 4, 7, "a", 0.5, 1.5, 0.5, 0.5)]
    assert state.dropped == drops and state.alive == ["a"]
    assert state.pair() == []


def test_a_round_drops_nothing_once_the_smallest_p_value_is_over_its_level():
    state = RaceState("abc", 2, Race(0.5, 100))
    # a beats b 3-1 (p 5/16) and c 3-1: 5/16 > 0.5 / 2 at the first step, though within 0.5 at the second
    games = [("a", "b", 1.0)] * 3 + [("b", "a", 1.0)] + [("a", "c", 1.0)] * 3 + [("c", "a", 1.0)]
    assert state.record(0, games) == [] and state.alive == ["a", "b", "c"]


def test_a_p_value_equal_to_holms_level_drops_the_bot():
    state = RaceState("ab", 2, Race(0.5, 100))
    assert state.record(0, [("a", "b", 1.0)]) == [Drop("b", 0, 1, "a", 0.0, 1.0, 0.5, 0.5)]  # p 1/2, alpha 1/2


def test_a_p_value_over_the_level_keeps_the_bot():
    state = RaceState("ab", 2, Race(0.4, 100))  # alpha 0.6; a bot with no decisive game has p 1
    assert state.record(0, [("a", "b", 0.5), ("b", "a", 0.5)]) == []
    state = RaceState("ab", 2, Race(0.6, 100))  # alpha 0.4 < p 1/2
    assert state.record(0, [("a", "b", 1.0)]) == [] and state.alive == ["a", "b"]


def test_a_survivor_that_never_met_the_leader_has_no_evidence_against_it():
    state = RaceState("abc", 2, Race(0.4, 100))  # alpha 0.6
    # b beats c three times and leads; a never met b: p 1 for a, 1/8 for c (within 0.6 / 2)
    drops = state.record(0, [("b", "c", 1.0), ("c", "b", 0.0), ("b", "c", 1.0)])
    assert drops == [Drop("c", 0, 3, "b", 0.0, 3.0, 0.125, 0.3)]
    assert state.alive == ["a", "b"]


def test_drops_add_up_over_rounds_and_the_race_games_are_counted_across_rounds():
    state = RaceState("abcd", 2, Race(0.5, 14))
    state.record(0, [GAMES[i] for i in range(6)])
    assert state.leader() == "d" and state.dropped == []
    first = state.record(1, [GAMES[i] for i in range(6, 12)])
    assert first == [Drop("a", 1, 12, "d", 0.0, 4.0, 0.0625, 0.5 / 3), Drop("b", 1, 12, "d", 0.0, 2.0, 0.25, 0.25)]
    second = state.record(2, [GAMES[12], GAMES[13]])
    assert second == [Drop("c", 2, 14, "d", 1.0, 3.0, 0.3125, 0.5)]
    assert state.dropped == first + second and state.alive == ["d"] and state.played == 14


# ---- the replay of stored rounds ------------------------------------------------------------

def test_a_replay_walks_every_round_of_a_finished_race_and_records_each():
    seen = []
    for r, start, pairs, complete, state in replay("abcd", 2, Race(0.5, 14), GAMES):
        seen.append((r, start, pairs, complete, list(state.alive), state.played))
    assert seen == [
        (0, 0, [("a", "b"), ("a", "c"), ("a", "d")], True, ["a", "b", "c", "d"], 0),
        (1, 6, [("d", "a"), ("d", "b"), ("d", "c")], True, ["a", "b", "c", "d"], 6),
        (2, 12, [("d", "c")], True, ["c", "d"], 12),
    ]
    assert state.alive == ["d"] and [d.bot for d in state.dropped] == ["a", "b", "c"]


def test_a_replay_stops_after_the_first_incomplete_round_unrecorded():
    games = {i: GAMES[i] for i in range(11)}  # round 1 lacks its last game
    walked = [(r, start, complete) for r, start, _, complete, _ in replay("abcd", 2, Race(0.5, 14), games)]
    assert walked == [(0, 0, True), (1, 6, False)]
    *_, state = list(replay("abcd", 2, Race(0.5, 14), games))[-1]
    assert state.played == 6 and state.dropped == []
    games = {i: GAMES[i] for i in range(1, 6)}  # the first game of all missing
    assert [c for *_, c, _ in replay("abcd", 2, Race(0.5, 14), games)] == [False]


def test_a_replay_goes_on_with_a_round_played_while_it_waited():
    games = {i: GAMES[i] for i in range(8)}
    walk = replay("abcd", 2, Race(0.5, 14), games)
    assert next(walk)[:4] == (0, 0, [("a", "b"), ("a", "c"), ("a", "d")], True)
    r, start, _, complete, state = next(walk)
    assert (r, start, complete, state.played) == (1, 6, False, 6)
    games.update({i: GAMES[i] for i in range(8, 12)})  # the caller played the rest of round 1
    r, start, pairs, complete, state = next(walk)
    assert (r, start, pairs, complete, state.played) == (2, 12, [("d", "c")], False, 12)
    assert [d.bot for d in state.dropped] == ["a", "b"]
    with pytest.raises(StopIteration):
        next(walk)  # round 2 still missing


def test_a_replay_ends_before_a_round_that_would_pass_the_budget():
    rounds = [r for r, *_ in replay("abcd", 2, Race(0.5, 13), GAMES)]
    assert rounds == [0, 1]  # round 2 would be games 13 and 14 of 13
    assert list(replay("abcd", 2, Race(0.5, 5), GAMES)) == []  # round 0 is six games
    assert list(replay("a", 2, Race(0.5, 14), {})) == []


# ---- the race table -------------------------------------------------------------------------

def test_the_race_table_has_the_winner_then_the_dropped_last_dropped_first_with_their_evidence():
    race = Race(0.5, 14)
    table = race_table(frame(GAMES), config(race))
    expected = pd.DataFrame(
        [{"bot": "d", "status": "winner", "points": 9.0, "games": 10},
         {"bot": "c", "status": "dropped", "points": 2.0, "games": 6, "after_round": 3, "race_games": 14,
          "leader": "d", "score": "1-3", "p_value": 0.3125, "holm_level": 0.5},
         {"bot": "b", "status": "dropped", "points": 1.0, "games": 4, "after_round": 2, "race_games": 12,
          "leader": "d", "score": "0-2", "p_value": 0.25, "holm_level": 0.25},
         {"bot": "a", "status": "dropped", "points": 2.0, "games": 8, "after_round": 2, "race_games": 12,
          "leader": "d", "score": "0-4", "p_value": 0.0625, "holm_level": 0.5 / 3}]).set_index("bot")
    pd.testing.assert_frame_equal(table, expected)
    assert list(table.columns) == ["status", "points", "games", "after_round", "race_games", "leader", "score",
                                   "p_value", "holm_level"]


def test_the_race_table_of_an_unfinished_race_shows_the_leader_and_the_others_still_in():
    race = Race(0.5, 13)  # stops after round 1: c and d are left
    table = race_table(frame(GAMES), config(race))
    assert list(table.index) == ["c", "d", "b", "a"]
    assert list(table.status) == ["in", "leader", "dropped", "dropped"]
    assert list(table.points) == [2.0, 7.0, 1.0, 2.0] and list(table.games) == [4, 8, 4, 8]
    assert pd.isna(table.at["c", "score"]) and pd.isna(table.at["d", "after_round"])


def test_the_race_table_before_any_round_is_played_has_empty_evidence_columns():
    race = Race(0.5, 3)  # three bots need four games a round: no round fits
    table = race_table(frame({}), config(race, "abc", seed=33))
    assert list(table.columns) == ["status", "points", "games", "after_round", "race_games", "leader", "score",
                                   "p_value", "holm_level"]
    assert list(table.index) == ["a", "b", "c"]
    assert list(table.status) == ["in", "in", "leader"]  # seed 33: c's tie-break is the lowest
    assert list(table.points) == [0.0, 0.0, 0.0] and list(table.games) == [0, 0, 0]
    for column in ("after_round", "race_games", "leader", "score", "p_value", "holm_level"):
        assert list(table[column]) == [None, None, None], column


def test_the_race_table_replays_the_rounds_with_the_races_own_tie_breaks():
    # seed 33: c's tie-break is the lowest, so c leads round 0 (against b, then a) and, all games drawn, still
    # leads after it; a budget of four games ends the race there
    games = {0: ("c", "b", 0.5), 1: ("b", "c", 0.5), 2: ("c", "a", 0.5), 3: ("a", "c", 0.5)}
    table = race_table(frame(games), config(Race(0.5, 4), "abc", seed=33))
    assert list(table.status) == ["in", "in", "leader"] and list(table.games) == [2, 2, 4]


def test_the_race_table_of_one_bot_names_it_the_winner():
    table = race_table(frame({}), config(Race(0.5, 14), "a"))
    assert list(table.index) == ["a"] and table.at["a", "status"] == "winner"


def test_the_race_table_reads_game_ids_and_scores_of_any_numeric_type():
    games = frame(GAMES).astype({"game_id": "float64", "score_first": "object"})
    table = race_table(games, config(Race(0.5, 14)))
    assert table.at["d", "status"] == "winner" and table.at["c", "score"] == "1-3"


# ---- the watcher ----------------------------------------------------------------------------

def run_config(race, bots="abcd", seed=2):
    return SimpleNamespace(bots=[SimpleNamespace(name=b) for b in bots], seed=seed, format=race)


def test_the_watcher_walks_the_stored_rounds_and_tells_each_drop_before_the_next_round():
    watcher = RaceWatcher(stored_rows(GAMES), 14)
    seen = []
    for r, start, pairs, complete in watcher.walk(run_config(Race(0.5, 14))):
        seen.append((r, start, pairs, complete, list(watcher.news())))
    assert seen == [
        (0, 0, [("a", "b"), ("a", "c"), ("a", "d")], True, []),
        (1, 6, [("d", "a"), ("d", "b"), ("d", "c")], True, []),
        (2, 12, [("d", "c")], True, ["arena: after round 2: a dropped (0-4 against d, p=0.062)",
                                     "arena: after round 2: b dropped (0-2 against d, p=0.25)"]),
    ]
    # the last round's drop is told once the walk ends
    assert list(watcher.news()) == ["arena: after round 3: c dropped (1-3 against d, p=0.31)"]
    assert watcher.state.alive == ["d"]


def test_the_watcher_tells_every_drop_once_in_the_order_of_the_rounds():
    watcher = RaceWatcher(stored_rows(GAMES), 14)
    list(watcher.walk(run_config(Race(0.5, 14))))
    assert watcher.lines == ["arena: after round 2: a dropped (0-4 against d, p=0.062)",
                             "arena: after round 2: b dropped (0-2 against d, p=0.25)",
                             "arena: after round 3: c dropped (1-3 against d, p=0.31)"]


def test_the_watcher_tells_a_drop_after_every_round_once():
    # seed 2, confidence 0.2 (alpha 0.8): a beats d 2-0 in round 0 (p 1/4 <= 0.8/3) and draws b and c;
    # a beats b 2-0 in round 1 (p 1/4 <= 0.8/2; 3-1 in points with the draws) and draws c; a beats c 2-0 in round 2
    games = {0: ("a", "b", 0.5), 1: ("b", "a", 0.5), 2: ("a", "c", 0.5), 3: ("c", "a", 0.5), 4: ("a", "d", 1.0),
             5: ("d", "a", 0.0), 6: ("a", "b", 1.0), 7: ("b", "a", 0.0), 8: ("a", "c", 0.5), 9: ("c", "a", 0.5),
             10: ("a", "c", 1.0), 11: ("c", "a", 0.0)}
    watcher = RaceWatcher(stored_rows(games), 12)
    told = [(r, list(watcher.news())) for r, *_ in watcher.walk(run_config(Race(0.2, 12)))]
    assert told == [(0, []), (1, ["arena: after round 1: d dropped (0-2 against a, p=0.25)"]),
                    (2, ["arena: after round 2: b dropped (1-3 against a, p=0.25)"])]
    assert list(watcher.news()) == ["arena: after round 3: c dropped (2-4 against a, p=0.25)"]


def test_the_watcher_stops_at_an_incomplete_round_and_says_nothing_of_it():
    rows = stored_rows({i: GAMES[i] for i in range(9)})
    watcher = RaceWatcher(rows, 14)
    walked = [(r, start, complete) for r, start, _, complete in watcher.walk(run_config(Race(0.5, 14)))]
    assert walked == [(0, 0, True), (1, 6, False)]
    assert watcher.lines == [] and watcher.state.played == 6


def test_the_watcher_of_a_race_with_no_round_to_play_says_nothing():
    watcher = RaceWatcher([], 0)
    assert list(watcher.walk(run_config(Race(0.5, 3), "abc"))) == []
    assert watcher.state is None and watcher.lines == []
    assert watcher._tell(3) == 3 and watcher.lines == []


def test_the_watchers_progress_shows_the_round_and_the_bots_left():
    watcher = RaceWatcher([], 14)
    assert watcher.postfix() == "round 1, 0 left"
    watcher = RaceWatcher(stored_rows(GAMES), 14)
    list(watcher.walk(run_config(Race(0.5, 13))))
    watcher.round = 1
    assert watcher.postfix() == "round 2, 2 left"
