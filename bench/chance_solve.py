"""Pig solved exactly: value iteration over its reachable states (bots.chance_values).

Neller and Presser ("Optimal Play of the Dice Game Pig", UMAP Journal 25(1), 2004) give the
first player's chance of winning Pig to 100 with a six-sided die under optimal play as 0.5306.
Prints the states, sweeps, that chance and the seconds taken.

    PYTHONPATH=. python bench/chance_solve.py [--goal 100] [--die 6] [--tolerance 1e-9]
"""

from __future__ import annotations

import argparse
import time

from bots.chance_values import solve
from games.pig import Pig

PUBLISHED = {(100, 6): 0.5306}
"""The first player's chance under optimal play, Neller and Presser (2004)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=100)
    parser.add_argument("--die", type=int, default=6)
    parser.add_argument("--tolerance", type=float, default=1e-9)
    args = parser.parse_args()
    game = Pig(goal=args.goal, die=args.die)
    start = time.perf_counter()
    values = solve(game, tolerance=args.tolerance)
    seconds = time.perf_counter() - start
    chance = (values.of(game.initial_state()) + 1) / 2
    published = PUBLISHED.get((args.goal, args.die))
    print(f"pig goal {args.goal}, die {args.die}: {len(values.index):,} states, {values.sweeps:,} sweeps, "
          f"{seconds:.1f} s")
    print(f"first player wins with probability {chance:.6f}"
          + (f" (published: {published})" if published is not None else ""))
    print(f"\nrerun: PYTHONPATH=. python bench/chance_solve.py --goal {args.goal} --die {args.die} "
          f"--tolerance {args.tolerance:g}")


if __name__ == "__main__":
    main()
