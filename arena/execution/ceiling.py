"""The CPU ceiling of a node budget: what an isolated Python bot's nodes may cost.

An isolated bot counts its nodes in its own process, which it controls, so a hostile one can
search more than it reports. Its CPU time, though, is measured outside it (its process tree's,
from the kernel), so a node budget on it also caps that. Each move under a budget of ``nodes``
allows

    FACTOR x nodes x (CPU per node of the arena's own searches on this game) + PER_MOVE

CPU seconds, and a game's moves may together use what they allow plus SLACK, counted from the
start of the game, its new-game hook included, or for a host kept from an earlier game from
the end of that one (so CPU used between moves, or between games, counts too). The slack takes up what no node pays
for and comes once or rarely (a garbage collection, a table built at the first move), so an
honest bot is never cut by one slow move, while a bot that searches far past its count meets
the ceiling within a few moves.

The CPU per node is measured once per process and game, on the machine that plays, by the
probe: the built-in searches of ``PROBE_BOTS`` (the costliest per node among them counts)
each search a few positions in this process for a few milliseconds. A forged count then buys
at most about FACTOR times the CPU of an honest search; a forger whose own search is cheaper
per node than the probe's gets that many more nodes (bench/ceiling.py measures both). CPU
time is not slowed by other processes, so only a bot whose nodes cost more than FACTOR times
the arena's own reaches the ceiling; it is the one end of a node-budget game that depends on
the machine (termination ``cpu_ceiling``).
"""

from __future__ import annotations

import random
import statistics
import time

from arena.budget import Budget, BudgetExhausted, Counter, counted
from arena.game import CHANCE

#: How many times the probe's CPU per node a move may use.
FACTOR = 5
#: CPU seconds every move may use besides: its fixed costs (the request, the answer, a
#: search's set-up), which no node count pays for.
PER_MOVE = 0.005
#: CPU seconds a game may use besides what its moves allow.
SLACK = 0.2
#: The built-in searches the probe runs; the costliest per node sets the figure.
PROBE_BOTS = ("iterative", "solver", "mcts")
#: And in a game with chance (where ``iterative`` does not play), the expectation family's.
PROBE_CHANCE_BOTS = ("star2",)
#: CPU seconds each probe search runs (at most; fewer when it stops at PROBE_NODES).
PROBE_CPU = 0.004
PROBE_NODES = 20_000
#: Plies played at random from the start to each probed position (0: the start itself).
PROBE_PLIES = (0, 6)

_PER_NODE: dict[str, float] = {}  # by game spec, in this process


def per_node(game) -> float:
    """CPU seconds per node of the arena's own searches on ``game``, here (measured once)."""
    key = game.spec
    found = _PER_NODE.get(key)
    if found is None:
        found = _PER_NODE[key] = probe(game)
    return found


def allowance(nodes: int, cost: float) -> float:
    """The CPU seconds a move under a budget of ``nodes`` adds to its game's ceiling, at ``cost`` per node."""
    return FACTOR * nodes * cost + PER_MOVE


def probe(game) -> float:
    """Measure ``per_node``: the median over ``PROBE_PLIES`` positions of each probe search's
    CPU per node, the largest of the searches."""
    from arena.plugins import get_registry

    registry = get_registry(entry_points=False)
    costs = []
    for name in PROBE_BOTS + (PROBE_CHANCE_BOTS if game.model.chance else ()):
        bot = registry.bot(name)
        if bot.suitable(game):
            continue
        samples = []
        for plies in PROBE_PLIES:
            state = _position(game, plies)
            cost = None if state is None else search_cost(bot, game, state, Budget(nodes=PROBE_NODES, cpu=PROBE_CPU))
            if cost is not None:
                samples.append(cost)
        if samples:
            costs.append(statistics.median(samples))
    return max(costs, default=0.0)


def search_cost(bot, game, state, budget: Budget) -> float | None:
    """CPU seconds per node of one search of ``bot`` from ``state`` under ``budget``, in this
    thread, counted as the referee counts (the root, and every position the game's apply
    makes); None for a search that fails here."""
    counter = Counter(budget)
    bot.new_game(game, game.to_move(state), 0)
    view = counted(game, counter)
    counter.reset()
    counter.tick()
    start = time.thread_time()
    try:
        bot.choose(view, state, counter)
    except BudgetExhausted:
        pass
    except Exception:
        return None
    return (time.thread_time() - start) / max(counter.nodes, 1)


def _position(game, plies: int):
    """The position after ``plies`` random moves from the start (seeded), or None if the game ends first."""
    rng = random.Random(plies)
    state = game.initial_state()
    ply = 0
    # on past the plies while chance is to move: a bot is asked only where a player is
    while ply < plies or (not game.is_terminal(state) and game.to_move(state) == CHANCE):
        if game.is_terminal(state):
            return None
        if game.to_move(state) == CHANCE:
            outcomes, weights = zip(*game.chance_outcomes(state))
            state = game.apply(state, rng.choices(outcomes, weights)[0])
        else:
            moves = game.legal_moves(state)
            state = game.apply(state, moves[rng.randrange(len(moves))])
        ply += 1
    return None if game.is_terminal(state) else state
