"""Swiss pairing and standings on hand-built fields: byes, score groups, rematches, blocks,
the replay of rounds from their games, and Buchholz and Sonneborn-Berger by their definitions."""

import pandas as pd
import pytest

from arena.formats.swiss import BLOCK, BYE_POINTS, GAMES_PER_ROUND, SwissState, replay, swiss_standings


def bots(n):
    return [f"b{k:02d}" for k in range(n)]


def play(field, seed, rounds, strength):
    """Game results of a Swiss between ``field`` where the stronger bot wins both games of a
    pairing (equal strengths: each wins with the first move). Returns game id -> (first, second, score)."""
    results = {}
    for r, start, pairs, bye, complete, _ in replay(field, seed, rounds, results):
        game = start
        for a, b in pairs:
            for first, second in ((a, b), (b, a)):
                diff = strength[first] - strength[second]
                results[game] = (first, second, 1.0 if diff >= 0 else 0.0)
                game += 1
    return results


def frame(results):
    ids = sorted(results)
    return pd.DataFrame({
        "game_id": ids, "first": [results[i][0] for i in ids], "second": [results[i][1] for i in ids],
        "score_first": [results[i][2] for i in ids],
    })


def test_an_even_field_is_paired_whole_higher_ranked_first_and_alike_for_a_seed():
    swiss = SwissState(bots(8), seed=3)
    pairs, bye = swiss.pair(0)
    assert bye is None and len(pairs) == 4
    assert sorted(b for p in pairs for b in p) == bots(8)
    assert SwissState(bots(8), seed=3).pair(0) == (pairs, None)
    others = {tuple(SwissState(bots(8), seed=s).pair(0)[0]) for s in range(10)}
    assert len(others) > 1  # the seed breaks the ties of round 1


def test_the_bye_goes_to_the_lowest_ranked_bot_with_the_fewest_byes():
    field = ["a", "b", "c"]
    swiss = SwissState(field, seed=0)
    swiss.points.update({"a": 4.0, "b": 2.0, "c": 0.0})
    pairs, bye = swiss.pair(5)
    assert bye == "c" and pairs == [("a", "b")]
    swiss.byes["c"] = [4]
    assert swiss.pair(5) == ([("a", "c")], "b")  # c had one: the lowest of those without
    swiss.byes.update({"a": [1], "b": [2]})
    assert swiss.pair(5)[1] == "c"  # everyone had one: a second round of byes, lowest first


def test_recording_a_round_adds_points_meetings_and_byes():
    swiss = SwissState(["a", "b", "c"], seed=0)
    swiss.record(0, [("a", "b", 1.0), ("b", "a", 0.5)], "c")
    assert swiss.points == {"a": 1.5, "b": 0.5, "c": BYE_POINTS} and BYE_POINTS == 1.0
    assert swiss.met == {frozenset(("a", "b"))} and swiss.byes == {"c": [0]} and swiss.rounds == 1
    swiss.record(1, [("c", "a", 0.0), ("a", "c", 0.5)], "b")
    assert swiss.points == {"a": 3.0, "b": 1.5, "c": 1.5} and swiss.byes == {"c": [0], "b": [1]}
    assert swiss.rounds == 2 and len(swiss.met) == 2


def test_equal_scores_meet_and_rematches_are_avoided():
    swiss = SwissState(["a", "b", "c", "d"], seed=1)
    swiss.record(0, [("a", "b", 1.0), ("b", "a", 1.0), ("c", "d", 1.0), ("d", "c", 0.0)], None)
    # a, b: 1 point each; c: 2; d: 0. c's nearest in score are a and b; d meets the other
    pairs, _ = swiss.pair(1)
    assert pairs[0][0] == "c" and pairs[0][1] in ("a", "b")
    assert {frozenset(p) for p in pairs}.isdisjoint(swiss.met)
    # two groups of two that already met each other: the pairing crosses them rather than repeat
    swiss = SwissState(["a", "b", "c", "d"], seed=1)
    swiss.record(0, [("a", "b", 1.0), ("b", "a", 1.0), ("c", "d", 1.0), ("d", "c", 1.0)], None)
    assert {frozenset(p) for p in swiss.pair(1)[0]}.isdisjoint(swiss.met)


