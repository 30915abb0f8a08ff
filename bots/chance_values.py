"""Exact values of a two-player, zero-sum game with chance, by value iteration over its reachable states.

Expectimax is exact for a game whose positions never repeat; where they do (Pig: both players
rolling a 1 in turn returns to the same state), the values are the fixed point of the
expectimax equations, which value iteration reaches: every sweep sets each decision state to
the best of its children for the player to move and each chance state to the expectation of
its outcomes, until no value moves by more than ``tolerance``. The states are enumerated once
(``Game.apply`` from the start) and the sweeps run over index arrays with numpy, so Pig to 100
(about 2.1 million states) solves in about a minute (bench/chance_solve.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.errors import ParameterError
from arena.game import CHANCE, Game


@dataclass(frozen=True)
class Values:
    """The solved game: each reachable state's value for seat 0, and the best move of each decision state."""

    index: dict
    """State -> its row in ``value``."""
    value: np.ndarray
    """Expected utility for seat 0 under optimal play by both seats."""
    best: dict
    """Decision state -> a move of the highest value for the seat to move (the first such in ``legal_moves``)."""
    sweeps: int
    """Sweeps the iteration took."""

    def of(self, state) -> float:
        """The value of ``state`` for seat 0."""
        return float(self.value[self.index[state]])


def solve(game: Game, start=None, *, tolerance: float = 1e-12, max_states: int = 10_000_000,
          max_sweeps: int = 1_000_000) -> Values:
    """The exact values of every state reachable from ``start`` (default the initial state)."""
    model = game.model
    if model.players != 2 or model.total != 0.0:
        raise ParameterError(f"{game.name}: value iteration solves two-player zero-sum games")
    start = game.initial_state() if start is None else start
    index = {start: 0}
    order = [start]
    terminal_rows, terminal_values = [], []
    decision_rows, decision_sign, decision_starts, decision_children, decision_moves = [], [], [], [], []
    chance_rows, chance_starts, chance_children, chance_weights = [], [], [], []

    def row(state) -> int:
        k = index.get(state)
        if k is None:
            if len(order) >= max_states:
                raise ParameterError(f"{game.name}: more than {max_states:,} reachable states")
            k = index[state] = len(order)
            order.append(state)
        return k

    k = 0
    while k < len(order):  # breadth first; ``order`` grows as states are found
        state = order[k]
        if game.is_terminal(state):
            terminal_rows.append(k)
            terminal_values.append(game.utility(state, 0))
        elif model.chance and game.to_move(state) == CHANCE:
            chance_rows.append(k)
            chance_starts.append(len(chance_children))
            for outcome, probability in game.chance_outcomes(state):
                chance_children.append(row(game.apply(state, outcome)))
                chance_weights.append(float(probability))
        else:
            decision_rows.append(k)
            decision_sign.append(1.0 if game.to_move(state) == 0 else -1.0)
            decision_starts.append(len(decision_children))
            for move in game.legal_moves(state):
                decision_children.append(row(game.apply(state, move)))
                decision_moves.append(move)
        k += 1

    value = np.zeros(len(order))
    value[terminal_rows] = terminal_values
    d_rows, d_sign = np.array(decision_rows, int), np.array(decision_sign)
    d_starts, d_children = np.array(decision_starts, int), np.array(decision_children, int)
    edge_sign = np.repeat(d_sign, np.diff(np.append(d_starts, len(d_children))))
    c_rows, c_starts = np.array(chance_rows, int), np.array(chance_starts, int)
    c_children, c_weights = np.array(chance_children, int), np.array(chance_weights)
    sweeps = 0
    while True:
        sweeps += 1
        new = value.copy()
        if len(d_rows):  # the mover's best: a max of signed values, signed back
            new[d_rows] = d_sign * np.maximum.reduceat(edge_sign * value[d_children], d_starts)
        if len(c_rows):
            new[c_rows] = np.add.reduceat(c_weights * value[c_children], c_starts)
        change = np.abs(new - value).max(initial=0.0)
        value = new
        if change <= tolerance:
            break
        if sweeps >= max_sweeps:
            raise ParameterError(f"{game.name}: values still moving by {change:.3g} after {sweeps:,} sweeps")
    best = {}
    signed = edge_sign * value[d_children]
    ends = np.append(d_starts[1:], len(d_children))
    for state_row, first, last in zip(d_rows, d_starts, ends):
        best[order[state_row]] = decision_moves[first + int(np.argmax(signed[first:last]))]
    return Values(index, value, best, sweeps)
