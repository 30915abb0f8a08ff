"""Recorded search trees: the lecture example's numbers and pruning, Nim's values, and a
recording that changes nothing the search finds (known answers of tests/test_search.py,
tests/test_solver.py and tests/test_connect4_solve.py)."""

from __future__ import annotations

from math import inf

import pytest

from arena import Budget, Decision, ParameterError
from arena.referee import ask
from arena.searchtree import BOUNDS, HORIZON, INNER, LEAF, OPEN, TABLE, Recorder, record_search
from games.nim import Nim
from games.tree import Tree
from results.treeview import outline

MINIMAX = "minimax:depth=none"
# alpha-beta as the lecture runs it: children in order, full window, no table
ALPHABETA = "alphabeta:depth=none,ordering=false,table=false,window=infinite"


def record(registry, spec, game, state=None, budget=None, max_nodes=100_000):
    bot = registry.bot(spec)
    state = game.initial_state() if state is None else state
    bot.new_game(game, game.to_move(state), 1)
    return record_search(bot, game, state, budget, max_nodes)


def subtree(root, path):
    for i in path:
        root = root[i]
    return root


def leaves(node) -> list:
    return [v for child in node for v in leaves(child)] if isinstance(node, tuple) else [node]


def minimax(node, maximising=True):
    if not isinstance(node, tuple):
        return node
    values = [minimax(child, not maximising) for child in node]
    return max(values) if maximising else min(values)


def windows(node, alpha=-inf, beta=inf, maximising=True, path=(), out=None):
    """Textbook alpha-beta (AIMA Figure 5.7) in order, noting each visited node's (alpha, beta) on entry."""
    out = {} if out is None else out
    out[path] = (alpha, beta)
    if not isinstance(node, tuple):
        return node, out
    best = -inf if maximising else inf
    for i, child in enumerate(node):
        v, _ = windows(child, alpha, beta, not maximising, path + (i,), out)
        if maximising:
            best = max(best, v)
            if best >= beta:
                break
            alpha = max(alpha, best)
        else:
            best = min(best, v)
            if best <= alpha:
                break
            beta = min(beta, best)
    return best, out


def test_bois_minimax_records_19_nodes_with_their_minimax_values(registry):
    # Belgian Olympiad in Informatics training slides on game theory: value 3; counted as
    # the arena counts (root + every position apply makes), 1 + 2 + 4 + 12 = 19 nodes
    game = Tree(example="bois")
    rec = record(registry, MINIMAX, game)
    (tree,) = rec.trees
    assert rec.nodes == tree.seen == len(tree.nodes) == 19
    assert tree.value == rec.decision.score == 3 and not tree.truncated
    for node in tree.nodes:
        assert node.root_value == minimax(subtree(game.root, node.path), maximising=node.ply % 2 == 0)
        assert node.kind == (LEAF if node.path in game._leaves else INNER) and node.cut is None
        assert node.root_view == (node.ply % 2 == 0)
        assert node.children == [c.index for c in tree.nodes if c.parent == node.index]


def test_bois_alphabeta_prunes_as_the_lecture_does(registry):
    # the same slides: 13 nodes, value 3; a beta cut-off below the first min node once 4 is
    # seen prunes the leaves 5 and 6; an alpha cut-off at the second min node once it is at
    # most 1 prunes its whole second child, the leaves 7, 8 and 9
    game = Tree(example="bois")
    rec = record(registry, ALPHABETA, game)
    (tree,) = rec.trees
    assert rec.nodes == len(tree.nodes) == 13 and tree.value == 3
    nodes = {n.path: n for n in tree.nodes}
    cuts = {path: n for path, n in nodes.items() if n.cut is not None}
    assert set(cuts) == {(0, 1), (1,)}
    high, low = cuts[(0, 1)], cuts[(1,)]
    assert (high.cut, high.root_value, high.bound) == (1, 4, "lower")  # max node: at least 4
    assert sorted(game._leaves[(0, 1, m)] for m in high.pruned) == [5, 6]
    assert (low.cut, low.root_value) == (1, 1) and low.bound == "lower"  # for min: max's "at most 1"
    assert [leaves(subtree(game.root, (1,) + (m,))) for m in low.pruned] == [[7, 8, 9]]
    # every window as the lecture draws it (max/min view): the reference search's, e.g.
    # [-inf, 3] at the second max node and [3, inf] at the second min node
    value, expected = windows(game.root)
    assert value == 3 and set(expected) == set(nodes)
    assert {path: n.root_window for path, n in nodes.items()} == expected
    assert nodes[(0, 1)].root_window == (-inf, 3) and nodes[(1,)].root_window == (3, inf)
    text = outline(rec)
    assert "pruned: 2 children (b, c)" in text and "pruned: 1 child (b)" in text


