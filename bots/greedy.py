"""A one-ply bot: a win at once if there is one, else the best heuristic."""

from arena import Bot, BudgetExhausted, Decision
from bots.search import rank


class GreedyBot(Bot):
    """Looks one move ahead; equal moves are broken by its seeded generator."""

    name = "greedy"
    description = "one ply: a win at once if it can, otherwise the best heuristic (seeded tie-break)"
    handles = frozenset({"chance", "players", "nonzero-sum"})  # never asked at a chance node: the referee draws

    def choose(self, game, state, budget):
        me = game.to_move(state)
        moves = game.legal_moves(state)
        best, best_moves, score = None, [], None
        try:
            for move in moves:
                child = game.apply(state, move)  # counted by the arena; raises at the budget
                key = rank(game, child, me)
                if best is None or key > best:
                    best, best_moves = key, [move]
                    score = game.utility(child, me) if game.is_terminal(child) else key
                elif key == best:
                    best_moves.append(move)
        except BudgetExhausted:
            pass
        if not best_moves:
            return Decision(self.rng.choice(moves), depth=0)
        return Decision(self.rng.choice(best_moves), score=score, depth=1)
