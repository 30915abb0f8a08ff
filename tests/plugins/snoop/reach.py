"""Everywhere a bot can look for what it must not know, and what it found there.

``Search(text, raw, scope).run(handed, modules, enough)`` looks for matches of a text pattern
in every string, and of a byte pattern in every byte it can read, channel by channel, until
``enough(found)`` says it has found what it looks for:

- ``handed``: everything reachable from what the arena handed the bot (the game, the view,
  the budget), through attributes, containers, closures and whatever the collector says an
  object refers to;
- ``frames``: the locals of every frame above it, walked the same way;
- ``gc``: the strings and bytes every object the garbage collector tracks refers to;
- ``modules``: the game's modules, imported, and what their globals reach (module caches);
- ``self``: its own ``/proc/self`` (environ, cmdline, every writable mapping of its memory);
- ``parent`` and ``others``: the same of its parent and of every process it can list, and
  the regular files each has open;
- ``files``: its working folder, $HOME, $TMPDIR, and what the arena leaves in /tmp and
  /dev/shm (entries named ``arena*``).

Processes are looked at only within ``scope`` (a process id: it and those below it, the
test's own), or all that are listed where ``scope`` is not (a sandbox's own PID namespace),
so that a test looks at nothing of the machine's but its own.
"""

from __future__ import annotations

import gc
import importlib
import os
import re
import stat
import sys
import types

CHANNELS = ("handed", "frames", "gc", "modules", "self", "parent", "others", "files")
BIT = {name: 1 << i for i, name in enumerate(CHANNELS)}
MOST_OBJECTS = 50_000  # a search's walks' limit, so that it ends in good time
MOST_FILES = 400
FILE_BYTES = 8 << 20
CHUNK = 8 << 20
MOST_MEMORY = 1 << 30  # bytes of a process's memory read in a search


