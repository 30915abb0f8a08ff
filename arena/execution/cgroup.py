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

import itertools
import os
import signal
import time
from functools import lru_cache

from arena.execution.descendants import (  # noqa: F401 (the fallback, imported from here too)
    _WATCH_LOCK, _WATCHED, OVER, TASKS, Descendants, _zombie, subreaper,
)

ROOT = "/sys/fs/cgroup"
_names = itertools.count()


def _key_value(data: bytes, key: bytes) -> int | None:
    """The number on the ``key value`` line of a cgroup file (cpu.stat, memory.events), or None.
    Read around every move: found in place, no split into lines."""
    data = b"\n" + data
    at = data.find(b"\n" + key + b" ")
    if at < 0:
        return None
    start = at + len(key) + 2
    end = data.find(b"\n", start)
    return int(data[start : end if end >= 0 else None])


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
        self._no_kill = b""  # the OOM file as last read with no kill counted: read unchanged, it is not parsed again
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
        usec = _key_value(data, b"usage_usec")
        return 0.0 if usec is None else usec / 1e6

    def out_of_memory(self) -> bool:
        """True once the kernel killed a process of the tree for the tree's memory."""
        if self._oom_file is None:
            return False
        data = os.pread(self._oom_file, 4096, 0)
        if data == self._no_kill:
            return False
        if (_key_value(data, b"oom_kill") or 0) > 0:
            return True
        self._no_kill = data
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
