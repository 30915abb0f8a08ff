"""Random game trees with chance nodes, for testing and measuring searches of the expectation
family (expectimax, Star1, Star2) as Ballard measured them.

A tree is a game: its layers (e.g. ``max chance min chance max``) say who moves at each
depth; below the last one are the leaves. Everything about a node, its number of moves (3
to 5) or outcomes (2 to 6), their probabilities (random weights, normalised) and a leaf's
value (uniform within the bounds, -1 to 1), comes from a generator seeded with the tree's
seed and the node's path, so a tree is the same however it is searched.
``order="best"`` lists every decision node's moves best first (by their exact values).
"""

from __future__ import annotations

import random

from arena.game import CHANCE, Game, Model
from arena.params import param

KINDS = {"max": 0, "min": 1, "chance": CHANCE}


class RandomChanceTree(Game):
    name = "random-chance-tree"
    description = "a random tree of max, min and chance layers (for measuring searches)"
    bounds = (-1.0, 1.0)
    model = Model(chance=True)

    seed: int = param(0, "the tree's seed")
    layers: str = param("max chance min chance max", "who moves at each depth, from the root")
    moves: tuple = param((3, 5), "fewest and most moves at a decision node")
    outcomes: tuple = param((2, 6), "fewest and most outcomes at a chance node")
    order: str = param("given", "moves as generated, or best first", choices=("given", "best"))

    def __init__(self, **params):
        super().__init__(**params)
        self.kinds = [KINDS[word] for word in self.layers.split()]
        self._exact: dict = {}
        self._drawn: dict = {}  # path -> what its generator gave (seeding one costs more than a search's visit)

    def _node(self, path):
        """A node's moves (a count), outcomes (with probabilities) or leaf value, made once."""
        found = self._drawn.get(path)
        if found is None:
            rng = random.Random(f"{self.seed}/{','.join(map(str, path))}")
            if len(path) >= len(self.kinds):
                found = rng.uniform(*self.bounds)
            elif self.kinds[len(path)] == CHANCE:
                low, high = self.outcomes
                weights = [rng.random() + 0.05 for _ in range(rng.randint(low, high))]
                total = sum(weights)
                found = [(i, w / total) for i, w in enumerate(weights)]
            else:
                found = rng.randint(*self.moves)
            self._drawn[path] = found
        return found

    def initial_state(self):
        return ()

    def is_terminal(self, state):
        return len(state) >= len(self.kinds)

    def to_move(self, state):
        return self.kinds[len(state)]

    def legal_moves(self, state):
        if self.is_terminal(state) or self.kinds[len(state)] == CHANCE:
            return []
        moves = list(range(self._node(state)))
        if self.order == "best":
            sign = -1 if self.kinds[len(state)] == 0 else 1
            moves.sort(key=lambda m: sign * self.exact_value(state + (m,)))
        return moves

    def chance_outcomes(self, state):
        return self._node(state)

    def apply(self, state, move):
        return state + (move,)

    def utility(self, state, player):
        value = self._node(state)
        return value if player == 0 else -value

    def heuristic(self, state, player):
        return 0.0

    def exact_value(self, state) -> float:
        """The expectiminimax value for seat 0, by brute force (remembered)."""
        if state in self._exact:
            return self._exact[state]
        if self.is_terminal(state):
            value = self.utility(state, 0)
        else:
            kind = self.kinds[len(state)]
            if kind == CHANCE:
                value = sum(p * self.exact_value(state + (o,)) for o, p in self.chance_outcomes(state))
            else:
                values = [self.exact_value(state + (m,)) for m in range(self._node(state))]
                value = max(values) if kind == 0 else min(values)
        self._exact[state] = value
        return value

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        return int(text)
