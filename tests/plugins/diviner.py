"""Test plugin: a bot that tries to foresee the referee's dice (see tests/test_dice.py).

At every roll of Pig it forecasts the face as the second move of its principal variation
("roll", FACE), which the game record keeps, so a test can count how often it was right.
It forecasts from whatever it can reach:

- the referee's ``Dice`` itself, found by climbing its caller's frames and walking the
  garbage collector (only a bot in the referee's own process can reach it);
- else the game's seed, recovered by inverting SplitMix64's finalizer of its own seed (the
  invertible bot seeds the arena gives in games without chance), with the dice a game
  played alone with that seed would use.
"""

from __future__ import annotations

import gc
import sys

from arena import Bot, Decision, hookimpl, param
from arena.dice import Dice, seed_key

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


class Diviner(Bot):
    name = "diviner"
    description = "rolls at Pig and forecasts every roll"
    handles = frozenset({"chance"})

    reach: bool = param(True, "look for the referee's dice in this process")

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self.player, self.rolls = player, 0
        self.dice = _reach_dice() if self.reach else None
        self.guessed = None if self.dice is not None else Dice(seed_key(_game_seed(seed, player)))

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        if "roll" not in moves:
            return moves[0]
        outcomes = game.chance_outcomes(game.apply(state, "roll"))
        dice = self.dice or self.guessed
        guess = dice.pick(outcomes, self.player, self.rolls)
        self.rolls += 1
        return Decision("roll", pv=("roll", guess))


def _reach_dice():
    """The referee's Dice, from the frames above this call or anywhere the collector sees."""
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, Dice):
                return value
        frame = frame.f_back
    for value in gc.get_objects():
        if isinstance(value, Dice):
            return value
    return None


def _game_seed(seed: int, player: int) -> int:
    """The game seed that SplitMix64's finalizer, offset by the player, turns into ``seed``
    (``arena.referee.bot_seed``): of the two the dropped low bit allows, the one of 63 bits."""
    first = _inverted(seed << 1, player)
    return first if first < 1 << 63 else _inverted(seed << 1 | 1, player)


def _inverted(z: int, player: int) -> int:
    z = _unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & _MASK
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & _MASK
    z = _unshift(z, 30)
    return (z - (player + 1) * _GOLDEN) & _MASK


def _unshift(y: int, shift: int) -> int:
    """The x with x ^ (x >> shift) == y."""
    x = y
    for _ in range(64 // shift + 1):
        x = y ^ (x >> shift)
    return x & _MASK


@hookimpl
def register_bots(register):
    register(Diviner)
