"""Our search bots against OpenSpiel's and easyAI's Python searches, on the same positions.

Three sections, all in this process, each contender timed on the wall clock once per run
in turn, so each run's time ratio compares figures measured side by side:

  connect4   Connect Four from the empty board, depth 8, one centre-column evaluation on
             both sides: (side to move's stones in the centre column - the opponent's)
             / (rows + 1). Ours through a ConnectFour subclass whose ``heuristic`` it is;
             OpenSpiel's ``minimax.alpha_beta_search`` with it as ``value_function`` and
             ``maximizing_player_id`` = the player to move. Our ``alphabeta`` (depth=8)
             and ``iterative`` (max_depth=8) as they come, and ``alphabeta`` with ordering
             and table off, with its default root window (the utility bounds) and with
             ``window=infinite``, OpenSpiel's. With nothing narrowing the window, the latter
             searches OpenSpiel's tree node for node; a window at the utility bounds stops
             at a proven win where OpenSpiel searches on. The count depends on the
             evaluation's ties: with this one OpenSpiel visits 131,155 nodes (the issue's
             212,033 is for an evaluation it does not spell out).
  tictactoe  3x3 tic-tac-toe solved from the empty board: our ``solver`` (or
             ``alphabeta:depth=none`` where no solver is registered) against OpenSpiel's
             alpha_beta_search and easyAI's Negamax with a TranspositionTable.
  mcts       1,000 playouts per move in Connect Four (the empty board and a position 10
             plies in): our ``mcts`` against OpenSpiel's Python MCTSBot with a
             RandomRolloutEvaluator and the same exploration constant.

Each time is the search alone: our bot's ``choose`` (a fresh bot and a fresh game object
per run, so a table and the game's caches are made inside the time), OpenSpiel's ``alpha_beta_search`` or ``MCTSBot.step``,
easyAI's ``Negamax`` call. Nodes are counted alike everywhere: the root and every position a search creates. Ours
by the arena's counter; OpenSpiel's and easyAI's by wrapping their recursive function
(one call per created position, plus the root) in a separate, untimed search.

Needs the ``bench`` extra (pip install 'botarena[bench]': open-spiel, easyAI); a section
whose peer is missing says so and skips it.

    python bench/peers.py [--runs 3] [--sections connect4,tictactoe,mcts]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

from arena import Budget, Counter, get_registry
from arena.referee import ask
from games.connect4 import ConnectFour

SECTIONS = ("connect4", "tictactoe", "mcts")
DEPTH = 8
PLAYOUTS = 1000
#: Column moves (0-based) to the second MCTS position: 10 plies, X to move, and neither
#: side can win at once (an immediate win would let OpenSpiel's solver stop early).
MCTS_OPENING = (3, 3, 3, 3, 2, 4, 4, 2, 5, 1)


def centre_value(mine: int, theirs: int, rows: int) -> float:
    """The evaluation of both sides: centre-column stones, mine minus theirs, inside (-1, 1)."""
    return (mine - theirs) / (rows + 1)


class CentreConnectFour(ConnectFour):
    """Connect Four scored by ``centre_value`` instead of its own heuristic."""

    def __init__(self, **params):
        super().__init__(**params)
        self._centre_column = ((1 << self.rows) - 1) << (self.columns // 2 * (self.rows + 1))

    def heuristic(self, state, player: int) -> float:
        """``centre_value`` for the player to move (``state[0]`` holds its stones), inlined."""
        centre = self._centre_column
        mine = (state[0] & centre).bit_count()
        value = (mine + mine - (state[1] & centre).bit_count()) / (self.rows + 1)
        return value if player == state[2] & 1 else -value


def openspiel_centre(player: int, columns: int = 7, rows: int = 6) -> Callable:
    """``centre_value`` as an OpenSpiel value function for ``player`` (OpenSpiel's actions are columns)."""
    c = columns // 2

    def value_function(state) -> float:
        history = state.history()
        first, second = history[0::2].count(c), history[1::2].count(c)
        return centre_value(first, second, rows) if player == 0 else centre_value(second, first, rows)

    return value_function


@dataclass
class Contender:
    """One search to time: ``run()`` sets it up, runs it and returns (value, nodes or None,
    seconds of the search alone)."""

    label: str
    run: Callable[[], tuple[float, int | None, float]]
    count: Callable[[], int] | None = None
    """An untimed run that returns the node count (for peers counted by wrapping)."""
    peer: bool = False
    target: tuple[str, float] | None = None
    """(peer label, or "*" for every peer; how many times faster) this contender must be."""
    node_target: tuple[str, float] | None = None
    """(peer label, times faster per node) with exactly the peer's node count."""
    seconds: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    nodes: int | None = None


def our_search(registry, game, name: str, params: dict, state) -> Callable[[], tuple[float, int, float]]:
    """A fresh bot and a fresh copy of the game for each run (no table or cache carried
    over) choosing the first move of its game in ``state``; the time is its ``choose``
    alone (a table is made there, on first use)."""

    def run():
        fresh = type(game)(**game.params)
        bot = registry.bot(name, **params)
        bot.new_game(fresh, fresh.to_move(state), 1)
        counter = Counter(Budget())
        start = time.perf_counter()
        decision, _ = ask(bot, fresh, state, counter)  # as the arena asks: the game counts
        return decision.score, counter.nodes, time.perf_counter() - start

    return run


def spec(name: str, params: dict) -> str:
    text = ",".join(f"{k}={'none' if v is None else str(v).lower()}" for k, v in params.items())
    return f"{name}:{text}" if text else name


def count_calls(module, function: str, work: Callable[[], object]) -> int:
    """Calls of ``module.function`` (recursive calls go through the module global) during ``work()``."""
    original = getattr(module, function)
    calls = 0

    def counting(*args, **kwargs):
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    setattr(module, function, counting)
    try:
        work()
    finally:
        setattr(module, function, original)
    return calls


def version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def have_openspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.algorithms import mcts, minimax  # noqa: F401
    except ImportError as exc:
        print(f"  OpenSpiel: not available ({exc}); pip install 'botarena[bench]'")
        return False
    return True


def connect4(registry) -> list[Contender]:
    game = CentreConnectFour()
    state = game.initial_state()
    out = []
    if have_openspiel():
        import pyspiel
        from open_spiel.python.algorithms import minimax

        c4 = pyspiel.load_game("connect_four")

        def openspiel():
            root = c4.new_initial_state()
            vf = openspiel_centre(root.current_player())
            start = time.perf_counter()
            value, _ = minimax.alpha_beta_search(
                c4, root, value_function=vf, maximum_depth=DEPTH, maximizing_player_id=root.current_player()
            )
            return value, None, time.perf_counter() - start

        out.append(
            Contender("OpenSpiel alpha_beta_search", openspiel, lambda: count_calls(minimax, "_alpha_beta", openspiel), peer=True)
        )
    ab = registry.bot_class("alphabeta")
    plain = {"depth": DEPTH, "ordering": False}
    if "table" in ab.parameters:
        plain["table"] = False
    rows = [
        ({"depth": DEPTH}, "alphabeta", 50.0, None),
        ({"max_depth": DEPTH}, "iterative", 30.0, None),
        (plain, "alphabeta", None, 2.0),
        ({**plain, "window": "infinite"}, "alphabeta", None, 2.0),
    ]
    for params, name, faster, per_node in rows:
        if name not in registry.bots:
            print(f"  {name}: not available")
            continue
        peer = "OpenSpiel alpha_beta_search"
        out.append(
            Contender(
                spec(name, params),
                our_search(registry, game, name, params, state),
                target=(peer, faster) if faster else None,
                node_target=(peer, per_node) if per_node else None,
            )
        )
    return out


def tictactoe(registry) -> list[Contender]:
    game = registry.game("tictactoe")
    state = game.initial_state()
    out = []
    if have_openspiel():
        import pyspiel
        from open_spiel.python.algorithms import minimax

        ttt = pyspiel.load_game("tic_tac_toe")

        def openspiel():
            start = time.perf_counter()
            value, _ = minimax.alpha_beta_search(ttt)
            return value, None, time.perf_counter() - start

        out.append(
            Contender("OpenSpiel alpha_beta_search", openspiel, lambda: count_calls(minimax, "_alpha_beta", openspiel), peer=True)
        )
    try:
        from easyAI import AI_Player, Negamax, TranspositionTable
        from easyAI.games import TicTacToe
    except ImportError as exc:
        print(f"  easyAI: not available ({exc}); pip install 'botarena[bench]'")
    else:
        negamax_module = sys.modules[Negamax.__module__]

        class KeyedTicTacToe(TicTacToe):
            """easyAI's example game with the ttentry its TranspositionTable needs."""

            def ttentry(self):
                return tuple(self.board), self.current_player

        def easyai():
            search = Negamax(9, tt=TranspositionTable())
            position = KeyedTicTacToe([AI_Player(search), AI_Player(search)])
            start = time.perf_counter()
            search(position)
            seconds = time.perf_counter() - start
            return search.alpha / 100, None, seconds  # easyAI scores a loss -100 (times a depth bonus)

        out.append(
            Contender(
                "easyAI Negamax(9, tt=TranspositionTable())",
                easyai,
                lambda: count_calls(negamax_module, "negamax", easyai),
                peer=True,
            )
        )
    if "solver" in registry.bots:
        name, params = "solver", {}
    else:
        print("  solver: not registered; using alphabeta:depth=none instead")
        name, params = "alphabeta", {"depth": None}
    out.append(Contender(spec(name, params), our_search(registry, game, name, params, state), target=("*", 30.0)))
    return out


def mcts(registry) -> list[Contender]:
    if "mcts" not in registry.bots or "playouts" not in registry.bot_class("mcts").parameters:
        print("  mcts: not available")
        return []
    game = registry.game("connect4")
    positions = [game.initial_state(), game.play(list(MCTS_OPENING))]
    exploration = registry.bot("mcts").exploration
    out = []
    if have_openspiel():
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms.mcts import MCTSBot, RandomRolloutEvaluator

        c4 = pyspiel.load_game("connect_four")
        starts = []
        for moves in ((), MCTS_OPENING):
            s = c4.new_initial_state()
            for m in moves:
                s.apply_action(m)
            starts.append(s)

        def openspiel():
            seconds = 0.0
            for s in starts:
                bot = MCTSBot(
                    c4,
                    uct_c=exploration,
                    max_simulations=PLAYOUTS,
                    evaluator=RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1)),
                    random_state=np.random.RandomState(2),
                )
                start = time.perf_counter()
                bot.step(s)
                seconds += time.perf_counter() - start
            return float("nan"), None, seconds

        out.append(Contender(f"OpenSpiel MCTSBot, {PLAYOUTS} simulations, random rollouts", openspiel, peer=True))
    searches = [our_search(registry, game, "mcts", {"playouts": PLAYOUTS}, s) for s in positions]

    def ours():
        nodes, seconds = 0, 0.0
        for search in searches:
            _, n, t = search()
            nodes, seconds = nodes + n, seconds + t
        return float("nan"), nodes, seconds

    out.append(Contender(spec("mcts", {"playouts": PLAYOUTS}), ours, target=("*", 4.0)))
    return out


