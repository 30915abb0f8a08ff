"""Runs a tournament: schedule, executor, durable storage, progress."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from tqdm import tqdm

from arena import __version__
from arena.config import RunSettings
from arena.errors import ArenaError
from arena.isolation import host_pool
from arena.pool import Failure, WorkerPool
from arena.tournament import ScheduledGame, TournamentConfig, make_schedule, validate
from arena.worker import play_prepared, registry_for
from results.store import Store, Tournament
from results.writer import GameRows, GameWriter, game_rows


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

    @property
    def complete(self) -> bool:
        return self.already + self.played == self.scheduled


class LocalExecutor:
    """Plays games in this process (one job) or in a pool of worker processes.

    Executors yield ``(index, game_rows(...))`` for each game, laid out where it was played.
    """

    def __init__(self, jobs: int, plugins: tuple[str, ...]):
        self.jobs = jobs
        self.plugins = plugins
        # started at once: the workers boot (a Python start and the imports, ~0.3 s) while
        # the runner makes the schedule
        self.pool = WorkerPool(jobs, plugins, game_rows) if jobs > 1 else None

    def run(self, tasks: Sequence[ScheduledGame]) -> Iterator[tuple[int, GameRows] | Failure]:
        if self.pool is None or len(tasks) <= 1:
            for task in tasks:
                try:
                    yield play_prepared(task, self.plugins, game_rows)
                except Exception as exc:
                    yield Failure(task.index, f"the referee failed: {type(exc).__name__}: {exc}")
            return
        yield from self.pool.run(tasks)

    def close(self, abort: bool = False) -> None:
        if self.pool is not None:
            self.pool.close(abort)
            self.pool = None
        host_pool().close()


#: Seconds to wait for a Dask scheduler to answer.
DASK_CONNECT_TIMEOUT = 10


class DaskExecutor:
    """Plays games on a Dask cluster: an address, or ``local`` for a LocalCluster of ``jobs`` processes."""

    def __init__(self, address: str, jobs: int, plugins: tuple[str, ...]):
        try:
            import distributed
        except ImportError:
            raise ArenaError("--dask needs dask.distributed: pip install 'botarena[dask]'") from None
        self.distributed = distributed
        self.plugins = plugins
        self.cluster = None
        try:
            if address == "local":
                self.cluster = distributed.LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
                )
                self.client = distributed.Client(self.cluster)
            else:
                self.client = distributed.Client(address, timeout=DASK_CONNECT_TIMEOUT)
        except OSError as exc:
            self.close()
            raise ArenaError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None

    def run(self, tasks: Sequence[ScheduledGame]) -> Iterator[tuple[int, GameRows] | Failure]:
        if not tasks:
            return
        futures = self.client.map(play_prepared, tasks, plugins=self.plugins, prepare=game_rows, pure=False)
        index = {f.key: t.index for f, t in zip(futures, tasks)}
        for future in self.distributed.as_completed(futures):
            try:
                yield future.result()
            except Exception as exc:
                yield Failure(index[future.key], f"{type(exc).__name__}: {exc}")

    def close(self, abort: bool = False) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.cluster is not None:
            self.cluster.close()


class Leaderboard:
    """Points per bot as games come in, for the progress bar."""

    def __init__(self, rows: Iterable[tuple[str, str, float]] = ()):
        self.points: dict[str, float] = {}
        self.games: dict[str, int] = {}
        for first, second, score in rows:
            self.add(first, second, score)

    def add(self, first: str, second: str, score_first: float) -> None:
        for name, points in ((first, score_first), (second, 1.0 - score_first)):
            self.points[name] = self.points.get(name, 0.0) + points
            self.games[name] = self.games.get(name, 0) + 1

    def leader(self) -> str:
        if not self.points:
            return ""
        name = max(self.points, key=lambda n: (self.points[n] / self.games[n], self.points[n]))
        return f"leader {name} {self.points[name]:g}/{self.games[name]}"


def run_tournament(
    config: TournamentConfig, run: RunSettings, *, plugins: Sequence[str] = (), registry=None
) -> RunResult:
    """Play every game of ``config`` not yet in the database, and store them.

    Games are committed in batches (see results.writer). Ctrl-C stops the run and keeps
    every finished game; running again resumes (after SIGKILL too: games finished since
    the last commit are played again). ``plugins`` names extra plugin modules that
    workers import too.
    """
    plugins = tuple(plugins)
    registry = registry or registry_for(plugins)
    validate(config, registry)  # a bad tournament fails before any worker starts
    # worker processes boot while the schedule is laid out and the database opened
    executor = DaskExecutor(run.dask, run.jobs, plugins) if run.dask else LocalExecutor(run.jobs, plugins)
    aborted = False
    try:
        schedule = make_schedule(config, registry)
        with Store(run.database) as store:
            tournament = store.open_tournament(
                config.name, config.game, config.identity(), config.seed, len(schedule.games), __version__
            )
            done = store.finished(tournament)
            todo = [g for g in schedule.games if g.index not in done]
            board = Leaderboard(store.scores(tournament))
            result = RunResult(tournament, len(schedule.games), len(done), 0)
            bar = tqdm(
                total=len(schedule.games),
                initial=len(done),
                unit="game",
                file=sys.stderr,
                disable=not run.progress,
                dynamic_ncols=True,
                desc=config.name,
            )
            writer = GameWriter(store, tournament)
            try:
                for outcome in executor.run(todo):
                    if isinstance(outcome, Failure):
                        result.failed.append(outcome)
                        bar.write(
                            f"arena: warning: game {outcome.index} could not be played: {outcome.message}",
                            file=sys.stderr,
                        )
                        continue
                    _, rows = outcome
                    writer.add(rows)
                    if run.progress:
                        board.add(rows.first, rows.second, rows.score_first)
                        bar.update(1)
                        bar.set_postfix_str(board.leader(), refresh=False)
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
    return result
