"""Search techniques side by side: nodes, time and effective branching factor by depth.

Three sections, every bot built from its spec through the registry and timed on its
``choose`` alone, a fresh bot (and so an empty table) for every run:

  grid       minimax, alphabeta without ordering or table, with ordering, with both,
             and iterative deepening (table, PVS), each at depths 4 to 10 given by the
             budget (``Budget(depth=d)``; the specs leave the depth to it), on fixed
             positions: Connect Four's start and a middle game, Othello 8x8's start and
             a middle game. Each cell shows nodes (the root and every position made by
             ``apply``), seconds and nodes per second (medians over the runs), and the
             effective branching factor nodes(d) / nodes(d - 1). Iterative's nodes are
             those of all its iterations up to d.
  reference  the generic ``alphabeta`` (ordering and table on) against ``reference_search``
             below, an alpha-beta written for 7x6 Connect Four alone, with the game's own
             ``heuristic`` at the leaves and the same node count, on the two Connect
             Four positions: nodes per second, the ratio of time per node (generic /
             reference) and of time to the depth, run by run side by side. Both must
             give the same value; the trees differ (the generic search uses the game's
             move ordering and tactics, the reference the table move, then centre first).
  solve      ``solver`` (strong and weak) on late positions: nodes and seconds to the
             exact value, checked against the known one.

A cell that runs past ``--max-seconds``, or whose time, predicted from the depth before
it, would, is shown as "—", and so are the deeper ones (the reference search is not
stopped, only predicted). The targets (from the issue), taken at the deepest depth both
searches of the reference section complete on each position: the generic search examines
at least 400,000 nodes per second, and spends at most 1.5 times the reference's time per
node. ``--quick`` is a smoke run at depths 2-3.

    python bench/search.py [--runs 3] [--max-seconds 20] [--depths 4-10]
                           [--sections grid,reference,solve] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from arena import Budget, Counter, get_registry

SECTIONS = ("grid", "reference", "solve")
NODES_PER_SECOND = 400_000
PER_NODE_RATIO = 1.5

#: (label, game spec, moves) of the grid's positions.
POSITIONS = (
    ("Connect Four, start", "connect4", ""),
    # Test_L2_R1 line 904, score -5 (no forced end within 10 plies): Pascal Pons,
    # "Solving Connect 4", part 2, http://blog.gamesolver.org/solving-connect-four/02-test-protocol/
    ("Connect Four, middle game (19 plies)", "connect4", "6667744167364217437"),
    ("Othello 8x8, start", "othello", ""),
    ("Othello 8x8, middle game (20 plies)", "othello", "d3 e3 f3 e2 f4 g3 f2 e1 g1 d2 h3 f1 d1 c6 f5 g5 b7 c5 d6 c2"),
)

#: (label, spec) of the grid's searches; the depth comes from the budget.
CONFIGS = (
    ("minimax", "minimax:depth=none"),
    ("alphabeta", "alphabeta:depth=none,ordering=false,table=false"),
    ("alphabeta +ordering", "alphabeta:depth=none,ordering=true,table=false"),
    ("alphabeta +ordering +table", "alphabeta:depth=none,ordering=true,table=true"),
    ("iterative (table, pvs)", "iterative:table=true,pvs=true"),
)
GENERIC = CONFIGS[3][1]

#: (label, game spec, moves, known value for the side to move, in --quick) for the solver.
SOLVE = (
    # Pons's test sets (as above), scored as in the files: 22 - the winner's stone count
    ("Connect Four, Test_L3_R1 line 1", "connect4:scoring=moves", "2252576253462244111563365343671351441", -1, True),
    ("Connect Four, Test_L3_R1 line 2", "connect4:scoring=moves", "7422341735647741166133573473242566", 1, True),
    ("Connect Four, Test_L2_R1 line 904", "connect4:scoring=moves", "6667744167364217437", -5, False),
    # 4x4 Othello is a win for white, the second player (so says the memoised full search in tests/helpers.py)
    ("Othello 4x4, start", "othello:size=4", "", -1, True),
    ("Othello 6x6, 16 plies", "othello:size=6", "c2 b4 a5 e2 e3 d2 e4 f4 f1 e1 d1 b3 f3 b1 c1 f2", None, False),
)


@dataclass
class Cell:
    """One search measured over several runs."""

    nodes: int
    seconds: float
    """Median over the runs."""
    value: float | None
    runs: list[float]
    """Seconds of each run."""

    @property
    def rate(self) -> float:
        return self.nodes / self.seconds if self.seconds else float("inf")


@dataclass
class Pair:
    """The generic search and the reference at one depth, run for run."""

    generic: Cell
    ref: Cell

    @property
    def nodes(self) -> int:
        return self.generic.nodes

    @property
    def seconds(self) -> float:
        return self.generic.seconds + self.ref.seconds

    @property
    def ratio(self) -> float:
        """Median over the runs of generic time per node / reference time per node."""
        g, r = self.generic, self.ref
        return statistics.median((a / g.nodes) / (b / r.nodes) for a, b in zip(g.runs, r.runs))

    @property
    def time_ratio(self) -> float:
        """Median over the runs of generic time / reference time, to the same depth."""
        return statistics.median(a / b for a, b in zip(self.generic.runs, self.ref.runs))


def search_once(registry, game, spec: str, state, budget: Budget) -> tuple[int, float, float | None, bool]:
    """(nodes, seconds, value, ran out of time) of one fresh bot's ``choose`` in ``state``."""
    bot = registry.bot(spec)
    bot.new_game(game, game.to_move(state), 1)
    counter = Counter(budget)
    start = time.perf_counter()
    decision = bot.choose(game, state, counter)
    seconds = time.perf_counter() - start
    return counter.nodes, seconds, decision.score, counter.exhausted


