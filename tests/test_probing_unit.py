"""The runner's side of --sandbox in one process (arena.execution.sandbox.probing): the stand-ins
for probed bot classes and bots (ProbedClass, ProbedBot), the registry that mixes them with the
arena's own (ProbedRegistry), how ``sandboxed_registry`` turns the probes' answers into it (names
taken twice, failed probes, checks, a third-party game's plugin and the second round of probes),
``registry``, ``check_sandbox``, ``import_plugins`` and ``_probe_all``.

Every probe here is a fake that returns what ``arena.execution.sandbox.probe.probe`` would (an
answer that passes its ``answer_problem``), and bubblewrap is never started: the tests of real
sandboxes are tests/test_probing.py and tests/test_plugin_distributions.py. A probe's answer is
written by the plugin it probes, so it is not trusted: the tests also pin what a hostile answer
cannot do (take the arena's own names, check another plugin's bots, get itself imported here).
"""

import sys
import threading
import time
import types

import pytest

from arena import Bot, hookimpl
from arena.errors import ArenaError, ParameterError, PluginError, UnknownNameError
from arena.execution.sandbox import probing
from arena.execution.sandbox.probe import answer_problem
from arena.execution.sandbox.probing import (
    ProbedBot, ProbedClass, ProbedRegistry, _key, _name, _probe_all, check_sandbox, import_plugins, registry,
    sandboxed_registry,
)
from arena.limits import Limits
from arena.plugins import PluginRegistry, get_registry
from games.tictactoe import TicTacToe

LIMITS = Limits(sandbox=True, watchdog=7.0)


# plugins made here, never written to disk


class Outsider(Bot):
    name = "outsider"
    description = "a third-party bot imported here"

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


class Noughts(TicTacToe):
    name = "noughts"
    description = "tic-tac-toe under another name, from a third-party plugin"


def plugin_module(name, bots=(), games=()):
    """A plugin module registering ``bots`` and ``games``."""
    module = types.ModuleType(name)

    @hookimpl
    def register_bots(register):
        for cls in bots:
            register(cls)

    @hookimpl
    def register_games(register):
        for cls in games:
            register(cls)

    module.register_bots, module.register_games = register_bots, register_games
    return module


def about(interactive=False, follows_moves=False, description="probed"):
    """A bot's entry in a probe's answer."""
    return {"interactive": interactive, "external": False, "follows_moves": follows_moves,
            "describe": {"name": "x", "description": description, "parameters": []}, "class": "X"}


def answer(games=(), bots=None, errors=(), checks=None):
    out = {"games": list(games), "bots": dict(bots or {}), "errors": list(errors), "game": True,
           "checks": dict(checks or {})}
    assert answer_problem(out) is None  # what a probe lets through
    return out


class Probes:
    """Fake probes and sandbox: each source's answer (by its game plugins), and every call."""

    def __init__(self, monkeypatch, answers, entry_points=(), files=None):
        self.answers = answers  # (source, game plugins) -> answer
        self.calls = []
        self.checked = 0
        self.loaded = []
        self.registries = []
        self.files = files
        monkeypatch.setattr(probing, "probe", self.probe)
        monkeypatch.setattr(probing, "entry_point_sources", lambda: list(entry_points))
        monkeypatch.setattr(probing.bubblewrap, "check", self.check)
        monkeypatch.setattr(probing.bubblewrap, "source_files", self.source_files)
        monkeypatch.setattr(probing, "get_registry", self.get_registry)
        monkeypatch.setattr(probing, "load_plugin", self.load_plugin)
        self.modules = {}

    def probe(self, source, game, specs, limits, game_plugins=()):
        self.calls.append((source, game, specs, limits, game_plugins))
        return self.answers[(source, tuple(game_plugins))]

    def check(self):
        self.checked += 1

    def source_files(self, name):
        if self.files is not None:
            return self.files.get(name, ())
        return (f"/site/{name}.py",)

    def get_registry(self, **kwargs):
        self.registries.append(kwargs)
        return get_registry(**kwargs)

    def load_plugin(self, source):
        self.loaded.append(source)
        found = self.modules[source]
        if isinstance(found, Exception):
            raise found
        return found


# ProbedClass and ProbedBot


def test_a_probed_class_keeps_what_its_probe_said():
    info = about(interactive=True, follows_moves=True, description="it listens")
    cls = ProbedClass("nosy", "nosy_plugin", info)
    assert (cls.name, cls.source, cls.interactive, cls.follows_moves) == ("nosy", "nosy_plugin", True, True)
    assert cls.about is info and cls.checks == {} and cls.external is False and ProbedClass.external is False
    assert cls.describe() == {"name": "x", "description": "it listens", "parameters": []}
    plain = ProbedClass("quiet", "q", about())
    assert plain.interactive is False and plain.follows_moves is False


def test_the_key_of_parameters_is_their_sorted_pairs_so_their_order_does_not_matter():
    assert _key({"b": "2", "a": "1"}) == (("a", "1"), ("b", "2")) == _key({"a": "1", "b": "2"})
    assert _key({}) == ()


def test_a_short_name_is_the_probes_for_those_parameters_else_none():
    cls = ProbedClass("nosy", "p", about())
    cls.checks[_key({"a": "1", "b": "2"})] = {"short": "nosy-short"}
    cls.checks[_key({})] = {"params": {}}
    assert cls.short_name({"b": "2", "a": "1"}) == "nosy-short"
    assert cls.short_name({}) is None  # checked, without a short name
    assert cls.short_name({"a": "1"}) is None  # never checked


