"""A bot's process tree in a control group of its own: one memory allowance and one process
count for the whole tree, its CPU time in nanoseconds, and every process in it killed at once.

Per-process limits (``setrlimit``) let a bot fork its way past them: each child gets a fresh
memory allowance, ``RLIMIT_NPROC`` counts all of a user's processes rather than one tree, and a
double-forked or ``setsid`` child leaves the process group that ``killpg`` reaches. A cgroup
holds every descendant whatever it does, so the supervisor puts each bot process (a Python
host, an engine, or the bubblewrap that runs either) into a ``Tree`` before any of the bot's
code runs, and empties it when the game is over.

Version 1 hierarchies (the ``memory``, ``pids`` and ``cpuacct`` controllers mounted apart)
and the unified version 2 hierarchy are both used where this process may create groups
(root, or a delegated subtree). ``available()`` says why not, where not: a bot's tree is then
a ``Descendants``, found by walking ``/proc`` from its first process (which keeps its orphans
as a child subreaper), its CPU time read from each process's CPU clock, its size capped by a
supervising thread that kills a tree past ``TASKS``; memory is then per process only (see
the README's threat model).
"""

from __future__ import annotations

import ctypes
import itertools
import os
import signal
import threading
import time
import weakref
from functools import lru_cache

ROOT = "/sys/fs/cgroup"
#: Most tasks (processes and threads) a bot's tree may hold at once.
TASKS = 64
#: Why a tree past TASKS was killed, where no cgroup refused its forks.
OVER = f"its processes went over {TASKS} tasks (processes and threads) together and were killed"
_names = itertools.count()


class Tree:
    """One control group (a folder per controller) for one bot process and its descendants."""

    over = False
    """Never: the kernel refuses a fork past ``TASKS`` (see ``Descendants.over``)."""

    def __init__(self, memory_bytes: int | None, tasks: int = TASKS):
        version, parents = _layout()
        name = f"arena-{os.getpid()}-{next(_names)}"
        self.version = version
        self.dirs: dict[str, str] = {}
        try:
            for controller, parent in parents.items():
                path = os.path.join(parent, name)
                os.mkdir(path)
                self.dirs[controller] = path
            memory, pids = self.dirs["memory"], self.dirs["pids"]
            if version == 1:
                if memory_bytes is not None:
                    _write(memory, "memory.limit_in_bytes", memory_bytes)
                    _write(memory, "memory.memsw.limit_in_bytes", memory_bytes, optional=True)  # no swap beyond it
            elif memory_bytes is not None:
                _write(memory, "memory.max", memory_bytes)
                _write(memory, "memory.swap.max", 0, optional=True)
            _write(pids, "pids.max", tasks)
        except OSError:
            self.close()
            raise
        self.procs = tuple(os.path.join(d, "cgroup.procs") for d in dict.fromkeys(self.dirs.values()))
        cpu = self.dirs["cpu"]
        self._cpu_file = os.open(os.path.join(cpu, "cpuacct.usage" if version == 1 else "cpu.stat"), os.O_RDONLY)
        # read after every move or game: kept open
        self._oom_file = os.open(os.path.join(memory, "memory.oom_control" if version == 1 else "memory.events"), os.O_RDONLY)
        self._tasks_file = os.open(os.path.join(pids, "pids.current"), os.O_RDONLY)

    def add(self, pid: int) -> None:
        """Move process ``pid`` (and the children it will have) into the tree."""
        for path in self.procs:
            with open(path, "w") as f:
                f.write(str(pid))

    def joiner(self):
        """What a child runs before ``exec`` to join the tree: system calls only, no import
        or allocation that could wait on a lock another thread of the runner held at ``fork``."""
        paths = [p.encode() for p in self.procs]

        def join():
            me = str(os.getpid()).encode()
            for path in paths:
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.write(fd, me)
                finally:
                    os.close(fd)

        return join

    def cpu_seconds(self) -> float:
        """CPU time the tree's processes have used so far (those gone included), in seconds."""
        data = os.pread(self._cpu_file, 4096, 0)
        if self.version == 1:
            return int(data) / 1e9
        for line in data.split(b"\n"):
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        return 0.0

    def out_of_memory(self) -> bool:
        """True once the kernel killed a process of the tree for the tree's memory."""
        if self._oom_file is None:
            return False
        for line in os.pread(self._oom_file, 4096, 0).split(b"\n"):
            if line.startswith(b"oom_kill "):
                return int(line.split()[1]) > 0
        return False

    def members(self) -> list[int]:
        """The processes in the tree now."""
        found: set[int] = set()
        for path in self.procs:
            try:
                with open(path) as f:
                    found.update(int(line) for line in f if line.strip())
            except OSError:
                pass
        return sorted(found)

    def tasks(self) -> int:
        """The tasks (processes and threads) in the tree now."""
        return int(os.pread(self._tasks_file, 64, 0))

    def kill(self, keep: int | None = None) -> None:
        """SIGKILL every process of the tree but ``keep``, until none is left (a process forking
        as it dies cannot outrun it: the tree holds at most ``TASKS``)."""
        if keep is not None and self.tasks() <= 1:  # ``keep`` alone, one thread: nothing to look for
            return
        for _ in range(200):
            left = [pid for pid in self.members() if pid != keep and not _zombie(pid)]
            if not left:
                return
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.002)

    def close(self) -> None:
        """Kill what is left in the tree and remove its groups."""
        for name in ("_cpu_file", "_oom_file", "_tasks_file"):
            fd = getattr(self, name, None)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)
        if not self.dirs:
            return
        self.kill()
        for path in dict.fromkeys(self.dirs.values()):
            _remove(path)
        self.dirs = {}

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


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


