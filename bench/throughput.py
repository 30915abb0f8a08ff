"""What the arena costs: random-versus-random Connect Four games per second, layer by layer.

Seven ways of playing the same kind of game (two uniformly random players), each timed
on the wall clock, in this order within every run, so that the ratios compare figures
measured side by side:

  bare       a loop over one game object: initial_state, legal_moves, rng.choice,
             apply, is_terminal; no referee, no bots, nothing recorded
  bots       the bare loop, but each move is the choice of two in-process RandomBot
             instances (new_game with the referee's seeds, choose with the player's
             Counter, reset every move, as the referee does): what the bot interface costs
             before the referee's bookkeeping (no target)
  referee    arena.play_game with the same two bots (records kept in memory)
  arena      arena.front.run.run_tournament into a fresh SQLite database, one job, bots
             in the worker (isolate=False)
  isolated   the same with isolate=True: each bot in a supervised process of its own,
             a round trip to it per move
  2 jobs     the last two again with two worker processes

A tournament's rate is its whole run_tournament call (schedule, start-up of workers
and bot processes, every game, storage); the "steady" rate, from the first game stored
to the last (the database's own timestamps), leaves the start-up out. The targets
(from the issue): the referee costs at most 1.3 times the bare loop (time per game);
the full arena with storage keeps at least 50% of the bare loop's rate on one job;
two jobs give at least 1.8 times one job's rate. Each figure is the median over runs.

Two jobs can only be as much faster as the machine lets two processes run at once: each
run also times a pure-Python loop in one process and in two at once ("machine"), which
is 2.0 on two free cores and less when other work shares them.

    python bench/throughput.py [--games 4000] [--isolated-games 600] [--runs 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import multiprocessing
import os
import pstats
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from arena import Budget, Counter, Decision, get_registry, play_game
from arena.front.settings import RunSettings
from arena.referee import bot_seed
from arena.front.tournament import Entrant, TournamentConfig

# arena.front.run is imported where it is used: worker processes are spawned and import this
# module again, and arena.front.run pulls in pandas (through results), which `arena run`'s
# workers do not import; a top-level import here would add ~0.4 s per worker start.

GAME = "connect4"

#: (key, label) of every figure, in the order measured and printed.
MODES = (
    ("bare", "bare loop"),
    ("bots", "bare loop calling the bots"),
    ("referee", "referee alone (play_game)"),
    ("arena", "full arena, 1 job, isolate=False"),
    ("isolated", "full arena, 1 job, isolate=True"),
    ("arena2", "full arena, 2 jobs, isolate=False"),
    ("isolated2", "full arena, 2 jobs, isolate=True"),
)


def bare(games: int, seed: int) -> tuple[float, int]:
    """Seconds for ``games`` random games played straight on the game object, and their plies."""
    game = get_registry().game(GAME)
    initial, legal_moves, apply, is_terminal = game.initial_state, game.legal_moves, game.apply, game.is_terminal
    rng = random.Random(seed)
    choice = rng.choice
    plies = 0
    start = time.perf_counter()
    for _ in range(games):
        state = initial()
        while not is_terminal(state):
            state = apply(state, choice(legal_moves(state)))
            plies += 1
    return time.perf_counter() - start, plies


def bots(games: int, seed: int) -> tuple[float, int]:
    """Seconds for ``games`` games of the bare loop with each move chosen by a RandomBot."""
    registry = get_registry()
    game = registry.game(GAME)
    players = [registry.bot("random"), registry.bot("random")]
    initial, to_move, apply, is_terminal = game.initial_state, game.to_move, game.apply, game.is_terminal
    counters = (Counter(Budget()), Counter(Budget()))
    plies = 0
    start = time.perf_counter()
    for i in range(games):
        for player, bot in enumerate(players):
            bot.new_game(game, player, bot_seed(seed * 1_000_003 + i, player))
        state = initial()
        while not is_terminal(state):
            player = to_move(state)
            counter = counters[player]
            counter.reset()
            answer = players[player].choose(game, state, counter)
            state = apply(state, answer.move if isinstance(answer, Decision) else answer)
            plies += 1
    return time.perf_counter() - start, plies


def referee(games: int, seed: int) -> tuple[float, int]:
    """Seconds for ``games`` games through arena.play_game, two in-process random bots."""
    registry = get_registry()
    game = registry.game(GAME)
    bots = [registry.bot("random"), registry.bot("random")]
    plies = 0
    start = time.perf_counter()
    for i in range(games):
        plies += len(play_game(game, bots, seed=seed * 1_000_003 + i).moves)
    return time.perf_counter() - start, plies


def arena(games: int, seed: int, jobs: int, isolate: bool) -> tuple[float, int, float]:
    """Seconds for a whole tournament of ``games`` games into a fresh database, its plies,
    and the seconds from the first game stored to the last."""
    from arena.front.run import run_tournament

    config = TournamentConfig(
        game=GAME,
        bots=(Entrant("a", "random"), Entrant("b", "random")),
        games_per_pairing=games,
        seed=seed,
        isolate=isolate,
        name="throughput",
    )
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "throughput.db"
        start = time.perf_counter()
        result = run_tournament(config, RunSettings(db, jobs, progress=False))
        seconds = time.perf_counter() - start
        if result.played != games:
            raise RuntimeError(f"{result.played} of {games} games were played; failures: {result.failed[:3]}")
        conn = sqlite3.connect(db)
        try:
            (plies,) = conn.execute("SELECT COUNT(*) FROM moves").fetchone()
            first, last = conn.execute("SELECT MIN(finished), MAX(finished) FROM games").fetchone()
        finally:
            conn.close()
    steady = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    return seconds, plies, steady


def _spin(n: int) -> float:
    """Seconds for ``n`` turns of a pure-Python loop: a probe of the CPU this process gets."""
    start = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - start


def machine_parallelism(n: int = 1_000_000) -> float:
    """How many times one process's work two processes do at once (2.0 on two free cores)."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_spin, [1000, 1000], chunksize=1)  # both started
        one = min(pool.apply(_spin, (n,)) for _ in range(2))
        start = time.perf_counter()
        pool.map(_spin, [n, n], chunksize=1)
        both = time.perf_counter() - start
    return 2 * one / both


