"""What a move's round trip to an isolated bot costs, on this tree and on another, side by side.

The round trip is ``RemoteBot.choose`` as the referee calls it: the request to the bot's host
process, the bot's choice there, the answer, and reading it back into a move. The bot is
``random`` (its choice costs next to nothing, so the channel is what is measured), in
Connect Four and in chess, isolated and sandboxed (bubblewrap; left out where it cannot
start). Each measurement plays the positions of seeded random games through one host,
and reports the median microseconds per move.

To compare with another version (e.g. the commit before a change of the channel):

    git archive REV | tar -x -C /tmp/before
    python bench/channel.py --before /tmp/before [--rounds 6] [--moves 2000] [--budget nodes=2000]

Each round measures every case on both trees, the order swapped every round (ABBA); the
table shows the medians over the rounds, the difference and the ratio, and the target:
at most 5% or 20 µs more, whichever is larger. Without ``--before``, this tree alone. Moves
are played without a budget unless ``--budget`` gives one: under a node budget an isolated
bot's tree's CPU time is also read before and after each move (its CPU ceiling). With
``--no-cgroup`` a tree that has cgroups does without them (as on a machine that offers none:
no memory accounting in the kernel), to tell the channel's cost from theirs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = [("connect4", False), ("chess", False), ("connect4", True), ("chess", True)]


def measure(game_spec: str, sandboxed: bool, moves: int, budget: str = "", cgroups: bool = True) -> float:
    """Median microseconds of one move's round trip (run with the tree to measure on sys.path)."""
    import random
    import time

    from arena import Budget, Counter, get_registry
    from arena.budget import counted
    from arena.execution.isolation import HostPool, RemoteBot
    from arena.limits import Limits

    if not cgroups:
        try:
            from arena.execution import cgroup
        except ImportError:  # a tree from before cgroups
            pass
        else:
            cgroup.tree = lambda memory_bytes: None
    game = get_registry(entry_points=False).game(game_spec)
    rng, states = random.Random(1), []
    while len(states) < moves:
        state = game.initial_state()
        while not game.is_terminal(state) and len(states) < moves:
            states.append(state)
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    pool = HostPool()
    bot = RemoteBot("random", (), Limits(sandbox=sandboxed), pool)
    counter = Counter(Budget.parse(budget) if budget else Budget())
    view = counted(game, counter)
    bot.new_game(view, 0, 1)
    times = []
    clock = time.perf_counter
    for state in states:
        counter.reset()
        start = clock()
        bot.choose(view, state, counter)
        times.append(clock() - start)
    bot.release()
    pool.close()
    return statistics.median(times[10:]) * 1e6  # the first moves warm the host up


def run_tree(tree: Path, cases, moves: int, budget: str, cgroups: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(cases), "--moves", str(moves), "--budget", budget]
    argv += [] if cgroups else ["--no-cgroup"]
    done = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return {tuple(k.split("|")): v for k, v in json.loads(done.stdout).items()}


def usable(cases) -> list:
    from arena.errors import ArenaError
    from arena.execution.sandbox import bubblewrap as sandbox

    out = []
    for game, sandboxed in cases:
        if game == "chess":
            try:
                import chess  # noqa: F401
            except ImportError:
                print("chess left out: python-chess is not installed (pip install 'botarena[chess]')")
                continue
        if sandboxed:
            try:
                sandbox.check()
            except ArenaError as exc:
                print(f"sandboxed {game} left out: {exc}")
                continue
        out.append([game, sandboxed])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another source tree to measure beside this one")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--moves", type=int, default=2000, help="moves per measurement")
    parser.add_argument("--budget", default="", help="each move's budget (default: none)")
    parser.add_argument("--no-cgroup", action="store_true", help="no cgroup trees for the bots' processes")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        cases = json.loads(args.child)
        print(json.dumps({f"{g}|{'sandboxed' if s else 'isolated'}": measure(g, s, args.moves, args.budget, not args.no_cgroup) for g, s in cases}))
        return
    sys.path.insert(0, str(ROOT))
    cases = usable(CASES)
    trees = {"after": ROOT} if args.before is None else {"before": args.before.resolve(), "after": ROOT}
    seen: dict = {name: {} for name in trees}
    order = list(trees)
    for round_ in range(args.rounds):
        for name in order if round_ % 2 == 0 else order[::-1]:
            for key, value in run_tree(trees[name], cases, args.moves, args.budget, not args.no_cgroup).items():
                seen[name].setdefault(key, []).append(value)
        print(f"round {round_ + 1} of {args.rounds} done", file=sys.stderr)
    print(f"round trip of a move, random bot, µs per move: median of {args.rounds} rounds of {args.moves} moves, "
          f"budget {args.budget or 'none'}{', no cgroups' if args.no_cgroup else ''}")
    if args.before is None:
        for key, values in seen["after"].items():
            print(f"  {key[0]:9} {key[1]:10} {statistics.median(values):8.1f}")
    else:
        print(f"  {'game':9} {'mode':10} {'before':>8} {'after':>8} {'diff':>7} {'ratio':>6}  target (≤ 5% or 20 µs more)")
        for key in seen["after"]:
            before, after = statistics.median(seen["before"][key]), statistics.median(seen["after"][key])
            ok = after - before <= max(0.05 * before, 20.0)
            print(f"  {key[0]:9} {key[1]:10} {before:8.1f} {after:8.1f} {after - before:+7.1f} {after / before:6.3f}  {'met' if ok else 'MISSED'}")
    print(f"rerun: python bench/channel.py{' --before ' + str(args.before) if args.before else ''} --rounds {args.rounds} --moves {args.moves}{' --budget ' + args.budget if args.budget else ''}{' --no-cgroup' if args.no_cgroup else ''}")


if __name__ == "__main__":
    main()