def tree(memory_bytes: int | None) -> Tree | None:
    """A new tree for one bot process, or None where cgroups cannot be had (see ``available``)."""
    if available() is not None:
        return None
    try:
        return Tree(memory_bytes)
    except OSError:
        return None


def available() -> str | None:
    """Why bots' trees cannot be put in cgroups here, or None when they can."""
    try:
        _layout()
    except OSError as exc:
        return str(exc)
    return None


@lru_cache(maxsize=1)
def _layout() -> tuple[int, dict[str, str]]:
    """The cgroup version and, per controller ("memory", "pids", "cpu"), the folder under which
    this process's bot trees go: its own group in each hierarchy. OSError where there is none
    it may write; stale trees of runners no longer alive are removed on the way."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = [line.rstrip("\n").split(":", 2) for line in f]
    except OSError as exc:
        raise OSError(f"cannot read /proc/self/cgroup: {exc}") from None
    own = {}
    for _, controllers, path in lines:
        for controller in controllers.split(","):
            own[controller] = path
    v1 = {"memory": "memory", "pids": "pids", "cpu": "cpuacct"}
    if all(c in own for c in v1.values()) and all(os.path.isdir(os.path.join(ROOT, c)) for c in v1.values()):
        version, parents = 1, {k: os.path.join(ROOT, c) + own[c] for k, c in v1.items()}
    elif "" in own and os.path.exists(os.path.join(ROOT, "cgroup.controllers")):
        base = os.path.join(ROOT, own[""].lstrip("/"))
        with open(os.path.join(base, "cgroup.subtree_control")) as f:
            enabled = f.read().split()
        missing = [c for c in ("memory", "pids", "cpu") if c not in enabled]
        if missing:
            raise OSError(f"the cgroup {base} does not delegate the {', '.join(missing)} controllers to its children")
        version, parents = 2, {k: base for k in ("memory", "pids", "cpu")}
    else:
        raise OSError("no cgroup hierarchy with the memory, pids and cpu controllers is mounted")
    for parent in dict.fromkeys(parents.values()):
        if not os.access(parent, os.W_OK):
            raise OSError(f"cannot create cgroups under {parent} (run as root, or delegate it to this user)")
        _remove_stale(parent)
    return version, parents


def _remove_stale(parent: str) -> None:
    """Empty and remove the bot trees left under ``parent`` by runners that were killed."""
    for name in os.listdir(parent):
        if not name.startswith("arena-"):
            continue
        try:
            runner = int(name.split("-")[1])
            os.kill(runner, 0)
            continue  # its runner is alive
        except (ValueError, IndexError):
            continue
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        path = os.path.join(parent, name)
        for _ in range(50):
            try:
                with open(os.path.join(path, "cgroup.procs")) as f:
                    pids = [int(line) for line in f if line.strip()]
            except OSError:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not pids:
                break
            time.sleep(0.01)
        _remove(path)


def _zombie(pid: int) -> bool:
    """True for a process that has ended and waits to be reaped by its parent (or is gone)."""
    return _state(pid) in (b"Z", b"X", None)


def _remove(path: str) -> None:
    for _ in range(100):  # a killed process leaves its group a moment after it is reaped
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)


def _write(folder: str, name: str, value: int, optional: bool = False) -> None:
    try:
        with open(os.path.join(folder, name), "w") as f:
            f.write(str(value))
    except OSError:
        if not optional:
            raise
