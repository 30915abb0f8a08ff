"""Small n-seat games and plain brute-force searches for tests/test_multiplayer_search.py.

``RandomTree``: a seeded random game tree of n seats (constant-sum or general-sum, with
extra turns), generated as it is walked. ``Take``: take 1 to 3 counters, whoever takes the
last wins (1, the others 0; ``total`` 1). ``Written``: a game tree written out. The brute
forces are max^n, paranoid and Best-Reply Search as plainly as they can be written.
"""

from __future__ import annotations

import random

from arena import Counter, Game, param
from arena.budget import counted
from arena.game import Model


class RandomTree(Game):
    """A seeded random game tree, generated as it is walked.

    A state is ``(path, seat to move)``, ``path`` the moves so far as (seat, move) pairs, so
    the tree below a position also depends on who moves there: a seat given the turn by
    ``pass_to`` has moves of its own. Leaves hold integer utility vectors (summing to
    ``total`` when it is set); inner nodes a heuristic vector of halves strictly inside the
    bounds (summing to ``total`` too). Each seat is followed by the next, or with
    probability ``extra`` moves again.
    """

    name = "randomtree"
    description = "a seeded random game tree for n seats"
    bounds = (0.0, 10.0)

    seed: int = param(0, "the tree's seed")
    players: int = param(3, "seats", min=2, max=6)
    constant: bool = param(True, "every leaf's utilities sum to 10 (else general-sum)")
    depth: int = param(5, "deepest leaf", min=1)
    branching: int = param(3, "most moves at a node", min=1)
    extra: float = param(0.15, "chance that a seat moves again", min=0.0, max=1.0)

    def __init__(self, **params):
        super().__init__(**params)
        self.model = Model(players=self.players, total=10.0 if self.constant else None)
        self._nodes: dict = {}

    def _node(self, state):
        """(terminal, moves, next seat, vector) of a state, made once from its own seeds: the
        end and the utilities from the position's, the rest from the position's and the seat's."""
        known = self._nodes.get(state)
        if known is None:
            path, seat = state
            rng = random.Random(hash((self.seed, path)))
            terminal = len(path) >= self.depth or bool(path) and rng.random() < 0.1
            if terminal:
                known = (True, [], None, self._vector(rng, 0.0))
            else:
                rng = random.Random(hash((self.seed, path, seat)))
                moves = list(range(rng.randint(1, self.branching)))
                nxt = seat if rng.random() < self.extra else (seat + 1) % self.players
                known = (False, moves, nxt, self._vector(rng, 0.5))
            self._nodes[state] = known
        return known

    def _vector(self, rng, margin):
        n, top = self.players, 10.0
        if not self.constant:
            return tuple(float(rng.randint(0, 10)) if not margin else rng.randint(1, 19) / 2 for _ in range(n))
        # a random composition of 10 - n * margin into n parts, then margin added to each
        units = int((top - n * margin) * 2)
        cuts = sorted(rng.randint(0, units) for _ in range(n - 1))
        parts = [b - a for a, b in zip([0] + cuts, cuts + [units])]
        if not margin:
            parts = [2 * (p // 2) for p in parts]  # whole numbers: halve, keep the sum
            parts[-1] += units - sum(parts)
        return tuple(p / 2 + margin for p in parts)

    def initial_state(self):
        return ((), 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return self._node(state)[1]

    def apply(self, state, move):
        path, seat = state
        return (path + ((seat, move),), self._node(state)[2])

    def is_terminal(self, state):
        return self._node(state)[0]

    def utilities(self, state):
        return self._node(state)[3]

    def utility(self, state, player):
        return self._node(state)[3][player]

    def heuristic(self, state, player):
        return self._node(state)[3][player]

    def pass_to(self, state, seat):
        return (state[0], seat)


class Take(Game):
    """Take 1 to 3 counters; whoever takes the last wins (1), the others get 0."""

    name = "take"
    description = "take 1-3 counters; the last taker wins"
    bounds = (0.0, 1.0)

    counters: int = param(11, "counters at the start", min=1)
    players: int = param(3, "seats", min=2, max=6)

    def __init__(self, **params):
        super().__init__(**params)
        self.model = Model(players=self.players, total=1.0)

    def initial_state(self):
        return (self.counters, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return list(range(1, min(3, state[0]) + 1))

    def apply(self, state, move):
        return (state[0] - move, (state[1] + 1) % self.players)

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state, player):
        return 1.0 if (player + 1) % self.players == state[1] else 0.0  # the seat before took the last

    def heuristic(self, state, player):
        return 1.0 / self.players

    def parse_move(self, text):
        return int(text)

    def pass_to(self, state, seat):
        return (state[0], seat)


class Written(Game):
    """A game tree written out: a leaf is a tuple of utilities, an inner node ``(seat, [children])``.
    Heuristic 5 for every seat (the trees are searched to their ends)."""

    name = "written"
    description = "a game tree written out"
    bounds = (0.0, 10.0)

    def __init__(self, tree, players=3, total=10.0):
        super().__init__()
        self.tree = tree
        self.model = Model(players=players, total=total)

    def _at(self, path):
        node = self.tree
        for i in path:
            node = node[1][i]
        return node

    def initial_state(self):
        return ()

    def to_move(self, state):
        return self._at(state)[0]

    def legal_moves(self, state):
        return list(range(len(self._at(state)[1])))

    def apply(self, state, move):
        return state + (move,)

    def is_terminal(self, state):
        return not isinstance(self._at(state)[1], list)

    def utility(self, state, player):
        return float(self._at(state)[player])

    def heuristic(self, state, player):
        return 5.0

    def parse_move(self, text):
        return int(text)


class TakeWithoutHook(Take):
    pass_to = None  # getattr finds None: no hook


# -- the brute-force searches ---------------------------------------------------------------


def brute_maxn(game, state, depth):
    """(vector, move): plain max^n, ties to the first move."""
    if game.is_terminal(state):
        return game.utilities(state), None
    if depth == 0:
        return tuple(game.heuristic(state, s) for s in range(game.model.players)), None
    seat, best = game.to_move(state), None
    for move in game.legal_moves(state):
        v, _ = brute_maxn(game, game.apply(state, move), depth - 1)
        if best is None or v[seat] > best[0][seat]:
            best = (v, move)
    return best


def brute_paranoid(game, state, depth, me):
    """(value for ``me``, move): ``me`` maximises, everyone else minimises; ties to the first."""
    if game.is_terminal(state):
        return game.utility(state, me), None
    if depth == 0:
        return game.heuristic(state, me), None
    sign = 1 if game.to_move(state) == me else -1
    best = None
    for move in game.legal_moves(state):
        v, _ = brute_paranoid(game, game.apply(state, move), depth - 1, me)
        if best is None or sign * v > sign * best[0]:
            best = (v, move)
    return best


def brute_brs(game, state, depth, me, max_turn=True):
    """(value for ``me``, move): ``me`` moves, then the single best reply of any opponent (each
    moving in the position as if it were its turn), then ``me`` again (Schadd and Winands 2011)."""
    if game.is_terminal(state):
        return game.utility(state, me), None
    if depth == 0:
        return game.heuristic(state, me), None
    n = game.model.players
    seats = [me] if max_turn else [s for s in range(n) if s != me]
    best = None
    for seat in seats:
        s = game.pass_to(state, seat)
        for move in game.legal_moves(s):
            v, _ = brute_brs(game, game.apply(s, move), depth - 1, me, not max_turn)
            if best is None or (v > best[0] if max_turn else v < best[0]):
                best = (v, move)
    return best


def counting(game):
    counter = Counter()
    return counted(game, counter), counter


def trees(count, players=(2, 3, 4), constant=True, depth=5, start=0):
    for seed in range(start, start + count):
        n = players[seed % len(players)]
        yield RandomTree(seed=seed, players=n, constant=constant, depth=depth)
