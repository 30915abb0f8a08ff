"""An engine (docs/protocol.md) that plays ``secret`` and looks for the other seat's card as
``snooper`` does, with everything an engine can reach: what it is told, its process, its
parent (the referee), every process of the test it can list, its files.

Run as ``python engine.py SCOPE`` (the test's process id). Holding the card it notes the deal
in its process and in its working folder; guessing, it answers the card it found, or a random
one, and says where it found it in ``info depth`` (bits of ``reach.CHANNELS``; 256: a note in
its process, an earlier game's; 512: a note in its working folder). Standard library only,
besides ``reach`` beside it.
"""

import random
import sys
from hashlib import blake2b

import reach

NOTED = 1 << len(reach.CHANNELS)  # an earlier game's note, in this process
FILED = NOTED << 1  # an earlier game's note, in its working folder
NOTES: dict[int, int] = {}


def main(scope: int) -> None:
    def send(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    salt, cards, observation, history, legal = "botarena", 256, "", [], []
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        words = line.split()
        command = words[0] if words else ""
        if command == "quit":
            return
        if command == "arena":
            send("id name snoop engine")
            send("arenaok")
        elif command == "game":  # secret or secret:salt=S,cards=N
            for part in line[len("game "):].partition(":")[2].split(","):
                key, _, value = part.partition("=")
                if key == "salt":
                    salt = value
                elif key == "cards":
                    cards = int(value)
        elif command == "isready":
            send("readyok")
        elif command == "position":
            history = words[3:]
        elif command == "observation":
            observation = line[len("observation "):].replace("\\n", "\n")
        elif command == "legal":
            legal = words[1:]
        elif command == "go":
            move, depth = choose(scope, salt, cards, observation, history, legal)
            send(f"info depth {depth} nodes 1")
            send(f"bestmove {move}")


def choose(scope, salt, cards, observation, history, legal):
    lines = observation.split("\n")
    nonce = int(lines[0][5:], 16)
    candidates = {blake2b(f"{salt}:{nonce}:{c}".encode(), digest_size=16).hexdigest(): c for c in range(cards)}
    if "hold" in legal:
        card = candidates[lines[1].split("-", 1)[1]]
        NOTES[nonce] = card
        with open("notes", "a") as f:
            f.write(f"{nonce} {card}\n")
        return "hold", 0
    depth, seen = 0, None
    if nonce in NOTES:
        depth, seen = depth | NOTED, NOTES[nonce]
    try:
        with open("notes") as f:
            notes = dict(line.split() for line in f if line.strip())
        if str(nonce) in notes:
            depth, seen = depth | FILED, int(notes[str(nonce)])
    except OSError:
        pass

    def card(found):
        for channel in reach.CHANNELS:
            named = {candidates[h] for (h,) in found.get(channel, ()) if h in candidates}
            if len(named) == 1:
                return channel, named.pop()
        return None

    search = reach.Search(r"SECRET-([0-9a-f]{32})", rb"SECRET-([0-9a-f]{32})", scope)
    found = card(search.run((observation, history, legal), (), card, skip=("files",) if seen is not None else ()))
    if found is not None:
        depth, seen = depth | reach.BIT[found[0]], found[1]
    return (f"g{seen:02x}" if seen is not None else random.choice(legal)), depth


if __name__ == "__main__":
    main(int(sys.argv[1]))
