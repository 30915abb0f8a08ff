"""The settings table (``arena.front.options``), called directly: its rows and their order, each
command's rows and defaults, how a default is shown, the flags ``add_flags`` makes (kind, type,
choices, metavar, help as ``--help`` prints it, "set at creation"), ``overrides`` and
``stored_flags``. Parsers are plain argparse parsers built with ``add_flags``; nothing is run.
"""

from __future__ import annotations

import argparse

import pytest

from arena.formats import formats
from arena.formats.base import Setting
from arena.front import options
from arena.front.options import add_flags, defaults, overrides, rows, shown, stored_flags, table
from arena.limits import DEFAULT_LIMITS
from results.sprt import MODELS

# what a user sees in `arena run --help`, flag by flag: the help text with each default filled in
RUN_HELP = {
    "--name": ("name", "tournament name in the database (default: GAME-BUDGET-HASH of the settings that are not grown)"),
    "--game": ("game", "game spec (default connect4)"),
    "--bot": ("bots", "a bot (repeat); replaces the file's bots (default random greedy minimax:depth=3 "
                      "alphabeta:depth=5 iterative)"),
    "--budget": ("budget", "default per-move budget: nodes=N, time=SECONDS, depth=D, cpu=SECONDS, tc=CLOCK (default nodes=2000)"),
    "--tc": ("tc", "a chess clock for every bot: [MOVES/]SECONDS[+INCREMENT] as fastchess and cutechess write it "
                   "(40/60+0.6, 10+0.1, 60); added to the budget (a bot's own: @tc=...), which is then the clock alone "
                   "unless --budget is given (default: no clock)"),
    "--games": ("games", "games per pairing, even: colours are swapped (default 40)"),
    "--openings": ("openings", "random opening plies per game pair, or an openings file: one opening per line, or a "
                               "chess book in EPD (.epd) or PGN (.pgn); each played twice with colours swapped (default 4)"),
    "--shuffle": ("shuffle", "play the openings file's lines in an order shuffled by --seed, not the file's "
                             "(fastchess's and cutechess's order=random) (default false)"),
    "--plies": ("plies", "with a PGN openings file: the first N plies of each game (default: all)"),
    "--seed": ("seed", "master seed (default 1)"),
    "--draw": ("draw", "draw adjudication, as fastchess's -draw: 'movenumber=M movecount=N score=S' (defaults 0, 1, "
                       "0): from move M, N moves a side with both scores within S centipawns (default: none)"),
    "--resign": ("resign", "resign adjudication, as fastchess's -resign: 'movecount=N score=S [twosided=true]' "
                           "(defaults 1, 0): a bot whose own score is S centipawns down for N moves loses; twosided: "
                           "the winner's score agrees (default: none)"),
    "--maxmoves": ("maxmoves", "draw a game once each side has made N moves, as fastchess's -maxmoves (default: no "
                               "limit)"),
    "--format": ("format", "tournament format (default round-robin)"),
    "--challenger": ("challengers", "gauntlet challenger (repeat; default none)"),
    "--rounds": ("rounds", "rounds of a swiss, each pairing one opening with both colours (default none: give it "
                           "with --format swiss)"),
    "--confidence": ("confidence", "a race drops a bot worse than the leader at this confidence (default 0.95)"),
    "--max-games": ("max_games", "a race's games budget (default 1000)"),
    "--time-margin": ("time_margin", "grace past a time budget (default 0.1)"),
    "--no-isolation": ("isolate", "run bots in the arena's own processes, not each in a supervised process of its "
                                  "own: faster, but a hung or crashing bot is not contained (default: isolated)"),
    "--sandbox": ("sandbox", "run every bot process under bubblewrap: no network, no files but its own and a "
                             "scratch folder (default: not sandboxed)"),
    "--trusted": ("trusted", "let bots play a game of hidden information or simultaneous moves in the arena's own "
                             "process (with --no-isolation), where they could read what is hidden: only for bots you "
                             "trust (default: not trusted)"),
    "--independent-chance": ("independent_chance", "in a game with chance, give every game dice of its own; by "
                                                   "default a pair's two games draw the same outcomes seat by seat, "
                                                   "so the luck cancels (default: duplicate chance)"),
    "--watchdog": ("watchdog", "limit on a move without a time budget, and on start-up (default 60)"),
    "--memory-limit": ("memory_limit", "memory limit per bot process (default 1024; 0: none)"),
    "--output-limit": ("output_limit", "stdout+stderr limit per bot and game (default 1024)"),
    "--db": ("database", "results database, SQLite (default arena-results.db)"),
    "--jobs": ("jobs", "worker processes (default: the number of CPUs)"),
    "--dask": ("dask", "run on a Dask cluster: tcp://HOST:PORT, or 'local' (default: this machine's processes)"),
    "--affinity": ("affinity", "run each worker process, with the bots and engines it starts, on one CPU of its own "
                               "(as fastchess's -use-affinity): fewer wake-ups across CPUs, for a machine the run has "
                               "to itself; not with --dask (default: any CPU)"),
    "--no-progress": ("progress", "no progress bar (default: a bar on stderr)"),
}


