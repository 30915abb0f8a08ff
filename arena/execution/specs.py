"""Games and bots from their specs, built once per process and handed out fresh per game."""

from __future__ import annotations

import copy
from functools import lru_cache

from arena.game import Game
from arena.params import parse_spec
from arena.plugins import Registry, get_registry, load_plugin


@lru_cache(maxsize=8)
def registry_for(plugins: tuple[str, ...], entry_points: bool = True) -> Registry:
    """A registry with the entry points (unless told not to: a sandboxed run loads only what it
    names) plus extra plugins (``load_plugin`` sources), built once per process."""
    return get_registry(entry_points=entry_points, plugins=[load_plugin(name) for name in plugins])


@lru_cache(maxsize=64)
def _pristine_game(spec: str, plugins: tuple[str, ...], entry_points: bool) -> Game:
    """The game of ``spec``, built once per process and never handed to a bot."""
    return registry_for(plugins, entry_points).game(spec)


def fresh_game(spec: str, plugins: tuple[str, ...] = (), entry_points: bool = True) -> Game:
    """A game object for one game: a shallow copy of this process's pristine one.

    Building a game can take longer than playing a fast one (Connect Four precomputes
    its lines), so each is built once per process and copied, which costs about as much
    as one move. A bot that rebinds the game's attributes (its methods, its tables)
    changes only its copy, never the next game's; one that mutates an object the copy
    shares with the pristine game (a table filled on demand) could reach later games,
    which is why only trusted bots play without isolation.
    """
    return copy.copy(_pristine_game(spec, plugins, entry_points))


@lru_cache(maxsize=256)
def bot_class(spec: str, plugins: tuple[str, ...], entry_points: bool = True) -> tuple[type, dict]:
    """The class and checked parameters of a bot spec (parsed once per process)."""
    name, text = parse_spec(spec)
    cls = registry_for(plugins, entry_points).bot_class(name)
    return cls, cls.parse_params(text)
