"""What a move's CPU time is charged, with the machine idle and busy.

A bot that burns 50 ms of CPU per move (``burn`` of tests/plugins/lifters.py, which spins on
its own process's CPU clock) plays Connect Four against ``random``, isolated (and sandboxed,
where bubblewrap runs), with 0, 1 and 3 other CPU-bound processes on the machine. The referee
charges each move the CPU time of the bot's process tree as the kernel counts it (a cgroup's
``cpuacct.usage``, or, as where no cgroup can be had, each process's CPU clock); the wall-clock time of the same moves is shown beside it, since that is
what a busy machine stretches. Target: 50 ms ± 5 ms with 1 and with 3 other processes.

    python bench/cpu.py [--moves 60] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from arena import Budget, get_registry, play_game  # noqa: E402
from arena.errors import ArenaError  # noqa: E402
from arena.execution import cgroup, sandbox  # noqa: E402
from arena.execution.isolation import HostPool, RemoteBot  # noqa: E402
from arena.limits import Limits  # noqa: E402

PLUGINS = ("tests.plugins.lifters",)
BURN_MS = 50.0


def moves(sandboxed: bool, count: int, cgroups: bool = True) -> list[tuple[float, float]]:
    """(cpu, wall) seconds of ``count`` moves of the burning bot; without ``cgroups``, its
    tree's CPU time is read from each of its processes' CPU clocks (``cgroup.Descendants``)."""
    real_tree = cgroup.tree
    if not cgroups:
        cgroup.tree = lambda memory_bytes: None
    try:
        return _moves(sandboxed, count)
    finally:
        cgroup.tree = real_tree


def _moves(sandboxed: bool, count: int) -> list[tuple[float, float]]:
    game = get_registry(entry_points=False).game("connect4")
    pool = HostPool()
    out: list[tuple[float, float]] = []
    limits = Limits(sandbox=sandboxed)
    seed = 0
    while len(out) < count:
        bots = [RemoteBot(f"burn:ms={BURN_MS:g}", PLUGINS, limits, pool), RemoteBot("random", (), limits, pool)]
        record = play_game(game, bots, budgets=[Budget()] * 2, seed=seed)
        out += [(m.cpu, m.seconds) for m in record.moves if m.player == 0]
        for bot in bots:
            bot.release()
        seed += 1
    pool.close()
    return out[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    modes = [("isolated, process clocks", False, False)]
    why = cgroup.available()
    if why:
        print(f"cgroup modes left out: {why}")
    else:
        modes.insert(0, ("isolated", False, True))
    try:
        sandbox.check()
        if not why:
            modes.append(("sandboxed", True, True))
    except ArenaError as exc:
        print(f"sandboxed left out: {exc}")
    print(f"a bot burning {BURN_MS:g} ms of CPU per move; median of {args.runs} runs of {args.moves} moves (ms)")
    print(f"  {'mode':24} {'others':>6} {'cpu median':>10} {'cpu p5-p95':>14} {'worst miss':>10} {'wall median':>11}")
    for label, sandboxed, cgroups in modes:
        for others in (0, 1, 3):
            busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(others)]
            try:
                runs = [moves(sandboxed, args.moves, cgroups) for _ in range(args.runs)]
            finally:
                for p in busy:
                    p.kill()
                    p.wait()
            cpu = sorted(c * 1000 for run in runs for c, _ in run)
            wall = [w * 1000 for run in runs for _, w in run]
            p5, p95 = cpu[len(cpu) // 20], cpu[len(cpu) * 19 // 20]
            miss = max(abs(c - BURN_MS) for c in cpu)
            print(f"  {label:24} {others:6} {statistics.median(cpu):10.2f} "
                  f"{p5:6.2f}-{p95:<7.2f} {miss:10.2f} {statistics.median(wall):11.2f}")
    print(f"rerun: python bench/cpu.py --moves {args.moves} --runs {args.runs}")


if __name__ == "__main__":
    main()
