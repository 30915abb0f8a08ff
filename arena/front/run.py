"""Runs a tournament: schedule, executor, durable storage, progress.

The one place where the arena meets the results database: games are laid out as the
database's rows where they are played (``results.rows.game_rows``), and stored here in
batches.
"""

from __future__ import annotations

import importlib
import sys
import threading
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Sequence

from tqdm import tqdm

from arena import __version__
from arena.execution.executors import executor as make_executor
from arena.execution.pool import Failure
from arena.front.settings import RunSettings
from arena.front import growth, interrupt
from arena.opening import stored_text
from arena.execution.sandbox import probing
from arena.execution.confine import undumpable
from arena.front.entrants import with_short_names
from arena.front.tournament import TournamentConfig, make_schedule, round_count, round_openings, validate
from arena.formats.base import Leaderboard, Watcher  # noqa: F401 (Watcher: what a run's watch= returns)
from results.rows import game_rows
from results.store import RunLock, Store, Tournament
from results.writer import GameWriter


@dataclass
class RunResult:
    """What one call of ``run_tournament`` did."""

    tournament: Tournament
    scheduled: int
    """Games in the whole schedule."""
    already: int
    """Games found finished in the database before this run."""
    played: int
    """Games played and stored by this run."""
    interrupted: bool = False
    failed: list[Failure] = field(default_factory=list)
    """Games that could not be played (not stored: a later run tries them again)."""
    watcher: "Watcher | None" = None
    """What followed the games as they came in (for an SPRT: the test)."""
    registry: object = None
    """The registry the run checked its bots against (for the HTML report)."""
    config: TournamentConfig | None = None
    """The config it ran, named."""

    @property
    def complete(self) -> bool:
        return self.already + self.played == self.scheduled


