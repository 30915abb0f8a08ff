"""Finding games and bots: built-in plugins, then third-party entry points (group ``arena``)."""

from __future__ import annotations

import importlib
import importlib.metadata
import typing
from dataclasses import dataclass, field
from difflib import SequenceMatcher

import pluggy

from arena import hookspecs
from arena.bot import Bot
from arena.errors import ArenaError, ParameterError, PluginError, UnknownNameError
from arena.game import Game, bounds_problem
from arena.limits import Limits
from arena.params import Configurable, parse_spec

#: Modules registered before any third-party plugin, through the same hooks.
DEFAULT_PLUGINS = ("games.builtin", "games.openspiel", "bots.builtin", "bots.engine")
ENTRY_POINT_GROUP = "arena"


@dataclass(frozen=True)
class Entry:
    """A registered class and the plugin it came from."""

    cls: type
    plugin: str


class Registry(typing.Protocol):
    """What a command or a run asks of its games and bots, whichever registry it has: the
    plugins imported in this process (``PluginRegistry``), or in a sandboxed run, the arena's
    own and every third-party bot as its sandboxed probe described it
    (``arena.execution.sandbox.probing.ProbedRegistry``)."""

    games: dict
    bots: dict
    errors: list[str]
    plugins: tuple[str, ...]
    """The plugin modules workers load (and, for a bot ``hosts`` says nothing of, its host)."""
    sandboxed: bool

    def game(self, spec: str, **params) -> Game: ...

    def game_class(self, name: str) -> type[Game]: ...

    def bot_class(self, name: str): ...

    def bot(self, spec: str, **params): ...

    def hosts(self, spec: str) -> tuple[str, ...] | None:
        """The plugins the sandboxed host of a third-party bot loads; None for a bot built here."""

    def host_table(self, entrants) -> dict | None:
        """``hosts`` of each entrant's spec, for the games of a sandboxed run (``GameTask.hosts``); None otherwise."""

    def check_bot(self, spec: str, game: Game, limits: Limits) -> None:
        """Build the bot of ``spec`` and check it can play ``game``; raise ParameterError or UnknownNameError."""


