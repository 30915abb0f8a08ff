"""bench/search.py: its reference searches examine the generic search's tree, and a smoke run works.

The generic search's nodes and values are computed here, from bots/search.py as it is, and
compared with the reference's: never with numbers written down.
"""

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from arena import Budget

PATH = Path(__file__).resolve().parent.parent / "bench" / "search.py"
# the start, the tutorial's example "4455", and lines 904 and 1 of Pascal Pons's Test_L2_R1
# (blog.gamesolver.org, "Solving Connect 4", part 2)
POSITIONS = ["", "4455", "6667744167364217437", "5554224333234511764415115"]


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


@pytest.fixture(params=["heuristic", "centre"])
def game(request, registry, bench):
    return registry.game("connect4") if request.param == "heuristic" else bench.CentreConnectFour()


def generic(registry, bench, game, spec: str, state, depth: int):
    nodes, _, value, out = bench.search_once(registry, game, spec.format(depth=depth), state, Budget(depth=depth))
    assert not out
    return nodes, value


@pytest.mark.parametrize("moves", POSITIONS)
@pytest.mark.parametrize("mode", ["plain", "table"])
def test_reference_search_examines_the_generic_tree(registry, bench, game, moves, mode):
    state = game.play(moves)
    spec, keywords = bench.MODES[mode]
    for depth in (1, 2, 3, 5, 6):
        nodes, value = generic(registry, bench, game, spec, state, depth)
        ref_value, ref_nodes = bench.reference_search(state, depth, game.heuristic, **keywords)
        assert (ref_nodes, ref_value) == (nodes, value), f"depth {depth}"


@pytest.mark.parametrize("size", [1, 5, 64])
def test_reference_table_replaces_entries_as_the_generic_table_does(registry, bench, size):
    game = registry.game("connect4")
    spec = bench.MODES["table"][0] + f",table_size={size}"
    for moves in POSITIONS[:3]:
        state = game.play(moves)
        nodes, value = generic(registry, bench, game, spec, state, 6)
        assert bench.reference_search(state, 6, game.heuristic, table=True, size=size) == (value, nodes)


@pytest.mark.parametrize("moves", POSITIONS)
@pytest.mark.parametrize("depth", [4, 5])
def test_ordered_reference_search_gives_the_generic_value(registry, bench, game, moves, depth):
    state = game.play(moves)
    spec, keywords = bench.MODES["ordered"]
    nodes, value = generic(registry, bench, game, spec, state, depth)
    ref_value, ref_nodes = bench.reference_search(state, depth, game.heuristic, **keywords)
    assert ref_value == value
    assert nodes >= 2 and ref_nodes >= 2  # the root and at least one child


def test_mirror_key_is_the_games_key(registry, bench):
    mirror_key = sys.modules[bench.reference_search.__module__].mirror_key
    game, rng = registry.game("connect4"), random.Random(7)
    for _ in range(300):
        state = game.initial_state()
        for _ in range(rng.randrange(42)):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        assert mirror_key(state[0] + state[1]) == game.key(state)


def test_count_evaluations_counts_the_leaves(registry, bench):
    # from the start, nobody wins within two plies: every position at the depth limit is scored
    game = registry.game("connect4")
    state = game.initial_state()
    assert bench.count_evaluations(state, 1, game.heuristic) == 7
    _, nodes = bench.reference_search(state, 2, game.heuristic)
    assert bench.count_evaluations(state, 2, game.heuristic) == nodes - 1 - 7


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
    for text in ("minimax", "Othello 8x8, middle game", "reference_search", "nodes equal", "DIFFERENT trees",
                 "ns per call", "solver", "rerun: python bench/search.py"):
        assert text in out
    assert "DIFFER:" not in out and "nodes equal" in out and "FAILED" not in out


def test_the_centre_heuristic_is_centre_value_for_both_players(bench):
    from helpers import random_states
    from peers import centre_value  # importable once bench/search.py has run

    game = bench.CentreConnectFour()
    centre = game.columns // 2
    for state in random_states(game, random.Random(9), games=20):
        first = state[0] if state[2] % 2 == 0 else state[0] ^ state[1]  # player 0's stones
        ones = sum(bool(first >> (centre * (game.rows + 1) + row) & 1) for row in range(game.rows))
        both = sum(bool(state[1] >> (centre * (game.rows + 1) + row) & 1) for row in range(game.rows))
        expected = centre_value(ones, both - ones, game.rows)
        assert game.heuristic(state, 0) == expected
        assert game.heuristic(state, 1) == -expected
