"""Worker processes that play scheduled games; a worker that dies is replaced and its games replayed.

Games go to a worker in chunks, each about ``CHUNK_SECONDS`` of play, and each worker
holds ``IN_FLIGHT`` chunks so that it never waits for the parent between two. A worker
reports the games it has finished at the end of each chunk, or sooner once
``REPORT_SECONDS`` have passed since its last report: fast games share a message, and a
slow game is reported as soon as it ends.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
import traceback
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Iterable, Iterator

from arena.execution.task import GameTask

#: Times a game is started before a dying worker makes the runner give it up.
MAX_ATTEMPTS = 3
#: Seconds of play in one chunk of games sent to a worker.
CHUNK_SECONDS = 0.02
#: Most games in one chunk.
MAX_CHUNK = 256
#: Chunks a worker holds at once: the one it plays and the next.
IN_FLIGHT = 2
#: Longest a worker keeps finished games before it reports them, in seconds.
REPORT_SECONDS = 0.05


@dataclass
class Failure:
    """A game that could not be played: its worker died every time, or the referee itself failed."""

    index: int
    message: str


def _worker(conn, plugins: tuple[str, ...], prepare, parent: int, playing, cpu: int | None = None) -> None:
    """Play chunks of games; report ``(outcomes, seconds, chunk done)``.

    ``playing`` (shared memory) holds the index of the game being played, -1 between
    games: if this process dies, the parent knows which game killed it. ``cpu``: the one CPU
    this process and every process it starts (engines, isolated bots) run on, or None.
    """
    if cpu is not None:  # before any game: the processes it starts inherit it
        os.sched_setaffinity(0, {cpu})
    from arena.execution.host import die_with_parent
    from arena.execution.worker import close_idle_engines, ignore_interrupts, play_prepared

    ignore_interrupts()
    die_with_parent(parent)
    clock = time.perf_counter
    while True:
        try:
            chunk = conn.recv()
        except EOFError:
            close_idle_engines()
            return
        outcomes, reported = [], clock()
        for i, task in enumerate(chunk):
            playing.value = task.index
            try:
                outcomes.append(("ok", play_prepared(task, plugins, prepare)))
            except Exception as exc:
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                outcomes.append(("error", task.index, detail, traceback.format_exc()))
            playing.value = -1
            now = clock()
            if i + 1 == len(chunk) or now - reported >= REPORT_SECONDS:
                conn.send((outcomes, now - reported, i + 1 == len(chunk)))
                outcomes, reported = [], now


class _Slot:
    """One worker process, the chunks sent to it, and the games of those it has not reported."""

    size = 1
    """Games in its next chunk: one at first, then about CHUNK_SECONDS of play."""
    per_game = math.inf
    """Seconds a game took in its last report."""

    def __init__(self, context, plugins, prepare, cpu: int | None = None):
        self.cpu = cpu
        self.conn, theirs = context.Pipe()
        self.playing = context.RawValue("q", -1)
        args = (theirs, plugins, prepare, os.getpid(), self.playing, cpu)
        self.proc = context.Process(target=_worker, args=args, daemon=True)
        self.proc.start()
        theirs.close()
        self.chunks: deque[int] = deque()  # the size of each chunk sent and not yet done, oldest first
        self.unreported: dict[int, GameTask] = {}  # in the order sent


class _Queue:
    """The games still to send: a sequence's, or those a lazy iterable gives when asked."""

    def __init__(self, tasks: Iterable[GameTask]):
        self.items: deque[GameTask] = deque(tasks) if hasattr(tasks, "__len__") else deque()
        self.source = None if hasattr(tasks, "__len__") else iter(tasks)

    @property
    def known(self) -> int | None:
        """How many are left, when known (a sequence)."""
        return len(self.items) if self.source is None else None

    def __bool__(self) -> bool:
        if not self.items and self.source is not None:
            task = next(self.source, None)
            if task is None:
                self.source = None
            else:
                self.items.append(task)
        return bool(self.items)

    def take(self, count: int) -> list[GameTask]:
        out = []
        while len(out) < count and self:
            out.append(self.items.popleft())
        return out

    def extendleft(self, tasks) -> None:
        self.items.extendleft(tasks)

    def remove(self, task: GameTask) -> None:
        self.items.remove(task)

    def __iter__(self):
        return iter(self.items)


