"""Schadd and Winands (2011) again: max^n, paranoid and Best-Reply Search in Rolit.

"Best Reply Search for Multiplayer Games", IEEE TCIAIG 3(1) 57-66, found BRS ahead of
max^n in Chinese Checkers, Focus and Rolit, and in Rolit "on equal footing with paranoid"
(its abstract). This reruns the comparison on the arena's own Rolit (``games/rolit.py``,
8x8): three players, one of each algorithm, in every seating of the seating cycle (6 games:
each algorithm in each seat twice, behind each other equally often), a random opening of
``--openings`` plies per round, at equal time per move (as in the paper) and at equal nodes
per move; and with ``--four``, four players, each algorithm in turn taking two seats.

Each algorithm's score rate is its mean points per game (1 for a win, shared by ties), with
a 95% interval (normal approximation over games). Three players share 1 point a game, so
equal algorithms score 1/3 each. Pair by pair: the share of games in which one finished
ahead of the other (a tie half), with its 95% interval; 0.5 is even.

    PYTHONPATH=. python bench/multiplayer_rolit.py [--cycles 10] [--time 0.1] [--nodes 2000] [--four] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import results
from arena import Budget
from arena.front.run import run_tournament
from arena.front.settings import RunSettings
from arena.front.tournament import Entrant, TournamentConfig
from arena.plugins import get_registry
from arena.seating import seating_cycle

ALGORITHMS = ("maxn", "paranoid", "brs")


def field(players: int, doubled: str | None) -> list[tuple[str, str]]:
    """(display name, spec) of every seat's bot; the doubled algorithm's second copy is NAME2."""
    bots = [(a, a) for a in ALGORITHMS]
    if doubled is not None:
        bots.append((f"{doubled}2", doubled))
    assert len(bots) == players
    return bots


def play(players: int, doubled: str | None, budget: Budget, cycles: int, openings: int, jobs: int, seed: int, db: Path):
    """Play the tournament; returns its seats table with an ``algorithm`` column."""
    games = cycles * len(seating_cycle(players))
    config = TournamentConfig(game=f"rolit:players={players}",
                              bots=tuple(Entrant(n, s) for n, s in field(players, doubled)), budget=budget,
                              games_per_pairing=games, opening_plies=openings, seed=seed)
    run_tournament(config, RunSettings(db, jobs, progress=False), registry=get_registry(entry_points=False))
    seats = results.load(db).seats
    return seats.assign(algorithm=seats["bot"].str.rstrip("2"))


def score_rates(seats) -> dict[str, tuple[float, float, int]]:
    """Per algorithm: mean points per seat it held, the half-width of its 95% interval, seats."""
    out = {}
    for algorithm, rows in seats.groupby("algorithm"):
        n = len(rows)
        mean = rows["points"].mean()
        sd = rows["points"].std(ddof=1) if n > 1 else float("nan")
        out[algorithm] = (mean, 1.96 * sd / math.sqrt(n), n)
    return out


def ahead(seats) -> dict[tuple[str, str], tuple[float, float, int]]:
    """Per ordered pair of algorithms (a, b): the share of the games they played together in
    which a finished ahead of b (a tie half), its 95% half-width, and the games."""
    out = {}
    pairs = seats.merge(seats, on="game_id", suffixes=("", "_b"))
    pairs = pairs[pairs["algorithm"] != pairs["algorithm_b"]]
    pairs = pairs.assign(ahead=(pairs["rank"] < pairs["rank_b"]) + 0.5 * (pairs["rank"] == pairs["rank_b"]))
    for (a, b), rows in pairs.groupby(["algorithm", "algorithm_b"]):
        per_game = rows.groupby("game_id")["ahead"].mean()
        n = len(per_game)
        out[a, b] = (per_game.mean(), 1.96 * per_game.std(ddof=1) / math.sqrt(n), n)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=10, help="seating cycles per tournament (default 10)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move at equal time (default 0.1)")
    parser.add_argument("--nodes", type=int, default=2000, help="nodes per move at equal nodes (default 2000)")
    parser.add_argument("--openings", type=int, default=4, help="random opening plies per round (default 4)")
    parser.add_argument("--four", action="store_true", help="also four players, each algorithm doubled in turn")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    setups = [(3, None)] + ([(4, a) for a in ALGORITHMS] if args.four else [])
    with tempfile.TemporaryDirectory() as tmp:
        for label, budget in ((f"equal time, {args.time:g} s a move", Budget(time=args.time)),
                              (f"equal nodes, {args.nodes:,} a move", Budget(nodes=args.nodes))):
            for players, doubled in setups:
                start = time.perf_counter()
                db = Path(tmp) / f"{players}-{doubled}-{budget}.db"
                seats = play(players, doubled, budget, args.cycles, args.openings, args.jobs, args.seed, db)
                took = time.perf_counter() - start
                games = seats["game_id"].nunique()
                who = f"{players} players" + (f", {doubled} in two seats" if doubled else "")
                print(f"\nRolit 8x8, {who}, {label}: {games} games in {took:.0f} s")
                even = 1 / players
                for algorithm, (mean, half, n) in sorted(score_rates(seats).items(), key=lambda kv: -kv[1][0]):
                    print(f"  {algorithm:9s} score rate {mean:.3f} ± {half:.3f} over {n} seats "
                          f"({'above' if mean - half > even else 'below' if mean + half < even else 'within reach of'} "
                          f"an even {even:.3f})")
                for (a, b), (share, half, n) in sorted(ahead(seats).items()):
                    if a < b:
                        print(f"  {a} ahead of {b} in {share:.3f} ± {half:.3f} of {n} games")
    print(f"\nrerun: PYTHONPATH=. python bench/multiplayer_rolit.py --cycles {args.cycles} --time {args.time:g} "
          f"--nodes {args.nodes}{' --four' if args.four else ''} --jobs {args.jobs} --seed {args.seed}")


if __name__ == "__main__":
    main()
