"""Tests for Connect Four, including replays of Pascal Pons's benchmark positions."""

import random

import pytest

from arena import IllegalMoveError, ParameterError
from data_paths import CONNECT4_ENV, connect4_data_dir
from games.connect4 import ConnectFour
from helpers import random_states

# (columns, rows, connect)
SIZES = [(7, 6, 4), (8, 7, 3), (9, 7, 5), (4, 4, 4), (5, 4, 2), (3, 3, 1), (1, 6, 4), (6, 1, 4), (10, 3, 7)]
SIZES.append((16, 16, 6))  # the largest board
DATA_FILES = ["Test_L1_R1", "Test_L2_R1", "Test_L3_R1"]


def naive_line(grid, connect, mark):
    """True if ``mark`` has ``connect`` in a row; grid[c][r], row 0 at the bottom (no bitboards)."""
    columns, rows = len(grid), len(grid[0])
    for c in range(columns):
        for r in range(rows):
            for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(c + dc * i, r + dr * i) for i in range(connect)]
                if all(0 <= cc < columns and 0 <= rr < rows and grid[cc][rr] == mark for cc, rr in cells):
                    return True
    return False


def grid_of(sequence, columns=7, rows=6):
    """The board after a sequence of 0-based columns, as a tuple of column strings."""
    heights, grid = [0] * columns, [["."] * rows for _ in range(columns)]
    for ply, c in enumerate(sequence):
        grid[c][heights[c]] = "XO"[ply % 2]
        heights[c] += 1
    return tuple("".join(col) for col in grid)


def immediate_wins(game, state):
    """The moves that win at once for the side to move."""
    me, out = game.to_move(state), []
    for move in game.legal_moves(state):
        child = game.apply(state, move)
        if game.is_terminal(child) and game.utility(child, me) > 0:
            out.append(move)
    return out


@pytest.mark.parametrize(
    "params",
    [
        dict(columns=0),
        dict(rows=0),
        dict(connect=0),
        dict(columns=17),
        dict(rows=17),
        dict(connect=8),  # longer than both sides of 7x6
        dict(columns=3, rows=3, connect=4),
        dict(columns="7"),
        dict(width=7),
    ],
)
def test_bad_parameters(params):
    with pytest.raises(ParameterError):
        ConnectFour(**params)


def test_edge_parameters_are_accepted():
    assert ConnectFour(connect=7).legal_moves(ConnectFour(connect=7).initial_state()) == list(range(7))
    big = ConnectFour(columns=16, rows=16, connect=16)
    assert big.parse_move("16") == 15


@pytest.mark.parametrize(
    "sequence, winner",
    [
        ("1212121", 0),  # vertical in column 1
        ("1122334", 0),  # horizontal on the bottom row
        ("12233434474", 0),  # diagonal rising to the right: 1/1 2/2 3/3 4/4
        ("76655454414", 0),  # its mirror image, falling to the right
        ("21213151", 1),  # O, vertical
        ("4455667", 0),  # horizontal reaching column 7
    ],
)
def test_wins(sequence, winner):
    game = ConnectFour()
    state = game.play(sequence)
    assert game.is_terminal(state)
    assert game.legal_moves(state) == []
    assert game.utility(state, winner) == 1 and game.utility(state, 1 - winner) == -1
    assert game.result_text(state) == f"{'XO'[winner]} wins"
    before = game.play(sequence[:-1])
    assert not game.is_terminal(before)
    assert naive_line(grid_of([int(ch) - 1 for ch in sequence]), 4, "XO"[winner])


def test_lines_do_not_wrap_around_columns():
    game = ConnectFour()
    # X: column 1 rows 4-6 (its top) and column 2 row 1; in the bit layout these would be
    # consecutive bits were it not for the spare bit at the top of each column.
    state = game.play("21516117171")
    assert not game.is_terminal(state)
    assert game.legal_moves(state) == [1, 2, 3, 4, 5, 6]


def test_draw_on_full_boards():
    small = ConnectFour(columns=3, rows=2, connect=3)
    state = small.play("123123")  # bottom X O X, top O X O
    assert small.is_terminal(state) and small.utility(state, 0) == 0 and small.legal_moves(state) == []
    assert small.result_text(state) == "draw"
    game = ConnectFour()
    sequence = "472424756645422154157737216635626711335331"  # found by a seeded random search
    state = game.play(sequence)
    assert game.is_terminal(state) and game.utility(state, 0) == game.utility(state, 1) == 0
    grid = grid_of([int(ch) - 1 for ch in sequence])
    assert not naive_line(grid, 4, "X") and not naive_line(grid, 4, "O") and "." not in "".join(grid)


