"""The sprt format on its own (arena/formats/sprt.py), without playing a game.

Covers ``Sprt`` (its settings, building it from settings and from a stored config, what it
stores, its checks, pairings, heading, flag, report tables and page), ``build_test``,
``TestWatcher`` (which games it hands out, how it counts pairs, its progress bar and its
announcement of the verdict), ``_finite`` and ``sprt_box``. Games are hand-made rows and
DataFrames, configs SimpleNamespaces. The statistics themselves are results.sprt's, tested
in tests/test_sprt.py: here an LLR is asked of ``SPRT.llr`` for counts the test sets out,
and the bounds are Wald's, computed here from their definition.
"""

import math
from types import SimpleNamespace

import pandas as pd
import pytest

import results.report
from arena.errors import ParameterError
from arena.formats import sprt as sprt_format
from arena.formats.base import Format, Watcher
from arena.formats.sprt import Sprt, build_test, sprt_box
from results.sprt import SPRT
from results.sprt_report import sprt_summary, summary_lines

# every field differs from every other and from SPRT's defaults, so a field read from the wrong key shows
STORED = {"elo0": -1.5, "elo1": 2.5, "alpha": 0.1, "beta": 0.2, "model": "logistic"}
TEST = SPRT(**STORED)
# a test that decides after 5 pairs won (or lost) twice: ln((1 - 0.2) / 0.2) = 1.386 is reached in 5
# (results.sprt's LLR; ``crossing`` finds the number, so this comment only explains the choice)
QUICK = SPRT(-50, 50, 0.2, 0.2, "logistic")
WALD = (math.log(0.2 / (1 - 0.1)), math.log((1 - 0.2) / 0.1))
"""TEST's bounds by Wald's definition: (ln(beta / (1 - alpha)), ln((1 - beta) / alpha))."""


def crossing(test, outcome):
    """The number of pairs, all of pentanomial outcome ``outcome`` (0: LL .. 4: WW), that decides ``test``."""
    counts = [0] * 5
    for n in range(1, 1000):
        counts[outcome] = n
        if test.status(counts).verdict:
            return n
    raise AssertionError("no verdict within 1000 pairs")


def config(test=TEST, names=("new", "base")):
    """A TournamentConfig as TestWatcher reads it: the format's test and the bots' names."""
    return SimpleNamespace(format=Sprt(test), bots=[SimpleNamespace(name=n) for n in names])


def row(game_id, new_points):
    """A stored game (``Store.summaries``) of pair game_id // 2: 'new' moves first in the even game."""
    new_first = game_id % 2 == 0
    first_points = new_points if new_first else 1.0 - new_points
    result = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}[first_points]
    return {"game_id": game_id, "first": "new" if new_first else "base", "second": "base" if new_first else "new",
            "result": result}


def game(game_id, new_points):
    """A finished game (a GameRow's fields the watcher reads) in which 'new' scored ``new_points``."""
    new_first = game_id % 2 == 0
    return SimpleNamespace(game_id=game_id, first="new" if new_first else "base",
                           score_first=new_points if new_first else 1.0 - new_points)


def games_frame(pair_points, extra=()):
    """``results.load(...).games`` of an SPRT: new's points in each game of each pair, then lone games."""
    rows = []
    for k, (a, b) in enumerate(pair_points):
        rows.append({"game_id": 2 * k, "first": "new", "second": "old", "score_first": a})
        rows.append({"game_id": 2 * k + 1, "first": "old", "second": "new", "score_first": 1 - b})
    for game_id, score_first in extra:
        rows.append({"game_id": game_id, "first": "new", "second": "old", "score_first": score_first})
    return pd.DataFrame(rows)


def stored_config(pairs, test=STORED):
    """A stored SPRT tournament's config, as ``arena sprt`` records it."""
    return {"format": "sprt", "sprt": dict(test), "bots": [{"name": "new"}, {"name": "old"}],
            "games_per_pairing": 2 * pairs}


QUICK_STORED = {"elo0": -50, "elo1": 50, "alpha": 0.2, "beta": 0.2, "model": "logistic"}


# ---- the format ---------------------------------------------------------------------------


