"""Cost per node of the chess game against a bare python-chess loop over the same tree.

A node is one position the walk reaches: the game's walk calls ``is_terminal`` on it,
``legal_moves`` where it goes deeper, and ``apply`` for each child, as the search bots do.
The bare walks do the same work on python-chess Boards: push and pop (or copy and push),
``list(board.legal_moves)``, and at the leaves the "any legal move?" test that tells
checkmate and stalemate. Then the per-call cost of ``heuristic`` and of ``key`` (the
Zobrist hash, of the whole board or as a step from the parent's). Named chess_speed.py:
run as a script, a bench/chess.py would shadow python-chess itself.

    python bench/chess_speed.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import chess  # noqa: E402

from games.chess_game import Chess  # noqa: E402

# start position at depth 3, Kiwipete (Chess Programming Wiki, "Perft Results") at depth 2
POSITIONS = (
    ("start", chess.STARTING_FEN, 3),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2),
)


def walk_game(game, state, depth):
    if game.is_terminal(state) or depth == 0:
        return 1
    n = 1
    for move in game.legal_moves(state):
        n += walk_game(game, game.apply(state, move), depth - 1)
    return n


def walk_push_pop(board, depth):
    if depth == 0:
        any(board.generate_legal_moves())
        return 1
    moves = list(board.legal_moves)
    n = 1
    for move in moves:
        board.push(move)
        n += walk_push_pop(board, depth - 1)
        board.pop()
    return n


def walk_copy(board, depth):
    if depth == 0:
        any(board.generate_legal_moves())
        return 1
    n = 1
    for move in list(board.legal_moves):
        child = board.copy(stack=False)
        child.push(move)
        n += walk_copy(child, depth - 1)
    return n


def timed(call, runs):
    times, nodes = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        nodes = call()
        times.append(time.perf_counter() - start)
    return nodes, statistics.median(times)


def per_call(call, args_list, runs):
    def run():
        for args in args_list:
            call(*args)
        return len(args_list)

    n, seconds = timed(run, runs)
    return seconds / n * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure")
    args = parser.parse_args(argv)
    print(f"python-chess {chess.__version__}; µs per node, the best of {args.runs} runs; per call, medians")
    head = ("position", "depth", "nodes", "game", "push/pop", "copy+push", "ratio pp", "ratio cp")
    print("{:<10} {:>5} {:>7} {:>7} {:>9} {:>10} {:>9} {:>9}".format(*head))
    for name, fen, depth in POSITIONS:
        game = Chess(fen=fen)
        walks = (
            lambda: walk_game(game, game.initial_state(), depth),
            lambda: walk_push_pop(chess.Board(fen), depth),
            lambda: walk_copy(chess.Board(fen), depth),
        )
        best, counts = [float("inf")] * 3, set()
        for _ in range(args.runs):  # the three walks in turn, so that a busy spell hits them alike
            for i, walk in enumerate(walks):
                nodes, seconds = timed(walk, 1)
                best[i] = min(best[i], seconds)
                counts.add(nodes)
        assert len(counts) == 1, f"the walks disagree on the tree: {counts}"
        g, pp, cp = (t / nodes * 1e6 for t in best)
        print(f"{name:<10} {depth:>5} {nodes:>7} {g:>7.1f} {pp:>9.1f} {cp:>10.1f} {g / pp:>9.2f} {g / cp:>9.2f}")
    game = Chess(fen=POSITIONS[1][1])
    root = game.initial_state()
    moves = game.legal_moves(root)
    states = [game.apply(root, m) for m in moves]
    heuristic_us = per_call(game.heuristic, [(s, 0) for s in states], args.runs)
    # fresh children each run, as key() keeps the hash in the state; first with the
    # parent's hash unknown (the whole board is hashed), then known (a step from it)
    full = statistics.median(per_call(game.key, [(game.apply(root, m),) for m in moves], 1) for _ in range(args.runs))
    game.key(root)
    step = statistics.median(per_call(game.key, [(game.apply(root, m),) for m in moves], 1) for _ in range(args.runs))
    print(f"per call on Kiwipete's children: heuristic {heuristic_us:.1f} µs; key {full:.1f} µs "
          f"(whole-board Zobrist hash), {step:.1f} µs (step from the parent's hash)")
    print(f"rerun: python bench/chess_speed.py --runs {args.runs}")


if __name__ == "__main__":
    main()
