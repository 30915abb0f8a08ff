"""The search's two copies of its node functions (bots/negamax.py) held to each other and to a
plain reference search, on small random games with every feature the search handles at once:
extra turns, transpositions, a symmetric table key, the game's tactics, move priorities and
value bounds, tables small enough to overflow, PVS, killers and history.

For every option set the fast search and the recording search must agree on everything they
leave behind (result, nodes counted, table entries, killers, history); the value must be the
plain depth-limited negamax value; and the recorded tree must be what the search did: every
leaf's value the game's, every window the one its parent handed down, every cut-off's pruned
moves the ones it left, every bound true of the reference value."""

from __future__ import annotations

import zlib
from math import inf

import pytest

from arena import Counter, Game
from arena.budget import counted
from arena.searchtree import BOUNDS, HORIZON, INNER, LEAF, TABLE, Recorder
from bots.negamax import EPSILON, table_store
from bots.search import UNLIMITED, Search
from bots.table import EXACT, LOWER, SOLVED, UPPER, Table



def mix(*parts) -> int:
    return zlib.crc32(repr(parts).encode())


class Piles(Game):
    """Take from one of three piles; which positions end the game, who moves next (an extra turn
    for a quarter of the moves), the utilities and the heuristic come from a seeded hash of the
    position. Piles 0 and 1 are interchangeable: the hash sees them sorted, and ``key`` maps a
    position and its mirror image to one key, as a board game's symmetries do."""

    name = "piles"
    bounds = (-1, 1)

    def __init__(self, seed: int, hooks: str = "", width: int = 3, cap: int = 2, length: int = 6, jumps: bool = False):
        super().__init__()
        self.seed, self.hooks = seed, hooks
        self.width, self.cap, self.length = width, cap, length  # piles, takes from each, takes in all
        self.jumps = jumps  # moves width.. take two at once: one position, reached at different depths
        self.calls = {"tactics": 0, "value_bounds": 0, "move_priorities": 0}

    def search_hooks(self):
        offered = super().search_hooks()
        wanted = {"key": "k", "tactics": "t", "move_priorities": "p", "value_bounds": "b"}
        return offered._replace(**{name: None for name, flag in wanted.items() if flag not in self.hooks})

    def h(self, state, tag: str) -> int:
        counts, mover = state
        return mix(self.seed, tag, tuple(sorted(counts[:2])) + counts[2:], mover)

    def initial_state(self):
        return ((0,) * self.width, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        moves = [i for i, c in enumerate(state[0]) if c < self.cap]
        if self.jumps:
            moves += [self.width + i for i, c in enumerate(state[0]) if c + 2 <= self.cap]
        return moves

    def apply(self, state, move):
        return self.child(state, move)

    def child(self, state, move):
        """``apply`` for the hooks below (what they look at is not searched, so not counted)."""
        counts, mover = state
        pile, take = (move, 1) if move < self.width else (move - self.width, 2)
        counts = counts[:pile] + (counts[pile] + take,) + counts[pile + 1:]
        again = self.h((counts, mover), "again") % 4 == 0
        return (counts, mover if again else 1 - mover)

    def is_terminal(self, state):
        taken = sum(state[0])
        return taken >= self.length or (taken >= 2 and self.h(state, "end") % 4 == 0)

    def utility(self, state, player):
        u = self.h(state, "u") % 3 - 1
        return u if player == 0 else -u

    def heuristic(self, state, player):
        v = (self.h(state, "v") % 199 - 99) / 100  # strictly inside the bounds
        return v if player == 0 else -v

    def key(self, state):
        counts, mover = state
        return (tuple(sorted(counts[:2])) + counts[2:], mover)

    def _ends(self, state, player):
        """The legal moves that end the game at once, with their utilities for ``player``."""
        out = {}
        for m in self.legal_moves(state):
            child = self.child(state, m)
            if self.is_terminal(child):
                out[m] = self.utility(child, player)
        return out

    def value_bounds(self, state, player):
        self.calls["value_bounds"] += 1
        return self._bounds(state, player)

    def _bounds(self, state, player):
        ends = self._ends(state, player)
        floor = max(ends.values(), default=-1)
        ceiling = floor if len(ends) == len(self.legal_moves(state)) else 1
        return (floor, ceiling)

    def tactics(self, state, rank=True):
        self.calls["tactics"] += 1
        floor, ceiling = self._bounds(state, state[1])
        if floor == ceiling:
            return (floor, ceiling, None)
        ends = self._ends(state, state[1])
        moves = [m for m in self.legal_moves(state) if ends.get(m) != -1]  # a loss at once is never best here
        if rank:
            moves.sort(key=lambda m: self.h(self.child(state, m), "rank"), reverse=True)
        return (floor, ceiling, moves)

    def move_priorities(self, state, moves):
        self.calls["move_priorities"] += 1
        return [self.h(self.child(state, m), "p") % 5 for m in moves]


def reference(game, state, depth):
    """The plain depth-limited negamax value for the player to move (extra turns not negated)."""
    known = game.__dict__.setdefault("known", {})  # (state, depth) -> value, kept with the game

    def value(state, depth):
        answer = known.get((state, depth))
        if answer is None:
            me = game.to_move(state)
            if game.is_terminal(state):
                answer = game.utility(state, me)
            elif depth <= 0:
                answer = game.heuristic(state, me)
            else:
                answer = -inf
                for m in game.legal_moves(state):
                    child = game.child(state, m)
                    v = value(child, depth - 1)
                    answer = max(answer, v if game.to_move(child) == me else -v)
            known[(state, depth)] = answer
        return answer

    return value(state, min(game.length + 1, UNLIMITED if depth is None else depth))


def search(game, options, recorder=None):
    counter = Counter()
    table = options.get("table")
    table = Table(table) if table else None
    s = Search(counted(game, counter), counter, pruning=options.get("pruning", True),
               ordering=options.get("ordering", False), table=table, pvs=options.get("pvs", False),
               recorder=recorder)
    return s, counter


# option sets: the search without pruning, alpha-beta, each ordering, PVS, tables large and
# small (16 entries: full within a search), each with each hook set of the game
OPTIONS = [
    {"pruning": False},
    {"pruning": False, "table": 1 << 12},
    {},
    {"ordering": True},
    {"pvs": True},
    {"pvs": True, "ordering": True},
    {"table": 1 << 12},
    {"table": 16, "ordering": True},
    {"table": 1 << 12, "ordering": True, "pvs": True},
    {"table": 16, "pvs": True},
]
HOOKS = ["", "k", "kp", "tp", "b", "bp", "ktpb"]
SEEDS = [1, 2, 3]


def parent_view(node, parent):
    """``node``'s window and value from its parent's mover's side."""
    if node.mover == parent.mover:
        return node.alpha, node.beta, node.value
    return -node.beta, -node.alpha, (None if node.value is None else -node.value)


def check_tree(game, tree, depth, plain_windows: bool, pvs: bool):
    """What the recorded tree says against the game and the reference search."""
    nodes = tree.nodes
    limit = UNLIMITED if depth is None else depth
    for node in nodes:
        assert node.value is not None and node.kind in (INNER, LEAF, HORIZON, TABLE, BOUNDS)
        remaining = limit - node.ply
        truth = reference(game, node.state, remaining)
        if node.kind == LEAF:
            assert game.is_terminal(node.state) and node.value == game.utility(node.state, node.mover)
        elif node.kind == HORIZON:
            assert not game.is_terminal(node.state) and remaining <= 0
            assert node.value == game.heuristic(node.state, node.mover)
        # fail-soft: an exact value inside the window, else a bound on the side it failed
        if node.bound == "exact":
            assert node.value == truth, (node.path, node.kind)
        elif node.bound == "lower":
            assert truth >= node.value
        else:
            assert truth <= node.value
        children = [nodes[i] for i in node.children]
        for child in children:
            assert child.ply == node.ply + 1 and child.path[:-1] == node.path
            assert child.state == game.apply(node.state, child.move) and child.mover == game.to_move(child.state)
        if node.kind != INNER:
            assert not children and node.cut is None and node.pruned == ()
            continue
        searched = list(dict.fromkeys(c.move for c in children))
        legal = game.legal_moves(node.state)
        assert sorted(searched + list(node.pruned) + list(node.skipped)) == sorted(legal)
        if node.cut is None:
            assert node.pruned == ()
        else:
            assert node.cut == len(searched)  # a cut-off at the last move prunes nothing
        if plain_windows:
            check_windows(node, children, remaining == 1 and node.ply > 0, pvs)  # the root scouts its leaves too


def check_windows(node, children, leaves: bool, pvs: bool):
    """Each child's window is the one alpha-beta hands down given its elder siblings' values
    (PVS: a null window after the first move, then the re-search; none one ply above the
    horizon, where the children are scored in their parent's loop, nor for an extra turn)."""
    alpha, beta = node.alpha, node.beta
    best, index = -inf, -1
    for i, child in enumerate(children):
        lo, hi, v = parent_view(child, node)
        if child.repeat:
            scout = children[i - 1]
            assert scout.move == child.move and not scout.repeat
            assert (lo, hi) == (parent_view(scout, node)[2], beta), child.path
        else:
            index += 1
            if pvs and index and not leaves and child.mover != node.mover:
                assert (lo, hi) == (alpha, alpha + EPSILON), child.path
            else:
                assert (lo, hi) == (alpha, beta), child.path
        if i + 1 < len(children) and children[i + 1].repeat:
            continue  # the re-search's value counts
        if v > best:
            best = v
            if v > alpha:
                alpha = v
    assert best == node.value
    if node.cut is not None:
        assert alpha >= beta


def check_table(game, table):
    """Every entry is true of the reference value at its depth (a solved one: the game value),
    its move is legal where it was stored, and the table is within its size."""
    assert len(table.entries) <= table.size
    generations = set()
    for depth, bound, v, move, generation, plan, state in table.entries.values():
        truth = reference(game, state, None if depth >= SOLVED else depth)
        assert {EXACT: v == truth, LOWER: truth >= v, UPPER: truth <= v}[bound], (state, depth, bound, v, truth)
        assert move is None or move in game.legal_moves(state)
        generations.add(generation)
    assert all(1 <= g <= table.generation for g in generations)


SMALL = (3, 2, 6)  # three piles, each taken at most twice, six takes at most
LARGE = (4, 3, 9)
CASES = [(seed, hooks, i, SMALL, False) for seed in SEEDS for hooks in HOOKS for i in range(len(OPTIONS))]
# deeper trees, where a table's move that differs from the tactics' first one is searched first
CASES += [(seed, hooks, i, LARGE, False) for seed in SEEDS for hooks in ("tp", "ktpb") for i in (7, 8, 9)]
# a position reached at different depths: a table's deeper result serves a shallower search
CASES += [(seed, hooks, i, LARGE, True) for seed in SEEDS for hooks in ("", "kp", "ktpb") for i in (2, 5, 6, 7, 8, 9)]


@pytest.mark.parametrize("seed, hooks, option, size, jumps", CASES)
def test_both_copies_agree_with_each_other_and_the_reference(seed, hooks, option, size, jumps):
    options = OPTIONS[option]
    game, twin = Piles(seed, hooks, *size, jumps), Piles(seed, hooks, *size, jumps)
    state = game.initial_state()
    fast, fast_counter = search(game, options)
    recorder = Recorder(max_nodes=1 << 20)
    slow, slow_counter = search(twin, options, recorder)
    # with a table and positions reached at different depths, values are the deeper ones
    exact = not (jumps and options.get("table"))
    # an iterative deepening: the table and killers carry over from depth to depth
    for depth in list(range(1, game.length - 1)) + [None]:
        fast_counter.reset()
        slow_counter.reset()
        a, b = fast.root(state, depth), slow.root(state, depth)
        assert a == b
        assert fast_counter.nodes == slow_counter.nodes == recorder.trees[-1].seen - 1  # the referee counts the root
        assert game.calls == twin.calls  # the same hooks asked as often
        if fast.table is not None:
            assert fast.table.entries == slow.table.entries and fast.table.generation == slow.table.generation
        assert (fast.killers, fast.history) == (slow.killers, slow.history)
        tree = recorder.trees[-1]
        assert (tree.move, tree.value, tree.pv) == (a.move, a.value, a.pv)
        assert a.complete and (a.exact or depth is not None)
        if not exact:
            continue
        if fast.table is not None:
            check_table(game, fast.table)
        assert a.value == reference(game, state, depth)
        if a.exact:
            assert a.value == reference(game, state, None)
        child = game.apply(state, a.move)
        v = reference(game, child, (UNLIMITED if depth is None else depth) - 1)
        assert (v if game.to_move(child) == game.to_move(state) else -v) == a.value  # the move is a best one
        check_tree(game, tree, depth, plain_windows=not set(hooks) & set("tb") and not options.get("table"),
                   pvs=fast.pvs)


def test_the_table_keeps_a_deeper_result_of_the_same_search_and_makes_room_only_for_new_keys():
    table = Table(64)
    table.new_search()
    store = table_store(table)
    store("k", "s", 5, 0.5, "m", -1, 1, None)
    assert table.entries["k"] == (5, EXACT, 0.5, "m", 1, None, "s")
    store("k", "s", 3, 0.25, "n", -1, 1, None)  # shallower, same search: the deeper result stays
    assert table.entries["k"][0] == 5
    store("k", "s", 5, 0.75, "n", -1, 1, None)  # as deep: replaced
    assert table.entries["k"][:4] == (5, EXACT, 0.75, "n")
    table.new_search()
    store("k", "s", 2, 0.25, "m", -1, 1, None)  # an earlier search's, however deep: replaced
    assert table.entries["k"] == (2, EXACT, 0.25, "m", 2, None, "s")
    # fail-soft bounds: at or below alpha an upper bound, at or above beta a lower one
    for best, bound in ((-1, UPPER), (-2, UPPER), (1, LOWER), (2, LOWER), (0, EXACT)):
        store(best, "s", 1, best, None, -1, 1, None)
        assert table.entries[best][1] == bound
    # full: a key already in the table is replaced in place, a new one makes room first
    table = Table(4)
    store = table_store(table)
    for key in range(4):
        store(key, "s", 1, 0.0, None, -1, 1, None)
    store(0, "s", 2, 0.5, None, -1, 1, None)
    assert sorted(table.entries) == [0, 1, 2, 3] and table.entries[0][0] == 2
    store(4, "s", 1, 0.5, None, -1, 1, None)
    assert 4 in table.entries and len(table.entries) <= 3 * table.size // 4 + 1
