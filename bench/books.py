"""Reading and checking chess opening books: a 100,000-line EPD and a PGN of 10,000 games.

Times ``OpeningBook.read`` and ``OpeningBook.check`` (median of 3), beside python-chess's own
cost for the same input: ``chess.Board(fen)`` per EPD line, ``chess.pgn.read_game`` per game.
Rerun: python bench/books.py [--lines 100000] [--games 10000] [--dir /tmp/books]
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import chess  # noqa: E402
import chess.pgn  # noqa: E402

from arena import get_registry  # noqa: E402
from arena.front.openings import OpeningBook  # noqa: E402


def make(folder: Path, lines: int, games: int) -> tuple[Path, Path]:
    """Random positions 6-16 plies from the start (seeded): as EPD lines with operations, and as PGN games."""
    epd, pgn = folder / f"bench{lines}.epd", folder / f"bench{games}.pgn"
    if epd.exists() and pgn.exists():
        return epd, pgn
    rng = random.Random(1)
    with open(epd, "w") as e, open(pgn, "w") as p:
        for i in range(max(lines, games)):
            board = chess.Board()
            for _ in range(rng.randint(6, 16)):
                board.push(rng.choice(list(board.legal_moves)))
                if board.is_game_over():
                    board.pop()
                    break
            if i < lines:
                e.write(board.epd(hmvc=board.halfmove_clock, fmvn=board.fullmove_number, id=f"g{i}") + "\n")
            if i < games:
                game = chess.pgn.Game.from_board(board)
                game.headers["Event"] = f"g{i}"
                print(game, file=p, end="\n\n")
    return epd, pgn


def median(f, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--dir", default="/tmp/books")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    epd, pgn = make(folder, args.lines, args.games)
    registry = get_registry()
    for path in (epd, pgn):
        book = OpeningBook.read(str(path))
        read = median(lambda: OpeningBook.read(str(path)))
        check = median(lambda: book.check(registry, "chess"))
        if path == epd:
            fens = [dict(o.params)["fen"] for o in book.openings]
            base = median(lambda: [chess.Board(f) for f in fens])
            what = "chess.Board(fen) per line"
        else:
            def parse():
                with open(path) as f:
                    while chess.pgn.read_game(f) is not None:
                        pass
            base = median(parse)
            what = "chess.pgn.read_game per game"
        lines = sum(1 for _ in open(path))
        print(f"{path.name}: {lines} lines, {len(book.openings)} openings, {path.stat().st_size / 1e6:.1f} MB: "
              f"read {read:.2f} s, check {check:.2f} s, total {read + check:.2f} s; {what} {base:.2f} s "
              f"(total / that {(read + check) / base:.2f}x)")
    print("rerun: python bench/books.py --lines", args.lines, "--games", args.games, "--dir", args.dir)


if __name__ == "__main__":
    main()