TITLES = {
    "connect4": f"Connect Four, empty board, depth {DEPTH}, centre-column evaluation",
    "tictactoe": "3x3 tic-tac-toe solved from the empty board",
    "mcts": f"MCTS, {PLAYOUTS} playouts per move, Connect Four: the empty board and {len(MCTS_OPENING)} plies in "
    "(time for the two moves)",
}


def measure(contenders: list[Contender], runs: int) -> None:
    for c in contenders:
        if c.count is not None:
            c.nodes = c.count()
    for i in range(runs):
        for c in contenders:
            value, nodes, seconds = c.run()
            c.seconds.append(seconds)
            c.values.append(value)
            if nodes is not None:
                if c.nodes is not None and nodes != c.nodes:
                    print(f"  warning: {c.label} visited {nodes:,} nodes in run {i + 1}, {c.nodes:,} before", file=sys.stderr)
                c.nodes = nodes
        print(f"  run {i + 1}: " + ", ".join(f"{c.label} {c.seconds[-1]:.3f}s" for c in contenders), file=sys.stderr)


def report(section: str, contenders: list[Contender], runs: int) -> list[tuple[str, bool]]:
    """Print the section's table; return (what, passed) for each target."""
    verdicts = []
    peers = [c for c in contenders if c.peer]
    print(f"{TITLES[section]}; median of {runs} runs:")
    print(f"  {'':58} {'nodes':>9} {'value':>8} {'seconds':>9} {'us/node':>8}")
    for c in contenders:
        med = statistics.median(c.seconds)
        value = statistics.median(c.values)
        per = f"{med / c.nodes * 1e6:8.2f}" if c.nodes else f"{'':8}"
        nodes = f"{c.nodes:9,}" if c.nodes is not None else f"{'':9}"
        shown = f"{value:8.4f}" if value == value else f"{'':8}"
        print(f"  {c.label:58} {nodes} {shown} {med:9.4f} {per}")
    for c in contenders:
        if c.peer:
            continue
        for p in peers:
            ratios = [a / b for a, b in zip(p.seconds, c.seconds)]
            ratio = statistics.median(ratios)
            line = f"  {c.label} vs {p.label}: {ratio:.1f}x faster ({' '.join(f'{r:.1f}' for r in ratios)})"
            if c.target and c.target[0] in ("*", p.label):
                ok = ratio >= c.target[1]
                line += f"; target >= {c.target[1]:g}x {'pass' if ok else 'FAIL'}"
                verdicts.append((f"{section}: {c.label} >= {c.target[1]:g}x {p.label}", ok))
            if c.values[0] == c.values[0] and p.values[0] == p.values[0]:
                agree = _same_value(section, c.values[0], p.values[0])
                line += f"; values {'agree' if agree else 'DIFFER'}"
                verdicts.append((f"{section}: {c.label} value agrees with {p.label}", agree))
            if c.node_target and c.node_target[0] == p.label and c.nodes and p.nodes:
                per_node = statistics.median((a / p.nodes) / (b / c.nodes) for a, b in zip(p.seconds, c.seconds))
                same = c.nodes == p.nodes
                ok = per_node >= c.node_target[1]
                line += (
                    f"; nodes {'equal' if same else f'DIFFER ({c.nodes - p.nodes:+,})'}"
                    f"; {per_node:.2f}x faster per node, target >= {c.node_target[1]:g}x {'pass' if ok else 'FAIL'}"
                )
                verdicts.append((f"{section}: {c.label} visits exactly {p.label}'s nodes", same))
                verdicts.append((f"{section}: {c.label} >= {c.node_target[1]:g}x faster per node", ok))
            print(line)
    return verdicts


