"""Bots that try to learn what the referee hides, and say by their moves whether they did.

Each plays a move that is right (the card guessed, the throw that beats the other's) when
it found what it looked for, and a seeded random one otherwise, so over many games a rate
above chance shows a leak. The move's ``depth`` says where it found it (bits of
``reach.CHANNELS`` for ``snooper`` and ``sneak``, of ``PLACES`` for ``memory``; 0: nowhere).
"""

from __future__ import annotations

import os
from hashlib import blake2b

from arena import Bot, Decision, param

from tests.plugins.snoop import reach
from tests.plugins.snoop.games import HOLD, nonce_of

ALL = frozenset({"chance", "hidden", "simultaneous", "players", "nonzero-sum"})
#: Where ``memory`` keeps its notes, in the order of its depth's bits.
PLACES = ("cwd", "home", "tmpdir", "tmp", "shm", "process")
_NOTES: dict[int, int] = {}  # ``memory``'s notes in its process: nonce -> card


def _nonce(view) -> int | None:
    """The game's number, from the seat's observation (``secret``) or the state (``duel``)."""
    if view.state is not None:
        return nonce_of(view.state[0])
    first = view.observation.split("\n", 1)[0]
    return int(first[5:], 16) if first.startswith("game ") else None


def _cards(game, nonce: int) -> dict[str, int]:
    """Each card's token in game ``nonce``, its hex digits only: never the text the game
    writes, so nothing the bot makes could be found as if it were the referee's."""
    return {blake2b(f"{game.salt}:{nonce}:{c}".encode(), digest_size=16).hexdigest(): c for c in range(game.cards)}


class Plain(Bot):
    name = "plain"
    description = "a uniformly random legal move, seeded (the snoopers' opponent)"
    handles = ALL

    def choose(self, game, view, budget):
        return self.rng.choice(view.legal)


class Snooper(Bot):
    name = "snooper"
    description = "looks for the first seat's card everywhere it can reach, and guesses it if found"
    handles = ALL

    scope: int = param(0, "the test's process: processes outside its tree are not looked at", min=0)

    def choose(self, game, view, budget):
        if HOLD in view.legal:
            return HOLD
        candidates = _cards(game, _nonce(view))
        search = reach.Search(r"SECRET-([0-9a-f]{32})", rb"SECRET-([0-9a-f]{32})", self.scope)

        def card(found):
            for channel in reach.CHANNELS:  # the first channel that names one card of this game
                cards = {candidates[h] for (h,) in found.get(channel, ()) if h in candidates}
                if len(cards) == 1:
                    return channel, cards.pop()
            return None

        rules = getattr(type(game), "_counted_base", type(game))  # the game's own class, not the counting one
        found = card(search.run((game, view, budget), [rules.__module__], card))
        if found is None:
            return Decision(self.rng.choice(view.legal), depth=0)
        channel, value = found
        return Decision(("g", value), depth=reach.BIT[channel])


class Sneak(Bot):
    """Asked second at a joint move, it looks for the first seat's throw of this turn: in
    ``duel`` its text anywhere (``reach``), in any game the referee's record of it among the
    objects of its process; it plays what beats it where found."""

    name = "sneak"
    description = "looks for the other seat's throw of this turn everywhere it can reach, and beats it if found"
    handles = ALL

    scope: int = param(0, "the test's process: processes outside its tree are not looked at", min=0)

    def choose(self, game, view, budget):
        first = game.acting(view.state)[0]
        if view.seat == first:
            return Decision(self.rng.choice(view.legal), depth=0)  # asked first: no other throw yet
        found = self.text(game, view) if hasattr(game, "beats") else None
        if found is None:
            texts = reach.records(len(view.history), first)  # the referee's, where this is its process
            found = ("gc", texts.pop()) if len(texts) == 1 else None
        if found is None:
            return Decision(self.rng.choice(view.legal), depth=0)
        channel, text = found
        return Decision(_beating(game, text), depth=reach.BIT[channel])

    def text(self, game, view):
        """The first seat's throw of this turn as ``duel`` writes it, and where it was found, or None."""
        nonce, turn = f"{_nonce(view):04x}", str(view.state[1])
        # its text alone in a string (a record's), or in a host's answer as the referee reads it
        search = reach.Search(r"^(s[0-9a-f]{2})\.([0-9a-f]{4})\.(\d+)$",
                              rb'"move":"(s[0-9a-f]{2})\.([0-9a-f]{4})\.(\d+)"', self.scope)

        def throw(found):
            for channel in reach.CHANNELS:
                throws = {t for t, n, k in found.get(channel, ()) if n == nonce and k == turn}
                if len(throws) == 1:
                    return channel, throws.pop()
            return None

        rules = getattr(type(game), "_counted_base", type(game))
        # not the files: a throw of this turn is only ever in memory
        return throw(search.run((game, view), [rules.__module__], throw, skip=("files",)))


