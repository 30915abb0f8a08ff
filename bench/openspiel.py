"""What the OpenSpiel adapter costs per node, and what it adds to the arena's start-up.

Per node: seeded random playouts are drawn once per game (at most --plies plies each),
then the same actions are replayed by three loops, timed in turn on each playout (so
that a machine whose load changes by the second slows the three alike):

  bare      OpenSpiel alone: ``clone()`` and ``apply_action()``, the least a search
            that keeps its parent positions pays per node
  spiel     the same plus ``legal_actions()``, which any search needs to expand a node
  floor     the same with the least a Python wrapper adds (see ``floor``): no key, no turn,
            and ``child(action)``, OpenSpiel's clone and apply in one call
  adapter   the arena game: ``apply`` (clone, apply, wrap), the state's key (``hash``,
            as a transposition table takes it) and ``legal_moves``

Figures are microseconds per node, the median over runs; the ratios (a: adapter, s: spiel,
f: floor) are medians of each run's ratio. The target (from the issue): adapter at most 2
times bare. Where ``spiel`` or ``floor`` is already past it, no adapter can meet it.

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


def bare(game, actions) -> None:
    state = game.spiel.new_initial_state()
    for action in actions:
        state = state.clone()
        state.apply_action(action)


def spiel_legal(game, actions) -> None:
    state = game.spiel.new_initial_state()
    for action in actions:
        state = state.clone()
        state.apply_action(action)
        state.legal_actions()


def adapter(game, actions) -> None:
    apply, legal_moves = game.apply, game.legal_moves
    state = game.initial_state()
    for action in actions:
        state = apply(state, action)
        hash(state)
        legal_moves(state)


class _Box:
    __slots__ = ("state", "hash")

    def __init__(self, state, hash):
        self.state = state
        self.hash = hash

    def __hash__(self):
        return self.hash


def _apply(box, action):
    return _Box(box.state.child(action), action)  # clone and apply in one call, as the adapter does


def _legal(box):
    return box.state.legal_actions()


def floor(game, actions) -> None:
    """The least any Python rule book over pyspiel adds: a Python call for apply and for the
    legal moves, a wrapper object, a ``__hash__`` returning a number already there."""
    box = _Box(game.spiel.new_initial_state(), 0)
    for action in actions:
        box = _apply(box, action)
        hash(box)
        _legal(box)


LOOPS = {"bare": bare, "spiel": spiel_legal, "floor": floor, "adapter": adapter}


def per_node(args) -> None:
    registry = get_registry(entry_points=False)
    print(f"{'game':<18} {'key':<9} {'nodes':>6} {'bare':>7} {'spiel':>7} {'floor':>7} {'adapter':>7} "
          f"{'a/bare':>6} {'s/bare':>6} {'f/bare':>6} {'a/spiel':>7} {'a/floor':>7}")
    for spec in args.games.split(","):
        game = registry.game("openspiel." + spec)
        lines = playouts(game.spiel, args.playouts, args.plies, seed=1)
        nodes = sum(map(len, lines))
        times: dict[str, list[float]] = {label: [] for label in LOOPS}
        clock = time.perf_counter
        for _ in range(args.runs):
            total = dict.fromkeys(LOOPS, 0.0)
            for actions in lines:
                for label, loop in LOOPS.items():
                    start = clock()
                    loop(game, actions)
                    total[label] += clock() - start
            for label, seconds in total.items():
                times[label].append(seconds / nodes * 1e6)
        med = {k: statistics.median(v) for k, v in times.items()}

        def ratio(a, b):
            return statistics.median(x / y for x, y in zip(times[a], times[b]))

        key = game.state_class.__name__.removesuffix("State").lower()
        print(f"{spec:<18} {key:<9} {nodes:>6} {med['bare']:>7.2f} {med['spiel']:>7.2f} {med['floor']:>7.2f} "
              f"{med['adapter']:>7.2f} {ratio('adapter', 'bare'):>6.2f} {ratio('spiel', 'bare'):>6.2f} "
              f"{ratio('floor', 'bare'):>6.2f} {ratio('adapter', 'spiel'):>7.2f} {ratio('adapter', 'floor'):>7.2f}",
              flush=True)


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
