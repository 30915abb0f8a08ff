"""The solver, the transposition table and move ordering: exact values with few nodes."""

import random

import pytest

from arena import Budget
from arena.referee import ask
from arena.testing import random_playout
from bots.alphabeta import AlphaBetaBot
from bots.iterative import IterativeBot
from bots.solver import SolverBot
from helpers import solve


def decide(bot, game, state, budget=Budget()):
    decision, counter = ask(bot, game, state, budget)
    return decision, counter.nodes


def test_solver_solves_tictactoe_in_at_most_500_nodes(registry):
    # Tic-tac-toe is a draw (http://www.se16.info/hgb/tictactoe.htm). Plain alpha-beta
    # needs 18,297 nodes (OpenSpiel's python alpha_beta_search); the target is 500.
    game = registry.game("tictactoe")
    decision, nodes = decide(SolverBot(), game, game.initial_state())
    assert decision.score == 0
    assert nodes <= 500
    without_table, more = decide(SolverBot(table=False), game, game.initial_state())
    assert without_table.score == 0 and more > nodes


@pytest.mark.parametrize(
    "spec",
    ["tictactoe", "tictactoe:rows=3,columns=4,k=3", "nim:heaps=2,3,4", "nim:heaps=1,2,4,misere=true",
     "counting:variant=22", "counting", "bachet:matches=13,take=4", "wythoff:size=6", "othello:size=4",
     "connect4:columns=4,rows=4,connect=3"],
)
def test_solver_values_equal_a_plain_memoised_negamax(registry, spec):
    game = registry.game(spec)
    rng = random.Random(7)
    memo = {}
    positions = [game.initial_state()]
    for _ in range(12):
        moves = random_playout(game, rng)
        positions.append(game.play(moves[: rng.randrange(len(moves))]))
    solver, weak = SolverBot(), SolverBot(weak=True)
    for state in positions:
        exact = solve(game, state, memo)
        strong, _ = decide(solver, game, state)
        assert strong.score == exact, game.render(state)
        sign, _ = decide(weak, game, state)
        assert (sign.score > 0) - (sign.score < 0) == (exact > 0) - (exact < 0)
        # the best move keeps the value
        child = game.apply(state, strong.move)
        after = solve(game, child, memo)
        assert (after if game.to_move(child) == game.to_move(state) else -after) == exact


def test_table_and_ordering_keep_depth_limited_values(registry):
    rng = random.Random(3)
    for name in ("connect4", "othello"):
        game = registry.game(name)
        for _ in range(20):
            moves = random_playout(game, rng)
            state = game.play(moves[: rng.randrange(len(moves))])
            plain, plain_nodes = decide(AlphaBetaBot(depth=4, ordering=False, table=False), game, state)
            full, full_nodes = decide(AlphaBetaBot(depth=4), game, state)
            deep, _ = decide(IterativeBot(max_depth=4), game, state)
            assert full.score == pytest.approx(plain.score, abs=1e-9)
            assert deep.score == pytest.approx(plain.score, abs=1e-9)


def test_ordering_and_table_cut_the_nodes_of_a_connect4_search(registry):
    game = registry.game("connect4")
    state = game.initial_state()
    _, plain = decide(AlphaBetaBot(depth=7, ordering=False, table=False), game, state)
    _, tabled = decide(AlphaBetaBot(depth=7, ordering=False), game, state)
    _, ordered = decide(AlphaBetaBot(depth=7), game, state)
    assert ordered < tabled < plain


def test_table_is_kept_for_the_game_and_cleared_for_the_next(registry):
    game = registry.game("connect4")
    bot = IterativeBot()
    bot.new_game(game, 0, 1)
    state = game.initial_state()
    decide(bot, game, state, Budget(depth=6))
    table = bot.transposition_table()
    assert len(table) > 0
    _, again = decide(bot, game, state, Budget(depth=6))
    fresh = IterativeBot()
    _, cold = decide(fresh, game, state, Budget(depth=6))
    assert again < cold  # the kept table answers much of the second search
    bot.new_game(game, 0, 2)
    assert bot.transposition_table() is not table


