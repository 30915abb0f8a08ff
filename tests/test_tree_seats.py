"""``arena tree`` for the n-seat searches: max^n's value vectors and cut-offs, paranoid's and
Best-Reply Search's values, held to the brute-force searches of tests/plugins/nplayer.py on
seeded random constant-sum and general-sum trees, and on Nim and Rolit for three seats.
A recording changes nothing the bot decides nor the nodes the arena counts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from math import inf
from pathlib import Path

import pytest

from arena import Budget
from arena.front.cli import main
from arena.referee import ask
from arena.searchtree import HORIZON, INNER, LEAF, TABLE, Recorder, record_search
from bots.brs import BestReplySearch
from bots.maxn import MaxnSearch
from bots.paranoid import ParanoidSearch
from results.treeseats import entry_text, vector_text
from results.treeview import outline, svg
from tests.plugins.nplayer import brute_brs, brute_maxn, brute_paranoid, trees

SVG = "{http://www.w3.org/2000/svg}"


def counted_nodes(rec) -> int:
    """Nodes the recorded trees hold, as the arena counts: each tree records its root, the arena counts it once."""
    return sum(sum(not n.repeat for n in t.nodes) for t in rec.trees) - (len(rec.trees) - 1)


def recorded(search_class, game, depth, **options):
    """One root search of ``depth`` plies, recorded: (its tree, its result)."""
    recorder = Recorder(max_nodes=1 << 20)
    result = search_class(game, recorder=recorder, **options).root(game.initial_state(), depth)
    (tree,) = recorder.trees
    return tree, result


def positions(game, count, plies=(0, 2, 4, 6)):
    """A few positions of ``game`` where the seat to move has a choice: the start, then each
    ``plies`` deep along the first legal moves rotated."""
    out = []
    for k, deep in enumerate(plies):
        state = game.initial_state()
        for ply in range(deep):
            if game.is_terminal(state):
                break
            moves = game.legal_moves(state)
            state = game.apply(state, moves[(k + ply) % len(moves)])
        if not game.is_terminal(state) and len(game.legal_moves(state)) > 1:
            out.append(state)
    return out[:count]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- max^n ----------------------------------------------------------------------------------


@pytest.mark.parametrize("constant", [True, False])
def test_every_recorded_maxn_vector_is_brute_force_maxn_and_cuts_are_where_the_sum_allows(constant):
    shallow_cuts = 0
    for game in trees(120, constant=constant, depth=5):
        n, (low, high) = game.model.players, game.bounds
        total = game.model.total
        for depth in (2, 3, 5):
            tree, result = recorded(MaxnSearch, game, depth)
            nodes = tree.nodes
            assert (tree.vector, tree.move, tree.method) == (result.vector, result.move, "maxn")
            assert tree.vector == brute_maxn(game, game.initial_state(), depth)[0]
            assert nodes[0].vector == tree.vector and tree.value == tree.vector[tree.player]
            for node in nodes:
                truth = brute_maxn(game, node.state, depth - node.ply)[0]
                if node.kind in (LEAF, HORIZON):
                    assert node.vector == truth and not node.children
                    continue
                assert node.kind == INNER and node.value == node.vector[node.mover]
                kids = [nodes[c] for c in node.children]
                assert [k.move for k in kids] + list(node.pruned) == game.legal_moves(node.state)
                if node.parent is not None:  # the bound: the parent's best so far, before this child
                    parent = nodes[node.parent]
                    earlier = [nodes[c].vector[parent.mover] for c in parent.children if c < node.index]
                    if node.parent_best is not None:
                        assert node.parent_best == max(earlier)
                if node.cut is None or node.parent_best is None:  # not cut, or cut at the most a seat gets
                    assert node.vector == truth, (game.seed, depth, node.path)
                    if node.cut is not None:
                        assert node.vector[node.mover] >= high
                    continue
                # a shallow cut-off: only with a constant sum, and only where it leaves the parent's
                # seat no more than it has
                shallow_cuts += 1
                assert total is not None and node.mover != nodes[node.parent].mover
                assert node.beta == total - (n - 2) * low - node.parent_best
                got = node.vector[node.mover]
                assert got >= node.beta and total - (n - 2) * low - got <= node.parent_best
                assert truth[node.mover] >= got  # the node is worth at least that to its seat to move
                assert truth[nodes[node.parent].mover] <= node.parent_best  # the parent never chooses it
    assert (shallow_cuts > 50) == constant, shallow_cuts


def test_the_recorded_maxn_root_is_what_the_bot_decided(registry):
    for spec in ("nim:players=3", "nim:players=4,heaps=1 2 3", "rolit:players=3,size=4", "rolit:size=6"):
        game = registry.game(spec)
        for state in positions(game, 3):
            for depth in (1, 2, 3):
                bot = registry.bot("maxn")
                bot.new_game(game, game.to_move(state), 1)
                rec = record_search(bot, game, state, Budget(depth=depth))
                tree = rec.trees[-1]
                assert rec.decision.score == tree.vector[game.to_move(state)] == tree.value
                assert (rec.decision.move, rec.decision.depth) == (tree.move, tree.depth)
                assert tree.vector == brute_maxn(game, state, tree.depth)[0]


def test_the_outline_shows_vectors_seats_and_the_bound_of_a_shallow_cut(capsys):
    code, out, _ = run(capsys, "tree", "rolit:players=3,size=4", "--bot", "maxn:max_depth=2")
    assert code == 0
    assert "one value per seat (red, yellow, green), the seat to move's marked *" in out
    assert "value (0.49, 0.49, 0.02) for red, yellow, green; red (to move at the root)" in out
    lines = out.splitlines()
    assert "root  red  (*0.49, 0.49, 0.02)" in lines and "  d4  yellow  (0.49, *0.49, 0.02)" in lines
    assert "    a2  horizon  (0.71, 0.24, 0.05)" in lines
    cut = next(line for line in lines if line.startswith("  d2  yellow"))
    # red has 0.49 from d4; yellow's first reply to d2 gives it 0.57: red gets at most 1 - 0.57 there
    assert cut == ("  d2  yellow  (0.32, *≥0.57, 0.11)  cut if yellow ≥ 0.51  shallow cut-off after child 1 of 11: "
                   "yellow has ≥ 0.57, leaving red at most 1 - 0.57 = 0.43, no more than the 0.49 red has already; "
                   "pruned: 10 children (b1, c1, d1, a2, a3, d3, a4, b4, c4, d4)")


def test_vectors_are_rounded_and_the_mover_marked():
    assert vector_text((0.6, 0.3, 0.1), 1) == "(0.6, *0.3, 0.1)"
    assert vector_text((1.0, 0.0, 0.0)) == "(1, 0, 0)"
    assert vector_text((1 / 3, 0.125, 0.004, 0.5428), 3, lower=True) == "(0.33, 0.12, 0.004, *≥0.54)"
    assert entry_text(-0.25) == "-0.25" and entry_text(10.0) == "10"


def test_the_maxn_figure_draws_every_node_with_its_vector(registry):
    game = registry.game("rolit:players=3,size=4")
    bot = registry.bot("maxn:max_depth=2")
    bot.new_game(game, 0, 0)
    rec = record_search(bot, game, game.initial_state())
    root = ET.fromstring(svg(rec))
    groups = [g for g in root.iter(SVG + "g") if "node" in g.get("class", "").split()]
    assert len(groups) == sum(len(t.nodes) for t in rec.trees) == 13
    mine = [t for t in root.iter(SVG + "tspan") if t.get("class") == "mine"]
    assert len(mine) == sum(n.kind == INNER for t in rec.trees for n in t.nodes)  # the seat to move's entry
    assert {t.text for t in mine} >= {"0.49", "≥0.57", "≥0.52"}
    seats = {t.text for t in root.iter(SVG + "text") if t.get("class") == "seat"}
    assert seats == {"red", "yellow"}
    pruned = sum(int(g.get("data-count")) for g in root.iter(SVG + "g") if g.get("class") == "pruned")
    assert pruned == 12


def test_recording_changes_nothing_the_bots_decide_nor_the_nodes_counted(registry):
    for spec in ("rolit:players=3,size=4", "rolit:size=6", "nim:players=3", "rolit:players=2,size=4"):
        game = registry.game(spec)
        for bot_spec in ("maxn:max_depth=3", "maxn:max_depth=2,pruning=false", "paranoid:max_depth=3",
                         "paranoid:max_depth=3,table=false", "brs:max_depth=3"):
            if bot_spec.startswith("brs") and spec.startswith("nim"):
                continue  # Nim has no pass_to: Best-Reply Search refuses it
            for state in positions(game, 2):
                for budget in (None, Budget(nodes=150)):
                    off_bot, on_bot = registry.bot(bot_spec), registry.bot(bot_spec)
                    for bot in (off_bot, on_bot):
                        bot.new_game(game, game.to_move(state), 1)
                    off, counter = ask(off_bot, game, state, budget)
                    rec = record_search(on_bot, game, state, budget, max_nodes=1 << 20)
                    assert (rec.decision, rec.nodes) == (off, counter.nodes), (spec, bot_spec, budget)
                    assert counted_nodes(rec) == rec.nodes and on_bot.recorder is None
                    assert {t.method for t in rec.trees} == {bot_spec.split(":")[0]}


def test_an_unrecorded_search_runs_the_fast_node_functions(registry):
    game = registry.game("rolit:players=3,size=4")
    for search in (MaxnSearch(game), ParanoidSearch(game, root_seat=0), BestReplySearch(game, root_seat=0)):
        assert search.recorder is None and search.value.__qualname__.startswith("_node_function.")
    recording = MaxnSearch(game, recorder=Recorder())
    assert recording.value.__qualname__.startswith("_recording_node_function.")


# -- paranoid and Best-Reply Search: one value, the root seat's -------------------------------


def fail_soft(node, truth):
    """The fail-soft contract, in the root seat's view: exact inside the window, else a bound
    on the side it fell."""
    value, (alpha, beta) = node.root_value, node.root_window
    if value <= alpha:
        return truth <= value
    if value >= beta:
        return truth >= value
    return truth == value


@pytest.mark.parametrize("constant", [True, False])
def test_every_recorded_paranoid_value_is_brute_force_paranoid(constant):
    exact = 0
    for game in trees(100, constant=constant, depth=5):
        for depth in (1, 3, 5):
            tree, result = recorded(ParanoidSearch, game, depth, root_seat=0)
            assert (tree.value, tree.move, tree.method) == (result.value, result.move, "paranoid")
            assert tree.value == brute_paranoid(game, game.initial_state(), depth, 0)[0]
            assert (tree.alpha, tree.beta) == game.bounds
            for node in tree.nodes:
                truth = brute_paranoid(game, node.state, depth - node.ply, 0)[0]
                if node.kind in (LEAF, HORIZON):
                    assert node.root_value == truth
                    continue
                assert node.root_view == (node.mover == 0)  # the root seat max, the coalition min
                assert fail_soft(node, truth), (game.seed, depth, node.path)
                exact += node.root_window[0] < node.root_value < node.root_window[1]
    assert exact > 100


def test_paranoid_records_its_table_hits(registry):
    game = registry.game("nim:players=3,heaps=2 2 3")
    bot = registry.bot("paranoid:max_depth=6")
    bot.new_game(game, 0, 1)
    rec = record_search(bot, game, game.initial_state())
    assert any(n.kind == TABLE for t in rec.trees for n in t.nodes)
    assert rec.decision.score == brute_paranoid(game, game.initial_state(), rec.trees[-1].depth, 0)[0]


def test_every_recorded_brs_value_is_brute_force_brs_and_every_reply_names_its_seat():
    for game in trees(80, players=(3, 4), depth=5):
        for depth in (2, 3, 4):
            tree, result = recorded(BestReplySearch, game, depth, root_seat=0)
            nodes = tree.nodes
            assert tree.value == result.value == brute_brs(game, game.initial_state(), depth, 0)[0]
            for node in nodes:
                if node.kind not in (LEAF, HORIZON):
                    truth = brute_brs(game, node.state, depth - node.ply, 0, node.root_view)[0]
                    assert fail_soft(node, truth), (game.seed, depth, node.path)
                    layer = dict(node.layer)
                    seats = [0] if node.root_view else [s for s in range(game.model.players) if s]
                    assert sorted(layer) == seats  # max: the root seat; min: every opponent, merged
                    kids = [nodes[c] for c in node.children]
                    assert all(k.by in layer for k in kids)
                    assert sum(layer.values()) == len(kids) + len(node.pruned)
                if node.parent is not None:
                    assert node.by is not None


def test_the_brs_outline_names_the_opponents_and_the_seat_of_each_reply(capsys):
    code, out, _ = run(capsys, "tree", "rolit:players=3,size=4", "--moves", "d4", "--bot", "brs:max_depth=2")
    assert code == 0 and "a min layer holds every opponent's replies" in out
    lines = out.splitlines()
    assert "  a4  min green, red  0.1262  [0, 1]" in lines
    assert "    green a1  horizon  0.4385  [0, 1]" in lines
    assert "    red c1  horizon  0.1262  [0, 0.4385]  out of turn: the seats between passed" in lines
    assert any(re.match(r"  a2  min green, red  ≤ 0.01178 .* pruned: 2 children \(red c1, red a3\)", line)
               for line in lines)
    assert "principal variation a4\n" in out  # the line stops before red's reply out of turn


def test_the_paranoid_outline_is_the_two_player_drawing_with_seats(capsys):
    code, out, _ = run(capsys, "tree", "rolit:players=3,size=4", "--bot", "paranoid:max_depth=2")
    assert code == 0
    lines = out.splitlines()
    assert "root  max red  0.4884  [0, 1]" in lines and "  d4  min yellow  0.4884  [0, 1]" in lines
    assert "    a4  horizon  0.4884  [0, 0.7144]" in lines
    assert any(line.startswith("  d2  min yellow  ≤ 0.3249  [0.4884, 1]  α cut-off after child 1 of 11") for line in lines)


def test_outline_of_a_recording_cut_short_by_its_budget(registry):
    game = registry.game("rolit:size=6")
    for spec in ("maxn", "paranoid", "brs"):
        bot = registry.bot(spec)
        bot.new_game(game, 0, 1)
        rec = record_search(bot, game, game.initial_state(), Budget(nodes=200))
        text = outline(rec)
        assert "unfinished: out of budget" in text and counted_nodes(rec) == rec.nodes == 200


def test_the_search_tree_doc_shows_real_n_seat_output(capsys):
    text = (Path(__file__).resolve().parent.parent / "docs" / "search-trees.md").read_text()
    blocks = re.findall(r"```text\n\$ arena (.*?)\n(.*?)```", text, re.S)
    assert [command.split("--bot ")[1].split(":")[0] for command, _ in blocks] == ["maxn", "paranoid"]
    for command, shown in blocks:
        code, out, _ = run(capsys, *command.split())
        assert code == 0 and out == shown, command


def test_inf_bounds_are_recorded_without_pruning():
    game = next(trees(1, players=(3,), depth=4))
    tree, _ = recorded(MaxnSearch, game, 4, pruning=False)
    assert all(n.beta == inf and n.cut is None for n in tree.nodes)
