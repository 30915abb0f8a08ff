"""Seat schedules (arena.seating): every bot in every seat and after every other bot equally
often, counted with ``balance``; each checker is also shown a broken schedule it must reject."""

import itertools
import re
from math import comb

import pytest

from arena.errors import ParameterError
from arena.seating import (
    _decompose,
    balance,
    block,
    cycle_facts,
    seating_cycle,
    table_games,
    tables,
)

# n(n-1) games, the least any balanced schedule can have, except for 4 and 6 seats: K_4* and
# K_6* have no decomposition into directed Hamiltonian cycles (Tillson, "A Hamiltonian
# decomposition of K*_2m, 2m >= 8", J. Combin. Theory B 29, 1980), so the rotation blocks
# need every arc covered twice: 2n(n-1).
GAMES = {2: 2, 3: 6, 4: 12, 5: 20, 6: 30, 7: 42, 8: 56, 9: 72}  # n(n-1), the least (see below)


def seats_balanced(games, bots, seats):
    """Every bot of ``bots`` in every seat the same, non-zero number of times, and no one else."""
    counts, _ = balance(games)
    wanted = {(b, s) for b in bots for s in range(seats)}
    return set(counts) == wanted and len(set(counts.values())) == 1


def pairs_balanced(games, bots):
    """Every ordered pair of distinct bots adjacent (a just before b) in the same, non-zero
    number of games, and no other pair."""
    _, counts = balance(games)
    wanted = {(a, b) for a in bots for b in bots if a != b}
    return set(counts) == wanted and len(set(counts.values())) == 1


def balanced(games, bots, seats):
    return seats_balanced(games, bots, seats) and pairs_balanced(games, bots)


def is_permutation(seating, n):
    return sorted(seating) == list(range(n))


def broken(games):
    """Ways to spoil a schedule that a checker must notice."""
    first, second = games[0], games[1]
    return [
        games[:-1],
        [(first[1], first[0]) + first[2:]] + list(games[1:]),
        [second] + list(games[1:]),
    ]


