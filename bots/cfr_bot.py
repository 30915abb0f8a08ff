"""The ``cfr`` bot: solves a game with CFR+ (``bots.cfr``) at its first move and plays the average strategy.

Kept apart from the solver so that building the bot (every bot process registers it) does
not import numpy; the solver is imported when a game is first solved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena import Bot, BudgetExhausted, Counter, param
from arena import strategy
from arena.errors import ParameterError
from arena.game import Game

if TYPE_CHECKING:
    from bots.cfr import Solution

VARIANTS = ("cfr+", "cfr")  # bots.cfr.VARIANTS, not imported from there: numpy


class CFRBot(Bot):
    """Solves the game by CFR at its first move of each game, then plays the average strategy.

    The solve is counted as any search is: walking the tree makes every state by ``apply``
    (Kuhn poker 58, Leduc 9,457), so the first move's budget must cover it, or the bot plays
    uniformly that game (as ``solver`` plays its first move). The iterations make no state
    and count none; under a time or CPU budget they stop at its end, fewer than asked. Leduc's
    1,000 iterations take about 2 s each game: for tournaments, solve once (``arena exploit
    cfr:iterations=N --game G --save FILE``) and play the file with ``policy:file=FILE``.
    """

    name = "cfr"
    description = ("CFR+ (or vanilla CFR) on the whole tree of a two-player game of hidden information or "
                   "simultaneous moves, solved at its first move; plays the average strategy")
    handles = frozenset({"chance", "hidden", "simultaneous"})
    iterations: int = param(1000, "CFR iterations, run at the first move of each game", min=1, max=10_000_000)
    variant: str = param("cfr+", "cfr+ (Tammelin 2014) or cfr (Zinkevich et al. 2007)", choices=VARIANTS)

    _solution = None  # this game's, once solved
    _unsolved = False  # the first move's budget did not cover the solve: uniform this game

    def suitable(self, game: Game) -> str | None:
        why = self.unhandled(game)
        if why:
            return why
        try:
            strategy.check_game(game)
        except ParameterError as exc:
            return str(exc)
        return None

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self._solution, self._unsolved = None, False

    def solution(self, game: Game, budget: Counter | None = None) -> Solution:
        """The game's solution, solved now if need be (stopping at ``budget``'s time or CPU limit)."""
        if self._solution is None or self._solution.tree.game.spec != game.spec:
            limit = None if budget is None else budget.budget.nodes

            def stop():  # a deadline passed (the iterations tick no node)
                return budget is not None and budget.exhausted and (limit is None or budget.nodes < limit)

            from bots.cfr import solve  # numpy, once a game is solved

            self._solution = solve(game, self.iterations, self.variant, stop=stop)
        return self._solution

    def policy(self, game, view):
        """The average strategy at ``view``'s information state."""
        solved = self.solution(game)
        i = solved.tree.index.get((view.seat, view.key))
        if i is None:
            raise ParameterError(f"information state {strategy.key_text(view.key)!r} of seat {view.seat} is not in "
                                 f"{game.name}'s tree")
        return list(zip(solved.tree.infosets[i].moves, solved.table[i]))

    def choose(self, game, view, budget):
        pairs = None
        if not self._unsolved:
            try:
                self.solution(game, budget)
                pairs = self.policy(game, view)
            except BudgetExhausted:
                self._unsolved = True
        moves, probs = zip(*pairs) if pairs else (view.legal, None)
        return self.rng.choices(moves, weights=probs)[0]
