"""A bot's process tree where no cgroup can be had (``arena.execution.cgroup.available``): found by
walking ``/proc`` from its first process (which keeps its orphans as a child subreaper), its CPU
time read from each process's CPU clock, its size capped by a supervising thread that kills a
tree past ``TASKS``; memory is then per process only (see the README's threat model).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
import weakref

#: Most tasks (processes and threads) a bot's tree may hold at once.
TASKS = 64
#: Why a tree past TASKS was killed, where no cgroup refused its forks.
OVER = f"its processes went over {TASKS} tasks (processes and threads) together and were killed"


class Descendants:
    """A bot's process tree where no cgroup can be had: its first process and every process
    below it, found in ``/proc`` each time they are needed. What a ``Tree`` does, but memory:
    CPU time from each process's CPU clock (``clock_gettime``, nanoseconds) plus what its
    reaped children used (``/proc``'s ticks); a supervising thread kills the tree once it holds
    more than ``TASKS`` tasks (``over`` says so); ``kill`` kills every process found."""

    def __init__(self, pid: int, tasks: int = TASKS):
        self.root = pid
        self.limit = tasks
        self.over = False
        self._last = 0.0  # the last sum read
        self._lost = 0.0  # what processes gone unreaped (SIGCHLD ignored) took with them, as last seen
        _watch(self)

    def members(self) -> list[int]:
        """The processes of the tree now: the root, its children and theirs."""
        return self._walk()[0]

    def _walk(self) -> tuple[list[int], int]:
        """The tree's processes and the number of their tasks (threads), read in one pass."""
        found, tasks, todo = [], 0, [self.root]
        while todo:
            pid = todo.pop()
            found.append(pid)
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            tasks += len(tids)
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                        todo += [int(c) for c in f.read().split()]
                except OSError:
                    pass
        return found, tasks

    def cpu_seconds(self) -> float:
        """CPU time of the tree's live processes and of the children they reaped, in seconds;
        never less than an earlier reading (a child reaped without a wait takes its time with
        it: what was last seen of it is kept)."""
        total = 0.0
        for pid in self.members():
            try:
                own = time.clock_gettime(_cpu_clock(pid))
            except OSError:
                continue  # gone meanwhile
            fields = _stat(pid)
            if fields is not None and len(fields) > 14:
                own += (int(fields[13]) + int(fields[14])) / _TICKS  # cutime, cstime: reaped children
            total += own
        if total < self._last:
            self._lost += self._last - total
        self._last = total
        return total + self._lost

    def tasks(self) -> int:
        return self._walk()[1]

    def out_of_memory(self) -> bool:
        return False  # each process has its own limit, which it meets with MemoryError

    def kill(self, keep: int | None = None) -> None:
        """SIGKILL every process of the tree but ``keep``. Each is stopped first, until no new
        one turns up: a stopped process forks no more, and one killed before its children would
        leave them to init, out of the tree (and holding its pipes open)."""
        stopped: list[int] = []
        for _ in range(100):
            new = [pid for pid in self.members() if pid not in stopped and not _zombie(pid)]
            if not new:
                break
            for pid in new:
                _signal(pid, signal.SIGSTOP)
            _until_stopped(new)  # a signal is taken a moment later: till then a process may fork
            stopped += new
        for pid in stopped:
            if pid != keep:
                _signal(pid, signal.SIGKILL)
        if keep in stopped:
            _signal(keep, signal.SIGCONT)

    def close(self) -> None:
        with _WATCH_LOCK:
            _WATCHED.discard(self)
        self.kill()


_TICKS = os.sysconf("SC_CLK_TCK")
_WATCHED: "weakref.WeakSet[Descendants]" = weakref.WeakSet()
_WATCHER: list[threading.Thread] = []
_WATCH_LOCK = threading.Lock()  # the set is changed by the runner's threads and read by the supervisor
#: Seconds between two looks at every watched tree's size.
WATCH_INTERVAL = 0.02


def _until_stopped(pids: list[int], most: float = 0.5) -> None:
    """Wait (``most`` seconds at most) until every one of ``pids`` is stopped, a zombie or gone."""
    end = time.monotonic() + most
    left = list(pids)
    while left and time.monotonic() < end:
        left = [pid for pid in left if _state(pid) not in (b"T", b"t", b"Z", b"X", None)]
        if left:
            time.sleep(0.0005)


def _state(pid: int) -> bytes | None:
    """A process's state letter from ``/proc`` (None once it is gone)."""
    fields = _stat(pid)
    return fields[0] if fields else None


def _stat(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after the command name (the state first), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time (glibc's ``clock_getcpuclockid``)."""
    return ((~pid) << 3) | 2  # CPUCLOCK_SCHED of the whole process


def _watch(tree: Descendants) -> None:
    with _WATCH_LOCK:
        _WATCHED.add(tree)
    if not _WATCHER:
        thread = threading.Thread(target=_supervise, name="arena-tree-supervisor", daemon=True)
        _WATCHER.append(thread)
        thread.start()


def _supervise() -> None:
    """Kill every watched tree that holds more tasks than its limit (its next call then fails)."""
    while True:
        time.sleep(WATCH_INTERVAL)
        with _WATCH_LOCK:
            trees = list(_WATCHED)
        for tree in trees:
            try:
                if tree.tasks() > tree.limit:
                    tree.over = True
                    with _WATCH_LOCK:
                        _WATCHED.discard(tree)
                    tree.kill()
            except Exception:  # a tree that went away meanwhile: the watch goes on
                pass
        del trees


def subreaper() -> None:
    """Make this process the child subreaper of its descendants: an orphan (a double-forked or
    ``setsid`` child) is reparented to it, not to init, and stays in its ``Descendants``. Kept
    across ``exec``; a system call only, fit for a ``preexec_fn``."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


_PR_SET_CHILD_SUBREAPER = 36
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux's C library
    def _prctl(*_):
        return -1


def _zombie(pid: int) -> bool:
    """True for a process that has ended and waits to be reaped by its parent (or is gone)."""
    return _state(pid) in (b"Z", b"X", None)
