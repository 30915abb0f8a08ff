"""CPU time of three Connect Four searches from the start, asked as the arena asks.

The arena counts a bot's nodes through the game it hands the bot (``arena.budget.counted``);
this measures what that costs per search in CPU time (``time.process_time``), which a busy
machine disturbs less than wall time. Compare two trees by running it under each, in
alternation (ABBA):

    PYTHONPATH=TREE_A python bench/count_cost.py
    PYTHONPATH=TREE_B python bench/count_cost.py

A tree whose bots still tick their own counter (before ``counted``) is asked directly.
"""

from __future__ import annotations

import argparse
import time

from arena import Budget, Counter, get_registry

SEARCHES = (
    "alphabeta:depth=8,ordering=false,table=false",
    "alphabeta:depth=8,ordering=false,table=true,window=infinite",
    "alphabeta:depth=8",
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per search; the minimum is reported")
    args = parser.parse_args(argv)
    try:
        from arena.referee import ask
    except ImportError:  # bots that tick for themselves
        ask = None
    registry = get_registry(entry_points=False)
    game = registry.game("connect4")
    print(f"{'search':<62} {'nodes':>9} {'cpu s':>8} {'us/node':>8}")
    for spec in SEARCHES:
        times = []
        for _ in range(args.runs):
            bot, fresh = registry.bot(spec), type(game)(**game.params)
            bot.new_game(fresh, 0, 1)
            start = time.process_time()
            if ask is not None:
                _, counter = ask(bot, fresh, fresh.initial_state(), Budget())
            else:
                counter = Counter(Budget())
                bot.choose(fresh, fresh.initial_state(), counter)
            times.append(time.process_time() - start)
        best = min(times)
        print(f"{spec:<62} {counter.nodes:>9,} {best:>8.4f} {best / counter.nodes * 1e6:>8.2f}")
    print(f"\nrerun: python bench/count_cost.py --runs {args.runs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