def test_the_sprt_format_is_run_by_its_own_command_lays_out_one_pairing_and_may_stop_early():
    assert issubclass(Sprt, Format)
    assert (Sprt.name, Sprt.command, Sprt.open_ended, Sprt.laid_out, Sprt.grows, Sprt.in_files) == (
        "sprt", "sprt", True, True, True, True)
    assert Sprt(TEST).pairings(("new", "base"), ()) == [(0, 1)]
    assert Sprt(TEST).pairings(("a", "b"), ("a",)) == [(0, 1)]  # challengers play no part


def test_its_settings_are_the_tests_bounds_and_a_cap_on_games_all_for_arena_sprt():
    by_key = {s.key: s for s in Sprt.settings}
    assert list(by_key) == ["elo0", "elo1", "alpha", "beta", "model", "max_games"]
    assert all(s.commands == ("sprt",) for s in Sprt.settings)
    assert [by_key[k].stored for k in by_key] == [("sprt",)] * 5 + [("games_per_pairing",)]
    assert [s.grows for s in Sprt.settings] == [False] * 5 + [True]  # only the cap may grow
    assert by_key["model"].kind == "choice" and by_key["model"].choices == ("normalized", "logistic")
    assert (by_key["max_games"].kind, by_key["max_games"].default, by_key["max_games"].option) == (
        "int", 2000, "--max-games")
    # the defaults make a valid test, with results.sprt's own default error rates and model
    assert build_test({s.key: s.default for s in Sprt.settings}) == SPRT(0.0, 5.0)


def test_its_misplaced_message_sends_the_user_to_arena_sprt_whatever_keys_were_given():
    message = "the sprt format is run by 'arena sprt', which sets the test's bounds"
    assert Sprt.misplaced([]) == Sprt.misplaced(["elo0", "alpha"]) == message


def test_build_takes_the_test_as_a_dict_or_as_an_sprt_and_fails_without_one():
    built = Sprt.build({"sprt": dict(STORED), "games_per_pairing": 10})
    assert built == Sprt(TEST) and type(built.test) is SPRT
    assert Sprt.build({"sprt": TEST}).test is TEST
    message = "^the sprt format is run by 'arena sprt', which sets the test's bounds$"
    for values in ({}, {"sprt": None}, {"SPRT": dict(STORED)}):
        with pytest.raises(ParameterError, match=message):
            Sprt.build(values)
    # a test results.sprt refuses is refused here too, with its message
    with pytest.raises(ParameterError, match=r"^bad SPRT hypotheses elo0=5, elo1=1; elo0 must be less than elo1$"):
        Sprt.build({"sprt": {"elo0": 5, "elo1": 1}})


def test_a_stored_config_gives_back_the_test_it_stored():
    assert Sprt(TEST).stored() == {"sprt": STORED}
    assert Sprt.from_stored({"format": "sprt", "sprt": dict(STORED), "games_per_pairing": 8}) == Sprt(TEST)
    assert Sprt.from_stored(Sprt(QUICK).stored()) == Sprt(QUICK)


def test_check_wants_exactly_two_bots_new_and_base():
    assert Sprt(TEST).check(config()) is None
    for names in (("new",), ("a", "b", "c")):
        with pytest.raises(ParameterError, match=rf"^an SPRT plays two bots, new and base; got {len(names)}$"):
            Sprt(TEST).check(config(names=names))


def test_the_heading_says_the_cap_and_the_flag_for_games_per_pairing_is_max_games():
    assert Sprt(TEST).describe({"games_per_pairing": 200, "format": "sprt"}) == "at most 200 games per pairing"
    assert Sprt(TEST).flag("games_per_pairing") == "--max-games"
    assert Sprt(TEST).flag("sprt") is None and Sprt(TEST).flag("bots") is None


def test_the_watcher_is_a_test_watcher_of_the_config_the_stored_games_and_the_schedule():
    w = Sprt(TEST).watcher(config(), [row(0, 1.0), row(1, 1.0)], 10)
    assert type(w) is sprt_format.TestWatcher and isinstance(w, Watcher)
    assert (w.walk.test, w.walk.new, w.walk.max_pairs, w.walk.scores) == (TEST, "new", 5, {0: 1.0, 1: 1.0})
    assert (w.total, w.initial, w.walk.counts) == (5, 1, [0, 0, 0, 0, 1])


# ---- build_test ---------------------------------------------------------------------------


