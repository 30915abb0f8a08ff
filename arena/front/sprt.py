"""``arena sprt``: is the new bot better than the base? Pairs of games until the test decides.

An SPRT is a tournament of the ``sprt`` format: two bots, new first, playing pairs of games
(one opening, colours swapped), stored like any tournament. It is run by ``run_tournament``
with a ``TestWatcher``, which hands the executor games in pair order and stops handing them
once the test has decided; the games then in flight are finished and stored, but count in
neither the verdict nor the counts (see ``results.sprt_report.PairWalk``).
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Iterable, Iterator

from arena.execution.task import GameTask
from arena.front.probing import config_registry
from arena.front.run import Watcher, run_tournament
from arena.front.settings import SPRT_SETTINGS, UsageError, build_sprt, settings
from arena.front.tournament import TournamentConfig
from arena.plugins import Registry
from arena.records import points
from results.rows import GameRow
from results.sprt_report import RESULTS, PairWalk


class TestWatcher(Watcher):
    """Follows an SPRT: the progress bar counts pairs and shows the LLR; games stop once it decides."""

    unit = "pair"

    def __init__(self, config: TournamentConfig, stored: list[dict], scheduled: int):
        self.walk = PairWalk(config.sprt, config.bots[0].name, scheduled // 2)
        for row in stored:
            self.walk.add(row["game_id"], row["first"], points(row["result"]))
        self.total, self.initial = scheduled // 2, self.walk.pairs
        self.told = self.walk.over  # decided before this run: nothing to announce
        self.in_flight = 0

    def tasks(self, todo: list[GameTask]) -> Iterable[GameTask]:
        for task in todo:  # in game order, so pairs finish roughly in pair order
            if self.walk.over:
                return
            self.in_flight += 1
            yield task

    def add(self, game: GameRow) -> int:
        self.in_flight -= 1
        return self.walk.add(game.game_id, game.first, game.score_first)

    def postfix(self) -> str:
        s = self.walk.status
        return f"LLR {s.llr:.2f} in ({s.lower:.2f}, {s.upper:.2f})"

    def news(self) -> Iterator[str]:
        if self.walk.over and not self.told:
            self.told = True
            flight = f"; finishing {self.in_flight} games in flight: they are stored but do not change the verdict" if self.in_flight else ""
            yield f"arena: SPRT {RESULTS[self.walk.verdict]} after {self.walk.pairs} pairs (LLR {self.walk.status.llr:.2f}){flight}"


def cmd_sprt(registry: Registry, args) -> int:
    """Run an SPRT (or resume it), then print its report."""
    from arena.front.reports import check_html_target, report_text, write_html_report

    page = check_html_target(args.html) if args.html else None  # a bad path fails before any game
    config_file, new, base = _positionals(args.positional)
    overrides = {
        "new": new, "base": base, "game": args.game, "budget": args.budget, "elo0": args.elo0, "elo1": args.elo1,
        "alpha": args.alpha, "beta": args.beta, "model": args.model, "max_games": args.max_games,
        "openings": args.openings, "shuffle": args.shuffle or None, "seed": args.seed,
        "time_margin": args.time_margin, "watchdog": args.watchdog, "memory_limit": args.memory_limit,
        "output_limit": args.output_limit, "isolate": args.isolate, "sandbox": args.sandbox, "name": args.name, "database": args.db,
        "jobs": args.jobs,
    }
    values = settings(config_file, overrides, SPRT_SETTINGS)
    values.update(dask=args.dask, progress=not args.no_progress)
    config, run = build_sprt(values)
    registry = config_registry(args.plugin, config)
    result = run_tournament(config, run, plugins=args.plugin, registry=registry, watch=partial(TestWatcher, config))
    db, name = str(run.database), result.tournament.name
    walk = result.watcher.walk
    if result.interrupted:
        print(
            f"arena: interrupted after {walk.pairs} pairs; {result.already + result.played} games are stored in "
            f"{db!r}; run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    print(report_text(db, name))
    print(f"\n{result.already + result.played} games in {db!r} (tournament {name!r}; {result.played} played now)")
    if page is not None:
        print(f"HTML report: {write_html_report(db, page, name, registry)}")
    if result.failed:
        print(
            f"arena: {len(result.failed)} games could not be played (see the warnings above), so the test "
            "could not count past them; run the same command again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


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
