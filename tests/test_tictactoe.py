"""Tests for the m,n,k tic-tac-toe game."""

import random

import pytest

from arena import IllegalMoveError, ParameterError
from games.tictactoe import TicTacToe
from helpers import random_states, solve

SIZES = [(3, 3, 3), (4, 4, 3), (1, 5, 3), (5, 1, 3), (3, 5, 4), (2, 3, 2), (4, 4, 1), (6, 4, 4), (8, 8, 5)]


def naive_line(grid, rows, columns, k, mark):
    """True if ``mark`` has k in a row on a list-of-lists grid (a plain scan, no bitboards)."""
    for r in range(rows):
        for c in range(columns):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= rr < rows and 0 <= cc < columns and grid[rr][cc] == mark for rr, cc in cells):
                    return True
    return False


@pytest.mark.parametrize(
    "params",
    [
        dict(rows=0),
        dict(columns=0),
        dict(k=0),
        dict(k=4),  # longer than the 3x3 board
        dict(rows=2, columns=2, k=3),
        dict(rows=9, columns=8),  # 72 cells > 64
        dict(columns=27),  # no letter for it
        dict(rows=65, columns=1),
        dict(rows="3"),
        dict(size=3),
    ],
)
def test_bad_parameters(params):
    with pytest.raises(ParameterError):
        TicTacToe(**params)


def test_largest_boards_are_accepted():
    big = TicTacToe(rows=8, columns=8, k=5)
    assert big.legal_moves(big.initial_state())[-1] == 63
    assert TicTacToe(rows=64, columns=1, k=64).rows == 64
    assert TicTacToe(rows=2, columns=26, k=26).format_move(51) == "z2"


def test_complete_game_tree_of_3x3():
    # 255,168 complete games: 131,184 won by X, 77,904 by O, 46,080 drawn; 549,946 nodes
    # in the game tree including the empty board. Source: Henry Bottomley,
    # "How many Tic-Tac-Toe (noughts and crosses) games are possible?",
    # http://www.se16.info/hgb/tictactoe.htm
    game = TicTacToe()
    ends = {1: 0, -1: 0, 0: 0}
    nodes = 0
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        nodes += 1
        if game.is_terminal(state):
            ends[game.utility(state, 0)] += 1
        else:
            stack.extend(game.apply(state, m) for m in game.legal_moves(state))
    assert nodes == 549_946
    assert (ends[1], ends[-1], ends[0]) == (131_184, 77_904, 46_080)
    assert sum(ends.values()) == 255_168


@pytest.mark.parametrize(
    "rows, columns, k, value",
    [
        # Tic-tac-toe is a draw; with k = 3 the first player wins on any board of at least
        # 3 x 4 (E. W. Weisstein, "Tic-Tac-Toe", MathWorld, after Gardner 1979:
        # https://mathworld.wolfram.com/Tic-Tac-Toe.html).
        (3, 3, 3, 0),
        (3, 4, 3, 1),
        (4, 3, 3, 1),
        (4, 4, 3, 1),
        # Trivial cases, checked by hand: two in a row on 3x3 is won at X's second stone;
        # on 1x2, O takes the other cell.
        (3, 3, 2, 1),
        (1, 2, 2, 0),
    ],
)
def test_game_values(rows, columns, k, value):
    assert solve(TicTacToe(rows=rows, columns=columns, k=k)) == value


def test_cells_are_row_major_from_the_top_left():
    game = TicTacToe()
    assert [game.format_move(m) for m in (0, 1, 2, 3, 8)] == ["a1", "b1", "c1", "a2", "c3"]
    state = game.play(["b2"])
    assert game.legal_moves(state) == [0, 1, 2, 3, 5, 6, 7, 8]
    state = game.play(["c1", "a3"], state)
    assert game.legal_moves(state) == [0, 1, 3, 5, 7, 8]
    wide = TicTacToe(rows=2, columns=4)
    assert wide.parse_move("a2") == 4 and wide.parse_move("d1") == 3


@pytest.mark.parametrize(
    "moves, winner",
    [
        (["a1", "a2", "b1", "b2", "c1"], 0),  # top row
        (["a1", "b1", "a2", "b2", "c3", "b3"], 1),  # middle column, O
        (["a1", "b1", "b2", "c1", "c3"], 0),  # main diagonal
        (["c1", "a1", "b2", "b1", "a3"], 0),  # anti-diagonal
        (["a1", "b2", "c3", "a2", "c2", "c1", "a3", "b3", "b1"], None),  # full board, drawn
    ],
)
def test_wins_and_draw(moves, winner):
    game = TicTacToe()
    state = game.play(moves)
    assert game.is_terminal(state)
    assert game.legal_moves(state) == []
    expected = 0 if winner is None else (1 if winner == 0 else -1)
    assert game.utility(state, 0) == expected
    assert game.utility(state, 1) == -expected
    assert not game.is_terminal(game.play(moves[:-1]))


def test_one_row_board_with_three_in_a_row():
    game = TicTacToe(rows=1, columns=5, k=3)
    state = game.play(["a1", "b1", "c1", "d1", "e1"])  # X a c e, O b d: nobody has three
    assert game.is_terminal(state) and game.utility(state, 0) == 0
    state = game.play(["a1", "e1", "b1", "d1"])
    assert not game.is_terminal(state)
    assert game.legal_moves(state) == [2]
    state = game.apply(state, 2)
    assert game.is_terminal(state) and game.utility(state, 0) == 1
    assert game.result_text(state) == "X wins"


