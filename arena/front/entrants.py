"""The names and specs a tournament's bots play under: short names for bots entered without
one, and the files a bot reads made absolute."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Sequence

from arena.errors import ArenaError
from arena.front.tournament import Entrant, TournamentConfig, _challengers
from arena.params import parse_spec
from arena.plugins import Registry


def short_names(entrants: Sequence[Entrant], registry: Registry) -> tuple[Entrant, ...]:
    """``entrants`` with the bot's short name (``Bot.short_name``; an engine's program) for
    each one entered without a display name, where that name is unique in the field."""
    wanted = []
    for entrant in entrants:
        short = None
        if entrant.name == entrant.spec:
            try:
                name, text = parse_spec(entrant.spec)
                short = registry.bot_class(name).short_name(text)
            except ArenaError:
                short = None  # a bad spec is reported where it is built
        wanted.append(short)
    taken = [e.name for e, short in zip(entrants, wanted) if short is None]
    unique = {s for s in wanted if s is not None and wanted.count(s) == 1 and s not in taken}
    entrants = tuple(replace(e, spec=absolute_files(e.spec, registry)) for e in entrants)
    return tuple(replace(e, name=s) if s in unique else e for e, s in zip(entrants, wanted))


def absolute_files(spec: str, registry: Registry) -> str:
    """``spec`` with the files its bot reads (``Bot.reads``: a strategy file) made absolute, so
    that a bot working in a scratch folder of its own (in a game with hidden information) finds them."""
    try:
        name, text = parse_spec(spec)
        cls = registry.bot_class(name)
        reads = getattr(cls, "reads", None)  # a sandboxed run's probed bot says no files
        files = reads(cls.parse_params(text)) if reads is not None else ()
        relative = {path for path in files if not os.path.isabs(path)}
    except ArenaError:
        return spec  # a bad spec is reported where it is built
    if not relative:
        return spec
    values = {key: os.path.abspath(value) if value in relative else value for key, value in text.items()}
    return name + ":" + ",".join(f"{key}={value}" for key, value in values.items())


def with_short_names(config: TournamentConfig, registry: Registry) -> TournamentConfig:
    """``config`` with ``short_names`` given to its bots (its challengers renamed alike)."""
    bots = short_names(config.bots, registry)
    renamed = {old.name: new.name for old, new in zip(config.bots, bots)}
    if not _challengers(config):
        return replace(config, bots=bots)
    return replace(config, bots=bots, challengers=tuple(renamed.get(c, c) for c in _challengers(config)))