def one_run(games: int, isolated_games: int, seed: int) -> dict:
    """Every mode once, side by side: games per second, plies per game, steady rates."""
    out = {}
    for key, _ in MODES:
        if key == "arena2":
            out["machine"] = machine_parallelism()
        if key in ("bare", "bots", "referee"):
            n = games
            seconds, plies = {"bare": bare, "bots": bots, "referee": referee}[key](n, seed)
            steady = None
        else:
            n = isolated_games if key.startswith("isolated") else games
            seconds, plies, steady = arena(n, seed, 2 if key.endswith("2") else 1, key.startswith("isolated"))
        out[key] = n / seconds
        out[key + ":plies"] = plies / n
        if steady is not None:
            out[key + ":steady"] = (n - 1) / steady if steady > 0 else float("nan")
    out["referee/bare time"] = out["bare"] / out["referee"]
    out["bots/bare time"] = out["bare"] / out["bots"]
    out["referee/bots time"] = out["bots"] / out["referee"]
    out["arena/bare rate"] = out["arena"] / out["bare"]
    out["isolated/bare rate"] = out["isolated"] / out["bare"]
    out["2 jobs/1 job, isolate=False"] = out["arena2"] / out["arena"]
    out["2 jobs/1 job, isolate=True"] = out["isolated2"] / out["isolated"]
    out["2 jobs/1 job steady, isolate=False"] = out["arena2:steady"] / out["arena:steady"]
    out["2 jobs/1 job steady, isolate=True"] = out["isolated2:steady"] / out["isolated:steady"]
    return out


