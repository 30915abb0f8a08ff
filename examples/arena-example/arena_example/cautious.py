"""A two-ply bot: takes a win at once, and never hands the opponent one if it can help it."""

from __future__ import annotations

from arena import Bot, BudgetExhausted, Decision, param


class CautiousBot(Bot):
    """Scores each move, best first: a win now; then the best heuristic among moves
    after which the opponent cannot win at once; then the rest. Equal moves are broken
    by the seeded generator, so games replay exactly.

    Works for every game: it uses only the rule-book methods and the game's bounds.
    """

    name = "cautious"
    description = "wins at once if it can, else avoids moves that let the opponent win at once"

    lookahead: bool = param(True, "look at the opponent's replies (two plies) before moving")

    def choose(self, game, state, budget):
        me = game.to_move(state)
        moves = list(game.legal_moves(state))
        scored = []  # (rank, value, move) for each move whose look-ahead completed
        try:  # the arena counts the root and every game.apply; past the budget apply raises
            for move in moves:
                scored.append(self._score(game, state, move, me, budget))
        except BudgetExhausted:
            pass  # decide among the moves scored so far
        if not scored:
            return Decision(self.rng.choice(moves), depth=0)
        best = max(rank for rank, _, _ in scored)
        choices = [(value, move) for rank, value, move in scored if rank == best]
        value, move = self.rng.choice(choices)
        depth = (2 if self.lookahead else 1) if len(scored) == len(moves) else None
        return Decision(move, score=value, depth=depth)

    def _score(self, game, state, move, me, budget):
        """(rank, value, move): ``rank`` orders wins above, and losses below, any heuristic;
        ``value`` is the same judgement within the game's bounds."""
        low, high = game.bounds
        child = game.apply(state, move)
        if game.is_terminal(child):
            u = game.utility(child, me)
            return (high + u if u > 0 else low + u if u < 0 else 0.0), u, move
        if self.lookahead and game.to_move(child) != me:
            worst = None
            for reply in game.legal_moves(child):
                grandchild = game.apply(child, reply)
                if game.is_terminal(grandchild):
                    u = game.utility(grandchild, me)
                    if u < 0 and (worst is None or u < worst):
                        worst = u
            if worst is not None:
                return low + worst, worst, move
        h = game.heuristic(child, me)
        return h, h, move
