"""The registry of a command or a run (``registry``), and a sandboxed run's games and bots,
without running a third party's code outside a sandbox.

Under ``--sandbox`` the runner imports only the arena's own plugins and the plugin that
registers the tournament's game (the referee plays the game's rules here: that plugin is
trusted). Every other third-party plugin (``--plugin`` modules and entry points) is loaded
only in a sandbox of its own (``arena.execution.sandbox.probe``): one that tells the runner the
names it registers and builds and checks the tournament's bots, and later the hosts its
bots play in. ``ProbedRegistry`` meets the ``arena.plugins.Registry`` protocol, as the
registry of the plugins imported here does.
"""

from __future__ import annotations

import importlib
import os
from concurrent.futures import ThreadPoolExecutor

from arena.errors import ArenaError, ParameterError, PluginError, UnknownNameError
from arena.execution.sandbox import bubblewrap
from arena.execution.sandbox.probe import probe
from arena.game import Game
from arena.limits import Limits
from arena.params import parse_spec
from arena.plugins import DEFAULT_PLUGINS, PluginRegistry, Registry, entry_point_sources, get_registry, load_plugin

_ERRORS = {"ParameterError": ParameterError, "UnknownNameError": UnknownNameError}


class ProbedClass:
    """Stands in for a third-party bot class the runner never imports: what its probe said."""

    external = False  # whatever it is, it plays in a sandboxed host

    def __init__(self, name: str, source: str, about: dict):
        self.name, self.source = name, source
        self.interactive, self.follows_moves = about["interactive"], about["follows_moves"]
        self.about = about
        self.checks: dict[tuple, dict] = {}
        """The probe's check of each spec, by its parameters as text (``_key``)."""

    def describe(self) -> dict:
        return self.about["describe"]

    def short_name(self, params: dict[str, str]) -> str | None:
        return self.checks.get(_key(params), {}).get("short")

    def check(self, spec: str, params: dict[str, str]) -> dict:
        """Raise what ``tournament.validate`` raises for this spec, as the probe found it."""
        found = self.checks.get(_key(params))
        if found is None:
            raise ArenaError(f"bot {spec!r} could not be checked in its sandbox")
        if "params" in found:
            if self.interactive:
                raise ParameterError(f"bot {spec!r} is played by a person and cannot enter a tournament")
        if "error" in found:
            kind, message = found["error"]
            raise _ERRORS.get(kind, ArenaError)(message)
        return found


class ProbedBot:
    """Stands in for a third-party bot in ``arena play``: it plays in a sandboxed host, never here."""

    interactive = external = False

    def __init__(self, cls: ProbedClass, spec: str, found: dict):
        self.spec, self.name, self.cls = spec, cls.name, cls
        self.params, self.parameters = found["params"], found["parameters"]

    def check_game(self, game: Game) -> None:
        pass  # checked in its sandbox


class ProbedRegistry:
    """The arena's own games and bots and the game's plugin, loaded here; every other
    third-party bot as its plugin's probe described it."""

    sandboxed = True

    def __init__(self, local: PluginRegistry, trusted: tuple[str, ...], probed: dict[str, ProbedClass],
                 other_games: list[str], errors: list[str]):
        # trusted: the game's plugin if it is a third party's, which workers and hosts load
        self.local, self.trusted, self.probed, self.errors = local, trusted, probed, errors
        own = {n: e for n, e in local.bots.items() if e.plugin in DEFAULT_PLUGINS}
        self.bots = {**own, **probed}
        self.games = {**local.games, **{name: None for name in other_games if name not in local.games}}

    def game(self, spec: str, **params) -> Game:
        self.game_class(parse_spec(spec)[0])
        return self.local.game(spec, **params)

    def game_class(self, name: str) -> type[Game]:
        if name not in self.local.games:
            raise self.local.unknown("game", name, self.games)
        return self.local.game_class(name)

    def bot_class(self, name: str):
        if name not in self.bots:
            raise self.local.unknown("bot", name, self.bots)
        return self.probed.get(name) or self.local.bot_class(name)

    def bot(self, spec: str):
        """The bot of ``spec``: built here if it is the arena's own, else a stand-in (``ProbedBot``)."""
        name, text = parse_spec(spec)
        cls = self.bot_class(name)
        if not isinstance(cls, ProbedClass):
            return self.local.bot(spec)
        if cls.interactive:
            raise ParameterError(f"bot {spec!r} is played by a person; under --sandbox only the arena's own can be")
        found = cls.check(spec, text)
        if "broken" in found:
            raise ArenaError(f"bot {spec!r} cannot be built: {found['broken']}")
        return ProbedBot(cls, spec, found)

    @property
    def plugins(self) -> tuple[str, ...]:
        """What workers load: the game's plugin only (a third-party bot's is loaded in its sandboxed host)."""
        return self.trusted

    def hosts(self, spec: str) -> tuple[str, ...] | None:
        """The plugins the sandboxed host of a third-party bot loads: its own and the game's; None for the arena's own."""
        cls = self.probed.get(parse_spec(spec)[0])
        return None if cls is None else tuple(dict.fromkeys((*self.trusted, cls.source)))

    def host_table(self, entrants) -> dict:
        return {e.spec: self.hosts(e.spec) for e in entrants}

    def check_bot(self, spec: str, game: Game, limits: Limits) -> None:
        """As ``PluginRegistry.check_bot``; a third-party bot was built and checked in its sandbox."""
        name, text = parse_spec(spec)
        cls = self.bot_class(name)
        if isinstance(cls, ProbedClass):
            cls.check(spec, text)
        else:
            self.local.check_bot(spec, game, limits)


