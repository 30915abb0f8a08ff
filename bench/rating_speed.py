"""How long does the Elo fit of a large ladder take, against the fit of an earlier version?

Builds the games of a ladder of ``--field`` bots (each plays ``--pairs`` colour-swapped pairs
against bots near it in strength, draws 30% of the time) and times, side by side in one run,
the earlier version's fit (``results/report.py`` at ``--base``, read with ``git show``) and
this version's: ``strengths`` (the point estimate a ladder refits every batch) and
``ratings`` (the report's table, with its dispersion from the pairs). Prints the median of
``--runs`` runs of each (the cases taking turns) and their ratios to the earlier fit.

    PYTHONPATH=. python bench/rating_speed.py [--field 1000] [--pairs 20] [--runs 5] [--base f9959b5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
import types

import numpy as np
import pandas as pd

from results.ratings import ratings, strengths


def earlier(base: str) -> types.ModuleType:
    """``results/report.py`` as it was at ``base``."""
    source = subprocess.run(["git", "show", f"{base}:results/report.py"], capture_output=True, text=True, check=True)
    module = types.ModuleType("earlier_report")
    exec(compile(source.stdout, f"{base}:results/report.py", "exec"), module.__dict__)
    return module


def ladder_games(field: int, pairs: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    strength = np.sort(rng.normal(0, 200, field))
    rows = []
    for a in range(field):
        for _ in range(pairs // 2):
            b = int(np.clip(a + rng.integers(-10, 11), 0, field - 1))
            if b == a:
                continue
            opening = f"o{len(rows)}"
            for first, second in ((a, b), (b, a)):
                e = 1 / (1 + 10 ** (-(strength[first] - strength[second]) / 400))
                draw = min(0.3, 2 * e, 2 * (1 - e))
                u = rng.random()
                score = 1.0 if u < e - draw / 2 else 0.5 if u < e + draw / 2 else 0.0
                rows.append((len(rows), min(a, b) * field + max(a, b), f"b{first:04d}", f"b{second:04d}", opening, score))
    return pd.DataFrame(rows, columns=["game_id", "pairing", "first", "second", "opening", "score_first"])


def medians(cases: dict, runs: int) -> dict[str, float]:
    """Median seconds of each case, the cases taking turns in every run (the machine is shared:
    a slow minute then slows all of them alike)."""
    times = {name: [] for name in cases}
    for _ in range(runs):
        for name, function in cases.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--field", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", default="f9959b5")
    args = parser.parse_args()
    old = earlier(args.base)
    games = ladder_games(args.field, args.pairs, seed=1)
    bots = sorted(set(games["first"]) | set(games["second"]))
    index = {b: k for k, b in enumerate(bots)}
    i, j = games["first"].map(index).to_numpy(), games["second"].map(index).to_numpy()
    x = games["score_first"].to_numpy()
    cases = {
        f"{args.base} ratings(n, s) (ladder batch)": lambda: old.ratings(*old.tallies(i, j, x, len(bots))),
        "strengths (ladder batch)": lambda: strengths(i, j, x, len(bots)),
        f"{args.base} elo(games) (report)": lambda: old.elo(games),
        "ratings(games) (report)": lambda: ratings(games),
    }
    print(f"{len(bots)} bots, {len(games):,} games; median of {args.runs} runs each")
    seconds = medians(cases, args.runs)
    names = list(seconds)
    for k, name in enumerate(names):
        base = seconds[names[k - k % 2]]
        print(f"{name:40} {seconds[name]:8.3f} s  {seconds[name] / base:5.2f}x the earlier fit")
    print(f"\nrerun: PYTHONPATH=. python bench/rating_speed.py --field {args.field} --pairs {args.pairs} "
          f"--runs {args.runs} --base {args.base}")


if __name__ == "__main__":
    main()
