"""What hidden information costs: the referee's views, a fresh bot process per game, and exploitability.

Measured side by side in each run, uniform against uniform:

  referee   play_game in process (trusted), µs per game and per ply: kuhn_poker (views made
            per move) against pig (the state handed over, a game with chance of similar
            length counted per ply)
  isolated  play_game with both bots isolated (RemoteBot): kuhn_poker, where every game
            starts two fresh bot processes (a scratch folder each, no capabilities), against
            pig, whose processes are kept from game to game; games per second and the
            seconds a fresh process adds to a game
  exploit   arena.strategy's exact exploitability of the uniform policy in Leduc poker (936
            information states), and CFR+ for 1,000 iterations there (bots.cfr.solve)

Medians over runs; ratios from figures of the same run.

    python bench/hidden.py [--games 3000] [--isolated-games 40] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena import get_registry, play_game
from arena.execution.isolation import RemoteBot, host_pool


def per_game(registry, game_name: str, games: int, isolated: bool) -> tuple[float, float]:
    """Seconds per game and per ply of ``games`` uniform-against-uniform games."""
    game = registry.game(game_name)
    plies = 0
    start = time.perf_counter()
    for seed in range(games):
        if isolated:
            bots = [RemoteBot("uniform"), RemoteBot("uniform")]
        else:
            bots = [registry.bot("uniform"), registry.bot("uniform")]
        try:
            record = play_game(game, bots, seed=seed, trusted=True)
        finally:
            for bot in bots:
                getattr(bot, "release", lambda: None)()
        plies += len(record.moves)
    seconds = time.perf_counter() - start
    return seconds / games, seconds / plies


def exploit_times() -> tuple[float, float, float]:
    """Seconds for the exact exploitability of uniform in Leduc (the tree built too), the value,
    and seconds for 1,000 CFR+ iterations there."""
    from arena.strategy import build_tree, exploitability, uniform_table
    from bots.cfr import solve

    leduc = get_registry(entry_points=False).game("leduc_poker")
    start = time.perf_counter()
    tree = build_tree(leduc)
    value = exploitability(tree, uniform_table(tree)).exploitability
    exact = time.perf_counter() - start
    start = time.perf_counter()
    solve(leduc, 1000, tree=tree)
    return exact, value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--isolated-games", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    registry = get_registry(entry_points=False)
    rows: dict[str, list[float]] = {}
    for _ in range(args.runs):
        kuhn, kuhn_ply = per_game(registry, "kuhn_poker", args.games, False)
        pig, pig_ply = per_game(registry, "pig:goal=20", args.games // 10, False)
        kuhn_iso, kuhn_iso_ply = per_game(registry, "kuhn_poker", args.isolated_games, True)
        pig_iso, pig_iso_ply = per_game(registry, "pig:goal=20", args.isolated_games, True)
        host_pool().close()
        for key, value in (("kuhn µs/game", kuhn * 1e6), ("kuhn µs/ply", kuhn_ply * 1e6),
                           ("pig µs/ply", pig_ply * 1e6), ("view/state ply cost", kuhn_ply / pig_ply),
                           ("isolated kuhn games/s", 1 / kuhn_iso), ("isolated pig games/s", 1 / pig_iso),
                           # a kuhn game's plies at pig's cost a ply with kept processes: the rest is the fresh start
                           ("fresh processes s/game", kuhn_iso - kuhn_iso / kuhn_iso_ply * pig_iso_ply)):
            rows.setdefault(key, []).append(value)
    for key, values in rows.items():
        print(f"{key:28} {statistics.median(values):12.3f}   runs: {', '.join(f'{v:.3f}' for v in values)}")
    exact, value, cfr = exploit_times()
    print(f"{'leduc exact exploitability':28} {exact:12.3f} s (uniform: {value:.6f})")
    print(f"{'leduc CFR+ 1,000 iterations':28} {cfr:12.3f} s")
    print(f"\nrerun: python bench/hidden.py --games {args.games} --isolated-games {args.isolated_games} --runs {args.runs}")


if __name__ == "__main__":
    main()
