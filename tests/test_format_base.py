"""What every tournament format shares (arena/formats/base.py) and the registry of formats
(arena/formats/__init__.py), without playing a game.

Covers ``Setting.option``; ``Format``'s defaults (its message for misplaced settings, build
and from_stored, its check of games per round, pairings, round count, planned games,
watcher, heading, report and page); ``Leaderboard``; ``Watcher``; ``RoundWatcher``'s rounds
(which games of each round it hands out, pairing and game numbers, resuming from stored
games) with a scripted ``walk``; ``whole`` and ``number``; and ``formats``,
``format_class`` and ``stored_format``. Games are hand-made rows, configs and schedules
SimpleNamespaces.
"""

from dataclasses import dataclass
from types import SimpleNamespace

import pytest

import results.report
from arena.errors import ParameterError
from arena.formats import BUILTIN, format_class, formats, stored_format
from arena.formats.base import Format, Leaderboard, RoundWatcher, Setting, Watcher, number, whole
from arena.formats.gauntlet import Gauntlet
from arena.formats.ladder import Ladder
from arena.formats.race import Race
from arena.formats.roundrobin import RoundRobin
from arena.formats.sprt import Sprt
from arena.formats.swiss import Swiss
from results.sprt import SPRT


def stored_row(game_id, first, second, result):
    """A stored game as ``Store.summaries`` gives it."""
    return {"game_id": game_id, "first": first, "second": second, "result": result}


def finished(game_id, first, second, score_first):
    """A finished game (the GameRow fields a watcher reads)."""
    return SimpleNamespace(game_id=game_id, first=first, second=second, score_first=score_first)


# ---- Setting ------------------------------------------------------------------------------


def test_a_settings_flag_is_its_key_with_dashes_unless_it_names_another_or_none():
    margin = Setting("time_margin", "float", 0.5, "help")
    assert margin.option == "--time-margin"
    assert Setting("challengers", "texts", [], "help", flag="--challenger").option == "--challenger"
    assert Setting("placement", "int", 3, "help", flag=None).option == ""  # a TOML key only
    assert (margin.flag, margin.metavar, margin.commands, margin.stored, margin.grows, margin.fixed) == (
        "", None, ("run",), (), False, False)
    assert (margin.choices, margin.flag_only, margin.none, margin.words) == ((), False, "none", ())


# ---- Format -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Demo(Format):
    """A format with settings, paired two games a round, that reads its values and has tables of its own."""

    size: int = 1
    name = "demo"
    games_per_round = 2
    settings = (Setting("size", "int", 1, "h"), Setting("time_margin", "float", 0.5, "h"),
                Setting("x", "int", 0, "h", flag="--X-ray"))

    @classmethod
    def build(cls, values):
        return cls(values["size"])

    def own_tables(self, games, config, standings):
        return {"demo": (games, config, standings)}


def test_a_format_says_its_settings_are_for_it_naming_each_without_its_dashes():
    assert Demo.misplaced(["size"]) == "size and time-margin and X-ray are for the demo format (--format demo)"
    assert Race.misplaced(["confidence"]) == "confidence and max-games are for the race format (--format race)"


def test_the_base_format_is_laid_out_in_advance_and_stores_nothing():
    f = Format()
    assert (Format.name, Format.settings, Format.command, Format.grows, Format.open_ended) == ("", (), "run", True, False)
    assert (Format.games_per_round, Format.laid_out, Format.min_bots, Format.fixed_at_creation, Format.in_files) == (
        None, True, 2, False, True)
    assert type(Format.build({"anything": 1})) is Format and type(Format.from_stored({"format": "x"})) is Format
    assert f.stored() == {}
    assert f.pairings(("a", "b"), ()) is None and f.planned(None) == 0
    assert f.own_tables(None, {}, None) == {} and f.page(None, {}, None) == {}
    assert f.flag("games_per_pairing") is None


def test_from_stored_builds_the_format_from_the_stored_config():
    assert Demo.from_stored({"size": 7, "format": "demo"}) == Demo(7)
    assert Gauntlet.from_stored({"format": "gauntlet", "challengers": ["c"]}) == Gauntlet(("c",))


def test_check_wants_the_games_of_one_round_per_pairing_when_the_format_pairs_round_by_round():
    assert Format().check(SimpleNamespace(games_per_pairing=7)) is None  # any number: not paired round by round
    assert Demo().check(SimpleNamespace(games_per_pairing=2)) is None
    for games in (1, 4):
        with pytest.raises(ParameterError) as err:
            Demo().check(SimpleNamespace(games_per_pairing=games))
        assert str(err.value) == (f"a demo pairs bots round by round, 2 games each (one opening, colours swapped); "
                                  f"games per pairing must be 2, got {games}")


