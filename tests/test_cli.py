"""The arena command line: listings, play, and one-line errors."""

import json
import subprocess
import sys

import pytest

from arena.front.cli import main
from arena.referee import ask


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_games_listing_shows_descriptions_and_parameters(capsys):
    code, out, err = run(capsys, "games")
    assert code == 0
    assert "connect4" in out and "columns=7 (int)" in out
    assert "nim" in out and "heaps=3,4,5 (tuple[int])" in out  # as typed in a spec


def test_json_listings_for_scripts(capsys):
    code, out, _ = run(capsys, "bots", "--json")
    assert code == 0
    bots = {b["name"]: b for b in json.loads(out)}
    assert {"random", "greedy", "minimax", "alphabeta", "iterative", "human"} <= set(bots)
    assert bots["alphabeta"]["plugin"] == "bots.builtin"
    assert {p["name"] for p in bots["alphabeta"]["parameters"]} == {"depth", "ordering", "table", "table_size", "window"}
    assert bots["star1"]["handles"] == ["chance"] and bots["alphabeta"]["handles"] == []
    code, out, _ = run(capsys, "games", "--json")
    games = {g["name"]: g for g in json.loads(out)}
    assert games["counting"]["parameters"][0]["choices"] == ["21", "22"]
    assert games["pig"]["features"] == ["chance"] and games["nim"]["features"] == []
    code, out, _ = run(capsys, "games")
    assert "first to the goal wins (with chance)" in out and "connect4" in out and "(with" not in out.split("pig")[0]
    code, out, _ = run(capsys, "bots")
    assert "Star1 *-minimax" in out and "(plays games with chance)" in out


@pytest.mark.processes
def test_play_shows_every_board_and_the_result(capsys):
    code, out, err = run(
        capsys, "play", "tictactoe", "--bot", "alphabeta:depth=9", "--bot", "minimax:depth=9", "--seed", "3", "--budget", "none"
    )
    assert code == 0, err
    assert "tictactoe: X: alphabeta:depth=9  vs  O: minimax:depth=9  (budget none, seed 3)" in out
    assert out.count("\nmove ") == 9  # perfect play fills the board
    # the arena's own count of the bot's first search (table and ordering: b2, the centre)
    from arena import get_registry

    game, bot = get_registry().game("tictactoe"), get_registry().bot("alphabeta:depth=9")
    bot.new_game(game, 0, 1)
    decision, counter = ask(bot, game, game.initial_state())
    assert game.format_move(decision.move) == "b2"
    assert f"move 1: X (alphabeta:depth=9) plays b2  ({counter.nodes} nodes, " in out
    assert "result 1/2-1/2 (normal): draw" in out


@pytest.mark.processes
def test_play_with_game_parameters_and_budget(capsys):
    code, out, err = run(
        capsys, "play", "connect4:columns=5,rows=4", "--bot", "iterative", "--bot", "random", "--budget", "nodes=200", "--quiet"
    )
    assert code == 0, err
    assert "1 2 3 4 5" in out and "budget nodes=200" in out
    assert "result " in out


