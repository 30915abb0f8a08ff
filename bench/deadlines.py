"""How well time budgets are kept: the iterative bot at 50 ms per move, two jobs at once.

Plays tournaments (Connect Four by default) between two copies of ``iterative`` under a time budget,
through the full arena (isolated bot processes, referee, SQLite), and reports from the
referee's own clock: the share of moves within budget + margin, the overshoot past the
budget (median and 99th percentile), and the share of the budget used. Each figure is the
median over several runs.

    python bench/deadlines.py [--game connect4] [--budget 0.05] [--games 20] [--runs 3] [--jobs 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import results
from arena import Budget
from arena.front.settings import RunSettings
from arena.front.run import run_tournament
from arena.front.tournament import Entrant, TournamentConfig


def one_run(game: str, budget: float, games: int, jobs: int, margin: float, seed: int) -> dict:
    config = TournamentConfig(
        game=game,
        bots=(Entrant("a", "iterative"), Entrant("b", "iterative")),
        budget=Budget(time=budget),
        games_per_pairing=games,
        opening_plies=4,
        seed=seed,
        time_margin=margin,
        name="deadlines",
    )
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "deadlines.db"
        run_tournament(config, RunSettings(db, jobs, progress=False))
        games_table, moves = results.load(db)
    seconds = moves.seconds
    over = seconds - budget
    used = (seconds / budget).clip(upper=1)
    # iterative stops early only when it has proven the value: a win, a loss or an exact draw
    proven = moves.score.isin([-1.0, 0.0, 1.0])
    timeouts = int((games_table.termination == "timeout").sum())  # their last move is not in moves
    return {
        "moves": len(moves) + timeouts,
        "timeouts": timeouts,
        "within": float((seconds <= budget + margin).sum() / (len(moves) + timeouts)),
        "overshoot_median_ms": float(over.median() * 1000),
        "overshoot_p99_ms": float(over.quantile(0.99) * 1000),
        "used_mean": float(used.mean()),
        "used_median": float(used.median()),
        "proven": float(proven.mean()),
        "used_unproven": float(used[~proven].mean()),
        "early_unproven": int(((used < 0.9) & ~proven).sum()),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect4", help="game spec")
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per move")
    parser.add_argument("--games", type=int, default=20, help="games per run (even)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--margin", type=float, default=0.1, help="the referee's time margin")
    args = parser.parse_args(argv)
    runs = []
    for i in range(args.runs):
        r = one_run(args.game, args.budget, args.games, args.jobs, args.margin, seed=i)
        runs.append(r)
        print(
            f"run {i + 1}: {r['moves']} moves, {r['timeouts']} timeouts, within {r['within']:.1%}, "
            f"overshoot median {r['overshoot_median_ms']:+.2f} ms p99 {r['overshoot_p99_ms']:+.2f} ms, "
            f"budget used mean {r['used_mean']:.1%} median {r['used_median']:.1%}, "
            f"unproven {r['used_unproven']:.1%}",
            file=sys.stderr,
        )
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"iterative at {args.budget * 1000:g} ms per move in {args.game}, {args.jobs} jobs, median of {args.runs} runs:")
    print(f"  moves per run            {med['moves']:.0f} (total {sum(r['moves'] for r in runs)})")
    print(f"  games lost on time       {med['timeouts']:.0f}")
    print(f"  within budget + margin   {med['within']:.2%}  (margin {args.margin * 1000:g} ms)")
    print(f"  overshoot median         {med['overshoot_median_ms']:+.2f} ms")
    print(f"  overshoot 99th pct       {med['overshoot_p99_ms']:+.2f} ms")
    print(f"  budget used, mean        {med['used_mean']:.1%}")
    print(f"  budget used, median      {med['used_median']:.1%}")
    print(f"  moves with a proven value {med['proven']:.1%} (they may stop early)")
    print(f"  budget used, mean, moves without a proven value  {med['used_unproven']:.1%}")
    print(f"  moves without a proven value that used < 90%     {med['early_unproven']:.0f}")
    print(
        f"rerun: python bench/deadlines.py --game {args.game} --budget {args.budget:g} --games {args.games} "
        f"--runs {args.runs} --jobs {args.jobs}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
