#!/usr/bin/env python3
"""An engine for the arena's text protocol (docs/protocol.md) that plays Kuhn poker, a game of
hidden information.

Standard library only and independent of botarena. The engine never learns the other seat's
card: before each `go` the arena sends the public history (`position start public ? ? b`: the
two deals hidden as `?`, then the bets and passes), the engine's observation on one line
(`observation You are second and hold Q.\\nPlay: first bets.\\n...`, line breaks written `\\n`)
and its legal moves (`legal p b`). It reads its card from the observation and the actions
from the history.

It plays one of Kuhn's (1950) equilibria, whose value is -1/18 for the first seat: with the
first seat, bet a J with probability 1/6 and a K with 1/2, check a Q and call a bet with it
with probability 1/2; with the second, call a bet with K, with Q one time in three, fold J;
after a check bet K, check Q, bet J one time in three. `Seed` (spin, 0 from the system) seeds
its choices.

Run it under the arena:
    arena run --game kuhn_poker --bot 'engine:cmd=python3 examples/engines/python/kuhn.py' --bot uniform
"""

import random
import sys

NAME = "kuhnengine 1.0"
AUTHOR = "botarena examples"
ALPHA = 1 / 6  # the first seat's bluff rate with J; any value from 0 to 1/3 is an equilibrium

# The probability of betting ("b": bet or call), by seat, card and the actions so far.
BET = {
    0: {"J": {"": ALPHA, "pb": 0.0}, "Q": {"": 0.0, "pb": ALPHA + 1 / 3}, "K": {"": 3 * ALPHA, "pb": 1.0}},
    1: {"J": {"b": 0.0, "p": 1 / 3}, "Q": {"b": 1 / 3, "p": 0.0}, "K": {"b": 1.0, "p": 1.0}},
}


def unescape(text):
    """The observation as the game wrote it: `\\n` a line feed, `\\r` a carriage return, `\\\\` a backslash."""
    out, chars = [], iter(text)
    for c in chars:
        if c == "\\":
            c = {"n": "\n", "r": "\r", "\\": "\\"}.get(next(chars, ""), "")
        out.append(c)
    return "".join(out)


def card_in(observation):
    """The card the observation says the engine holds ("... and hold Q."), or None."""
    for line in observation.splitlines():
        words = line.rstrip(".").split()
        if "hold" in words[:-1] and words[-1] in ("J", "Q", "K"):
            return words[-1]
    return None


def main():
    def send(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    seat, rng, problem = 0, random.Random(), None
    history, observation, legal = [], "", []
    for raw in sys.stdin:
        line = raw.rstrip("\n").rstrip("\r")
        words = line.split()
        command = words[0] if words else ""
        if command == "quit":
            return
        if command == "arena":
            send(f"id name {NAME}")
            send(f"id author {AUTHOR}")
            send("option name Seed type spin default 0 min 0 max 2147483647")
            send("arenaok")
        elif command == "setoption" and words[2:3] == ["Seed"] and words[-1] != "0":
            rng = random.Random(int(words[-1]))
        elif command == "game":
            name = line[len("game "):].partition(":")[0]
            problem = None if name == "kuhn_poker" else f"this engine plays kuhn_poker, not {name!r}"
        elif command == "isready":
            send(f"error {problem}" if problem else "readyok")
        elif command == "newgame":
            seat = int(words[1])
        elif command == "position":
            history = words[3:] if words[2:3] == ["public"] else []
        elif command == "observation":
            observation = unescape(line[len("observation "):])
        elif command == "legal":
            legal = words[1:]
        elif command == "go":
            card, actions = card_in(observation), "".join(history[2:])
            chance = BET.get(seat, {}).get(card, {}).get(actions, 0.0)
            move = "b" if rng.random() < chance else "p"
            send("info depth 1 nodes 1")
            send(f"bestmove {move if move in legal or not legal else legal[0]}")
        elif command not in ("", "stop"):
            print(f"ignored: {line}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
