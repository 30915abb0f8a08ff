"""Every registered game and every bot x game pair against the conformance checks."""

import pytest

from arena import Budget, get_registry
from arena.testing import check_bot, check_game

REGISTRY = get_registry(entry_points=False)
# OpenSpiel's games are checked in test_openspiel.py, with fewer playouts for long games
GAMES = sorted(n for n, e in REGISTRY.games.items() if e.plugin != "games.openspiel")
# engines need a command to run: tests/test_engines.py checks them with its test engines
BOTS = sorted(name for name, entry in REGISTRY.bots.items() if not entry.cls.interactive and not entry.cls.external)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow(reason="15 random games of chess, about 350 plies each")) if n == "chess" else n
    for n in GAMES])
def test_game_conformance(name):
    report = check_game(REGISTRY.game(name), playouts=15)
    assert report.positions > 0
    if name != "wythoff":  # its moves name the destination square, so swapped orders are other moves
        # placements, or takes from a heap in either order, reach the same position
        assert report.transpositions > 0


# each bot with each game it handles; the others it refuses (below)
PAIRS = [(b, g) for g in GAMES for b in BOTS if REGISTRY.bot(b).suitable(REGISTRY.game(g)) is None]
REFUSED = [(b, g) for g in GAMES for b in BOTS if (b, g) not in PAIRS]


@pytest.mark.parametrize("bot, game", PAIRS)
def test_bot_returns_legal_move_within_budget(bot, game):
    checked = check_bot(
        REGISTRY.bot(bot), REGISTRY.game(game), budgets=(Budget(nodes=150), Budget(time=0.03)), positions=3
    )
    assert checked == 6


# bots that need more of a game than its model's features say: each says what in its own line
NEEDS_MORE = {
    "cfr": "strategy per information state",  # views: hidden information or simultaneous moves
    "regret": "repeated matrix game",  # a payoff per throw (rps)
    "policy": "strategy file",  # built without one
}


def test_a_bot_refuses_only_the_games_with_what_it_does_not_handle():
    assert REFUSED, "no bot refuses a registered game"
    for bot, game in REFUSED:
        b, g = REGISTRY.bot(bot), REGISTRY.game(game)
        missing = g.model.features - type(b).handles
        why = b.suitable(g)
        if not missing:
            assert bot in NEEDS_MORE and NEEDS_MORE[bot] in why and "\n" not in why, (bot, game, why)
            continue
        assert why == f"it plays games without {g.model.describe(missing)}; {game} has {g.model.describe(missing)}"
        with pytest.raises(AssertionError, match=f"^check_bot: bot '{bot}' refuses {game}: it plays games without"):
            check_bot(b, g)
