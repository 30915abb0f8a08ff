#!/usr/bin/env python3
"""A small engine for the arena's text protocol (docs/protocol.md): Connect Four and tic-tac-toe.

Standard library only and independent of botarena: this is the kind of program an engine
author writes. Both games are k-in-a-row games on a board of rows x columns cells (Connect
Four adds gravity), so one board and one search serve both: iterative-deepening negamax
with alpha-beta, a heuristic of open lines kept up to date move by move, and a node count
that honours `go nodes N` (the root and every position the search creates).

Run it under the arena:
    arena run --game connect4 --bot 'engine:cmd=python3 examples/engines/python/engine.py' --bot alphabeta
"""

import os
import queue
import sys
import threading
import time

NAME = "pyengine 1.0"
AUTHOR = "botarena examples"
LETTERS = "abcdefghijklmnopqrstuvwxyz"
WIN = 1_000_000_000  # a win with s stones on the board scores WIN - s: sooner is better
INF = 2 * WIN
OPTIONS = (
    "option name MaxDepth type spin default 64 min 1 max 64",
    "option name Debug type check default false",
)


class GameError(Exception):
    """A game spec this engine cannot play; the text goes into `error TEXT`."""


class Abort(Exception):
    """The search ran out of nodes or time, or was told to stop."""


def parse_spec(spec):
    """`connect4:rows=6,columns=7` -> ('connect4', {'rows': '6', 'columns': '7'})."""
    name, _, rest = spec.strip().partition(":")
    params = {}
    for piece in rest.split(",") if rest else ():
        key, eq, value = piece.partition("=")
        if not eq:
            raise GameError(f"cannot read parameter {piece!r} in {spec!r}")
        params[key.strip()] = value.strip()
    return name.strip(), params


def number(params, key, default, low, high):
    text = params.pop(key, str(default))
    if not text.isdigit() or not low <= int(text) <= high:
        raise GameError(f"{key}={text} is outside {low}..{high}")
    return int(text)


