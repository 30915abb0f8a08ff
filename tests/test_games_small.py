"""Tests for the small take-away games: nim, bachet, counting, wythoff."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from arena import IllegalMoveError, ParameterError
from games.bachet import Bachet
from games.counting import Counting
from games.nim import Nim
from games.wythoff import Wythoff
from helpers import random_states, solve


GAMES = [
    Nim(),
    Nim(heaps=(1, 2, 3, 7), misere=True),
    Nim(heaps=(0, 5)),
    Bachet(),
    Bachet(matches=10, take=4),
    Counting(),
    Counting(variant="22"),
    Wythoff(),
    Wythoff(size=5, row=0, column=0),
]
IDS = [g.spec for g in GAMES]


# Known answers from outside.


def test_nim_normal_play_bouton():
    # Bouton, "Nim, a game with a complete mathematical theory", Annals of Mathematics 3
    # (1901): the player to move wins exactly when the XOR of the heap sizes is non-zero.
    memo = {}
    for heaps in itertools.product(range(5), repeat=3):
        if not any(heaps):
            continue
        game = Nim(heaps=heaps)
        won = solve(game, game.initial_state(), memo) > 0
        assert won == (heaps[0] ^ heaps[1] ^ heaps[2] != 0), heaps


def test_nim_misere_bouton():
    # Bouton (1901), misère rule: when every heap is 0 or 1 the player to move wins exactly
    # when the number of 1-heaps is even; otherwise exactly when the XOR is non-zero.
    memo = {}
    for heaps in itertools.product(range(5), repeat=3):
        if not any(heaps):
            continue
        game = Nim(heaps=heaps, misere=True)
        won = solve(game, game.initial_state(), memo) > 0
        if max(heaps) <= 1:
            expected = sum(heaps) % 2 == 0
        else:
            expected = heaps[0] ^ heaps[1] ^ heaps[2] != 0
        assert won == expected, heaps


def test_nim_misere_last_object_loses():
    game = Nim(heaps=(1,), misere=True)
    end = game.apply(game.initial_state(), (0, 1))
    assert game.is_terminal(end)
    assert game.utility(end, 0) == -1 and game.utility(end, 1) == 1
    normal = Nim(heaps=(1,))
    end = normal.apply(normal.initial_state(), (0, 1))
    assert normal.utility(end, 0) == 1 and normal.utility(end, 1) == -1


def test_bachet_losing_positions_are_multiples_of_k_plus_1():
    # Bachet de Méziriac, "Problèmes plaisans et délectables" (1612), problem XXII; see also
    # https://en.wikipedia.org/wiki/Subtraction_game : with moves 1..k the player to move
    # loses exactly when the pile is a multiple of k + 1.
    for take in range(1, 8):
        memo = {}
        for matches in range(1, 40):
            game = Bachet(matches=matches, take=take)
            lost = solve(game, game.initial_state(), memo) < 0
            assert lost == (matches % (take + 1) == 0), (matches, take)


def test_counting_21_second_player_wins():
    # The "21 game" (say 1 to 3 numbers; whoever says 21 loses): the second player wins by
    # always completing a multiple of 4. https://en.wikipedia.org/wiki/21_(drinking_game)
    game = Counting(variant="21")
    assert solve(game, game.initial_state(), {}) == -1


def test_counting_22_is_a_draw():
    # Known answer stated in the project's issue (no published source found). By hand: from
    # 19 the mover says 22 (+2); from 18 the best is 21 (+1); from 17 down to 0 every move
    # either hands the opponent 18 or 19 or ends at 20, so the value is 0: a draw.
    game = Counting(variant="22")
    memo = {}
    assert solve(game, game.initial_state(), memo) == 0
    values = [solve(game, game.play([1] * counter), memo) for counter in range(20)]
    assert values == [0] * 18 + [1, 2]


def test_counting_22_outcomes():
    game = Counting(variant="22")
    for counter, value in ((20, 0), (21, 1), (22, 2)):
        state = game.play([3] * 6 + [1, counter - 19])  # 19, then player 1 moves to `counter`
        assert game.is_terminal(state)
        assert game.utility(state, 1) == value and game.utility(state, 0) == -value
    assert game.result_text(game.play([3] * 6 + [1, 3])) == "second wins double"
    assert game.bounds == (-2, 2) and Counting().bounds == (-1, 1)


def test_counting_21_cannot_pass_21():
    game = Counting()
    state = game.play([3] * 6 + [2])  # 20
    assert game.legal_moves(state) == [1]
    state = game.apply(state, 1)
    assert game.is_terminal(state) and game.legal_moves(state) == []
    assert game.utility(state, game.to_move(state)) == 1  # the player who said 21 lost


def wythoff_pairs(limit):
    """Losing distances (a_k, b_k) and (b_k, a_k), a_k = floor(k phi), b_k = a_k + k."""
    phi = (1 + math.sqrt(5)) / 2
    pairs = set()
    for k in range(limit + 1):
        a = math.floor(k * phi)
        pairs |= {(a, a + k), (a + k, a)}
    return pairs


@pytest.mark.parametrize("size", [8, 20])
def test_wythoff_losing_squares_are_wythoff_pairs(size):
    # W. A. Wythoff, "A modification of the game of Nim", Nieuw Archief voor Wiskunde 7
    # (1907); a_k = OEIS A000201, b_k = OEIS A001950. Floats are exact enough for k <= 20.
    pairs = wythoff_pairs(size)
    assert {(0, 0), (1, 2), (3, 5), (4, 7), (6, 10)} <= pairs
    memo = {}
    last = size - 1
    for row, column in itertools.product(range(size), repeat=2):
        if row == column == last:
            continue
        game = Wythoff(size=size, row=row, column=column)
        lost = solve(game, game.initial_state(), memo) < 0
        assert lost == ((last - row, last - column) in pairs), (row, column)


def test_wythoff_first_player_wins_from_default_start():
    game = Wythoff()
    assert game.initial_state()[:2] == (1, 0)
    assert solve(game, game.initial_state(), {}) == 1


def test_wythoff_moves():
    game = Wythoff(size=4, row=1, column=2)
    moves = game.legal_moves(game.initial_state())
    assert moves == [(1, 3), (2, 2), (2, 3), (3, 2)]
    assert [game.format_move(m) for m in moves] == ["d2", "c3", "d3", "c4"]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_heuristic_agrees_with_exact_value(game):
    memo = {}
    for state in random_states(game, random.Random(1), games=20):
        if not game.is_terminal(state):
            p = game.to_move(state)
            assert (game.heuristic(state, p) > 0) == (solve(game, state, memo) > 0), state


# Parameters.


@pytest.mark.parametrize(
    "cls, params",
    [
        (Nim, {"heaps": ()}),
        (Nim, {"heaps": (0, 0, 0)}),
        (Nim, {"heaps": (3, -1)}),
        (Nim, {"heaps": 5}),
        (Nim, {"misere": "yes"}),
        (Nim, {"piles": (1, 2)}),
        (Bachet, {"matches": 0}),
        (Bachet, {"take": 0}),
        (Bachet, {"matches": 2.5}),
        (Counting, {"variant": "23"}),
        (Counting, {"variant": 21}),
        (Wythoff, {"size": 1}),
        (Wythoff, {"size": 27}),
        (Wythoff, {"row": 8}),
        (Wythoff, {"column": -1}),
        (Wythoff, {"size": 4, "column": 4}),
        (Wythoff, {"row": 7, "column": 7}),
    ],
)
def test_bad_parameters(cls, params):
    with pytest.raises(ParameterError):
        cls(**params)


def test_parameters_from_text():
    game = Nim(**Nim.parse_params({"heaps": "1,2,3", "misere": "true"}))
    assert game.heaps == (1, 2, 3) and game.misere and game.spec == "nim:heaps=1,2,3,misere=true"
    with pytest.raises(ParameterError):
        Nim(**Nim.parse_params({"heaps": "0,0"}))
    assert Counting(**Counting.parse_params({"variant": "22"})).bounds == (-2, 2)
    assert Wythoff(**Wythoff.parse_params({"size": "20", "row": "19", "column": "0"})).size == 20


def test_defaults():
    assert Nim().initial_state()[0] == (3, 4, 5)
    assert Bachet().initial_state()[0] == 21 and Bachet().take == 3
    assert Counting().variant == "21"
    assert (Wythoff().size, Wythoff().row, Wythoff().column) == (8, 1, 0)


# Moves as text.


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_format_parse_round_trip(game):
    for state in random_states(game, random.Random(2), games=10):
        for move in game.legal_moves(state):
            text = game.format_move(move)
            assert game.parse_move(text) == move
            assert game.parse_move(f"  {text.upper()} ") == move


def test_move_text_examples():
    assert Nim().parse_move("2:3") == (1, 3) and Nim().format_move((1, 3)) == "2:3"
    assert Nim().parse_move(" 2 : 3 ") == (1, 3)
    assert Bachet().parse_move(" 2 ") == 2
    assert Counting().parse_move("3") == 3
    assert Wythoff().parse_move("b3") == (2, 1) and Wythoff().format_move((2, 1)) == "b3"
    assert Wythoff().parse_move(" B3 ") == (2, 1)


@pytest.mark.parametrize(
    "game, text",
    [
        (Nim(), ""),
        (Nim(), "2"),
        (Nim(), "0:1"),
        (Nim(), "1:0"),
        (Nim(), "a:b"),
        (Nim(), "1:2:3"),
        (Nim(), "-1:2"),
        (Bachet(), ""),
        (Bachet(), "0"),
        (Bachet(), "-1"),
        (Bachet(), "two"),
        (Bachet(), "1.5"),
        (Counting(), "0"),
        (Counting(), "4"),
        (Counting(), "x"),
        (Wythoff(), ""),
        (Wythoff(), "b"),
        (Wythoff(), "3b"),
        (Wythoff(), "b0"),
        (Wythoff(), "bb3"),
        (Wythoff(), "(1, 2)"),
    ],
)
def test_parse_errors(game, text):
    with pytest.raises(IllegalMoveError):
        game.parse_move(text)


# Conformance over random positions.


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_heuristic_inside_bounds_and_antisymmetric(game):
    low, high = game.bounds
    for state in random_states(game, random.Random(3), games=40):
        if game.is_terminal(state):
            continue
        h0, h1 = game.heuristic(state, 0), game.heuristic(state, 1)
        assert low < h0 < high and low < h1 < high
        assert h0 == -h1


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_terminal_utilities_zero_sum(game):
    seen = 0
    for state in random_states(game, random.Random(4), games=40):
        if game.is_terminal(state):
            seen += 1
            assert game.legal_moves(state) == []
            u0, u1 = game.utility(state, 0), game.utility(state, 1)
            assert u0 == -u1 and game.bounds[0] <= u0 <= game.bounds[1]
        else:
            assert game.legal_moves(state)
    assert seen == 40


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_apply_leaves_input_alone(game):
    for state in random_states(game, random.Random(5), games=5):
        before = repr(state)
        for move in game.legal_moves(state):
            after = game.apply(state, move)
            assert after != state and game.to_move(after) != game.to_move(state)
        assert repr(state) == before
        hash(state)


@pytest.mark.parametrize(
    "game, one, other",
    [
        (Nim(), ["1:1", "2:2"], ["2:2", "1:1"]),
        (Nim(), ["3:2", "3:1"], ["3:1", "3:2"]),
        (Bachet(), ["1", "3"], ["3", "1"]),
        (Counting(variant="22"), ["1", "2"], ["2", "1"]),
        (Wythoff(), ["c2", "c4"], ["a4", "c4"]),
    ],
)
def test_transpositions_give_equal_states(game, one, other):
    a, b = game.play(one), game.play(other)
    assert a == b and hash(a) == hash(b)


def test_transposition_matches_fresh_start():
    assert Wythoff().play(["c2", "c4"]) == Wythoff(row=3, column=2).initial_state()
    assert Nim().play(["1:1", "2:2"]) == Nim(heaps=(2, 2, 5)).initial_state()
    assert Bachet().play(["1", "3"]) == Bachet(matches=17).initial_state()


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_render_names_the_player_to_move(game):
    state = game.initial_state()
    assert f"{game.player_name(0)} to move" in game.render(state)
    state = game.apply(state, game.legal_moves(state)[0])
    assert f"{game.player_name(1)} to move" in game.render(state)


def test_illegal_move_rejected_by_play():
    with pytest.raises(IllegalMoveError):
        Bachet().play(["4"])
    with pytest.raises(IllegalMoveError):
        Nim().play(["1:4"])
    with pytest.raises(IllegalMoveError):
        Wythoff().play(["b1"])  # up is not allowed