def test_nim_1_2_values_are_the_classic_notes(registry):
    # the classic notes (Bouton's theorem): the player to move wins iff the heaps' xor is not 0;
    # (1, 2) is a win by moving to (1, 1), a loss; (2) and (1) are wins
    game = Nim(heaps=(1, 2))
    rec = record(registry, MINIMAX, game)
    (tree,) = rec.trees
    assert rec.nodes == len(tree.nodes)
    by_heaps = {}
    for node in tree.nodes:
        heaps = node.state[0]
        xor = 0
        for h in heaps:
            xor ^= h
        if sum(heaps):
            assert node.value == (1 if xor else -1), heaps
        by_heaps.setdefault(tuple(h for h in heaps if h), set()).add(node.value)
    assert by_heaps[(1, 2)] == {1} and by_heaps[(1, 1)] == {-1}
    assert by_heaps[(2,)] == {1} and by_heaps[(1,)] == {1}
    assert game.apply(game.initial_state(), rec.decision.move)[0] == (1, 1)
    assert tree.pv[0] == rec.decision.move


def counted_nodes(rec) -> int:
    """Nodes the recorded trees hold, as the arena counts: each tree records its root, the arena counts it once."""
    return sum(sum(not n.repeat for n in t.nodes) for t in rec.trees) - (len(rec.trees) - 1)


def same_answers(registry, spec, game, state, budget=None):
    """The bot's decision and node count with recording off and on; recorded nodes as counted."""
    off_bot, on_bot = registry.bot(spec), registry.bot(spec)
    for bot in (off_bot, on_bot):
        bot.new_game(game, game.to_move(state), 1)
    off, counter = ask(off_bot, game, state, budget)
    rec = record_search(on_bot, game, state, budget, max_nodes=1 << 30)
    assert isinstance(off, Decision)
    assert (rec.decision, rec.nodes) == (off, counter.nodes)
    assert counted_nodes(rec) == rec.nodes
    return rec


@pytest.mark.parametrize(
    "spec, nodes",
    [
        # tests/test_search.py: OpenSpiel's alpha_beta_search on tic-tac-toe from the empty board
        ("alphabeta:depth=none,ordering=false,table=false,window=infinite", 18_297),
        ("alphabeta:depth=none,ordering=false,table=false", 16_811),
        ("alphabeta:depth=none", None),
        ("alphabeta:depth=none,ordering=false", None),
        ("iterative", None),
        ("solver", None),
        ("solver:weak=true", None),
        ("alphabeta:depth=3", None),
    ],
)
def test_recording_changes_nothing_on_tictactoe(registry, spec, nodes):
    game = registry.game("tictactoe")
    rec = same_answers(registry, spec, game, game.initial_state())
    assert rec.decision.score == 0 or spec.endswith("depth=3")  # tic-tac-toe is a draw
    if nodes is not None:
        assert rec.nodes == nodes


def test_recording_the_whole_tictactoe_tree_changes_nothing(registry):
    # tests/test_search.py: the complete game tree has 549,946 nodes (se16.info/hgb/tictactoe.htm)
    game = registry.game("tictactoe")
    bot = registry.bot(MINIMAX)
    rec = record_search(bot, game, game.initial_state(), max_nodes=1000)
    assert rec.nodes == rec.trees[0].seen == 549_946 and rec.decision.score == 0
    assert len(rec.trees[0].nodes) == 1000 and rec.trees[0].truncated and rec.truncated


@pytest.mark.parametrize(
    "spec, moves, score",
    [
        # Pascal Pons's tutorial (blog.gamesolver.org, "Solving Connect 4", part 2): after
        # 4455 the side to move scores 18, after 44455554221 -15 (tests/test_connect4_solve.py)
        ("solver", "4455", 18),
        ("solver", "44455554221", -15),
        ("solver:weak=true", "44455554221", -1),
        ("iterative:max_depth=5", "4455", None),
        ("alphabeta:depth=5", "", None),
        ("alphabeta:depth=4,ordering=false,table=false", "44", None),
    ],
)
def test_recording_changes_nothing_on_connect4(registry, spec, moves, score):
    game = registry.game("connect4:scoring=moves")
    rec = same_answers(registry, spec, game, game.play(moves))
    if score is not None:
        assert rec.decision.score == score


