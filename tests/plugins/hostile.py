"""Test plugin: bots that each try one thing a sandbox must stop (see tests/test_sandbox.py).

Each bot tries its probe when its game starts. If the probe succeeds the bot raises
("probe NAME succeeded: ..."), so it loses the game with a crash naming the probe; if the
probe fails, as it must in a sandbox, the bot plays random legal moves. So a run without
the sandbox shows that each probe works, and a sandboxed run that it was stopped.
"""

import os
import random
import signal
import socket
import tempfile

from arena import Bot, hookimpl, param


class ProbeBot(Bot):
    """Runs ``probe`` at the start of each game; raises at its first move if the probe succeeded."""

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self.rng = random.Random(seed)
        try:
            self.found = self.probe()
        except OSError:
            self.found = None

    def probe(self) -> str | None:
        """What the probe reached (text), or None (or OSError) if it was stopped."""
        raise NotImplementedError

    def choose(self, game, state, budget):
        if self.found:
            raise RuntimeError(f"probe {self.name} succeeded: {self.found}")
        return self.rng.choice(game.legal_moves(state))


class Network(ProbeBot):
    name = "hostile-net"
    description = "connects to a TCP port on 127.0.0.1"
    port: int = param(0, "the port to connect to", min=0)

    def probe(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=2):
            return f"connected to 127.0.0.1:{self.port}"


class Writer(ProbeBot):
    name = "hostile-write"
    description = "writes a file outside its scratch folder"
    path: str = param("", "the file to write")

    def probe(self):
        with open(self.path, "a") as f:
            f.write("written by a bot\n")
        return f"wrote {self.path}"


class Reader(ProbeBot):
    name = "hostile-read"
    description = "reads a file: the results database, another bot's source"
    path: str = param("", "the file to read")

    def probe(self):
        with open(self.path, "rb") as f:
            data = f.read(64)
        return f"read {len(data)} bytes of {self.path}" if data else None


class Signaller(ProbeBot):
    name = "hostile-signal"
    description = "looks for a process it did not start in /proc and sends it SIGUSR1"
    pid: int = param(0, "the process to signal", min=0)

    def probe(self):
        listed = os.path.exists(f"/proc/{self.pid}")
        os.kill(self.pid, signal.SIGUSR1)
        return f"signalled process {self.pid} (listed in /proc: {listed})"


class Litter(ProbeBot):
    name = "hostile-litter"
    description = "leaves a file in its temporary folder and looks for it in its next game"

    def probe(self):
        path = os.path.join(tempfile.gettempdir(), "arena-litter")
        found = os.path.exists(path)
        with open(path, "w") as f:
            f.write("left by an earlier game\n")
        return f"found {path} from an earlier game" if found else None


class Snoop(ProbeBot):
    name = "hostile-snoop"
    description = "looks for the runner's environment and arguments in every process's environ and cmdline"
    variable: str = param("", "the name of a variable of the runner's environment")

    def probe(self):
        for pid in (p for p in os.listdir("/proc") if p.isdigit()):
            for what in ("environ", "cmdline"):
                try:
                    with open(f"/proc/{pid}/{what}", "rb") as f:
                        data = f.read()
                except OSError:
                    continue
                for word in (self.variable, "--ro-bind", "pytest"):
                    if word.encode() in data:
                        return f"found {word!r} in /proc/{pid}/{what}"
        return None


@hookimpl
def register_bots(register):
    for cls in (Network, Writer, Reader, Signaller, Litter, Snoop):
        register(cls)