#: (ratio key, target, "max" or "min", what it means)
TARGETS = (
    ("referee/bare time", 1.3, "max", "the referee costs at most 1.3x the bare loop"),
    ("arena/bare rate", 0.5, "min", "full arena, 1 job, keeps at least 50% of the bare loop's rate"),
    ("isolated/bare rate", 0.5, "min", "the same with isolated bots"),
    ("2 jobs/1 job, isolate=False", 1.8, "min", "two jobs give at least 1.8x one job's rate"),
    ("2 jobs/1 job, isolate=True", 1.8, "min", "the same with isolated bots"),
)


def profile(games: int, seed: int, top: int) -> None:
    """cProfile of the referee alone and of the full arena on one job (isolate=False), by own time."""
    for label, work in (
        ("referee alone", lambda: referee(games, seed)),
        ("full arena, 1 job, isolate=False", lambda: arena(games, seed, 1, False)),
    ):
        profiler = cProfile.Profile()
        profiler.enable()
        work()
        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
        print(f"\n--- profile: {label}, {games} games, top {top} by own time ---")
        lines = text.getvalue().splitlines()
        start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
        print("\n".join(line for line in lines[max(0, start - 3):] if line.strip()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="games per run in process (even)")
    parser.add_argument("--isolated-games", type=int, default=600, help="games per run with isolated bots (even)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="also print cProfile of the referee and the arena")
    args = parser.parse_args(argv)
    if args.games % 2 or args.isolated_games % 2:
        parser.error("--games and --isolated-games must be even (colours are swapped)")

    load = os.getloadavg()[0]
    runs = []
    for i in range(args.runs):
        r = one_run(args.games, args.isolated_games, args.seed)
        runs.append(r)
        rates = ", ".join(f"{key} {r[key]:,.0f}" for key, _ in MODES)
        print(f"run {i + 1}: games/s {rates}", file=sys.stderr)
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}

    print(
        f"random vs random, {GAME}, median of {args.runs} runs ({args.games} games per run, "
        f"{args.isolated_games} with isolated bots); load average {load:.2f} before, {os.getloadavg()[0]:.2f} after "
        f"on {os.cpu_count()} CPUs:"
    )
    print(f"  {'':36} {'games/s':>9} {'steady':>9} {'us/game':>9} {'plies/game':>10}  games/s, each run")
    for key, label in MODES:
        rates = [r[key] for r in runs]
        steady = f"{med[key + ':steady']:9,.0f}" if key + ":steady" in med else f"{'':9}"
        print(
            f"  {label:36} {med[key]:9,.0f} {steady} {1e6 / med[key]:9,.0f} {med[key + ':plies']:10.2f}"
            f"  {' '.join(f'{x:,.0f}' for x in rates)}"
        )
    print("  steady: from the first game stored to the last (start-up left out); us/game: 1 / games/s")
    print("ratios, each measured within one run, median over runs (each run's in brackets):")
    for key, target, kind, meaning in TARGETS:
        verdict = "pass" if (med[key] <= target if kind == "max" else med[key] >= target) else "FAIL"
        each = " ".join(f"{r[key]:.2f}" for r in runs)
        bound = "<=" if kind == "max" else ">="
        print(f"  {key:36} {med[key]:6.2f}  target {bound} {target:<4g} {verdict}  ({each})  {meaning}")
    for key, meaning in (
        ("bots/bare time", "the bot interface alone (Decision, Counter, new_game seeding)"),
        ("referee/bots time", "the referee's own bookkeeping (checks, timing, records)"),
        ("2 jobs/1 job steady, isolate=False", "start-up left out"),
        ("2 jobs/1 job steady, isolate=True", "start-up left out"),
        ("machine", "two processes of pure Python at once / one: what two jobs can gain here"),
    ):
        each = " ".join(f"{r[key]:.2f}" for r in runs)
        print(f"  {key:36} {med[key]:6.2f}  {'':21}({each})  {meaning}")
    print(
        f"rerun: python bench/throughput.py --games {args.games} --isolated-games {args.isolated_games} "
        f"--runs {args.runs} --seed {args.seed}" + (" --profile" if args.profile else "")
    )
    if args.profile:
        profile(min(args.games, 1000), args.seed, 25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
