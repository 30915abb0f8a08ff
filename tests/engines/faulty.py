#!/usr/bin/env python3
"""Misbehaving engines for the tests: ``faulty.py MODE``, each mode one fault (see FAULTS)."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from random_engine import Engine  # noqa: E402


class Faulty(Engine):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.played = 0

    def on_arena(self, words, line):
        if self.mode == "handshake":  # says hello, never arenaok
            self.send("id name silent")
            return
        super().on_arena(words, line)

    def on_go(self, words, line):
        self.played += 1
        mode = self.mode
        print(f"thinking about move {self.played}", file=sys.stderr, flush=True)
        if mode == "crash" and self.played == 2:
            print("fatal: the engine gave up", file=sys.stderr, flush=True)
            os._exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "fork":  # a child that would outlive a careless referee
            child = subprocess.Popen(["sleep", "3600"])
            print(f"child {child.pid}", file=sys.stderr, flush=True)
            time.sleep(3600)
        if mode == "late":
            time.sleep(float(words[words.index("movetime") + 1]) / 1000 + 0.5)
        if mode in ("ignore_stop", "obey_stop"):
            self.send("info string waiting for stop")
            for line in sys.stdin:  # think until stop
                if line.strip() == "stop":
                    break
            if mode == "ignore_stop":
                time.sleep(3600)
        if mode == "illegal" and self.moves:  # the first move's square again (tictactoe, connect4 rows)
            self.send("bestmove " + self.moves[0])
            return
        if mode == "unreadable":
            self.send("bestmove nonsense")
            return
        if mode == "garbage":
            self.send("hello from the engine")
        if mode == "noise":  # one line on stdout that is no protocol line, over the output limit
            self.send("x" * (2 << 20))
        if mode == "endless":  # a line with no end, over the output limit
            sys.stdout.write("x" * (2 << 20))
            sys.stdout.flush()
            time.sleep(3600)
        if mode == "flood":
            sys.stderr.write("x" * 4096 * 1024)
            sys.stderr.flush()
        if mode == "babble" and self.played == 1:  # a child that writes to stderr while the opponent thinks
            if os.fork() == 0:
                while True:
                    os.write(2, b"x" * 65536)
        if mode == "daemon" and self.played == 1:  # a grandchild in a session of its own: no killpg reaches it
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    print(f"daemon {os.getpid()}", file=sys.stderr, flush=True)
                    time.sleep(3600)
                os._exit(0)
            os.wait()
        if mode == "chatter":  # a healthy engine's info lines, many of them
            for depth in range(1, 2001):
                self.send(f"info depth {depth} nodes {depth} score 0")
        if mode == "memory":
            print(len(bytearray(4 << 30)), file=sys.stderr)  # beyond any test's memory limit
        super().on_go(words, line)


FAULTS = ("handshake", "crash", "hang", "fork", "late", "ignore_stop", "obey_stop", "illegal", "unreadable",
          "garbage", "noise", "endless", "flood", "memory", "babble", "chatter", "daemon")

if __name__ == "__main__":
    if sys.argv[1] not in FAULTS:
        sys.exit(f"unknown mode {sys.argv[1]!r}; modes: {', '.join(FAULTS)}")
    Faulty(sys.argv[1]).run()
