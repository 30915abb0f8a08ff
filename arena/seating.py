"""Seat schedules for games with n >= 2 seats: who sits where, so that no bot profits from its seat.

Seat 0 moves first and turn order is cyclic: the last seat moves just before the first. A
seating is a permutation of ``range(n)``: ``seating[s]`` is the table's bot in seat s.
``seating_cycle(n)`` balances two things at once: every bot sits in every seat equally
often, and every ordered pair of bots (a moves immediately before b, cyclically) occurs
equally often, so no bot is favoured by who it follows.

The schedule is made of blocks of n games, each a Latin square (every bot in every seat
once), so a schedule cut after any whole block is still seat-balanced. Mostly a block is
the n rotations of one directed Hamiltonian cycle of the bots, inside which only the first
mover changes, never the neighbours. The cycles cover every arc of the complete directed graph K_n* equally often
(lambda times), which balances the neighbours over the whole schedule: n * lambda * (n-1)
games. No balanced schedule of any shape has fewer than n(n-1) games (the count must be a
multiple of both n and n-1), so lambda = 1 is the least.

- n = 2: the two games (0, 1), (1, 0).
- prime n: the cycles (0, k, 2k, ...) mod n for k = 1..n-1; lambda = 1.
- odd composite n: Walecki's (n-1)/2 Hamiltonian cycles of K_n, each both ways; lambda = 1.
- n = 4 and 6: K_n* has no Hamiltonian decomposition (Tillson 1980), so rotation blocks would
  need lambda = 2 (24 and 60 games); blocks that are other Latin squares reach the least,
  n(n-1): 12 and 30 games (``_LEAST``, found by search and checked by the tests).
- even n from 8 to 18: a decomposition of K_n* by depth-first search (0.1 s for 18); lambda = 1.
- larger even n: lambda = 2 as for 4 and 6. Balanced, but twice the least: Tillson's
  construction exists (J. Combin. Theory B 29, 1980) and is not implemented here.

``tables(bots, seats)`` seats more bots than seats at tables, ``table_games`` maps a table
onto a schedule and ``balance`` counts seats and neighbours over any list of games.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from typing import Sequence

from arena.errors import ParameterError

Seating = tuple[int, ...]

_SEARCH_SEATS = range(8, 19, 2)
_SEARCH_BUDGET = 250_000  # steps; n = 18 needs 132,878, n = 20 far more


#: The least balanced schedules of 4 and 6 seats, in Latin-square blocks that are not rotations
#: (K_4* and K_6* have no Hamiltonian decomposition, Tillson 1980): 6 seats, 5 seatings each
#: with its 6 translates (every bot's number plus t, mod 6).
_LEAST = {
    4: ((0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 0, 1), (3, 2, 1, 0),
        (0, 1, 3, 2), (1, 0, 2, 3), (2, 3, 1, 0), (3, 2, 0, 1),
        (0, 2, 1, 3), (1, 3, 0, 2), (2, 0, 3, 1), (3, 1, 2, 0)),
    6: tuple(tuple((v + t) % 6 for v in base) for base in ((0, 1, 2, 3, 4, 5), (0, 2, 1, 3, 5, 4), (0, 2, 4, 1, 5, 3),
                                                            (0, 3, 2, 5, 4, 1), (0, 3, 1, 5, 4, 2)) for t in range(6)),
}  # fmt: skip


class _OutOfBudget(Exception):
    """The search took more steps than it was allowed."""


def _check_seats(n) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ParameterError(f"seats must be an int >= 2, got {n!r}")


def block(n: int) -> int:
    """Games per seat-balanced block of ``seating_cycle(n)``: n, one per rotation."""
    _check_seats(n)
    return n


@functools.cache
def seating_cycle(n: int) -> tuple[Seating, ...]:
    """The seatings of n bots at an n-seat table, every seat and every ordered neighbour
    pair equally often; blocks of n rotations of one cycle (see the module docstring).

    n(n-1) games, or 2n(n-1) for even n > 18; the first seats the bots in order.
    Deterministic and cached.
    """
    _check_seats(n)
    if n in _LEAST:
        return _LEAST[n]
    cycles = _cycles(n)
    # Relabel so that the first game seats the bots in order; balance does not see names.
    label = {bot: i for i, bot in enumerate(cycles[0])}
    cycles = [tuple(label[b] for b in c) for c in cycles]
    return tuple(itertools.chain.from_iterable(_rotations(c) for c in cycles))


def cycle_facts(n: int) -> str:
    """One line saying what ``seating_cycle(n)`` guarantees, for reports and help texts."""
    games = len(seating_cycle(n))
    least = n * (n - 1)
    line = (
        f"{games} games: every bot in every seat {_times(games // n)}, every ordered pair "
        f"adjacent in {games // (n - 1)} games, seats balanced after every block of {n}"
    )
    if games == least:
        return line
    return f"{line}; twice the least, {least}: Tillson's (1980) decomposition of K_{n}* is not implemented"


def _times(k: int) -> str:
    return "once" if k == 1 else f"{k} times"


def tables(bots: int, seats: int) -> list[Seating]:
    """Which bots sit together when there are more bots than seats: every ``seats``-subset
    of ``range(bots)``, in lexicographic order.

    An exact design: every bot sits at C(bots-1, seats-1) tables and every pair of bots
    meets at C(bots-2, seats-2), so no bot gets easier tablemates than another. There are
    C(bots, seats) tables, which grows fast: 10 bots at 4 seats make 210 tables.
    With bots == seats, the one table.
    """
    _check_seats(seats)
    if isinstance(bots, bool) or not isinstance(bots, int) or bots < seats:
        raise ParameterError(f"bots must be an int >= seats ({seats}), got {bots!r}")
    return list(itertools.combinations(range(bots), seats))


def table_games(table: Sequence[int], cycle: Sequence[Sequence[int]]) -> list[Seating]:
    """A table's games: each seating of ``cycle`` with the table's bot ids in its seats."""
    games = []
    for seating in cycle:
        if len(seating) != len(table):
            raise ParameterError(f"seating {tuple(seating)!r} does not fit table {tuple(table)!r}")
        games.append(tuple(table[i] for i in seating))
    return games


def balance(games: Sequence[Sequence[int]]) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    """Counts over seated games: ``{(bot, seat): games}`` and ``{(a, b): games in which a
    moves immediately before b}``, read cyclically (the last seat is followed by seat 0).

    Counts that are missing are zero: a checker should compare against the full key set.
    """
    seats: Counter = Counter()
    pairs: Counter = Counter()
    for game in games:
        for s, bot in enumerate(game):
            seats[bot, s] += 1
            pairs[bot, game[(s + 1) % len(game)]] += 1
    return dict(seats), dict(pairs)


# The constructions. Each returns directed Hamiltonian cycles as tuples starting with bot 0.


def _cycles(n: int) -> list[Seating]:
    if n == 2:
        return [(0, 1)]
    if _is_prime(n):
        return [tuple(i * k % n for i in range(n)) for k in range(1, n)]
    if n % 2:
        return _both_ways(_walecki(n))
    if n in _SEARCH_SEATS:
        try:
            found = _decompose(n)
        except _OutOfBudget:
            found = None
        if found:
            return list(found)
    return _both_ways(_double_cover(n))


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))


def _from_zero(cycle: Sequence[int]) -> Seating:
    i = list(cycle).index(0)
    return tuple(cycle[i:]) + tuple(cycle[:i])


def _rotations(cycle: Seating) -> list[Seating]:
    return [cycle[r:] + cycle[:r] for r in range(len(cycle))]


def _both_ways(cycles: list[Seating]) -> list[Seating]:
    """Each undirected cycle followed by its reverse: lambda undirected becomes lambda directed."""
    out = []
    for c in cycles:
        out += [c, (c[0],) + c[:0:-1]]
    return out


def _walecki(n: int) -> list[Seating]:
    """Walecki's decomposition of K_n, n odd, into (n-1)/2 Hamiltonian cycles: bot n-1 in
    the middle, the others on a circle Z_{n-1}, cycle i zigzagging i, i+1, i-1, ..., i+m."""
    m = (n - 1) // 2
    cycles = []
    for i in range(m):
        zigzag = [i] + [i + s * j for j in range(1, m) for s in (1, -1)] + [i + m]
        cycles.append(_from_zero([n - 1] + [v % (n - 1) for v in zigzag]))
    return cycles


def _double_cover(n: int) -> list[Seating]:
    """n-1 Hamiltonian cycles covering every edge of K_n, n even, twice: bot n-1 followed by
    the path 0, 1, -1, 2, -2, ..., m-1, -(m-1) on Z_{n-1}, and its n-1 translates.

    The path's steps are 1, 2, ..., n-2, which mod n-1 are each difference +-d twice, and
    translating an edge of difference d sweeps all edges of difference d once.
    """
    m = n // 2
    path = [0] + [s * j for j in range(1, m) for s in (1, -1)]
    return [_from_zero([n - 1] + [(v + t) % (n - 1) for v in path]) for t in range(n - 1)]


def _decompose(n: int, budget: int = _SEARCH_BUDGET) -> tuple[Seating, ...] | None:
    """n-1 directed Hamiltonian cycles covering every arc of K_n* once, by depth-first search
    in a fixed order; None if there are none (n = 4 and 6), and
    ``_OutOfBudget`` after ``budget`` steps. Recursion goes n(n-1) deep: keep n small.
    """
    free = [[v != w for w in range(n)] for v in range(n)]
    cycles: list[Seating] = []
    steps = 0

    def extend(path: list[int], seen: set[int]) -> bool:
        nonlocal steps
        steps += 1
        if steps > budget:
            raise _OutOfBudget
        last = path[-1]
        if len(path) == n:
            if not free[last][0]:
                return False
            free[last][0] = False
            cycles.append(tuple(path))
            k = len(cycles)
            # Every cycle passes bot 0 once, so cycle k may leave it by the arc 0 -> k+1.
            if k == n - 1 or extend([0, k + 1], {0, k + 1}):
                return True
            cycles.pop()
            free[last][0] = True
            return False
        for w in range(1, n):
            if free[last][w] and w not in seen:
                free[last][w] = False
                path.append(w)
                seen.add(w)
                if extend(path, seen):
                    return True
                path.pop()
                seen.discard(w)
                free[last][w] = True
        return False

    return tuple(cycles) if extend([0, 1], {0, 1}) else None
