"""``arena.front.settings`` called directly: reading a tournament file (every error a user can
see), merging defaults, file and flags, ``build`` and ``build_sprt`` turning merged settings into
a ``TournamentConfig`` and ``RunSettings`` (every field, every check and its message), the
format and openings checks, bot entries (``NAME=SPEC@BUDGET`` and tables), budgets and the
type checks. Only tiny files in tmp_path are read; no game is played.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

from arena import get_registry
from arena.adjudication import Adjudication, DrawRule, ResignRule
from arena.budget import Budget
from arena.clock import TimeControl
from arena.errors import ArenaError, ParameterError
from arena.formats.gauntlet import Gauntlet
from arena.formats.race import Race
from arena.formats.roundrobin import RoundRobin
from arena.formats.sprt import Sprt
from arena.formats.swiss import Swiss
from arena.front import settings as st
from arena.front.openings import OpeningBook
from arena.front.settings import (
    DEFAULT_SETTINGS, KEYS, SPRT_SETTINGS, ConfigError, RunSettings, build, build_sprt, load_file, parse_entrant,
    settings,
)
from arena.front.tournament import Entrant, TournamentConfig, make_schedule, validate
from arena.limits import Limits
from arena.opening import OpeningsError
from results.sprt import SPRT

FIVE_BOTS = ("random", "greedy", "minimax:depth=3", "alphabeta:depth=5", "iterative")


def values(**changes) -> dict:
    """``arena run``'s defaults (a copy: build must not see another test's changes), then ``changes``."""
    return {**copy.deepcopy(DEFAULT_SETTINGS), **changes}


def sprt_values(**changes) -> dict:
    return {**copy.deepcopy(SPRT_SETTINGS), "new": "alphabeta", "base": "greedy", **changes}


def error(call, *args) -> str:
    with pytest.raises(ConfigError) as info:
        call(*args)
    return str(info.value)


# ---- the defaults -----------------------------------------------------------------------------------


def test_the_keys_are_the_run_defaults_keys_in_order():
    assert KEYS == tuple(DEFAULT_SETTINGS) == (  # the keys a file may hold, as an unknown key's message lists them
        "name", "game", "bots", "budget", "tc", "games", "openings", "shuffle", "plies", "seed", "draw", "resign",
        "maxmoves", "format", "challengers", "rounds",
        "confidence", "max_games", "time_margin", "isolate", "sandbox", "trusted", "independent_chance", "watchdog", "memory_limit", "output_limit",
        "database", "jobs",
    )
    assert set(SPRT_SETTINGS) - set(DEFAULT_SETTINGS) == {"elo0", "elo1", "alpha", "beta", "model", "new", "base"}


def test_config_errors_are_arena_errors_and_value_errors():
    assert issubclass(ConfigError, ArenaError) and issubclass(ConfigError, ValueError)
    assert issubclass(st.UsageError, ArenaError)


# ---- load_file --------------------------------------------------------------------------------------


def test_a_tournament_file_is_read_as_toml(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('game = "nim"\ngames = 6\nbots = ["random", {spec = "greedy", name = "g"}]\n')
    assert load_file(path) == {"game": "nim", "games": 6, "bots": ["random", {"spec": "greedy", "name": "g"}]}
    assert load_file(str(path)) == load_file(path)


def test_a_missing_tournament_file_is_named(tmp_path):
    path = tmp_path / "none.toml"
    assert error(load_file, path) == f"tournament file {str(path)!r} not found"


def test_a_file_that_is_not_toml_is_named_with_where_it_goes_wrong(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("name = x\n")
    assert error(load_file, path) == f"tournament file {str(path)!r} is not valid TOML: Invalid value (at line 1, column 8)"


def test_a_file_that_cannot_be_read_is_named_with_the_reason(tmp_path):
    assert error(load_file, tmp_path) == (
        f"cannot read tournament file {str(tmp_path)!r}: [Errno 21] Is a directory: {str(tmp_path)!r}"
    )
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"name = '\xff'\n")
    assert error(load_file, path) == (
        f"cannot read tournament file {str(path)!r}: 'utf-8' codec can't decode byte 0xff in position 8: "
        "invalid start byte"
    )


def test_an_unknown_key_is_named_first_with_the_keys_a_file_may_hold(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text('game = "nim"\ngmae = 1\nbost = 2\n')
    assert error(load_file, path) == (
        f"unknown setting 'gmae' in {str(path)!r}; settings: name, game, bots, budget, tc, games, openings, shuffle, "
        "plies, seed, draw, resign, maxmoves, format, challengers, rounds, confidence, max_games, time_margin, "
        "isolate, sandbox, trusted, independent_chance, watchdog, memory_limit, output_limit, database, jobs"
    )
    assert error(load_file, path, ("game", "gmae")) == f"unknown setting 'bost' in {str(path)!r}; settings: game, gmae"


def test_keys_given_are_the_only_ones_a_file_may_hold(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('new = "alphabeta"\n')
    assert load_file(path, ("new",)) == {"new": "alphabeta"}
    assert error(load_file, path).startswith("unknown setting 'new' in ")


# ---- settings ---------------------------------------------------------------------------------------


def test_settings_are_the_defaults_with_no_file_and_no_flag():
    got = settings()
    assert got == DEFAULT_SETTINGS and got is not DEFAULT_SETTINGS


def test_the_file_overrides_the_defaults_and_the_flags_override_the_file(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('game = "nim"\ngames = 6\nseed = 3\n')
    got = settings(str(path), {"games": 8, "seed": None, "shuffle": False, "openings": 0})
    assert got == {**DEFAULT_SETTINGS, "game": "nim", "games": 8, "seed": 3, "shuffle": False, "openings": 0}


def test_flags_not_given_leave_the_default():
    assert settings(None, {"game": None, "budget": "nodes=5"}) == {**DEFAULT_SETTINGS, "budget": "nodes=5"}
    assert settings(None, None) == DEFAULT_SETTINGS


def test_a_file_is_checked_against_the_keys_of_the_defaults_given(tmp_path):
    path = tmp_path / "sprt.toml"
    path.write_text('new = "alphabeta"\nbase = "greedy"\nelo1 = 10.0\n')
    got = settings(str(path), {"elo0": 2.0}, SPRT_SETTINGS)
    assert got == {**SPRT_SETTINGS, "new": "alphabeta", "base": "greedy", "elo1": 10.0, "elo0": 2.0}
    path.write_text('bots = ["a"]\n')
    assert error(settings, str(path), None, {"game": "nim", "seed": 1}) == (
        f"unknown setting 'bots' in {str(path)!r}; settings: game, seed"
    )


# ---- build ------------------------------------------------------------------------------------------


def test_the_defaults_build_the_five_bots_at_connect_four(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 7)
    config, run = build(values())
    assert config == TournamentConfig(
        game="connect4", bots=tuple(Entrant(b, b) for b in FIVE_BOTS), budget=Budget(nodes=2000), games_per_pairing=40,
        opening_plies=4, seed=1, format=RoundRobin(), limits=Limits(0.1, 60.0, 1024, 1024, False), isolate=True,
        name=None, opening_book=None,
    )
    assert run == RunSettings(Path("arena-results.db"), 7, None, True)
    assert run.progress is True and isinstance(run.database, Path)


def test_every_setting_reaches_the_config_and_the_run_settings():
    config, run = build(values(
        name="  nightly ", game=" nim ", bots=["a=random@nodes=5", {"spec": "greedy"}], budget="depth=3", games=6,
        openings="2", seed=9, time_margin=0.5, isolate=False, sandbox=True, watchdog=7, memory_limit=512,
        output_limit=64, database="x.db", jobs=3, dask="tcp://h:1", progress=False,
    ))
    assert config == TournamentConfig(
        game="nim", bots=(Entrant("a", "random", Budget(nodes=5)), Entrant("greedy", "greedy")),
        budget=Budget(depth=3), games_per_pairing=6, opening_plies=2, seed=9, format=RoundRobin(),
        limits=Limits(0.5, 7.0, 512, 64, True), isolate=False, name="nightly",
    )
    assert type(config.limits.watchdog) is float and type(config.limits.time_margin) is float
    assert run == RunSettings(Path("x.db"), 3, "tcp://h:1", False)


def test_a_memory_limit_of_zero_or_none_is_no_limit():
    assert build(values(memory_limit=0))[0].limits.memory_limit is None
    assert build(values(memory_limit=None))[0].limits.memory_limit is None
    assert build(values(memory_limit=128))[0].limits.memory_limit == 128
    assert error(build, values(memory_limit="0")) == "memory_limit must be a whole number, got '0'"
    # false and 0.0 are not numbers of MiB: refused as every other whole-number setting refuses them
    assert error(build, values(memory_limit=False)) == "memory_limit must be a whole number, got False"
    assert error(build, values(memory_limit=0.0)) == "memory_limit must be a whole number, got 0.0"


def test_jobs_default_to_the_number_of_cpus_or_one(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert build(values())[1].jobs == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert build(values(jobs=None))[1].jobs == 3
    assert build(values(jobs=1))[1].jobs == 1


@pytest.mark.parametrize("jobs", [0, -1, True, 1.0, "2"])
def test_jobs_must_be_a_whole_number_of_at_least_one(jobs):
    assert error(build, values(jobs=jobs)) == f"jobs must be a whole number of at least 1, got {jobs!r}"


def test_jobs_may_be_left_out_of_the_values(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 5)
    given = values()
    del given["jobs"]
    assert build(given)[1] == RunSettings(Path("arena-results.db"), 5)


@pytest.mark.parametrize("database", ["", 5, None, ["a.db"]])
def test_the_database_must_be_a_path(database):
    assert error(build, values(database=database)) == f"database must be a file path, got {database!r}"


def test_a_database_may_be_a_path_object(tmp_path):
    assert build(values(database=tmp_path / "r.db"))[1].database == tmp_path / "r.db"


@pytest.mark.parametrize("bots", [3, [], "random", ("random", "greedy"), None])
def test_bots_must_be_a_non_empty_list(bots):
    assert error(build, values(bots=bots)) == (
        f"bots must be a list of bot specs (or tables with spec, name, budget), got {bots!r}"
    )


@pytest.mark.parametrize("key, value, message", [
    ("games", "40", "games must be a whole number, got '40'"),
    ("games", True, "games must be a whole number, got True"),
    ("seed", 1.0, "seed must be a whole number, got 1.0"),
    ("output_limit", None, "output_limit must be a whole number, got None"),
    ("time_margin", "0.1", "time_margin must be a number, got '0.1'"),
    ("watchdog", False, "watchdog must be a number, got False"),
    ("sandbox", 1, "sandbox must be true or false, got 1"),
    ("isolate", "yes", "isolate must be true or false, got 'yes'"),
    ("game", "  ", "game must be non-empty text, got '  '"),
    ("game", 4, "game must be non-empty text, got 4"),
    ("name", "", "name must be non-empty text, got ''"),
    ("name", 5, "name must be non-empty text, got 5"),
    ("budget", 5, "budget: expected text like 'nodes=1000' or a table, got 5"),
    ("shuffle", "no", "shuffle must be true or false, got 'no'"),
])
def test_each_setting_is_checked_for_its_type_naming_it(key, value, message):
    assert error(build, values(**{key: value})) == message


def test_a_budget_may_be_a_table():
    assert build(values(budget={"nodes": 10, "time": 2}))[0].budget == Budget(nodes=10, time=2.0)


def test_a_format_paired_round_by_round_plays_its_round_when_games_is_left_at_its_default():
    assert DEFAULT_SETTINGS["games"] == 40
    config, _ = build(values(format="swiss", rounds=3))
    assert config.games_per_pairing == 2 and config.format == Swiss(3)
    assert build(values(format="swiss", rounds=3, games=4))[0].games_per_pairing == 4  # as given (refused later)
    assert build(values(format="race", games=40))[0].games_per_pairing == 2
    assert build(values(format="round-robin", games=40))[0].games_per_pairing == 40
    assert build(values(format="gauntlet", challengers=["random"], games=40))[0].games_per_pairing == 40


def test_each_format_is_built_from_its_settings():
    assert build(values(format=" gauntlet ", challengers=[" random "]))[0].format == Gauntlet(("random",))
    assert build(values(format="race", confidence=0.9, max_games=300))[0].format == Race(0.9, 300)
    assert build(values(format="race"))[0].format == Race()


@pytest.mark.parametrize("fmt, message", [
    (5, "format must be non-empty text, got 5"),
    (None, "format must be non-empty text, got None"),
    ("knockout", "unknown format 'knockout'; formats: round-robin, gauntlet, sprt, swiss, race"),
    ("swis", "unknown format 'swis'; formats: round-robin, gauntlet, sprt, swiss, race; did you mean 'swiss'?"),
])
def test_an_unknown_format_is_refused_naming_the_formats(fmt, message):
    assert error(build, values(format=fmt)) == message


@pytest.mark.parametrize("given, fmt, message", [
    ({"challengers": ["random"]}, "round-robin", "challengers are only for the gauntlet format"),
    ({"rounds": 3}, "round-robin", "rounds are for the swiss format, which needs them: --format swiss --rounds R"),
    ({"confidence": 0.9}, "swiss", "confidence and max-games are for the race format (--format race)"),
    ({"max_games": 10}, "gauntlet", "confidence and max-games are for the race format (--format race)"),
    ({"challengers": ["random"]}, "race", "challengers are only for the gauntlet format"),
])
def test_another_formats_setting_is_refused_naming_its_format(given, fmt, message):
    extra = {"rounds": 2} if fmt == "swiss" and "rounds" not in given else {}
    assert error(build, values(format=fmt, **given, **extra)) == message


def test_empty_settings_of_another_format_are_not_given():
    assert build(values(challengers=[], rounds=None))[0].format == RoundRobin()
    assert build(values(challengers=()))[0].format == RoundRobin()


def test_a_formats_own_refusal_is_a_config_error():
    assert error(build, values(format="swiss")) == (
        "rounds are for the swiss format, which needs them: --format swiss --rounds R"
    )
    assert error(build, values(format="race", confidence=2.0)) == "confidence must be between 0 and 1, got 2.0"


# ---- openings ---------------------------------------------------------------------------------------


def openings(**changes):
    return st._openings({"openings": 4, "shuffle": False, **changes})


def test_openings_as_a_number_are_random_plies():
    assert openings(openings=0) == (0, None)
    assert openings(openings=6) == (6, None)


@pytest.mark.parametrize("text, plies", [("7", 7), (" 3 ", 3), ("+2", 2), ("-1", -1), ("0", 0)])
def test_openings_as_digits_are_a_number_of_plies_not_a_file(text, plies):
    assert openings(openings=text) == (plies, None)


def test_openings_as_a_path_are_the_files_lines_and_no_random_plies(tmp_path, monkeypatch):
    (tmp_path / "book.txt").write_text("3 3\n# a comment\n4 4\n")
    monkeypatch.chdir(tmp_path)
    plies, book = openings(openings=" book.txt ")
    assert plies == 0 and book == OpeningBook.read("book.txt")
    assert book.path == "book.txt" and len(book.openings) == 2 and book.shuffle is False
    plies, book = openings(openings="book.txt", shuffle=True)
    assert plies == 0 and book.shuffle is True
    config, _ = build(values(openings="book.txt", shuffle=True))
    assert config.opening_plies == 0 and config.opening_book == OpeningBook.read("book.txt", True)


def test_a_file_whose_name_starts_with_other_characters_than_signs_is_a_file(tmp_path, monkeypatch):
    (tmp_path / "X1").write_text("3 3\n")
    monkeypatch.chdir(tmp_path)
    plies, book = openings(openings="X1")
    assert plies == 0 and book.path == "X1"


def test_a_missing_openings_file_is_named():
    with pytest.raises(OpeningsError) as info:
        openings(openings="no-such-book.txt")
    assert str(info.value) == "openings file 'no-such-book.txt' not found"


@pytest.mark.parametrize("value", [True, False, 1.5, None, "   ", [4]])
def test_openings_must_be_plies_or_a_path(value):
    assert error(lambda: openings(openings=value)) == (
        f"openings must be a number of random plies or an openings file's path, got {value!r}"
    )


def test_shuffle_is_only_for_an_openings_file():
    assert error(lambda: openings(openings=4, shuffle=True)) == (
        "shuffle is for an openings file: give openings as a file's path"
    )
    assert error(lambda: openings(openings="2", shuffle=True)) == (
        "shuffle is for an openings file: give openings as a file's path"
    )
    assert error(lambda: openings(shuffle=None)) == "shuffle must be true or false, got None"


# ---- bots -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, entrant", [
    ("random", Entrant("random", "random")),
    ("  random  ", Entrant("random", "random")),
    ("a=random", Entrant("a", "random")),
    (" ab = alphabeta:depth=4 ", Entrant("ab", "alphabeta:depth=4")),
    ("alphabeta:depth=4", Entrant("alphabeta:depth=4", "alphabeta:depth=4")),
    ("engine:cmd=a:b", Entrant("engine:cmd=a:b", "engine:cmd=a:b")),
    ("ab=alphabeta:depth=4@nodes=500", Entrant("ab", "alphabeta:depth=4", Budget(nodes=500))),
    ("greedy@time=0.5", Entrant("greedy", "greedy", Budget(time=0.5))),
    ("greedy@none", Entrant("greedy", "greedy", Budget())),
])
def test_a_bot_is_spec_or_name_equals_spec_with_an_optional_budget(text, entrant):
    got = parse_entrant(text)
    assert got == entrant
    assert (got.budget is None) == (entrant.budget is None)


@pytest.mark.parametrize("text, message", [
    ("=random", "bad bot '=random': empty display name before '='"),
    (" = random", "bad bot '= random': empty display name before '='"),
    ("ab=", "bad bot 'ab=': no bot spec"),
    ("", "bad bot '': no bot spec"),
    ("@nodes=5", "bad bot '@nodes=5': no bot spec"),
    ("a@", "budget of bot 'a': empty budget; expected nodes=N, time=SECONDS, depth=D, cpu=SECONDS or "
           "tc=CLOCK, comma-separated, or 'none'"),
    ("x=greedy@nodes=1@depth=2", "budget of bot 'x': bad budget nodes='1@depth=2'; expected a whole number"),
    ("greedy@depth=0", "budget of bot 'greedy': bad budget depth=0; expected a whole number of at least 1"),
])
def test_a_bad_bot_is_refused_naming_it(text, message):
    assert error(parse_entrant, text) == message


def test_a_bot_may_be_a_table_with_spec_name_and_budget():
    assert st._entrant({"spec": " greedy "}) == Entrant("greedy", "greedy")
    assert st._entrant({"spec": "greedy", "name": " g "}) == Entrant("g", "greedy")
    assert st._entrant({"spec": "greedy", "name": "g", "budget": "nodes=3"}) == Entrant("g", "greedy", Budget(nodes=3))
    assert st._entrant({"spec": "greedy", "budget": {"depth": 2}}) == Entrant("greedy", "greedy", Budget(depth=2))
    assert st._entrant({"spec": "greedy", "budget": None}).budget is None
    assert st._entrant("a=random@nodes=2") == Entrant("a", "random", Budget(nodes=2))


@pytest.mark.parametrize("item", [{"spec": "greedy", "nmae": "g"}, {"name": "g"}, {"spec": 5}, {}])
def test_a_bot_table_needs_a_spec_and_no_other_keys(item):
    assert error(st._entrant, item) == (
        f"bad bot entry {item!r}; expected a table with spec and optional name, budget"
    )


@pytest.mark.parametrize("name", [5, "", "  ", None])
def test_a_bot_tables_name_must_be_text(name):
    assert error(st._entrant, {"spec": " greedy ", "name": name}) == f"bad display name {name!r} for bot 'greedy'"


def test_a_bot_tables_budget_is_checked_naming_the_bot():
    assert error(st._entrant, {"spec": "greedy", "name": "g", "budget": "nodes=0"}) == (
        "budget of bot 'g': bad budget nodes=0; expected a whole number of at least 1"
    )


@pytest.mark.parametrize("item", [5, ["random"], None])
def test_a_bot_entry_is_text_or_a_table(item):
    assert error(st._entrant, item) == f"bad bot entry {item!r}; expected a spec string or a table"


# ---- budgets ----------------------------------------------------------------------------------------


def test_a_budget_is_text_a_table_or_a_budget():
    budget = Budget(nodes=7)
    assert st._budget(budget, "budget") is budget
    assert st._budget("nodes=7", "budget") == budget
    assert st._budget({"nodes": 7, "cpu": 1}, "budget") == Budget(nodes=7, cpu=1.0)
    assert st._budget({}, "budget") == Budget()


@pytest.mark.parametrize("value, message", [
    ({"nodes": 7, "moves": 3}, "the budget: unknown budget key 'moves'; keys: nodes, time, depth, cpu, tc"),
    ({"nodes": 0}, "the budget: bad budget nodes=0; expected a whole number of at least 1"),
    ("lots", "the budget: bad budget 'lots'; expected nodes=N, time=SECONDS or depth=D, comma-separated, "
             "cpu=SECONDS for CPU time and tc=[MOVES/]SECONDS[+INCREMENT] for a clock"),
    (5, "the budget: expected text like 'nodes=1000' or a table, got 5"),
    (None, "the budget: expected text like 'nodes=1000' or a table, got None"),
])
def test_a_bad_budget_is_refused_naming_what_it_is_the_budget_of(value, message):
    assert error(st._budget, value, "the budget") == message


# ---- the type checks --------------------------------------------------------------------------------


def test_whole_numbers():
    assert st._int({"k": 3}, "k") == 3 and st._int({"k": -1}, "k") == -1 and st._int({"k": 0}, "k") == 0
    for bad in (True, 3.0, "3", None):
        assert error(st._int, {"k": bad}, "k") == f"k must be a whole number, got {bad!r}"


def test_numbers_are_floats():
    got = st._number({"k": 3}, "k")
    assert got == 3.0 and type(got) is float
    assert st._number({"k": 0.25}, "k") == 0.25
    for bad in (True, "3", None):
        assert error(st._number, {"k": bad}, "k") == f"k must be a number, got {bad!r}"


def test_true_or_false():
    assert st._bool({"k": True}, "k") is True and st._bool({"k": False}, "k") is False
    for bad in (1, 0, "true", None):
        assert error(st._bool, {"k": bad}, "k") == f"k must be true or false, got {bad!r}"


def test_text_is_stripped_and_not_empty():
    assert st._text({"k": " nim "}, "k") == "nim"
    for bad in ("", " \t", 3, None):
        assert error(st._text, {"k": bad}, "k") == f"k must be non-empty text, got {bad!r}"


def test_lists_of_names_are_stripped():
    assert st._texts({"k": [" a ", "b"]}, "k") == ["a", "b"]
    assert st._texts({"k": []}, "k") == []
    for bad in ("a", ["a", 1], ("a",), None):
        assert error(st._texts, {"k": bad}, "k") == f"k must be a list of names, got {bad!r}"


# ---- the clock (tc) ---------------------------------------------------------------------------------

TC_FORM = "expected [MOVES/]SECONDS[+INCREMENT] as fastchess and cutechess write it: 40/60+0.6, 10+0.1, 60 or 1:30+1"


def test_a_clock_given_without_a_budget_is_the_budget_alone():
    merged = settings(None, {"tc": "10+0.1"})
    assert merged == {**DEFAULT_SETTINGS, "tc": "10+0.1", "budget": "none"}  # not the default nodes=2000 too
    budget = build(merged)[0].budget
    assert budget == Budget(tc=TimeControl(10.0, 0.1))
    assert (budget.nodes, budget.time, budget.depth, budget.cpu) == (None, None, None, None)
    assert str(budget) == "tc=10+0.1"


def test_a_clock_given_with_a_budget_is_added_to_it():
    budget = build(settings(None, {"tc": "10+0.1", "budget": "nodes=500"}))[0].budget
    assert budget == Budget(nodes=500, tc=TimeControl(10.0, 0.1)) and str(budget) == "nodes=500,tc=10+0.1"
    assert build(values(budget="depth=4,cpu=2", tc=" 60 "))[0].budget == Budget(depth=4, cpu=2.0, tc="60")
    assert build(values(budget={"nodes": 9}, tc="1:30+1"))[0].budget == Budget(nodes=9, tc=TimeControl(90.0, 1.0))
    # the tc setting's clock in place of one the budget holds
    assert build(values(budget="nodes=5,tc=1", tc="2+0.5"))[0].budget == Budget(nodes=5, tc="2+0.5")


def test_no_clock_leaves_the_budget_as_given():
    assert settings(None, {"tc": None}) == DEFAULT_SETTINGS
    assert build(values())[0].budget == Budget(nodes=2000) and build(values())[0].budget.tc is None


def test_a_clock_and_a_moves_time_are_refused_in_one_line():
    message = error(build, settings(None, {"tc": "10+0.1", "budget": "time=1"}))
    assert message == "tc: give a move's time (time=1) or a clock (tc=10+0.1), not both"
    assert "\n" not in message


@pytest.mark.parametrize("tc, message", [
    ("10+", f"tc: bad time control '10+'; {TC_FORM}"),
    ("abc", f"tc: bad time control 'abc'; {TC_FORM}"),
    ("-5", f"tc: bad time control '-5'; {TC_FORM}"),
    ("10+0.1+1", f"tc: bad time control '10+0.1+1'; {TC_FORM}"),
    ("40/", f"tc: bad time control '40/'; {TC_FORM}"),
    ("0", "tc: bad time control: a clock needs some time (seconds or an increment above 0)"),
    ("0+0", "tc: bad time control: a clock needs some time (seconds or an increment above 0)"),
    ("0/10", "tc: bad time control moves=0; expected a whole number of at least 1"),
    ("", "tc must be a time control such as 10+0.1, got ''"),
    (60, "tc must be a time control such as 10+0.1, got 60"),  # a TOML number, not text
])
def test_a_bad_clock_is_refused_in_one_line_naming_the_expected_form(tc, message):
    got = error(build, settings(None, {"tc": tc}))
    assert got == message and "\n" not in got


def test_a_file_with_a_clock_and_no_budget_plays_the_clock_alone(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('game = "nim"\ntc = "40/60+0.6"\n')
    merged = settings(str(path))
    assert merged["budget"] == "none" and merged["tc"] == "40/60+0.6"
    budget = build(merged)[0].budget
    assert budget == Budget(tc=TimeControl(60.0, 0.6, 40)) and str(budget) == "tc=40/60+0.6"


def test_a_budget_from_the_file_or_the_flags_keeps_the_clock_beside_it(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('tc = "40/60+0.6"\nbudget = "nodes=7"\n')
    assert build(settings(str(path)))[0].budget == Budget(nodes=7, tc="40/60+0.6")
    path.write_text('budget = "depth=3"\n')
    assert build(settings(str(path), {"tc": "10+0.1"}))[0].budget == Budget(depth=3, tc="10+0.1")
    path.write_text('tc = "40/60+0.6"\n')
    assert build(settings(str(path), {"budget": "nodes=9"}))[0].budget == Budget(nodes=9, tc="40/60+0.6")
    assert build(settings(str(path), {"tc": "5"}))[0].budget == Budget(tc="5")  # the flag's clock over the file's


def test_an_sprt_takes_the_clock_as_a_run_does():
    config, _ = build_sprt(settings(None, {"tc": "8+0.08", "new": "alphabeta", "base": "greedy"}, SPRT_SETTINGS))
    assert config.budget == Budget(tc="8+0.08")


def test_a_bots_own_budget_may_hold_a_clock():
    assert parse_entrant("a=greedy@tc=10+0.1") == Entrant("a", "greedy", Budget(tc=TimeControl(10.0, 0.1)))
    assert parse_entrant("greedy@nodes=5,tc=40/60") == Entrant("greedy", "greedy", Budget(nodes=5, tc="40/60"))
    assert error(parse_entrant, "greedy@time=1,tc=10") == (
        "budget of bot 'greedy': give a move's time (time=1) or a clock (tc=10), not both"
    )
    assert error(parse_entrant, "greedy@tc=ten") == f"budget of bot 'greedy': bad time control 'ten'; {TC_FORM}"


# ---- adjudication -----------------------------------------------------------------------------------

DRAW_KEYS = "options: movenumber, movecount, score (e.g. movenumber=40 movecount=8 score=10)"
RESIGN_KEYS = "options: movecount, score, twosided (e.g. movecount=3 score=600)"


def test_draw_resign_and_maxmoves_from_a_file_build_the_adjudication(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('game = "chess"\ndraw = "movenumber=40 movecount=8 score=10"\n'
                    'resign = "movecount=3 score=600 twosided=true"\nmaxmoves = 100\n')
    rules = build(settings(str(path)))[0].adjudication
    assert rules == Adjudication(DrawRule(movenumber=40, movecount=8, score=10),
                                 ResignRule(movecount=3, score=600, twosided=True), maxmoves=100)


def test_each_adjudication_may_be_given_alone_and_none_is_no_adjudication():
    assert build(values())[0].adjudication is None
    assert build(values(maxmoves=60))[0].adjudication == Adjudication(maxmoves=60)
    assert build(values(draw="movecount=3"))[0].adjudication == Adjudication(draw=DrawRule(0, 3, 0))
    assert build(values(resign="score=500,movecount=2"))[0].adjudication == Adjudication(resign=ResignRule(2, 500))
    assert build(values(draw={"score": 20}))[0].adjudication == Adjudication(draw=DrawRule(score=20))  # a TOML table
    assert build(values(resign="twosided=TRUE"))[0].adjudication.resign == ResignRule(twosided=True)


@pytest.mark.parametrize("key, value, message", [
    ("draw", "moves=3", f"unknown draw option 'moves'; {DRAW_KEYS}"),
    ("draw", {"movecount": 3, "twosided": True}, f"unknown draw option 'twosided'; {DRAW_KEYS}"),
    ("resign", "count=3 score=600", f"unknown resign option 'count'; {RESIGN_KEYS}"),
    ("resign", "movecount=3 movenumber=2", f"unknown resign option 'movenumber'; {RESIGN_KEYS}"),
    ("draw", "movecount", "bad draw option 'movecount'; expected KEY=VALUE with KEY one of movenumber, movecount, score"),
    ("resign", "600", "bad resign option '600'; expected KEY=VALUE with KEY one of movecount, score, twosided"),
])
def test_an_unknown_adjudication_option_is_refused_naming_the_options(key, value, message):
    got = error(build, values(**{key: value}))
    assert got == message and "\n" not in got


@pytest.mark.parametrize("key, value, message", [
    ("draw", "movecount=x", "bad draw option movecount='x'; expected a whole number, 0 or more"),
    ("draw", "score=-10", "bad draw option score=-10; expected a whole number, 0 or more"),
    ("draw", "movenumber=1.5", "bad draw option movenumber='1.5'; expected a whole number, 0 or more"),
    ("resign", "twosided=yes", "bad resign option twosided='yes'; expected true or false"),
    ("resign", {"twosided": 1}, "bad resign option twosided=1; expected true or false"),
    ("draw", 5, "bad draw 5; expected KEY=VALUE pairs such as movenumber=40 movecount=8 score=10"),
    ("resign", ["movecount=3"], "bad resign ['movecount=3']; expected KEY=VALUE pairs such as movecount=3 score=600"),
    ("maxmoves", 0, "bad maxmoves 0; expected a whole number of moves, at least 1"),
    ("maxmoves", "40", "maxmoves must be a whole number, got '40'"),
    ("maxmoves", True, "maxmoves must be a whole number, got True"),
])
def test_a_bad_adjudication_value_is_refused_in_one_line(key, value, message):
    got = error(build, values(**{key: value}))
    assert got == message and "\n" not in got


def test_draw_or_resign_for_a_game_of_three_is_refused_when_the_tournament_is_checked():
    registry = get_registry(entry_points=False)
    three = dict(game="rolit:players=3", bots=["a=random", "b=random", "c=greedy"], games=2, openings=0)
    refusal = "draw and resign adjudication read two bots' scores of a zero-sum game; rolit has 3 seats and is not zero-sum"
    for rules in ({"draw": "movecount=8 score=10"}, {"resign": "movecount=3 score=600"}):
        config, _ = build(values(**three, **rules))  # built: the game is looked at when the tournament is checked
        for check in (validate, make_schedule):
            with pytest.raises(ParameterError) as info:
                check(config, registry)
            assert str(info.value) == refusal
    two = build(values(game="rolit:players=2", bots=["random", "greedy"], games=2, openings=0, draw="score=5"))[0]
    with pytest.raises(ParameterError, match="^draw and resign adjudication .*; rolit has 2 seats and is not zero-sum$"):
        validate(two, registry)
    most = build(values(**three, maxmoves=30))[0]  # the maximum length is for every game
    assert validate(most, registry).name == "rolit"
    assert {g.adjudication for g in make_schedule(most, registry).games} == {Adjudication(maxmoves=30)}
    assert validate(build(values(game="chess", bots=["random", "greedy"], games=2, openings=0,
                                 draw="movenumber=40 movecount=8 score=10"))[0], registry).name == "chess"


# ---- build_sprt -------------------------------------------------------------------------------------


def test_an_sprt_is_new_against_base_with_its_test_and_max_games_as_games(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    config, run = build_sprt(sprt_values(new="n=alphabeta@nodes=9", base="greedy", max_games=6))
    assert config == TournamentConfig(
        game="connect4", bots=(Entrant("n", "alphabeta", Budget(nodes=9)), Entrant("greedy", "greedy")),
        budget=Budget(nodes=2000), games_per_pairing=6, opening_plies=4, seed=1,
        format=Sprt(SPRT(0.0, 5.0, 0.05, 0.05, "normalized")), limits=Limits(), isolate=True, name=None,
    )
    assert run == RunSettings(Path("arena-results.db"), 2, None, True)


def test_an_sprt_takes_its_tests_settings():
    config, _ = build_sprt(sprt_values(elo0=-1, elo1=3, alpha=0.1, beta=0.2, model="logistic"))
    assert config.format == Sprt(SPRT(-1.0, 3.0, 0.1, 0.2, "logistic"))
    assert config.games_per_pairing == 2000


def test_an_sprt_has_no_challengers_whatever_the_values_say():
    config, _ = build_sprt(sprt_values(challengers=["alphabeta"]))
    assert config.format.stored() == {"sprt": {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05,
                                               "model": "normalized"}}


@pytest.mark.parametrize("missing, message", [({"new": None}, "give NEW"), ({"base": None}, "give BASE")])
def test_an_sprt_needs_new_and_base(missing, message):
    assert error(build_sprt, sprt_values(**missing)) == (
        f"an SPRT needs two bots, new and base: {message} (arena sprt NEW BASE)"
    )


def test_an_sprt_without_either_bot_names_both():
    expected = "an sprt needs two bots, new and base: give new and base (arena sprt new base)"
    assert error(build_sprt, sprt_values(new=None, base=None)).lower() == expected
    given = sprt_values()
    del given["new"], given["base"]  # keys left out are missing too
    assert error(build_sprt, given).lower() == expected


def test_an_sprt_without_either_bot_says_new_and_base():
    assert error(build_sprt, sprt_values(new=None, base=None)) == (
        "an SPRT needs two bots, new and base: give NEW and BASE (arena sprt NEW BASE)"
    )


def test_an_sprts_bad_test_is_a_config_error():
    assert error(build_sprt, sprt_values(elo1=0.0)) == (
        "bad SPRT hypotheses elo0=0.0, elo1=0.0; elo0 must be less than elo1"
    )
    assert error(build_sprt, sprt_values(elo1="x")) == "elo1 must be a number, got 'x'"


@pytest.mark.parametrize("max_games", [0, 1, 3, -2, 2001])
def test_an_sprts_max_games_must_be_even_and_at_least_two(max_games):
    assert error(build_sprt, sprt_values(max_games=max_games)) == (
        f"max-games must be an even number of at least 2 (games come in pairs), got {max_games}"
    )


@pytest.mark.parametrize("max_games", [2, 4])
def test_the_smallest_sprts_are_two_and_four_games(max_games):
    assert build_sprt(sprt_values(max_games=max_games))[0].games_per_pairing == max_games


def test_an_sprts_max_games_must_be_a_whole_number():
    assert error(build_sprt, sprt_values(max_games="4")) == "max_games must be a whole number, got '4'"
