"""Known answers for the search bots, from outside sources."""

import random

import pytest

from arena import Budget, Counter, Decision
from arena.testing import random_playout
from arena.budget import counted
from arena.referee import ask
from bots.alphabeta import AlphaBetaBot
from bots.iterative import IterativeBot
from bots.minimax import MinimaxBot
from bots.search import Search


def choose(bot, game, state, budget=Budget()):
    decision, counter = ask(bot, game, state, budget)
    assert isinstance(decision, Decision)
    return decision, counter.nodes


def test_minimax_solves_tictactoe_visiting_the_whole_game_tree(registry):
    # The complete game tree of tic-tac-toe has 549,946 nodes, root included, and the
    # game is a draw: http://www.se16.info/hgb/tictactoe.htm
    game = registry.game("tictactoe")
    decision, nodes = choose(MinimaxBot(depth=None), game, game.initial_state())
    assert decision.score == 0
    assert nodes == 549_946
    assert decision.depth == 9


@pytest.mark.parametrize(
    "window, expected",
    [
        # OpenSpiel's python alpha_beta_search (open_spiel/python/algorithms/minimax.py) on
        # tic-tac-toe from the empty board: full window, moves 0..8, cut when alpha >= beta.
        ("infinite", 18_297),
        # the same search with the window narrowed to the utility bounds [-1, 1]
        ("bounds", 16_811),
    ],
)
def test_plain_alphabeta_node_counts_on_tictactoe(registry, window, expected):
    game = registry.game("tictactoe")
    bot = AlphaBetaBot(depth=None, ordering=False, table=False, window=window)
    decision, nodes = choose(bot, game, game.initial_state())
    assert decision.score == 0
    assert nodes == expected
    # the transposition table alone (moves still in natural order) saves nodes
    tabled, tabled_nodes = choose(AlphaBetaBot(depth=None, ordering=False, window=window), game, game.initial_state())
    assert tabled.score == 0 and tabled_nodes < expected


def test_ordered_alphabeta_and_iterative_visit_fewer_nodes(registry):
    game = registry.game("tictactoe")
    ordered, ordered_nodes = choose(AlphaBetaBot(depth=None, ordering=True), game, game.initial_state())
    deepening, deepening_nodes = choose(IterativeBot(), game, game.initial_state())
    assert ordered.score == deepening.score == 0
    assert ordered_nodes < 16_811
    assert deepening_nodes < 16_811
    assert deepening.depth == 9


@pytest.mark.parametrize("name", ["tictactoe", "connect4", pytest.param(
    "othello", marks=pytest.mark.slow(reason="minimax to depth 3 from Othello positions: about 4 s"))])
def test_minimax_and_alphabeta_agree_at_depth_3(registry, name):
    game = registry.game(name)
    rng = random.Random(2026)
    for _ in range(200):
        moves = random_playout(game, rng)
        state = game.play(moves[: rng.randrange(len(moves))])
        mm, mm_nodes = choose(MinimaxBot(depth=3), game, state)
        for ordering in (False, True):
            ab, ab_nodes = choose(AlphaBetaBot(depth=3, ordering=ordering, table=False, window="infinite"), game, state)
            assert ab.score == pytest.approx(mm.score, abs=1e-12)
            assert ab_nodes <= mm_nodes
        bounded, _ = choose(AlphaBetaBot(depth=3, ordering=False, table=False, window="bounds"), game, state)
        assert bounded.score == pytest.approx(mm.score, abs=1e-12)
        tabled, _ = choose(AlphaBetaBot(depth=3, window="infinite"), game, state)
        assert tabled.score == pytest.approx(mm.score, abs=1e-12)


def test_principal_variation_replays_to_the_searched_value(registry):
    game = registry.game("tictactoe")
    decision, _ = choose(MinimaxBot(depth=None), game, game.initial_state())
    end = game.play(decision.pv)
    assert decision.pv[0] == decision.move
    assert game.is_terminal(end)
    assert game.utility(end, 0) == decision.score


@pytest.mark.parametrize("bot", [MinimaxBot(depth=None), AlphaBetaBot(depth=None), IterativeBot()])
def test_search_finds_a_win_in_one_and_a_block(registry, bot):
    game = registry.game("tictactoe")
    # X: a1 b1, O: a2 b2; X to move wins with c1 (cell 2)
    win = game.play(["a1", "a2", "b1", "b2"])
    decision, _ = choose(bot, game, win)
    assert game.format_move(decision.move) == "c1"
    assert decision.score == 1
    # X: a1 c3, O: b2 b1; X to move must block b3
    block = game.play(["a1", "b2", "c3", "b1"])
    decision, _ = choose(bot, game, block)
    assert game.format_move(decision.move) == "b3"


@pytest.mark.parametrize("budget", [Budget(nodes=1), Budget(nodes=2), Budget(nodes=37), Budget(time=0.001)])
@pytest.mark.parametrize("bot", [MinimaxBot(depth=None), AlphaBetaBot(depth=None), IterativeBot()])
def test_out_of_budget_still_gives_a_legal_move(registry, bot, budget):
    game = registry.game("connect4")
    state = game.play("4453")
    decision, nodes = choose(bot, game, state, budget)
    assert decision.move in game.legal_moves(state)
    if budget.nodes:
        assert nodes <= budget.nodes


def test_fixed_depth_bot_cut_short_plays_best_completed_move(registry):
    # X wins at once with c1, the first legal move; the budget runs out while the
    # second move is searched, so the search is incomplete but must play c1.
    game = registry.game("tictactoe")
    state = game.play(["a1", "a2", "b1", "b2"])
    counter = Counter(Budget(nodes=4))
    counter.tick()  # the root, as the arena counts it
    result = Search(counted(game, counter), counter, pruning=True).root(state, 3)
    assert not result.complete
    assert game.format_move(result.move) == "c1"
    bot = AlphaBetaBot(depth=9, ordering=False, window="infinite")  # no cut-off after the win
    decision, nodes = choose(bot, game, state, Budget(nodes=4))
    assert game.format_move(decision.move) == "c1" and nodes == 4
    assert decision.depth is None  # the search did not complete


def test_iterative_deepens_until_the_node_budget_runs_out(registry):
    game = registry.game("connect4")
    small, small_nodes = choose(IterativeBot(), game, game.initial_state(), Budget(nodes=500))
    large, large_nodes = choose(IterativeBot(), game, game.initial_state(), Budget(nodes=20_000))
    assert small_nodes <= 500 and large_nodes <= 20_000
    assert large.depth > small.depth >= 1


def test_iterative_depth_budget_caps_the_search(registry):
    game = registry.game("connect4")
    decision, _ = choose(IterativeBot(), game, game.initial_state(), Budget(depth=3))
    assert decision.depth == 3
    capped, _ = choose(AlphaBetaBot(depth=8), game, game.initial_state(), Budget(depth=2))
    assert capped.depth == 2


@pytest.mark.parametrize("variant, value", [("21", -1), ("22", 0)])
def test_search_bots_solve_the_counting_games(registry, variant, value):
    # "21": the second player wins; "22": a draw (see tests/test_games_small.py)
    game = registry.game(f"counting:variant={variant}")
    for bot in (MinimaxBot(depth=None), AlphaBetaBot(depth=None), IterativeBot()):
        decision, _ = choose(bot, game, game.initial_state())
        assert decision.score == value, bot
