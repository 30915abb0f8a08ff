#!/usr/bin/env python3
"""An engine for the arena's text protocol (docs/protocol.md) that plays Nim for any number of
seats (`nim:players=N`), and reports every seat's utility with `info ... utilities`.

Standard library only and independent of botarena. The rules are the arena's `nim`: heaps of
objects, a move takes one or more from one heap, written `HEAP:COUNT` with heaps numbered
from 1 (`2:3` takes 3 from the second heap). The seats move in turn, seat 0 first. With three
or more seats whoever takes the last object gets 1 and every other seat 0; with two, the
winner 1 and the loser -1 (and `misere=true` turns the winner round).

The arena says which seat the engine plays with `newgame SEAT of N` (`newgame SEAT` in a
two-seat game), and sends every seat's moves in the position line.

The search: iterative-deepening max^n (each seat picks the move best for itself; ties go to
the first), over heaps taken as a multiset (equal heaps give equal children), with a table
of the positions met in this search. At the horizon: an even split, or 0.9 for the seat to
move when one heap is left (two seats: Bouton's theory, 0.5 for whoever it favours). Nodes
are counted as the arena counts its own bots' (the root and every position the search
creates), so `go nodes N` never reports more than N.

Run it under the arena:
    arena run --game nim:players=3 --bot 'engine:cmd=python3 examples/engines/python/nim_multi.py' --bot random --bot greedy --budget nodes=2000
"""

import os
import queue
import sys
import threading
import time

NAME = "nimmulti 1.0"
AUTHOR = "botarena examples"


class GameError(Exception):
    """A game spec this engine cannot play; the text goes into `error TEXT`."""


class Abort(Exception):
    """The search ran out of nodes or time, or was told to stop."""


class Nim:
    """The rules: a position is (heaps, seat to move); a move (heap index from 0, count)."""

    def __init__(self, spec):
        name, _, rest = spec.strip().partition(":")
        if name != "nim":
            raise GameError(f"this engine plays nim, not {name!r}")
        params = dict(piece.split("=", 1) for piece in rest.split(",") if "=" in piece) if rest else {}
        # heaps=3,4,5 is split at its commas: the pieces without '=' after it are more heaps
        heaps = [params.get("heaps", "3,4,5")]
        heaps += [p for p in rest.split(",") if "=" not in p and p]
        try:
            self.heaps = tuple(int(h) for text in heaps for h in text.split(",") if h)
            self.players = int(params.get("players", "2"))
        except ValueError:
            raise GameError(f"cannot read {spec!r}") from None
        self.misere = params.get("misere", "false") == "true"
        if self.players < 2 or not any(self.heaps) or (self.misere and self.players > 2):
            raise GameError(f"cannot play {spec!r}")

    def play(self, heaps, seat, move):
        i, n = move
        if not (0 <= i < len(heaps) and 1 <= n <= heaps[i]):
            raise ValueError(f"illegal move {self.format_move(move)}")
        return heaps[:i] + (heaps[i] - n,) + heaps[i + 1 :], (seat + 1) % self.players

    def won(self, mover):
        """The utilities when ``mover`` takes the last object."""
        if self.players == 2:
            winner = 1 - mover if self.misere else mover
            return tuple(1.0 if s == winner else -1.0 for s in range(2))
        return tuple(1.0 if s == mover else 0.0 for s in range(self.players))

    def estimate(self, heaps, seat):
        """The utilities at the horizon, for a position that is not over."""
        n = self.players
        if n == 2:  # Bouton: the nim-sum (misère: heaps of 0 and 1 only count their parity)
            if self.misere and max(heaps) <= 1:
                mover_wins = sum(heaps) % 2 == 0
            else:
                x = 0
                for h in heaps:
                    x ^= h
                mover_wins = x != 0
            v = 0.5 if mover_wins else -0.5
            return (v, -v) if seat == 0 else (-v, v)
        if sum(1 for h in heaps if h) == 1:  # the seat to move takes it
            return tuple(0.9 if s == seat else 0.1 / (n - 1) for s in range(n))
        return (1.0 / n,) * n

    @staticmethod
    def format_move(move):
        return f"{move[0] + 1}:{move[1]}"

    @staticmethod
    def parse_move(text):
        heap, _, count = text.partition(":")
        return int(heap) - 1, int(count)