def test_a_spec_the_probe_did_not_check_cannot_be_checked():
    cls = ProbedClass("nosy", "p", about())
    with pytest.raises(ArenaError) as caught:
        cls.check("nosy:x=1", {"x": "1"})
    assert type(caught.value) is ArenaError
    assert str(caught.value) == "bot 'nosy:x=1' could not be checked in its sandbox"


def test_a_checked_spec_gives_back_what_the_probe_found():
    cls = ProbedClass("nosy", "p", about())
    found = {"short": None, "params": {"x": 1}, "parameters": True}
    cls.checks[_key({"x": "1"})] = found
    assert cls.check("nosy:x=1", {"x": "1"}) is found


def test_an_interactive_bot_with_readable_parameters_cannot_enter_a_tournament():
    cls = ProbedClass("person", "p", about(interactive=True))
    cls.checks[()] = {"short": None, "params": {}, "parameters": False}
    with pytest.raises(ParameterError) as caught:
        cls.check("person", {})
    assert str(caught.value) == "bot 'person' is played by a person and cannot enter a tournament"


def test_an_interactive_bot_whose_parameters_did_not_read_gets_that_error_instead():
    cls = ProbedClass("person", "p", about(interactive=True))
    cls.checks[_key({"x": "y"})] = {"short": None, "error": ["ParameterError", "bad value 'y' for x"]}
    with pytest.raises(ParameterError, match="^bad value 'y' for x$"):
        cls.check("person:x=y", {"x": "y"})
    cls.checks[()] = {"short": None}  # neither parameters nor an error: nothing to refuse
    assert cls.check("person", {}) == {"short": None}


@pytest.mark.parametrize("kind, raised", [
    ("ParameterError", ParameterError),
    ("UnknownNameError", UnknownNameError),
    ("ArenaError", ArenaError),
    ("PluginError", ArenaError),  # any other name: a plain ArenaError
    ("SystemExit", ArenaError),  # a hostile name picks no class of the runner's
    ("__class__", ArenaError),
])
def test_the_error_a_probe_found_is_raised_again_as_its_kind_or_an_arena_error(kind, raised):
    cls = ProbedClass("nosy", "p", about())
    cls.checks[()] = {"short": None, "params": {}, "parameters": False, "error": [kind, "it refuses tictactoe"]}
    with pytest.raises(Exception) as caught:
        cls.check("nosy", {})
    assert type(caught.value) is raised and str(caught.value) == "it refuses tictactoe"


def test_a_probed_bot_stands_in_for_the_bot_and_checks_nothing_here():
    cls = ProbedClass("nosy", "p", about())
    bot = ProbedBot(cls, "nosy:x=1", {"params": {"x": 1}, "parameters": True, "short": None})
    assert (bot.spec, bot.name, bot.cls, bot.params, bot.parameters) == ("nosy:x=1", "nosy", cls, {"x": 1}, True)
    assert bot.interactive is False and bot.external is False
    assert bot.check_game(TicTacToe()) is None


# ProbedRegistry


THIRD = plugin_module("third_party_here", bots=[Outsider], games=[Noughts])


@pytest.fixture(scope="module")
def local():
    """The arena's own plugins and one third-party plugin imported here."""
    return get_registry(entry_points=False, plugins=[THIRD])


def probed_registry(local, trusted=(), other_games=("faraway",), errors=None):
    nosy = ProbedClass("nosy", "nosy_plugin", about())
    nosy.checks[()] = {"short": "nosy.py", "params": {}, "parameters": False}
    nosy.checks[_key({"x": "1"})] = {"short": None, "params": {"x": 1}, "parameters": True}
    nosy.checks[_key({"x": "0"})] = {"short": None, "params": {"x": 0}, "parameters": True, "broken": "ZeroDivisionError: x"}
    nosy.checks[_key({"x": "-1"})] = {"short": None, "error": ["ParameterError", "x must be 0 or more"]}
    person = ProbedClass("person", "person_plugin", about(interactive=True))
    person.checks[()] = {"short": None, "params": {}, "parameters": False}
    reg = ProbedRegistry(local, trusted, {"nosy": nosy, "person": person}, list(other_games),
                         [] if errors is None else errors)
    return reg, nosy, person


def test_the_registry_holds_the_arenas_own_bots_and_the_probed_ones_never_another_imported_here(local):
    reg, nosy, person = probed_registry(local, errors=["plugin 'x' failed to load: boom"])
    assert "outsider" in local.bots and "outsider" not in reg.bots
    assert reg.bots["nosy"] is nosy and reg.bots["person"] is person
    own = {n for n, e in local.bots.items() if e.plugin in ("bots.builtin", "bots.engine")}
    assert set(reg.bots) == own | {"nosy", "person"} and {"random", "engine", "uci"} <= own
    assert reg.bots["random"] is local.bots["random"]
    assert reg.local is local and reg.probed == {"nosy": nosy, "person": person}
    assert reg.errors == ["plugin 'x' failed to load: boom"] and reg.sandboxed is True and ProbedRegistry.sandboxed


