"""Exact Connect Four scores against Pascal Pons's test sets (a sample, fast enough for CI).

Data: blog.gamesolver.org, "Solving Connect 4", part 2 (test protocol); format and score
definition in the data folder's README. Skipped when the data is absent.
"""

import pytest

from arena import Counter
from arena.referee import ask
from bots.solver import SolverBot
from data_paths import CONNECT4_ENV, connect4_data_dir


def sample(name: str, first: int, quick: int) -> list[tuple[str, int]]:
    folder = connect4_data_dir()
    if folder is None:
        pytest.skip(f"Connect Four reference data not found: set {CONNECT4_ENV} or put it in ../shared/data/connect4")
    rows = [(m, int(s)) for m, s in (line.split() for line in (folder / name).read_text().splitlines())]
    # the first lines of the file, plus the soonest wins and losses (the quickest to prove)
    soonest = sorted(rows, key=lambda row: (-abs(row[1]), row[0]))[:quick]
    return rows[:first] + soonest


@pytest.mark.parametrize("name, first, quick", [("Test_L3_R1", 12, 4), ("Test_L2_R1", 2, 4), ("Test_L1_R1", 0, 4)])
def test_solver_gives_the_published_exact_scores(registry, name, first, quick):
    game = registry.game("connect4:scoring=moves")
    assert game.bounds == (-18, 18)
    for moves, expected in sample(name, first, quick):
        strong = SolverBot().choose(game, game.play(moves), Counter())
        assert strong.score == expected, moves
        weak = SolverBot(weak=True).choose(game, game.play(moves), Counter())
        assert weak.score == (expected > 0) - (expected < 0), moves


def test_moves_scoring_matches_the_tutorials_examples(registry):
    # "4455" scores 18: the side to move wins with its 4th stone; after
    # "44455554221" the side to move loses to the opponent's 7th stone: -15.
    game = registry.game("connect4:scoring=moves")
    assert SolverBot().choose(game, game.play("4455"), Counter()).score == 18
    assert SolverBot().choose(game, game.play("44455554221"), Counter()).score == -15
    won = game.play("4455667")  # X wins with its 4th stone at move 7: 22 - 4
    assert game.utility(won, 0) == 18 and game.utility(won, 1) == -18


@pytest.mark.parametrize("name, first, published", [("Test_L3_R1", 200, 51.28), ("Test_L2_R1", 100, 449.6)])
def test_solver_needs_no_more_nodes_than_the_tutorials_solver(registry, name, first, published):
    # Mean nodes per position of the tutorial's final C++ solver on the whole set
    # (blog.gamesolver.org, "Solving Connect 4", part 12); the table is new for each position.
    game = registry.game("connect4:scoring=moves")
    rows = sample(name, first, 0)
    total = 0
    for moves, expected in rows:
        decision, counter = ask(SolverBot(), game, game.play(moves))
        assert decision.score == expected, moves
        total += counter.nodes
    assert total / len(rows) <= published
