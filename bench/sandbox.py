"""What ``--sandbox`` costs: the same tournaments with and without it, side by side in one run.

Two fields, each a tic-tac-toe round robin of two bots at 1 node per move (almost no
search), played through the full arena (``run_tournament``: schedule, referee, records,
SQLite) with one job:

- python: ``random`` against ``greedy``, each in its supervised Python host process;
- engine: two copies of tests/engines/random_engine.py (the arena protocol, in Python).

For each, two figures: games per second (wall clock of the whole run), and the per-move
time the referee recorded (median over every move: the round trip to the bot process
and its answer). The modes alternate within each run; medians over the runs.

    python bench/sandbox.py [--runs 3] [--games 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import results  # noqa: E402
from arena import Budget, get_registry  # noqa: E402
from arena.execution.sandbox import bubblewrap as sandbox  # noqa: E402
from arena.front.run import run_tournament  # noqa: E402
from arena.front.settings import RunSettings  # noqa: E402
from arena.front.tournament import Entrant, TournamentConfig  # noqa: E402

ENGINE = f"engine:cmd={sys.executable} {ROOT / 'tests' / 'engines' / 'random_engine.py'}"
FIELDS = {
    "python": (Entrant("random", "random"), Entrant("greedy", "greedy")),
    "engine": (Entrant("e1", ENGINE + ",Seed=1"), Entrant("e2", ENGINE + ",Seed=2")),
}


def one_run(registry, bots, games: int, sandboxed: bool) -> tuple[float, float]:
    """Games per second and the median recorded seconds per move of one tournament."""
    config = TournamentConfig(
        game="tictactoe", bots=bots, budget=Budget(nodes=1), games_per_pairing=games, seed=1, sandbox=sandboxed
    )
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        start = time.perf_counter()
        result = run_tournament(config, RunSettings(db, 1, progress=False), registry=registry)
        wall = time.perf_counter() - start
        assert result.complete and not result.failed
        tables = results.load(str(db))
    assert (tables.games.termination == "normal").all(), tables.games.message.tolist()
    return games / wall, float(tables.moves.seconds.median())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--games", type=int, default=20, help="games per field and run (even)")
    args = parser.parse_args()
    sandbox.check()
    registry = get_registry(entry_points=False)
    figures = {(field, mode): ([], []) for field in FIELDS for mode in ("plain", "sandbox")}
    for run in range(args.runs):
        for field, bots in FIELDS.items():
            modes = ("plain", "sandbox") if run % 2 == 0 else ("sandbox", "plain")
            for mode in modes:
                rate, move = one_run(registry, bots, args.games, mode == "sandbox")
                figures[field, mode][0].append(rate)
                figures[field, mode][1].append(move)
    print(f"{args.runs} runs of {args.games} tic-tac-toe games per field at nodes=1, one job; medians\n")
    print("| field | games/s plain | games/s sandboxed | ratio | µs/move plain | µs/move sandboxed | difference |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for field in FIELDS:
        (rp, mp), (rs, ms) = (figures[field, m] for m in ("plain", "sandbox"))
        rate_p, rate_s = statistics.median(rp), statistics.median(rs)
        move_p, move_s = statistics.median(mp) * 1e6, statistics.median(ms) * 1e6
        print(f"| {field} | {rate_p:.2f} | {rate_s:.2f} | {rate_s / rate_p:.2f} | {move_p:.0f} | {move_s:.0f} | {move_s - move_p:+.0f} |")


if __name__ == "__main__":
    main()