def test_the_registry_lists_the_probed_games_beside_the_local_ones(local):
    reg, _, _ = probed_registry(local, other_games=("faraway", "tictactoe", "noughts"))
    assert reg.games["faraway"] is None
    assert reg.games["tictactoe"] is local.games["tictactoe"] and reg.games["noughts"] is local.games["noughts"]
    assert set(reg.games) == set(local.games) | {"faraway"}
    assert list(reg.games)[: len(local.games)] == list(local.games)


def test_a_game_is_built_here_with_its_spec_and_keywords(local):
    reg, _, _ = probed_registry(local)
    game = reg.game("tictactoe:rows=4", columns=5)
    assert type(game) is TicTacToe and game.params == {"rows": 4, "columns": 5, "k": 3}
    assert type(reg.game("noughts")) is Noughts
    assert reg.game_class("tictactoe") is TicTacToe


def test_a_game_only_a_probe_named_is_unknown_here_with_the_probed_names_as_suggestions(local):
    reg, _, _ = probed_registry(local, other_games=("faraway",))
    with pytest.raises(UnknownNameError) as caught:
        reg.game("faraway:size=3")
    assert str(caught.value) == "unknown game 'faraway'; did you mean 'faraway'? (arena games lists them)"
    with pytest.raises(UnknownNameError) as caught:
        reg.game_class("farawy")
    assert str(caught.value) == "unknown game 'farawy'; did you mean 'faraway'? (arena games lists them)"
    with pytest.raises(UnknownNameError) as caught:
        reg.game_class("zzzzzzzz")
    assert str(caught.value) == "unknown game 'zzzzzzzz' (arena games lists them)"


def test_a_bot_class_is_the_probed_stand_in_or_the_arenas_own(local):
    reg, nosy, _ = probed_registry(local)
    assert reg.bot_class("nosy") is nosy
    assert reg.bot_class("random") is local.bot_class("random")
    with pytest.raises(UnknownNameError) as caught:
        reg.bot_class("outsider")  # imported here, but not the arena's own: not in a sandboxed run
    assert str(caught.value) == "unknown bot 'outsider' (arena bots lists them)"
    with pytest.raises(UnknownNameError) as caught:
        reg.bot_class("nosey")
    assert str(caught.value) == "unknown bot 'nosey'; did you mean 'nosy'? (arena bots lists them)"


def test_a_probed_bot_is_a_stand_in_built_from_its_check(local):
    reg, nosy, _ = probed_registry(local)
    bot = reg.bot("nosy:x=1")
    assert type(bot) is ProbedBot and bot.cls is nosy and bot.spec == "nosy:x=1"
    assert bot.params == {"x": 1} and bot.parameters is True
    plain = reg.bot("nosy")
    assert plain.params == {} and plain.parameters is False


def test_the_arenas_own_bot_is_built_here(local):
    reg, _, _ = probed_registry(local)
    bot = reg.bot("alphabeta:depth=2")
    assert type(bot) is local.bot_class("alphabeta") and bot.depth == 2


def test_a_probed_bot_that_is_interactive_broken_refused_or_unchecked_is_refused_in_one_line(local):
    reg, _, _ = probed_registry(local)
    cases = [
        ("person", ParameterError, "bot 'person' is played by a person; under --sandbox only the arena's own can be"),
        ("person:x=1", ParameterError, "bot 'person:x=1' is played by a person; under --sandbox only the arena's own can be"),
        ("nosy:x=0", ArenaError, "bot 'nosy:x=0' cannot be built: ZeroDivisionError: x"),
        ("nosy:x=-1", ParameterError, "x must be 0 or more"),
        ("nosy:x=2", ArenaError, "bot 'nosy:x=2' could not be checked in its sandbox"),
    ]
    for spec, kind, message in cases:
        with pytest.raises(ArenaError) as caught:
            reg.bot(spec)
        assert type(caught.value) is kind and str(caught.value) == message, spec


def test_workers_load_only_the_trusted_game_plugin(local):
    assert probed_registry(local)[0].plugins == ()
    assert probed_registry(local, trusted=("game_plugin",))[0].plugins == ("game_plugin",)


def test_a_probed_bots_host_loads_the_game_plugin_then_its_own_and_the_arenas_bots_have_none(local):
    reg, _, _ = probed_registry(local, trusted=("game_plugin",))
    assert reg.hosts("nosy") == ("game_plugin", "nosy_plugin")
    assert reg.hosts("nosy:x=1") == ("game_plugin", "nosy_plugin")
    assert reg.hosts("random") is None and reg.hosts("outsider") is None
    alone, _, _ = probed_registry(local)
    assert alone.hosts("nosy") == ("nosy_plugin",)
    same, _, _ = probed_registry(local, trusted=("nosy_plugin",))  # the bot's plugin is the game's too
    assert same.hosts("nosy") == ("nosy_plugin",)


def test_the_host_table_gives_each_entrants_hosts_by_spec(local):
    reg, _, _ = probed_registry(local, trusted=("g",))
    entrants = [types.SimpleNamespace(spec="nosy:x=1"), types.SimpleNamespace(spec="random")]
    assert reg.host_table(entrants) == {"nosy:x=1": ("g", "nosy_plugin"), "random": None}
    assert reg.host_table([]) == {}