def test_a_round_is_two_games_so_an_odd_game_left_over_makes_no_round():
    assert Format().round_count(None, 7) == 3 and Format().round_count(None, 8) == 4
    assert type(Format().round_count(None, 7)) is int
    assert Format().round_count(None, 1) == 0


def test_the_default_watcher_follows_the_stored_games_and_the_schedule():
    stored = [stored_row(0, "a", "b", "1-0")]
    w = Format().watcher(None, stored, 6)
    assert type(w) is Watcher
    assert (w.total, w.initial, w.board.points) == (6, 1, {"a": 1.0, "b": 0.0})


def test_the_heading_says_the_games_per_pairing_if_the_config_has_them():
    assert Format().describe({"games_per_pairing": 6, "format": "round-robin"}) == "6 games per pairing"
    assert Format().describe({}) == "" and Format().describe({"games_per_pairing": None}) == ""


def test_the_report_puts_the_formats_own_tables_before_the_standard_ones(monkeypatch):
    seen = []

    def report(games, moves, view, seats=None):
        seen.append((games, moves, view))
        return {"standings": "the standings", "crosstable": "the crosstable"}

    monkeypatch.setattr(results.report, "report", report)
    tables = SimpleNamespace(games="the games", moves="the moves")
    config = {"format": "demo"}
    lines, out = Demo().report(tables, config, "text")
    assert seen == [("the games", "the moves", results.report.View())] and lines == []
    assert list(out) == ["demo", "standings", "crosstable"]
    assert out["demo"][0] == "the games" and out["demo"][1] is config and out["demo"][2] == "the standings"
    assert out["standings"] == "the standings" and out["crosstable"] == "the crosstable"
    assert Format().report(tables, config, "csv") == ([], {"standings": "the standings", "crosstable": "the crosstable"})
    anchored = results.report.View((("a", 0.0),), 3)
    Format().report(tables, config, "csv", anchored)
    assert seen[-1][2] is anchored


# ---- Leaderboard --------------------------------------------------------------------------


def test_a_leaderboard_adds_each_games_points_to_both_sides():
    board = Leaderboard([("a", "b", 1.0), ("b", "c", 0.5)])
    assert board.points == {"a": 1.0, "b": 0.5, "c": 0.5} and board.games == {"a": 1, "b": 2, "c": 1}
    board.add("c", "a", 0.0)
    assert board.points == {"a": 2.0, "b": 0.5, "c": 0.5} and board.games == {"a": 2, "b": 2, "c": 2}
    assert Leaderboard().points == {} and Leaderboard().games == {}


def test_no_games_no_leader():
    assert Leaderboard().leader() == ""


def test_the_leader_has_the_best_score_rate_not_the_most_points_nor_the_first_name():
    # a 1/2 and b 1.5/3 (rate 1/2), c 1.5/2 (3/4), d 0/1; by points times games b would lead
    board = Leaderboard([("a", "b", 1.0), ("a", "c", 0.0), ("c", "b", 0.5), ("b", "d", 1.0)])
    assert board.leader() == "leader c 1.5/2"


def test_between_equal_rates_the_leader_is_the_one_with_more_points():
    board = Leaderboard([("x", "y", 0.5), ("y", "z", 0.5), ("z", "y", 0.5)])  # x 0.5/1, y 1.5/3, z 1/2
    assert board.leader() == "leader y 1.5/3"
    assert Leaderboard([("p", "q", 1.0), ("q", "p", 0.0)]).leader() == "leader p 2/2"  # whole points without ".0"


# ---- Watcher ------------------------------------------------------------------------------


def test_a_watcher_starts_from_the_stored_games_and_the_schedules_size():
    stored = [stored_row(0, "a", "b", "1-0"), stored_row(1, "b", "a", "1/2-1/2"), stored_row(2, "a", "c", "0-1")]
    w = Watcher(stored, 10)
    assert (w.unit, w.total, w.initial, w.lines) == ("game", 10, 3, [])
    assert w.board.points == {"a": 1.5, "b": 0.5, "c": 1.0} and w.board.games == {"a": 3, "b": 2, "c": 1}
    assert w.postfix() == "leader c 1/1"
    assert Watcher([], 4).postfix() == ""


def test_a_watcher_hands_out_every_game_in_one_batch():
    todo = ["t0", "t1"]
    w = Watcher([], 2)
    assert w.tasks(todo) is todo
    batches = list(w.rounds(todo, None))
    assert batches == [todo] and batches[0] is todo


