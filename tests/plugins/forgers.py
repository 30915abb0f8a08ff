"""Test plugin: bots that forge what they send the referee, one way each.

``payload`` bots attack the runner through what they answer: a move whose unpickling runs a
command, frames written straight to the host's socket (a pickle, a huge length, deep
nesting, a move that is not text), huge or deeply nested moves. ``decision`` bots return a
legal move with one field of the Decision out of range. Every one must lose its game, and
nothing it sends may run in the runner.
"""

import json
import os
import pickle
import struct
import sys

from arena import Bot, Decision, hookimpl, param


class Payload:
    """Unpickling this runs ``touch PATH``."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def _legal(game, state):
    return game.legal_moves(state)[0]


class PayloadBot(Bot):
    name = "payload"
    description = "answers with something the runner must not trust"

    kind: str = param("reduce", "reduce, rawpickle, hugeframe, deepjson, nontext, hugemove, deepmove or garbage")
    path: str = param("", "the file a payload's command would make")

    def choose(self, game, state, budget):
        kind = self.kind
        if kind == "reduce":
            return Payload(self.path)
        if kind == "hugemove":
            return "x" * (10 << 20)
        if kind == "deepmove":
            move = ()
            for _ in range(100_000):
                move = (move,)
            return move
        # the rest write straight to the host's socket, ahead of the host's own answer
        sock = int(sys.argv[1])
        if kind == "rawpickle":
            payload = pickle.dumps(("move", Payload(self.path), 1))
        elif kind == "hugeframe":
            os.write(sock, struct.pack("!I", 0xFFFFFFF0))
            return _legal(game, state)
        elif kind == "deepjson":
            payload = b"[" * 100_000 + b"]" * 100_000  # within the size limit, beyond any parser's depth
        elif kind == "nontext":
            payload = json.dumps({"move": [1, 2], "nodes": 1}).encode()
        else:  # garbage: not even text
            payload = b"\xff" * 64
        os.write(sock, struct.pack("!I", len(payload)) + payload)
        return _legal(game, state)


class DecisionBot(Bot):
    name = "decision"
    description = "returns a legal move with one field of its Decision out of range"

    field: str = param("score", "score, depth, nodes or pv")
    value: str = param("text", "text, inf, nan, big, negative, long or unwritable")

    def choose(self, game, state, budget):
        move = _legal(game, state)
        value = {
            "text": "x",
            "inf": float("inf"),
            "nan": float("nan"),
            "big": 10**30,
            "negative": -1,
        }.get(self.value)
        if self.field == "pv":
            pv = (move,) * 10**6 if self.value == "long" else (move, object())  # a move no game can write
            return Decision(move, pv=pv)
        return Decision(move, **{self.field: value})


@hookimpl
def register_bots(register):
    register(PayloadBot)
    register(DecisionBot)
