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
  reference  the generic ``alphabeta`` against ``reference_search`` (bench/_search_reference.py),
             alpha-beta written for 7x6 Connect Four alone, on the two Connect Four
             positions, with two evaluations at the leaves: the game's own ``heuristic``
             and the centre column of bench/peers.py's ``CentreConnectFour``. First the
             per-call cost of the game methods the search calls, in the middle game.
             Then like for like: ``alphabeta:ordering=false,window=infinite`` with the
             table off and on against the reference in the same mode, which examines the
             same nodes and gives the same value (checked at every depth): evaluations
             per node and their cost, time per node and nodes per second of both, and
             the ratio of time per node, generic / reference. Last, ``alphabeta`` with
             ordering and table against the reference's own ordering (table move, then
             centre first): different trees (the generic search uses the game's
             ``tactics``), the same value; nodes per second and the ratios of time per
             node and of time to the depth. Each run times the two searches one after
             the other.
  solve      ``solver`` (strong and weak) on late positions: nodes and seconds to the
             exact value, checked against the known one.

A cell that runs past ``--max-seconds``, or whose time, predicted from the depth before
it, would, is shown as "—", and so are the deeper ones (the reference search is not
stopped, only predicted). The targets (from the issue), taken at the deepest depth both
searches of the reference section complete on each position and evaluation: the generic
search examines at least 400,000 nodes per second with the table on, and spends at most
1.5 times the like-for-like reference's time per node. The exit status is 1 when a check
fails (the reference's nodes or value, the solver's value), whatever the targets.
``--quick`` is a smoke run at depths 2-3.

    python bench/search.py [--runs 3] [--max-seconds 20] [--depths 4-10]
                           [--sections grid,reference,solve] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import timeit
from dataclasses import dataclass
from pathlib import Path

from arena import Budget, Counter, get_registry
from arena.referee import ask

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules below
from _search_reference import MODES, count_evaluations, reference_search  # noqa: E402
from peers import CentreConnectFour  # noqa: E402

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
    decision, _ = ask(bot, game, state, counter)  # as the arena asks: the game counts
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


#: (header, width) of the reference section's columns.
COLUMNS = (("search", 8), ("eval", 9), ("depth", 5), ("nodes", 9), ("evals/node", 10), ("eval µs/node", 12),
           ("µs/node", 7), ("n/s", 9), ("ref nodes", 9), ("ref µs/node", 11), ("ref n/s", 9), ("per-node ratio", 14))
#: (mode of reference_search, label) of the reference section's searches.
SEARCHES = (("plain", "no table"), ("table", "table"), ("ordered", "ordered"))


def row(cells) -> str:
    return "  " + " ".join(f"{c:>{w}}" if i > 1 else f"{c:<{w}}" for i, (c, (_, w)) in enumerate(zip(cells, COLUMNS)))


