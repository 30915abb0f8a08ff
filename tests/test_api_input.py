"""The public Python API refuses bad arguments before any game starts, in one clear error naming the argument."""

import pytest

import results
from arena import Budget, get_registry, play_game
from arena.errors import ParameterError
from arena.limits import Limits
from arena.testing import check_bot, check_game

REGISTRY = get_registry(entry_points=False)
NIM = REGISTRY.game("nim")
RANDOM = REGISTRY.bot("random")


@pytest.mark.parametrize(
    "arguments, error, words",
    [
        (dict(bots=[RANDOM]), ParameterError, "bots must be two bots"),
        (dict(bots=[RANDOM] * 3), ParameterError, "got 3"),
        (dict(bots=[RANDOM, "greedy"]), TypeError, "bots[1] is not a bot"),
        (dict(budgets=["nodes=5", "nodes=5"]), TypeError, "budgets[0] must be an arena.Budget"),
        (dict(budgets=[Budget(nodes=5)]), ParameterError, "budgets must be two Budgets"),
        (dict(time_margin=-1), ParameterError, "time_margin must be 0 or more seconds, got -1"),
        (dict(time_margin=float("nan")), ParameterError, "time_margin"),
        (dict(seed="1"), TypeError, "seed must be an integer"),
        (dict(names=["a"]), ParameterError, "names must be two strings"),
    ],
)
def test_play_game_refuses_bad_arguments(arguments, error, words):
    arguments = {"bots": [RANDOM, RANDOM], **arguments}
    with pytest.raises(error) as caught:
        play_game(NIM, **arguments)
    assert words in str(caught.value) and str(caught.value).startswith("play_game: ")


def test_a_game_whose_bounds_are_upside_down_is_refused():
    game = object.__new__(type(NIM))
    game.__dict__.update(NIM.__dict__)
    game.bounds = (1, -1)
    with pytest.raises(ParameterError, match=r"has bounds \(1, -1\): the lowest utility must be below the highest"):
        play_game(game, [RANDOM, RANDOM])
    game.bounds = (float("-inf"), 1)
    with pytest.raises(ParameterError, match="two finite numbers"):
        play_game(game, [RANDOM, RANDOM])
    with pytest.raises(TypeError, match="game must be an arena.Game"):
        play_game("nim", [RANDOM, RANDOM])


def test_budget_parse_refuses_empty_text_and_what_is_not_text():
    with pytest.raises(ParameterError, match="empty budget"):
        Budget.parse("")
    with pytest.raises(ParameterError, match="empty budget"):
        Budget.parse("   ")
    with pytest.raises(TypeError, match="takes text"):
        Budget.parse(1000)
    assert Budget.parse("none").unlimited


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_float_parameter_must_be_finite(value):
    with pytest.raises(ParameterError, match=f"bad value {value.lstrip('-')}|bad value -inf"):
        REGISTRY.bot(f"mcts:exploration={value}")


def test_limits_name_the_bad_value():
    with pytest.raises(ParameterError, match="time margin must be 0 or more seconds, got -1"):
        Limits(time_margin=-1)
    with pytest.raises(ParameterError, match="memory limit must be at least 128 MiB"):
        Limits(memory_limit=5)


def test_the_conformance_kit_and_results_tables_name_a_bad_argument():
    with pytest.raises(TypeError, match=r"check_game: game must be a Game, got 'nim'"):
        check_game("nim")
    with pytest.raises(ValueError, match="check_game: playouts must be 0 or more"):
        check_game(NIM, playouts=-1)
    with pytest.raises(TypeError, match="check_bot: bot must be a Bot"):
        check_bot("random", NIM)
    with pytest.raises(TypeError, match="results.load: path must be the path of a results database, got None"):
        results.load(None)
    with pytest.raises(TypeError, match=r"results.frames: records\[0\] is not an arena GameRecord: int"):
        results.frames([1])