class Search:
    """One search: ``found`` maps each channel to the matches (their groups) found there."""

    def __init__(self, text: str, raw: bytes, scope: int = 0):
        self.text = re.compile(text)
        self.raw = re.compile(raw)
        self.scope = scope
        self.found: dict[str, set[tuple]] = {}
        self.enough = None
        self.seen = {id(self), id(self.found)}  # objects walked, over all of a search's walks
        self.walked = 0

    def run(self, handed=(), modules=(), enough=None, skip=()) -> dict[str, set[tuple]]:
        self.enough = enough
        looks = (
            ("handed", lambda: self.walk(handed, "handed")),
            ("frames", self.frames),
            ("gc", self.collector),
            ("modules", lambda: self.modules(modules)),
            ("self", lambda: self.process("self", "self")),
            ("parent", self.parent),
            ("others", self.others),
            ("files", self.files),
        )
        try:
            for channel, look in looks:
                if channel not in skip:
                    look()
                    self.check()
        except _Enough:
            pass
        return self.found

    def check(self) -> None:
        if self.enough is not None and self.enough(self.found):
            raise _Enough

    # what is matched

    def match_text(self, value: str, channel: str) -> None:
        for m in self.text.finditer(value):
            self.found.setdefault(channel, set()).add(m.groups())

    def match_raw(self, data, channel: str) -> None:
        for m in self.raw.finditer(data):
            self.found.setdefault(channel, set()).add(tuple(g.decode() for g in m.groups()))

    # objects

    def walk(self, roots, channel: str, depth: int = 8) -> None:
        """Everything reachable from ``roots``, breadth first, to ``depth`` steps (at most
        ``MOST_OBJECTS`` objects over a search's walks: what the collector sees, it sees anyway)."""
        seen = self.seen
        layer = list(roots)
        for _ in range(depth):
            following = []
            for obj in layer:
                if id(obj) in seen or self.walked > MOST_OBJECTS:
                    continue
                seen.add(id(obj))
                self.walked += 1
                if self.walked % 1000 == 0:
                    self.check()
                following += self.inside(obj, channel)
            layer = following
            if not layer:
                return

    def inside(self, obj, channel: str) -> list:
        """What ``obj`` holds, after matching it if it is text."""
        kind = type(obj)
        if kind is str:
            self.match_text(obj, channel)
            return []
        if kind in (bytes, bytearray):
            self.match_raw(obj, channel)
            return []
        if kind in (int, float, bool, complex, type(None)) or isinstance(obj, (types.ModuleType, type)):
            return []  # modules are a channel of their own; classes are reached through them
        if isinstance(obj, types.FunctionType):  # not its globals: those are the modules'
            cells = [c.cell_contents for c in (obj.__closure__ or ()) if _filled(c)]
            return cells + list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
        if isinstance(obj, types.FrameType):
            return list(obj.f_locals.values())
        held = []
        if isinstance(obj, dict):
            held += list(obj.keys()) + list(obj.values())
        try:
            held += [r for r in gc.get_referents(obj) if not isinstance(r, (types.ModuleType, type))]
        except Exception:
            pass
        for name in getattr(kind, "__slots__", ()):
            try:
                held.append(getattr(obj, name))
            except Exception:
                pass
        if isinstance(obj, types.MethodType):
            held.append(obj.__self__)
        return held

    def frames(self) -> None:
        frame = sys._getframe(1)
        while frame is not None:  # the nearest first
            self.walk(list(frame.f_locals.values()), "frames", depth=4)
            self.check()
            frame = frame.f_back

    def collector(self) -> None:
        for i, obj in enumerate(gc.get_objects()):
            if i % 5000 == 0:
                self.check()
            if obj is self.found:
                continue
            try:
                held = gc.get_referents(obj)
            except Exception:
                continue
            if isinstance(obj, dict):
                held = list(obj.keys()) + list(obj.values())
            for value in held:
                kind = type(value)
                if kind is str:
                    self.match_text(value, "gc")
                elif kind in (bytes, bytearray):
                    self.match_raw(value, "gc")

    def modules(self, names) -> None:
        roots = []
        for name in names:
            try:
                module = importlib.import_module(name)
            except Exception:
                continue
            for value in vars(module).values():
                if isinstance(value, type) and value.__module__ == name:
                    roots += list(vars(value).values())  # class-level caches
                elif not isinstance(value, types.ModuleType):
                    roots.append(value)
        self.walk(roots, "modules", depth=6)

    # processes

    def parent(self) -> None:
        if self.in_scope(os.getppid()):
            self.process(str(os.getppid()), "parent")

    def others(self) -> None:
        mine = {str(os.getpid()), str(os.getppid())}
        for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
            if pid not in mine and self.in_scope(int(pid)):
                self.process(pid, "others")

    def in_scope(self, pid: int) -> bool:
        """Whether ``pid`` is the test's: ``scope`` or a process below it."""
        if not self.scope or not os.path.exists(f"/proc/{self.scope}"):
            return True  # nothing to keep to: a sandbox's own processes
        for _ in range(64):
            if pid == self.scope:
                return True
            pid = _parent(pid)
            if pid <= 0:
                return False
        return False

    def process(self, pid: str, channel: str) -> None:
        """A process's environ, cmdline, writable memory and open regular files."""
        base = f"/proc/{pid}"
        for name in ("environ", "cmdline"):
            data = self._read(f"{base}/{name}")
            if data is not None:
                self.match_raw(data, channel)
        self.memory(base, channel)
        try:
            fds = os.listdir(f"{base}/fd")
        except OSError:
            return
        for fd in fds:
            data = self._read(f"{base}/fd/{fd}", FILE_BYTES)
            if data is not None:
                self.match_raw(data, channel)

    def memory(self, base: str, channel: str) -> None:
        try:
            with open(f"{base}/maps") as f:
                maps = f.read().splitlines()
            fd = os.open(f"{base}/mem", os.O_RDONLY)
        except OSError:
            return
        left = MOST_MEMORY
        try:
            for line in maps:
                fields = line.split()
                special = len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]")
                if len(fields) < 2 or not fields[1].startswith("rw") or special:
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                while start < end and left > 0:
                    size = min(CHUNK, end - start)
                    left -= size
                    try:
                        data = os.pread(fd, size + 256, start) if start + size < end else os.pread(fd, size, start)
                    except OSError:
                        break
                    self.match_raw(data, channel)
                    self.check()
                    start += size
        finally:
            os.close(fd)

    # files

    def files(self) -> None:
        places = [os.getcwd(), os.environ.get("HOME", ""), os.environ.get("TMPDIR", "")]
        for shared in ("/tmp", "/dev/shm"):
            try:
                places += [os.path.join(shared, n) for n in os.listdir(shared) if n.startswith("arena")]
            except OSError:
                pass
        count = 0
        for place in dict.fromkeys(p for p in places if p):
            if os.path.isfile(place):
                count += 1
                data = self._read(place, FILE_BYTES)
                if data is not None:
                    self.match_raw(data, "files")
                continue
            for folder, dirs, names in os.walk(place):
                if folder.count(os.sep) - place.count(os.sep) >= 2:
                    dirs[:] = []
                for name in names:
                    count += 1
                    if count > MOST_FILES:
                        return
                    data = self._read(os.path.join(folder, name), FILE_BYTES)
                    if data is not None:
                        self.match_raw(data, "files")

    def _read(self, path: str, most: int = 1 << 20) -> bytes | None:
        """The start of a regular file, or None: never a socket, pipe or device, where reading
        would block or take what is someone else's."""
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None
            with open(path, "rb") as f:
                return f.read(most)
        except OSError:
            return None


def records(ply: int, seat: int) -> set[str]:
    """The move texts of the ``arena.MoveRecord`` of ``ply`` by ``seat`` in every list of
    (move, record) pairs this process holds: the choices of a joint move as the referee
    collects them before it applies them, where this is the referee's process (records of
    earlier games, of the same ply, are elsewhere)."""
    found = set()
    for obj in gc.get_objects():
        pairs = type(obj) is list and obj and all(type(i) is tuple and len(i) == 2 for i in obj)
        if pairs and all(type(i[1]).__name__ == "MoveRecord" for i in obj):
            found.update(record.move for _, record in obj if record[:2] == (ply, seat))
    return found


class _Enough(Exception):
    """Raised inside a search once it has found enough."""


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def _filled(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False
