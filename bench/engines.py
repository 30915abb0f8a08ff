"""What refereeing a UCI engine costs: botarena's `uci` bot against python-chess's SimpleEngine.

Two figures, each measured side by side in one run, alternating the two ways:

1. Per-move overhead: Stockfish at `go nodes 1` (almost no search) plays whole games
   against itself, through the arena's referee (`play_game` with two `uci` bots) and
   through python-chess's `SimpleEngine.play` on the same binary. Microseconds per move.
2. Games per second: Stockfish against Stockfish at 1,000 nodes per move, through the
   full arena (`arena run`: schedule, worker, referee, records, SQLite), against a bare
   loop of two `SimpleEngine`s playing from the same openings under the same draw rules.

Threads=1, so each game replays exactly; both ways play the same moves.

    python bench/engines.py [--runs 3] [--games 6] [--engine /usr/games/stockfish]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import chess  # noqa: E402
import chess.engine  # noqa: E402

import results  # noqa: E402
from arena import Budget, get_registry, play_game  # noqa: E402
from arena.front.settings import RunSettings  # noqa: E402
from arena.front.tournament import Entrant, TournamentConfig  # noqa: E402
from arena.front.run import run_tournament  # noqa: E402


def find_engine(given: str | None) -> str:
    for path in (given, shutil.which("stockfish"), "/usr/games/stockfish"):
        if path and Path(path).exists():
            return path
    sys.exit("bench/engines.py needs Stockfish: apt-get install stockfish, or --engine PATH")


def _finished(board: chess.Board) -> bool:
    """Over as the arena's chess game (draws=claim) ends it: mate, stalemate, material,
    threefold repetition or the fifty-move rule at once."""
    return board.is_game_over(claim_draw=True)


def arena_moves(registry, engine: str, games: int) -> tuple[float, int]:
    """Seconds and moves of ``games`` self-play games at nodes=1 through the referee."""
    game = registry.game("chess")
    bots = [registry.bot(f"uci:cmd={engine},Threads=1,Hash=16") for _ in range(2)]
    for player, bot in enumerate(bots):  # started before the clock, as SimpleEngine's are
        bot.new_game(game, player, 0)
    moves = 0
    start = time.perf_counter()
    for seed in range(games):
        record = play_game(game, bots, budgets=(Budget(nodes=1), Budget(nodes=1)), seed=seed)
        moves += len(record.moves)
    seconds = time.perf_counter() - start
    for bot in bots:
        bot.close()
    return seconds, moves


def simple_moves(engine: str, games: int) -> tuple[float, int]:
    """Seconds and moves of ``games`` self-play games at nodes=1 through SimpleEngine."""
    return simple_loop(engine, [()] * games, nodes=1)


def arena_games(engine: str, games: int, folder: Path, run: int) -> tuple[float, list[tuple[str, ...]], int]:
    """Seconds for ``games`` games at nodes=1000 through ``arena run``; their openings and moves."""
    spec = f"uci:cmd={engine},Threads=1,Hash=16"
    config = TournamentConfig(
        game="chess", bots=(Entrant("a", spec), Entrant("b", spec)), budget=Budget(nodes=1000),
        games_per_pairing=games, opening_plies=4, seed=run,
    )
    db = folder / f"run{run}.db"
    start = time.perf_counter()
    run_tournament(config, RunSettings(database=db, jobs=1, progress=False))
    seconds = time.perf_counter() - start
    tables = results.load(db)
    openings = [tuple(o.split()) for o in tables.games.sort_values("game_id").opening]
    return seconds, openings, len(tables.moves)


def simple_games(engine: str, openings: list[tuple[str, ...]]) -> tuple[float, int]:
    """Seconds and moves of the same games through two SimpleEngines at nodes=1000."""
    return simple_loop(engine, openings, nodes=1000)


def simple_loop(engine: str, openings: list[tuple[str, ...]], nodes: int) -> tuple[float, int]:
    """Seconds and moves of Stockfish self-play from each opening, two SimpleEngines, ``nodes`` a move."""
    sides = [chess.engine.SimpleEngine.popen_uci(engine) for _ in range(2)]
    for side in sides:
        side.configure({"Threads": 1, "Hash": 16})
    limit = chess.engine.Limit(nodes=nodes)
    moves = 0
    start = time.perf_counter()
    for opening in openings:
        board = chess.Board()
        for text in opening:
            board.push_uci(text)
        game = object()  # one ucinewgame per game, as the arena sends
        while not _finished(board):
            board.push(sides[not board.turn].play(board, limit, game=game).move)
            moves += 1
    seconds = time.perf_counter() - start
    for side in sides:
        side.quit()
    return seconds, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--games", type=int, default=6, help="games per run (even)")
    parser.add_argument("--engine", help="the Stockfish binary (default: PATH, then /usr/games)")
    args = parser.parse_args()
    engine = find_engine(args.engine)
    registry = get_registry()
    print(f"engine {engine}; {args.runs} runs; medians; ratios within each run")

    per_move = {"arena": [], "simple": []}
    ratios = []
    for _ in range(args.runs):
        a_s, a_n = arena_moves(registry, engine, args.games)
        s_s, s_n = simple_moves(engine, args.games)
        per_move["arena"].append(a_s / a_n * 1e6)
        per_move["simple"].append(s_s / s_n * 1e6)
        ratios.append(per_move["arena"][-1] / per_move["simple"][-1])
    print("\n1. per move, Stockfish at go nodes 1, self-play")
    print(f"   botarena (referee + uci bot):  {statistics.median(per_move['arena']):7.0f} us/move  {[round(x) for x in per_move['arena']]}")
    print(f"   python-chess SimpleEngine:     {statistics.median(per_move['simple']):7.0f} us/move  {[round(x) for x in per_move['simple']]}")
    print(f"   botarena / SimpleEngine time:  {statistics.median(ratios):.2f}  {[round(r, 2) for r in ratios]}  (target: at most 1)")

    rates = {"arena": [], "simple": []}
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            a_s, openings, a_n = arena_games(engine, args.games, Path(tmp), run)
            s_s, s_n = simple_games(engine, openings)
            rates["arena"].append(len(openings) / a_s)
            rates["simple"].append(len(openings) / s_s)
            ratios.append(rates["arena"][-1] / rates["simple"][-1])
            if a_n != s_n:
                print(f"   note: run {run}: {a_n} moves through the arena, {s_n} through SimpleEngine")
    print("\n2. games per second, Stockfish against Stockfish at nodes=1000, 4-ply random openings")
    print(f"   arena run (1 job):             {statistics.median(rates['arena']):7.2f} games/s  {[round(x, 2) for x in rates['arena']]}")
    print(f"   bare SimpleEngine loop:        {statistics.median(rates['simple']):7.2f} games/s  {[round(x, 2) for x in rates['simple']]}")
    print(f"   arena / bare loop rate:        {statistics.median(ratios):.2f}  {[round(r, 2) for r in ratios]}  (target: at least 0.8)")
    print(f"\nrerun: python bench/engines.py --runs {args.runs} --games {args.games}")


if __name__ == "__main__":
    main()
