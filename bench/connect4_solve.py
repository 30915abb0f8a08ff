"""Solve Pascal Pons's Connect Four test positions with the solver bot and check every answer.

Each line of a set is a move sequence and the exact score of the position for the side
to move (format and score definition in the data's README). The solver plays
``connect4:scoring=moves``, whose utility is that score; ``--weak`` asks for the sign
only. The transposition table is cleared between positions, as in the tutorial. Prints
mean nodes and time per position and nodes per second; exits 1 if any answer is wrong.

    python bench/connect4_solve.py Test_L3_R1 [--limit N] [--weak] [--data DIR]

The data lives in ../shared/data/connect4 beside the repository, or $ARENA_CONNECT4_DATA.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from arena import Budget, Counter, get_registry
from arena.referee import ask
from bots.solver import SolverBot

REPO_ROOT = Path(__file__).resolve().parent.parent
#: Mean nodes per position of the tutorial's final C++ solver (strong, weak); README of the data.
PUBLISHED = {"Test_L3_R1": (51.28, 29.36), "Test_L2_R1": (449.6, 532.7), "Test_L1_R1": (3298, 22230)}


def data_dir(given: str | None) -> Path:
    path = Path(given or os.environ.get("ARENA_CONNECT4_DATA") or REPO_ROOT.parent / "shared" / "data" / "connect4")
    if not path.is_dir():
        sys.exit(f"connect4_solve: no data folder {str(path)!r}; pass --data or set ARENA_CONNECT4_DATA")
    return path


def read_set(path: Path, limit: int | None) -> list[tuple[str, int]]:
    rows = []
    for line in path.read_text().splitlines():
        moves, score = line.split()
        rows.append((moves, int(score)))
    return rows[:limit] if limit else rows


def solve(game, moves: str, weak: bool, budget: Budget) -> tuple[float | None, int, float]:
    """The solver's score of one position, with its node count and seconds."""
    state = game.play(moves)
    bot = SolverBot(weak=weak)  # a fresh bot: an empty table
    counter = Counter(budget)
    start = time.perf_counter()
    decision, _ = ask(bot, game, state, counter)  # as the arena asks: the game counts
    return decision.score, counter.nodes, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", nargs="+", help="Test_L3_R1, Test_L2_R1 or Test_L1_R1")
    parser.add_argument("--limit", type=int, help="only the first N positions of each set")
    parser.add_argument("--weak", action="store_true", help="the sign only (win, draw, loss)")
    parser.add_argument("--data", help="folder holding the sets")
    args = parser.parse_args(argv)
    game = get_registry(entry_points=False).game("connect4:scoring=moves")
    folder = data_dir(args.data)
    wrong = 0
    for name in args.set:
        rows = read_set(folder / name, args.limit)
        nodes, seconds = [], []
        for i, (moves, expected) in enumerate(rows):
            score, n, t = solve(game, moves, args.weak, Budget())
            nodes.append(n)
            seconds.append(t)
            got = score if not args.weak else (score > 0) - (score < 0)
            want = expected if not args.weak else (expected > 0) - (expected < 0)
            if got != want:
                wrong += 1
                print(f"WRONG {name} line {i + 1}: {moves} expected {want}, solver says {got}", file=sys.stderr)
        mode = "weak" if args.weak else "strong"
        published = PUBLISHED.get(name, (None, None))[1 if args.weak else 0]
        print(
            f"{name} ({mode}, {len(rows)} positions): mean nodes {statistics.mean(nodes):,.1f} "
            f"(median {statistics.median(nodes):,.0f}; tutorial's C++ solver {published}), "
            f"mean time {statistics.mean(seconds) * 1000:,.1f} ms, {sum(nodes) / sum(seconds):,.0f} nodes/s"
        )
    print(f"{'all answers correct' if not wrong else f'{wrong} WRONG answers'}")
    limit = f" --limit {args.limit}" if args.limit else ""
    print(f"rerun: python bench/connect4_solve.py {' '.join(args.set)}{limit}{' --weak' if args.weak else ''}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
