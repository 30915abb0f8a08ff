"""bench/search.py: its reference search agrees with the generic one, and a smoke run works."""

import importlib.util
import sys
from pathlib import Path

import pytest

from arena import Budget

PATH = Path(__file__).resolve().parent.parent / "bench" / "search.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_search", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


# the start, the tutorial's example "4455", and lines 904 and 1 of Pascal Pons's Test_L2_R1
# (blog.gamesolver.org, "Solving Connect 4", part 2)
@pytest.mark.parametrize("moves", ["", "4455", "6667744167364217437", "5554224333234511764415115"])
@pytest.mark.parametrize("depth", [4, 5])
def test_reference_search_gives_the_generic_alphabeta_value(registry, bench, moves, depth):
    game = registry.game("connect4")
    state = game.play(moves)
    nodes, _, value, out = bench.search_once(registry, game, bench.GENERIC, state, Budget(depth=depth))
    ref_value, ref_nodes = bench.reference_search(state, depth, game.heuristic, *game.bounds)
    assert not out and ref_value == value
    assert nodes >= 2 and ref_nodes >= 2  # the root and at least one child


def test_minimax_counts_every_position_to_the_depth(registry, bench):
    # no game of Connect Four ends before its 7th ply: 1 + 7 + 7^2 + 7^3 + 7^4 positions
    game = registry.game("connect4")
    cell = bench.measure(registry, game, "minimax:depth=none", game.initial_state(), Budget(depth=4), runs=1)
    assert cell.nodes == 2801


def test_deepen_stops_at_a_cell_predicted_too_slow(bench):
    seconds = {2: 0.1, 3: 1.0, 4: 10.0}
    cells = bench.deepen(lambda d: bench.Cell(10**d, seconds[d], 0.0, [seconds[d]]), [2, 3, 4, 5], cap=5.0)
    assert [d for d, c in cells.items() if c is not None] == [2, 3]


def test_quick_run_prints_every_section(bench, capsys):
    assert bench.main(["--quick"]) == 0
    out = capsys.readouterr().out
    for text in ("minimax", "Othello 8x8, middle game", "reference_search", "solver", "rerun: python bench/search.py"):
        assert text in out
    assert "DIFFER" not in out