@pytest.mark.processes
def test_play_with_a_clock_gives_each_bot_the_clock_alone_or_beside_the_budget_given(capsys):
    base = ("play", "tictactoe", "--bot", "random", "--bot", "random", "--seed", "3", "--quiet")
    code, out, err = run(capsys, *base, "--tc", "10+0.1")
    assert code == 0, err
    assert "tictactoe: X: random  vs  O: random  (budget tc=10+0.1, seed 3)" in out
    code, out, err = run(capsys, *base, "--tc", "40/60+0.6", "--budget", "nodes=50")
    assert code == 0, err
    assert "(budget nodes=50,tc=40/60+0.6, seed 3)" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "conect4", "--bot", "random", "--bot", "random"], "unknown game 'conect4'; did you mean 'connect4'"),
        (["play", "nim", "--bot", "randum", "--bot", "random"], "unknown bot 'randum'; did you mean 'random'? (arena bots lists them)"),
        (["play", "nim", "--bot", "xyzzy", "--bot", "random"], "unknown bot 'xyzzy' (arena bots lists them)"),
        (["play", "nim", "--bot", "random"], "play needs exactly two --bot options, got 1"),
        (["play", "connect4:columns=0", "--bot", "random", "--bot", "random"], "parameter 'columns' of game 'connect4'"),
        (["play", "nim", "--bot", "alphabeta:depth=x", "--bot", "random"], "bad value 'x' for parameter 'depth' of bot 'alphabeta'"),
        (["play", "nim", "--bot", "alphabeta:deep=3", "--bot", "random"], "unknown parameter 'deep' for bot 'alphabeta'; parameters: depth, ordering, table, table_size, window"),
        (["play", "nim", "--bot", "random", "--bot", "random", "--budget", "nodes=0"], "bad budget nodes=0"),
        (["play", "nim", "--bot", "random", "--bot", "random", "--budget", "fast"], "bad budget 'fast'"),
        (["play", "nim", "--bot", "random", "--bot", "random", "--seed", "x"], "argument --seed: invalid int value"),
        (["play", "nim", "--bot", "random", "--bot", "random", "--tc", "10+"], "bad time control '10+'; expected "
                                                                               "[MOVES/]SECONDS[+INCREMENT]"),
        (["dance"], "unknown command 'dance'; commands: games, bots, play, run, sprt, ladder, report, list, show, export, tree, "
                   "exploit"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("arena: error: ")
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


# a mistyped flag of each subcommand (and of the top level), and the one line naming it
MISTYPED_FLAGS = {
    "arena": (["--verison"], "--verison", "--version"),
    "games": (["games", "--jsno"], "--jsno", "--json"),
    "bots": (["bots", "--jsn"], "--jsn", "--json"),
    "play": (["play", "nim", "--bto", "random", "--bot", "random"], "--bto", "--bot"),
    "run": (["run", "--gmaes", "4"], "--gmaes", "--games"),
    "sprt": (["sprt", "alphabeta", "random", "--elo2", "3"], "--elo2", "--elo1"),
    "ladder": (["ladder", "l.db", "--remvoe", "a"], "--remvoe", "--remove"),
    "report": (["report", "r.db", "--fromat", "csv"], "--fromat", "--format"),
    "list": (["list", "r.db", "--resutl", "win"], "--resutl", "--result"),
    "show": (["show", "r.db", "1", "--tournamnet", "t"], "--tournamnet", "--tournament"),
    "export": (["export", "r.db", "--tournamnet", "t", "--pgn", "-"], "--tournamnet", "--tournament"),
    "tree": (["tree", "nim", "--bot", "minimax", "--mvoes", "1"], "--mvoes", "--moves"),
    "exploit": (["exploit", "uniform", "--game", "kuhn_poker", "--svae", "s.json"], "--svae", "--save"),
}


def test_every_subcommand_has_a_mistyped_flag_case():
    from arena.front.cli import build_parser

    [commands] = [a.choices for a in build_parser()._actions if a.dest == "command"]
    assert set(MISTYPED_FLAGS) == {"arena", *commands}


@pytest.mark.parametrize("command", sorted(MISTYPED_FLAGS))
def test_a_mistyped_flag_is_named_with_the_nearest_flag_of_its_subcommand(capsys, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    argv, typed, meant = MISTYPED_FLAGS[command]
    prog = "arena" if command == "arena" else f"arena {command}"
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err == f"arena: error: unknown flag {typed!r} for {prog!r}; did you mean {meant!r}? (see '{prog} --help')\n"
    assert list(tmp_path.iterdir()) == []  # refused before anything is opened or written


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "--gmaes=4"], "unknown flag '--gmaes' for 'arena run'; did you mean '--games'? (see 'arena run --help')"),
        (["run", "-games", "4"], "unknown flag '-games' for 'arena run'; did you mean '--games'? (see 'arena run --help')"),
        (["run", "--xyzzy"], "unknown flag '--xyzzy' for 'arena run' (see 'arena run --help')"),
        (["run", "--gmaes", "4", "--xyzzy", "--bto", "random"],
         "unknown flags for 'arena run': '--gmaes' (did you mean '--games'?), '--xyzzy', '--bto' (did you mean '--bot'?) "
         "(see 'arena run --help')"),
        (["--verison", "run"], "unknown flag '--verison' for 'arena'; did you mean '--version'? (see 'arena --help')"),
        (["show", "r.db", "1", "2"], "unrecognized arguments: 2 (see 'arena show --help')"),
        (["rnu", "--games", "4"], "unknown command 'rnu'; did you mean 'run'? (see 'arena --help')"),
        (["run", "--format", "gauntlett"],
         "argument --format: invalid choice: 'gauntlett'; did you mean 'gauntlet'? (see 'arena run --help')"),
        (["list", "r.db", "--result", "xyz"], "argument --result: invalid choice: 'xyz' (choose from "),
    ],
)
def test_unknown_flags_commands_and_choices_are_one_line_with_a_suggestion(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.startswith(f"arena: error: {message}") and err.count("\n") == 1, err


def test_an_openspiel_game_without_openspiel_names_the_extra(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open-spiel were not installed
    code, out, err = run(capsys, "play", "openspiel.hex:board_size=7", "--bot", "random", "--bot", "random")
    assert code == 2
    assert err == "arena: error: the game 'openspiel.hex' needs OpenSpiel: pip install 'botarena[openspiel]'\n"


@pytest.mark.processes
def test_console_script_and_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "arena", "games"], capture_output=True, text=True, check=True).stdout
    assert "othello" in out
    bad = subprocess.run([sys.executable, "-m", "arena", "play", "go"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr and "unknown game 'go'" in bad.stderr


@pytest.mark.processes
def test_human_is_prompted_again_after_bad_input():
    # The person types garbage first, then tries every cell in order: occupied cells are
    # refused with the legal moves listed, until the game ends.
    typed = "zz\n" + "\n".join(["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"] * 5) + "\n"
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "play", "tictactoe", "--bot", "human", "--bot", "alphabeta:depth=9", "--seed", "1"],
        input=typed,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "X to move; legal: a1 b1 c1 a2 b2 c2 a3 b3 c3" in proc.stdout
    assert "cannot read 'zz' as a move in tictactoe" in proc.stdout
    assert "is not legal here; legal:" in proc.stdout
    assert "result 0-1" in proc.stdout or "result 1/2-1/2" in proc.stdout  # alphabeta never loses


@pytest.mark.processes
def test_human_leaving_ends_the_program_cleanly():
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "play", "tictactoe", "--bot", "human", "--bot", "random"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 130
    assert "interrupted" in proc.stderr and "Traceback" not in proc.stderr


def test_version_is_the_distribution_version(capsys):
    import tomllib
    from pathlib import Path

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    version = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]["version"]
    assert capsys.readouterr().out == f"arena {version}\n"