def _same_value(section: str, ours: float, theirs: float) -> bool:
    if section == "tictactoe":  # easyAI's scores carry a depth bonus: compare win, draw or loss
        return (ours > 0) - (ours < 0) == (theirs > 0) - (theirs < 0)
    return abs(ours - theirs) < 1e-12


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, of: {', '.join(SECTIONS)}")
    args = parser.parse_args(argv)
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; sections: {', '.join(SECTIONS)}")
    registry = get_registry()
    print(
        f"Python {sys.version.split()[0]}; botarena {version('botarena')}; "
        f"open-spiel {version('open-spiel') or 'not installed'}; easyAI {version('easyAI') or 'not installed'}"
    )
    verdicts = []
    builders = {"connect4": connect4, "tictactoe": tictactoe, "mcts": mcts}
    for section in sections:
        print()
        contenders = builders[section](registry)
        if not any(c.peer for c in contenders) or all(c.peer for c in contenders):
            print(f"{TITLES[section]}: skipped (nothing to compare)")
            continue
        measure(contenders, args.runs)
        verdicts += report(section, contenders, args.runs)
    if verdicts:
        print("\ntargets:")
        for what, ok in verdicts:
            print(f"  {'pass' if ok else 'FAIL'}  {what}")
    print(f"\nrerun: python bench/peers.py --runs {args.runs} --sections {','.join(sections)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
