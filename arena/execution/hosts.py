"""A bot's host process (``python -m arena.execution.host``), started under its limits in a tree of
its own, and the pool that keeps one per bot spec from game to game (``RemoteBot`` talks to it)."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

from arena.errors import BotFault
from arena.execution import cgroup, channel
from arena.execution.confine import in_scratch, scratch_folder, undumpable
from arena.execution import host as host_module
from arena.execution.sandbox import bubblewrap as sandbox
from arena.execution.specs import bot_class
from arena.limits import Limits
from arena.records import Termination

#: Seconds a host may take to start (Python, imports, plugins), on a busy machine.
HOST_START_TIMEOUT = 60.0


class HostProcess:
    """One running host process and the socket to it; under ``limits.sandbox``, in a sandbox
    that shows it only its plugins' files (see arena.execution.sandbox.bubblewrap): in a sandboxed run,
    ``plugins`` are the bot's own plugin and the game's, and no entry point is loaded."""

    def __init__(self, spec: str, plugins: tuple[str, ...], limits: Limits, scratch: bool = False,
                 confined: bool = False):
        self.spec = spec
        self.sandboxed = limits.sandbox
        # an empty folder of its own to work in, removed with it (a sandbox has one anyway)
        self.scratch = scratch_folder() if scratch and not self.sandboxed else None
        confined = confined or scratch  # a game of hidden information is confined too
        if confined:  # the bot may not read this process's memory, nor the other bots'
            undumpable()
        argv = [sys.executable, "-m", host_module.__name__]
        ours, theirs = socket.socketpair()
        argv += [str(theirs.fileno()), "0" if self.sandboxed else str(os.getpid())]
        options = dict(pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        self.output = output_file()
        self.memory_limit = limits.memory_limit
        self.cpu_mark: float | None = None  # its tree's CPU seconds when its last game ended
        self.tree = cgroup.tree(limits.memory_bytes)
        # joined before exec: bwrap's children, the host among them, are born in it; without a
        # cgroup, the process keeps its orphans below it instead
        options["preexec_fn"] = self.tree.joiner() if self.tree is not None else cgroup.subreaper
        path = sys.path
        try:
            if not self.sandboxed:
                if self.scratch is not None:
                    options.update(in_scratch(self.scratch))
                self.proc = subprocess.Popen(argv, stdout=self.output, stderr=self.output, **options)
            else:
                own = tuple(f for name in plugins for f in sandbox.source_files(name))  # found, not imported
                own += bot_files(spec)
                root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(host_module.__file__))))
                box = sandbox.Sandbox(own, (("PYTHONPATH", root),))  # where arena/ is, for python -m
                path = sandbox.visible(sys.path, own)
                self.proc = sandbox.popen(argv, box, stdout=self.output, stderr=self.output, **options)
        except BaseException:
            if self.tree is not None:
                self.tree.close()
            self._remove_scratch()
            raise
        finally:
            theirs.close()
        if self.tree is None:
            self.tree = cgroup.Descendants(self.proc.pid)
        self.sock = ours
        self.reader = channel.AnswerReader(ours.fileno())
        try:
            self.send(
                {
                    "sys_path": path,
                    "plugins": list(plugins),
                    "entry_points": not limits.sandbox,  # sandboxed: its own plugins only
                    "memory_bytes": limits.memory_bytes,
                    "output_bytes": limits.output_bytes,
                    "confined": confined,  # no capabilities, not dumpable
                }
            )
            self.wait(HOST_START_TIMEOUT, "start")
        except BaseException:
            self.close()
            raise

    def send(self, request) -> None:
        try:
            self.sock.sendall(channel.request(request))
        except OSError:
            raise self._died() from None

    def call(self, request: tuple, timeout: float, what: str, guard=None) -> dict:
        """Send a request and return the answer, or raise BotFault (killing the host)."""
        self.send(request)
        return self.wait(timeout, what, guard)

    def wait(self, timeout: float, what: str, guard=None) -> dict:
        """The host's next answer, checked as plain data (``arena.execution.channel``); a late,
        malformed or missing one, or a ``guard`` that raises while waiting, kills the host and
        raises BotFault."""
        try:
            answer = self.reader.read(timeout, what, guard)
        except BotFault:
            self.kill()
            raise
        if answer is None:
            raise self._died()
        return answer

    def new_game(self) -> None:
        """Forget the last game's output, so the output limit is per game."""
        os.ftruncate(self.output, 0)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the host and everything it started (its whole tree)."""
        self.tree.kill()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.sock.close()

    def close(self) -> None:
        self.kill()
        if self.output >= 0:
            os.close(self.output)
            self.output = -1
        self.tree.close()
        self._remove_scratch()

    def _remove_scratch(self) -> None:
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    def check_memory(self) -> None:
        """Raise BotFault(MEMORY), killing the host, if its tree ran out of memory (a child of
        the bot's may have been killed for it while the host answered on)."""
        if self.tree.out_of_memory():
            self.kill()
            raise self._out_of_memory()

    def _out_of_memory(self) -> BotFault:
        return BotFault(
            Termination.MEMORY, "ran out of memory", f"its processes together went over its limit of {self.memory_limit} MiB"
        )

    def _died(self) -> BotFault:
        """The fault of a host whose socket closed: the tree's memory ran out, or how it ended."""
        why = self._death()
        if self.tree.over:
            self.kill()
            return BotFault(Termination.CRASH, "crashed", cgroup.OVER)
        if self.tree.out_of_memory():
            self.kill()
            return self._out_of_memory()
        self.kill()  # what it started
        return BotFault(Termination.CRASH, "crashed", why)

    def _death(self) -> str:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            why = f"its process was killed by {name}"
        else:
            why = f"its process exited with code {code}"
        tail = output_tail(self.output)
        return why + (f" (last output: {tail})" if tail else "")


def bot_files(spec: str) -> tuple[str, ...]:
    """The files a built-in bot's parameters name for it to read (``Bot.reads``), absolute; none
    for another plugin's bot, whose code never runs out here."""
    try:
        cls, params = bot_class(spec, (), False)
        return tuple(os.path.abspath(path) for path in cls.reads(params) if os.path.exists(path))
    except Exception:
        return ()


def output_tail(fd: int, size: int = 400) -> str:
    """The last lines (three at most, ``size`` characters at most) a process wrote to file ``fd``."""
    end = os.fstat(fd).st_size
    data = os.pread(fd, size, max(0, end - size)).decode("utf-8", "replace")
    lines = [line.strip() for line in data.strip().splitlines() if line.strip()]
    return " | ".join(lines[-3:])[-size:]


def output_file() -> int:
    """An anonymous append-only file for a host's stdout and stderr."""
    fd, path = tempfile.mkstemp(prefix="arena-bot-", suffix=".out")
    os.close(fd)
    fd = os.open(path, os.O_RDWR | os.O_APPEND)
    os.unlink(path)
    return fd


class HostPool:
    """Idle host processes of this process, by bot spec."""

    def __init__(self):
        self.idle: dict[tuple, list[HostProcess]] = {}
        self.busy: set[HostProcess] = set()

    def acquire(self, spec: str, plugins: tuple[str, ...], limits: Limits, fresh: bool = False,
                confined: bool = False) -> HostProcess:
        """A host for the next game of ``spec``: an idle one, or a new one; ``fresh``: always a new
        one, with an empty scratch folder, kept for this game only; ``confined``: one without
        capabilities, not dumpable (``arena.execution.confine``)."""
        key = (spec, plugins, limits.memory_limit, limits.output_limit, limits.sandbox, confined or fresh)
        hosts = [] if fresh else self.idle.setdefault(key, [])
        while hosts:
            host = hosts.pop()
            if host.alive():
                break
            host.close()
        else:
            host = HostProcess(spec, plugins, limits, scratch=fresh, confined=confined)
        host.key = key
        self.busy.add(host)
        return host

    def release(self, host: HostProcess) -> None:
        """Keep a healthy host for the next game; a sandboxed one lives for one game only."""
        self.busy.discard(host)
        if host.alive() and not host.sandboxed and host.scratch is None:
            host.tree.kill(keep=host.proc.pid)  # what the bot started in the game ends with it
            host.cpu_mark = host.tree.cpu_seconds()  # what it uses while idle counts for its next game
            self.idle.setdefault(host.key, []).append(host)
        else:
            host.close()

    def close(self) -> None:
        for host in [h for hosts in self.idle.values() for h in hosts] + list(self.busy):
            host.close()
        self.idle.clear()
        self.busy.clear()


_POOL: HostPool | None = None


def host_pool() -> HostPool:
    """This process's pool of bot hosts, made on first use and closed at exit."""
    global _POOL
    if _POOL is None:
        _POOL = HostPool()
        atexit.register(_POOL.close)
    return _POOL