def check_sandbox(isolate: bool) -> None:
    """Refuse, in one line, a sandbox without isolation or where bubblewrap cannot start."""
    if not isolate:
        raise ParameterError(
            "--sandbox needs isolation: bots must run in processes of their own to be sandboxed; drop --no-isolation"
        )
    bubblewrap.check()


def registry(plugins=(), *, sandboxed: bool = False, isolate: bool = True, game: str = "", specs=(),
             limits: Limits | None = None) -> Registry:
    """The registry of a command or a run: the plugins (``--plugin`` module names) imported here,
    or in a sandboxed run of ``game`` between ``specs``, every third-party plugin but the
    game's probed in a sandbox of its own (``sandboxed_registry``)."""
    if sandboxed:
        check_sandbox(isolate)
        return sandboxed_registry(game, specs, plugins, limits or Limits(sandbox=True))
    out = get_registry(plugins=import_plugins(plugins))
    out.plugins = tuple(plugins)
    return out


def import_plugins(names) -> list:
    """The ``--plugin`` modules, imported here (an unsandboxed run's)."""
    out = []
    for name in names:
        try:
            out.append(importlib.import_module(name))
        except ImportError as exc:
            raise PluginError(f"cannot import plugin module {name!r}: {exc}") from None
    return out


def sandboxed_registry(game: str, specs, plugins=(), limits: Limits = Limits(sandbox=True), *,
                       entry_points: bool = True) -> ProbedRegistry:
    """The games and bots of a sandboxed run of ``game`` between ``specs``, each third-party
    plugin (``plugins``: module names; and the entry points) probed in a sandbox of its own.

    A ``--plugin`` module that cannot be loaded is an error; a broken entry point is a line
    in ``errors``, as in ``arena.plugins.get_registry``.
    """
    sources = [(label, source, False) for label, source in entry_point_sources()] if entry_points else []
    for name in plugins:
        if not bubblewrap.source_files(name):
            raise PluginError(f"cannot import plugin module {name!r}: No module named {name!r}")
        sources.append((f"plugin module {name!r}", name, True))
    local = get_registry(entry_points=False)
    if not sources:
        return ProbedRegistry(local, (), {}, [], [])
    bubblewrap.check()
    specs = list(specs)
    answers = _probe_all([(s, ()) for _, s, _ in sources], game, specs, limits)
    errors: list[str] = []
    probed: dict[str, ProbedClass] = {}
    games: dict[str, str] = {}
    for (label, source, strict), answer in zip(sources, answers):
        if "failed" in answer:
            if strict:
                raise PluginError(f"cannot import plugin module {source!r} (in its sandbox): {answer['failed']}")
            errors.append(f"{label} failed to load: {answer['failed']}")
            continue
        errors += answer["errors"]
        for kind, names, first in (("game", answer["games"], games), ("bot", answer["bots"], probed)):
            for name in names:
                taken = local.games if kind == "game" else local.bots
                if name in taken or name in first:
                    by = taken[name].plugin if name in taken else (first[name] if kind == "game" else first[name].source)
                    errors.append(f"{kind} name {name!r} is registered twice: by plugin {by!r} and by plugin "
                                  f"{source!r}; the second is skipped")
                elif kind == "game":
                    first[name] = source
                else:
                    first[name] = ProbedClass(name, source, names[name])
        for name, text, found in _asked(answer["checks"], specs):
            if name in probed and probed[name].source == source:
                probed[name].checks[_key(text)] = found
    name = parse_spec(game)[0]
    trusted = ()
    if name not in local.games and name in games:
        trusted = (games[name],)  # the game's plugin: imported here, since the referee plays its rules
        try:
            local = get_registry(entry_points=False, plugins=[load_plugin(trusted[0])])
        except Exception as exc:
            raise PluginError(f"cannot import plugin {trusted[0]!r} of game {name!r}: {type(exc).__name__}: {exc}") from None
        again = sorted({probed[n].source for n in map(_name, specs) if n in probed} - set(trusted))
        for source, answer in zip(again, _probe_all([(s, trusted) for s in again], game, specs, limits)):
            if "failed" in answer:
                raise PluginError(f"plugin {source!r} fails in its sandbox beside game {name!r}: {answer['failed']}")
            for n, text, found in _asked(answer.get("checks", {}), specs):
                if n in probed and probed[n].source == source:
                    probed[n].checks[_key(text)] = found
    return ProbedRegistry(local, trusted, probed, list(games), errors)


def _asked(checks: dict, specs) -> list[tuple[str, dict, dict]]:
    """``(name, params, check)`` of the checks a probe answered for the specs it was asked about
    (a key it made up, or one that does not parse, is not the arena's question: left out)."""
    out = []
    for spec in dict.fromkeys(specs):
        if spec in checks:
            try:
                name, text = parse_spec(spec)
            except ArenaError:
                continue  # reported where the spec is built
            out.append((name, text, checks[spec]))
    return out


def _key(params: dict[str, str]) -> tuple:
    return tuple(sorted(params.items()))


def _name(spec: str) -> str:
    try:
        return parse_spec(spec)[0]
    except ArenaError:
        return ""


def _probe_all(jobs: list[tuple[str, tuple]], game: str, specs: list[str], limits: Limits) -> list[dict]:
    """Each (source, game plugins) probed, several at a time."""
    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=min(len(jobs), 2 * (os.cpu_count() or 1))) as pool:
        return list(pool.map(lambda job: probe(job[0], game, specs, limits, job[1]), jobs))