@pytest.mark.parametrize("n", sorted(GAMES))
def test_counts_and_balance(n):
    games = seating_cycle(n)
    assert len(games) == GAMES[n]
    seats, pairs = balance(games)
    assert set(seats.values()) == {GAMES[n] // n}
    assert set(pairs.values()) == {GAMES[n] // (n - 1)}
    assert balanced(games, range(n), n)
    for spoilt in broken(games):
        assert not balanced(spoilt, range(n), n)


@pytest.mark.parametrize("n, games", [(10, 90), (11, 110), (12, 132), (15, 210), (16, 240), (20, 760), (21, 420)])
def test_larger_tables(n, games):
    assert len(seating_cycle(n)) == games
    assert balanced(seating_cycle(n), range(n), n)


@pytest.mark.parametrize("n", sorted(GAMES))
def test_seatings_are_permutations(n):
    assert all(is_permutation(s, n) for s in seating_cycle(n))
    assert len(set(seating_cycle(n))) == len(seating_cycle(n))
    assert not is_permutation((0,) * n, n)
    assert not is_permutation(tuple(range(1, n + 1)), n)


@pytest.mark.parametrize("n", sorted(GAMES))
def test_every_block_balances_seats(n):
    games = seating_cycle(n)
    blocks = [games[i : i + block(n)] for i in range(0, len(games), block(n))]
    assert len(blocks) * n == len(games)
    assert all(seats_balanced(b, range(n), n) for b in blocks)
    if n not in (4, 6):  # rotation blocks: the neighbours stay, n arcs of one cycle, each in all n games
        assert all(len(balance(b)[1]) == n and set(balance(b)[1].values()) == {n} for b in blocks)
    spoilt = [games[1]] + list(games[1:n])
    assert not seats_balanced(spoilt, range(n), n)


def test_tillson_exceptions_by_exhaustive_search():
    # K_n* splits into directed Hamiltonian cycles for every n but 4 and 6 (Tillson 1980).
    assert _decompose(4) is None
    assert _decompose(6) is None
    for n in (2, 3, 5, 7, 8, 9, 10):
        cycles = _decompose(n)
        arcs = [(c[i], c[(i + 1) % n]) for c in cycles for i in range(n)]
        assert len(arcs) == len(set(arcs)) == n * (n - 1)
        assert all(is_permutation(c, n) for c in cycles)


def test_four_and_six_seats_reach_the_least_in_latin_square_blocks():
    """K_4* and K_6* have no Hamiltonian decomposition (Tillson 1980), so blocks of rotations
    cannot give n(n-1) games; the schedules used are Latin-square blocks of n(n-1) games, the
    least any balanced schedule can have (a multiple of both n and n-1)."""
    for n in (4, 6):
        games = seating_cycle(n)
        assert len(games) == n * (n - 1) and balanced(games, range(n), n)
        rotations = all(set(games[i:i + n]) == {tuple(games[i][(k + r) % n] for k in range(n)) for r in range(n)}
                        for i in range(0, len(games), n))
        assert not rotations


@pytest.mark.parametrize("n", sorted(GAMES))
def test_deterministic(n):
    assert seating_cycle.__wrapped__(n) == seating_cycle(n)
    assert seating_cycle(n)[0] == tuple(range(n))
    assert isinstance(seating_cycle(n), tuple) and all(isinstance(s, tuple) for s in seating_cycle(n))


def test_cycle_facts():
    assert cycle_facts(4) == (
        "12 games: every bot in every seat 3 times, every ordered pair adjacent in 4 games, "
        "seats balanced after every block of 4"
    )
    assert cycle_facts(5).startswith("20 games: every bot in every seat 4 times, every ordered pair adjacent in 5 games")
    assert "once" in cycle_facts(2)
    assert "not implemented" in cycle_facts(20)
    assert "twice" not in cycle_facts(8)


@pytest.mark.parametrize("bots, seats", [(4, 4), (5, 2), (5, 3), (6, 4), (7, 3)])
def test_tables_are_an_exact_design(bots, seats):
    ts = tables(bots, seats)
    assert ts == sorted(ts) and len(ts) == len(set(ts)) == comb(bots, seats)
    meets = {}
    for t in ts:
        for pair in itertools.combinations(t, 2):
            meets[pair] = meets.get(pair, 0) + 1
    assert set(meets) == set(itertools.combinations(range(bots), 2))
    assert set(meets.values()) == {comb(bots - 2, seats - 2)}
    assert all(sum(b in t for t in ts) == comb(bots - 1, seats - 1) for b in range(bots))


@pytest.mark.parametrize("bots, seats", [(5, 2), (5, 3), (6, 4), (7, 3)])
def test_tournament_over_tables_is_balanced(bots, seats):
    """Each table balanced, each bot at as many tables, each pair meeting as often: the whole
    tournament is balanced too; dropping a table breaks it."""
    ts = tables(bots, seats)
    games = [g for t in ts for g in table_games(t, seating_cycle(seats))]
    assert len(games) == len(ts) * len(seating_cycle(seats))
    assert balanced(games, range(bots), seats)
    fewer = [g for t in ts[1:] for g in table_games(t, seating_cycle(seats))]
    assert not balanced(fewer, range(bots), seats)


def test_table_games_map_seats_to_bots():
    games = table_games((3, 5, 9), seating_cycle(3))
    assert games[:3] == [(3, 5, 9), (5, 9, 3), (9, 3, 5)]
    assert balanced(games, (3, 5, 9), 3)
    with pytest.raises(ValueError, match=r"\(0, 1, 2\).*\(3, 5\)"):
        table_games((3, 5), seating_cycle(3))


@pytest.mark.parametrize("n", [1, 0, -3, 2.0, "3", True, None])
def test_bad_seat_counts(n):
    with pytest.raises(ValueError, match=re.escape(f"seats must be an int >= 2, got {n!r}")):
        seating_cycle(n)
    with pytest.raises(ParameterError):
        block(n)


@pytest.mark.parametrize("bots, seats", [(2, 3), (5, 1), (5.0, 3), (True, 1), (-1, 2)])
def test_bad_tables(bots, seats):
    with pytest.raises(ValueError):
        tables(bots, seats)