def measure(registry, game, spec: str, state, budget: Budget, runs: int) -> Cell | None:
    """The cell's median over ``runs``, or None if a run ran out of time."""
    nodes, times, value = None, [], None
    for _ in range(runs):
        n, t, v, out = search_once(registry, game, spec, state, budget)
        if out:
            return None
        if nodes is not None and n != nodes:
            print(f"  warning: {spec} visited {n:,} nodes, {nodes:,} in an earlier run", file=sys.stderr)
        nodes, value = n, v
        times.append(t)
    return Cell(nodes, statistics.median(times), value, times)


def too_slow(previous: Cell | None, before: Cell | None, cap: float) -> bool:
    """Whether the next depth's time, predicted from the last two cells, exceeds ``cap``."""
    if previous is None:
        return True
    growth = previous.nodes / before.nodes if before else 1.0
    return previous.seconds * growth > cap


def deepen(measure_at, depths: list[int], cap: float) -> dict[int, Cell | None]:
    """Cells by depth from ``measure_at(d)``, stopping at the first one that is or would be too slow."""
    cells: dict[int, Cell | None] = {}
    for d in depths:
        previous, before = cells.get(d - 1, False), cells.get(d - 2)
        if previous is not False and too_slow(previous, before, cap):
            cells[d] = None
            continue
        cells[d] = measure_at(d)
    return cells


