"""Large Swiss fields: does the parent keep up as the field grows, locally and on Dask?

Fields of 100, 300 and 1,000 instant bots (``random`` at ``bachet:matches=3``, a game of a
few plies) play a 10-round Swiss, bots not isolated, on two executors:

- ``local``: this machine's worker processes (``--jobs``);
- ``dask``: the arena's own ``dask="local"``, a ``distributed.LocalCluster`` of ``--jobs``
  worker processes (``processes=True``, one thread each).

Each run is a fresh process (``--one``), so the peak resident memory (``ru_maxrss``) is that
run's own. The clock runs over the rounds only, from the first round's pairing to the last
round's results (start-up, the workers' boot and shutdown are shown apart as "start s"):
games per second, and the parent's CPU per game. ``time.process_time`` counts every
thread of the parent and none of its worker processes. For Dask that includes the
scheduler, which a LocalCluster runs in the parent on its event-loop thread along with the
client's communication; a separate scheduler (``--dask tcp://...``) would take that away.
So the parent's CPU is split: the main thread's (``time.thread_time``: the arena's own
pairing, making tasks, storing rows, and the client's submitting and collecting) and the
rest (Dask's scheduler and comms threads; near zero for ``local``). Share: the parent's
CPU over the rounds' wall time (100% is a whole core).

    PYTHONPATH=. python bench/scale.py [--fields 100 300 1000] [--rounds 10] [--jobs 2]
        [--executors local dask] [--runs 3]

Prints a markdown table of medians over ``--runs`` runs, with each field's main-thread
ms/game as a ratio to the smallest field's.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class Clock:
    """Wraps a format's watcher to time its rounds: wall, process and main-thread CPU."""

    def __init__(self, config):
        self.config = config
        self.marks: dict[str, tuple[float, float, float]] = {}

    def mark(self, name: str) -> None:
        self.marks[name] = (time.perf_counter(), time.process_time(), time.thread_time())

    def watch(self, stored, scheduled):
        watcher = self.config.format.watcher(self.config, stored, scheduled)
        outer, clock = type(watcher).rounds, self

        def rounds(todo, schedule):
            clock.mark("first")
            yield from outer(watcher, todo, schedule)
            clock.mark("last")

        watcher.rounds = rounds
        return watcher


def one(field: int, rounds: int, jobs: int, executor: str, folder: Path) -> dict:
    """One run: a ``field``-bot Swiss of ``rounds`` rounds on ``executor`` (local or dask)."""
    from arena.budget import Budget
    from arena.front.run import run_tournament
    from arena.front.settings import RunSettings
    from arena.front.tournament import Entrant, TournamentConfig

    bots = tuple(Entrant(f"r{k:04d}", "random") for k in range(field))
    config = TournamentConfig(game="bachet:matches=3", bots=bots, budget=Budget(nodes=10), seed=1, isolate=False,
                              format="swiss", rounds=rounds)
    settings = RunSettings(folder / f"scale-{field}.db", jobs, dask="local" if executor == "dask" else None,
                           progress=False)
    clock = Clock(config)
    clock.mark("call")
    result = run_tournament(config, settings, watch=clock.watch)
    games = result.played
    (w0, p0, t0), (w1, p1, t1) = clock.marks["first"], clock.marks["last"]
    wall, cpu, main = w1 - w0, p1 - p0, t1 - t0
    return {
        "field": field, "executor": executor, "games": games, "start_s": w0 - clock.marks["call"][0],
        "seconds": wall, "games_per_second": games / wall, "parent_ms_per_game": 1000 * cpu / games,
        "main_ms_per_game": 1000 * main / games,
        "other_ms_per_game": max(0.0, 1000 * (cpu - main) / games),  # two clocks: not -0.00 with no other threads
        "parent_share": cpu / wall, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def measure(field: int, rounds: int, jobs: int, executor: str) -> dict:
    """One run in a fresh process, so its peak memory is its own."""
    out = subprocess.run(
        [sys.executable, __file__, "--one", str(field), executor, "--rounds", str(rounds), "--jobs", str(jobs)],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out.splitlines()[-1])


def median_of(runs: list[dict]) -> dict:
    out = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, float):
            out[key] = statistics.median(r[key] for r in runs)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--executors", nargs="+", choices=("local", "dask"), default=["local", "dask"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--one", nargs=2, metavar=("FIELD", "EXECUTOR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(one(int(args.one[0]), args.rounds, args.jobs, args.one[1], Path(folder))))
        return
    print("| executor | field | games | start s | games/s | parent ms/game | main thread | ratio | other threads "
          "| parent share | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for executor in args.executors:
        base = None
        for field in args.fields:
            # runs interleaved in time would be fairer on a noisy machine; one field's runs in a row are simpler
            r = median_of([measure(field, args.rounds, args.jobs, executor) for _ in range(args.runs)])
            base = base or r["main_ms_per_game"]
            print(f"| {executor} | {field} | {r['games']} | {r['start_s']:.1f} | {r['games_per_second']:.0f} | "
                  f"{r['parent_ms_per_game']:.2f} | {r['main_ms_per_game']:.2f} | {r['main_ms_per_game'] / base:.2f} | "
                  f"{r['other_ms_per_game']:.2f} | {r['parent_share']:.0%} | {r['peak_rss_mib']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
