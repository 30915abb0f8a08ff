"""Counterfactual regret minimisation on a game's whole tree, and a bot that plays its answer.

Vanilla CFR (Zinkevich, Johanson, Bowling and Piccione, "Regret minimization in games with
incomplete information", NIPS 2007) and CFR+ (Tammelin, "Solving large imperfect information
games using CFR+", 2014: regrets floored at zero, the average weighted by iteration). Both
update the seats in turn, as OpenSpiel's solvers do by default, whose iterates they reproduce.
Both run on the flattened tree of ``arena.strategy`` for any
two-seat game of a constant sum with hidden information, chance or simultaneous moves, through
the rule book alone; the tree is swept level by level with numpy, so an iteration of Leduc
poker costs milliseconds. The answer is the average strategy, which converges to a Nash
equilibrium: its exploitability (``arena.strategy.exploitability``) goes to 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable

import numpy as np

from arena import strategy
from arena.errors import ParameterError
from arena.game import CHANCE, Game
from arena.strategy import TERMINAL, Tree

VARIANTS = ("cfr+", "cfr")


@dataclass
class Solution:
    """What ``solve`` found: the average strategy on ``tree``."""

    tree: Tree
    table: list
    """Per information state of ``tree.infosets``: a probability per move, in the game's order."""
    iterations: int
    variant: str

    @property
    def strategy(self) -> dict[tuple[int, Hashable], list[tuple[str, float]]]:
        """``(seat, information key)`` -> ``[(move text, probability), ...]``: keyed by seat too,
        since two seats acting at once may share an information key."""
        return {(s.seat, s.key): list(zip(s.texts, p)) for s, p in zip(self.tree.infosets, self.table)}

    def exploitability(self) -> strategy.Exploitability:
        return strategy.exploitability(self.tree, self.table)

    def save(self, path, result: strategy.Exploitability | None = None) -> None:
        """Write the strategy file (``arena.strategy``'s format), with its exploitability."""
        result = result or self.exploitability()
        texts = strategy.strategy_texts(self.tree, self.table)
        strategy.save(path, self.tree.game, texts, f"{self.variant} {self.iterations} iterations", result, self.iterations)