def test_a_large_field_is_matched_in_blocks_of_the_standings():
    field = bots(2 * BLOCK + 6)  # the last 6 are too few for a block: they join the one before
    swiss = SwissState(field, seed=2)
    order = swiss._order(0)
    pairs, bye = swiss.pair(0)
    assert bye is None and len(pairs) == len(field) // 2
    block = {b: min(order.index(b) // BLOCK, 1) for b in field}
    assert all(block[a] == block[b] for a, b in pairs)
    assert all(order.index(a) < order.index(b) for a, b in pairs)
    assert [order.index(a) for a, _ in pairs] == sorted(order.index(a) for a, _ in pairs)


def test_replay_walks_complete_rounds_and_stops_after_the_first_incomplete_one():
    field = ["a", "b", "c", "d", "e"]
    strength = {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}
    results = play(field, 7, 3, strength)
    per_round = GAMES_PER_ROUND * (len(field) // 2)
    assert sorted(results) == list(range(3 * per_round))
    walked = [(r, start, complete) for r, start, _, _, complete, _ in replay(field, 7, 3, results)]
    assert walked == [(0, 0, True), (1, per_round, True), (2, 2 * per_round, True)]
    partial = {i: v for i, v in results.items() if i < per_round + 1}  # round 2 has one game of four
    walked = [(r, complete) for r, _, _, _, complete, _ in replay(field, 7, 3, partial)]
    assert walked == [(0, True), (1, False)]
    byes = [bye for *_, bye, _, _ in replay(field, 7, 3, results)]
    assert len(set(byes)) == 3  # three rounds, three different bots sit out


def test_standings_count_points_byes_and_the_tiebreaks_by_their_definitions():
    field = ["a", "b", "c", "d", "e"]
    strength = {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}
    results = play(field, 7, 3, strength)
    table = swiss_standings(frame(results), {"bots": [{"name": b} for b in field], "seed": 7, "rounds": 3})
    assert list(table.columns) == ["rank", "rounds", "points", "games", "byes", "buchholz", "sonneborn_berger"]
    assert table["rank"].tolist() == [1, 2, 3, 4, 5] and (table["rounds"] == 3).all() and table.index.name == "bot"
    # every game gives one point out; every bye BYE_POINTS
    assert table["points"].sum() == len(results) + 3 * BYE_POINTS
    assert table["games"].sum() == 2 * len(results) and table["byes"].sum() == 3
    assert (table["games"] == GAMES_PER_ROUND * (3 - table["byes"])).all()
    points = table["points"].to_dict()
    against, opponents = {}, {b: set() for b in field}
    for first, second, score in results.values():
        against[first, second] = against.get((first, second), 0) + score
        against[second, first] = against.get((second, first), 0) + 1 - score
        opponents[first].add(second), opponents[second].add(first)
    for b in field:
        assert table.loc[b, "buchholz"] == sum(points[o] for o in opponents[b])
        assert table.loc[b, "sonneborn_berger"] == sum(against[b, o] * points[o] for o in opponents[b])
    assert table.index[0] == "a" and table.loc["a", "points"] == 2 * (3 - table.loc["a", "byes"]) + BYE_POINTS * table.loc["a", "byes"]
    ordered = list(zip(table["points"], table["buchholz"], table["sonneborn_berger"]))
    assert ordered == sorted(ordered, reverse=True)


def test_standings_of_an_unfinished_round_count_only_finished_rounds():
    field = ["a", "b", "c", "d"]
    results = play(field, 1, 2, {"a": 4, "b": 3, "c": 2, "d": 1})
    per_round = GAMES_PER_ROUND * 2
    partial = {i: v for i, v in results.items() if i < per_round + 1}
    table = swiss_standings(frame(partial), {"bots": [{"name": b} for b in field], "seed": 1, "rounds": 2})
    assert (table["rounds"] == 1).all() and table["points"].sum() == per_round and table["games"].sum() == 2 * per_round


def test_standings_ties_are_broken_by_name_when_everything_is_equal():
    table = swiss_standings(frame({}), {"bots": [{"name": b} for b in ["c", "a", "b"]], "seed": 0, "rounds": 1})
    assert list(table.index) == ["a", "b", "c"] and (table["points"] == 0).all() and (table["rounds"] == 0).all()


@pytest.mark.parametrize("field", [bots(2), bots(3), bots(9)])
def test_every_round_pairs_everyone_but_the_bye(field):
    results = play(field, 5, 4, {b: 0 for b in field})
    for r, start, pairs, bye, complete, _ in replay(field, 5, 4, results):
        seated = [b for p in pairs for b in p] + ([bye] if bye else [])
        assert sorted(seated) == sorted(field) and (bye is None) == (len(field) % 2 == 0)


def test_the_swiss_format_needs_its_rounds():
    from arena.errors import ParameterError
    from arena.formats.swiss import Swiss

    with pytest.raises(ParameterError) as caught:
        Swiss.build({"rounds": None})
    assert str(caught.value) == "rounds are for the swiss format, which needs them: --format swiss --rounds R"
    swiss = Swiss.build({"rounds": 3})
    assert swiss.rounds == 3 and swiss.stored() == {"rounds": 3}
    assert swiss.describe({}) == "3 rounds, one opening with both colours per pairing"


def test_without_networkx_the_swiss_format_says_how_to_get_it(monkeypatch):
    import sys

    from arena.errors import ArenaError

    monkeypatch.setitem(sys.modules, "networkx", None)  # makes the import fail
    with pytest.raises(ArenaError) as caught:
        SwissState(["a", "b"], 0).pair(0)
    assert str(caught.value) == "the swiss format needs networkx: pip install networkx"


def test_a_swiss_of_no_rounds_is_refused():
    from arena.errors import ParameterError
    from arena.formats.swiss import Swiss

    with pytest.raises(ParameterError) as caught:
        Swiss(0).check(None)
    assert str(caught.value) == "a Swiss tournament needs at least one round, got 0"
