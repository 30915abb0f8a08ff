"""``arena play`` as safe as ``arena run``: default budget, bot syntax, watchdog, a person's commands."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import MoveRecord, get_registry
from arena.budget import Budget
from arena.front.cli import main
from arena.front.play import move_line, unbounded
from arena.front.settings import DEFAULT_SETTINGS

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def arena(*argv, stdin="", timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "arena", *argv], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


@pytest.mark.processes
def test_play_takes_the_tournament_default_budget(capsys, monkeypatch):
    # iterative has no depth limit of its own: without a budget it would search until the watchdog
    started = time.monotonic()
    code, out, err = run(capsys, "play", "connect4", "--bot", "iterative", "--bot", "random", "--seed", "1", "--quiet")
    assert code == 0, err
    assert time.monotonic() - started < 30
    assert f"(budget {DEFAULT_SETTINGS['budget']}, seed 1)" in out
    assert "(normal)" in out and err == ""
    monkeypatch.setitem(DEFAULT_SETTINGS, "budget", "nodes=123")  # one definition, read by play
    code, out, err = run(capsys, "play", "nim:heaps=1,2", "--bot", "random", "--bot", "random", "--seed", "1")
    assert code == 0 and "(budget nodes=123, seed 1)" in out


@pytest.mark.processes
def test_bots_take_names_and_budgets_as_in_a_tournament(capsys):
    code, out, err = run(
        capsys, "play", "tictactoe", "--bot", "ab=alphabeta:depth=4@nodes=50", "--bot", "greedy", "--seed", "2"
    )
    assert code == 0, err
    assert f"tictactoe: X: ab (budget nodes=50)  vs  O: greedy (budget {DEFAULT_SETTINGS['budget']})  (seed 2)" in out
    nodes = [int(line.split("  (")[1].split()[0]) for line in out.splitlines() if line.startswith("move ") and " (ab) " in line]
    assert nodes and max(nodes) <= 50
    code, out, err = run(capsys, "play", "nim", "--bot", "=random", "--bot", "random")
    assert code == 2 and "empty display name" in err


@pytest.mark.parametrize(
    "spec, budget, expected",
    [
        ("minimax:depth=none", Budget(), True),
        ("alphabeta:depth=none", Budget(), True),
        ("iterative", Budget(), True),
        ("solver", Budget(), True),
        ("mcts:playouts=none", Budget(), True),
        ("iterative", Budget(nodes=100), False),
        ("minimax:depth=none", Budget(depth=3), False),
        ("iterative", Budget(time=0.1), False),
        ("minimax", Budget(), False),
        ("iterative:max_depth=5", Budget(), False),
        ("mcts", Budget(), False),
        ("random", Budget(), False),
        ("greedy", Budget(), False),
        ("human", Budget(), False),
    ],
)
def test_which_bots_nothing_bounds(spec, budget, expected):
    assert unbounded(get_registry(entry_points=False).bot(spec), budget) is expected


@pytest.mark.processes
def test_a_bot_nothing_bounds_is_a_warning_up_front(capsys):
    code, out, err = run(
        capsys, "play", "nim:heaps=1,2", "--bot", "minimax:depth=none", "--bot", "random", "--budget", "none", "--seed", "1"
    )
    assert code == 0
    assert err == (
        "arena: warning: 'minimax:depth=none' has no budget and no depth limit: a move that runs past the "
        f"watchdog ({DEFAULT_SETTINGS['watchdog']:g} s, --watchdog) loses on time\n"
    )
    code, out, err = run(capsys, "play", "nim:heaps=1,2", "--bot", "minimax:depth=none@none", "--bot", "random", "--seed", "1")
    assert err.count("\n") == 1 and "'minimax:depth=none' has no budget" in err
    code, out, err = run(capsys, "play", "nim:heaps=1,2", "--bot", "iterative@depth=3", "--bot", "random", "--budget", "none")
    assert code == 0 and err == ""


@pytest.mark.processes
def test_the_watchdog_stops_a_move_without_a_time_budget(capsys):
    started = time.monotonic()
    code, out, err = run(
        capsys, "play", "connect4", "--bot", "iterative", "--bot", "random", "--budget", "none", "--watchdog", "1", "--quiet"
    )
    assert code == 0
    assert time.monotonic() - started < 20
    assert "watchdog (1 s, --watchdog)" in err
    assert "result 0-1 (timeout): 'iterative' timed out at ply 0: took longer than 1s to move" in out
    code, out, err = run(capsys, "play", "nim", "--bot", "random", "--bot", "random", "--watchdog", "0")
    assert code == 2 and "watchdog must be more than 0 seconds" in err


def test_move_lines_count_nodes_and_never_print_minus_zero():
    game = get_registry(entry_points=False).game("tictactoe")
    line = move_line(MoveRecord(0, 0, "b2", 1, 0.0, 1, -0.0, ()), "ab", game)
    assert line == "move 1: X (ab) plays b2  (1 node, 0.000s, depth 1, score 0)"
    line = move_line(MoveRecord(3, 1, "a1", 1234, 0.5, None, -0.25, ("a1", "c3")), "mm", game)
    assert line == "move 4: O (mm) plays a1  (1,234 nodes, 0.500s, score -0.25, pv a1 c3)"
    assert move_line(MoveRecord(0, 0, "b2", 2, 0.0), "ab") == "move 1: ab plays b2  (2 nodes, 0.000s)"  # arena show


@pytest.mark.processes
def test_players_are_named_by_the_game(capsys):
    code, out, err = run(capsys, "play", "othello:size=4", "--bot", "random", "--bot", "random", "--seed", "5")
    assert code == 0, err
    moves = [line for line in out.splitlines() if line.startswith("move ")]
    assert moves[0].startswith("move 1: black (random) plays ") and moves[1].startswith("move 2: white (random) plays ")
    result = [line for line in out.splitlines() if line.startswith("result ")][0]
    assert result.endswith(("; winner: black (random)", "; winner: white (random)")) or "1/2-1/2" in result
    assert "first" not in out and "second" not in out


@pytest.mark.processes
def test_a_person_can_ask_for_help_and_resign():
    proc = arena("play", "tictactoe", "--bot", "human", "--bot", "alphabeta:depth=9", "--budget", "none", "--seed", "1",
                 stdin="help\nb2\nresign\n")
    assert proc.returncode == 0, proc.stderr
    assert "'resign' or 'quit' gives up the game" in proc.stdout
    assert "result 0-1 (normal): 'human' resigned at ply 2: X typed 'resign' and loses; winner: O (alphabeta:depth=9)" in proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.processes
def test_a_person_who_quits_loses_and_sees_the_board_under_quiet():
    proc = arena("play", "tictactoe", "--bot", "alphabeta:depth=2", "--bot", "human", "--seed", "1", "--quiet", stdin="a1\nQUIT\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "result 1-0 (normal): 'human' quit at ply 3: O typed 'QUIT' and loses; winner: X (alphabeta:depth=2)" in out
    # before each of the person's two moves: the bot's move, then the board, then the prompt
    before = out.split("your move>")
    assert len(before) == 3
    for chunk in before[:2]:
        bot_move = chunk.index("(alphabeta:depth=2) plays")
        board = chunk.index("   a b c\n1  ", bot_move)
        assert board < chunk.index("O to move; legal:", board)
