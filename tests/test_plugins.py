"""The plugin registry: built-ins through the same hooks, duplicates, broken plugins."""

import sys
import tomllib
import types
from pathlib import Path

import pytest

from arena import Bot, Game, PluginError, UnknownNameError, get_registry, hookimpl
from arena.plugins import DEFAULT_PLUGINS, make_plugin_manager
from tests.plugins import duplicate, misbehaving

BUILT_IN_GAMES = {"nim", "bachet", "counting", "wythoff", "tictactoe", "connect4", "othello", "chess", "tree", "pig", "rolit",
                  "rps", "goofspiel", "kuhn_poker", "leduc_poker"}
BUILT_IN_BOTS = {"random", "greedy", "minimax", "alphabeta", "iterative", "solver", "mcts", "expectimax", "star1", "star2", "human", "engine", "uci", "maxn", "paranoid", "brs",
                 "uniform", "regret", "cfr", "policy", "ismcts", "pimc"}


def test_built_ins_are_registered_through_the_hooks(registry):
    games = {n: e for n, e in registry.games.items() if e.plugin != "games.openspiel"}  # see test_openspiel.py
    assert set(games) == BUILT_IN_GAMES
    assert set(registry.bots) == BUILT_IN_BOTS
    assert {e.plugin for e in games.values()} == {"games.builtin"}
    assert {e.plugin for e in registry.bots.values()} == {"bots.builtin", "bots.engine"}
    pm = make_plugin_manager()
    assert {pm.get_name(p) for p in pm.get_plugins()} == set(DEFAULT_PLUGINS)


def test_classes_are_registered_and_built_from_specs(registry):
    assert issubclass(registry.game_class("connect4"), Game)
    assert issubclass(registry.bot_class("alphabeta"), Bot)
    game = registry.game("connect4:columns=8,rows=7")
    assert (game.columns, game.rows) == (8, 7)
    assert registry.game("connect4:columns=8", rows=5).params["rows"] == 5
    assert registry.bot("alphabeta:depth=4,ordering=false").spec == "alphabeta:depth=4,ordering=false"


def test_unknown_names_suggest_the_nearest_or_say_how_to_list_them(registry):
    with pytest.raises(UnknownNameError) as info:
        registry.game("mahjong")
    assert str(info.value) == "unknown game 'mahjong' (arena games lists them)"
    assert isinstance(info.value, KeyError)
    with pytest.raises(UnknownNameError) as info:
        registry.bot("alphabet")
    assert str(info.value) == "unknown bot 'alphabet'; did you mean 'alphabeta'? (arena bots lists them)"
    with pytest.raises(UnknownNameError) as info:
        registry.game("tictacto")
    near = "'tictactoe' or 'openspiel.tic_tac_toe'" if "openspiel.tic_tac_toe" in registry.games else "'tictactoe'"
    assert str(info.value) == f"unknown game 'tictacto'; did you mean {near}? (arena games lists them)"


def test_at_most_three_names_are_suggested_and_a_dotted_name_by_its_last_part():
    registry = get_registry(entry_points=False)
    registry.bots = {name: registry.bots["random"] for name in ("mcts1", "mcts2", "mcts3", "mcts4", "plugin.uct")}
    with pytest.raises(UnknownNameError) as info:
        registry.bot("mcts")
    assert str(info.value) == "unknown bot 'mcts'; did you mean 'mcts1', 'mcts2' or 'mcts3'? (arena bots lists them)"
    with pytest.raises(UnknownNameError, match=r"did you mean 'plugin\.uct'\?"):
        registry.bot("uct")


def test_an_openspiel_game_without_openspiel_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # open-spiel not installed
    registry = get_registry(entry_points=False)
    assert not any(name.startswith("openspiel.") for name in registry.games)
    for spec in ("openspiel.hex", "openspiel.hex:board_size=7", "openspiel.no_such_game"):
        with pytest.raises(UnknownNameError) as info:
            registry.game(spec)
        name = spec.partition(":")[0]
        assert str(info.value) == f"the game {name!r} needs OpenSpiel: pip install 'botarena[openspiel]'"
    with pytest.raises(UnknownNameError, match=r"^unknown game 'hexx' \(arena games lists them\)$"):
        registry.game("hexx")  # only names of OpenSpiel's own say so
    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert any(d.startswith("open-spiel") for d in pyproject["project"]["optional-dependencies"]["openspiel"])


def test_a_test_plugin_adds_bots():
    registry = get_registry(entry_points=False, plugins=[misbehaving])
    assert registry.bots["raises"].plugin == "tests.plugins.misbehaving"
    assert BUILT_IN_BOTS < set(registry.bots)


def test_duplicate_name_is_reported_naming_both_plugins_and_skipped():
    registry = get_registry(entry_points=False, plugins=[duplicate])
    assert registry.errors == [
        "bot name 'random' is registered twice: by plugin 'bots.builtin' and by plugin "
        "'tests.plugins.duplicate'; the second (AnotherRandom) is skipped"
    ]
    assert registry.bots["random"].plugin == "bots.builtin"
    assert set(registry.bots) == BUILT_IN_BOTS


def test_registering_something_that_is_not_a_class_is_an_error():
    plugin = types.SimpleNamespace(register_games=hookimpl(lambda register: register(object())))
    with pytest.raises(PluginError, match="which is not a subclass of arena.Game"):
        get_registry(entry_points=False, plugins=[plugin])


def test_misspelled_hook_is_caught():
    import pluggy

    plugin = types.SimpleNamespace(register_gamez=hookimpl(lambda register: None))
    with pytest.raises(pluggy.PluginValidationError, match="register_gamez"):
        get_registry(entry_points=False, plugins=[plugin])


def test_each_registry_is_fresh():
    a = get_registry(entry_points=False, plugins=[misbehaving])
    b = get_registry(entry_points=False)
    assert "raises" in a.bots and "raises" not in b.bots