def test_checking_a_probed_bot_raises_what_its_probe_found_and_builds_nothing(local, monkeypatch):
    reg, _, _ = probed_registry(local)
    monkeypatch.setattr(local, "check_bot", lambda *a: pytest.fail("a probed bot was checked here"))
    assert reg.check_bot("nosy:x=1", TicTacToe(), LIMITS) is None
    with pytest.raises(ParameterError, match="^x must be 0 or more$"):
        reg.check_bot("nosy:x=-1", TicTacToe(), LIMITS)
    with pytest.raises(ArenaError, match="^bot 'nosy:x=5' could not be checked in its sandbox$"):
        reg.check_bot("nosy:x=5", TicTacToe(), LIMITS)
    with pytest.raises(UnknownNameError, match="unknown bot 'outsider'"):
        reg.check_bot("outsider", TicTacToe(), LIMITS)


def test_checking_the_arenas_own_bot_is_the_local_registrys_check(local, monkeypatch):
    reg, _, _ = probed_registry(local)
    calls = []
    monkeypatch.setattr(local, "check_bot", lambda *a: calls.append(a))
    game = TicTacToe()
    assert reg.check_bot("alphabeta:depth=2", game, LIMITS) is None
    assert calls == [("alphabeta:depth=2", game, LIMITS)]


# check_sandbox, registry, import_plugins


def test_a_sandbox_without_isolation_is_refused_before_bubblewrap_is_tried(monkeypatch):
    calls = []
    monkeypatch.setattr(probing.bubblewrap, "check", lambda: calls.append("check"))
    with pytest.raises(ParameterError) as caught:
        check_sandbox(False)
    assert str(caught.value) == ("--sandbox needs isolation: bots must run in processes of their own to be sandboxed; "
                                 "drop --no-isolation")
    assert calls == []
    assert check_sandbox(True) is None and calls == ["check"]


def test_a_sandbox_bubblewrap_cannot_start_is_its_error(monkeypatch):
    def broken():
        raise ArenaError("--sandbox cannot run: no bwrap")

    monkeypatch.setattr(probing.bubblewrap, "check", broken)
    with pytest.raises(ArenaError, match="^--sandbox cannot run: no bwrap$"):
        check_sandbox(True)


def test_a_sandboxed_registry_is_checked_then_probed_with_the_runs_limits(monkeypatch):
    calls = []
    made = object()
    monkeypatch.setattr(probing.bubblewrap, "check", lambda: calls.append("check"))
    monkeypatch.setattr(probing, "sandboxed_registry", lambda *a, **k: calls.append((a, k)) or made)
    specs = ("nosy", "random")
    assert registry(["p1"], sandboxed=True, game="tictactoe", specs=specs, limits=LIMITS) is made
    assert calls == ["check", (("tictactoe", specs, ["p1"], LIMITS), {})]
    calls.clear()
    assert registry(sandboxed=True, game="nim") is made
    assert calls == ["check", (("nim", (), (), Limits(sandbox=True)), {})]
    calls.clear()
    assert registry(sandboxed=True) is made  # no game given: the probes are told none
    assert calls == ["check", (("", (), (), Limits(sandbox=True)), {})]
    calls.clear()
    with pytest.raises(ParameterError, match="drop --no-isolation"):
        registry(sandboxed=True, isolate=False, game="nim")
    assert calls == []


def test_an_unsandboxed_registry_imports_the_plugins_here_and_names_them(monkeypatch):
    monkeypatch.setitem(sys.modules, "third_party_here", THIRD)
    monkeypatch.setattr(probing, "sandboxed_registry", lambda *a, **k: pytest.fail("probed"))
    out = registry(["third_party_here"])
    assert isinstance(out, PluginRegistry) and out.plugins == ("third_party_here",)
    assert out.bots["outsider"].cls is Outsider and out.bots["outsider"].plugin == "third_party_here"
    assert out.games["noughts"].cls is Noughts
    plain = registry()
    assert plain.plugins == () and "outsider" not in plain.bots and "random" in plain.bots


def test_import_plugins_imports_each_module_in_order(monkeypatch):
    first, second = types.ModuleType("first_here"), types.ModuleType("second_here")
    monkeypatch.setitem(sys.modules, "first_here", first)
    monkeypatch.setitem(sys.modules, "second_here", second)
    assert import_plugins(["second_here", "first_here"]) == [second, first]
    assert import_plugins(iter(["first_here"])) == [first]
    assert import_plugins([]) == []


def test_a_plugin_module_that_does_not_import_is_one_line():
    with pytest.raises(PluginError) as caught:
        import_plugins(["no_such_plugin_anywhere_here"])
    assert str(caught.value) == ("cannot import plugin module 'no_such_plugin_anywhere_here': "
                                 "No module named 'no_such_plugin_anywhere_here'")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__ is True


def test_an_import_error_inside_the_plugin_is_in_its_line(monkeypatch):
    class Finder:
        def find_spec(self, name, path=None, target=None):
            if name == "half_plugin_here":
                raise ImportError("cannot import name 'thing' from 'elsewhere'")
            return None

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    with pytest.raises(PluginError) as caught:
        import_plugins(["json", "half_plugin_here"])
    assert str(caught.value) == "cannot import plugin module 'half_plugin_here': cannot import name 'thing' from 'elsewhere'"


# _probe_all and _name


def test_no_jobs_probe_nothing(monkeypatch):
    monkeypatch.setattr(probing, "probe", lambda *a: pytest.fail("probed"))
    monkeypatch.setattr(probing, "ThreadPoolExecutor", lambda **k: pytest.fail("a pool for nothing"))
    assert _probe_all([], "tictactoe", ["a"], LIMITS) == []


