"""Tournament formats: one module each, registered here by name.

A format (``arena.formats.base.Format``) holds its settings, its checks, the games it lays
out or pairs as results come in, when it stops, and the report tables only it has. Adding
one means adding a module in this folder and a line to ``BUILTIN``.

The registry is read by name and imports a format's module only when it is asked for, as
the plugin registry finds the built-in plugins: the results layer below the formats asks it
what a stored tournament's format shows (its heading, its page) without importing them.
"""

from __future__ import annotations

import importlib
from difflib import get_close_matches
from functools import lru_cache

from arena.errors import ParameterError

#: Every built-in format: its name, and the module and class that hold it, in the order
#: help and messages list them.
BUILTIN = {
    "round-robin": "arena.formats.roundrobin:RoundRobin",
    "gauntlet": "arena.formats.gauntlet:Gauntlet",
    "sprt": "arena.formats.sprt:Sprt",
    "swiss": "arena.formats.swiss:Swiss",
    "race": "arena.formats.race:Race",
    "ladder": "arena.formats.ladder:Ladder",
}


@lru_cache(maxsize=None)
def _load(name: str):
    module, _, attribute = BUILTIN[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


def formats() -> dict:
    """Every format class by name, in ``BUILTIN``'s order."""
    return {name: _load(name) for name in BUILTIN}


def format_class(name: str):
    """The format named ``name``; ParameterError naming the formats a tournament file may name."""
    if isinstance(name, str) and name in BUILTIN:
        return _load(name)
    listed = [n for n, cls in formats().items() if cls.in_files]
    near = get_close_matches(str(name), listed, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise ParameterError(f"unknown format {name!r}; formats: {', '.join(listed)}{hint}")


def stored_format(config: dict | None):
    """The format of a stored tournament, from its config as stored: a round-robin for one
    stored before formats were recorded, the bare ``Format`` for one this version does not know."""
    name = (config or {}).get("format") or "round-robin"
    if name not in BUILTIN:
        return importlib.import_module("arena.formats.base").Format()
    return _load(name).from_stored(config or {})
