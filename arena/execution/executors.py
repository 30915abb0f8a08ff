"""Where a run's games are played: this machine (one process, or a pool of workers) or a Dask cluster.

An executor takes game tasks (a sequence, or a lazy iterable it draws from only as workers
need games) and yields ``(index, prepare(index, pairing, record))`` for
each game as it finishes, or a ``Failure``; ``prepare`` (a module-level function, since
it travels to the workers) turns a record into what the caller keeps, where the game
was played.
"""

from __future__ import annotations

import os
import time
from itertools import islice
from typing import Callable, Iterable, Iterator

from arena.errors import ArenaError
from arena.execution.isolation import host_pool
from arena.execution.pool import Failure, WorkerPool
from arena.execution.task import GameTask
from arena.execution.worker import close_idle_engines, play_prepared

#: Seconds to wait for a Dask scheduler to answer.
DASK_CONNECT_TIMEOUT = 10
#: Seconds of play in one Dask task.
DASK_CHUNK_SECONDS = 0.1
#: Most games in one Dask task.
DASK_MAX_CHUNK = 256


class LocalExecutor:
    """Plays games in this process (one job) or in a pool of worker processes."""

    def __init__(self, jobs: int, plugins: tuple[str, ...], prepare: Callable, affinity: bool = False):
        self.jobs = jobs
        self.plugins = plugins
        self.prepare = prepare
        # ``affinity``: each worker on one of the CPUs this process may use, in turn (with one job,
        # this process itself, until ``close``)
        allowed = os.sched_getaffinity(0) if affinity else set()
        cpus = tuple(sorted(allowed))
        self._own_cpus = allowed if cpus and jobs == 1 else None
        if self._own_cpus:
            os.sched_setaffinity(0, {cpus[0]})
        # started at once: the workers boot (a Python start and the imports, ~0.3 s) while
        # the caller makes the schedule
        self.pool = WorkerPool(jobs, plugins, prepare, cpus) if jobs > 1 else None
        self.elsewhere = self.pool is not None
        """Whether games play in other processes (a game alone in a run plays here all the same)."""

    def run(self, tasks: Iterable[GameTask]) -> Iterator[tuple[int, object] | Failure]:
        if self.pool is None or (hasattr(tasks, "__len__") and len(tasks) <= 1):
            for task in tasks:
                try:
                    yield play_prepared(task, self.plugins, self.prepare)
                except Exception as exc:
                    yield Failure(task.index, f"the referee failed: {type(exc).__name__}: {exc}")
            return
        yield from self.pool.run(tasks)

    def close(self, abort: bool = False) -> None:
        if self.pool is not None:
            self.pool.close(abort)
            self.pool = None
        host_pool().close()
        close_idle_engines()
        if self._own_cpus is not None:
            os.sched_setaffinity(0, self._own_cpus)
            self._own_cpus = None


class DaskExecutor:
    """Plays games on a Dask cluster: an address, or ``local`` for a LocalCluster of ``jobs`` processes."""

    def __init__(self, address: str, jobs: int, plugins: tuple[str, ...], prepare: Callable):
        try:
            import distributed
        except ImportError:
            raise ArenaError("--dask needs dask.distributed: pip install 'botarena[dask]'") from None
        self.distributed = distributed
        self.plugins = plugins
        self.prepare = prepare
        self.elsewhere = True
        self.cluster = None
        self.size = 1
        """Games in the next chunk; kept from one call of ``run`` to the next (a format's rounds)."""
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

    def run(self, tasks: Iterable[GameTask]) -> Iterator[tuple[int, object] | Failure]:
        """Games go to the cluster in chunks of about ``DASK_CHUNK_SECONDS`` of play (one game at
        first), two chunks per worker thread in flight; a lazy iterable's one game at a time, as
        its watcher may stop them. A Dask task costs the scheduler a few milliseconds of CPU, and
        a LocalCluster's scheduler runs in this process: a task per instant game made it the bottleneck."""
        threads = max(1, sum(self.client.nthreads().values()))
        left = len(tasks) if hasattr(tasks, "__len__") else None
        source = iter(tasks)
        chunks: dict[str, list[GameTask]] = {}

        def submit(n: int):
            nonlocal left
            batch = list(islice(source, n))
            if not batch:
                return None
            if left is not None:
                left -= len(batch)
            future = self.client.submit(play_chunk, batch, self.plugins, self.prepare, pure=False)
            chunks[future.key] = batch
            return future

        def next_size() -> int:  # finish together: never more than an even share of the rest
            return 1 if left is None else min(self.size, -(-left // (2 * threads)))

        ahead = 2 * threads if left is not None else threads + 1
        started = [f for f in (submit(next_size()) for _ in range(ahead)) if f]
        if not started:
            return
        running = self.distributed.as_completed(started)
        for future in running:
            batch = chunks.pop(future.key)
            try:
                outcomes, seconds = future.result()
            except Exception as exc:  # Dask could not run the chunk (its workers kept dying): none of its games count
                outcomes, seconds = [Failure(t.index, f"{type(exc).__name__}: {exc}") for t in batch], None
            if left is None:  # a lazy iterable's next game is drawn after the watcher has seen this one's
                yield from outcomes
                outcomes = ()
            elif seconds is not None:
                # at most twofold growth: a slow first game (imports) must not make the next chunk huge
                fit = int(DASK_CHUNK_SECONDS * len(batch) / max(seconds, 1e-6))
                self.size = max(1, min(2 * self.size, DASK_MAX_CHUNK, fit))
            more = submit(next_size())  # a sequence's: before this chunk's games are stored, so workers stay busy
            if more is not None:
                running.add(more)
            yield from outcomes

    def close(self, abort: bool = False) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            if not abort:
                try:  # the engines each worker kept for later games
                    client.run(close_idle_engines)
                except Exception:  # a worker that is gone has no engines left
                    pass
            client.close()
        if self.cluster is not None:
            self.cluster.close()


def play_chunk(tasks: list[GameTask], plugins: tuple[str, ...], prepare: Callable) -> tuple[list, float]:
    """Play games one after another where Dask runs this: their outcomes, and the seconds they took."""
    start = time.perf_counter()
    outcomes = []
    for task in tasks:
        try:
            outcomes.append(play_prepared(task, plugins, prepare))
        except Exception as exc:
            outcomes.append(Failure(task.index, f"the referee failed: {type(exc).__name__}: {exc}"))
    return outcomes, time.perf_counter() - start


def executor(dask: str | None, jobs: int, plugins: tuple[str, ...], prepare: Callable, affinity: bool = False):
    """The executor a run asks for: Dask at ``dask`` if given, else this machine with ``jobs`` processes
    (each on one CPU with ``affinity``)."""
    if affinity and not hasattr(os, "sched_setaffinity"):
        raise ArenaError("--affinity needs a system that pins processes to CPUs (Linux's sched_setaffinity); "
                         "leave it out here")
    if dask and affinity:
        raise ArenaError("--affinity pins this machine's worker processes to CPUs; a Dask cluster places its own: "
                         "leave out --affinity or --dask")
    return DaskExecutor(dask, jobs, plugins, prepare) if dask else LocalExecutor(jobs, plugins, prepare, affinity)
