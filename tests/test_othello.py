import random

import pytest

from arena import IllegalMoveError, ParameterError
from games.othello import PASS, Othello
from helpers import random_states, solve


@pytest.fixture
def game():
    return Othello()


def perft(game, state, depth):
    """Leaf count, a pass counting as a move and a finished game as a leaf (Bik's convention)."""
    if depth == 0:
        return 1
    moves = game.legal_moves(state)
    if not moves:
        return 1
    if depth == 1:  # bulk count: the leaves' own mobility was computed by apply anyway
        return len(moves)
    return sum(perft(game, game.apply(state, m), depth - 1) for m in moves)


def board(rows):
    return "".join(rows)


EMPTY_ROW = "........"


# Aart Bik, "Perft for Reversi", https://www.aartbik.com/MISC/reversi.html (also
# https://aartbik.blogspot.com/2009/02/perft-for-reversi.html): leaf nodes from the start.
PERFT = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1396, 6: 8200, 7: 55092, 8: 390216}


@pytest.mark.parametrize("depth", sorted(PERFT))
def test_perft(game, depth):
    assert perft(game, game.initial_state(), depth) == PERFT[depth]


@pytest.mark.slow(reason="perft 9 is the first depth with passes: 3,005,288 positions")
def test_perft_depth_9_first_passes(game):
    # Same source; depth 9 is the first where passes occur.
    assert perft(game, game.initial_state(), 9) == 3005288


def test_initial_position(game):
    s = game.initial_state()
    assert game.to_move(s) == 0
    assert [game.format_move(m) for m in game.legal_moves(s)] == ["d3", "c4", "f5", "e6"]
    assert game.discs(s) == (2, 2)
    assert s == game.position(board([EMPTY_ROW] * 3 + ["...OX...", "...XO..."] + [EMPTY_ROW] * 3))


def test_small_boards_start_in_the_centre():
    g4 = Othello(size=4)
    assert g4.initial_state() == g4.position(".... .OX. .XO. ....")
    first = [g4.format_move(m) for m in g4.legal_moves(g4.initial_state())]
    assert first == ["b1", "a2", "d3", "c4"]
    g6 = Othello(size=6)
    assert g6.initial_state() == g6.position("...... ...... ..OX.. ..XO.. ...... ......")


def test_second_player_wins_4x4():
    # "On 4x4 and 6x6 boards under perfect play, the second player wins."
    # https://en.wikipedia.org/wiki/Reversi
    assert solve(Othello(size=4)) == -1


def test_flips_in_all_eight_directions(game):
    s = game.position(board([
        "X..X..X.",
        ".O.O.O..",
        "..OOO...",
        "XOO.OOX.",  # d4 is empty: black to play there
        "..OOO...",
        ".O.O.O..",
        "X..X..X.",
        "........",
    ]))
    d4 = game.parse_move("d4")
    assert d4 in game.legal_moves(s)
    after = game.apply(s, d4)
    assert after == game.position(board([
        "X..X..X.",
        ".X.X.X..",
        "..XXX...",
        "XXXXXXX.",
        "..XXX...",
        ".X.X.X..",
        "X..X..X.",
        "........",
    ]), player=1)
    assert game.discs(after) == (25, 0) and game.is_terminal(after)


def test_flips_only_closed_lines(game):
    s = game.position(board([
        "XOOOOOO.",  # h1 closes the longest possible line: six flips
        "......O.",  # g2 lies on h1's diagonal, but the line is open at f3: no flip
    ] + [EMPTY_ROW] * 6))
    assert [game.format_move(m) for m in game.legal_moves(s)] == ["h1"]
    after = game.apply(s, game.parse_move("h1"))
    assert after == game.position(board(["XXXXXXXX", "......O."] + [EMPTY_ROW] * 6), player=1)


# In bit order h1 is followed by a2, and a2 + 7 is h2: none of these is a line.
@pytest.mark.parametrize("top", [
    [".......O", "X......."],  # g1 must not flip h1 eastwards through a2
    [".......X", "O......."],  # b2 must not flip a2 westwards through h1
    ["........", "O......X"],  # b1 must not flip a2 south-westwards through h2
])
def test_lines_do_not_wrap_around_the_edge(game, top):
    s = game.position(board(top + [EMPTY_ROW, "XO......"] + [EMPTY_ROW] * 4))
    assert [game.format_move(m) for m in game.legal_moves(s)] == ["c4"]


def test_forced_pass_then_early_end(game):
    s = game.position(board(["XO......"] + [EMPTY_ROW] * 7), player=1)
    assert not game.is_terminal(s)
    assert game.legal_moves(s) == [PASS]
    assert "must pass" in game.render(s)
    s = game.apply(s, PASS)
    assert game.to_move(s) == 0
    assert [game.format_move(m) for m in game.legal_moves(s)] == ["c1"]
    s = game.apply(s, game.parse_move("c1"))
    assert game.is_terminal(s) and game.legal_moves(s) == []
    assert game.discs(s) == (3, 0)
    assert game.utility(s, 0) == 1 and game.utility(s, 1) == -1


