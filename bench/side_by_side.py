"""bench/search.py on two source trees in alternation: seconds per cell, medians, and the ratio.

For a change that must cost nothing (e.g. the search recorder when it is off): extract the
commit before it into a directory, then

    git archive REV | tar -x -C /tmp/before
    python bench/side_by_side.py --before /tmp/before --rounds 4 -- --sections grid,solve --depths 5-8 --runs 3

Each round runs this tree's ``bench/search.py`` once per source tree, the order swapped
every round (ABBA), each with its source tree on ``PYTHONPATH`` (the same benchmark code
measures both). Per cell (position, search, depth; or a
solved position), the medians over the rounds of the cell's seconds (bench/search.py
already shows a median of its ``--runs``) and the ratio after / before; the nodes must be
equal, or the cell is flagged. Cells under ``--min-seconds`` before are listed but left
out of the summary: the 3 decimals printed are too coarse there.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

_HEADER = re.compile(r"^(\S.*?) \[.*\]; median of \d+ runs$")
_DEPTHS = re.compile(r"d=(\d+)")
_SOLVE = re.compile(r"^  (.+?)\s+(\S+)\s+([\d,—]+)\s+([\d.—]+)\s+\S+\s+\S+\s+([\d,—]+)\s+([\d.—]+)\s+\S+$")


def cells(text: str) -> dict:
    """``{(position, search, what): (nodes, seconds)}`` from bench/search.py's grid and solve output."""
    found, position, depths, search, nodes = {}, None, [], None, None
    solving = False
    for line in text.splitlines():
        m = _HEADER.match(line)
        if m:
            position, solving = m.group(1), False
            continue
        if line.startswith("solver, exact values"):
            solving, position = True, "solve"
            continue
        if solving:
            m = _SOLVE.match(line)
            if m and m.group(3) != "nodes":
                label, strong, strong_s, weak, weak_s = m.group(1), m.group(3), m.group(4), m.group(5), m.group(6)
                found[("solve", "solver", label)] = (strong, _number(strong_s))
                found[("solve", "solver:weak=true", label)] = (weak, _number(weak_s))
            if not line.strip():
                solving = False
            continue
        if position is None:
            continue
        if _DEPTHS.search(line) and "nodes" not in line:
            depths = _DEPTHS.findall(line)
            continue
        fields = line[2:29].strip(), line[30:35].strip(), line[35:].split()
        if fields[1] == "nodes":
            search, nodes = fields[0], fields[2]
        elif fields[1] == "s" and search is not None:
            for depth, count, seconds in zip(depths, nodes, fields[2]):
                found[(position, search, f"d={depth}")] = (count, _number(seconds))
    return found


def _number(text: str) -> float | None:
    return None if text == "—" else float(text)


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def run(tree: Path, argv: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script = Path(__file__).resolve().parent / "search.py"
    done = subprocess.run([sys.executable, str(script), *argv], env=env, cwd=tree,
                          capture_output=True, text=True, check=False)
    if not done.stdout:
        sys.exit(f"bench/search.py in {tree} printed nothing: {done.stderr[-500:]}")
    return done.stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, type=Path, help="the source tree before the change")
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the source tree after it (default: this one)")
    parser.add_argument("--rounds", type=int, default=4, help="runs of bench/search.py per tree")
    parser.add_argument("--min-seconds", type=float, default=0.05, help="smallest cell (before) in the summary")
    parser.add_argument("search_args", nargs="*", help="arguments for bench/search.py (after --)")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    results: dict[str, list[dict]] = {"before": [], "after": []}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for name in order:
            results[name].append(cells(run(trees[name], args.search_args)))
            sys.stderr.write(f"round {r + 1}: {name} done\n")
    keys = [k for k in results["before"][0] if all(k in run_ for side in results.values() for run_ in side)]
    print(f"bench/search.py {' '.join(args.search_args)}; {args.rounds} rounds per tree, ABBA; medians of seconds")
    print(f"  {'position':36} {'search':26} {'cell':34} {'nodes':>10} {'before s':>9} {'after s':>9} {'ratio':>6}")
    ratios = []
    for key in keys:
        seconds = {}
        nodes = {run_[key][0] for side in results.values() for run_ in side} - {"—"}
        for side in results:
            values = [run_[key][1] for run_ in results[side] if run_[key][1] is not None]
            seconds[side] = statistics.median(values) if len(values) == args.rounds else None
        before, after = seconds["before"], seconds["after"]
        ratio = after / before if before and after else None
        counted = ratio is not None and before >= args.min_seconds
        if counted:
            ratios.append(ratio)
        flag = "  NODES DIFFER" if len(nodes) > 1 else ""
        shown = f"{ratio:6.3f}" if ratio is not None else "     —"
        print(f"  {key[0]:36} {key[1]:26} {key[2]:34} {min(nodes, default='—'):>10} "
              f"{_seconds(before):>9} {_seconds(after):>9} {shown}"
              f"{'' if counted else '  (not in summary)'}{flag}")
    if ratios:
        geo = math.exp(statistics.fmean(math.log(r) for r in ratios))
        print(f"\n{len(ratios)} cells of at least {args.min_seconds} s: ratio after / before, "
              f"median {statistics.median(ratios):.3f}, geometric mean {geo:.3f}, "
              f"range {min(ratios):.3f}-{max(ratios):.3f}")
    differ = any(len({r[k][0] for side in results.values() for r in side} - {"—"}) > 1 for k in keys)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