class _Arrays:
    """The tree as numpy arrays, its levels from the root down."""

    def __init__(self, tree: Tree):
        n = len(tree)
        kind = np.array(tree.kind, dtype=np.int64)
        parent = np.full(n, -1, dtype=np.int64)
        slot = np.full(n, -1, dtype=np.int64)  # the child's move at its parent: an index into all moves
        chance = np.ones(n)  # the probability of the outcome leading to it, where its parent is chance
        offsets, start = [], 0
        for s in tree.infosets:
            offsets.append(start)
            start += len(s.moves)
        self.size, self.infosets = start, len(tree.infosets)
        self.owner = np.repeat(np.arange(len(tree.infosets)), [len(s.moves) for s in tree.infosets])
        self.width = np.array([len(s.moves) for s in tree.infosets], dtype=np.float64)[self.owner]
        for p, kids in enumerate(tree.children):
            if not kids:
                continue
            parent[list(kids)] = p
            if tree.kind[p] == CHANCE:
                chance[list(kids)] = tree.probs[p]
            else:
                base = offsets[tree.info[p]]
                slot[list(kids)] = range(base, base + len(kids))
        depth = np.zeros(n, dtype=np.int64)
        for c in range(1, n):  # parents come first
            depth[c] = depth[parent[c]] + 1
        order = np.argsort(depth, kind="stable")
        bounds = np.searchsorted(depth[order], np.arange(depth.max() + 2))
        self.levels = [order[bounds[d]:bounds[d + 1]] for d in range(depth.max() + 1)]
        self.parent, self.slot, self.chance, self.kind = parent, slot, chance, kind
        pkind = np.where(parent >= 0, kind[np.maximum(parent, 0)], TERMINAL)  # who moved into each node
        self.row = np.where(pkind == CHANCE, 2, np.maximum(pkind, 0))  # its row in ``reaches``
        self.utilities = np.zeros((2, n))
        for i, u in enumerate(tree.utilities):
            if u is not None:
                self.utilities[:, i] = u
        self.by_seat = [np.nonzero(pkind == s)[0] for s in (0, 1)]  # nodes entered by a seat's move

    def normalised(self, weights: np.ndarray) -> np.ndarray:
        """``weights`` (one per move) divided by their sum at each information state; uniform where it is 0."""
        sums = np.bincount(self.owner, weights=weights, minlength=self.infosets)[self.owner]
        return np.where(sums > 0, weights / np.where(sums > 0, sums, 1.0), 1.0 / self.width)

    def steps(self, sigma: np.ndarray) -> np.ndarray:
        """Per node the probability of the move or outcome leading to it, the seats playing ``sigma``."""
        return np.where(self.slot >= 0, sigma[np.maximum(self.slot, 0)], self.chance)

    def reaches(self, step: np.ndarray) -> np.ndarray:
        """Per node the probability each of seat 0, seat 1 and chance plays towards it (rows 0, 1, 2)."""
        reach = np.ones((3, len(self.kind)))
        for level in self.levels[1:]:
            reach[:, level] = reach[:, self.parent[level]]
            reach[self.row[level], level] *= step[level]
        return reach

    def values(self, step: np.ndarray, seat: int) -> np.ndarray:
        """Per node ``seat``'s expected utility below it, the seats playing as ``step`` says."""
        value = self.utilities[seat].copy()
        for level in reversed(self.levels[1:]):
            np.add.at(value, self.parent[level], step[level] * value[level])
        return value


def solve(game: Game, iterations: int, variant: str = "cfr+", tree: Tree | None = None, progress=None,
          stop=None) -> Solution:
    """``iterations`` of CFR+ or vanilla CFR on ``game`` (two seats, a constant sum; see
    ``arena.strategy.check_game``): the average strategy. ``progress(t, table)``, if given, is
    called after each iteration (to watch the exploitability fall); ``stop()``, if given, ends
    the run early when true after an iteration."""
    if variant not in VARIANTS:
        raise ParameterError(f"unknown CFR variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
    if not (isinstance(iterations, int) and iterations >= 1):
        raise ParameterError(f"bad CFR iterations {iterations!r}; expected a whole number of at least 1")
    strategy.check_game(game)
    tree = tree or strategy.build_tree(game)
    a = _Arrays(tree)
    regrets = np.zeros(a.size)
    total = np.zeros(a.size)
    plus = variant == "cfr+"
    for t in range(1, iterations + 1):
        for seat in (0, 1):  # alternating updates: seat 1 meets seat 0's updated strategy
            step = a.steps(a.normalised(np.maximum(regrets, 0.0)))  # regret matching
            reach = a.reaches(step)
            value = a.values(step, seat)
            kids = a.by_seat[seat]
            parents = a.parent[kids]
            others = reach[1 - seat, parents] * reach[2, parents]  # counterfactual: all but the seat's own
            regrets += np.bincount(a.slot[kids], weights=others * (value[kids] - value[parents]), minlength=a.size)
            total += (t if plus else 1.0) * np.bincount(a.slot[kids], weights=reach[seat, kids], minlength=a.size)
            if plus:
                np.maximum(regrets, 0.0, out=regrets)
        if progress is not None:
            progress(t, _table(tree, a, total))
        if stop is not None and stop():
            break
    return Solution(tree, _table(tree, a, total), t, variant)


def _table(tree: Tree, a: _Arrays, total: np.ndarray) -> list:
    average = a.normalised(total)
    out, start = [], 0
    for s in tree.infosets:
        out.append(tuple(float(p) for p in average[start:start + len(s.moves)]))
        start += len(s.moves)
    return out