def test_each_finished_game_advances_the_bar_one_step_and_counts_for_the_leader():
    w = Watcher([], 4)
    assert w.add(finished(0, "a", "b", 0.0)) == 1
    assert w.board.points == {"a": 0.0, "b": 1.0} and w.postfix() == "leader b 1/1"
    assert w.failed(1) is None and w.board.games == {"a": 1, "b": 1}  # a failed game changes nothing


def test_news_gives_the_lines_once():
    w = Watcher([], 2)
    assert list(w.news()) == []
    w.lines.extend(["one", "two"])
    assert list(w.news()) == ["one", "two"]
    assert w.lines == [] and list(w.news()) == []


# ---- RoundWatcher -------------------------------------------------------------------------


class Scripted(RoundWatcher):
    """A RoundWatcher whose rounds are given: ``(round, first game id, pairs, complete)`` each."""

    def __init__(self, stored, scheduled, script):
        super().__init__(stored, scheduled)
        self.script, self.configs = script, []

    def walk(self, config):
        self.configs.append(config)
        yield from self.script


def schedule(*names):
    """A schedule as RoundWatcher.rounds reads it: its config's bots, and a task that returns its arguments."""
    return SimpleNamespace(config=SimpleNamespace(bots=[SimpleNamespace(name=n) for n in names]),
                           task=lambda *args: args)


def test_a_round_watcher_keeps_the_stored_results_by_game_id_and_starts_at_round_one():
    stored = [stored_row(3, "a", "b", "0-1"), stored_row(8, "b", "c", "1/2-1/2")]
    w = RoundWatcher(stored, 20)
    assert w.results == {3: ("a", "b", 0.0), 8: ("b", "c", 0.5)}
    assert (w.round, w.total, w.initial) == (0, 20, 2)
    assert w.board.points == {"a": 0.0, "b": 1.5, "c": 0.5}
    assert w.postfix() == "round 1 leader b 1.5/2"
    assert w.add(finished(9, "c", "a", 1.0)) == 1
    assert w.results[9] == ("c", "a", 1.0) and w.board.points["c"] == 1.5
    with pytest.raises(NotImplementedError):
        next(w.walk(None))


def test_rounds_hand_out_each_rounds_missing_games_both_colours_of_each_pair_and_skip_complete_rounds():
    sched = schedule("a", "b", "c", "d")
    script = [
        (0, 0, [("b", "a"), ("c", "d")], False),
        (1, 4, [("d", "a"), ("b", "c")], False),
        (2, 8, [("a", "c")], True),
        (3, 10, [("c", "a"), ("d", "b")], False),
    ]
    # game 1 (round 0) and game 4 (round 1, its first game) were stored before a crash
    w = Scripted([stored_row(1, "a", "b", "1-0"), stored_row(4, "d", "a", "0-1")], 14, script)
    rounds = w.rounds([], sched)
    # (game id, pairing: i * bots + j for the pair's bot numbers i < j, round, first, second)
    assert next(rounds) == [(0, 1, 0, "b", "a"), (2, 11, 0, "c", "d"), (3, 11, 0, "d", "c")]
    assert w.round == 0 and w.postfix() == "round 1 leader a 2/2"
    assert w.configs == [sched.config]
    assert sorted(w.results) == [1, 4]
    for g in (finished(0, "b", "a", 0.0), finished(2, "c", "d", 1.0), finished(3, "d", "c", 0.5)):
        w.add(g)
    # round 1 starts at game 4: the results before it are dropped, game 4's is kept and not played again
    assert next(rounds) == [(5, 3, 1, "a", "d"), (6, 6, 1, "b", "c"), (7, 6, 1, "c", "b")]
    assert w.round == 1 and sorted(w.results) == [4] and w.postfix().startswith("round 2 leader ")
    for g in (finished(5, "a", "d", 1.0), finished(6, "b", "c", 1.0), finished(7, "c", "b", 1.0),
              finished(8, "a", "c", 1.0), finished(9, "c", "a", 1.0)):
        w.add(g)
    # round 2 is complete: nothing to play; round 3 starts at game 10
    assert next(rounds) == [(10, 2, 3, "c", "a"), (11, 2, 3, "a", "c"), (12, 7, 3, "d", "b"), (13, 7, 3, "b", "d")]
    assert w.round == 3 and w.results == {} and w.postfix().startswith("round 4 leader ")
    assert list(rounds) == [] and w.configs == [sched.config]


def test_a_round_whose_games_are_all_stored_yields_an_empty_batch_and_keeps_them():
    w = Scripted([stored_row(6, "b", "a", "1-0"), stored_row(7, "a", "b", "0-1")], 8, [(3, 6, [("b", "a")], False)])
    assert list(w.rounds([], schedule("a", "b"))) == [[]]
    assert sorted(w.results) == [6, 7] and w.round == 3