def test_build_test_makes_the_test_of_merged_settings_with_numbers_as_floats():
    values = {"elo0": -1, "elo1": 3, "alpha": 0.1, "beta": 0.2, "model": "logistic", "max_games": 100}
    test = build_test(values)
    assert test == SPRT(-1.0, 3.0, 0.1, 0.2, "logistic")
    assert type(test.elo0) is float and type(test.elo1) is float


def test_build_test_names_a_setting_that_is_not_a_number_and_passes_on_bounds_that_cannot_be_tested():
    good = {"elo0": 0, "elo1": 5, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
    with pytest.raises(ParameterError, match=r"^elo1 must be a number, got '5'$"):
        build_test({**good, "elo1": "5"})
    with pytest.raises(ParameterError, match=r"^alpha must be a number, got True$"):
        build_test({**good, "alpha": True})
    with pytest.raises(ParameterError, match=r"^bad SPRT beta=1.5; expected a number between 0 and 1$"):
        build_test({**good, "beta": 1.5})
    with pytest.raises(ParameterError, match=r"^unknown SPRT model 'bayes'; available: normalized, logistic$"):
        build_test({**good, "model": "bayes"})


# ---- TestWatcher --------------------------------------------------------------------------


def test_a_watcher_counts_the_stored_pairs_by_the_new_bots_points_in_pair_order():
    # pair 0: new wins both; pair 1: new wins, then draws; game 4 waits for its partner
    stored = [row(3, 0.5), row(0, 1.0), row(4, 0.0), row(1, 1.0), row(2, 1.0)]
    w = sprt_format.TestWatcher(config(), stored, 11)
    assert w.unit == "pair"
    assert w.walk.scores == {0: 1.0, 1: 1.0, 2: 1.0, 3: 0.5, 4: 0.0}
    assert w.walk.counts == [0, 0, 0, 1, 1] and w.walk.pairs == 2
    # an odd schedule counts whole pairs only: 11 games make 5 pairs
    assert (w.walk.max_pairs, w.total, w.initial) == (5, 5, 2)
    assert (w.in_flight, w.told) == (0, False)
    assert list(w.news()) == []  # nothing decided: nothing to say


def test_tasks_are_handed_out_in_order_until_every_pair_of_the_schedule_counts_and_in_flight_follows_them():
    w = sprt_format.TestWatcher(config(), [], 4)  # two pairs at most
    tasks = w.tasks(["g0", "g1", "g2", "g3", "g2 again", "never"])
    assert (next(tasks), next(tasks), w.in_flight) == ("g0", "g1", 2)
    assert (w.add(game(0, 1.0)), w.in_flight) == (0, 1)  # half a pair counts for nothing yet
    assert (w.add(game(1, 1.0)), w.in_flight) == (1, 0)
    assert w.walk.scores == {0: 1.0, 1: 1.0} and w.walk.counts == [0, 0, 0, 0, 1]
    assert (next(tasks), w.in_flight) == ("g2", 1)
    w.failed(2)
    assert w.in_flight == 0
    assert (next(tasks), w.add(game(3, 0.0)), w.in_flight) == ("g3", 0, 0)  # pair 1 waits for game 2
    assert (next(tasks), w.in_flight) == ("g2 again", 1)
    assert not w.walk.over
    assert (w.add(game(2, 0.5)), w.in_flight) == (1, 0)
    assert w.walk.over and w.walk.verdict == "inconclusive"
    assert list(tasks) == [] and w.in_flight == 0  # 'never' is not handed out


def test_the_progress_bar_shows_the_llr_between_the_bounds():
    w = sprt_format.TestWatcher(config(), [], 20)
    lower, upper = WALD
    assert w.postfix() == f"LLR 0.00 in ({lower:.2f}, {upper:.2f})" == "LLR 0.00 in (-1.50, 2.08)"
    for i, p in enumerate((1.0, 1.0, 1.0, 0.5)):
        w.add(game(i, p))
    assert w.postfix() == f"LLR {TEST.llr([0, 0, 0, 1, 1]):.2f} in ({lower:.2f}, {upper:.2f})"


def test_a_test_decided_before_the_run_hands_out_nothing_and_announces_nothing():
    n = crossing(QUICK, 4)
    stored = [row(i, 1.0) for i in range(2 * n)]
    w = sprt_format.TestWatcher(config(QUICK), stored, 100)
    assert w.walk.verdict == "H1" and w.told is True and w.initial == n
    assert list(w.tasks(["g"])) == [] and w.in_flight == 0
    assert list(w.news()) == []


def test_the_verdict_is_announced_once_when_the_test_decides():
    n = crossing(QUICK, 4)
    w = sprt_format.TestWatcher(config(QUICK), [], 100)
    handed = list(w.tasks(list(range(2 * n))))
    assert len(handed) == w.in_flight == 2 * n
    for i in range(2 * n - 1):
        w.add(game(i, 1.0))
        assert list(w.news()) == []
    w.add(game(2 * n - 1, 1.0))
    llr = QUICK.llr([0, 0, 0, 0, n])
    assert list(w.news()) == [f"arena: SPRT H1 accepted after {n} pairs (LLR {llr:.2f})"]
    assert w.told is True and list(w.news()) == []  # once


def test_the_announcement_counts_the_games_after_the_deciding_pair_finished_and_in_flight():
    n = crossing(QUICK, 0)
    w = sprt_format.TestWatcher(config(QUICK), [], 100)
    assert len(list(w.tasks(list(range(2 * n + 3))))) == 2 * n + 3
    for i in [*range(2 * n - 1), 2 * n]:  # game 2n, of the pair after the deciding one, finishes early
        w.add(game(i, 0.0))
    assert not w.walk.over and w.in_flight == 3
    w.add(game(2 * n - 1, 0.0))
    assert w.walk.verdict == "H0" and w.in_flight == 2
    llr = QUICK.llr([n, 0, 0, 0, 0])
    assert list(w.news()) == [
        f"arena: SPRT H0 accepted after {n} pairs (LLR {llr:.2f}); 3 more games, after the deciding pair, do not count "
        "(1 finished, 2 in flight, finishing now): they are stored but do not change the verdict"]


def test_an_inconclusive_test_is_announced_when_the_schedules_last_pair_counts():
    w = sprt_format.TestWatcher(config(), [], 2)
    assert list(w.tasks(["g0", "g1"])) == ["g0", "g1"]
    w.add(game(1, 0.5))
    assert list(w.news()) == []
    w.add(game(0, 0.5))
    llr = TEST.llr([0, 0, 1, 0, 0])
    assert list(w.news()) == [f"arena: SPRT inconclusive after 1 pairs (LLR {llr:.2f})"]


# ---- the report and the page --------------------------------------------------------------


@pytest.fixture
def fake_terminations(monkeypatch):
    """results.report.terminations, recording the games it was given."""
    seen = []

    def terminations(games):
        seen.append(games)
        return "terminations table"

    monkeypatch.setattr(results.report, "terminations", terminations)
    return seen


def running_games():
    # pair 0: WW, pair 1: WD (new's points), and game 4 waiting for its partner
    return games_frame([(1.0, 1.0), (1.0, 0.5)], extra=[(4, 1.0)])


def test_the_text_report_is_the_summarys_lines_and_the_terminations(fake_terminations):
    games, cfg = running_games(), stored_config(5)
    lines, tables = Sprt(TEST).report(SimpleNamespace(games=games), cfg, "text")
    assert lines == summary_lines(sprt_summary(games, cfg))
    assert lines[0] == "SPRT new against old (base): not decided yet"
    assert tables == {"terminations": "terminations table"}
    assert len(fake_terminations) == 1 and fake_terminations[0] is games


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_get_one_row_per_run_indexed_by_the_new_bot_with_no_infinite_numbers(fake_terminations, fmt):
    games, cfg = running_games(), stored_config(5)
    summary = sprt_summary(games, cfg)
    assert summary["elo_high"] == math.inf and summary["verdict"] is None  # what the row must carry as None
    lines, tables = Sprt(TEST).report(SimpleNamespace(games=games), cfg, fmt)
    assert lines == [] and list(tables) == ["sprt", "terminations"]
    assert tables["terminations"] == "terminations table" and fake_terminations[0] is games
    table = tables["sprt"]
    assert table.index.name == "new" and list(table.index) == ["new"]
    assert list(table.columns) == [k for k in summary if k != "new"]
    assert table.at["new", "elo_high"] is None and table.at["new", "elo_error"] is None
    assert table.at["new", "verdict"] is None
    assert table.at["new", "elo"] == summary["elo"] and table.at["new", "llr"] == summary["llr"]
    assert table.at["new", "pairs"] == 2 and table.at["new", "uncounted_games"] == 1
    expected = {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in summary.items()}
    pd.testing.assert_frame_equal(table, pd.DataFrame([expected]).set_index("new"))


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_other_formats_get_the_numbers_as_items_and_values_with_a_dash_for_none(fake_terminations, fmt):
    games, cfg = running_games(), stored_config(5)
    summary = sprt_summary(games, cfg)
    lines, tables = Sprt(TEST).report(SimpleNamespace(games=games), cfg, fmt)
    assert lines == [] and list(tables) == ["sprt", "terminations"]
    table = tables["sprt"]
    assert table.index.name == "item" and list(table.index) == list(summary)
    assert list(table.columns) == ["value"]
    values = table["value"]
    assert (values["verdict"], values["elo_high"], values["elo_error"]) == ("-", "-", "-")
    assert values["new"] == "new" and values["result"] == "not decided yet"
    assert values["elo"] == summary["elo"] and values["pairs"] == 2 and values["WW"] == 1
    assert [v for v in values if v == "-"] == ["-"] * 5  # only the None and infinite ones
    assert [k for k, v in values.items() if v == "-"] == ["verdict", "elo_high", "elo_error", "fixed_elo_high",
                                                          "fixed_elo_error"]


def test_the_page_has_the_verdict_box():
    games, cfg = running_games(), stored_config(5)
    page = Sprt(TEST).page(games, cfg, None)
    assert page == {"verdict": sprt_box(games, cfg)} and page["verdict"]["state"] == "running"


# ---- _finite and sprt_box -----------------------------------------------------------------


def test_finite_makes_infinite_numbers_none_and_leaves_everything_else():
    f = sprt_format._finite
    assert f(math.inf) is None and f(-math.inf) is None
    assert f(1.5) == 1.5 and f(0.0) == 0.0 and f(7) == 7 and f("inf") == "inf" and f(None) is None
    assert math.isnan(f(math.nan))


def test_sprt_box_is_none_for_no_config_and_for_other_formats():
    games = running_games()
    assert sprt_box(games, None) is None and sprt_box(games, {}) is None
    assert sprt_box(games, {**stored_config(5), "format": "round-robin"}) is None
    assert sprt_box(games, {k: v for k, v in stored_config(5).items() if k != "format"}) is None


def test_sprt_box_of_a_running_test_has_every_number_of_its_summary():
    box = sprt_box(running_games(), stored_config(5))
    lower, upper = WALD
    assert box == {
        "state": "running", "candidate": "new", "llr": f"{TEST.llr([0, 0, 0, 1, 1]):.2f}",
        "lower": f"{lower:.2f}", "upper": f"{upper:.2f}", "counts": (0, 0, 0, 1, 1),
        "pairs": 2, "unpaired": 1,
        "hypotheses": "H0: -1.5 against H1: 2.5 (logistic Elo), alpha 0.1, beta 0.2",
    }
    assert (box["lower"], box["upper"]) == ("-1.50", "2.08")


@pytest.mark.parametrize("new_points, state, counts", [
    ((1.0, 1.0), "accepted", lambda n: (0, 0, 0, 0, n)),
    ((0.0, 0.0), "rejected", lambda n: (n, 0, 0, 0, 0)),
])
def test_sprt_box_says_accepted_or_rejected_once_the_test_decides(new_points, state, counts):
    n = crossing(QUICK, 4 if new_points[0] else 0)
    box = sprt_box(games_frame([new_points] * (n + 1)), stored_config(100, QUICK_STORED))
    assert box["state"] == state and box["pairs"] == n and box["counts"] == counts(n)
    assert box["unpaired"] == 2  # the pair after the deciding one does not count
    assert box["llr"] == f"{QUICK.llr(counts(n)):.2f}"
    assert box["hypotheses"] == "H0: -50 against H1: 50 (logistic Elo), alpha 0.2, beta 0.2"


def test_sprt_box_says_inconclusive_once_every_pair_counts_without_a_verdict():
    box = sprt_box(games_frame([(1.0, 0.0)]), stored_config(1))
    assert TEST.status([0, 0, 1, 0, 0]).verdict is None
    assert (box["state"], box["pairs"], box["counts"], box["unpaired"]) == ("inconclusive", 1, (0, 0, 1, 0, 0), 0)