class Search:
    """Iterative-deepening max^n; positions keyed by (sorted heaps, plies left), seats relative to the mover."""

    def __init__(self, game, send, stopped):
        self.game, self.send, self.stopped = game, send, stopped

    def go(self, heaps, seat, limits, max_depth=64):
        self.nodes, self.limit = 1, limits.get("nodes", float("inf"))  # the root is a node
        self.start = time.monotonic()
        self.deadline = self.start + limits["seconds"] if "seconds" in limits else None
        first = next(i for i, h in enumerate(heaps) if h)
        best, values, depth = (first, heaps[first]), self.game.estimate(heaps, seat), 0
        pv = [best]
        for d in range(1, min(limits.get("depth", max_depth), sum(heaps)) + 1):
            self.table = {}
            try:
                values, line, exact = self.value(heaps, seat, d)
            except Abort:
                break
            depth, pv = d, self.actual(heaps, line)
            best = pv[0]
            self.info(depth, seat, values, pv)
            if exact:  # solved: deeper shows nothing new
                break
        self.info(depth, seat, values, pv)  # the total nodes, which the arena records
        return best

    def info(self, depth, seat, values, pv):
        ms = int((time.monotonic() - self.start) * 1000)
        shown = [f"{v:.6g}" for v in values]
        moves = " ".join(self.game.format_move(m) for m in pv)
        self.send(f"info depth {depth} nodes {self.nodes} time {ms} score {shown[seat]} utilities {' '.join(shown)} pv {moves}")

    def value(self, heaps, seat, depth):
        """Every seat's utility under max^n from ``heaps`` with ``seat`` to move, the line as
        (heap size, count) pairs, and whether it is exact (no horizon reached)."""
        game, n = self.game, self.game.players
        key = (tuple(sorted(h for h in heaps if h)), depth)
        found = self.table.get(key)
        if found is not None:
            rel, line, exact = found
            return tuple(rel[(s - seat) % n] for s in range(n)), line, exact
        best, line, exact = None, [], True
        for size in sorted(set(h for h in heaps if h), reverse=True):
            i = heaps.index(size)
            for count in range(size, 0, -1):
                if self.nodes >= self.limit:
                    raise Abort
                self.nodes += 1
                if not self.nodes & 255 and (self.stopped.is_set() or
                                             (self.deadline is not None and time.monotonic() >= self.deadline)):
                    raise Abort
                after, nxt = game.play(heaps, seat, (i, count))
                if not any(after):
                    values, rest, sure = game.won(seat), [], True
                elif depth == 1:
                    values, rest, sure = game.estimate(after, nxt), [], False
                else:
                    values, rest, sure = self.value(after, nxt, depth - 1)
                exact = exact and sure
                if best is None or values[seat] > best[seat]:
                    best, line = values, [(size, count)] + rest
        self.table[key] = (tuple(best[(seat + k) % n] for k in range(n)), line, exact)
        return best, line, exact

    def actual(self, heaps, line):
        """A line of (heap size, count) as moves of these heaps, each from the first heap of that size."""
        moves, heaps = [], list(heaps)
        for size, count in line:
            i = heaps.index(size)
            moves.append((i, count))
            heaps[i] -= count
        return moves


def limits_of(words, seat):
    """`go` arguments -> {'nodes', 'depth', 'seconds'}; a clock gives this move a share of it."""
    args = dict(zip(words[::2], words[1::2]))
    limits = {key: max(0, int(args[key])) for key in ("nodes", "depth") if key in args}
    if "movetime" in args:
        ms = int(args["movetime"])
        limits["seconds"] = max(ms - min(50, ms // 10), 1) / 1000  # answer a little early
    if f"time{seat}" in args:
        left, inc = int(args[f"time{seat}"]), int(args.get(f"inc{seat}", 0))
        share = min(left / 20 + inc / 2, left / 2) / 1000
        limits["seconds"] = min(limits.get("seconds", share), share)
    return limits


def reader(lines, stopped):
    """Read stdin into ``lines``; ``stop`` (and the end of input) set ``stopped`` at once."""
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        word = line.split(" ", 1)[0]
        if word == "go":
            stopped.clear()
        elif word in ("stop", "quit"):
            stopped.set()
        lines.put(line)
    stopped.set()
    lines.put("quit")


def main():
    def send(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def log(text):
        print(text, file=sys.stderr, flush=True)

    lines, stopped = queue.Queue(), threading.Event()
    threading.Thread(target=reader, args=(lines, stopped), daemon=True).start()
    game = problem = None
    heaps, seat = (), 0
    while True:
        line = lines.get()
        words = line.split()
        command = words[0] if words else ""
        if command == "quit":
            return
        if command == "arena":
            send(f"id name {NAME}")
            send(f"id author {AUTHOR}")
            send("arenaok")
        elif command == "game":
            game, problem = None, None
            try:
                game = Nim(line[len("game"):])
            except GameError as e:
                problem = str(e)
        elif command == "isready":
            send(f"error {problem}" if problem else "readyok")
        elif command == "newgame" and game:  # newgame SEAT of N; newgame SEAT with two seats
            seats = int(words[3]) if words[2:3] == ["of"] else 2
            if seats != game.players:
                log(f"newgame says {seats} seats; the game has {game.players}")
        elif command == "position" and game and words[1:2] == ["start"]:
            heaps, seat = game.heaps, 0
            try:
                for text in words[3:] if words[2:3] == ["moves"] else ():
                    heaps, seat = game.play(heaps, seat, game.parse_move(text))
            except ValueError as e:
                log(f"bad position: {e}")
        elif command == "go" and game:
            if not any(heaps):
                send("bestmove (none)")
                continue
            best = Search(game, send, stopped).go(heaps, seat, limits_of(words[1:], seat))
            if "quit" in lines.queue:  # told to quit mid-search: no bestmove is owed
                return
            send(f"bestmove {game.format_move(best)}")
        elif command and command not in ("stop", "setoption"):
            log(f"ignored: {line}")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # not sys.exit: the reader thread may be blocked reading stdin
