"""Chance in the rule book (docs/game-model.md): the model a game declares, chance nodes and
their outcomes, the conformance checks of a chance game, and Pig's rules."""

import random
import re

import pytest

from arena.game import CHANCE, Game, Model
from arena.testing import check_game
from arena.testing.playout import random_playout
from games.pig import HOLD, ROLL, Pig
from games.nim import Nim


def test_a_game_declares_nothing_and_is_two_player_zero_sum_and_deterministic():
    model = Nim().model
    assert model == Model() and model.players == 2 and not model.chance and model.total == 0.0
    assert model.features == frozenset()
    assert Pig().model.features == {"chance"}
    three = Model(players=3, total=None)
    assert three.features == {"players", "nonzero-sum"}
    assert three.describe(three.features) == "3 players and utilities that do not sum to zero"
    with pytest.raises(ValueError, match="1 or more players"):
        Model(players=0)


def test_utilities_of_every_seat_by_default():
    game = Nim(heaps=(1,))
    end = game.play(["1:1"])
    assert game.utilities(end) == (1.0, -1.0)


def test_pig_rules_roll_hold_and_a_one():
    game = Pig(goal=10)
    state = game.initial_state()
    assert game.to_move(state) == 0 and game.legal_moves(state) == [ROLL, HOLD]
    state = game.apply(state, ROLL)
    assert game.to_move(state) == CHANCE and game.legal_moves(state) == []
    assert game.chance_outcomes(state) == [(face, 1 / 6) for face in range(1, 7)]
    assert game.chance_seat(state, last=1) == 0  # the die is the player's on turn, whoever moved last
    rolled = game.apply(state, 5)
    assert rolled == (0, 0, 0, 5, False)
    banked = game.apply(rolled, HOLD)
    assert banked == (1, 0, 5, 0, False) and game.to_move(banked) == 1
    lost = game.apply(game.apply(game.apply(banked, ROLL), 4), ROLL)
    assert game.apply(lost, 1) == (0, 5, 0, 0, False)  # a 1: player 1's 4 points are lost, the die passes
    end = game.play(["roll", "6", "roll", "4", "hold"])
    assert game.is_terminal(end) and game.utilities(end) == (1.0, -1.0) and game.result_text(end) == "first wins"


def test_play_and_line_text_take_outcomes_where_they_fall():
    game = Pig(goal=10)
    assert game.play(["roll", "3"]) == (0, 0, 0, 3, False)
    assert game.choices(game.play(["roll"])) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(Exception, match="illegal move '7'|cannot read '7'"):
        game.play(["roll", "7"])
    with pytest.raises(Exception, match="illegal move"):
        game.play(["roll", "hold"])  # the die is in the air: no decision


def test_random_playouts_draw_outcomes_by_their_probabilities():
    # faces of a fair die from the playouts of Pig: each 1/6 of the rolls, within 4 standard errors
    game = Pig(goal=30)
    rng = random.Random(5)
    faces = []
    for _ in range(300):
        moves = random_playout(game, rng)
        state = game.initial_state()
        for move in moves:
            if game.to_move(state) == CHANCE:
                faces.append(move)
            state = game.apply(state, move)
    n = len(faces)
    for face in range(1, 7):
        share = faces.count(face) / n
        assert abs(share - 1 / 6) < 4 * (1 / 6 * 5 / 6 / n) ** 0.5, (face, share, n)


def test_check_game_passes_pig():
    report = check_game(Pig(goal=20), playouts=10)
    assert report.playouts == 10 and report.positions > 100


class Loaded(Pig):
    """Pig with a die whose probabilities are wrong in the way ``mistake`` says."""

    name = "loaded"

    def __init__(self, mistake: str, **params):
        super().__init__(**params)
        self.mistake = mistake

    def chance_outcomes(self, state):
        outcomes = super().chance_outcomes(state)
        if self.mistake == "sum":
            return [(face, 0.2) for face, _ in outcomes]
        if self.mistake == "zero":
            return [(face, p if face > 1 else 0.0) for face, p in outcomes[:-1]] + [(self.die, 2 / 6)]
        if self.mistake == "shape":
            return [face for face, _ in outcomes]
        return outcomes

    def legal_moves(self, state):
        if self.mistake == "moves" and state[4]:
            return [ROLL]
        return super().legal_moves(state)


@pytest.mark.parametrize("mistake, message", [
    ("sum", "probabilities sum to 1.2"), ("zero", "must be above 0"), ("shape", "is not (outcome, probability)"),
    ("moves", "a chance node has legal moves too"),
])
def test_check_game_finds_a_bad_die(mistake, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        check_game(Loaded(mistake, goal=10), playouts=3)


def test_a_chance_node_must_be_declared():
    class Undeclared(Pig):
        name = "undeclared"
        model = Model()  # says deterministic, yet to_move returns CHANCE

    with pytest.raises(AssertionError, match="to_move returned -1"):
        check_game(Undeclared(goal=10), playouts=2)


def test_games_without_chance_say_so():
    with pytest.raises(NotImplementedError, match="nim has no chance nodes"):
        Nim().chance_outcomes(Nim().initial_state())
    assert Game.chance_seat(Nim(), None, last=1) == 1


# ---- exact values by value iteration ----------------------------------------------------------

def test_value_iteration_gives_hand_computed_pig_values():
    from bots.chance_values import solve

    # goal 1, a two-faced die: the player on turn rolls (holding at 0 only passes the die);
    # a 2 wins, a 1 passes the same position to the other: W = 1/2 - W/2, so W = 1/3 and the
    # first player wins (1 + W) / 2 = 2/3. With six faces and goal 2: W = 5/6 - W/6, 6/7.
    for goal, die, first_wins in ((1, 2, 2 / 3), (2, 6, 6 / 7)):
        game = Pig(goal=goal, die=die)
        values = solve(game)
        assert (values.of(game.initial_state()) + 1) / 2 == pytest.approx(first_wins, abs=1e-9)
        assert values.best[game.initial_state()] == ROLL


def test_value_iteration_agrees_with_the_game_theoretic_value_of_nim():
    from bots.chance_values import solve

    # Nim: the player to move loses exactly when the heaps' XOR is 0 (Bouton 1901)
    for heaps in ((1, 2, 3), (1, 2, 4), (3, 4, 5), (2, 2)):
        game = Nim(heaps=heaps)
        values = solve(game)
        xor = 0
        for h in heaps:
            xor ^= h
        assert values.of(game.initial_state()) == (1.0 if xor else -1.0)
        assert values.sweeps < 20  # no cycles: the values settle in as many sweeps as plies


def test_solved_pig_holds_once_the_turn_reaches_the_goal_and_rolls_when_far_behind():
    from bots.chance_values import solve

    game = Pig(goal=20)
    values = solve(game)
    assert values.best[(0, 15, 0, 5, False)] == HOLD  # the only move, and a win
    assert values.best[(0, 0, 19, 0, False)] == ROLL  # far behind: holding at 0 just passes the die
    assert -1 < values.of(game.initial_state()) < 1