def test_every_kind_of_node_is_recorded_and_counted(registry):
    tictactoe = registry.game("tictactoe")
    # iterative deepening: the depth limit, the table, the game's tactics and PVS re-searches
    rec = same_answers(registry, "iterative", tictactoe, tictactoe.initial_state())
    nodes = [n for t in rec.trees for n in t.nodes]
    assert {n.kind for n in nodes} == {INNER, HORIZON, TABLE, BOUNDS}
    assert any(n.repeat for n in nodes)
    for n in nodes:
        if n.kind == HORIZON:
            assert n.value == tictactoe.heuristic(n.state, n.mover) and not n.children
        if n.kind in (TABLE, BOUNDS):
            assert not n.children and n.cut is None
    plain = same_answers(registry, "alphabeta:depth=none,ordering=false,table=false", tictactoe, tictactoe.initial_state())
    for n in plain.trees[0].nodes:
        if n.kind == LEAF:
            assert tictactoe.is_terminal(n.state) and n.value == tictactoe.utility(n.state, n.mover)


def test_moves_the_tactics_leave_out_are_recorded(registry):
    game = registry.game("tictactoe")
    state = game.play(["c1", "b2", "b3", "c3"])  # O threatens a1-b2-c3: X must block at a1
    rec = same_answers(registry, "alphabeta:depth=none,table=false", game, state)
    nodes = [n for n in rec.trees[0].nodes if n.skipped]
    assert nodes and nodes[0].ply == 0 and set(nodes[0].skipped) == set(game.legal_moves(state)) - {game.parse_move("a1")}
    for node in nodes:
        for move in node.skipped:  # each loses at once: the opponent wins with the next move
            child = game.apply(node.state, move)
            assert any(
                game.is_terminal(game.apply(child, reply)) and game.utility(game.apply(child, reply), node.mover) < 0
                for reply in game.legal_moves(child)
            )
    plain = same_answers(registry, "alphabeta:depth=none,ordering=false,table=false", game, state)
    assert not any(n.skipped for n in plain.trees[0].nodes)


def test_the_node_limit_keeps_the_first_nodes_and_says_so(registry):
    game = Tree(example="bois")
    rec = record(registry, MINIMAX, game, max_nodes=5)
    (tree,) = rec.trees
    assert len(tree.nodes) == 5 and tree.seen == rec.nodes == 19 and tree.truncated
    assert [len(n.path) for n in tree.nodes] == [0, 1, 2, 3, 3]  # pre-order: the first five
    assert tree.value == 3 and tree.nodes[0].value == 3
    assert "node limit was reached: 5 of 19 nodes recorded" in outline(rec)
    with pytest.raises(ParameterError, match="max_nodes"):
        Recorder(0)


def test_a_search_cut_short_by_its_budget_marks_the_open_nodes(registry):
    game = registry.game("tictactoe")
    rec = record(registry, "alphabeta:depth=none,ordering=false,table=false", game, budget=Budget(nodes=40))
    (tree,) = rec.trees
    assert not tree.complete and rec.nodes == 40
    open_nodes = [n for n in tree.nodes if n.kind == OPEN]
    assert open_nodes and all(n.value is None for n in open_nodes) and tree.nodes[0].kind == OPEN
    # the open nodes are one line from the root
    assert sorted(n.ply for n in open_nodes) == list(range(len(open_nodes)))


def test_iterative_and_solver_record_one_tree_per_root_search(registry):
    game = Tree(example="bois")
    deepening = record(registry, "iterative", game)
    assert [t.depth for t in deepening.trees] == [1, 2, 3]
    assert counted_nodes(deepening) == deepening.nodes
    solver = record(registry, "solver", game)
    assert len(solver.trees) >= 2 and all(t.depth is None for t in solver.trees)
    assert all(t.beta - t.alpha == 1 for t in solver.trees)  # null windows on whole numbers
    assert solver.decision.score == 3


def test_recording_is_off_again_after_the_move_and_refused_by_other_bots(registry):
    game = Tree(example="bois")
    bot = registry.bot(ALPHABETA)
    record_search(bot, game, game.initial_state())
    assert bot.recorder is None
    with pytest.raises(ParameterError, match="cannot record"):
        record_search(registry.bot("greedy"), game, game.initial_state())
    with pytest.raises(ParameterError, match="finished game"):
        record_search(bot, game, (0, 0, 0))


def test_search_nodes_frame(registry):
    pytest.importorskip("pandas", reason="the nodes frame needs pandas")
    from results import search_nodes

    game = Tree(example="bois")
    rec = record(registry, ALPHABETA, game)
    frame = search_nodes(rec)
    assert len(frame) == 13 and frame["search"].eq(0).all()
    root = frame.iloc[0]
    assert root["path"] == "" and root["root_value"] == 3 and root["parent"] is pd_na()
    cut = frame[frame["path"] == "a b"].iloc[0]
    assert (cut["cut"], cut["pruned"], cut["bound"], cut["kind"]) == (1, "b c", "lower", "inner")
    assert frame["root_value"].tolist() == [n.root_value for n in rec.trees[0].nodes]


def pd_na():
    import pandas as pd

    return pd.NA
