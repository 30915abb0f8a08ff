"""Regret matching for repeated matrix games, learning from the throws both seats have shown.

Regret matching (S. Hart and A. Mas-Colell, "A simple adaptive procedure leading to correlated
equilibrium", Econometrica 68(5), 2000), in the unconditional form CFR uses: the regret of a
move is what it would have won, against the other seat's actual throws, less what the bot's
own throws won; the bot plays each move with probability proportional to its positive regret
(uniformly while none is positive). Against a fixed throw it soon plays the answer to it; in
self-play the empirical mix of a zero-sum game approaches its equilibrium (uniform in RPS).

A repeated matrix game here is one of two seats that throw at once, turn after turn, the
same stage game each turn, with the state's running score offered as ``lead(state)`` (seat
0's score less seat 1's), as ``rps`` does: what a throw pays is the change of the lead it
makes. The stage game's payoffs are read at the first move of each game (nine ``apply_joint``
in RPS, counted like any node; a budget too small for them gets a uniform throw). The strategy
depends on the public history alone, so it is exact as a ``policy`` (``bots.policy``); the
draws come from ``self.rng``: deterministic given the seed.
"""

from __future__ import annotations

from arena import Bot, BudgetExhausted
from arena.game import JOINT, Game


class RegretBot(Bot):
    """Unconditional regret matching on the stage game of a repeated matrix game."""

    name = "regret"
    description = "regret matching (Hart and Mas-Colell 2000) for repeated matrix games such as rps"
    handles = frozenset({"simultaneous"})

    _stage = None  # this game's stage game: (moves, {(mine, theirs): payoff}) for each seat, then the game's spec
    _memo = None  # ((seat, game spec), the history of whole throws read, the regrets after it)

    def suitable(self, game: Game) -> str | None:
        why = self.unhandled(game)
        if why:
            return why
        state = game.initial_state()
        if not callable(getattr(game, "lead", None)) or game.to_move(state) != JOINT or game.acting(state) != (0, 1):
            return ("it plays repeated matrix games: both seats throwing at once every turn, with a running "
                    f"score as the game's lead(state) (as rps has); {game.name} is not one")
        return None

    def stage(self, game: Game, seat: int):
        """The stage game for ``seat``: its moves, and its payoff for each pair (its move, the other's)."""
        found = self._stage
        if found is None or found[2] != game.spec:
            state = game.initial_state()
            moves = (tuple(game.legal_moves_for(state, 0)), tuple(game.legal_moves_for(state, 1)))
            base = game.lead(state)
            lead = {(a, b): game.lead(game.apply_joint(state, (a, b))) - base for a in moves[0] for b in moves[1]}
            found = self._stage = (
                (moves[0], {(a, b): u for (a, b), u in lead.items()}),
                (moves[1], {(b, a): -u for (a, b), u in lead.items()}),
                game.spec,
            )
        return found[seat]

    def policy(self, game, view):
        moves, payoff = self.stage(game, view.seat)
        history, seat = view.history, view.seat
        done, regrets = 0, dict.fromkeys(moves, 0.0)
        memo = self._memo  # the last history seen, so that a game's moves cost one throw each
        if memo is not None and memo[0] == (seat, game.spec) and history[:len(memo[1])] == memo[1]:
            done, regrets = len(memo[1]), dict(memo[2])
        texts = {game.format_move(m): m for m in moves}
        other = {game.format_move(m): m for m in self.stage(game, 1 - seat)[0]}
        for t in range(done, len(history) - 1, 2):  # a throw: seat 0's text, then seat 1's
            mine, theirs = texts[history[t + seat]], other[history[t + 1 - seat]]
            got = payoff[(mine, theirs)]
            for m in moves:
                regrets[m] += payoff[(m, theirs)] - got
        self._memo = ((seat, game.spec), history[:len(history) - len(history) % 2], regrets)
        positive = {m: r for m, r in regrets.items() if r > 0 and m in view.legal}
        total = sum(positive.values())
        if total <= 0:
            return [(m, 1.0 / len(view.legal)) for m in view.legal]
        return [(m, positive.get(m, 0.0) / total) for m in view.legal]

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self._stage = self._memo = None  # read again in each game, so that every game counts the same nodes

    def choose(self, game, view, budget):
        try:
            pairs = self.policy(game, view)
        except BudgetExhausted:  # a budget too small to read the stage game (under 10 nodes in rps)
            pairs = [(m, 1.0) for m in view.legal]
        moves, probs = zip(*pairs)
        return self.rng.choices(moves, weights=probs)[0]
