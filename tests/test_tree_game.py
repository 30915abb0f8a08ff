"""The tree game: known trees, node counts as the arena counts them, syntax, spec and CLI."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
from math import inf
from pathlib import Path

import pytest

from fractions import Fraction

from arena import CHANCE, IllegalMoveError, ParameterError, get_registry, play_game
from arena.front.cli import main
from arena.referee import ask
from arena.testing import check_game
from games.tree import EXAMPLES, Tree, format_tree, move_text, parse_tree

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = get_registry(entry_points=False)
MINIMAX = "minimax:depth=none"
# plain alpha-beta: children in order, no table, full window (the game offers no fast paths)
ALPHABETA = "alphabeta:depth=none,ordering=false,table=false,window=infinite"


def CountingTree(**params) -> Tree:
    """The tree game, keeping in ``made`` every position ``apply`` makes.

    It wraps an instance's ``apply``: a subclass of a game does not inherit its declared
    parameters (arena/params.py replaces each declaration by its default in the class).
    """
    game = Tree(**params)
    plain = game.apply

    def apply(state, move):
        child = plain(state, move)
        game.made.append(child)
        return child

    game.made = []
    game.apply = apply
    return game


def first_search(spec: str, game: Tree):
    """The bot's decision at the root and the arena's node count, checked against root + applies."""
    bot = REGISTRY.bot(spec)
    bot.new_game(game, 0, 1)
    game.made.clear()
    decision, counter = ask(bot, game, game.initial_state())
    assert counter.nodes == 1 + len(game.made)  # the root, then one per position apply made
    return decision, counter.nodes


# Reference searches over nested tuples, written out here independently of bots/search.py.


def minimax(node, maximising=True):
    """(minimax value for the first player, nodes visited)."""
    if not isinstance(node, tuple):
        return node, 1
    results = [minimax(child, not maximising) for child in node]
    pick = max if maximising else min
    return pick(v for v, _ in results), 1 + sum(n for _, n in results)


def alphabeta(node, alpha=-inf, beta=inf, maximising=True):
    """Textbook alpha-beta (AIMA Figure 5.7), children in order: (value, nodes visited)."""
    if not isinstance(node, tuple):
        return node, 1
    best, nodes = (-inf if maximising else inf), 1
    for child in node:
        v, n = alphabeta(child, alpha, beta, not maximising)
        nodes += n
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
    return best, nodes


def random_tree(rng: random.Random, depth: int):
    """An inner node with 1-4 children; leaves at uneven depths, ints and some floats."""
    children = []
    for _ in range(rng.randint(1, 4)):
        if depth == 0 or rng.random() < 0.3:
            children.append(rng.randint(-9, 9) if rng.random() < 0.8 else round(rng.uniform(-20, 20), 2))
        else:
            children.append(random_tree(rng, depth - 1))
    return tuple(children)


RANDOM_TREES = [random_tree(random.Random(seed), 1 + seed % 5) for seed in range(12)]


# Known trees.


def test_bois_tree_minimax_and_alphabeta_counts():
    # The lecture tree of the Belgian Olympiad in Informatics training slides on game theory:
    # root (max) -> two min nodes -> two max nodes each, leaves (-2 3 1) (4 5 6) and
    # (-3 -1 1) (7 8 9). Minimax value 3. Alpha-beta in order with a full window prunes the
    # leaves 5 and 6 (beta cut-off once 4 is seen) and the whole node with 7 8 9 (alpha
    # cut-off once the second min node is at most 1). As the arena counts (root + every
    # position apply makes): minimax 1 + 2 + 4 + 12 = 19; alpha-beta 19 - 2 - 4 = 13.
    game = CountingTree(example="bois")
    assert game.root == ((( -2, 3, 1), (4, 5, 6)), ((-3, -1, 1), (7, 8, 9)))
    decision, nodes = first_search(MINIMAX, game)
    assert (nodes, decision.score, decision.move) == (19, 3, 0)
    decision, nodes = first_search(ALPHABETA, game)
    assert (nodes, decision.score, decision.move) == (13, 3, 0)
    assert game.format_move(decision.move) == "a"
    # the pruning is the slides': after the first min node, only a b a (leaves -3 -1 1) is seen
    text = [" ".join(map(move_text, path)) for path in game.made]
    assert text == ["a", "a a", "a a a", "a a b", "a a c", "a b", "a b a", "b", "b a", "b a a", "b a b", "b a c"]


def test_bois_tree_through_the_referee():
    game = CountingTree(example="bois")
    bots = [REGISTRY.bot(ALPHABETA), REGISTRY.bot(MINIMAX)]
    record = play_game(game, bots, seed=1)
    first, second, third = record.moves
    assert (first.move, first.nodes, first.score) == ("a", 13, 3)
    assert (second.move, second.nodes, second.score) == ("a", 9, -3)  # minimax: the whole 9-node subtree
    assert (third.move, third.score) == ("b", 3)
    assert record.utilities == (3, -3) and record.message == "first wins (leaf 3)"


def test_aima_figure_5_2():
    # Russell and Norvig, Artificial Intelligence: A Modern Approach, 3rd ed., Figure 5.2:
    # leaves (3 12 8) (2 4 6) (14 5 2), minimax value 3; Figure 5.5: alpha-beta prunes the
    # second and third leaves below C once its first leaf, 2, is seen. 13 nodes, and 11.
    game = CountingTree(example="aima")
    decision, nodes = first_search(MINIMAX, game)
    assert (nodes, decision.score, decision.move) == (13, 3, 0)
    decision, nodes = first_search(ALPHABETA, game)
    assert (nodes, decision.score, decision.move) == (11, 3, 0)


@pytest.mark.parametrize("index", range(len(RANDOM_TREES)))
def test_random_trees_match_reference_searches(index):
    tree = RANDOM_TREES[index]
    game = CountingTree(shape=format_tree(tree))
    assert game.root == tree
    for spec, reference in ((MINIMAX, minimax), (ALPHABETA, alphabeta)):
        value, expected = reference(tree)
        decision, nodes = first_search(spec, game)
        assert decision.score == value and nodes == expected, (spec, format_tree(tree))


# The rule book.


NAMED = [f"tree:example={name}" for name in EXAMPLES] + ["tree:shape=[1 [2 [3 [4 5]]]] -6"]


@pytest.mark.parametrize("spec", NAMED)
def test_conformance_named_trees(spec):
    assert check_game(REGISTRY.game(spec), playouts=30).positions > 0


@pytest.mark.parametrize("index", range(len(RANDOM_TREES)))
def test_conformance_random_trees(index):
    check_game(Tree(shape=format_tree(RANDOM_TREES[index])), playouts=10, seed=index)


def test_uneven_depths_and_players_alternate():
    game = Tree(shape="[4 [-1 [7 2.5]]]")
    assert game.to_move(()) == 0 and game.legal_moves(()) == [0, 1]
    shallow = game.play(["a"])
    assert game.is_terminal(shallow) and game.utility(shallow, 0) == 4 and game.utility(shallow, 1) == -4
    deep = game.play(["b", "b"])
    assert game.to_move(deep) == 0 and not game.is_terminal(deep) and game.legal_moves(deep) == [0, 1]
    leaf = game.apply(deep, 1)
    assert game.utility(leaf, 0) == 2.5 and game.utility(leaf, 1) == -2.5
    assert game.bounds == (-7, 7) and game.heuristic(deep, 0) == 0


def test_equal_paths_are_equal_states():
    game = Tree()
    one, two = game.play(["b", "a"]), game.apply(game.apply(game.initial_state(), 1), 0)
    assert one == two and hash(one) == hash(two) and one is not two
    assert pickle.loads(pickle.dumps(one)) == one
    assert game.play(["a", "b"]) != one
    assert pickle.loads(pickle.dumps(game)).spec == game.spec


@pytest.mark.parametrize(
    "shape, bounds",
    [
        ("[0 0] [0]", (-1, 1)),
        ("[5 5]", (-5, 5)),
        ("[-5 -5]", (-5, 5)),
        ("[0.25 -3.5]", (-3.5, 3.5)),
        ("[2 -9]", (-9, 9)),
    ],
)
def test_bounds_contain_every_leaf_and_the_heuristic_strictly(shape, bounds):
    game = Tree(shape=shape)
    assert game.bounds == bounds
    low, high = game.bounds
    assert low < game.heuristic((), 0) < high
    assert all(low <= game.utility(p, 0) <= high for p in game._leaves)


def test_moves_are_letters():
    game = Tree(shape=" ".join(["1"] * 800))
    assert [move_text(i) for i in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == [
        "a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"
    ]
    assert all(game.parse_move(game.format_move(i)) == i for i in range(800))
    assert game.parse_move(" B ") == 1
    for text in ("", "1", "a1", "ae1", "-", "aef"):  # "aef" is child 838, past the widest node
        with pytest.raises(IllegalMoveError, match="from a to adt"):
            game.parse_move(text)


def test_render_shows_the_path_and_a_small_subtree():
    game = Tree()
    assert game.render(game.play(["a"])).splitlines() == [
        "path: a; second player (min) to move; 9 nodes in this subtree",
        "*: min",
        "  a: max",
        "    a: -2",
        "    b: 3",
        "    c: 1",
        "  b: max",
        "    a: 4",
        "    b: 5",
        "    c: 6",
    ]
    leaf = game.render(game.play(["b", "a", "b"]))
    assert leaf == "path: b a b; a leaf: -1 for the first player, 1 for the second"
    big = Tree(shape=" ".join(f"[{i} {i}]" for i in range(100)))
    lines = big.render(()).splitlines()
    assert lines[0] == "path: root; first player (max) to move; 301 nodes in this subtree"
    assert len(lines) == 42 and lines[-1] == "... and 261 more nodes"


# The syntax and the spec.


def test_syntax_variants_give_one_tree():
    bois = Tree(example="bois").root
    for text in (
        "[[-2 3 1] [4 5 6]] [[-3 -1 1] [7 8 9]]",
        "[[[-2 3 1] [4 5 6]] [[-3 -1 1] [7 8 9]]]",
        "[[-2,3,1],[4,5,6]],[[-3,-1,1],[7,8,9]]",
        "  [ [ -2  3 1 ][4 5 6]]\n[[-3 -1 +1] [7 8 9]] # the second min node\n",
    ):
        assert parse_tree(text) == bois, text
    assert parse_tree("[[1 2]]") == ((1, 2),)  # one group is the root: here with one inner child
    assert parse_tree("[1 2]") == parse_tree("1 2") == (1, 2)
    assert parse_tree("1.5 -2e1") == (1.5, -20.0)


@pytest.mark.parametrize(
    "spec",
    ["tree", "tree:example=aima", "tree:shape=[1 [2 3]] 4", "tree:shape=[[1,2]]", "tree:shape=[0.5 -3 7.0]"]
    + ["tree:shape=" + format_tree(t) for t in RANDOM_TREES[:4]],
)
def test_spec_round_trip(spec):
    game = REGISTRY.game(spec)
    again = REGISTRY.game(game.spec)
    assert again.root == game.root and again.spec == game.spec
    assert [type(v) for v in again._leaves.values()] == [type(v) for v in game._leaves.values()]


def test_canonical_shape_in_the_spec():
    assert REGISTRY.game("tree:shape=[[1,2]],[3]").spec == "tree:shape=[[[1 2]] [3]]"
    assert REGISTRY.game("tree:shape=[[1 2] [3]]").spec == "tree:shape=[[1 2] [3]]"
    assert Tree().spec == "tree" and Tree().root == Tree(example="bois").root


def test_file_parameter(tmp_path):
    path = tmp_path / "bois.tree"
    path.write_text("# the BOI lecture tree\n[[-2 3 1] [4 5 6]]\n[[-3 -1 1]\n [7 8 9]]\n")
    game = REGISTRY.game(f"tree:file={path}")
    assert game.root == Tree(example="bois").root and game.spec == f"tree:file={path}"
    assert REGISTRY.game(game.spec).root == game.root
    path.write_text("[1 2]\n[3 x]\n")
    with pytest.raises(ParameterError, match=r"at line 2, column 4 .*'x' is not a number"):
        Tree(file=str(path))
    with pytest.raises(ParameterError, match="cannot read tree file .*No such file"):
        Tree(file=str(tmp_path / "missing.tree"))
    path.write_bytes(b"[1 \xff]")
    with pytest.raises(ParameterError, match="cannot read tree file .*can't decode byte 0xff"):
        Tree(file=str(path))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("tree:shape=[[1 2] [3 4]", r"at character 1 .*'\[' is never closed"),
        ("tree:shape=[1 2]] 3", r"at character 6 .*'\]' closes no '\['"),
        ("tree:shape=[1 [] 2]", r"at character 4 .*'\[\]' is an inner node without children"),
        ("tree:shape=[1 two]", r"at character 4 .*'two' is not a number"),
        ("tree:shape=[1 inf]", r"at character 4 .*'inf' is not a number"),
        ("tree:shape=,", r"at character 2 .*: the tree is empty"),
        ("tree:shape=[1],example=bois", r"give only one of shape, file and example"),
        ("tree:example=chess", r"choose one of: bois, aima"),
    ],
)
def test_malformed_specs_give_one_clear_line(spec, message, capsys):
    with pytest.raises(ParameterError, match=message) as info:
        REGISTRY.game(spec)
    assert "\n" not in str(info.value)
    assert main(["play", spec, "--bot", "minimax", "--bot", "alphabeta"]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("arena: error: ") and not out


@pytest.mark.processes
def test_cli_plays_a_tree():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = ["play", "tree:example=bois", "--bot", "minimax", "--bot", "alphabeta", "--seed", "1"]
    proc = subprocess.run(
        [sys.executable, "-m", "arena", *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "move 1: first (minimax) plays a  (19 nodes" in proc.stdout  # default depth 4 reaches every leaf
    assert "path: a a b; a leaf: 3 for the first player, -3 for the second" in proc.stdout
    assert "first wins (leaf 3)" in proc.stdout


# -- chance nodes ----------------------------------------------------------------------------


def test_the_aima_chance_example_has_the_books_values_and_an_order_preserving_change_flips_it():
    """Russell and Norvig, AIMA 3rd ed., Figure 5.12: max over chance nodes (0.9 and 0.1) over
    min nodes; the first move is worth 0.9 * 2 + 0.1 * 3 = 2.1 and the second 1.3. With the
    leaves changed to 20, 30, 1 and 400 (same order) the second wins: 40.9 against 21."""
    from bots.expectimax import ExpectimaxBot, Star1Bot, Star2Bot

    book = Tree(example="aima-chance")
    changed = Tree(shape="{0.9:[20 20] 0.1:[30 30]} {0.9:[1 1] 0.1:[400 400]}")
    assert book.model.chance and check_game(book).sampling is not None
    for cls in (ExpectimaxBot, Star1Bot, Star2Bot):
        answer, _ = ask(cls(), book, ())
        assert (answer.move, answer.score) == (0, pytest.approx(2.1))
        answer, _ = ask(cls(), changed, ())
        assert (answer.move, answer.score) == (1, pytest.approx(40.9))


def test_chance_nodes_read_back_and_the_players_alternate_at_decisions_only():
    tree = Tree(shape="{1/3:1 2/3:[4 {0.25:5 0.75:[6 7]}]}")
    assert tree.shape == "{1/3:1 2/3:[4 {0.25:5 0.75:[6 7]}]}"
    assert Tree(shape=tree.shape).shape == tree.shape
    assert tree.to_move(()) == CHANCE and tree.chance_outcomes(()) == [(0, Fraction(1, 3)), (1, Fraction(2, 3))]
    assert tree.to_move((1,)) == 0  # the first decision: max's
    assert tree.to_move((1, 1)) == CHANCE and tree.to_move((1, 1, 1)) == 1  # the next decision: min's
    assert "a (1/3): 1" in tree.render(()) and "b (2/3): max" in tree.render(())
    assert not Tree(example="bois").model.chance


@pytest.mark.parametrize("shape, words", [
    ("{0.5:1 0.4:2}", "the probabilities of a chance node add up to 0.9, not 1"),
    ("{1 2}", "each child of a chance node {...} comes after its probability and a colon"),
    ("[0.5:1]", "'0.5:': a probability belongs before a child of a chance node"),
    ("{0.5:1 0.5:}", "a probability without a child after it"),
    ("{2:1}", "probability 2 is not above 0 and at most 1"),
    ("{x:1}", "'x' is not a probability"),
    ("{0.5:1 0.5:2]", "']' closes the '{' at character 1"),
])
def test_a_malformed_chance_node_is_one_line_naming_the_problem(shape, words):
    with pytest.raises(ParameterError) as info:
        Tree(shape=shape)
    assert words in str(info.value) and "\n" not in str(info.value)
