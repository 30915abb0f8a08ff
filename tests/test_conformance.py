"""Every registered game and every bot x game pair against the conformance checks."""

import pytest

from arena import Budget, get_registry
from arena.testing import check_bot, check_game

REGISTRY = get_registry(entry_points=False)
# OpenSpiel's games are checked in test_openspiel.py, with fewer playouts for long games
GAMES = sorted(n for n, e in REGISTRY.games.items() if e.plugin != "games.openspiel")
# engines need a command to run: tests/test_engines.py checks them with its test engines
BOTS = sorted(name for name, entry in REGISTRY.bots.items() if not entry.cls.interactive and not entry.cls.external)


@pytest.mark.parametrize("name", GAMES)
def test_game_conformance(name):
    report = check_game(REGISTRY.game(name), playouts=15)
    assert report.positions > 0
    if name != "wythoff":  # its moves name the destination square, so swapped orders are other moves
        # placements, or takes from a heap in either order, reach the same position
        assert report.transpositions > 0


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("game", GAMES)
def test_bot_returns_legal_move_within_budget(bot, game):
    checked = check_bot(
        REGISTRY.bot(bot), REGISTRY.game(game), budgets=(Budget(nodes=150), Budget(time=0.03)), positions=3
    )
    assert checked == 6
