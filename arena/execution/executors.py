"""Where a run's games are played: this machine (one process, or a pool of workers) or a Dask cluster.

An executor takes game tasks (a sequence, or a lazy iterable it draws from only as workers
need games) and yields ``(index, prepare(index, pairing, record))`` for
each game as it finishes, or a ``Failure``; ``prepare`` (a module-level function, since
it travels to the workers) turns a record into what the caller keeps, where the game
was played.
"""

from __future__ import annotations

from itertools import islice
from typing import Callable, Iterable, Iterator

from arena.errors import ArenaError
from arena.execution.isolation import host_pool
from arena.execution.pool import Failure, WorkerPool
from arena.execution.task import GameTask
from arena.execution.worker import close_idle_engines, play_prepared

#: Seconds to wait for a Dask scheduler to answer.
DASK_CONNECT_TIMEOUT = 10


class LocalExecutor:
    """Plays games in this process (one job) or in a pool of worker processes."""

    def __init__(self, jobs: int, plugins: tuple[str, ...], prepare: Callable):
        self.jobs = jobs
        self.plugins = plugins
        self.prepare = prepare
        # started at once: the workers boot (a Python start and the imports, ~0.3 s) while
        # the caller makes the schedule
        self.pool = WorkerPool(jobs, plugins, prepare) if jobs > 1 else None

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

    def run(self, tasks: Iterable[GameTask]) -> Iterator[tuple[int, object] | Failure]:
        if hasattr(tasks, "__len__"):  # a sequence: everything at once
            ahead = len(tasks)
        else:  # a lazy iterable: a game more than the cluster's threads, each drawn as one ends
            ahead = sum(self.client.nthreads().values()) + 1
        source = iter(tasks)
        index = {}

        def submit(batch):
            batch = list(batch)
            futures = self.client.map(play_prepared, batch, plugins=self.plugins, prepare=self.prepare, pure=False)
            index.update((f.key, t.index) for f, t in zip(futures, batch))
            return futures

        started = submit(islice(source, ahead))
        if not started:
            return
        running = self.distributed.as_completed(started)
        for future in running:
            try:
                yield future.result()
            except Exception as exc:
                yield Failure(index[future.key], f"{type(exc).__name__}: {exc}")
            for more in submit(islice(source, 1)):
                running.add(more)

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


def executor(dask: str | None, jobs: int, plugins: tuple[str, ...], prepare: Callable):
    """The executor a run asks for: Dask at ``dask`` if given, else this machine with ``jobs`` processes."""
    return DaskExecutor(dask, jobs, plugins, prepare) if dask else LocalExecutor(jobs, plugins, prepare)
