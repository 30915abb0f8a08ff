"""``arena sprt``: is the new bot better than the base? Pairs of games until the test decides.

An SPRT is a tournament of the ``sprt`` format (``arena.formats.sprt``): two bots, new first,
playing pairs of games, stored like any tournament and run by ``run_tournament``.
"""

from __future__ import annotations

from arena.front.options import overrides
from arena.front.reports import (
    REPORT_MODULES,
    check_html_target,
    check_pgn_target,
    finish,
)
from arena.front.run import run_tournament
from arena.front.settings import SPRT_SETTINGS, UsageError, build_sprt, settings
from arena.plugins import Registry


def cmd_sprt(registry: Registry, args) -> int:
    """Run an SPRT (or resume it), then print its report."""
    page = check_html_target(args.html) if args.html else None  # a bad path fails before any game
    config_file, new, base = _positionals(args.positional)
    given = {**overrides(args, "sprt"), "new": new, "base": base}
    values = settings(config_file, given, SPRT_SETTINGS)
    config, run = build_sprt(values)
    pgn = check_pgn_target(args.pgn, config.game) if args.pgn else None  # before any game too
    result = run_tournament(config, run, plugins=args.plugin, preload=REPORT_MODULES)
    return finish(result, run.database, page, result.registry, after=f"after {result.watcher.walk.pairs} pairs",
                  failed=", so the test could not count past them", pgn=pgn, progress=run.progress)


def _positionals(items: list[str]) -> tuple[str | None, str | None, str | None]:
    """``[CONFIG.toml] [NEW BASE]``."""
    items = list(items)
    config = items.pop(0) if items and items[0].lower().endswith(".toml") else None
    if len(items) not in (0, 2):
        raise UsageError(
            f"arena sprt takes NEW and BASE (two bot specs), after an optional settings file; got {len(items)} "
            f"bot{'s' * (len(items) != 1)}: {' '.join(items)}"
        )
    return (config, *items) if items else (config, None, None)