def test_each_job_is_probed_with_the_game_specs_limits_and_its_game_plugins_answers_in_job_order(monkeypatch):
    calls = []
    lock = threading.Lock()

    def probe(source, game, specs, limits, game_plugins):
        with lock:
            calls.append((source, game, specs, limits, game_plugins))
        time.sleep(0.02 if source == "a" else 0.0)  # the first finishes last
        return {"from": source, "with": game_plugins}

    monkeypatch.setattr(probing, "probe", probe)
    specs = ["x", "y"]
    jobs = [("a", ()), ("b", ("g",)), ("c", ("g", "h"))]
    assert _probe_all(jobs, "noughts:rows=4", specs, LIMITS) == [
        {"from": "a", "with": ()}, {"from": "b", "with": ("g",)}, {"from": "c", "with": ("g", "h")}]
    assert sorted(calls) == [("a", "noughts:rows=4", specs, LIMITS, ()), ("b", "noughts:rows=4", specs, LIMITS, ("g",)),
                             ("c", "noughts:rows=4", specs, LIMITS, ("g", "h"))]


@pytest.mark.parametrize("jobs, cpus, workers", [(1, 4, 1), (3, 4, 3), (8, 4, 8), (9, 4, 8), (5, None, 2), (2, None, 2),
                                                 (1, None, 1)])