@dataclass
class PluginRegistry:
    """Every registered game and bot class, by name: the plugins imported in this process."""

    games: dict[str, Entry] = field(default_factory=dict)
    bots: dict[str, Entry] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    """One line per third-party plugin that could not be loaded, and per name registered twice."""
    plugin_manager: pluggy.PluginManager | None = None
    plugins: tuple[str, ...] = ()
    """The ``--plugin`` modules it was built with, which workers and hosts load too."""
    sandboxed: typing.ClassVar[bool] = False

    def hosts(self, spec: str) -> None:
        return None

    def host_table(self, entrants) -> None:
        return None

    def check_bot(self, spec: str, game: Game, limits: Limits) -> None:
        """Build the bot of ``spec`` and check it can play ``game``; raise ParameterError or UnknownNameError.

        A constructor that fails otherwise is let through: it loses its games, each recorded
        as a crash. A third-party bot of a sandboxed run is never built here: its registry is a
        ``ProbedRegistry``, whose probe built and checked it in its sandbox.
        """
        name, text = parse_spec(spec)
        cls = self.bot_class(name)
        if limits.sandbox and self.bots[name].plugin not in DEFAULT_PLUGINS:
            raise ArenaError(
                f"bot {spec!r} of plugin {self.bots[name].plugin!r} would be built outside a sandbox: a sandboxed "
                "tournament is checked against arena.execution.sandbox.probing.sandboxed_registry"
            )
        values = cls.parse_params(text)
        if cls.interactive:
            raise ParameterError(f"bot {spec!r} is played by a person and cannot enter a tournament")
        try:
            bot = cls(**values)
        except ParameterError:
            raise
        except Exception:
            return
        if cls.external:
            bot.limits = limits  # an engine is started to check it: sandboxed too
        try:
            bot.check_game(game)
        except ParameterError as exc:
            able = self.bots_for(game) if game.model.features - cls.handles else ()
            if able:
                raise ParameterError(f"{exc}: use {', '.join(able)}") from None
            raise

    def bots_for(self, game: Game) -> list[str]:
        """The registered bots that handle every feature of ``game``'s model (people's bots aside)."""
        features = game.model.features
        return [name for name, entry in self.bots.items()
                if features <= entry.cls.handles and not entry.cls.interactive]

    def game_class(self, name: str) -> type[Game]:
        return self._lookup("game", self.games, name)

    def bot_class(self, name: str) -> type[Bot]:
        return self._lookup("bot", self.bots, name)

    def game(self, spec: str, **params) -> Game:
        """A game built from a spec such as ``"connect4:columns=8"`` (keywords override)."""
        return self._build("game", self.games, spec, params)

    def bot(self, spec: str, **params) -> Bot:
        """A bot built from a spec such as ``"alphabeta:depth=4"`` (keywords override)."""
        return self._build("bot", self.bots, spec, params)

    def _lookup(self, kind: str, table: dict[str, Entry], name: str) -> type:
        try:
            return table[name].cls
        except KeyError:
            raise self.unknown(kind, name, table) from None

    def unknown(self, kind: str, name: str, names) -> UnknownNameError:
        """The error for a ``kind`` ("game" or "bot") ``name`` not among ``names``: what to install, if a
        built-in plugin registers it only with an optional package (its ``unavailable(kind, name)``),
        else the nearest names, else the command that lists them all."""
        for plugin in DEFAULT_PLUGINS:
            module = self.plugin_manager.get_plugin(plugin) if self.plugin_manager else None
            unavailable = getattr(module, "unavailable", None)
            why = unavailable(kind, str(name)) if unavailable else None
            if why:
                return UnknownNameError(why)
        near = [repr(n) for n in _nearest(str(name), sorted(names))]
        if not near:
            return UnknownNameError(f"unknown {kind} {name!r} (arena {kind}s lists them)")
        either = near[0] if len(near) == 1 else f"{', '.join(near[:-1])} or {near[-1]}"
        return UnknownNameError(f"unknown {kind} {name!r}; did you mean {either}? (arena {kind}s lists them)")

    def _build(self, kind, table, spec, params) -> Configurable:
        name, text = parse_spec(spec)
        cls = self._lookup(kind, table, name)
        built = cls(**{**cls.parse_params(text), **params})
        if kind == "game":
            why = bounds_problem(built.bounds)
            if why:
                raise ParameterError(f"game {name!r} has bounds {built.bounds!r}: {why}")
        return built


def _nearest(name: str, names: list[str]) -> list[str]:
    """Up to three of ``names`` close to ``name``, also by the part after a dot (``go``: ``openspiel.go``)."""
    short = {}
    for full in names:
        short.setdefault(full.rpartition(".")[2], full)
    near = [short[s] for s in _close(name, short)] + _close(name, names)
    return list(dict.fromkeys(near))[:3]


def _close(word: str, names) -> list[str]:
    """The names close to ``word`` (difflib's ratio at least 0.6), closest first, equally close ones in name order."""
    scored = sorted((-SequenceMatcher(None, word, name).ratio(), name) for name in names)
    return [name for score, name in scored if -score >= 0.6]


def make_plugin_manager() -> pluggy.PluginManager:
    """A fresh plugin manager with the hook specifications and the built-in plugins."""
    pm = pluggy.PluginManager("arena")
    pm.add_hookspecs(hookspecs)
    for module in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(module), name=module)
    pm.check_pending()
    return pm