class WorkerPool:
    """``jobs`` worker processes, each playing one game at a time.

    A worker returns ``prepare(index, pairing, record)`` for each game (see
    ``arena.execution.worker.play_prepared``); ``prepare`` must be a module-level function.
    ``cpus``: worker ``i`` runs on ``cpus[i % len(cpus)]`` alone (a game's processes take turns: on
    one CPU none waits for another CPU to wake it), or, with none, anywhere.
    """

    def __init__(self, jobs: int, plugins: tuple[str, ...], prepare, cpus: tuple[int, ...] = ()):
        self.context = multiprocessing.get_context("spawn")
        self.plugins, self.prepare = plugins, prepare
        self.slots = [_Slot(self.context, plugins, prepare, cpus[i % len(cpus)] if cpus else None) for i in range(jobs)]

    def run(self, tasks: Iterable[GameTask]) -> Iterator[tuple[int, object] | Failure]:
        """Yield ``(index, prepared)`` for each game as it is reported, or a Failure.

        ``tasks`` may be a lazy iterable (not a sequence): each task is then taken from it only
        when a worker is about to be sent it, so a caller that stops it (a sequential test
        that has decided) plays no more than the games already sent.
        """
        queue = _Queue(tasks)
        deaths: dict[int, int] = {}
        while queue or any(s.unreported for s in self.slots):
            for i, slot in enumerate(self.slots):
                if queue and not slot.unreported and not slot.proc.is_alive():
                    self._replace(i)  # died between chunks, with nothing in flight
                    slot = self.slots[i]
                # a slow game waits behind another only while more games are left than workers:
                # the worker starts it at once (no wait for this loop, a millisecond or two a
                # game), and at the end of the run no game is held back from an idle worker
                ahead = slot.per_game < CHUNK_SECONDS or (queue.known or 0) > len(self.slots)
                in_flight = IN_FLIGHT if ahead else 1
                while queue and len(slot.chunks) < in_flight:
                    self._send(slot, queue)
            busy = [s for s in self.slots if s.unreported]
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy])
            for i, slot in enumerate(self.slots):
                if not slot.unreported or (slot.conn not in ready and slot.proc.sentinel not in ready):
                    continue
                try:
                    while slot.conn.poll():
                        outcomes, seconds, chunk_done = slot.conn.recv()
                        if outcomes:
                            # chunks grow at most twofold, so that one slow first game (imports,
                            # tables) or one fast one does not set the size alone
                            slot.per_game = seconds / len(outcomes)
                            size = int(CHUNK_SECONDS / max(slot.per_game, 1e-6))
                            slot.size = max(1, min(size, 2 * slot.size, MAX_CHUNK))
                        yield from self._reported(slot, outcomes, chunk_done)
                    if slot.proc.is_alive() or not slot.unreported:
                        continue
                except (EOFError, OSError):
                    pass
                # the worker died with games unreported: replay them all, but only the game
                # it was playing (or, between games, the next one) counts the death
                culprit = slot.playing.value
                if culprit not in slot.unreported:
                    culprit = next(iter(slot.unreported))
                code = slot.proc.exitcode
                queue.extendleft(reversed(slot.unreported.values()))
                self._replace(i)
                deaths[culprit] = deaths.get(culprit, 0) + 1
                if deaths[culprit] >= MAX_ATTEMPTS:
                    queue.remove(next(t for t in queue if t.index == culprit))
                    yield Failure(culprit, f"its worker process died {MAX_ATTEMPTS} times (last exit code {code})")

    def _send(self, slot: _Slot, queue: _Queue) -> None:
        """Send the next chunk: about CHUNK_SECONDS of play, and never more than an even
        share of what is left, so that the workers finish together."""
        share = math.ceil(queue.known / (IN_FLIGHT * len(self.slots))) if queue.known is not None else slot.size
        chunk = queue.take(min(slot.size, share))
        slot.chunks.append(len(chunk))
        slot.unreported.update((t.index, t) for t in chunk)
        try:
            slot.conn.send(chunk)
        except OSError:  # the worker is dead: the loop notices, and replays the chunk
            pass

    def _reported(self, slot: _Slot, outcomes: list, chunk_done: bool) -> Iterator:
        for outcome in outcomes:
            if outcome[0] == "ok":
                slot.unreported.pop(outcome[1][0], None)
                yield outcome[1]
            else:
                slot.unreported.pop(outcome[1], None)
                yield Failure(outcome[1], f"the referee failed: {outcome[2]}")
        if chunk_done:
            slot.chunks.popleft()

    def _replace(self, i: int) -> None:
        old = self.slots[i]
        old.conn.close()
        old.proc.join(timeout=1)
        self.slots[i] = _Slot(self.context, self.plugins, self.prepare, old.cpu)

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
