"""Stockfish under a clock, as fishtest's short test plays it: does any game lose on time?

Plays ``--games`` Stockfish self-play games (Threads=1, Hash=16) at ``--tc`` (default 10+0.1,
fishtest's STC), ``--jobs`` at a time (default 2), from the EPD book in examples/openings,
with fishtest's adjudication (worker/games.py of official-stockfish/fishtest:
``-resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20``), through
``arena run``. Prints the games lost on time (the target: none), how the games ended, and
the clock: the least left after any move, and per move the time used against the clock's
share, the 1st and 50th percentiles of the clock left.

    python bench/clock.py [--games 200] [--tc 10+0.1] [--jobs 2] [--engine /usr/games/stockfish] [--db FILE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import results  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--engine", default=shutil.which("stockfish") or "/usr/games/stockfish")
    parser.add_argument("--db", help="results database (default: a temporary one)")
    args = parser.parse_args()
    if not os.path.exists(args.engine):
        print(f"no Stockfish at {args.engine!r}: apt-get install stockfish, or give --engine PATH", file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix="clock-bench-")
    db = args.db or os.path.join(folder, "clock.db")
    engine = f"uci:cmd={args.engine},Threads=1,Hash=16"
    argv = [sys.executable, "-m", "arena", "run", "--game", "chess", "--bot", f"a={engine}", "--bot", f"b={engine}",
            "--tc", args.tc, "--games", str(args.games), "--jobs", str(args.jobs), "--openings",
            str(ROOT / "examples" / "openings" / "chess.epd"), "--shuffle",
            "--resign", "movecount=3 score=600", "--draw", "movenumber=34 movecount=8 score=20",
            "--db", db, "--no-progress"]
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    tables = results.load(db)
    games, moves = tables.games, tables.moves
    played = moves[moves.player >= 0]
    print(f"{len(games)} games at tc={args.tc}, {args.jobs} at a time, {wall:.0f} s (load average {load:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores)")
    print(f"lost on time: {(games.termination == 'clock').sum()}")
    print("terminations: " + ", ".join(f"{k} {v}" for k, v in games.termination.value_counts().items()))
    print(f"plies a game: median {games.plies.median():.0f}; moves timed: {len(played)}")
    print(f"clock left after a move: least {played.clock.min():.3f} s, 1st percentile {played.clock.quantile(0.01):.3f} s, "
          f"median {played.clock.median():.3f} s")
    print(f"time a move: median {played.seconds.median():.3f} s, most {played.seconds.max():.3f} s")
    print(f"rerun: python bench/clock.py --games {args.games} --tc {args.tc} --jobs {args.jobs}")
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