class Board:
    """A k-in-a-row board: cells numbered row * columns + column (Connect Four: row 0 at the
    bottom), window counts per player, and the heuristic kept incrementally."""

    def __init__(self, spec):
        name, params = parse_spec(spec)
        if name == "connect4":
            self.gravity = True
            self.columns = number(params, "columns", 7, 1, 16)
            self.rows = number(params, "rows", 6, 1, 16)
            self.k = number(params, "connect", 4, 1, max(self.rows, self.columns))
            self.scoring = params.pop("scoring", "win")
            if self.scoring not in ("win", "moves"):
                raise GameError(f"scoring={self.scoring} is not 'win' or 'moves'")
        elif name == "tictactoe":
            self.gravity = False
            self.rows = number(params, "rows", 3, 1, 64)
            self.columns = number(params, "columns", 3, 1, 26)
            self.k = number(params, "k", 3, 1, max(self.rows, self.columns))
            self.scoring = "win"
            if self.rows * self.columns > 64:
                raise GameError("rows * columns is more than 64")
        else:
            raise GameError(f"this engine plays connect4 and tictactoe, not {name!r}")
        if params:
            raise GameError(f"unknown parameter {sorted(params)[0]!r} for {name}")
        self.name = name
        self.cells = self.rows * self.columns
        self._windows()
        self.reset()

    def _windows(self):
        rows, cols, k = self.rows, self.columns, self.k
        windows = []
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))[: 1 if k == 1 else 4]:
                    if 0 <= r + dr * (k - 1) < rows and 0 <= c + dc * (k - 1) < cols:
                        windows.append([(r + dr * i) * cols + c + dc * i for i in range(k)])
        self.through = [tuple(w for w, cells in enumerate(windows) if cell in cells) for cell in range(self.cells)]
        self.nwindows = len(windows)
        weight = [c * c * c for c in range(k + 1)]  # a window's worth by its stones, to the side owning it
        # gain[a][b]: how the mover's view of a window changes when it adds a stone to its a
        # stones there, the opponent holding b
        value = [[weight[a] if not b else -weight[b] if not a else 0 for b in range(k + 1)] for a in range(k + 1)]
        self.gain = [[value[a + 1][b] - value[a][b] for b in range(k + 1)] for a in range(k)]
        self.scale = 0.9 / max(1, self.nwindows * weight[max(k - 1, 1)])
        # moves in a fixed order, the centre first
        mid_r, mid_c = (rows - 1) / 2, (cols - 1) / 2
        if self.gravity:
            self.order = sorted(range(cols), key=lambda c: (abs(c - mid_c), c))
        else:
            self.order = sorted(range(self.cells), key=lambda x: (-len(self.through[x]),
                                abs(x // cols - mid_r) + abs(x % cols - mid_c), x))

    def reset(self):
        self.board = [0] * self.cells
        self.heights = [0] * self.columns
        self.counts = ([0] * self.nwindows, [0] * self.nwindows)
        self.score = 0  # open lines, from the first player's view
        self.stones = 0
        self.history = []  # (cell, score before)
        self.over = False

    def moves(self):
        if self.gravity:
            h, rows = self.heights, self.rows
            return [c for c in self.order if h[c] < rows]
        b = self.board
        return [x for x in self.order if not b[x]]

    def play(self, move):
        """Play a move; True if it completes a line."""
        cell = self.heights[move] * self.columns + move if self.gravity else move
        if self.gravity:
            self.heights[move] += 1
        p = self.stones & 1
        self.board[cell] = p + 1
        mine, theirs = self.counts[p], self.counts[1 - p]
        gain, k, d, won = self.gain, self.k, 0, False
        for w in self.through[cell]:
            a = mine[w]
            d += gain[a][theirs[w]]
            mine[w] = a + 1
            if a + 1 == k:
                won = True
        self.history.append((cell, self.score))
        self.score += d if p == 0 else -d
        self.stones += 1
        return won

    def undo(self):
        cell, self.score = self.history.pop()
        self.stones -= 1
        self.board[cell] = 0
        if self.gravity:
            self.heights[cell % self.columns] -= 1
        mine = self.counts[self.stones & 1]
        for w in self.through[cell]:
            mine[w] -= 1

    def utility(self, score):
        """A search score (for the side to move) in the game's units."""
        if abs(score) < WIN - self.cells - 1:
            return round(score * self.scale, 4)
        stones = WIN - abs(score)
        value = 1 if self.scoring == "win" else (self.cells + 1) // 2 + 1 - (stones + 1) // 2
        return value if score > 0 else -value

    def format_move(self, move):
        if self.gravity:
            return str(move + 1)
        r, c = divmod(move, self.columns)
        return f"{LETTERS[c]}{r + 1}"

    def parse_move(self, text):
        t = text.strip().lower()
        if self.gravity:
            if t.isdigit() and 1 <= int(t) <= self.columns:
                return int(t) - 1
        elif t.isdigit():
            if 1 <= int(t) <= self.cells:
                return int(t) - 1
        elif t[:1] in LETTERS[: self.columns] and t[1:].isdigit() and 1 <= int(t[1:]) <= self.rows:
            return (int(t[1:]) - 1) * self.columns + LETTERS.index(t[0])
        raise ValueError(f"cannot read move {text!r}")


class Search:
    """Iterative-deepening negamax with alpha-beta over a Board."""

    def __init__(self, board, send, stopped):
        self.board, self.send, self.stopped = board, send, stopped
        self.debug = False

    def go(self, limits, max_depth):
        b = self.board
        self.nodes, self.limit = 1, limits.get("nodes", float("inf"))  # the root is a node
        self.start = time.monotonic()
        self.deadline = self.start + limits["seconds"] if "seconds" in limits else None
        moves, stones = b.moves(), b.stones
        if not moves:
            return None
        best, score, depth, pv = moves[0], 0, 0, [moves[0]]
        top = min(limits.get("depth", max_depth), b.cells - b.stones)
        for d in range(1, top + 1):
            try:
                s, line = self.root(d, [best] + [m for m in moves if m != best])
            except Abort:
                while b.stones > stones:  # take back the moves the aborted search left on the board
                    b.undo()
                break
            best, score, depth, pv = line[0], s, d, line
            self.info(depth, score, pv)
            if abs(s) >= WIN - b.cells - 1:  # a win or loss proven: deeper shows nothing new
                break
        self.info(depth, score, pv)  # the total nodes, which the arena records
        return best

    def info(self, depth, score, pv):
        ms = int((time.monotonic() - self.start) * 1000)
        text = " ".join(self.board.format_move(m) for m in pv)
        self.send(f"info depth {depth} nodes {self.nodes} time {ms} score {self.board.utility(score)} pv {text}")
        if self.debug:
            print(f"depth {depth} nodes {self.nodes} time {ms} ms", file=sys.stderr, flush=True)

    def root(self, depth, moves):
        best, line, alpha = -INF, None, -INF
        for m in moves:
            s, child = self.child(m, depth, alpha, INF)
            if s > best:
                best, line = s, [m] + child
                alpha = max(alpha, s)
        return best, line

    def child(self, move, depth, alpha, beta):
        """Play ``move``: its score for the mover, and the principal variation after it."""
        if self.nodes >= self.limit:
            raise Abort
        self.nodes += 1
        if not self.nodes & 255:
            self.check()
        b = self.board
        if b.play(move):
            s, pv = WIN - b.stones, []
        elif b.stones == b.cells:
            s, pv = 0, []
        elif depth == 1:
            s, pv = (b.score if b.stones & 1 else -b.score), []  # the mover's view
        else:
            s, pv = self.negamax(depth - 1, -beta, -alpha)
            s = -s
        b.undo()
        return s, pv

    def negamax(self, depth, alpha, beta):
        best, line = -INF, []
        for m in self.board.moves():
            s, child = self.child(m, depth, alpha, beta)
            if s > best:
                best = s
                if s > alpha:
                    alpha, line = s, [m] + child
                    if alpha >= beta:
                        break
        return best, line

    def check(self):
        if self.stopped.is_set() or (self.deadline is not None and time.monotonic() >= self.deadline):
            raise Abort


def limits_of(words, board):
    """`go` arguments -> {'nodes', 'depth', 'seconds'}; a clock gives this move a share of it."""
    args = dict(zip(words[::2], words[1::2]))
    limits = {}
    for key in ("nodes", "depth"):
        if key in args:
            limits[key] = max(0, int(args[key]))
    if "movetime" in args:
        ms = int(args["movetime"])
        limits["seconds"] = max(ms - min(50, ms // 10), 1) / 1000  # answer a little early
    mine = f"time{board.stones & 1}"
    if mine in args:
        left, inc = int(args[mine]), int(args.get(f"inc{board.stones & 1}", 0))
        share = min(left / 20 + inc / 2, left / 2) / 1000
        limits["seconds"] = min(limits.get("seconds", share), share)
    return limits


def reader(lines, stopped):
    """Read stdin into ``lines``; ``stop`` (and the end of input) set ``stopped`` at once.

    ``go`` clears it here rather than in the main loop, so a ``stop`` that follows a
    ``go`` quickly cannot be lost.
    """
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
    board, problem, max_depth, debug = None, None, 64, False
    while True:
        line = lines.get()
        words = line.split()
        command = words[0] if words else ""
        if command == "quit":
            return
        if command == "arena":
            send(f"id name {NAME}")
            send(f"id author {AUTHOR}")
            for option in OPTIONS:
                send(option)
            send("arenaok")
        elif command == "setoption" and words[1:2] == ["name"] and words[3:4] == ["value"]:
            name, value = words[2], " ".join(words[4:])
            if name == "MaxDepth" and value.isdigit():
                max_depth = min(max(int(value), 1), 64)
            elif name == "Debug" and value in ("true", "false"):
                debug = value == "true"
            else:
                log(f"ignored: {line}")
        elif command == "game":
            board, problem = None, None
            try:
                board = Board(line[len("game"):].strip())
            except GameError as e:
                problem = str(e)
        elif command == "isready":
            send(f"error {problem}" if problem else "readyok")
        elif command == "newgame" and board:
            board.reset()
        elif command == "position" and board and words[1:2] == ["start"]:
            board.reset()
            try:
                for text in words[3:] if words[2:3] == ["moves"] else ():
                    move = board.parse_move(text)
                    if move not in board.moves() or board.play(move):
                        raise ValueError(f"move {text!r} is illegal or ends the game")
            except ValueError as e:
                log(f"bad position: {e}")
        elif command == "go" and board:
            search = Search(board, send, stopped)
            search.debug = debug
            best = search.go(limits_of(words[1:], board), max_depth)
            if "quit" in lines.queue:  # told to quit mid-search: no bestmove is owed
                return
            send(f"bestmove {board.format_move(best) if best is not None else '(none)'}")
        elif command and command != "stop":  # a stop with no search running has nothing to stop
            log(f"ignored: {line}")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    # not sys.exit: the reader thread may be blocked reading stdin, and the interpreter's
    # shutdown would abort on the lock it holds
    os._exit(0)
