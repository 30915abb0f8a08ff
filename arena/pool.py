"""Worker processes that play scheduled games; a worker that dies is replaced and its game replayed."""

from __future__ import annotations

import multiprocessing
import os
import traceback
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Iterator, Sequence

from arena.tournament import ScheduledGame

#: Times a game is started before a dying worker makes the runner give it up.
MAX_ATTEMPTS = 3


@dataclass
class Failure:
    """A game that could not be played: its worker died every time, or the referee itself failed."""

    index: int
    message: str


def _worker(conn, plugins: tuple[str, ...], parent: int) -> None:
    from arena.host import die_with_parent
    from arena.worker import ignore_interrupts, play_scheduled

    ignore_interrupts()
    die_with_parent(parent)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        try:
            conn.send(("ok", play_scheduled(task, plugins)))
        except Exception as exc:
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            conn.send(("error", task.index, detail, traceback.format_exc()))


class _Slot:
    def __init__(self, context, plugins):
        self.conn, theirs = context.Pipe()
        self.proc = context.Process(target=_worker, args=(theirs, plugins, os.getpid()), daemon=True)
        self.proc.start()
        theirs.close()
        self.task: ScheduledGame | None = None


class WorkerPool:
    """``jobs`` worker processes, each playing one game at a time."""

    def __init__(self, jobs: int, plugins: tuple[str, ...]):
        self.context = multiprocessing.get_context("spawn")
        self.plugins = plugins
        self.slots = [_Slot(self.context, plugins) for _ in range(jobs)]

    def run(self, tasks: Sequence[ScheduledGame]) -> Iterator[tuple[int, object] | Failure]:
        """Yield ``(index, record)`` for each game as it finishes, or a Failure."""
        queue = list(reversed(tasks))
        attempts: dict[int, int] = {}
        while queue or any(s.task for s in self.slots):
            for slot in self.slots:
                if slot.task is None and queue:
                    slot.task = queue.pop()
                    attempts[slot.task.index] = attempts.get(slot.task.index, 0) + 1
                    slot.conn.send(slot.task)
            busy = [s for s in self.slots if s.task is not None]
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy])
            for i, slot in enumerate(self.slots):
                if slot.task is None or (slot.conn not in ready and slot.proc.sentinel not in ready):
                    continue
                try:
                    answer = slot.conn.recv() if slot.conn.poll() else None
                except (EOFError, OSError):
                    answer = None
                if answer is None:  # the worker died with the game in flight
                    task, slot.task = slot.task, None
                    code = slot.proc.exitcode
                    self.slots[i] = _Slot(self.context, self.plugins)
                    if attempts[task.index] < MAX_ATTEMPTS:
                        queue.append(task)
                    else:
                        yield Failure(task.index, f"its worker process died {MAX_ATTEMPTS} times (last exit code {code})")
                elif answer[0] == "ok":
                    slot.task = None
                    yield answer[1]
                else:
                    slot.task = None
                    yield Failure(answer[1], f"the referee failed: {answer[2]}")

    def close(self, abort: bool = False) -> None:
        for slot in self.slots:
            if abort:
                slot.proc.kill()
            slot.conn.close()
        for slot in self.slots:
            slot.proc.join(timeout=None if abort else 10)
            if slot.proc.is_alive():
                slot.proc.kill()
                slot.proc.join()