def test_short_game_ends_before_the_board_is_full(game):
    # An 11-move game ending 14-1 with 49 empty squares, from Warren D. Smith, math-fun
    # list, "othello puzzles...": https://lists.xmission.com/hyperkitty/list/
    # mathfun@mailman.xmission.com/thread/2CE3M7JCM5R3R2BLM3GCPFI6QZYBNOHH
    moves = "f5 f4 c3 e6 f7 g6 g4 e8 g8 g5 h5".split()
    s = game.play(moves[:-1])
    assert not game.is_terminal(s)
    s = game.apply(s, game.parse_move(moves[-1]))
    assert game.is_terminal(s) and game.legal_moves(s) == []
    assert s == game.position(board([
        EMPTY_ROW,
        EMPTY_ROW,
        "..X.....",
        "...XXXX.",
        "...XXXXX",
        "....X.X.",
        ".....X..",
        "....O.X.",
    ]), player=1)
    assert game.discs(s) == (14, 1)
    assert game.utility(s, 0) == 1 and game.utility(s, 1) == -1
    assert "black wins 14-1" in game.render(s)


def test_draw_and_white_win_utilities(game):
    draw = game.position(board(["X......."] + [EMPTY_ROW] * 6 + [".......O"]))
    assert game.is_terminal(draw)
    assert game.utility(draw, 0) == 0 == game.utility(draw, 1)
    white = game.position(board(["X......O"] + [EMPTY_ROW] * 6 + [".......O"]), player=1)
    assert game.is_terminal(white)
    assert game.utility(white, 1) == 1 and game.utility(white, 0) == -1


@pytest.mark.parametrize("size", [4, 6, 8])
def test_random_playouts_are_consistent(size):
    g = Othello(size=size)
    lo, hi = g.bounds
    passes = 0
    for s in random_states(g, random.Random(size), games=40):
        moves = g.legal_moves(s)
        assert g.is_terminal(s) == (moves == [])
        assert list(moves) == sorted(moves)
        if moves == [PASS]:
            passes += 1
            assert g.legal_moves(g.apply(s, PASS)) not in ([], [PASS])
        if g.is_terminal(s):
            assert g.utility(s, 0) == -g.utility(s, 1)
            assert g.utility(s, 0) == (lambda b, w: (b > w) - (b < w))(*g.discs(s))
        else:
            h = g.heuristic(s, 0)
            assert lo < h < hi and g.heuristic(s, 1) == -h
        own, opp = s[0], s[1]
        assert own & opp == 0
    assert passes > 0  # the pass rule was exercised


def test_heuristic_prefers_corners_and_mobility(game):
    # The start position plus a black corner: better for black, whoever is to move.
    rows = ["X......."] + [EMPTY_ROW] * 2 + ["...OX...", "...XO..."] + [EMPTY_ROW] * 3
    s = game.position(board(rows))
    assert game.heuristic(s, 0) > 0 > game.heuristic(s, 1)


def test_apply_does_not_mutate(game):
    s = game.play(["d3", "c5"])
    copy = tuple(s)
    for m in game.legal_moves(s):
        game.apply(s, m)
    assert s == copy and game.legal_moves(s) == game.legal_moves(copy)


def test_transpositions_give_equal_states(game):
    a = game.play(["d3", "c3", "f5", "f6"])
    b = game.play(["f5", "f6", "d3", "c3"])
    assert a == b and hash(a) == hash(b)
    c = game.play(["d3", "c3", "c4", "e3"])
    d = game.play(["c4", "c3", "d3", "e3"])
    assert c == d and hash(c) == hash(d)
    assert a != c


@pytest.mark.parametrize("size", [4, 6, 8])
def test_parse_format_round_trip(size):
    g = Othello(size=size)
    for m in [PASS, *range(size * size)]:
        text = g.format_move(m)
        assert g.parse_move(text) == m
        assert g.parse_move(f"  {text.upper()} ") == m
    for s in random_states(g, random.Random(1), games=3):
        for m in g.legal_moves(s):
            assert g.parse_move(g.format_move(m)) == m


def test_move_text(game):
    assert game.parse_move("a1") == 0
    assert game.parse_move("h1") == 7
    assert game.parse_move("a2") == 8
    assert game.parse_move("H8") == 63
    assert game.parse_move("D3") == 19
    assert game.format_move(PASS) == "pass" and game.parse_move("PASS") == PASS


BAD_TEXT = ["", "d", "i1", "a9", "a0", "d10", "3d", "pas", "d3x", "a-", "d²", "d 3"]


@pytest.mark.parametrize("text", BAD_TEXT)
def test_parse_errors(game, text):
    with pytest.raises(IllegalMoveError):
        game.parse_move(text)


def test_parse_errors_depend_on_size():
    g = Othello(size=4)
    for text in ("e1", "a5"):
        with pytest.raises(IllegalMoveError):
            g.parse_move(text)


def test_illegal_move_rejected_by_play(game):
    with pytest.raises(IllegalMoveError):
        game.play(["d4"])


@pytest.mark.parametrize("bad", [5, 10, 0, "8", True, None])
def test_bad_size(bad):
    with pytest.raises(ParameterError):
        Othello(size=bad)


def test_size_from_text():
    assert Othello(**Othello.parse_params({"size": "6"})).size == 6
    with pytest.raises(ParameterError):
        Othello.parse_params({"size": "7"})
    with pytest.raises(ParameterError):
        Othello(rows=8)


def test_bad_board_picture(game):
    with pytest.raises(ValueError):
        game.position("X" * 63)
    with pytest.raises(ValueError):
        game.position("B" * 64)


def test_render(game):
    s = game.initial_state()
    text = game.render(s)
    assert "a b c d e f g h" in text
    assert "4 . . . O X . . ." in text
    assert "black (X) to move" in text and "X 2, O 2" in text
    assert "white (O) to move" in game.render(game.play(["d3"]))