def fmt(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def grid(registry, depths: list[int], runs: int, cap: float) -> None:
    shown = depths[1:]
    for label, game_spec, moves in POSITIONS:
        game = registry.game(game_spec)
        state = game.play(moves.split() if " " in moves else moves)
        print(f"\n{label} [{game_spec}{': ' + moves if moves else ''}]; median of {runs} runs")
        print(f"  {'':27} {'':5}" + "".join(f"{f'd={d}':>11}" for d in shown))
        for name, spec in CONFIGS:
            cells = deepen(lambda d: measure(registry, game, spec, state, Budget(depth=d, time=cap), runs), depths, cap)
            ebf = {d: cells[d].nodes / cells[d - 1].nodes if cells.get(d) and cells.get(d - 1) else None for d in shown}
            rows = (
                ("nodes", lambda d: fmt(cells[d] and cells[d].nodes, ",")),
                ("s", lambda d: fmt(cells[d] and cells[d].seconds, ".3f")),
                ("n/s", lambda d: fmt(cells[d] and cells[d].rate, ",.0f")),
                ("EBF", lambda d: fmt(ebf[d], ".2f")),
            )
            for i, (what, show) in enumerate(rows):
                print(f"  {name if i == 0 else '':27} {what:5}" + "".join(f"{show(d):>11}" for d in shown))
            sys.stderr.write(f"  {label}: {name} done\n")


# A search for 7x6 Connect Four alone, in Pons's bitboard layout: bit 7 * column + row,
# row 0 at the bottom, the seventh bit of each column always empty.
_BOTTOM = tuple(1 << (7 * c) for c in range(7))
_TOP = tuple(1 << (7 * c + 5) for c in range(7))
_CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
#: Column order for each table move (-1: none): that column, then centre first.
_ORDERS = {-1: _CENTRE_FIRST, **{c: (c,) + tuple(x for x in _CENTRE_FIRST if x != c) for c in range(7)}}
_EXACT, _LOWER, _UPPER = 0, 1, 2
REFERENCE_COLUMNS = ("depth", "nodes", "s", "n/s", "ref nodes", "ref s", "ref n/s", "per-node ratio", "time ratio")
WIDTHS = (5, 11, 8, 9, 13, 8, 9, 16, 11)


def reference_search(state, depth: int, heuristic, alpha: float = -1.0, beta: float = 1.0) -> tuple[float, int]:
    """Fail-soft alpha-beta of a 7x6 Connect Four state ``(mover's stones, mask, moves, status)``
    to ``depth``: (value for the side to move, nodes). ``heuristic(state, player)`` scores
    the leaves; a win is 1, a draw 0. Table move first, then centre first; a dict table
    keyed by ``position + mask`` (within one search a key is always met at the same depth).
    """
    table: dict[int, tuple[int, float, int]] = {}
    nodes = 1

    def value(position: int, mask: int, moves: int, depth: int, alpha: float, beta: float) -> float:
        nonlocal nodes
        if depth == 0:
            return heuristic((position, mask, moves, 0), moves & 1)
        key = position + mask
        entry = table.get(key)
        first = -1
        if entry is not None:
            bound, v, first = entry
            if bound == _EXACT or (bound == _LOWER and v >= beta) or (bound == _UPPER and v <= alpha):
                return v
        start_alpha, best, best_move = alpha, -2.0, -1
        opponent = position ^ mask
        for col in _ORDERS[first]:
            if mask & _TOP[col]:
                continue
            child = mask | (mask + _BOTTOM[col])
            nodes += 1
            mine = opponent ^ child
            if moves >= 6 and (
                (m := mine & (mine >> 7)) & (m >> 14)
                or (m := mine & (mine >> 1)) & (m >> 2)
                or (m := mine & (mine >> 6)) & (m >> 12)
                or (m := mine & (mine >> 8)) & (m >> 16)
            ):
                v = 1.0
            elif moves == 41:
                v = 0.0
            else:
                v = -value(opponent, child, moves + 1, depth - 1, -beta, -alpha)
            if v > best:
                best, best_move = v, col
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        table[key] = (_UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT, best, best_move)
        return best

    if state[3]:
        raise ValueError(f"reference_search: the game is over in state {state!r}")
    return value(state[0], state[1], state[2], depth, alpha, beta), nodes


def reference(registry, depths: list[int], runs: int, cap: float) -> list[tuple[str, bool]]:
    """Print the generic search against the reference; return (target, met)."""
    game = registry.game("connect4")
    verdicts = []
    for label, game_spec, moves in POSITIONS:
        if game_spec != "connect4":
            continue
        state = game.play(moves)
        print(f"\n{label}: {GENERIC} against reference_search; median of {runs} runs")
        print("  " + " ".join(f"{h:>{w}}" for h, w in zip(REFERENCE_COLUMNS, WIDTHS)) + "  value")

        def pair(d):
            generic, ours = [], []
            for _ in range(runs):
                g = search_once(registry, game, GENERIC, state, Budget(depth=d, time=cap))
                if g[3]:
                    return None
                start = time.perf_counter()
                v, n = reference_search(state, d, game.heuristic, *game.bounds)
                generic.append(g)
                ours.append((n, time.perf_counter() - start, v))
            return Pair(*(Cell(x[-1][0], statistics.median(r[1] for r in x), x[-1][2], [r[1] for r in x])
                          for x in (generic, ours)))

        cells = deepen(pair, depths, cap)
        deepest, differ = None, []
        for d in depths[1:]:
            p = cells[d]
            if p is None:
                print("  " + " ".join(f"{x:>{w}}" for x, w in zip([d] + ["—"] * 8, WIDTHS)))
                continue
            c, r = p.generic, p.ref
            agree = c.value == r.value
            deepest, differ = d, differ + ([] if agree else [d])
            shown = [d, f"{c.nodes:,}", f"{c.seconds:.3f}", f"{c.rate:,.0f}", f"{r.nodes:,}", f"{r.seconds:.3f}",
                     f"{r.rate:,.0f}", f"{p.ratio:.2f}", f"{p.time_ratio:.2f}"]
            print("  " + " ".join(f"{x:>{w}}" for x, w in zip(shown, WIDTHS)) + f"  {'agree' if agree else 'DIFFER'}"
                  f" ({c.value:.4f})")
        if deepest is not None:
            verdicts.append((f"{label}: reference and generic values agree at every depth"
                             + (f"; DIFFER at {', '.join(map(str, differ))}" if differ else ""), not differ))
            p = cells[deepest]
            rate, ratio = p.generic.rate, p.ratio
            what = f"{label}, depth {deepest}: generic"
            verdicts.append((f"{what} {rate:,.0f} nodes/s >= {NODES_PER_SECOND:,}", rate >= NODES_PER_SECOND))
            verdicts.append((f"{what} time per node {ratio:.2f}x the reference's <= {PER_NODE_RATIO}",
                             ratio <= PER_NODE_RATIO))
    return verdicts


def solve(registry, runs: int, cap: float, quick: bool) -> list[tuple[str, bool]]:
    """Print the solver's nodes and time on the late positions; return (check, passed)."""
    verdicts = []
    print(f"\nsolver, exact values of late positions; median of {runs} runs")
    print(f"  {'':36} {'known':>5}   {'nodes':>10} {'s':>8} {'n/s':>9} {'value':>6}   "
          f"{'weak nodes':>10} {'weak s':>8} {'sign':>5}")
    for label, game_spec, moves, known, in_quick in SOLVE:
        if quick and not in_quick:
            continue
        game = registry.game(game_spec)
        state = game.play(moves.split() if " " in moves else moves)
        strong = measure(registry, game, "solver", state, Budget(time=cap), runs)
        weak = measure(registry, game, "solver:weak=true", state, Budget(time=cap), runs)
        line = f"  {label:36} {'?' if known is None else known:>5}   "
        line += f"{fmt(strong and strong.nodes, ','):>10} {fmt(strong and strong.seconds, '.3f'):>8} "
        line += f"{fmt(strong and strong.rate, ',.0f'):>9} {fmt(strong and strong.value, 'g'):>6}   "
        sign = None if weak is None or weak.value is None else (weak.value > 0) - (weak.value < 0)
        line += f"{fmt(weak and weak.nodes, ','):>10} {fmt(weak and weak.seconds, '.3f'):>8} {fmt(sign, '+d'):>5}"
        print(line)
        if strong is None or strong.value is None:
            continue
        if known is not None:
            verdicts.append((f"solver: {label} value {strong.value:g} == {known}", strong.value == known))
        if sign is not None:
            same = sign == (strong.value > 0) - (strong.value < 0)
            verdicts.append((f"solver: {label} weak sign agrees with the strong value", same))
    return verdicts


def parse_depths(text: str) -> list[int]:
    low, _, high = text.partition("-")
    low, high = int(low), int(high or low)
    if not 2 <= low <= high:
        raise ValueError(text)
    return list(range(low - 1, high + 1))  # one more below, for the first branching factor


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per cell; medians are shown")
    parser.add_argument("--max-seconds", type=float, default=20.0, help="time cap of one search")
    parser.add_argument("--depths", default="4-10", help="LOW-HIGH plies (LOW at least 2)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, of: {', '.join(SECTIONS)}")
    parser.add_argument("--quick", action="store_true", help="a smoke run: depths 2-3, one run, 2 s cap")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.max_seconds, args.depths = 1, 2.0, "2-3"
    try:
        depths = parse_depths(args.depths)
    except ValueError:
        parser.error(f"bad --depths {args.depths!r}; expected LOW-HIGH with 2 <= LOW <= HIGH, e.g. 4-10")
    if args.runs < 1 or args.max_seconds <= 0:
        parser.error("--runs must be at least 1 and --max-seconds above 0")
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; sections: {', '.join(SECTIONS)}")
    registry = get_registry(entry_points=False)
    print(f"Python {sys.version.split()[0]}; depths {depths[1]}-{depths[-1]}; "
          f"{args.runs} run(s) per cell; cap {args.max_seconds:g} s per search")
    verdicts = []
    if "grid" in sections:
        grid(registry, depths, args.runs, args.max_seconds)
    if "reference" in sections:
        verdicts += reference(registry, depths, args.runs, args.max_seconds)
    if "solve" in sections:
        verdicts += solve(registry, args.runs, args.max_seconds, args.quick)
    if verdicts:
        print("\ntargets and checks:")
        for what, ok in verdicts:
            print(f"  {'met    ' if ok else 'NOT met'}  {what}")
    rerun = "--quick" if args.quick else f"--runs {args.runs} --max-seconds {args.max_seconds:g} --depths {args.depths}"
    print(f"\nrerun: python bench/search.py {rerun} --sections {','.join(sections)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