def test_the_probes_run_at_most_two_per_core_at_once(monkeypatch, jobs, cpus, workers):
    made = []

    class Pool:
        def __init__(self, max_workers):
            made.append(max_workers)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def map(self, fn, items):
            return map(fn, items)

    monkeypatch.setattr(probing, "ThreadPoolExecutor", Pool)
    monkeypatch.setattr(probing.os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(probing, "probe", lambda source, *rest: source)
    assert _probe_all([(str(i), ()) for i in range(jobs)], "g", [], LIMITS) == [str(i) for i in range(jobs)]
    assert made == [workers]


def test_the_name_of_a_spec_is_its_bot_name_and_a_bad_spec_names_none():
    assert _name("nosy:x=1") == "nosy" and _name(" nosy ") == "nosy"
    assert _name(":x=1") == "" and _name("") == "" and _name("nosy:oops") == ""


# sandboxed_registry


def test_without_third_party_plugins_nothing_is_probed_and_bubblewrap_is_not_checked(monkeypatch):
    fake = Probes(monkeypatch, {})
    reg = sandboxed_registry("tictactoe", ["random"], (), LIMITS)
    assert isinstance(reg, ProbedRegistry)
    assert fake.calls == [] and fake.checked == 0 and fake.registries == [{"entry_points": False}]
    assert reg.trusted == () and reg.probed == {} and reg.errors == [] and reg.plugins == ()
    assert set(reg.games) == set(reg.local.games) and None not in reg.games.values()
    assert "random" in reg.bots and reg.hosts("random") is None


def test_a_plugin_module_not_on_the_path_is_refused_before_any_probe(monkeypatch):
    fake = Probes(monkeypatch, {}, files={"good_plugin": ("/site/good_plugin.py",)})
    with pytest.raises(PluginError) as caught:
        sandboxed_registry("tictactoe", [], ["good_plugin", "missing_plugin"], LIMITS)
    assert str(caught.value) == "cannot import plugin module 'missing_plugin': No module named 'missing_plugin'"
    assert fake.calls == [] and fake.checked == 0


def test_every_plugin_is_probed_once_with_the_game_the_specs_and_the_limits(monkeypatch):
    answers = {
        ("ep_source", ()): answer(bots={"epbot": about()}),
        ("mod_a", ()): answer(bots={"abot": about(follows_moves=True)}),
        ("mod_b", ()): answer(games=["bgame"]),
    }
    fake = Probes(monkeypatch, answers, entry_points=[("plugin 'ep' (epdist 1.0)", "ep_source")])
    specs = (s for s in ["abot:x=1", "epbot", "random"])  # read once
    reg = sandboxed_registry("tictactoe", specs, ["mod_a", "mod_b"], LIMITS)
    assert sorted(fake.calls) == sorted((s, "tictactoe", ["abot:x=1", "epbot", "random"], LIMITS, ())
                                        for s in ("ep_source", "mod_a", "mod_b"))
    assert fake.checked == 1 and fake.loaded == [] and fake.registries == [{"entry_points": False}]
    assert set(reg.probed) == {"epbot", "abot"} and reg.probed["abot"].name == "abot"
    assert (reg.probed["abot"].source, reg.probed["epbot"].source) == ("mod_a", "ep_source")
    assert reg.probed["abot"].follows_moves is True and reg.probed["abot"].about == answers[("mod_a", ())]["bots"]["abot"]
    assert reg.games["bgame"] is None and reg.errors == [] and reg.trusted == ()
    assert reg.hosts("abot") == ("mod_a",) and reg.hosts("epbot") == ("ep_source",)


def test_the_default_limits_are_a_sandboxs(monkeypatch):
    fake = Probes(monkeypatch, {("mod_a", ()): answer()})
    sandboxed_registry("tictactoe", [], ["mod_a"])
    assert fake.calls == [("mod_a", "tictactoe", [], Limits(sandbox=True), ())]


def test_entry_points_can_be_left_out(monkeypatch):
    fake = Probes(monkeypatch, {("mod_a", ()): answer()}, entry_points=[("plugin 'ep'", "ep_source")])
    sandboxed_registry("tictactoe", [], ["mod_a"], LIMITS, entry_points=False)
    assert [c[0] for c in fake.calls] == ["mod_a"]
    fake.calls.clear()
    reg = sandboxed_registry("tictactoe", [], (), LIMITS, entry_points=False)
    assert fake.calls == [] and fake.checked == 1 and reg.probed == {}


def test_a_plugin_module_that_fails_in_its_sandbox_is_an_error(monkeypatch):
    answers = {("ep_source", ()): answer(), ("mod_a", ()): {"failed": "RuntimeError: boom at import"}}
    Probes(monkeypatch, answers, entry_points=[("plugin 'ep'", "ep_source")])
    with pytest.raises(PluginError) as caught:
        sandboxed_registry("tictactoe", [], ["mod_a"], LIMITS)
    assert str(caught.value) == "cannot import plugin module 'mod_a' (in its sandbox): RuntimeError: boom at import"


def test_an_entry_point_that_fails_in_its_sandbox_is_a_line_and_the_others_still_count(monkeypatch):
    answers = {
        ("ep_bad", ()): {"failed": "took longer than 7s to load in its sandbox; its process was killed"},
        ("ep_good", ()): answer(bots={"good": about()}, errors=["plugin 'x' failed in register_bots: E: e"]),
        ("mod_a", ()): answer(bots={"abot": about()}, errors=["a line of its own"]),
    }
    Probes(monkeypatch, answers, entry_points=[("plugin 'bad' (d 1)", "ep_bad"), ("plugin 'good' (d 2)", "ep_good")])
    reg = sandboxed_registry("tictactoe", [], ["mod_a"], LIMITS)
    assert reg.errors == [
        "plugin 'bad' (d 1) failed to load: took longer than 7s to load in its sandbox; its process was killed",
        "plugin 'x' failed in register_bots: E: e",
        "a line of its own",
    ]
    assert set(reg.probed) == {"good", "abot"}


def test_a_name_taken_by_the_arena_or_an_earlier_plugin_is_a_line_and_the_second_is_skipped(monkeypatch):
    answers = {
        ("first", ()): answer(games=["shared_game", "tictactoe"], bots={"shared": about(description="first"),
                                                                        "random": about()}),
        ("second", ()): answer(games=["shared_game", "own_game"], bots={"shared": about(description="second"),
                                                                        "own": about()}),
    }
    fake = Probes(monkeypatch, answers)
    reg = sandboxed_registry("tictactoe", ["random", "shared"], ["first", "second"], LIMITS)
    assert reg.errors == [
        "game name 'tictactoe' is registered twice: by plugin 'games.builtin' and by plugin 'first'; the second is skipped",
        "bot name 'random' is registered twice: by plugin 'bots.builtin' and by plugin 'first'; the second is skipped",
        "game name 'shared_game' is registered twice: by plugin 'first' and by plugin 'second'; the second is skipped",
        "bot name 'shared' is registered twice: by plugin 'first' and by plugin 'second'; the second is skipped",
    ]
    assert reg.bots["random"] is reg.local.bots["random"]  # the arena's own cannot be replaced
    assert reg.probed["shared"].source == "first" and reg.probed["shared"].describe()["description"] == "first"
    assert set(reg.probed) == {"shared", "own"} and reg.probed["own"].source == "second"
    assert reg.games["tictactoe"] is reg.local.games["tictactoe"] and reg.games["shared_game"] is None
    assert reg.games["own_game"] is None and fake.loaded == [] and reg.trusted == ()


def test_a_plugin_naming_a_game_twice_itself_is_told_so(monkeypatch):
    Probes(monkeypatch, {("mod_a", ()): answer(games=["g1", "g1"], bots={})})
    reg = sandboxed_registry("tictactoe", [], ["mod_a"], LIMITS)
    assert reg.errors == ["game name 'g1' is registered twice: by plugin 'mod_a' and by plugin 'mod_a'; the second is skipped"]


def test_checks_go_to_the_bots_of_the_plugin_that_made_them_by_their_parameters(monkeypatch):
    checks_a = {
        "abot": {"short": "a.py", "params": {}, "parameters": False},
        "abot:x=1,y=2": {"short": None, "params": {"x": 1, "y": 2}, "parameters": True},
        "bbot": {"short": "forged", "params": {}, "parameters": False},  # another plugin's bot
        "random": {"short": "forged", "params": {}, "parameters": False},  # the arena's own
        "ghost": {"short": None},  # no bot of anyone's
    }
    answers = {
        ("mod_a", ()): answer(bots={"abot": about()}, checks=checks_a),
        ("mod_b", ()): answer(bots={"bbot": about()}, checks={"bbot": {"short": "b.py", "params": {}, "parameters": False}}),
    }
    Probes(monkeypatch, answers)
    reg = sandboxed_registry("tictactoe", ["abot", "abot:x=1,y=2", "bbot", "random"], ["mod_a", "mod_b"], LIMITS)
    a, b = reg.probed["abot"], reg.probed["bbot"]
    assert a.checks == {(): checks_a["abot"], (("x", "1"), ("y", "2")): checks_a["abot:x=1,y=2"]}
    assert b.checks == {(): {"short": "b.py", "params": {}, "parameters": False}}
    assert a.short_name({"y": "2", "x": "1"}) is None and a.short_name({}) == "a.py" and b.short_name({}) == "b.py"
    assert "ghost" not in reg.bots and reg.bot_class("random") is reg.local.bot_class("random")


def test_a_bot_name_taken_twice_keeps_only_the_first_plugins_checks(monkeypatch):
    answers = {
        ("mod_a", ()): answer(bots={"dup": about()}, checks={"dup": {"short": "first", "params": {}, "parameters": False}}),
        ("mod_b", ()): answer(bots={"dup": about()}, checks={"dup": {"short": "second", "params": {}, "parameters": False}}),
    }
    Probes(monkeypatch, answers)
    reg = sandboxed_registry("tictactoe", ["dup"], ["mod_a", "mod_b"], LIMITS)
    assert reg.probed["dup"].source == "mod_a" and reg.probed["dup"].short_name({}) == "first"


def game_plugin_run(monkeypatch, specs, first_checks=None, again_answers=None, module=None):
    """A run of third-party game 'noughts' (plugin 'gameplug') with bot plugins 'mod_a' and 'mod_b'."""
    answers = {
        ("gameplug", ()): answer(games=["noughts"]),
        ("mod_a", ()): answer(bots={"abot": about()}, checks=first_checks or {}),
        ("mod_b", ()): answer(bots={"bbot": about(), "bbot2": about()}),
        **(again_answers or {}),
    }
    fake = Probes(monkeypatch, answers)
    fake.modules["gameplug"] = plugin_module("gameplug_here", games=[Noughts]) if module is None else module
    return fake


def test_a_third_party_games_plugin_is_loaded_here_and_the_entrants_plugins_probed_again_beside_it(monkeypatch):
    again = {
        ("mod_a", ("gameplug",)): answer(bots={"abot": about()}, checks={
            "abot": {"short": "again", "params": {}, "parameters": False},
            "abot:x=1": {"short": None, "params": {"x": 1}, "parameters": True, "error": ["ParameterError", "no"]},
        }),
        ("mod_b", ("gameplug",)): answer(bots={"bbot": about()}, checks={}),
    }
    first = {"abot": {"short": "first", "params": {}, "parameters": False}}
    fake = game_plugin_run(monkeypatch, ["abot", "abot:x=1", "bbot2", "random"], first, again)
    reg = sandboxed_registry("noughts:rows=4", ["abot", "abot:x=1", "bbot2", "random"], ["gameplug", "mod_a", "mod_b"],
                             LIMITS)
    assert fake.loaded == ["gameplug"] and reg.trusted == ("gameplug",) and reg.plugins == ("gameplug",)
    assert len(fake.registries) == 2 and fake.registries[0] == {"entry_points": False}
    assert fake.registries[1]["entry_points"] is False and [m.__name__ for m in fake.registries[1]["plugins"]] == [
        "gameplug_here"]
    assert reg.local.games["noughts"].cls is Noughts and type(reg.game("noughts:rows=4")) is Noughts
    again_calls = fake.calls[3:]
    specs = ["abot", "abot:x=1", "bbot2", "random"]
    assert sorted(fake.calls[:3]) == sorted((s, "noughts:rows=4", specs, LIMITS, ()) for s in ("gameplug", "mod_a", "mod_b"))
    assert sorted(again_calls) == [("mod_a", "noughts:rows=4", specs, LIMITS, ("gameplug",)),
                                   ("mod_b", "noughts:rows=4", specs, LIMITS, ("gameplug",))]
    abot = reg.probed["abot"]
    assert abot.short_name({}) == "again"  # the second probe's checks replace the first's
    with pytest.raises(ParameterError, match="^no$"):
        reg.bot("abot:x=1")
    assert reg.hosts("abot") == ("gameplug", "mod_a") and reg.hosts("bbot2") == ("gameplug", "mod_b")
    assert reg.hosts("random") is None and "noughts" in reg.games


def test_only_the_plugins_of_entrants_are_probed_again_and_never_the_games_own(monkeypatch):
    again = {("mod_a", ("gameplug",)): answer(bots={"abot": about()})}
    fake = game_plugin_run(monkeypatch, [], again_answers=again)
    sandboxed_registry("noughts", [":bad", "abot", "abot:x=2", "random", "nobody"], ["gameplug", "mod_a", "mod_b"],
                       LIMITS)
    assert [c[0] for c in fake.calls[3:]] == ["mod_a"]
    fake.calls.clear()
    sandboxed_registry("noughts", ["random"], ["gameplug", "mod_a", "mod_b"], LIMITS)
    assert [c[4] for c in fake.calls] == [(), (), ()]  # no entrant of a probed plugin: no second round


def test_a_plugin_that_registers_the_game_and_bots_is_not_probed_again(monkeypatch):
    answers = {("gameplug", ()): answer(games=["noughts"], bots={"gbot": about()},
                                        checks={"gbot": {"short": "g", "params": {}, "parameters": False}})}
    fake = Probes(monkeypatch, answers)
    fake.modules["gameplug"] = plugin_module("gameplug_here2", games=[Noughts])
    reg = sandboxed_registry("noughts", ["gbot"], ["gameplug"], LIMITS)
    assert len(fake.calls) == 1 and reg.trusted == ("gameplug",) and reg.hosts("gbot") == ("gameplug",)
    assert reg.probed["gbot"].short_name({}) == "g"


def test_the_second_round_is_sorted_by_plugin(monkeypatch):
    again = {("mod_a", ("gameplug",)): answer(), ("mod_b", ("gameplug",)): answer()}
    seen = []
    fake = game_plugin_run(monkeypatch, [], again_answers=again)
    monkeypatch.setattr(probing, "_probe_all", lambda jobs, *rest: seen.append(jobs) or [fake.probe(s, *rest, p)
                                                                                         for s, p in jobs])
    sandboxed_registry("noughts", ["bbot", "abot", "bbot2"], ["mod_b", "gameplug", "mod_a"], LIMITS)
    assert seen == [[("mod_b", ()), ("gameplug", ()), ("mod_a", ())], [("mod_a", ("gameplug",)), ("mod_b", ("gameplug",))]]


def test_a_game_plugin_that_fails_to_load_here_is_one_line(monkeypatch):
    game_plugin_run(monkeypatch, ["abot"], module=RuntimeError("no display"))
    with pytest.raises(PluginError) as caught:
        sandboxed_registry("noughts", ["abot"], ["gameplug", "mod_a"], LIMITS)
    assert str(caught.value) == "cannot import plugin 'gameplug' of game 'noughts': RuntimeError: no display"
    assert caught.value.__cause__ is None


def test_a_bot_plugin_that_fails_beside_the_game_is_one_line(monkeypatch):
    again = {("mod_a", ("gameplug",)): {"failed": "ImportError: clash"}}
    game_plugin_run(monkeypatch, ["abot"], again_answers=again)
    with pytest.raises(PluginError) as caught:
        sandboxed_registry("noughts:rows=4", ["abot"], ["gameplug", "mod_a"], LIMITS)
    assert str(caught.value) == "plugin 'mod_a' fails in its sandbox beside game 'noughts': ImportError: clash"


def test_the_second_round_keeps_checks_only_for_the_plugins_own_bots(monkeypatch):
    again = {("mod_a", ("gameplug",)): {
        "games": [], "bots": {}, "errors": [], "game": True,
        "checks": {"bbot": {"short": "forged", "params": {}, "parameters": False},
                   "abot": {"short": "mine", "params": {}, "parameters": False},
                   "nobody": {"short": "x"}}},
        ("mod_b", ("gameplug",)): {"games": [], "bots": {}, "errors": [], "game": True},  # no checks at all
    }
    game_plugin_run(monkeypatch, [], again_answers=again)
    reg = sandboxed_registry("noughts", ["abot", "bbot"], ["gameplug", "mod_a", "mod_b"], LIMITS)
    assert reg.probed["abot"].short_name({}) == "mine"
    assert reg.probed["bbot"].checks == {}


def test_a_game_the_arena_has_loads_no_plugin_even_if_a_plugin_claims_it(monkeypatch):
    answers = {("mod_a", ()): answer(games=["tictactoe"], bots={"abot": about()})}
    fake = Probes(monkeypatch, answers)
    fake.modules["mod_a"] = RuntimeError("a hostile plugin was imported outside its sandbox")
    reg = sandboxed_registry("tictactoe:rows=4", ["abot"], ["mod_a"], LIMITS)
    assert fake.loaded == [] and reg.trusted == () and len(fake.calls) == 1 and len(fake.registries) == 1


def test_a_game_no_plugin_registers_loads_no_plugin(monkeypatch):
    fake = Probes(monkeypatch, {("mod_a", ()): answer(games=["other"], bots={"abot": about()})})
    reg = sandboxed_registry("nowhere", ["abot"], ["mod_a"], LIMITS)
    assert fake.loaded == [] and reg.trusted == () and len(fake.calls) == 1
    with pytest.raises(UnknownNameError):
        reg.game("nowhere")


def test_a_check_whose_spec_does_not_parse_does_not_stop_the_run(monkeypatch):
    hostile = answer(bots={"evil": about()}, checks={":": {"short": None}, "evil": {"short": "e"}})
    Probes(monkeypatch, {("ep_evil", ()): hostile}, entry_points=[("plugin 'evil' (evil 1.0)", "ep_evil")])
    reg = sandboxed_registry("tictactoe", ["evil"], (), LIMITS)
    assert reg.probed["evil"].short_name({}) == "e"


def test_a_check_for_a_spec_the_run_did_not_ask_about_is_left_out(monkeypatch):
    made_up = answer(bots={"evil": about()}, checks={"evil:x=1": {"short": "made up"}, "evil": {"short": "e"}})
    Probes(monkeypatch, {("ep_evil", ()): made_up}, entry_points=[("plugin 'evil' (evil 1.0)", "ep_evil")])
    reg = sandboxed_registry("tictactoe", ["evil"], (), LIMITS)
    assert list(reg.probed["evil"].checks.values()) == [{"short": "e"}]


def test_a_spec_that_does_not_parse_leaves_the_checks_of_the_specs_after_it(monkeypatch):
    both = answer(bots={"evil": about()}, checks={":": {"short": None}, "evil": {"short": "e"}})
    Probes(monkeypatch, {("ep_evil", ()): both}, entry_points=[("plugin 'evil' (evil 1.0)", "ep_evil")])
    reg = sandboxed_registry("tictactoe", [":", "evil"], (), LIMITS)
    assert list(reg.probed["evil"].checks.values()) == [{"short": "e"}]
