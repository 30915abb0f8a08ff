"""An engine's process: launched in a session of its own, read line by line against deadlines.

The engine's stdout is read through ``poll`` into a queue of lines, the lines of each read
split and counted at once (no thread per line); its stderr goes to an anonymous file whose
last lines go into fault messages. The process runs under hard limits (soft = hard, so it
cannot lift them): memory (RLIMIT_AS) and file size (RLIMIT_FSIZE, the output limit), so its
stderr file stays within the output limit even while nobody reads it. What it writes in a
game under the output limit is its stderr and the lines on stdout that are no protocol
message; protocol lines (``info``, ``bestmove``, ``option``, ...) are the engine doing its
job, and count only against a per-move allowance far above any real engine's chatter
(``CHATTER_BYTES``). Everything that goes wrong raises ``arena.errors.BotFault``, and the
whole process group (the engine and any children it started) is killed first.
"""

from __future__ import annotations

import math
import os
import select
import shutil
import signal
import subprocess
import time
import weakref

from arena.errors import BotFault
from arena.execution import cgroup
from arena.execution.sandbox import bubblewrap as sandboxing
from arena.execution.confine import dropper, in_scratch, scratch_folder, undumpable
from arena.execution.hosts import output_file
from arena.records import Termination
from bots.engine.launch import hard_limits, kill_group

#: Seconds between looks at the size of stderr while waiting for a line.
_STDERR_POLL = 0.05
#: Seconds an engine has to exit after ``quit`` before it is killed.
QUIT_WAIT = 1.0
#: The first words of the protocol lines an engine may send on stdout (the arena protocol's and UCI's).
PROTOCOL_HEADS = frozenset(
    ("id", "option", "arenaok", "uciok", "readyok", "error", "info", "bestmove", "copyprotection", "registration")
)
#: Most bytes of protocol lines an engine may send in one move (Stockfish sends 9-16 KB in a
#: 5-second move, about 8 times that with MultiPV=8).
CHATTER_BYTES = 64 << 20
#: Words on stderr that mean the engine ran out of memory (Python, C++, C).
_MEMORY_WORDS = ("MemoryError", "bad_alloc", "out of memory", "Cannot allocate memory", "Failed to allocate")


_INFO = (b"info ", b"\ninfo ")
_BESTMOVE = (b"bestmove ", b"\nbestmove ")


def _heads(data, head: tuple[bytes, bytes], start: int = 0, end: int | None = None) -> int:
    """How many lines of ``data[start:end]`` (``start`` at a line's start) begin with ``head[0]``
    (``head[1]`` is it after a newline): counted in C, in place."""
    return data.count(head[1], start, end) + data.startswith(head[0], start, end)


