"""arena.testing fails with one AssertionError naming the game or bot, the moves and what broke."""

import re
import time

import pytest

from arena import Bot, Budget
from arena.testing import TIME_ATTEMPTS, check_bot, check_game, check_plugin
from games.nim import Nim
from tests.plugins import clashing


class ListNim(Nim):
    """Nim whose states hold a list: not hashable."""

    name = "list-nim"

    def initial_state(self):
        heaps, player, left = super().initial_state()
        return (list(heaps), player, left)

    def apply(self, state, move):
        heaps, player, left = super().apply((tuple(state[0]), state[1], state[2]), move)
        return (list(heaps), player, left)


class BrokenHeuristicNim(Nim):
    """Nim whose heuristic raises once two objects are gone."""

    name = "broken-heuristic"

    def heuristic(self, state, player):
        if sum(self.heaps) - state[2] >= 2:
            raise ZeroDivisionError("division by zero")
        return super().heuristic(state, player)


class BrokenApplyNim(Nim):
    """Nim whose apply fails on the last object of the first heap."""

    name = "broken-apply"

    def apply(self, state, move):
        if move[0] == 0 and state[0][0] == move[1]:
            raise IndexError("heap emptied")
        return super().apply(state, move)


class RaisingBot(Bot):
    name = "raiser"

    def choose(self, game, state, budget):
        if len(game.legal_moves(state)) < 9:
            raise RuntimeError("boom")
        return game.legal_moves(state)[0]


def _message(call) -> str:
    with pytest.raises(AssertionError) as info:
        call()
    text = str(info.value)
    assert "\n" not in text, text
    return text


def test_an_unhashable_state_names_the_game_and_says_so():
    text = _message(lambda: check_game(ListNim(heaps=(2, 2)), playouts=2))
    assert re.match(r"^list-nim after (no moves|moves [0-9: ]+): state \(\[.*\], 0, 4\) is not hashable", text), text


def test_a_game_method_that_raises_names_the_game_the_moves_and_the_error():
    text = _message(lambda: check_game(BrokenHeuristicNim(heaps=(3, 4)), playouts=2))
    assert re.match(r"^broken-heuristic after moves [0-9: ]+: raised ZeroDivisionError: division by zero$", text), text
    text = _message(lambda: check_game(BrokenApplyNim(heaps=(2, 3)), playouts=5))
    assert re.match(r"^broken-apply after (no moves|moves [0-9: ]+): raised IndexError: heap emptied$", text), text


def test_a_bot_that_raises_names_the_bot_the_game_the_moves_and_the_error():
    text = _message(lambda: check_bot(RaisingBot(), Nim(heaps=(3, 4, 5))))
    assert re.match(r"^bot 'raiser' in nim after moves [0-9: ]+ with budget \S+: raised RuntimeError: boom$", text), text


def test_a_plugin_whose_names_clash_fails_the_check_naming_the_clash():
    text = _message(lambda: check_plugin(clashing))
    assert "'random'" in text and "clashing" in text, text


class SlowBot(Bot):
    """Sleeps ``delay`` seconds on its first ``slow_asks`` moves, then answers at once."""

    name = "slow"

    def __init__(self, delay: float, slow_asks: int):
        super().__init__()
        self.delay, self.slow_asks, self.asks = delay, slow_asks, 0

    def choose(self, game, state, budget):
        self.asks += 1
        if self.asks <= self.slow_asks:
            time.sleep(self.delay)
        return game.legal_moves(state)[0]


def test_a_bot_that_always_overruns_its_time_budget_fails_with_every_time_it_took():
    bot = SlowBot(delay=0.2, slow_asks=10**6)
    text = _message(lambda: check_bot(bot, Nim(heaps=(3, 4)), budgets=(Budget(time=0.05),), positions=1, time_margin=0.05))
    times = re.findall(r"(\d+\.\d+)s", text.partition(": took ")[2])
    assert len(times) == TIME_ATTEMPTS and all(float(t) >= 0.2 for t in times), text
    assert text.startswith("bot 'slow' in nim after "), text


def test_a_move_stalled_once_by_a_busy_machine_is_asked_again():
    bot = SlowBot(delay=0.2, slow_asks=1)
    assert check_bot(bot, Nim(heaps=(3, 4)), budgets=(Budget(time=0.05),), positions=2, time_margin=0.05) == 2
    assert bot.asks == 3  # the stalled move twice, the next one once