def call_costs(games, state, runs: int, number: int) -> dict[str, float]:
    """Nanoseconds per call (median of timeit repeats of ``number`` calls) of the game methods
    the generic search calls, in ``state``; printed, and returned by name."""
    (_, game), (_, centre) = games
    moves, counter = game.legal_moves(state), Counter(Budget())
    hooks = game.search_hooks()  # what the search calls
    calls = (("heuristic", game.heuristic, (state, 0)), ("centre", centre.heuristic, (state, 0)),
             ("apply", game.apply, (state, moves[len(moves) // 2])), ("legal_moves", game.legal_moves, (state,)),
             ("key", hooks.key, (state,)), ("is_terminal", game.is_terminal, (state,)),
             ("to_move", game.to_move, (state,)), ("Counter.tick", counter.tick, ()),
             ("tactics", hooks.tactics, (state, True)))
    costs, repeats = {}, max(runs, 5)
    for name, function, args in calls:
        names = ("a", "b")[: len(args)]
        timer = timeit.Timer(f"f({', '.join(names)})", globals={"f": function, **dict(zip(names, args))})
        costs[name] = statistics.median(timer.repeat(repeats, number)) / number * 1e9
    print(f"\nns per call in the middle game (median of {repeats} x {number:,} calls): "
          + "; ".join(f"{name} {ns:,.0f}" for name, ns in costs.items()))
    return costs


def pair(registry, game, mode: str, state, depth: int, runs: int, cap: float) -> Pair | None:
    """The generic search of ``mode``'s bot spec and ``reference_search`` in that mode, one after
    the other in each run (the generic first in even runs, the reference in odd ones); None
    if the generic search ran out of time."""
    spec, keywords = MODES[mode]
    generic, ours = [], []

    def ref():
        start = time.perf_counter()
        v, n = reference_search(state, depth, game.heuristic, **keywords)
        ours.append((n, time.perf_counter() - start, v))

    for i in range(runs):
        if i % 2:
            ref()
        g = search_once(registry, game, spec.format(depth=depth), state, Budget(depth=depth, time=cap))
        if g[3]:
            return None
        generic.append(g[:3])
        if not i % 2:
            ref()
    return Pair(*(Cell(x[-1][0], statistics.median(r[1] for r in x), x[-1][2], [r[1] for r in x])
                  for x in (generic, ours)))


def reference(registry, depths: list[int], runs: int, cap: float, quick: bool) -> list[tuple[str, bool, bool]]:
    """Print the generic search against ``reference_search``; return (what, met or passed, is a check)."""
    games = (("heuristic", registry.game("connect4")), ("centre", CentreConnectFour()))
    costs = call_costs(games, games[0][1].play(POSITIONS[1][2]), runs, 2_000 if quick else 100_000)
    verdicts = []
    for label, game_spec, moves in POSITIONS:
        if game_spec != "connect4":
            continue
        print(f"\n{label}: the generic search against reference_search; median of {runs} runs")
        for mode, short in SEARCHES:
            print(f"  {short + ':':9} {MODES[mode][0].format(depth='D')}" + (
                "  DIFFERENT trees: not the target's figure" if mode == "ordered" else "  the same tree"))
        print(f"  per-node ratio: generic time per node / the reference's (target <= {PER_NODE_RATIO}); "
              "eval µs/node: evaluations per node x the ns per call above")
        print(row([h for h, _ in COLUMNS]) + "  check")
        differ = []
        for mode, short in SEARCHES:
            for name, game in games:
                state = game.play(moves)
                cells = deepen(lambda d: pair(registry, game, mode, state, d, runs, cap), depths, cap)
                shown, deepest = [short, name], None
                for d in depths[1:]:
                    p, head, shown = cells[d], shown + [d], ["", ""]
                    if p is None:
                        print(row(head + ["—"] * 9))
                        continue
                    deepest, c, r = d, p.generic, p.ref
                    same = c.value == r.value and (c.nodes == r.nodes or mode == "ordered")
                    differ += [] if same else [f"{short} {name} d={d}"]
                    if mode == "ordered":  # the reference's evaluations are not the generic search's
                        check = f"values agree; time ratio {p.time_ratio:.2f}" if same else "VALUES DIFFER"
                        evals = "—", "—"
                    else:
                        check = "nodes equal" if same else "DIFFER"
                        n = count_evaluations(state, d, game.heuristic, **MODES[mode][1]) / r.nodes
                        evals = f"{n:.2f}", f"{n * costs[name] / 1000:.2f}"
                    print(row(head + [f"{c.nodes:,}", *evals,
                                      f"{1e6 / c.rate:.2f}", f"{c.rate:,.0f}", f"{r.nodes:,}", f"{1e6 / r.rate:.2f}",
                                      f"{r.rate:,.0f}", f"{p.ratio:.2f}"]) + f"  {check} ({c.value:.4f})")
                if deepest is None:
                    continue
                p, what = cells[deepest], f"{label}, {short}, {name}, depth {deepest}"
                if mode != "ordered":
                    verdicts.append((f"{what}: time per node {p.ratio:.2f}x the reference's <= {PER_NODE_RATIO}",
                                     p.ratio <= PER_NODE_RATIO, False))
                if mode != "plain":
                    verdicts.append((f"{what}: generic {p.generic.rate:,.0f} nodes/s >= {NODES_PER_SECOND:,}",
                                     p.generic.rate >= NODES_PER_SECOND, False))
        verdicts.append((f"{label}: the same nodes and value as the reference (ordered: the same value) at every"
                         " depth" + (f"; DIFFER: {', '.join(differ)}" if differ else ""), not differ, True))
    return verdicts


def solve(registry, runs: int, cap: float, quick: bool) -> list[tuple[str, bool, bool]]:
    """Print the solver's nodes and time on the late positions; return (check, passed, True)."""
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
            verdicts.append((f"solver: {label} value {strong.value:g} == {known}", strong.value == known, True))
        if sign is not None:
            same = sign == (strong.value > 0) - (strong.value < 0)
            verdicts.append((f"solver: {label} weak sign agrees with the strong value", same, True))
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
        verdicts += reference(registry, depths, args.runs, args.max_seconds, args.quick)
    if "solve" in sections:
        verdicts += solve(registry, args.runs, args.max_seconds, args.quick)
    if verdicts:
        print("\ntargets and checks:")
        for what, ok, check in verdicts:
            print(f"  {('passed ' if ok else 'FAILED ') if check else ('met    ' if ok else 'NOT met')}  {what}")
    rerun = "--quick" if args.quick else f"--runs {args.runs} --max-seconds {args.max_seconds:g} --depths {args.depths}"
    print(f"\nrerun: python bench/search.py {rerun} --sections {','.join(sections)}")
    return 1 if any(check and not ok for _, ok, check in verdicts) else 0


if __name__ == "__main__":
    raise SystemExit(main())