def _beating(game, text: str):
    """The move that beats the throw written ``text``: in ``duel``, or in ``rps``."""
    if hasattr(game, "beats"):
        return game.beats(int(text[1:3], 16))
    return {"R": "P", "P": "S", "S": "R"}[text]


class Peeker(Bot):
    """In Kuhn poker, looks for the other seat's card: the state's text (the cards, then the
    actions) or the other's observation, which names the seat and its card, anywhere it can
    reach (this text must not show either, or it would find it in itself). Its move is
    random; its ``score`` names the card found (0, 1, 2 for J, Q, K), its ``depth`` where."""

    name = "peeker"
    description = "looks for the other seat's card in Kuhn poker everywhere it can reach, and says which it found"
    handles = ALL

    scope: int = param(0, "the test's process: processes outside its tree are not looked at", min=0)

    def choose(self, game, view, budget):
        other = game.player_name(1 - view.seat)
        search = reach.Search(r"^([JQK])([JQK])[pb]{0,3}$|You are (first|second) and hold ([JQK])\.",
                              rb"You are (first|second) and hold ([JQK])\.", self.scope)

        def card(found):
            for channel in reach.CHANNELS:
                cards = set()
                for groups in found.get(channel, ()):
                    if len(groups) == 2 and groups[0] == other:  # another's observation, read from memory
                        cards.add(groups[1])
                    elif len(groups) == 4 and groups[0] and groups[0] != groups[1]:  # the state
                        cards.add(groups[1 - view.seat])
                    elif len(groups) == 4 and groups[2] == other:
                        cards.add(groups[3])
                if len(cards) == 1:
                    return channel, cards.pop()
            return None

        rules = getattr(type(game), "_counted_base", type(game))
        found = card(search.run((game, view, budget), [rules.__module__], card, skip=("files",)))
        move = self.rng.choice(view.legal)
        if found is None:
            return Decision(move, depth=0)
        channel, seen = found
        return Decision(move, score=float("JQK".index(seen)), depth=reach.BIT[channel])


class Memory(Bot):
    """Holding the card, it notes the game's number and card everywhere it can write; asked
    to guess, it reads every note and guesses the card noted for this game's number."""

    name = "memory"
    description = "notes the deal it saw everywhere it can write, and reads the notes in its next games"
    handles = ALL

    tag: str = param("arena-notes", "the name of its notes' files")

    def places(self) -> list[str]:
        folders = [os.getcwd(), os.environ.get("HOME", ""), os.environ.get("TMPDIR", ""), "/tmp", "/dev/shm"]
        return [os.path.join(f, self.tag) if f else "" for f in folders]

    def choose(self, game, view, budget):
        nonce = _nonce(view)
        if HOLD in view.legal:
            line = view.observation.split("\n")[1]  # "card SECRET-..."
            card = _cards(game, nonce)[line.split("-", 1)[1]]
            _NOTES[nonce] = card
            for path in self.places():
                try:
                    with open(path, "a") as f:
                        f.write(f"{nonce} {card}\n")
                except OSError:
                    pass
            return HOLD
        seen, where = None, 0
        for bit, path in enumerate(self.places()):
            try:
                with open(path) as f:
                    notes = dict(line.split() for line in f if line.strip())
            except (OSError, ValueError):
                continue
            if str(nonce) in notes:
                seen, where = int(notes[str(nonce)]), where | 1 << bit
        if nonce in _NOTES:
            seen, where = _NOTES[nonce], where | 1 << PLACES.index("process")
        if seen is None:
            return Decision(self.rng.choice(view.legal), depth=0)
        return Decision(("g", seen), depth=where)