# ---- whole and number ---------------------------------------------------------------------


def test_whole_takes_an_int_as_it_is():
    assert whole({"rounds": 3, "other": "x"}, "rounds") == 3
    assert whole({"n": 0}, "n") == 0 and whole({"n": -2}, "n") == -2


@pytest.mark.parametrize("bad", [True, False, 3.0, "3", None, [3]])
def test_whole_names_the_key_of_anything_else(bad):
    with pytest.raises(ParameterError) as err:
        whole({"rounds": bad}, "rounds")
    assert str(err.value) == f"rounds must be a whole number, got {bad!r}"


def test_number_takes_an_int_or_a_float_as_a_float():
    assert number({"confidence": 0.9}, "confidence") == 0.9
    value = number({"n": 3, "other": 1.5}, "n")
    assert value == 3.0 and type(value) is float


@pytest.mark.parametrize("bad", [True, False, "0.9", None, [1]])
def test_number_names_the_key_of_anything_else(bad):
    with pytest.raises(ParameterError) as err:
        number({"confidence": bad}, "confidence")
    assert str(err.value) == f"confidence must be a number, got {bad!r}"


def test_whole_and_number_want_the_key_given():
    with pytest.raises(KeyError):
        whole({}, "rounds")
    with pytest.raises(KeyError):
        number({}, "confidence")


# ---- the registry -------------------------------------------------------------------------

IN_FILES = "round-robin, gauntlet, sprt, swiss, race"
"""The formats a tournament file may name, in BUILTIN's order (a ladder is made by ``arena ladder``)."""


def test_the_registry_holds_every_builtin_format_by_its_own_name_in_order():
    found = formats()
    assert list(found) == list(BUILTIN) == ["round-robin", "gauntlet", "sprt", "swiss", "race", "ladder"]
    assert list(found.values()) == [RoundRobin, Gauntlet, Sprt, Swiss, Race, Ladder]
    assert all(cls.name == name for name, cls in found.items())
    assert [n for n, cls in found.items() if not cls.in_files] == ["ladder"]


def test_format_class_finds_every_builtin_format_by_name():
    for name, cls in formats().items():
        assert format_class(name) is cls
    assert format_class("ladder") is Ladder  # known, though no file may name it


def test_an_unknown_format_is_refused_with_the_formats_a_file_may_name_and_the_nearest():
    with pytest.raises(ParameterError) as err:
        format_class("swis")
    assert str(err.value) == f"unknown format 'swis'; formats: {IN_FILES}; did you mean 'swiss'?"
    with pytest.raises(ParameterError) as err:
        format_class("roundrobin")
    assert str(err.value) == f"unknown format 'roundrobin'; formats: {IN_FILES}; did you mean 'round-robin'?"


def test_an_unknown_format_with_nothing_near_has_no_hint():
    with pytest.raises(ParameterError) as err:
        format_class("zzz")
    assert str(err.value) == f"unknown format 'zzz'; formats: {IN_FILES}"
    with pytest.raises(ParameterError) as err:
        format_class(None)
    assert str(err.value) == f"unknown format None; formats: {IN_FILES}"


def test_a_name_that_is_not_a_string_is_refused_by_its_text():
    with pytest.raises(ParameterError) as err:
        format_class(["swiss"])  # not hashable: refused before it is looked up
    assert str(err.value) == f"unknown format ['swiss']; formats: {IN_FILES}; did you mean 'swiss'?"


def test_a_stored_tournament_without_a_format_is_a_round_robin():
    for config in (None, {}, {"format": None}, {"format": ""}, {"games_per_pairing": 2}):
        found = stored_format(config)
        assert type(found) is RoundRobin and found == RoundRobin()


def test_a_stored_tournament_gets_its_format_with_the_settings_it_stored():
    test = {"elo0": -1.0, "elo1": 4.0, "alpha": 0.1, "beta": 0.2, "model": "logistic"}
    assert stored_format({"format": "sprt", "sprt": test, "games_per_pairing": 10}) == Sprt(SPRT(**test))
    assert stored_format({"format": "swiss", "rounds": 5}) == Swiss(5)
    assert stored_format({"format": "gauntlet", "challengers": ["a"]}) == Gauntlet(("a",))
    assert type(stored_format({"format": "round-robin"})) is RoundRobin


def test_a_stored_tournament_of_a_format_this_version_does_not_know_gets_the_bare_format():
    found = stored_format({"format": "knockout", "rounds": 3})
    assert type(found) is Format and found.describe({"games_per_pairing": 4}) == "4 games per pairing"
