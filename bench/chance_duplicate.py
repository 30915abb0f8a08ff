"""What duplicate chance buys: the spread of a pair's score with seat-bound streams shared by
the pair's two games (the arena's default) against streams of each game's own.

Pig to 100, "hold at 20" against "hold at 25" (each rolls until its turn holds that many
points, or until it can win by holding), every pair one game with each bot first. The score
of a pair is hold-at-20's points in its two games (0, 1 or 2). With duplicate streams each
seat's dice fall the same in both games, so the luck of a seat falls to each bot once. The
figure is the ratio of the standard errors of the mean pair score, independent over
duplicate: the games an independent run needs for a duplicate run's precision grow as its
square.

    PYTHONPATH=. python bench/chance_duplicate.py [--pairs 20000] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import time

from arena import Bot, play_game
from arena.dice import Dice, game_context, pair_context, seed_key
from games.pig import HOLD, ROLL, Pig


class HoldAt(Bot):
    """Rolls until the turn holds ``at`` points, or holding wins."""

    name = "hold-at"
    handles = frozenset({"chance"})

    def __init__(self, at: int):
        super().__init__()
        self.at = at

    def choose(self, game, state, budget):
        _, own, _, turn, _ = state
        moves = game.legal_moves(state)
        if len(moves) == 1 or turn >= self.at or own + turn >= game.goal:
            return HOLD
        return ROLL


def pair_scores(pairs: int, seed: int, duplicate: bool) -> list[float]:
    """Hold-at-20's points in each pair's two games."""
    game, low, high = Pig(), HoldAt(20), HoldAt(25)
    key = seed_key(seed)
    names = ("hold20", "hold25")
    out = []
    for k in range(pairs):
        score = 0.0
        for first, second in ((low, high), (high, low)):
            order = names if first is low else names[::-1]
            context = pair_context(*names, k) if duplicate else game_context(*order, k)
            record = play_game(game, [first, second], names=order, seed=k, dice=Dice(key, context))
            points = {0: 1.0, 1: 0.0}[record.winner] if record.winner is not None else 0.5
            score += points if first is low else 1.0 - points
        out.append(score)
    return out


def spread(scores: list[float]) -> tuple[float, float]:
    """Mean and standard error of the mean."""
    n = len(scores)
    mean = sum(scores) / n
    variance = sum((s - mean) ** 2 for s in scores) / (n - 1)
    return mean, math.sqrt(variance / n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = {}
    for duplicate in (True, False):
        start = time.perf_counter()
        mean, se = spread(pair_scores(args.pairs, args.seed, duplicate))
        results[duplicate] = se
        label = "duplicate  " if duplicate else "independent"
        print(f"{label}: hold-at-20 scores {mean / 2:.4f} a game, {mean:.4f} a pair, standard error {se:.5f} a pair "
              f"({time.perf_counter() - start:.0f} s)")
    ratio = results[False] / results[True]
    print(f"standard error, independent over duplicate: {ratio:.3f} (games needed for equal precision: "
          f"{ratio ** 2:.2f} times as many; the target is at least sqrt(2.5) = {math.sqrt(2.5):.3f})")
    print(f"\nrerun: PYTHONPATH=. python bench/chance_duplicate.py --pairs {args.pairs} --seed {args.seed}")


if __name__ == "__main__":
    main()
