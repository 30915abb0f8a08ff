"""Bots in processes of their own, supervised: a hung, greedy or crashing bot loses only its game.

``RemoteBot`` looks like a bot to the referee but forwards every call to a host process
(``arena.execution.host``) and waits for the answer no longer than the call's deadline; past it, the
host is killed. Hosts are kept per bot spec and reused from game to game, so a bot's code
never shares a process with another bot's.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import sys
from multiprocessing.connection import Connection

from arena.budget import Counter
from arena.errors import BotFault
from arena.execution import host as host_module
from arena.execution import sandbox
from arena.game import Game
from arena.limits import DEFAULT_LIMITS, Limits
from arena.records import Termination

#: Seconds a host may take to start (Python, imports, plugins), on a busy machine.
HOST_START_TIMEOUT = 60.0


class HostProcess:
    """One running host process and the socket to it; under ``limits.sandbox``, in a sandbox
    that shows it only its plugins' files (see arena.execution.sandbox): in a sandboxed run,
    ``plugins`` are the bot's own plugin and the game's, and no entry point is loaded."""

    def __init__(self, spec: str, plugins: tuple[str, ...], limits: Limits):
        self.spec = spec
        self.sandboxed = limits.sandbox
        self.scratch = sandbox.Scratch() if limits.sandbox else None
        argv = [sys.executable, "-m", host_module.__name__]
        path = sys.path
        if self.scratch is not None:
            own = tuple(f for name in plugins for f in sandbox.source_files(name))  # found, not imported
            root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(host_module.__file__))))
            box = sandbox.Sandbox(own, (("PYTHONPATH", root),))  # where arena/ is, for python -m
            argv = sandbox.wrap(argv, box, self.scratch.path)
            path = [p or os.getcwd() for p in sys.path]  # "" would mean the sandbox's working folder
        ours, theirs = socket.socketpair()
        self.output = output_file()
        try:
            self.proc = subprocess.Popen(
                [*argv, str(theirs.fileno()), "0" if self.scratch is not None else str(os.getpid())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=self.output,
                stderr=self.output,
            )
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        try:
            self.conn.send(
                {
                    "sys_path": path,
                    "plugins": list(plugins),
                    "entry_points": not limits.sandbox,  # sandboxed: its own plugins only
                    "memory_bytes": limits.memory_bytes,
                    "output_bytes": limits.output_bytes,
                }
            )
            self.wait(HOST_START_TIMEOUT, "start")
        except BaseException:
            self.close()
            raise

    def call(self, request: tuple, timeout: float, what: str):
        """Send a request and return the answer, or raise BotFault (killing the host)."""
        try:
            self.conn.send(request)
        except (OSError, ValueError):
            raise BotFault(Termination.CRASH, "crashed", self._death()) from None
        return self.wait(timeout, what)

    def wait(self, timeout: float, what: str):
        if not self.conn.poll(timeout):
            self.kill()
            raise BotFault(
                Termination.TIMEOUT, "timed out", f"took longer than {timeout:g}s to {what}; its process was killed"
            )
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            raise BotFault(Termination.CRASH, "crashed", self._death()) from None

    def new_game(self) -> None:
        """Forget the last game's output, so the output limit is per game."""
        os.ftruncate(self.output, 0)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.conn.close()

    def close(self) -> None:
        self.kill()
        if self.output >= 0:
            os.close(self.output)
            self.output = -1
        if self.scratch is not None:
            self.scratch.close()

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


def output_tail(fd: int, size: int = 400) -> str:
    """The last lines (three at most, ``size`` characters at most) a process wrote to file ``fd``."""
    end = os.fstat(fd).st_size
    data = os.pread(fd, size, max(0, end - size)).decode("utf-8", "replace")
    lines = [line.strip() for line in data.strip().splitlines() if line.strip()]
    return " | ".join(lines[-3:])[-size:]


def output_file() -> int:
    """An anonymous append-only file for a host's stdout and stderr."""
    import tempfile

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

    def acquire(self, spec: str, plugins: tuple[str, ...], limits: Limits) -> HostProcess:
        key = (spec, plugins, limits.memory_limit, limits.output_limit, limits.sandbox)
        hosts = self.idle.setdefault(key, [])
        while hosts:
            host = hosts.pop()
            if host.alive():
                break
            host.close()
        else:
            host = HostProcess(spec, plugins, limits)
        host.key = key
        self.busy.add(host)
        return host

    def release(self, host: HostProcess) -> None:
        """Keep a healthy host for the next game; a sandboxed one lives for one game only."""
        self.busy.discard(host)
        if host.alive() and not host.sandboxed:
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


class RemoteBot:
    """A bot that runs in a host process; the referee uses it like any bot."""

    interactive = False

    def __init__(self, spec: str, plugins: tuple[str, ...] = (), limits: Limits = DEFAULT_LIMITS, pool: HostPool | None = None):
        self.spec = spec
        self.plugins = plugins
        self.limits = limits
        self.pool = pool or host_pool()
        self.host: HostProcess | None = None
        self._budget = None  # the budget the host holds for this game

    def suitable(self, game: Game) -> str | None:
        return None  # checked by the tournament at set-up, with a local instance

    def new_game(self, game: Game, player: int, seed: int) -> None:
        self.release()
        self.host = self.pool.acquire(self.spec, self.plugins, self.limits)
        self.host.new_game()
        self._budget = None
        request = ("start", self.spec, game.spec, player, seed)  # one round trip: build the bot, start the game
        self._check(self.host.call(request, self.limits.watchdog, "start a game"))

    def choose(self, game: Game, state, budget: Counter):
        limits = budget.budget
        timeout = self.limits.watchdog if limits.time is None else limits.time + self.limits.time_margin
        sent = None if limits is self._budget else limits  # the host keeps the budget of the last move
        self._budget = limits
        answer = self.host.call(("choose", state, sent), timeout, "move")
        budget.nodes = answer[2] if len(answer) > 2 else 0
        if answer[0] == "move":
            return answer[1]
        self._check(answer)

    def _check(self, answer) -> None:
        kind = answer[0]
        if kind == "ok":
            return
        if kind == "memory":
            raise BotFault(Termination.MEMORY, "ran out of memory", f"over its limit of {self.limits.memory_limit} MiB")
        if kind == "output":
            raise BotFault(Termination.OUTPUT, "wrote too much", answer[1])
        raise BotFault(Termination.CRASH, "crashed", answer[1])

    def release(self) -> None:
        """Hand the host back for the next game (or drop it if it died)."""
        if self.host is not None:
            self.pool.release(self.host)
            self.host = None