def run_tournament(
    config: TournamentConfig,
    run: RunSettings,
    *,
    plugins: Sequence[str] = (),
    registry=None,
    watch: Callable[[list[dict], int], Watcher] | None = None,
    stored: Tournament | None = None,
    lock: RunLock | None = None,
    preload: Sequence[str] = (),
) -> RunResult:
    """Play every game of ``config`` not yet in the database, and store them.

    Games are committed in batches (see results.writer). Ctrl-C stops the run and keeps
    every finished game; running again resumes (after SIGKILL too: games finished since
    the last commit are played again). ``plugins`` names extra plugin modules that
    workers import too; in a sandboxed run, only bot hosts and probes in sandboxes import them
    (see arena.execution.sandbox.probing), and ``registry`` is used only if it is sandboxed too. ``watch(stored, scheduled)`` makes the ``Watcher`` that follows the
    games and may stop the run early (default: the format's, ``Format.watcher``). ``stored``: a
    tournament in the database to play on as it is (a ladder), not one chosen by its settings
    (``arena.front.growth``); ``lock``: the database's run lock, if the caller holds it already;
    ``preload``: modules to import once the first game is in, where the games play in other
    processes (the report's: they load while the workers play, not after the last game).
    """
    registry = run_registry(plugins, config, registry=registry)
    # workers load the game's plugin only in a sandboxed run; else the --plugin modules too
    plugins = registry.plugins if registry.sandboxed else tuple(plugins)
    # worker processes boot while the tournament is checked and its schedule laid out (a bad
    # tournament stops them before they are sent a game); not before the plugins load here:
    # a start is CPU-bound on two cores, and the first game would start later
    executor = make_executor(run.dask, run.jobs, plugins, game_rows, run.affinity)
    aborted, loader = False, None
    try:
        config = with_short_names(config, registry)  # an engine entered without a name: its program's
        game = validate(config, registry)
        openings = round_openings(config, game, round_count(config, seats=game.model.players))
        watch = watch or partial(config.format.watcher, config)
        with Store(run.database) as store, (nullcontext(lock) if lock is not None else RunLock(run.database)) as lock:
            plan = growth.Plan(config, stored) if stored is not None else growth.plan(store.tournaments(), config, run.database)
            config = plan.config
            lock.note(config.name)
            schedule = make_schedule(config, registry, game, grown_from=plan.grown_from, legacy=plan.legacy, openings=openings)
            size = schedule.size
            if plan.stored is None:
                tournament = store.open_tournament(
                    config.name, config.game, plan.stored_config(), config.seed, size, __version__
                )
            elif plan.grows:
                tournament = store.grow_tournament(plan.stored, plan.stored_config(), size)
            else:
                tournament = plan.stored
            if game.model.secret:
                undumpable()  # this process holds the run's secret: no bot process reads it through /proc
                schedule.with_key(store.chance_key(tournament))
            stored = store.summaries(tournament)
            done = {r["game_id"] for r in stored}
            todo = [g for g in schedule.games if g.index not in done]
            watcher = watch(stored, size)
            # an opening that sets game parameters is stored with them: "[fen=...] e7e5"
            positions = {g.index: g.game for g in todo if g.game != config.game}
            result = RunResult(tournament, size, len(done), 0, watcher=watcher, registry=registry, config=config)
            bar = tqdm(
                total=watcher.total,
                initial=watcher.initial,
                unit=watcher.unit,
                file=sys.stderr,
                disable=not run.progress,
                dynamic_ncols=True,
                desc=config.name,
            )
            writer = GameWriter(store, tournament)
            try:
                for batch in watcher.rounds(todo, schedule):
                    for line in watcher.news():  # what the format said as it made this batch
                        bar.write(line, file=sys.stderr)
                    if isinstance(batch, list) and batch is not todo:  # a round made as results came in
                        positions.update((g.index, g.game) for g in batch if g.game != config.game)
                    for outcome in executor.run(batch):
                        interrupt.check()
                        if preload and executor.elsewhere:  # this process waits on the workers: it imports
                            loader = threading.Thread(target=_import_all, args=(preload,), daemon=True)
                            loader.start()
                        preload = ()
                        if isinstance(outcome, Failure):
                            result.failed.append(outcome)
                            watcher.failed(outcome.index)
                            bar.write(
                                f"arena: warning: game {outcome.index} could not be played: {outcome.message}",
                                file=sys.stderr,
                            )
                            continue
                        index, rows = outcome
                        if index in positions:
                            text = stored_text(config.game, positions[index], rows.game.opening)
                            rows = rows._replace(game=rows.game._replace(opening=text))
                        writer.add(rows)
                        steps = watcher.add(rows.game) if len(rows.seats) < 3 else watcher.add_table(rows.game, rows.seats)
                        for line in watcher.news():
                            bar.write(line, file=sys.stderr)
                        if run.progress:
                            bar.update(steps)
                            bar.set_postfix_str(watcher.postfix(), refresh=False)
                    writer.flush()  # a round's games are stored before the next is paired from them
                for line in watcher.news():  # what the last results decided (a race's last drops)
                    bar.write(line, file=sys.stderr)
            except KeyboardInterrupt:
                result.interrupted = aborted = True
            finally:
                try:
                    writer.flush()  # on every way out: a finished game is never lost
                finally:
                    result.played = writer.stored
                    bar.close()
    finally:
        executor.close(abort=aborted or sys.exc_info()[0] is not None)
        if loader is not None:  # no import left half done at the interpreter's exit
            loader.join()
    return result


def _import_all(modules: Sequence[str]) -> None:
    """Import ``modules`` ahead of use; a failure is left for the import that needs the module to report."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:
            return


def run_registry(plugins, config: TournamentConfig, extra=(), registry=None):
    """The registry a run of ``config`` checks its bots (and ``extra`` entrants) against:
    ``registry`` if it is sandboxed as the run is, else one built now
    (``arena.execution.sandbox.probing.registry``), its warnings printed."""
    if registry is not None and registry.sandboxed == config.limits.sandbox:
        return registry
    specs = [e.spec for e in (*config.bots, *extra)]
    return command_registry(plugins, sandboxed=config.limits.sandbox, isolate=config.isolate, game=config.game,
                            specs=specs, limits=config.limits)


def command_registry(plugins=(), **run):
    """``arena.execution.sandbox.probing.registry``, its warnings printed (a plugin that failed to load)."""
    registry = probing.registry(tuple(plugins), **run)
    for line in registry.errors:
        print(f"arena: warning: {line}", file=sys.stderr)
    return registry