def load_entry_points(pm: pluggy.PluginManager, errors: list[str]) -> None:
    """Register each third-party plugin on its own; a broken one is reported and skipped."""
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        label = _label(ep)
        if pm.get_plugin(ep.name) is not None:
            continue
        try:
            plugin = ep.load()
            pm.register(plugin, name=ep.name)
        except Exception as exc:
            errors.append(f"{label} failed to load: {type(exc).__name__}: {exc}")
            continue
        try:
            pm.check_pending()
        except pluggy.PluginValidationError as exc:
            pm.unregister(name=ep.name)
            errors.append(f"{label} is not usable: {exc}")


def load_plugin(source: str):
    """The plugin object named by ``source``: a module, or ``module:attribute`` as entry points name one."""
    module, _, attribute = source.partition(":")
    obj = importlib.import_module(module.strip())
    for part in filter(None, attribute.strip().split(".")):
        obj = getattr(obj, part)
    return obj


def entry_point_sources() -> list[tuple[str, str]]:
    """Each third-party entry point as (label naming it, its source for ``load_plugin``), read
    from the installed distributions' metadata without importing them."""
    return [(_label(ep), ep.value) for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)]


def _label(ep) -> str:
    """How messages name an entry point: its name, and its distribution's name and version."""
    dist = ep.dist
    return f"plugin {ep.name!r} ({dist.name} {dist.version})" if dist else f"plugin {ep.name!r}"


def get_registry(*, entry_points: bool = True, plugins=()) -> PluginRegistry:
    """Build a registry: built-ins, then entry points, then ``plugins`` (modules or objects).

    A name registered twice keeps its first registration (built-ins register first) and
    the later one is reported in ``Registry.errors`` and skipped, as is a third-party
    plugin that fails to import or to register.
    """
    pm = make_plugin_manager()
    registry = PluginRegistry(plugin_manager=pm)
    if entry_points:
        load_entry_points(pm, registry.errors)
    for plugin in plugins:
        pm.register(plugin)
        pm.check_pending()
    builtin = set(DEFAULT_PLUGINS)
    order = {name: i for i, (name, _) in enumerate(pm.list_name_plugin())}
    for hook, table, base in (
        (pm.hook.register_games, registry.games, Game),
        (pm.hook.register_bots, registry.bots, Bot),
    ):
        # in registration order, built-ins first (pluggy's call order follows tryfirst/trylast)
        for impl in sorted(hook.get_hookimpls(), key=lambda impl: order[impl.plugin_name]):
            plugin_name = impl.plugin_name
            added: list[str] = []

            def register(cls, _plugin=plugin_name, _table=table, _base=base, _added=added):
                if _add(_table, _base, cls, _plugin, registry.errors):
                    _added.append(cls.name)

            try:
                impl.function(register=register)
            except PluginError:
                raise
            except Exception as exc:
                if plugin_name in builtin:
                    raise
                for name in added:
                    del table[name]
                registry.errors.append(
                    f"plugin {plugin_name!r} failed in {hook.name}: {type(exc).__name__}: {exc}"
                )
    return registry


def _add(table: dict[str, Entry], base: type, cls, plugin: str, errors: list[str]) -> bool:
    """Register ``cls``; False (with a line in ``errors``) if its name is already taken."""
    kind = base.__name__.lower()
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise PluginError(f"plugin {plugin!r} registered {cls!r}, which is not a subclass of arena.{base.__name__}")
    name = cls.name
    if not name or not isinstance(name, str) or ":" in name or "," in name or name != name.strip():
        raise PluginError(f"plugin {plugin!r} registered {kind} class {cls.__name__} with a bad name {name!r}")
    if name in table:
        first = table[name].plugin
        if plugin in DEFAULT_PLUGINS:  # two built-ins clash: a bug in the arena itself
            raise PluginError(f"{kind} name {name!r} is registered twice: by plugin {first!r} and by plugin {plugin!r}")
        errors.append(
            f"{kind} name {name!r} is registered twice: by plugin {first!r} and by plugin {plugin!r}; "
            f"the second ({cls.__name__}) is skipped"
        )
        return False
    table[name] = Entry(cls, plugin)
    return True
