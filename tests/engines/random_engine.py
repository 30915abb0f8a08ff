#!/usr/bin/env python3
"""A correct engine for the tests: the arena protocol, random legal moves through the arena's own games.

Deterministic: each move is drawn from a generator seeded by the moves so far and the
``Seed`` option. The ``Nodes`` option sets how many nodes it reports per move (0: one
per legal move). Fault modes for the tests live in faulty.py, which subclasses Engine.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arena import get_registry  # noqa: E402


class Engine:
    def __init__(self):
        self.registry = get_registry(entry_points=False)
        self.game = self.problem = None
        self.moves = []
        self.options = {"seed": 0, "nodes": 0}

    def send(self, line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def run(self):
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            handler = getattr(self, "on_" + words[0], None)
            if handler is None:
                print(f"unknown command {line.strip()!r}", file=sys.stderr)
            elif handler(words, line.rstrip("\r\n")) == "quit":
                return

    def on_arena(self, words, line):
        self.send("id name random")
        self.send("id author the botarena tests")
        self.send("option name Seed type spin default 0 min 0 max 1000000")
        self.send("option name Nodes type spin default 0 min 0 max 1000000000")
        self.send("arenaok")

    def on_setoption(self, words, line):
        name, value = words[2].lower(), words[4]
        self.options[name] = int(value)

    def on_game(self, words, line):
        try:
            self.game = self.registry.game(line.split(" ", 1)[1])
        except Exception as exc:
            self.problem = str(exc)

    def on_isready(self, words, line):
        self.send(f"error {self.problem}" if self.problem else "readyok")

    def on_newgame(self, words, line):
        self.moves = []

    def on_position(self, words, line):
        self.moves = words[3:]

    def choose(self):
        state = self.game.play(self.moves)
        legal = self.game.legal_moves(state)
        rng = random.Random(" ".join(self.moves) + f"/{self.options['seed']}")
        return self.game.format_move(rng.choice(legal)), len(legal)

    def on_go(self, words, line):
        move, count = self.choose()
        nodes = self.options["nodes"] or count
        self.send(f"info depth 1 nodes {nodes} time 0 score 0 pv {move}")
        self.send(f"bestmove {move}")

    def on_stop(self, words, line):
        pass

    def on_quit(self, words, line):
        return "quit"


if __name__ == "__main__":
    Engine().run()
