"""Expectimax, Star1 and Star2 (bots.expectation) side by side: the leaves each evaluates on
random chance trees (Ballard's measure), and the nodes each searches in Pig positions.

Trees: max, chance, min, chance, max layers, 3-5 moves and 2-6 outcomes with random
probabilities, leaves uniform in [-1, 1] (arena.testing.chance_trees), searched with moves
in the order generated and best first. Ballard ("The *-minimax search procedure for trees
containing chance nodes", Artificial Intelligence 21(3), 1983) reports Star1 saving 25-30%
of the leaves and Star2 over 50%. Pig (to 30 points) and OpenSpiel's backgammon (if
open-spiel is installed; its heuristic is 0): positions of seeded random games, searched to
fixed depths as the bots search them, with a fresh table: the leaves each evaluates, and
the nodes, every position made, as the arena counts them.

    PYTHONPATH=. python bench/chance_search.py [--trees 1000] [--positions 40] [--depths 5 7 9] [--backgammon-depths 2 3]
"""

from __future__ import annotations

import argparse
import random
import time

from arena import Budget, Counter
from arena.budget import counted
from arena.testing.chance_trees import RandomChanceTree
from bots.expectation import EXPECTIMAX, STAR1, STAR2, ChanceSearch
from bots.table import Table
from games.pig import Pig

NAMES = {EXPECTIMAX: "expectimax", STAR1: "star1", STAR2: "star2"}


def trees(count: int, order: str) -> tuple[dict, float, float]:
    """Summed leaves by search, the largest disagreement of root values, and seconds by search."""
    leaves = dict.fromkeys(NAMES, 0)
    seconds = dict.fromkeys(NAMES, 0.0)
    worst = 0.0
    for seed in range(count):
        game = RandomChanceTree(seed=seed, order=order)
        game.exact_value(())  # every node generated before the searches are timed
        values = []
        for star in NAMES:
            search = ChanceSearch(game, star=star, table=Table(1 << 20), ordering=False)
            start = time.perf_counter()
            values.append(search.exact(()))
            seconds[star] += time.perf_counter() - start
            leaves[star] += search.leaves
        worst = max(worst, max(values) - min(values))
    return leaves, worst, seconds


def positions_of(game, count: int, seed: int = 1) -> list:
    """Decision positions of seeded random games."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(out) < count:
            if game.to_move(state) < 0:
                faces, weights = zip(*game.chance_outcomes(state))
                state = game.apply(state, rng.choices(faces, weights)[0])
                continue
            moves = game.legal_moves(state)
            if len(moves) > 1 and rng.random() < 0.3:
                out.append(state)
            state = game.apply(state, rng.choice(moves))
    return out


def compare(game, positions: list, depth: int) -> None:
    """One line: each search's leaves and nodes over ``positions`` to ``depth`` plies."""
    leaves, nodes, values = {}, {}, {}
    for star in NAMES:
        leaves[star] = nodes[star] = 0
        values[star] = []
        for state in positions:
            counter = Counter(Budget())
            search = ChanceSearch(counted(game, counter), counter, star=star, table=Table())
            values[star].append(search.root(state, depth)[1])
            leaves[star] += search.leaves
            nodes[star] += counter.nodes
    worst = max(abs(a - b) for star in (STAR1, STAR2) for a, b in zip(values[star], values[EXPECTIMAX]))
    shown = ", ".join(f"{NAMES[s]} {leaves[s]:,} leaves ({1 - leaves[s] / leaves[EXPECTIMAX]:.1%} saved), "
                      f"{nodes[s]:,} nodes ({1 - nodes[s] / nodes[EXPECTIMAX]:.1%})" for s in NAMES)
    print(f"  depth {depth}: {shown}; values differ by at most {worst:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=int, default=1000)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--depths", type=int, nargs="+", default=[5, 7, 9])
    parser.add_argument("--backgammon-depths", type=int, nargs="+", default=[2, 3])
    args = parser.parse_args()
    print(f"random chance trees: {args.trees}, max chance min chance max")
    for order in ("given", "best"):
        leaves, worst, seconds = trees(args.trees, order)
        base = leaves[EXPECTIMAX]
        shown = ", ".join(f"{NAMES[s]} {leaves[s]:,} ({1 - leaves[s] / base:.1%} saved, {seconds[s]:.1f} s)"
                          for s in NAMES)
        print(f"  moves {order:5}: {shown}; root values differ by at most {worst:.1e}")
    games = [("pig to 30", Pig(goal=30), args.depths)]
    try:
        from arena import get_registry

        games.append(("OpenSpiel's backgammon (heuristic 0)", get_registry(entry_points=False).game("openspiel.backgammon"),
                      args.backgammon_depths))
    except Exception as exc:  # open-spiel not installed
        print(f"(backgammon left out: {exc})")
    for title, game, depths in games:
        positions = positions_of(game, args.positions)
        print(f"{title}: {len(positions)} positions, leaves evaluated and nodes searched (the arena's count; "
              "a fresh table each search)")
        for depth in depths:
            compare(game, positions, depth)
    print(f"\nrerun: PYTHONPATH=. python bench/chance_search.py --trees {args.trees} --positions {args.positions} "
          f"--depths {' '.join(map(str, args.depths))} --backgammon-depths {' '.join(map(str, args.backgammon_depths))}")


if __name__ == "__main__":
    main()