def test_other_sizes():
    game = ConnectFour(columns=8, connect=3)
    assert game.legal_moves(game.initial_state()) == list(range(8))
    state = game.play("12121")
    assert game.is_terminal(state) and game.utility(state, 0) == 1
    state = game.play("66778")  # bottom row, columns 6-8
    assert game.is_terminal(state) and game.utility(state, 0) == 1
    long = ConnectFour(columns=9, rows=7, connect=5)
    state = long.play("112233445")
    assert long.is_terminal(state) and long.utility(state, 0) == 1
    assert not long.is_terminal(long.play("11223344"))
    column = ConnectFour(columns=1, rows=3, connect=2)
    state = column.play("111")
    assert column.is_terminal(state) and column.utility(state, 0) == 0


@pytest.mark.parametrize("columns, rows, connect", SIZES)
def test_end_detection_matches_a_plain_scan(columns, rows, connect):
    game = ConnectFour(columns=columns, rows=rows, connect=connect)
    rng = random.Random(columns * 1000 + rows * 10 + connect)
    for _ in range(4 if columns * rows > 100 else 40):
        grid = [["."] * rows for _ in range(columns)]
        heights = [0] * columns
        state = game.initial_state()
        while not game.is_terminal(state):
            mover = game.to_move(state)
            legal = game.legal_moves(state)
            assert legal == [c for c in range(columns) if heights[c] < rows]
            move = rng.choice(legal)
            state = game.apply(state, move)
            grid[move][heights[move]] = "XO"[mover]
            heights[move] += 1
            won = naive_line(grid, connect, "XO"[mover])
            assert game.is_terminal(state) == (won or sum(heights) == columns * rows)
            if game.is_terminal(state):
                assert game.utility(state, mover) == (1 if won else 0)


@pytest.mark.parametrize("columns, rows, connect", SIZES)
def test_parse_format_round_trip(columns, rows, connect):
    game = ConnectFour(columns=columns, rows=rows, connect=connect)
    for state in random_states(game, random.Random(11), games=4):
        for move in game.legal_moves(state):
            text = game.format_move(move)
            assert text == str(move + 1)
            assert game.parse_move(text) == move
            assert game.parse_move(f" {text}\t") == move


@pytest.mark.parametrize("text", ["", " ", "0", "8", "-1", "+3", "a", "4.0", "4 5", "١", "1e1"])
def test_parse_errors(text):
    with pytest.raises(IllegalMoveError, match="connect4"):
        ConnectFour().parse_move(text)


@pytest.mark.parametrize("columns, rows, connect", SIZES)
def test_heuristic_inside_bounds_and_antisymmetric(columns, rows, connect):
    game = ConnectFour(columns=columns, rows=rows, connect=connect)
    low, high = game.bounds
    for state in random_states(game, random.Random(13), games=10):
        if game.is_terminal(state):
            continue
        h0, h1 = game.heuristic(state, 0), game.heuristic(state, 1)
        assert low < h0 < high and low < h1 < high
        assert h0 == -h1


def test_heuristic_prefers_the_centre():
    game = ConnectFour()
    assert game.heuristic(game.initial_state(), 0) == 0
    assert game.heuristic(game.play("4"), 0) > game.heuristic(game.play("1"), 0) > 0
    assert game.heuristic(game.play("14"), 1) > 0


def test_terminal_utilities_are_zero_sum():
    for columns, rows, connect in SIZES:
        game = ConnectFour(columns=columns, rows=rows, connect=connect)
        for state in random_states(game, random.Random(17), games=10):
            if game.is_terminal(state):
                assert game.utility(state, 0) == -game.utility(state, 1)


def test_apply_does_not_change_its_input():
    game = ConnectFour()
    state = game.play("44")
    copy = tuple(state)
    child = game.apply(state, 3)
    assert state == copy and child != state
    assert game.to_move(state) == 0 and game.to_move(child) == 1


def test_transposed_move_orders_give_equal_states():
    game = ConnectFour()
    a, b = game.play("4455"), game.play("5544")
    assert a == b and hash(a) == hash(b)
    assert game.play("45") != game.play("54")
    assert game.play("123456") == game.play("163452")
    assert {game.play("1234"): 1}.get(game.play("3214")) == 1


