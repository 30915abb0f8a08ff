#!/usr/bin/env python3
"""An engine for the arena's text protocol (docs/protocol.md) that plays Pig, a game with chance.

Standard library only and independent of botarena. The arena rolls the die: each outcome
comes in the `position` line among the moves, a face written as its number, so
`position start moves roll 4 roll 1 hold` is a roll of 4, a roll of 1 (the turn passes)
and the other player's hold. The engine replays the line with its own copy of the rules to
know the scores, whose turn it is and the turn's points.

The search: iterative-deepening expectimax, each chance node worth the mean of its faces,
with the lead (the turn's points counted as banked, over the goal) at the horizon. Nodes
are counted as the arena counts its own bots' (the root and every position the search
creates), so `go nodes N` never reports more than N.

Run it under the arena:
    arena run --game pig --bot 'engine:cmd=python3 examples/engines/python/pig.py' --bot greedy --budget nodes=2000
"""

import sys
import time

NAME = "pigengine 1.0"
AUTHOR = "botarena examples"


class Abort(Exception):
    """The search ran out of nodes or time."""


class Pig:
    """Pig's rules: a state is (player on turn, scores, turn's points, die in the air)."""

    def __init__(self, spec):
        name, _, rest = spec.partition(":")
        params = dict(piece.split("=", 1) for piece in rest.split(",") if "=" in piece)
        if name != "pig":
            raise ValueError(f"this engine plays pig, not {name!r}")
        self.goal, self.die = int(params.get("goal", 100)), int(params.get("die", 6))

    def start(self):
        return (0, (0, 0), 0, False)

    def over(self, state):
        return max(state[1]) >= self.goal

    def moves(self, state):
        player, scores, turn, rolling = state
        if rolling or self.over(state):
            return []
        return ["hold"] if scores[player] + turn >= self.goal else ["roll", "hold"]

    def play(self, state, move):
        player, scores, turn, rolling = state
        if rolling:  # an outcome: a face
            face = int(move)
            if face == 1:
                return (1 - player, scores, 0, False)
            return (player, scores, turn + face, False)
        if move == "roll":
            return (player, scores, turn, True)
        banked = list(scores)
        banked[player] += turn
        return (1 - player, tuple(banked), 0, False)

    def lead(self, state):
        """For the player on turn: the lead, the turn's points banked, over the goal."""
        player, scores, turn, _ = state
        return max(-1.0, min(1.0, (scores[player] + turn - scores[1 - player]) / self.goal))


class Search:
    def __init__(self, game, limit, deadline):
        self.game, self.limit, self.deadline, self.nodes = game, limit, deadline, 1  # the root is a node

    def made(self, state, move):
        if self.nodes >= self.limit or (self.deadline and not self.nodes & 255 and time.monotonic() > self.deadline):
            raise Abort
        self.nodes += 1
        return self.game.play(state, move)

    def value(self, state, depth):
        """The value for the player on turn at ``state`` (at a chance node: whose roll it is)."""
        game = self.game
        if game.over(state):
            return 1.0 if state[1][state[0]] >= game.goal else -1.0
        if depth == 0:
            return 0.9 * game.lead(state)
        player = state[0]
        if state[3]:  # the die in the air: the mean over the faces
            total = 0.0
            for face in range(1, game.die + 1):
                child = self.made(state, str(face))
                v = self.value(child, depth - 1)
                total += v if child[0] == player else -v
            return total / game.die
        best = -2.0
        for move in game.moves(state):
            child = self.made(state, move)
            v = self.value(child, depth - 1)
            best = max(best, v if child[0] == player else -v)
        return best

    def root(self, state, depth):
        best_move, best = None, -2.0
        for move in self.game.moves(state):
            child = self.made(state, move)
            v = self.value(child, depth - 1)
            v = v if child[0] == state[0] else -v
            if v > best:
                best_move, best = move, v
        return best_move, best


def main():
    def send(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    game = problem = state = None
    for raw in sys.stdin:
        words = raw.split()
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
                game = Pig(raw[len("game"):].strip())
            except ValueError as e:
                problem = str(e)
        elif command == "isready":
            send(f"error {problem}" if problem else "readyok")
        elif command == "position" and game:
            state = game.start()
            for move in words[3:] if words[2:3] == ["moves"] else ():
                state = game.play(state, move)  # the players' moves and the die's outcomes alike
        elif command == "go" and game and state:
            args = dict(zip(words[1::2], words[2::2]))
            limit = int(args.get("nodes", 10**12))
            deadline = time.monotonic() + int(args["movetime"]) / 1000 * 0.9 if "movetime" in args else None
            search, start = Search(game, limit, deadline), time.monotonic()
            moves = game.moves(state)
            best, score, depth = moves[0], 0.0, 0
            bounded = "nodes" in args or "movetime" in args
            for d in range(1, int(args.get("depth", 64 if bounded else 6)) + 1):  # unbounded: 6 plies
                try:
                    best, score = search.root(state, d)
                    depth = d
                except Abort:
                    break
            ms = int((time.monotonic() - start) * 1000)
            send(f"info depth {depth} nodes {search.nodes} time {ms} score {score:.6f} pv {best}")
            send(f"bestmove {best}")
        elif command not in ("", "newgame", "stop", "setoption"):
            print(f"ignored: {raw.strip()}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
