"""Connect Four's fast paths for the search: bit-parallel heuristic, winning cells, tactics."""

import random

import pytest

from arena import Counter
from arena.testing import random_playout
from bots.table import Entry, Table
from games.bitboard import open_lines
from games.connect4 import ConnectFour
from helpers import random_states, solve

SIZES = [(7, 6, 4), (5, 4, 3), (8, 7, 5), (3, 2, 1), (4, 4, 2), (6, 5, 4)]


@pytest.mark.parametrize("columns, rows, connect", SIZES)
def test_heuristic_equals_open_lines_over_every_window(columns, rows, connect):
    game = ConnectFour(columns=columns, rows=rows, connect=connect)
    for state in random_states(game, random.Random(columns * rows), games=20):
        position, mask, moves, _ = state
        first = position if moves % 2 == 0 else position ^ mask
        expected = open_lines(first, first ^ mask, game.board.windows, connect)
        assert game.heuristic(state, 0) == pytest.approx(expected, abs=1e-12)
        assert game.heuristic(state, 1) == pytest.approx(-expected, abs=1e-12)


@pytest.mark.parametrize("columns, rows, connect", SIZES)
def test_winning_cells_are_the_cells_that_win(columns, rows, connect):
    game = ConnectFour(columns=columns, rows=rows, connect=connect)
    full = game.board.full
    for state in random_states(game, random.Random(7), games=15):
        if game.is_terminal(state):
            continue
        position, mask = state[0], state[1]
        cells = game.winning_cells(position, mask)
        for bit in (1 << i for i in range(full.bit_length())):
            if full & bit and not mask & bit:  # any empty cell, playable or not
                assert bool(cells & bit) == game.board.has_line(position | bit)


def loses_at_once(game, state, move) -> bool:
    child = game.apply(state, move)
    if game.is_terminal(child):
        return False
    return any(game.utility(game.apply(child, m), game.to_move(child)) > 0 for m in game.legal_moves(child))


@pytest.mark.parametrize("spec", ["connect4:columns=4,rows=4,connect=3,scoring=moves",
                                  "connect4:columns=4,rows=4,connect=3",
                                  "connect4:columns=5,rows=4,connect=3,scoring=moves"])
def test_tactics_bound_the_exact_value_and_keep_every_move_that_does_not_lose_at_once(registry, spec):
    game = registry.game(spec)
    rng, memo, settled, searched = random.Random(11), {}, 0, 0
    for _ in range(40):
        moves = random_playout(game, rng)
        for cut in range(len(moves)):
            state = game.play(moves[:cut])
            exact = solve(game, state, memo)
            floor, ceiling, kept = game.tactics(state)
            assert floor <= exact <= ceiling, game.render(state)
            if floor == ceiling:
                settled += 1
                continue
            searched += 1
            safe = [m for m in game.legal_moves(state) if not loses_at_once(game, state, m)]
            assert sorted(kept) == safe, game.render(state)
            # the best move is among those kept
            assert max(-solve(game, game.apply(state, m), memo) for m in kept) == exact
    assert settled > 20 and searched > 100


def test_tactics_settle_wins_at_once_and_double_threats(registry):
    game = registry.game("connect4:scoring=moves")
    # X on columns 1-3 of the bottom row, O on 7 and 6: X wins at 4 with its 4th stone, 22 - 4
    assert game.tactics(game.play("172736")) == (18, 18, None)
    # X on columns 2-4, O on 7 and 6, O to move: X wins at 1 or 5 next, with its 4th stone
    assert game.tactics(game.play("27364")) == (-18, -18, None)


def test_tactics_force_the_single_block(registry):
    game = registry.game("connect4")
    state = game.play("17273")  # X on columns 1-3 of the bottom row, O twice on 7; O to move
    assert game.tactics(state) == (-1, 1, [3])


def test_table_makes_room_keeping_the_current_search(registry):
    table = Table(size=100)
    table.new_search()
    for key in range(80):
        table.entries[key] = (key % 5, 0, 0.0, None, table.generation, None, key)
    table.new_search()
    for key in range(80, 100):
        table.entries[key] = (1, 0, 0.0, None, table.generation, None, key)
    table.make_room()
    assert set(table.entries) == set(range(80, 100))  # only the older search's entries went
    for key in range(100, 200):
        table.entries[key] = (key % 7, 0, 0.0, None, table.generation, None, key)
    table.make_room()
    assert len(table) == 50 and min(e[0] for e in table.entries.values()) >= 3  # the deeper half stays


def test_search_keeps_the_table_within_its_size(registry):
    from bots.search import Search

    game = registry.game("connect4")
    table = Table(size=500)
    counter = Counter()
    Search(game, counter, ordering=True, table=table).root(game.initial_state(), 7)
    assert 0 < len(table) <= 500


def test_the_table_keeps_only_ranked_tactics_for_deeper_visits(registry):
    from bots.search import Search

    game = registry.game("connect4")
    table = Table()
    search = Search(game, Counter(), ordering=True, table=table, pvs=True)
    for depth in range(1, 9):  # as the iterative bot deepens
        search.root(game.play("4453"), depth, *game.bounds)
    entries = [Entry._make(entry) for entry in table.entries.values()]
    plans = [(entry.state, entry.plan) for entry in entries if entry.plan is not None]
    assert len(plans) > 20
    for state, plan in plans:
        assert plan == game.tactics(state, True)


@pytest.mark.parametrize("columns, rows, connect", [(7, 6, 4), (9, 7, 4), (4, 4, 4), (6, 5, 3), (8, 8, 5)])
def test_tactics_rank_moves_by_the_winning_cells_they_make_then_by_centre(columns, rows, connect):
    game = ConnectFour(columns=columns, rows=rows, connect=connect)
    centre_out = sorted(range(columns), key=lambda col: abs(2 * col - columns + 1))
    checked = 0
    for state in random_states(game, random.Random(3), games=25):
        if game.is_terminal(state) or state[2] // 2 + 2 < connect:
            continue
        floor, ceiling, moves = game.tactics(state)
        if floor == ceiling:
            continue
        position, mask = state[0], state[1]

        def threats(col):
            cell = game.apply(state, col)[1] ^ mask
            return game.winning_cells(position | cell, mask).bit_count()

        assert moves == sorted(moves, key=lambda col: (-threats(col), centre_out.index(col)))
        checked += 1
    assert checked > 50


def test_a_mirror_image_shares_the_table_value_but_not_its_moves(registry):
    # Test_L2_R1 line 904 (blog.gamesolver.org test set): score -5 for the side to move.
    from bots.solver import SolverBot

    game = registry.game("connect4:scoring=moves")
    line = "6667744167364217437"
    image = "".join(str(8 - int(c)) for c in line)
    bot = SolverBot()
    bot.new_game(game, 0, 1)
    first = bot.choose(game, game.play(line), Counter())
    second = bot.choose(game, game.play(image), Counter())  # the same table, now full of the image's entries
    assert first.score == second.score == -5
    for decision, moves in ((first, line), (second, image)):
        state = game.play(moves)
        assert decision.move in game.legal_moves(state)
        assert game.play(moves + "".join(game.format_move(m) for m in decision.pv))  # the line replays
