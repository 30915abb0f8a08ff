"""Bots that can say their strategy, and the bot that plays one stored in a file.

The policy contract. In a game where bots are handed views (hidden information or
simultaneous moves), a bot may define::

    def policy(self, game, view) -> Sequence[tuple[Move, float]]

the probability with which it plays each move of ``view.legal``: ``(move, probability)``
pairs, each probability from 0 to 1, summing to 1 (within 1e-6); a legal move left out has
probability 0. It must depend on what the seat knows and nothing else: equal for views of
the same seat and ``view.key``, whatever state lies behind them and whichever seat the bot
played last (it may be asked without ``new_game``, for views of both seats, in any order).
It is a bot's strategy per information state, and ``choose`` must draw from it.

``arena exploit`` asks it at every information state (``arena.strategy.tabulate``) and
computes the strategy's exact exploitability; bots without it are estimated by sampling.
``uniform``, ``regret``, ``cfr`` and ``policy`` have it.

The ``policy`` bot plays a strategy file (``arena.strategy``: written by ``arena exploit
... --save`` or ``bots.cfr.Solution.save``). It refuses, in one line at set-up, a file that
is missing, not JSON, not a strategy file, or for another game (its spec must be the game's,
parameters included), and a relative path: an isolated bot of a game with hidden information
runs in an empty folder of its own, where a relative path finds nothing. An information state
the file lacks is an error too, raised when the game reaches it (the bot loses that game, the
message naming the state): playing something else in its place, uniform say, would pass off
another strategy as the stored one. A file written for the game's whole tree (as ``--save``
and CFR write them) lacks none.
"""

from __future__ import annotations

import os

from arena import Bot, param
from arena import strategy
from arena.errors import ParameterError
from arena.game import Game


class PolicyBot(Bot):
    """Plays the strategy stored in a file, drawing each move by its probability."""

    name = "policy"
    description = "plays a stored strategy (a file of probabilities per information state, e.g. from CFR)"
    handles = frozenset({"chance", "hidden", "simultaneous"})
    file: str = param("", "the strategy file, an absolute path (JSON, see arena.strategy)")

    def __init__(self, **params):
        super().__init__(**params)
        self.game_spec, self.table = None, {}
        self._moves: dict = {}  # (seat, key text) -> ((move, probability), ...), read once per state
        if not self.file:
            return  # refused at set-up (``suitable``): every bot builds from its defaults
        if not os.path.isabs(self.file):  # bots of hidden games run in an empty scratch folder of their own
            raise ParameterError(f"bot 'policy' needs the strategy file as an absolute path, not {self.file!r}: an "
                                 "isolated bot of a game with hidden information runs in an empty folder of its own")
        try:
            data = strategy.load(self.file)
        except ParameterError as exc:
            raise ParameterError(f"bot 'policy': {exc}") from None
        self.game_spec = data["game"]
        # seat -> key text -> ((move text, probability), ...)
        self.table = {int(seat): {key: tuple(probs.items()) for key, probs in entries.items()}
                      for seat, entries in data["strategy"].items()}

    @classmethod
    def reads(cls, params: dict) -> tuple[str, ...]:
        return (params["file"],) if params.get("file") else ()

    def suitable(self, game: Game) -> str | None:
        why = self.unhandled(game)
        if why:
            return why
        if not self.file:
            return "it needs its strategy file: policy:file=PATH (written by arena exploit ... --save)"
        if game.spec != self.game_spec:
            return f"the strategy file {self.file!r} is for {self.game_spec}, not {game.spec}"
        return None

    def policy(self, game, view):
        """The stored probabilities at ``view``'s information state."""
        text = strategy.key_text(view.key)
        found = self._moves.get((view.seat, text))
        if found is None:
            entry = self.table.get(view.seat, {}).get(text)
            if entry is None:
                raise ParameterError(f"the strategy file {self.file!r} has no information state {text!r} of seat "
                                     f"{view.seat}, which {game.name} reaches")
            write = (lambda m: game.move_text(view.state, m)) if view.state is not None else game.format_move
            legal = {write(m): m for m in view.legal}
            if set(legal) != {t for t, _ in entry}:
                raise ParameterError(f"the strategy file {self.file!r} gives seat {view.seat} at {text!r} the moves "
                                     f"{', '.join(t for t, _ in entry)}; legal there: {', '.join(legal)}")
            found = self._moves[(view.seat, text)] = tuple((legal[t], p) for t, p in entry)
        return found

    def choose(self, game, view, budget):
        moves, probs = zip(*self.policy(game, view))
        return self.rng.choices(moves, weights=probs)[0]
