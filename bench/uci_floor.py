"""The least a Python program does to play UCI self-play: a floor for any referee in Python.

``--jobs`` processes, each playing its share of ``--games`` games with a pair of engines of its
own: ``ucinewgame`` and ``isready`` before each game; each ply ``position startpos moves ...``
and ``go nodes N`` in one write, then the engine's output read (``poll``, ``read``) until its
``bestmove``. No move is checked, no clock is kept, nothing is recorded: a game ends after
``--plies`` plies, the length of the games the tools played (Stockfish self-play from the start
position at a node budget plays the same game every time). ``bench/fastchess.py --floor``
times it beside botarena and fastchess; alone:

    python bench/uci_floor.py --engine /usr/games/stockfish --nodes 100 --games 400 --plies 333
"""

from __future__ import annotations

import argparse
import os
import select
import subprocess
import sys
from multiprocessing import Process


class Engine:
    def __init__(self, command: str):
        self.proc = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.out = self.proc.stdout.fileno()
        self.poller = select.poll()
        self.poller.register(self.out, select.POLLIN)
        self.buffer = b""

    def send(self, text: str) -> None:
        self.proc.stdin.write(text.encode())

    def until(self, word: bytes) -> bytes:
        """The first line that starts with ``word``; the lines before it are dropped."""
        while True:
            at = self.buffer.find(word)
            if at >= 0 and (at == 0 or self.buffer[at - 1] == 10):
                end = self.buffer.find(b"\n", at)
                if end >= 0:
                    line, self.buffer = self.buffer[at:end], self.buffer[end + 1:]
                    return line
            self.poller.poll(60_000)
            data = os.read(self.out, 65536)
            if not data:
                sys.exit("the engine closed its output")
            self.buffer += data


def play(command: str, nodes: int, games: int, plies: int) -> None:
    engines = [Engine(command), Engine(command)]
    for engine in engines:
        engine.send("uci\nsetoption name Threads value 1\nsetoption name Hash value 16\nisready\n")
        engine.until(b"readyok")
    for _ in range(games):
        for engine in engines:
            engine.send("ucinewgame\nisready\n")
            engine.until(b"readyok")
        moves: list[str] = []
        for ply in range(plies):
            engine = engines[ply % 2]
            engine.send(f"position startpos moves {' '.join(moves)}\ngo nodes {nodes}\n")
            moves.append(engine.until(b"bestmove").split()[1].decode())
    for engine in engines:
        engine.send("quit\n")
        engine.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", required=True)
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--plies", type=int, required=True, help="plies a game (the tools' games' length)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    shares = [args.games // args.jobs + (i < args.games % args.jobs) for i in range(args.jobs)]
    workers = [Process(target=play, args=(args.engine, args.nodes, share, args.plies)) for share in shares]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if any(worker.exitcode for worker in workers):
        sys.exit("a player failed")


if __name__ == "__main__":
    main()
