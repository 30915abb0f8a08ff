"""A standing ladder of many instant bots: what does the parent spend per game?

A ladder of ``--field`` instant bots (``random`` at ``bachet:matches=3``, a game of a few
plies, bots not isolated) is created with half of them and joined by the other half after
``--games`` / 2 games, then plays ``--games`` in all on this machine's worker processes. The
parent's CPU seconds per game (``time.process_time``: this process only, not its workers)
covers drawing each batch (one joint Elo fit over all the ladder's games, placement and
pairing), making tasks and storing rows; the batch draws are also timed on their own.

    PYTHONPATH=. python bench/ladder.py [--field 100] [--games 4000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def one(field: int, games: int, jobs: int, folder: Path) -> dict:
    from arena.front import ladder
    from arena.front.cli import main
    from arena.formats import ladder as ladders

    db = str(folder / f"ladder-{field}.db")
    draws: list[float] = []
    draw = ladders.draw_batch

    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return draw(*args, **kwargs)
        finally:
            draws.append(time.process_time() - start)

    ladders.draw_batch = timed
    bots = [f"r{k:04d}=random" for k in range(field)]
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        common = ["--jobs", str(jobs), "--no-progress"]
        main(["ladder", db, "--game", "bachet:matches=3", "--budget", "nodes=10", "--openings", "0", "--no-isolation", 
              "--add", *bots[: field // 2], "--games", str(games // 2), *common])
        main(["ladder", db, "--add", *bots[field // 2:], "--games", str(games - games // 2), *common])
    finally:
        ladders.draw_batch = draw
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    played = ladder.ladder_text(db, "ladder").count("\n")  # touch the report too: it must load
    return {"field": field, "games": games, "batches": len(draws), "seconds": wall, "games_per_second": games / wall,
            "parent_ms_per_game": 1000 * cpu / games, "draw_ms_per_batch": 1000 * sum(draws) / len(draws),
            "draw_ms_last": 1000 * draws[-1], "draw_share": sum(draws) / cpu, "report_lines": played}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--field", type=int, default=100)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        r = one(args.field, args.games, args.jobs, Path(folder))
    print("| field | games | batches | seconds | games/s | parent ms/game | draw ms/batch (mean, last) | draws' share |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {r['field']} | {r['games']} | {r['batches']} | {r['seconds']:.1f} | {r['games_per_second']:.0f} | "
          f"{r['parent_ms_per_game']:.2f} | {r['draw_ms_per_batch']:.0f}, {r['draw_ms_last']:.0f} | {r['draw_share']:.0%} |")


if __name__ == "__main__":
    main()