def test_4x4_three_in_a_row_off_the_main_diagonal():
    game = TicTacToe(rows=4, columns=4, k=3)
    state = game.play(["b1", "a1", "c2", "a2"])
    assert not game.is_terminal(state)
    state = game.play(["d3"], state)  # b1 c2 d3
    assert game.is_terminal(state) and game.utility(state, 0) == 1
    state = game.play(["d1", "a1", "c2", "a2", "b3"])  # d1 c2 b3 (anti-diagonal)
    assert game.is_terminal(state) and game.utility(state, 0) == 1


@pytest.mark.parametrize("rows, columns, k", SIZES)
def test_end_detection_matches_a_plain_scan(rows, columns, k):
    game = TicTacToe(rows=rows, columns=columns, k=k)
    rng = random.Random(rows * 100 + columns * 10 + k)
    for _ in range(40):
        grid = [["."] * columns for _ in range(rows)]
        state = game.initial_state()
        while not game.is_terminal(state):
            mover = game.to_move(state)
            move = rng.choice(game.legal_moves(state))
            state = game.apply(state, move)
            grid[move // columns][move % columns] = "XO"[mover]
            won = naive_line(grid, rows, columns, k, "XO"[mover])
            full = all("." not in row for row in grid)
            assert game.is_terminal(state) == (won or full)
            if game.is_terminal(state):
                assert game.utility(state, mover) == (1 if won else 0)
                assert game.utility(state, 1 - mover) == -game.utility(state, mover)


@pytest.mark.parametrize("rows, columns, k", SIZES + [(10, 6, 4), (2, 26, 5)])
def test_parse_format_round_trip(rows, columns, k):
    game = TicTacToe(rows=rows, columns=columns, k=k)
    for state in random_states(game, random.Random(7), games=5):
        for move in game.legal_moves(state):
            text = game.format_move(move)
            assert game.parse_move(text) == move
            assert game.parse_move(f"  {text.upper()} ") == move
            assert game.parse_move(str(move + 1)) == move


def test_parse_forms():
    game = TicTacToe()
    assert game.parse_move("a1") == 0
    assert game.parse_move(" C3\n") == 8
    assert game.parse_move("5") == 4
    assert game.parse_move("9") == 8
    assert TicTacToe(rows=10, columns=3).parse_move("b10") == 28


@pytest.mark.parametrize(
    "text", ["", "  ", "0", "10", "-1", "d1", "a4", "a0", "1a", "b", "a1b", "aa1", "x", "٣", "a١"]
)
def test_parse_errors(text):
    with pytest.raises(IllegalMoveError, match="tictactoe"):
        TicTacToe().parse_move(text)


@pytest.mark.parametrize("rows, columns, k", SIZES)
def test_heuristic_inside_bounds_and_antisymmetric(rows, columns, k):
    game = TicTacToe(rows=rows, columns=columns, k=k)
    low, high = game.bounds
    for state in random_states(game, random.Random(3)):
        if game.is_terminal(state):
            continue
        h0, h1 = game.heuristic(state, 0), game.heuristic(state, 1)
        assert low < h0 < high and low < h1 < high
        assert h0 == -h1


def test_heuristic_prefers_the_centre_and_open_lines():
    game = TicTacToe()
    assert game.heuristic(game.play(["b2"]), 0) > game.heuristic(game.play(["a2"]), 0) > 0
    assert game.heuristic(game.initial_state(), 0) == 0
    assert game.heuristic(game.play(["a1", "b2"]), 1) > 0  # O's centre beats X's corner


def test_terminal_utilities_are_zero_sum():
    for rows, columns, k in SIZES:
        game = TicTacToe(rows=rows, columns=columns, k=k)
        for state in random_states(game, random.Random(5), games=10):
            if game.is_terminal(state):
                assert game.utility(state, 0) == -game.utility(state, 1)
                assert game.utility(state, 0) in (-1, 0, 1)


def test_apply_does_not_change_its_input():
    game = TicTacToe()
    state = game.play(["b2", "a1"])
    copy = tuple(state)
    child = game.apply(state, 2)
    assert state == copy and child != state
    assert game.legal_moves(state) == [1, 2, 3, 5, 6, 7, 8]


def test_transposed_move_orders_give_equal_states():
    game = TicTacToe(rows=4, columns=4)
    a = game.play(["a1", "b2", "c3", "d4", "a4"])
    b = game.play(["c3", "d4", "a4", "b2", "a1"])
    assert a == b and hash(a) == hash(b)
    assert game.play(["a1", "b2"]) != game.play(["b2", "a1"])  # stones of different owners
    seen = {game.play(["b1", "c1", "a1"]): "x"}
    assert seen[game.play(["a1", "c1", "b1"])] == "x"


def test_to_move_alternates():
    game = TicTacToe()
    state = game.initial_state()
    for ply, move in enumerate([4, 0, 8, 2]):
        assert game.to_move(state) == ply % 2
        state = game.apply(state, move)


def test_render():
    game = TicTacToe()
    state = game.play(["b2", "a1", "c1"])
    assert game.render(state) == "\n".join(
        [
            "   a b c",
            "1  O . X",
            "2  . X .",
            "3  . . .",
            "O to move",
        ]
    )
    assert "X to move" in game.render(game.initial_state())
    assert "X wins" in game.render(game.play(["a1", "a2", "b1", "b2", "c1"]))
    tall = TicTacToe(rows=10, columns=2, k=3)
    picture = tall.render(tall.play(["b10"]))
    assert picture.splitlines()[-2] == "10  . X" and picture.endswith("O to move")
