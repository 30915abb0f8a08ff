"""Runs a tournament: schedule, executor, durable storage, progress.

The one place where the arena meets the results database: games are laid out as the
database's rows where they are played (``results.rows.game_rows``), and stored here in
batches.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

from tqdm import tqdm

from arena import __version__
from arena.execution.executors import executor as make_executor
from arena.execution.pool import Failure
from arena.execution.specs import registry_for
from arena.front.settings import RunSettings
from arena.front import growth
from arena.execution.task import GameTask
from arena.front.openings import stored_text
from arena.front.tournament import TournamentConfig, make_schedule, round_openings, validate, with_short_names
from results.rows import GameRow, game_rows
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

    @property
    def complete(self) -> bool:
        return self.already + self.played == self.scheduled


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


class Watcher:
    """Follows a run's games as they come in: what the progress bar shows, and which games are played.

    This one plays every game and names the leader; a run that may stop early (an SPRT)
    gives its own (``arena.front.sprt.TestWatcher``).
    """

    unit = "game"

    def __init__(self, stored: list[dict], scheduled: int):
        """``stored``: the games already in the database (``Store.summaries``); ``scheduled``: the schedule's size."""
        self.board = Leaderboard((r["first"], r["second"], _score(r["result"])) for r in stored)
        self.total, self.initial = scheduled, len(stored)

    def tasks(self, todo: list[GameTask]) -> Iterable[GameTask]:
        """The games to hand the executor (a lazy iterable lets a watcher stop them)."""
        return todo

    def add(self, game: GameRow) -> int:
        """Take one finished game; return the steps the progress bar advances."""
        self.board.add(game.first, game.second, game.score_first)
        return 1

    def postfix(self) -> str:
        return self.board.leader()

    def news(self) -> Iterator[str]:
        """Lines to print above the progress bar, once each (none here)."""
        return iter(())


def _score(result: str) -> float:
    return {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)


def run_tournament(
    config: TournamentConfig,
    run: RunSettings,
    *,
    plugins: Sequence[str] = (),
    registry=None,
    watch: Callable[[list[dict], int], Watcher] = Watcher,
) -> RunResult:
    """Play every game of ``config`` not yet in the database, and store them.

    Games are committed in batches (see results.writer). Ctrl-C stops the run and keeps
    every finished game; running again resumes (after SIGKILL too: games finished since
    the last commit are played again). ``plugins`` names extra plugin modules that
    workers import too. ``watch(stored, scheduled)`` makes the ``Watcher`` that follows the
    games and may stop the run early.
    """
    plugins = tuple(plugins)
    registry = registry or registry_for(plugins)
    config = with_short_names(config, registry)  # an engine entered without a name: its program's
    game = validate(config, registry)  # a bad tournament fails before any worker starts
    openings = round_openings(config, game, config.games_per_pairing // 2)
    aborted = False
    with Store(run.database) as store, RunLock(run.database) as lock:
        plan = growth.plan(store.tournaments(), config, run.database)
        config = plan.config
        lock.note(config.name)
        # worker processes boot while the schedule is laid out
        executor = make_executor(run.dask, run.jobs, plugins, game_rows)
        try:
            schedule = make_schedule(config, registry, game, grown_from=plan.grown_from, legacy=plan.legacy, openings=openings)
            size = len(schedule.games)
            if plan.stored is None:
                tournament = store.open_tournament(
                    config.name, config.game, plan.stored_config(), config.seed, size, __version__
                )
            elif plan.grows:
                tournament = store.grow_tournament(plan.stored, plan.stored_config(), size)
            else:
                tournament = plan.stored
            stored = store.summaries(tournament)
            done = {r["game_id"] for r in stored}
            todo = [g for g in schedule.games if g.index not in done]
            watcher = watch(stored, len(schedule.games))
            # an opening that sets game parameters is stored with them: "[fen=...] e7e5"
            positions = {g.index: g.game for g in todo if g.game != config.game}
            result = RunResult(tournament, len(schedule.games), len(done), 0, watcher=watcher)
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
                for outcome in executor.run(watcher.tasks(todo)):
                    if isinstance(outcome, Failure):
                        result.failed.append(outcome)
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
                    steps = watcher.add(rows.game)
                    for line in watcher.news():
                        bar.write(line, file=sys.stderr)
                    if run.progress:
                        bar.update(steps)
                        bar.set_postfix_str(watcher.postfix(), refresh=False)
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