def test_tictactoe_key_is_the_same_for_all_eight_symmetries(registry):
    game = registry.game("tictactoe")
    # one position and its images: X a1 O b1 X c3, rotated and reflected by hand
    images = [
        ["a1", "b1", "c3"], ["c1", "b1", "a3"], ["a3", "b3", "c1"], ["c3", "b3", "a1"],
        ["a1", "a2", "c3"], ["c1", "c2", "a3"], ["a3", "a2", "c1"], ["c3", "c2", "a1"],
    ]
    keys = {game.key(game.play(moves)) for moves in images}
    assert len(keys) == 1
    assert game.key(game.play(["a1", "b2", "c3"])) != game.key(game.play(["a1", "b1", "c3"]))


def test_tictactoe_priorities_put_wins_then_blocks_first(registry):
    game = registry.game("tictactoe")
    state = game.play(["a1", "a2", "b1", "b2"])  # X wins at c1; O threatens c2
    moves = game.legal_moves(state)
    ranked = dict(zip(map(game.format_move, moves), game.move_priorities(state, moves)))
    assert ranked["c1"] == 3.0 and ranked["c2"] == 2.0
    assert max(v for m, v in ranked.items() if m not in ("c1", "c2")) < 1


@pytest.mark.parametrize("columns, rows", [(7, 6), (1, 3), (2, 5), (5, 4), (8, 7), (9, 3), (16, 16)])
def test_connect4_key_joins_mirror_images_only(registry, columns, rows):
    game = registry.game(f"connect4:columns={columns},rows={rows},connect={min(4, max(columns, rows))}")
    rng = random.Random(columns * 31 + rows)
    seen = {}
    for _ in range(200):
        moves = random_playout(game, rng)[: rng.randrange(1, columns * rows + 1)]
        state, image = game.initial_state(), game.initial_state()
        for move in moves:  # the image replays the moves in mirrored columns
            state, image = game.apply(state, move), game.apply(image, columns - 1 - move)
        assert game.key(state) == game.key(image)
        pictures = {game.render(state), game.render(image)}
        assert seen.setdefault(game.key(state), pictures) == pictures
    assert len(seen) > (2 if columns * rows < 10 else 20)


def test_connect4_winning_cells_match_playing_them(registry):
    game = registry.game("connect4")
    rng = random.Random(9)
    checked = 0
    for _ in range(100):
        moves = random_playout(game, rng)
        state = game.play(moves[: rng.randrange(len(moves))])
        cells = game.winning_cells(state[0], state[1])
        for col in game.legal_moves(state):
            child = game.apply(state, col)
            placed = child[1] ^ state[1]
            won = game.is_terminal(child) and game.utility(child, game.to_move(state)) > 0
            assert won == bool(placed & cells), game.render(state)
            checked += 1
    assert checked > 500


def test_connect4_priorities_win_block_and_the_tutorials_example(registry):
    game = registry.game("connect4")
    # Pons's tutorial (blog.gamesolver.org, part 2): after 4455 the side to move wins by
    # playing column 3 or 6 (two open threes): they rank first among quiet moves.
    state = game.play("4455")
    ranked = game.tactics(state)[2]
    assert {game.format_move(m) for m in ranked[:2]} == {"3", "6"}
    win = game.play("445566")  # X to move wins in column 7 (or 3)
    keys = dict(zip(game.legal_moves(win), game.move_priorities(win, game.legal_moves(win))))
    assert keys[game.parse_move("7")] == 3.0 and keys[game.parse_move("3")] == 3.0
    block = game.play("4455661")  # O to move must block X at 3 or 7
    keys = dict(zip(game.legal_moves(block), game.move_priorities(block, game.legal_moves(block))))
    assert keys[game.parse_move("7")] == 2.0 and keys[game.parse_move("3")] == 2.0
    assert max(v for m, v in keys.items() if game.format_move(m) not in "37") <= 1
