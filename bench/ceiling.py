"""How close honest bots come to the CPU ceiling of a node budget, and what a forger gets under it.

Each built-in search plays isolated (its own host process, its CPU time read from its tree's
cgroup, or each process's clock without one) against ``random`` under node budgets. For each
game, bot and budget the script prints the median and the largest share of the ceiling
(``arena.execution.ceiling``) a game came to: at each move, the CPU its moves used so far over
what they allowed so far plus the game's slack. Target: every share below 1 (no honest game is
cut); the margin left is what a busier or slower machine may take. It also prints the largest
share of a single move's own allowance (no slack) any move used, and what a forged count buys:
the nodes ``lift-count``'s search (iterative deepening, tests/plugins/lifters.py) could make
within the ceiling over a game of 30 moves, as a multiple of the budget.

    python bench/ceiling.py [--games connect4,othello,tictactoe] [--budgets 100,1000,10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from arena import Budget, get_registry, play_game  # noqa: E402
from arena.execution import ceiling, cgroup  # noqa: E402
from arena.execution.isolation import HostPool, RemoteBot  # noqa: E402
from arena.limits import Limits  # noqa: E402

BOTS = ("greedy", "minimax", "alphabeta", "iterative", "solver", "mcts")


def shares(game, spec: str, nodes: int, pool: HostPool, seeds: int) -> tuple[list[float], float]:
    """Per game against random, the peak share of its ceiling; and the largest share of one
    move's own allowance any move used."""
    allowance = ceiling.allowance(nodes, ceiling.per_node(game))
    peaks, single = [], 0.0
    for seed in range(seeds):
        bots = [RemoteBot(spec, (), Limits(), pool), RemoteBot("random", (), Limits(), pool)]
        if seed % 2:
            bots.reverse()
        record = play_game(game, bots, budgets=[Budget(nodes=nodes)] * 2, seed=seed)
        if record.termination.value != "normal":
            print(f"  {spec} at nodes={nodes}: {record.message}")
        cpu = [m.cpu for m in record.moves if m.player == seed % 2 and m.cpu is not None]
        used, peak = 0.0, 0.0
        for k, c in enumerate(cpu, 1):
            used += c
            peak = max(peak, used / (ceiling.SLACK + k * allowance))
            single = max(single, c / allowance)
        peaks.append(peak)
        for bot in bots:
            bot.release()
    return peaks, single


def forged_factor(game, nodes: int, moves: int = 30) -> float:
    """Nodes the forger's own search may make within the ceiling of a game of ``moves`` moves,
    as a multiple of its budget: the ceiling over its search's CPU per node, measured here."""
    bot = get_registry(entry_points=False).bot("iterative")
    per_node = ceiling.search_cost(bot, game, game.initial_state(), Budget(nodes=20 * nodes))
    if per_node is None:
        return float("nan")  # its search fails in this game
    allowed = ceiling.SLACK + moves * ceiling.allowance(nodes, ceiling.per_node(game))
    return allowed / per_node / (moves * nodes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="connect4,othello,tictactoe")
    parser.add_argument("--budgets", default="100,1000,10000")
    parser.add_argument("--runs", type=int, default=3, help="games per bot and budget (colours alternate)")
    args = parser.parse_args()
    why = cgroup.available()
    if why:
        print(f"no cgroups here ({why}): CPU time read from each process's clock")
    registry = get_registry(entry_points=False)
    budgets = [int(b) for b in args.budgets.split(",")]
    pool = HostPool()
    worst = worst_move = 0.0
    try:
        for name in args.games.split(","):
            game = registry.game(name)
            probes = [ceiling.probe(game) for _ in range(5)]
            cost = ceiling.per_node(game)
            print(f"{name}: probe {cost * 1e6:.1f} µs a node (5 more probes: "
                  f"{', '.join(f'{p * 1e6:.1f}' for p in probes)})")
            print(f"  {'bot':10} " + " ".join(f"{f'nodes={n}':>22}" for n in budgets) + "   (median / largest peak share of a game's ceiling)")
            for spec in BOTS:
                cells = []
                for nodes in budgets:
                    peaks, single = shares(game, spec, nodes, pool, args.runs)
                    worst, worst_move = max(worst, max(peaks)), max(worst_move, single)
                    cells.append(f"{statistics.median(peaks):9.3f} / {max(peaks):9.3f}")
                print(f"  {spec:10} " + " ".join(f"{c:>22}" for c in cells))
            print("  lift-count: nodes it may search within the ceiling of 30 moves, as a multiple of its budget: "
                  + ", ".join(f"nodes={n}: {forged_factor(game, n):.1f}x" for n in budgets))
    finally:
        pool.close()
    print(f"largest share of its ceiling any honest game came to: {worst:.3f} (target: below 1)")
    print(f"largest share of its own allowance (no slack) any honest move used: {worst_move:.3f}")
    print(f"rerun: python bench/ceiling.py --games {args.games} --budgets {args.budgets} --runs {args.runs}")


if __name__ == "__main__":
    main()