def parser_for(command: str, values=None, skip=()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"arena {command}", exit_on_error=False)
    add_flags(parser, command, defaults(command) if values is None else values, skip)
    return parser


def actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The parser's actions by flag, without argparse's own --help."""
    return {a.option_strings[0]: a for a in parser._actions if a.option_strings and a.dest != "help"}


def helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    return {flag: a.help for flag, a in actions(parser).items()}


def row(key: str, **changes) -> Setting:
    """A made-up row (for a table patched to hold a case the real one does not)."""
    return Setting(key, changes.pop("kind", "text"), changes.pop("default", None), changes.pop("help", "h"), **changes)


# ---- table, rows, defaults ----------------------------------------------------------------------


def test_the_table_lists_the_common_rows_then_each_formats_then_the_limits_then_how_a_run_runs():
    keys = [r.key for r in table()]
    assert keys == [  # the order of --help and of every message that lists settings
        "name", "game", "bots", "budget", "tc", "games", "openings", "shuffle", "plies", "seed", "draw", "resign",
        "maxmoves", "format",
        "challengers",  # gauntlet
        "elo0", "elo1", "alpha", "beta", "model", "max_games",  # sprt
        "rounds",  # swiss
        "confidence", "max_games",  # race
        "placement", "batch",  # ladder
        "time_margin", "isolate", "sandbox", "trusted", "independent_chance", "watchdog", "memory_limit", "output_limit",
        "database", "jobs", "dask", "affinity", "progress", "new", "base",
    ]


def test_the_table_holds_the_formats_own_row_objects_in_registry_order():
    own = [r for cls in formats().values() for r in cls.settings]
    rows_ = table()
    assert isinstance(rows_, tuple)
    assert rows_[13].key == "format"
    assert list(rows_[14:14 + len(own)]) == own
    assert all(a is b for a, b in zip(rows_[14:14 + len(own)], own))


def test_rows_of_run_are_its_settings_in_table_order_without_other_commands_rows():
    assert [r.key for r in rows("run")] == [
        "name", "game", "bots", "budget", "tc", "games", "openings", "shuffle", "plies", "seed", "draw", "resign",
        "maxmoves", "format", "challengers", "rounds",
        "confidence", "max_games", "time_margin", "isolate", "sandbox", "trusted", "independent_chance", "watchdog", "memory_limit", "output_limit",
        "database", "jobs", "dask", "affinity", "progress",
    ]
    race_max_games = [r for r in table() if r.key == "max_games"][1]
    assert [r for r in rows("run") if r.key == "max_games"][0] is race_max_games


def test_rows_of_sprt_take_the_sprt_formats_max_games_and_the_two_bots():
    sprt_rows = rows("sprt")
    assert [r.key for r in sprt_rows] == [
        "name", "game", "budget", "tc", "openings", "shuffle", "plies", "seed", "draw", "resign", "maxmoves", "elo0",
        "elo1", "alpha", "beta", "model", "max_games", "time_margin", "isolate", "sandbox", "trusted", "independent_chance", "watchdog", "memory_limit", "output_limit", "database", "jobs", "dask",
        "affinity", "progress", "new", "base",
    ]
    assert next(r for r in sprt_rows if r.key == "max_games").default == 2000


def test_rows_of_a_command_nothing_takes_are_empty():
    assert rows("report") == []


def test_rows_keep_only_the_first_row_of_a_key_listed_twice(monkeypatch):
    first, second, other = row("a", help="first"), row("a", help="second"), row("b")
    monkeypatch.setattr(options, "table", lambda: (first, second, other))
    got = rows("run")
    assert len(got) == 2 and got[0] is first and got[1] is other


def test_rows_skip_a_key_another_command_took_first_without_hiding_it(monkeypatch):
    sprt_only, run_too = row("a", commands=("sprt",)), row("a", help="run's")
    monkeypatch.setattr(options, "table", lambda: (sprt_only, run_too))
    assert rows("run") == [run_too]
    assert rows("sprt") == [sprt_only]


def test_run_defaults_are_every_toml_key_of_run_with_its_default():
    expected = {
        "name": None, "game": "connect4",
        "bots": ["random", "greedy", "minimax:depth=3", "alphabeta:depth=5", "iterative"],
        "budget": "nodes=2000", "tc": None, "games": 40, "openings": 4, "shuffle": False, "plies": None, "seed": 1,
        "draw": None, "resign": None, "maxmoves": None, "format": "round-robin", "challengers": [], "rounds": None, "confidence": None, "max_games": None,
        "time_margin": DEFAULT_LIMITS.time_margin, "isolate": True, "sandbox": False, "trusted": False, "independent_chance": False,
        "watchdog": DEFAULT_LIMITS.watchdog, "memory_limit": DEFAULT_LIMITS.memory_limit,
        "output_limit": DEFAULT_LIMITS.output_limit, "database": "arena-results.db", "jobs": None,
    }
    assert defaults("run") == expected
    assert list(defaults("run")) == list(expected)  # the order of the table
    assert defaults() == expected  # run is the default command


def test_flag_only_settings_are_not_defaults_of_a_file():
    for command in ("run", "sprt", "ladder"):
        assert not {"dask", "affinity", "progress"} & set(defaults(command))
    assert {r.key for r in rows("run") if r.flag_only} == {"dask", "affinity", "progress"}


def test_sprt_ladder_and_play_defaults():
    assert defaults("sprt") == {
        "name": None, "game": "connect4", "budget": "nodes=2000", "tc": None, "openings": 4, "shuffle": False,
        "plies": None, "seed": 1, "draw": None, "resign": None, "maxmoves": None, "elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "model": "normalized", "max_games": 2000,
        "time_margin": 0.1, "isolate": True, "sandbox": False, "trusted": False, "independent_chance": False,
        "watchdog": 60.0, "memory_limit": 1024,
        "output_limit": 1024, "database": "arena-results.db", "jobs": None, "new": None, "base": None,
    }
    assert defaults("ladder") == {
        "game": "connect4", "budget": "nodes=2000", "tc": None, "openings": 4, "shuffle": False, "plies": None,
        "seed": 1, "draw": None, "resign": None, "maxmoves": None, "placement": 4,
        "batch": None, "time_margin": 0.1, "isolate": True, "sandbox": False, "trusted": False, "independent_chance": False,
        "watchdog": 60.0, "memory_limit": 1024,
        "output_limit": 1024, "jobs": None,
    }
    assert defaults("play") == {"budget": "nodes=2000", "tc": None, "time_margin": 0.1, "isolate": True, "sandbox": False,
                                "trusted": False, "watchdog": 60.0}


# ---- shown ----------------------------------------------------------------------------------------


def test_none_is_shown_as_none_or_as_the_rows_words_for_it():
    assert shown(None) == "none"
    assert shown(None, row("x", none="the number of CPUs")) == "the number of CPUs"
    assert shown(None, row("x")) == "none"  # a row's own default wording


def test_true_and_false_are_shown_with_the_rows_words_where_it_has_some():
    worded = row("x", words=("isolated", "not isolated"))
    assert shown(True, worded) == "isolated"
    assert shown(False, worded) == "not isolated"


def test_true_and_false_without_words_are_shown_as_typed():
    assert shown(True) == "true" and shown(False) == "false"
    assert shown(True, row("x")) == "true" and shown(False, row("x")) == "false"


def test_words_are_only_for_true_and_false():
    worded = row("x", words=("on", "off"), none="unset")
    assert shown(1, worded) == "1" and shown(0, worded) == "0"
    assert shown("yes", worded) == "yes"


def test_floats_are_shown_without_a_trailing_zero():
    assert shown(60.0) == "60"
    assert shown(0.1) == "0.1"
    assert shown(0.05) == "0.05"
    assert shown(1e-07) == "1e-07"


def test_lists_are_shown_space_separated_each_as_typed_and_empty_as_none():
    assert shown(["random", "alphabeta:depth=5"]) == "random alphabeta:depth=5"
    assert shown([]) == "none"
    assert shown([]) == shown([], row("x", none="no bots"))  # an empty list is never the row's None wording
    assert shown([2.0, True, None, 3]) == "2 true none 3"
    assert shown(["only"]) == "only"


def test_a_table_is_shown_as_key_value_pairs_joined_by_commas():
    assert shown({"spec": "alphabeta", "depth": 4, "ordering": False, "extra": None}) == (
        "spec=alphabeta,depth=4,ordering=false,extra=none"
    )
    assert shown({"nodes": 500}) == "nodes=500"
    assert shown({}) == ""


def test_other_values_are_shown_as_a_spec_would_type_them():
    assert shown(40) == "40"
    assert shown("connect4") == "connect4"
    assert shown((3, 4, 5)) == "3,4,5"


# ---- add_flags --------------------------------------------------------------------------------------


def test_run_flags_and_their_help_are_the_tables_in_order():
    got = actions(parser_for("run"))
    assert list(got) == list(RUN_HELP)
    assert {flag: (a.dest, a.help) for flag, a in got.items()} == RUN_HELP


def test_every_flag_is_none_when_not_given():
    namespace = parser_for("run").parse_args([])
    assert vars(namespace) == {dest: None for dest, _ in RUN_HELP.values()}


def test_the_help_shows_the_values_given_not_the_tables_defaults():
    values = {"game": "othello:size=6", "bots": ["mcts:playouts=7", "greedy"], "games": 38, "isolate": False,
              "sandbox": True, "shuffle": True, "watchdog": 42.5, "jobs": 3, "name": "nightly", "challengers": ["x"],
              "tc": "40/60+0.6", "draw": "movecount=8 score=10", "maxmoves": 77}
    got = helps(parser_for("run", values))
    assert got["--game"] == "game spec (default othello:size=6)"
    assert got["--bot"] == "a bot (repeat); replaces the file's bots (default mcts:playouts=7 greedy)"
    assert got["--games"] == "games per pairing, even: colours are swapped (default 38)"
    assert got["--no-isolation"].endswith("(default: not isolated)")
    assert got["--sandbox"].endswith("(default: sandboxed)")
    assert got["--shuffle"].endswith("(default true)")
    assert got["--watchdog"] == "limit on a move without a time budget, and on start-up (default 42.5)"
    assert got["--jobs"] == "worker processes (default: 3)"
    assert got["--name"] == "tournament name in the database (default: nightly)"
    assert got["--challenger"] == "gauntlet challenger (repeat; default x)"
    assert got["--tc"].endswith("unless --budget is given (default: 40/60+0.6)")
    assert got["--draw"].endswith("within S centipawns (default: movecount=8 score=10)")
    assert got["--maxmoves"] == "draw a game once each side has made N moves, as fastchess's -maxmoves (default: 77)"


def test_a_key_missing_from_the_values_shows_the_rows_own_default():
    got = helps(parser_for("run", {}))
    assert got == {flag: text for flag, (_, text) in RUN_HELP.items()}


def test_play_flags_are_the_budget_the_clock_and_the_limits():
    got = helps(parser_for("play"))
    assert got == {flag: RUN_HELP[flag][1] for flag in
                   ("--budget", "--tc", "--time-margin", "--no-isolation", "--sandbox", "--trusted", "--watchdog")}


def test_skipped_keys_get_no_flag_and_the_flags_after_them_still_do():
    got = actions(parser_for("run", skip=("games", "isolate")))
    assert list(got) == [flag for flag in RUN_HELP if flag not in ("--games", "--no-isolation")]


def test_sprt_bots_are_table_rows_without_a_flag():
    got = actions(parser_for("sprt"))
    assert list(got) == [
        "--name", "--game", "--budget", "--tc", "--openings", "--shuffle", "--plies", "--seed", "--draw", "--resign",
        "--maxmoves", "--elo0", "--elo1", "--alpha", "--beta", "--model", "--max-games", "--time-margin", "--no-isolation", "--sandbox", "--trusted", "--independent-chance",
        "--watchdog", "--memory-limit",
        "--output-limit", "--db", "--jobs", "--dask", "--affinity", "--no-progress",
    ]
    assert "new" not in {a.dest for a in got.values()} and "base" not in {a.dest for a in got.values()}


def test_sprt_help_shows_the_tests_defaults():
    got = helps(parser_for("sprt"))
    assert got["--elo0"] == "Elo difference under H0 (default 0)"
    assert got["--elo1"] == "Elo difference under H1, more than elo0 (default 5)"
    assert got["--alpha"] == "chance of accepting H1 when H0 holds (default 0.05)"
    assert got["--model"] == "the Elo of elo0 and elo1 (default normalized)"
    assert got["--max-games"] == "stop undecided after N games, even (default 2000)"


def test_on_and_off_flags_take_no_value_and_set_true_or_false():
    parser = parser_for("run")
    given = parser.parse_args(["--shuffle", "--sandbox", "--no-isolation", "--no-progress"])
    assert (given.shuffle, given.sandbox, given.isolate, given.progress) == (True, True, False, False)
    with pytest.raises(argparse.ArgumentError):
        parser.parse_args(["--shuffle=yes"])
    kinds = {flag: type(a).__name__ for flag, a in actions(parser).items()}
    assert kinds["--shuffle"] == kinds["--sandbox"] == "_StoreTrueAction"
    assert kinds["--no-isolation"] == kinds["--no-progress"] == "_StoreFalseAction"


def test_int_and_float_flags_are_read_as_numbers_of_their_kind():
    given = parser_for("run").parse_args(
        ["--games", "4", "--seed", "-3", "--time-margin", "1", "--watchdog", "2.5", "--confidence", "1",
         "--memory-limit", "0", "--max-games", "10", "--rounds", "3", "--jobs", "2", "--output-limit", "5",
         "--plies", "8", "--maxmoves", "120"]
    )
    assert (given.games, given.seed, given.max_games, given.rounds, given.jobs) == (4, -3, 10, 3, 2)
    assert (given.memory_limit, given.output_limit, given.plies, given.maxmoves) == (0, 5, 8, 120)
    assert all(type(v) is int for v in (given.games, given.seed, given.memory_limit, given.max_games, given.rounds,
                                         given.jobs, given.output_limit, given.plies, given.maxmoves))
    assert (given.time_margin, given.watchdog, given.confidence) == (1.0, 2.5, 1.0)
    assert all(type(v) is float for v in (given.time_margin, given.watchdog, given.confidence))
    with pytest.raises(argparse.ArgumentError, match="invalid int value: '4.5'"):
        parser_for("run").parse_args(["--games", "4.5"])
    with pytest.raises(argparse.ArgumentError, match="invalid int value: 'ten'"):
        parser_for("run").parse_args(["--maxmoves", "ten"])


def test_text_flags_are_kept_as_typed():
    given = parser_for("run").parse_args(["--openings", "7", "--game", "nim", "--name", "n", "--db", "x.db",
                                          "--dask", "local", "--budget", "time=1", "--tc", "40/60+0.6",
                                          "--draw", "movenumber=40 movecount=8", "--resign", "score=600"])
    assert (given.openings, given.game, given.name, given.database, given.dask, given.budget) == (
        "7", "nim", "n", "x.db", "local", "time=1")
    assert (given.tc, given.draw, given.resign) == ("40/60+0.6", "movenumber=40 movecount=8", "score=600")


def test_a_texts_flag_is_given_once_per_item():
    given = parser_for("run").parse_args(["--bot", "random", "--bot", "ab=alphabeta", "--challenger", "ab"])
    assert given.bots == ["random", "ab=alphabeta"] and given.challengers == ["ab"]


def test_metavars_come_from_the_table_and_the_rest_from_the_dest():
    got = actions(parser_for("run"))
    assert {flag: a.metavar for flag, a in got.items() if a.metavar is not None} == {
        "--bot": "[NAME=]SPEC[@BUDGET]", "--tc": "CLOCK", "--openings": "PLIES|FILE", "--plies": "N",
        "--draw": "RULES", "--resign": "RULES", "--maxmoves": "N", "--challenger": "NAME", "--rounds": "R",
        "--max-games": "N", "--time-margin": "SECONDS", "--watchdog": "SECONDS", "--memory-limit": "MIB",
        "--output-limit": "KIB", "--dask": "ADDRESS",
    }


def test_the_format_choices_are_the_formats_run_by_the_command():
    got = actions(parser_for("run"))
    assert tuple(got["--format"].choices) == ("round-robin", "gauntlet", "swiss", "race")
    assert parser_for("run").parse_args(["--format", "swiss"]).format == "swiss"
    with pytest.raises(argparse.ArgumentError, match="invalid choice: 'sprt'"):
        parser_for("run").parse_args(["--format", "sprt"])


def test_a_choice_row_with_its_own_choices_keeps_them():
    got = actions(parser_for("sprt"))
    assert tuple(got["--model"].choices) == MODELS == ("normalized", "logistic")
    assert parser_for("sprt").parse_args(["--model", "logistic"]).model == "logistic"


def test_only_choice_rows_get_choices_and_only_numbers_get_a_type():
    got = actions(parser_for("run"))
    assert [flag for flag, a in got.items() if a.choices is not None] == ["--format"]
    assert {flag: a.type for flag, a in got.items() if a.type is not None} == {
        "--games": int, "--plies": int, "--seed": int, "--maxmoves": int, "--rounds": int, "--confidence": float, "--max-games": int,
        "--time-margin": float, "--watchdog": float, "--memory-limit": int, "--output-limit": int, "--jobs": int,
    }
    assert [flag for flag, a in got.items() if type(a).__name__ == "_AppendAction"] == ["--bot", "--challenger"]


def test_the_ladder_marks_the_settings_it_fixes_at_creation():
    got = helps(parser_for("ladder"))
    assert got["--game"] == "game spec (default connect4), set at creation"
    assert got["--seed"] == "master seed (default 1), set at creation"
    assert got["--no-isolation"].endswith("(default: isolated), set at creation")
    assert got["--jobs"] == "worker processes (default: the number of CPUs)"  # how it runs: not fixed
    assert got["--no-progress"] == "no progress bar (default: a bar on stderr)"
    fixed = [flag for flag, text in got.items() if text.endswith(", set at creation")]
    assert fixed == ["--game", "--budget", "--tc", "--openings", "--shuffle", "--plies", "--seed", "--draw", "--resign",
                     "--maxmoves", "--placement", "--batch",
                     "--time-margin", "--no-isolation", "--sandbox", "--trusted", "--independent-chance", "--watchdog",
                     "--memory-limit", "--output-limit"]


def test_commands_that_create_nothing_mark_nothing_set_at_creation():
    for command in ("run", "sprt", "play"):
        assert not any("set at creation" in text for text in helps(parser_for(command)).values()), command


def test_a_ladder_flag_says_set_at_creation_once():
    got = helps(parser_for("ladder"))
    assert got["--placement"].count("set at creation") == 1
    assert got["--batch"].count("set at creation") == 1


# ---- overrides ----------------------------------------------------------------------------------------


def test_overrides_are_every_flag_setting_by_key_none_when_not_given():
    given = parser_for("run").parse_args(["--games", "6", "--no-isolation", "--bot", "a", "--dask", "local"])
    got = overrides(given, "run")
    assert list(got) == [dest for dest, _ in RUN_HELP.values()]
    assert got == {**{dest: None for dest, _ in RUN_HELP.values()}, "games": 6, "isolate": False, "bots": ["a"],
                   "dask": "local"}


def test_overrides_leave_out_settings_without_a_flag_and_read_missing_ones_as_none():
    args = argparse.Namespace(elo0=1.5, new="ignored", base="ignored")
    got = overrides(args, "sprt")
    assert "new" not in got and "base" not in got
    assert got["elo0"] == 1.5
    assert {k for k, v in got.items() if v is not None} == {"elo0"}
    assert len(got) == 30


def test_overrides_of_play_are_its_seven_settings():
    args = argparse.Namespace(budget="nodes=5", watchdog=None)
    assert overrides(args, "play") == {"budget": "nodes=5", "tc": None, "time_margin": None, "isolate": None, "sandbox": None,
                                       "trusted": None, "watchdog": None}


# ---- stored_flags -------------------------------------------------------------------------------------


def test_each_stored_key_is_named_by_its_run_flags_or_else_every_commands():
    assert stored_flags() == {
        "game": "--game", "bots": "--bot", "budget": "--budget/--tc", "games_per_pairing": "--games",
        "opening_plies": "--openings", "opening_book": "--openings/--shuffle/--plies", "seed": "--seed",
        "adjudication": "--draw/--resign/--maxmoves", "format": "--format",
        "challengers": "--challenger", "sprt": "--elo0/--elo1/--alpha/--beta/--model", "rounds": "--rounds",
        "race": "--confidence/--max-games", "time_margin": "--time-margin", "isolate": "--no-isolation",
        "sandbox": "--sandbox", "trusted": "--trusted", "independent_chance": "--independent-chance", "watchdog": "--watchdog", "memory_limit": "--memory-limit",
        "output_limit": "--output-limit",
    }
    assert list(stored_flags())[:9] == ["game", "bots", "budget", "games_per_pairing", "opening_plies", "opening_book",
                                        "seed", "adjudication", "format"]  # the table's order


def test_a_flag_is_named_once_and_rows_without_a_flag_not_at_all(monkeypatch):
    fake = (row("a", stored=("k",)), row("b", flag="--a", stored=("k",)), row("c", flag=None, stored=("k", "m"), commands=("sprt",)),
            row("d", stored=("m",), commands=("sprt",)), row("e", stored=("m",), commands=("sprt",)))
    monkeypatch.setattr(options, "table", lambda: fake)
    assert stored_flags() == {"k": "--a", "m": "--d/--e"}