# each setting and the run flag that overrides it
RUN_FLAGS = {
    "name": "--name", "game": "--game", "bots": "--bot", "budget": "--budget", "tc": "--tc", "games": "--games",
    "openings": "--openings", "shuffle": "--shuffle", "plies": "--plies", "seed": "--seed", "draw": "--draw",
    "resign": "--resign", "maxmoves": "--maxmoves", "format": "--format", "challengers": "--challenger",
    "time_margin": "--time-margin", "isolate": "--no-isolation", "sandbox": "--sandbox", "trusted": "--trusted", "watchdog": "--watchdog",
    "independent_chance": "--independent-chance", "memory_limit": "--memory-limit", "output_limit": "--output-limit", "database": "--db", "jobs": "--jobs",
    "rounds": "--rounds", "confidence": "--confidence", "max_games": "--max-games",
}


def _flag_helps(command: str) -> dict[str, str]:
    from arena.front.cli import build_parser

    parser = build_parser()._subparsers._group_actions[0].choices[command]
    return {flag: action.help for action in parser._actions for flag in action.option_strings}


def test_run_help_shows_every_default_taken_from_the_settings(monkeypatch):
    from arena.front.settings import DEFAULT_SETTINGS

    assert set(RUN_FLAGS) == set(DEFAULT_SETTINGS)  # a new setting needs its flag here
    odd = {  # values no help text could hold by accident: each must come from DEFAULT_SETTINGS
        "name": "nightly", "game": "othello:size=6", "bots": ["random", "mcts:playouts=77"], "budget": "nodes=777",
        "games": 38, "openings": 3, "shuffle": True, "seed": 4242, "format": "gauntlet", "challengers": ["mcts"],
        "time_margin": 0.35, "isolate": False, "sandbox": True, "trusted": True, "independent_chance": True,
        "watchdog": 42.5, "memory_limit": 777, "output_limit": 99,
        "database": "nightly.db", "jobs": 3, "rounds": 9, "confidence": 0.93, "max_games": 1234,
        "tc": "37/61+0.7", "plies": 13, "draw": "movenumber=33 movecount=7 score=9", "resign": "movecount=5 score=777",
        "maxmoves": 321,
    }
    for key, value in odd.items():
        monkeypatch.setitem(DEFAULT_SETTINGS, key, value)
    helps = _flag_helps("run")
    shown = {
        "bots": "random mcts:playouts=77", "challengers": "mcts", "isolate": "not isolated", "sandbox": "sandboxed", "trusted": "trusted",
        "independent_chance": "independent chance", "shuffle": "true", "time_margin": "0.35",
        "watchdog": "42.5",
    }
    for key, flag in RUN_FLAGS.items():
        assert f"default {shown.get(key, odd[key])}" in helps[flag] or f"default: {shown.get(key, odd[key])}" in helps[flag], (flag, helps[flag])
    play = _flag_helps("play")
    assert "(default nodes=777)" in play["--budget"] and "(default 42.5)" in play["--watchdog"]
    assert "(default: 37/61+0.7)" in play["--tc"]


def test_run_help_is_printed_whole(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # unwrapped
    assert "--games GAMES games per pairing, even: colours are swapped (default 40)" in out


def test_listings_show_unset_parameters_as_none_and_json_keeps_null(capsys):
    code, out, _ = run(capsys, "bots")
    assert code == 0
    assert "max_depth=none (int | None)" in out and "=null" not in out
    assert 'window=bounds (str' in out and "ordering=true (bool)" in out
    code, out, _ = run(capsys, "bots", "--json")
    iterative = {b["name"]: b for b in json.loads(out)}["iterative"]
    assert {p["name"]: p["default"] for p in iterative["parameters"]}["max_depth"] is None
    assert '"default": null' in out
