"""What the OpenSpiel adapter costs per node, and what it adds to the arena's start-up.

Per node: seeded random playouts are drawn once per game (at most --plies plies each),
then the same actions are replayed by three loops, timed in turn within every run:

  bare      OpenSpiel alone: ``clone()`` and ``apply_action()``, the least a search
            that keeps its parent positions pays per node
  spiel     the same plus ``legal_actions()``, which any search needs to expand a node
  adapter   the arena game: ``apply`` (clone, apply, wrap), the state's key (``hash``,
            as a transposition table takes it) and ``legal_moves``

Figures are microseconds per node, the median over runs; the ratios are medians of each
run's ratio. The target (from the issue): adapter at most 2 times bare.

Start-up: ``python -m arena games`` with open-spiel and with ``pyspiel`` blocked (as if
absent), and ``import pyspiel`` alone against an empty interpreter, medians of --starts.

    python bench/openspiel.py [--games tic_tac_toe,hex,...] [--playouts 20] [--plies 300] [--runs 7] [--starts 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena import get_registry  # noqa: E402

GAMES = "tic_tac_toe,connect_four,hex,havannah,breakthrough,othello,checkers,chess,go:board_size=9,quoridor"


def playouts(spiel, count: int, plies: int, seed: int) -> list[list[int]]:
    """Actions of seeded random playouts, each cut after ``plies``."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        state, actions = spiel.new_initial_state(), []
        while not state.is_terminal() and len(actions) < plies:
            actions.append(rng.choice(state.legal_actions()))
            state.apply_action(actions[-1])
        out.append(actions)
    return out


def bare(spiel, lines) -> None:
    for actions in lines:
        state = spiel.new_initial_state()
        for action in actions:
            state = state.clone()
            state.apply_action(action)


def spiel_legal(spiel, lines) -> None:
    for actions in lines:
        state = spiel.new_initial_state()
        for action in actions:
            state = state.clone()
            state.apply_action(action)
            state.legal_actions()


def adapter(game, lines) -> None:
    apply, legal_moves = game.apply, game.legal_moves
    for actions in lines:
        state = game.initial_state()
        for action in actions:
            state = apply(state, action)
            hash(state)
            legal_moves(state)


def per_node(args) -> None:
    registry = get_registry(entry_points=False)
    print(f"{'game':<22} {'key':<9} {'nodes':>6} {'bare':>8} {'spiel':>8} {'adapter':>8} {'/bare':>6} {'/spiel':>7}")
    for spec in args.games.split(","):
        game = registry.game("openspiel." + spec)
        lines = playouts(game.spiel, args.playouts, args.plies, seed=1)
        nodes = sum(map(len, lines))
        times: dict[str, list[float]] = {"bare": [], "spiel": [], "adapter": []}
        for _ in range(args.runs):
            for label, run in (("bare", lambda: bare(game.spiel, lines)),
                               ("spiel", lambda: spiel_legal(game.spiel, lines)),
                               ("adapter", lambda: adapter(game, lines))):
                start = time.perf_counter()
                run()
                times[label].append((time.perf_counter() - start) / nodes * 1e6)
        med = {k: statistics.median(v) for k, v in times.items()}
        to_bare = statistics.median(a / b for a, b in zip(times["adapter"], times["bare"]))
        to_spiel = statistics.median(a / b for a, b in zip(times["adapter"], times["spiel"]))
        key = game.state_class.__name__.removesuffix("State").lower()
        print(f"{spec:<22} {key:<9} {nodes:>6} {med['bare']:>8.2f} {med['spiel']:>8.2f} {med['adapter']:>8.2f} "
              f"{to_bare:>6.2f} {to_spiel:>7.2f}", flush=True)


def seconds(code: list[str], starts: int) -> float:
    """Median wall time of a fresh interpreter running ``code``."""
    out = []
    for _ in range(starts):
        start = time.perf_counter()
        subprocess.run([sys.executable, *code], cwd=ROOT, check=True, capture_output=True)
        out.append(time.perf_counter() - start)
    return statistics.median(out)


def startup(args) -> None:
    blocked = "import sys; sys.modules['pyspiel'] = None; from arena.front.cli import main; sys.exit(main(['games']))"
    rows = [
        ("arena games, with open-spiel", ["-m", "arena", "games"]),
        ("arena games, pyspiel blocked", ["-c", blocked]),
        ("import pyspiel", ["-c", "import pyspiel"]),
        ("empty interpreter", ["-c", "pass"]),
    ]
    print(f"\n{'start-up (median of ' + str(args.starts) + ')':<32} {'seconds':>8}")
    for label, code in rows:
        print(f"{label:<32} {seconds(code, args.starts):>8.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=GAMES, help="OpenSpiel game specs, comma-separated (no prefix)")
    parser.add_argument("--playouts", type=int, default=20)
    parser.add_argument("--plies", type=int, default=300)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--starts", type=int, default=7)
    args = parser.parse_args()
    print(f"python bench/openspiel.py --playouts {args.playouts} --plies {args.plies} --runs {args.runs} "
          f"--starts {args.starts}")
    per_node(args)
    startup(args)


if __name__ == "__main__":
    main()