def test_render():
    game = ConnectFour()
    lines = game.render(game.play("4455")).splitlines()
    assert lines[-4:] == [
        ". . . O O . .",
        ". . . X X . .",
        "1 2 3 4 5 6 7",
        "X to move",
    ]
    assert len(lines) == 8
    assert game.render(game.play("4")).endswith("O to move")
    assert game.render(game.play("1212121")).endswith("X wins")
    wide = ConnectFour(columns=10, rows=2, connect=3)
    assert wide.render(wide.initial_state()).splitlines()[-2] == " 1  2  3  4  5  6  7  8  9 10"


# Reference positions: Pascal Pons, "Solving Connect 4: how to build a perfect AI", part 2
# "Test protocol", http://blog.gamesolver.org/solving-connect-four/02-test-protocol/ ; the
# format and counts are described in ../shared/data/connect4/README.md.


def load(name):
    folder = connect4_data_dir()
    if folder is None:
        pytest.skip(
            f"Connect Four reference data not found: set {CONNECT4_ENV} to a folder holding {name} "
            "(default: ../shared/data/connect4 beside the repository)"
        )
    path = folder / name
    if not path.is_file():
        pytest.skip(f"Connect Four reference file {path} not found")
    lines = path.read_text().split("\n")
    assert lines[-1] == ""
    return [(seq, int(score)) for seq, score in (line.split(" ") for line in lines[:-1])]


@pytest.mark.parametrize("name, distinct", [("Test_L1_R1", 991), ("Test_L2_R1", 1000), ("Test_L3_R1", 1000)])
def test_reference_positions_replay(name, distinct):
    game = ConnectFour()
    entries = load(name)
    assert len(entries) == 1000
    states, grids = set(), set()
    for sequence, score in entries:
        n = len(sequence)
        state = game.play(sequence)  # raises on an illegal move, or a move after the end
        assert not game.is_terminal(state), sequence
        grid = grid_of([int(c) - 1 for c in sequence])
        assert 42 - state[1].bit_count() == 42 - n == "".join(grid).count(".")
        assert game.to_move(state) == n % 2
        # Score range after n moves (tutorial, part 2).
        assert -((42 - n) // 2) <= score <= (43 - n) // 2
        states.add(state)
        grids.add(grid)
    # Transpositions: equal positions must give equal states, and only they.
    assert len(states) == len(grids) == distinct


def wins_with_next_but_one_stone(game, state):
    """True if the side to move has a move after which every reply allows it an immediate win."""
    for move in game.legal_moves(state):
        child = game.apply(state, move)
        if game.is_terminal(child):
            continue
        if all(immediate_wins(game, game.apply(child, r)) for r in game.legal_moves(child)):
            return True
    return False


@pytest.mark.parametrize("name", DATA_FILES)
def test_reference_scores_of_quick_ends(name):
    """Exact consequences of the published scores that a 3-ply search can check.

    A score of (43 - n) // 2 means the side to move wins at once, one less means it wins
    with its next-but-one stone, and -((42 - n) // 2) means every move lets the opponent win
    at once (tutorial, part 2). None of the sets holds an immediate win or loss, so the
    second case is the one that exercises win detection.
    """
    game = ConnectFour()
    quick = 0
    for sequence, score in load(name):
        n = len(sequence)
        state = game.play(sequence)
        best = (43 - n) // 2
        assert bool(immediate_wins(game, state)) == (score == best), sequence
        if score == best:
            continue
        if best - 1 > 0:  # else a score of best - 1 is a draw
            assert wins_with_next_but_one_stone(game, state) == (score == best - 1), sequence
            quick += score == best - 1
        if n <= 40:
            doomed = all(immediate_wins(game, game.apply(state, m)) for m in game.legal_moves(state))
            assert doomed == (score == -((42 - n) // 2)), sequence
    assert quick >= 100  # not vacuous: 252, 227 and 124 such lines in L1, L2 and L3


def test_tutorial_examples():
    # Tutorial part 2: "4455" scores 18 (the side to move wins with its 4th stone) and
    # "44455554221" scores -15 (the opponent wins with its 7th stone, i.e. its next one).
    game = ConnectFour()
    state = game.play("4455")
    assert not game.is_terminal(state) and not immediate_wins(game, state)
    forcing = []
    for move in game.legal_moves(state):
        child = game.apply(state, move)
        if all(immediate_wins(game, game.apply(child, r)) for r in game.legal_moves(child)):
            forcing.append(move)
    assert [game.format_move(m) for m in forcing] == ["3", "6"]
    state = game.play("44455554221")
    assert not game.is_terminal(state) and game.to_move(state) == 1
    assert not immediate_wins(game, state)
    assert all(immediate_wins(game, game.apply(state, m)) for m in game.legal_moves(state))