class EngineProcess:
    """One running engine: ``send`` lines, ``read_line`` against a deadline, ``quit`` or ``kill``.

    With ``sandbox``, the engine runs under bubblewrap, seeing the folders its command line
    names read-only and a scratch folder of its own (see arena.execution.sandbox.bubblewrap).
    With ``scratch`` (a game of hidden information), it starts in an empty folder of its own,
    also its HOME and TMPDIR, removed when it is closed; with ``scratch`` or ``confined`` (a
    game of simultaneous moves) it starts without capabilities and the referee is not
    dumpable (``arena.execution.confine``).
    """

    def __init__(
        self,
        argv: list[str],
        *,
        memory_bytes: int | None = None,
        output_bytes: int = 1 << 20,
        write_timeout: float = 60.0,
        sandbox: bool = False,
        scratch: bool = False,
        confined: bool = False,
    ):
        self.argv = list(argv)
        self.write_timeout = write_timeout
        self.memory_bytes = memory_bytes
        self.output_bytes = output_bytes
        self.log = output_file()
        self._buffer = bytearray()  # what was read and not yet handed out: whole lines, then the start of one
        self._plain = 0  # how much of the buffer is whole plain ``info`` lines (``read_lines`` waits on)
        self._unread: list[str] = []  # lines handed out and given back (``unread``), handed out first
        self._next_look = 0.0  # when to look at the size of stderr next (perf_counter)
        self._read = 0  # stdout bytes this game that are no protocol line
        self._chatter = 0  # stdout bytes this move, less those found to be no protocol line
        self._logged = 0  # bytes we copied into the log ourselves (``info string``), not the engine's stderr
        self._last_logged = (-1, "")  # the log's size after the last line copied there, and the line
        self.proc = None
        # the engine, its children and theirs: one memory allowance and process count, killed together
        self.tree = cgroup.tree(memory_bytes)
        confined = confined or scratch  # a game of hidden information is confined too
        options = dict(
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            start_new_session=True,  # its own process group: killpg reaches its children
            # under the sandbox bubblewrap drops them itself, once it has made its namespaces
            preexec_fn=hard_limits(memory_bytes, output_bytes, self.tree,
                                    dropper() if confined and not sandbox else None),
            bufsize=0,
        )
        # a game of hidden information: an empty folder of its own to work in, removed with it (a
        # sandbox has one anyway), and a referee whose memory it cannot read through /proc
        self.scratch = scratch_folder() if scratch and not sandbox else None
        if confined:
            undumpable()
        try:
            if sandbox:
                launch, box = sandboxing.engine_argv(self.argv)
                self.proc = sandboxing.popen(launch, box, **options)
            elif self.scratch is not None:
                launch = sandboxing.engine_argv(self.argv)[0]  # its paths made absolute: it starts in the scratch folder
                self.proc = subprocess.Popen(launch, **in_scratch(self.scratch), **options)
            else:
                self.proc = subprocess.Popen(self.argv, **options)
        except FileNotFoundError:
            self.close()
            raise BotFault(Termination.CRASH, "failed to start", f"no such file {self.argv[0]!r}") from None
        except PermissionError:
            self.close()
            raise BotFault(Termination.CRASH, "failed to start", f"{self.argv[0]!r} is not executable") from None
        except (OSError, subprocess.SubprocessError) as exc:
            self.close()
            raise BotFault(Termination.CRASH, "failed to start", f"{self.argv[0]!r}: {exc}") from None
        if self.tree is None:  # no cgroup: the tree is what /proc shows below the engine (its subreaper)
            self.tree = cgroup.Descendants(self.proc.pid)
        # an engine whose bot is dropped without close(), or still running at exit, dies with it
        self._finalizer = weakref.finalize(self, kill_group, self.proc, self.tree)
        self.stdout = self.proc.stdout.fileno()
        os.set_blocking(self.stdout, False)
        self.stdin = self.proc.stdin.fileno()
        os.set_blocking(self.stdin, False)  # a send never blocks past write_timeout
        self.poller = select.poll()
        self.poller.register(self.stdout, select.POLLIN)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.log >= 0

    def new_game(self) -> None:
        """Start counting the output limit afresh."""
        os.ftruncate(self.log, 0)
        self._read = self._logged = self._chatter = 0
        self._last_logged = (-1, "")

    def new_move(self) -> None:
        """Start counting the protocol lines' allowance afresh."""
        self._chatter = 0

    def send(self, *lines: str) -> None:
        """Write lines to the engine, all in one write (so it wakes once for a position and its
        ``go``); a closed pipe means it died, a full one that it stopped reading (given
        ``write_timeout`` seconds to drain it)."""
        data = memoryview(("\n".join(lines) + "\n").encode())
        deadline = None
        while data:
            try:
                data = data[os.write(self.stdin, data) :]
                continue
            except BlockingIOError:
                pass
            except OSError:  # a closed pipe
                raise self.death() from None
            deadline = deadline or time.perf_counter() + self.write_timeout
            left = deadline - time.perf_counter()
            if left <= 0 or not select.select([], [self.stdin], [], left)[1]:
                raise self.fault(
                    Termination.TIMEOUT, "timed out", f"stopped reading its input for {self.write_timeout:g}s; killed"
                )

    def log_line(self, text: str) -> None:
        """Keep a line the engine sent on stdout for the log (``info string``), while the log
        is within the output limit (the engine's own stderr in it is bounded by its file size limit).
        A line is not kept again right after itself (Stockfish repeats its net's name at every ``go``)."""
        size = os.fstat(self.log).st_size
        if size == self._last_logged[0] and text == self._last_logged[1]:  # nothing written since
            return
        data = text.encode("utf-8", "replace") + b"\n"
        if size + len(data) <= self.output_bytes:
            os.write(self.log, data)
            self._logged += len(data)
            self._last_logged = (size + len(data), text)

    def _keep_notes(self) -> None:
        """Copy the ``info string`` lines read and not handed out into the log (a fault's last words)."""
        end = self._buffer.rfind(b"\n")
        if end > 0 and b"info string" in self._buffer:
            for raw in self._buffer[:end].split(b"\n"):
                if raw.startswith(b"info string"):
                    self.log_line(raw.decode("utf-8", "replace").rstrip("\r"))

    def read_line(self, deadline: float) -> str | None:
        """The next line from stdout, or None once ``time.perf_counter()`` passes ``deadline``.

        Raises BotFault when the engine closes stdout (it died) or writes more than its
        output limit.
        """
        if self._unread:
            return self._unread.pop(0)
        while True:
            end = self._buffer.find(b"\n") + 1
            if end:
                return self._hand_out(end)[0]
            if not self._wait(deadline):
                return None

    def read_lines(self, deadline: float) -> list[str] | None:
        """The lines read so far, once one of them is not an ``info`` line (a ``bestmove``, anything
        else): a search's progress lines (and its ``info string`` notes) wake the caller once, with
        its answer. None once ``deadline`` has passed (the lines stay to be read; ``info string``
        notes among them reach the log if the engine is faulted)."""
        if self._unread:
            lines, self._unread = self._unread, []
            return lines
        buffer = self._buffer
        while True:
            end = buffer.rfind(b"\n") + 1
            start = self._plain
            if end > start:  # lines not looked at: info lines all? (counted in C, in place, not split)
                if _heads(buffer, _INFO, start, end) != buffer.count(b"\n", start, end):
                    return self._hand_out(end)
                self._plain = end
            if not self._wait(deadline):
                return None

    def unread(self, lines: list[str]) -> None:
        """Give back lines handed out and not used (those after a ``bestmove``): they are read next."""
        self._unread[:0] = lines

    def _hand_out(self, end: int) -> list[str]:
        """The buffer's lines up to ``end`` (after a newline), as text; lines that are no
        protocol line are counted against the output limit."""
        block = self._buffer[: end - 1]
        del self._buffer[:end]
        self._plain = max(0, self._plain - end)
        # a newline byte is never part of a longer character: decoding the block splits as its lines do
        texts = block.decode("utf-8", "replace").split("\n")
        if b"\r" in block:
            texts = [text.rstrip("\r") for text in texts]
        if _heads(block, _INFO) + _heads(block, _BESTMOVE) != len(texts):  # not all info and bestmove: each line's head
            other, raw = 0, block.split(b"\n")
            for i, text in enumerate(texts):
                if text.partition(" ")[0] not in PROTOCOL_HEADS:  # counted in bytes, as the engine wrote it
                    other += len(raw[i]) + 1
            if other:
                self._chatter -= other
                self._read += other
                self._check_output()
        return texts

    def _wait(self, deadline: float) -> bool:
        """Read what the engine writes next, or wait ``_STDERR_POLL`` seconds at most; False once
        ``deadline`` has passed. Every few hundredths of a second, a look at the output limit.
        What is read counts against the move's allowance for protocol lines (``CHATTER_BYTES``)."""
        now = time.perf_counter()
        if now >= self._next_look:  # stderr grows unseen: its size, now and then
            self._check_output()
            self._next_look = now + _STDERR_POLL
        left = deadline - now
        if left <= 0:
            return False
        if not self.poller.poll(math.ceil(min(left, _STDERR_POLL) * 1000)):
            return True
        try:
            data = os.read(self.stdout, 65536)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        if not data:
            raise self.death()
        buffer = self._buffer
        buffer += data
        self._chatter += len(data)
        if self._chatter > CHATTER_BYTES:
            raise self.fault(
                Termination.OUTPUT, "wrote too much", f"more than {CHATTER_BYTES:,} bytes of protocol lines in one move"
            )
        if b"\n" not in data:
            partial = len(buffer) - buffer.rfind(b"\n") - 1
            if partial > self.output_bytes:  # a line with no end in sight: it alone is over the limit
                self._read += partial
                self._check_output()
        return True

    def _written(self) -> int:
        """What counts against the output limit this game: stderr, and stdout lines that are no protocol line."""
        return self._read + os.fstat(self.log).st_size - self._logged

    def _check_output(self) -> None:
        written = self._written()
        if written > self.output_bytes:
            self.kill()
            raise BotFault(
                Termination.OUTPUT,
                "wrote too much",
                f"{written:,} bytes on stdout and stderr in one game; the limit is {self.output_bytes:,}"
                + self._tail_note(),
            )

    def death(self) -> BotFault:
        """The fault of an engine that closed its stdout or stdin: how it ended, and its last words."""
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:  # it closed stdout but lives on
            self.kill()
            return BotFault(Termination.CRASH, "crashed", "closed its stdout" + self._tail_note())
        self.kill()  # its children
        if self.tree is not None and self.tree.out_of_memory():
            return self._out_of_memory()
        if self.tree.over:
            return BotFault(Termination.CRASH, "crashed", cgroup.OVER + self._tail_note())
        if code == -signal.SIGXFSZ or os.fstat(self.log).st_size >= self.output_bytes:  # its stderr met the file size limit
            return BotFault(
                Termination.OUTPUT, "wrote too much",
                f"{self._written():,} bytes on stdout and stderr in one game; the limit is {self.output_bytes:,}" + self._tail_note(),
            )
        tail = self.tail()
        if self.memory_bytes is not None and any(word in tail for word in _MEMORY_WORDS):
            limit = self.memory_bytes // (1024 * 1024)
            return BotFault(Termination.MEMORY, "ran out of memory", f"over its limit of {limit} MiB ({tail})")
        if code < 0:
            try:
                why = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                why = f"was killed by signal {-code}"
        else:
            why = f"exited with code {code}"
        return BotFault(Termination.CRASH, "crashed", why + self._tail_note())

    def check_memory(self) -> None:
        """Raise BotFault(MEMORY), killing the engine, if its tree ran out of memory (a child may
        have been killed for it while the engine plays on)."""
        if self.tree is not None and self.tree.out_of_memory():
            self.kill()
            raise self._out_of_memory()

    def _out_of_memory(self) -> BotFault:
        limit = (self.memory_bytes or 0) // (1024 * 1024)
        return BotFault(Termination.MEMORY, "ran out of memory", f"its processes together went over its limit of {limit} MiB")

    def fault(self, termination: Termination, verb: str, detail: str) -> BotFault:
        """Kill the engine and return the fault to raise, with its last stderr lines."""
        self.kill()
        return BotFault(termination, verb, detail + self._tail_note())

    def tail(self, size: int = 400) -> str:
        """The engine's last stderr lines (and ``info string`` lines), joined by ' | '."""
        if self.log < 0:
            return ""
        end = os.fstat(self.log).st_size
        data = os.pread(self.log, size, max(0, end - size)).decode("utf-8", "replace")
        lines = [line.strip() for line in data.splitlines() if line.strip()]
        return " | ".join(lines[-3:])[-size:]

    def _tail_note(self) -> str:
        self._keep_notes()
        tail = self.tail()
        return f" (last stderr: {tail})" if tail else ""

    def kill(self) -> None:
        """SIGKILL the engine's whole process group and reap the engine."""
        if self.proc is None or not self._finalizer.alive:
            return
        self._finalizer()  # once: afterwards the group's id may belong to another process
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass

    def quit(self) -> None:
        """Ask the engine to exit (``quit``, then stdin closed); kill it after QUIT_WAIT seconds."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            if isinstance(self.tree, cgroup.Descendants):  # its orphans leave the tree when it exits: first
                self.tree.kill(keep=self.proc.pid)
            try:
                os.write(self.stdin, b"quit\n")
            except OSError:  # closed, or full: closing stdin says the same
                pass
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=QUIT_WAIT)
            except subprocess.TimeoutExpired:
                pass
        self.close()

    def close(self) -> None:
        """Kill what is left of the engine and free its files."""
        self.kill()
        self.poller = None
        if self.log >= 0:
            os.close(self.log)
            self.log = -1
        if self.tree is not None:
            self.tree.close()
        if getattr(self, "scratch", None) is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
