"""The plugin's tests: the arena's conformance checks first, then facts about our own game."""

from functools import cache

import pytest

import arena
import arena_example.plugin
from arena.testing import check_bot, check_game, check_plugin
from arena_example.cautious import CautiousBot
from arena_example.fifteen import Fifteen


def test_plugin_conformance():
    """One call: every game and bot the plugin registers, and each bot on each game."""
    check_plugin(arena_example.plugin)


@pytest.mark.parametrize(
    "params",
    [
        {"largest": 12, "target": 20},
        {"largest": 8, "target": 9, "count": 2},
        {"largest": 1, "target": 1, "count": 1},
    ],
)
def test_game_with_other_parameters(params):
    check_game(Fifteen(**params))


@pytest.mark.parametrize("game", ["tictactoe", "connect4", "othello"])
@pytest.mark.parametrize("lookahead", [True, False])
def test_bot_on_builtin_games(game, lookahead):
    registry = arena.get_registry(entry_points=False)
    check_bot(CautiousBot(lookahead=lookahead), registry.game(game))


def test_winning_sets_are_the_magic_square():
    # The eight triples of 1..9 summing to 15 are the rows, columns and diagonals of the
    # 3x3 magic square, so Number Scrabble is tic-tac-toe (Berlekamp, Conway and Guy,
    # "Winning Ways", ch. 22; https://en.wikipedia.org/wiki/Number_Scrabble).
    square = ((2, 7, 6), (9, 5, 1), (4, 3, 8))
    lines = [*square, *zip(*square), (2, 5, 8), (6, 5, 4)]
    assert set(Fifteen().lines) == {frozenset(line) for line in lines}


def test_same_positions_and_value_as_tictactoe():
    # Tic-tac-toe has 5,478 reachable positions (1 + 9 + 72 + 252 + 756 + 1,260 + 1,520
    # + 1,140 + 390 + 78 by ply) and is a draw with best play; so must Number Scrabble be.
    registry = arena.get_registry(entry_points=False)
    for game in (Fifteen(), registry.game("tictactoe")):

        @cache
        def value(state):  # negamax value for the player to move; states are hashable
            if game.is_terminal(state):
                return game.utility(state, game.to_move(state))
            return max(-value(game.apply(state, m)) for m in game.legal_moves(state))

        assert value(game.initial_state()) == 0, game.name
        assert value.cache_info().currsize == 5478, game.name


def test_cautious_takes_a_win_and_blocks_one():
    game = Fifteen()
    bot = CautiousBot()
    threat = game.play([5, 1, 2])  # first holds 5 and 2: taking 8 would make 15
    unblocked = game.play([5, 1, 2, 3])
    for seed in range(10):
        bot.new_game(game, 1, seed)
        assert bot.choose(game, threat, arena.Counter()).move == 8
        bot.new_game(game, 0, seed)
        decision = bot.choose(game, unblocked, arena.Counter())
        assert (decision.move, decision.score) == (8, 1)


def test_moves_and_parameters_are_checked():
    game = Fifteen()
    assert game.parse_move(" 7 ") == 7
    with pytest.raises(arena.IllegalMoveError, match="'10'.*1 to 9"):
        game.parse_move("10")
    with pytest.raises(arena.ParameterError, match="'count'.*at most largest"):
        Fifteen(largest=3, count=4)
