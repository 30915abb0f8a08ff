"""Large Swiss fields: does the parent keep up as the field grows?

Fields of 100, 300 and 1,000 instant bots (``random`` at ``bachet:matches=3``, a game of a
few plies) play a 10-round Swiss on this machine's worker processes, bots not isolated.
For each field: games per second, the parent's CPU seconds per game (pairing, making
tasks, storing rows; ``time.process_time`` counts this process only, not its workers), its
share of the wall time, and its peak resident memory (``resource.getrusage``).

    PYTHONPATH=. python bench/scale.py [--fields 100 300 1000] [--rounds 10] [--jobs 2]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path


def one(field: int, rounds: int, jobs: int, folder: Path) -> dict:
    from arena.budget import Budget
    from arena.front.run import run_tournament
    from arena.front.settings import RunSettings
    from arena.front.tournament import Entrant, TournamentConfig

    bots = tuple(Entrant(f"r{k:04d}", "random") for k in range(field))
    config = TournamentConfig(game="bachet:matches=3", bots=bots, budget=Budget(nodes=10), seed=1, isolate=False,
                              format="swiss", rounds=rounds)
    wall, cpu = time.perf_counter(), time.process_time()
    result = run_tournament(config, RunSettings(folder / f"scale-{field}.db", jobs, progress=False))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    games = result.played
    return {
        "field": field, "games": games, "seconds": wall, "games_per_second": games / wall,
        "parent_ms_per_game": 1000 * cpu / games, "parent_share": cpu / wall,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print("| field | games | seconds | games/s | parent ms/game | parent share | peak RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for field in args.fields:
            r = one(field, args.rounds, args.jobs, Path(folder))
            print(f"| {r['field']} | {r['games']} | {r['seconds']:.1f} | {r['games_per_second']:.0f} | "
                  f"{r['parent_ms_per_game']:.2f} | {r['parent_share']:.0%} | {r['peak_rss_mib']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
