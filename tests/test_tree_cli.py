"""``arena tree``: the outline, the SVG and HTML figures (in headless Chromium), every game and bot."""

from __future__ import annotations

import random
import re
import shutil
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from arena import get_registry
from arena.front.cli import main
from arena.searchtree import number_text, record_search
from bots.multiplayer import pass_hook
from games.tree import Tree
from results.treeview import layout, stub_groups, value_text

ALPHABETA = "alphabeta:depth=none,ordering=false,table=false,window=infinite"
SVG = "{http://www.w3.org/2000/svg}"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def node_lines(out: str) -> list[str]:
    """The outline's node lines: those after a search heading, indented by ply."""
    lines, inside = [], False
    for line in out.splitlines():
        if re.match(r"(search \d+ of \d+: )?(depth \d+|to the end), window", line):
            inside = True
        elif not line:
            inside = False
        elif inside and not line.startswith("("):
            lines.append(line)
    return lines


def recorded(spec: str, game_spec: str = "tree", moves=()):
    registry = get_registry(entry_points=False)
    game = registry.game(game_spec)
    bot = registry.bot(spec)
    state = game.play(list(moves))
    bot.new_game(game, game.to_move(state), 0)
    return record_search(bot, game, state, max_nodes=2000)


def test_outline_of_the_lecture_example(capsys):
    code, out, err = run(capsys, "tree", "tree:example=bois", "--bot", ALPHABETA)
    assert code == 0 and err == ""
    rec = recorded(ALPHABETA)
    lines = node_lines(out)
    nodes = rec.trees[0].nodes
    assert len(lines) == len(nodes) == 13
    game = Tree(example="bois")
    for line, node in zip(lines, nodes):
        indent = len(line) - len(line.lstrip())
        assert indent == 2 * node.ply
        fields = line.split("  ")
        assert fields[node.ply] == ("root" if not node.path else game.format_move(node.path[-1]))
        if node.path in game._leaves:  # a leaf shows the first player's utility, as drawn in the notes
            assert f"leaf  {number_text(game._leaves[node.path])}  " in line
    by_path = {" ".join(map(game.format_move, n.path)): line for n, line in zip(nodes, lines)}
    assert "max  ≥ 4  [-∞, 3]  β cut-off after child 1 of 3; pruned: 2 children (b, c)" in by_path["a b"]
    assert "min  ≤ 1  [3, +∞]  α cut-off after child 1 of 2; pruned: 1 child (b)" in by_path["b"]
    assert "value 3 for first" in out and "13 nodes counted" in out


def test_negamax_view_gives_each_player_its_own_values(capsys):
    code, out, _ = run(capsys, "tree", "tree", "--bot", ALPHABETA, "--negamax")
    assert code == 0 and "negamax view" in out
    nodes = recorded(ALPHABETA).trees[0].nodes
    lines = node_lines(out)
    for line, node in zip(lines, nodes):
        assert f"  {value_text(node, negamax=True)}  " in line
        if not node.root_view and node.kind == "inner":
            assert value_text(node, negamax=True) != value_text(node)  # the min player's values flip
    assert "min  ≥ -1  [-∞, -3]  β cut-off" in lines[8]


def test_iterative_and_solver_draw_one_tree_per_search(capsys):
    for spec in ("iterative", "solver"):
        code, out, _ = run(capsys, "tree", "tree", "--bot", spec)
        rec = recorded(spec)
        assert code == 0
        assert len(re.findall(r"^search \d+ of \d+:", out, re.M)) == len(rec.trees) > 1
        assert len(node_lines(out)) == sum(len(t.nodes) for t in rec.trees)


def test_ordering_prunes_more_in_tictactoe(capsys):
    moves = ("b2", "a1", "c3")
    sizes = {}
    for spec in ("alphabeta:depth=none,ordering=false,table=false", "alphabeta:depth=none,table=false"):
        code, out, _ = run(capsys, "tree", "tictactoe", "--moves", *moves, "--bot", spec)
        assert code == 0
        sizes[spec] = len(node_lines(out))
        rec = recorded(spec, "tictactoe", moves)
        assert sizes[spec] == rec.nodes and f"{rec.nodes} nodes counted" in out
    plain, ordered = sizes.values()
    assert ordered < plain


@pytest.mark.parametrize(
    "spec, game, moves",
    [(ALPHABETA, "tree", ()), ("alphabeta:depth=none,ordering=false,table=false", "tictactoe", ("c1", "b2", "b3", "c3")),
     ("iterative", "tictactoe", ("b2",)), ("alphabeta:depth=3", "connect4", ())],
)
def test_tidy_layout(spec, game, moves):
    for tree in recorded(spec, game, moves).trees:
        places = layout(tree)
        assert min(x for x, _ in places.values()) == 0
        by_depth = {}
        for x, ply in places.values():
            by_depth.setdefault(ply, []).append(x)
        for xs in by_depth.values():  # no two drawn at one depth closer than a node's room
            xs.sort()
            assert all(b - a >= 1 - 1e-9 for a, b in zip(xs, xs[1:]))
        for node in tree.nodes:
            kids = [("node", c) for c in node.children]
            kids += [("pruned", node.index, k) for k in range(len(stub_groups(node)))]
            xs = [places[k][0] for k in kids]
            assert xs == sorted(xs) and all(places[k][1] == node.ply + 1 for k in kids)  # in search order
            if kids:  # centred over its first and last child
                assert places[("node", node.index)][0] == pytest.approx((xs[0] + xs[-1]) / 2)
        assert len(places) == len(tree.nodes) + sum(len(stub_groups(n)) for n in tree.nodes)


def test_node_limit_is_reported(capsys):
    code, out, err = run(capsys, "tree", "tictactoe", "--bot", "minimax:depth=3", "--max-nodes", "20")
    assert code == 0 and len(node_lines(out)) == 20
    # 1 + 9 + 9*8 + 9*8*7 = 586 positions to depth 3 (no game ends sooner); all counted, 20 kept
    assert "node limit was reached: 20 of 586 nodes recorded" in out and "586 nodes counted" in out
    assert "--max-nodes" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tree", "tree", "--bot", "greedy"], "bot 'greedy' cannot record its search; bots that can: alphabeta, expectimax, iterative, minimax, solver, star1, star2"),
        (["tree", "tictactoe", "--moves", "z9", "--bot", "minimax"], "cannot read 'z9' as a move"),
        (["tree", "tree", "--moves", "a", "a", "a", "--bot", "minimax"], "is a finished game"),
        (["tree", "tree", "--bot", "minimax", "--max-nodes", "0"], "bad --max-nodes 0"),
        (["tree", "nosuchgame", "--bot", "minimax"], "nosuchgame"),
        (["tree", "tree", "--bot", "minimax", "--out", "/no/such/dir/x.svg"], "cannot write '/no/such/dir/x.svg'"),
    ],
)
def test_user_errors_are_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def drawn(svg_text: str) -> dict:
    """Counts of the figure's node groups by class, read as XML (pruned: the moves the stubs stand for)."""
    root = ET.fromstring(svg_text)
    counts = {"node": 0, "pruned": 0, "pv": 0, "edge pv": 0}
    for element in root.iter():
        classes = element.get("class", "").split()
        if element.tag == SVG + "g" and "node" in classes:
            counts["node"] += 1
            counts["pv"] += "pv" in classes
            assert element.find(SVG + "title") is not None
        if element.tag == SVG + "g" and "pruned" in classes:
            counts["pruned"] += int(element.get("data-count"))
        if element.tag == SVG + "line" and classes == ["edge", "pv"]:
            counts["edge pv"] += 1
    return counts


def test_svg_draws_every_node_pruned_stub_and_the_principal_variation(capsys, tmp_path):
    out = tmp_path / "bois.svg"
    code, _, err = run(capsys, "tree", "tree", "--bot", ALPHABETA, "--out", str(out))
    assert code == 0 and "13 nodes drawn in 1 tree" in err
    counts = drawn(out.read_text())
    tree = recorded(ALPHABETA).trees[0]
    assert counts["node"] == 13
    assert counts["pruned"] == sum(len(n.pruned) for n in tree.nodes) == 3  # leaves 5 and 6, the node of 7 8 9
    assert counts["pv"] == 1 + len(tree.pv) and counts["edge pv"] == len(tree.pv)
    assert "path: a b (ply 2, max)" in out.read_text()  # the hover text


GAMES = list(get_registry(entry_points=False).games)


def test_most_games_can_be_loaded_here():
    registry = get_registry(entry_points=False)
    skipped = []
    for name in registry.games:
        try:
            registry.game(name)
        except Exception as exc:  # an optional package missing (chess, OpenSpiel)
            skipped.append(f"{name}: {exc}")
    assert len(skipped) < len(registry.games)


@pytest.mark.parametrize("name", [  # a test a game: each small, and spread over the workers of a parallel run
    pytest.param(n, marks=pytest.mark.slow(reason="yacht's every roll is a chance node of 7,776 outcomes")) if n == "openspiel.yacht" else n for n in GAMES])
def test_every_game_and_search_bot_can_be_drawn(capsys, tmp_path, name):
    registry = get_registry(entry_points=False)
    try:
        game = registry.game(name)
    except Exception as exc:  # an optional package missing (chess, OpenSpiel)
        pytest.skip(f"{name}: {exc}")
    moves, state = [], game.initial_state()
    if game.model.imperfect:  # bots handed views: no search tree of a state to draw
        code, _, err = run(capsys, "tree", name, "--bot", "alphabeta:depth=2")
        assert code == 2 and err.count("\n") == 1 and "it plays games without" in err, (name, err)
        return
    if game.model.chance and game.to_move(state) < 0:  # backgammon's first roll: outcomes drawn
        code, _, err = run(capsys, "tree", name, "--bot", "star1")
        assert code == 2 and "is a chance node: no bot moves there; add an outcome to --moves" in err
        assert err.count("\n") == 1 and len(err) < 400
    # on to a position where a player has a choice: outcomes drawn (seeded), the only move played
    rng = random.Random(1)
    while game.model.chance and (game.to_move(state) < 0 or len(game.legal_moves(state)) == 1):
        if game.to_move(state) < 0:
            outcomes, weights = zip(*game.chance_outcomes(state))
            move = rng.choices(outcomes, weights)[0]
        else:
            move = game.legal_moves(state)[0]
        moves.append(game.move_text(state, move))
        state = game.apply(state, move)
        assert len(moves) < 1000 and not game.is_terminal(state), name
    if game.model.features - {"chance"}:  # more seats, or not zero-sum: the two-player searches refuse it
        for spec in ("alphabeta:depth=2", "expectimax:depth=2"):
            code, out, err = run(capsys, "tree", name, "--bot", spec, "--budget", "nodes=100", "--moves", *moves)
            assert code == 2 and err.count("\n") == 1 and "players" in err, (name, spec, err)
        if game.model.players > 2:  # the n-seat searches draw it: max^n's vectors, paranoid's and brs's values
            specs = ["maxn:max_depth=2", "paranoid:max_depth=2"] + (["brs:max_depth=2"] if pass_hook(game) else [])
            for spec in specs:
                for fmt in ("svg", "text"):
                    code, out, err = run(capsys, "tree", name, "--bot", spec, "--budget", "nodes=300", "--as", fmt,
                                         "--moves", *moves)
                    assert code == 0, (name, spec, fmt, err)
                    if fmt == "svg":
                        assert drawn(out)["node"] >= 1
                        continue
                    assert f"{spec} on {name}" in out and "\nroot  " in out, (name, spec)
                    seats = game.player_name(game.to_move(state))
                    if spec.startswith("maxn"):  # the root's vector, the seat to move's entry marked
                        assert re.search(rf"\nroot  {re.escape(seats)}  \(.*\*", out), (name, out)
                    else:
                        assert f"\nroot  max {seats}  " in out, (name, out)
        return
    for spec in ("alphabeta:depth=2", "iterative:max_depth=2", "minimax:depth=1", "solver"):
        budget = "nodes=100"
        code, out, err = run(capsys, "tree", name, "--bot", spec, "--budget", budget, "--format", "svg",
                             "--moves", *moves)
        if game.model.chance:  # searches for games without chance only: refused in one line; the
            # solver solves a chance game by value iteration: no search tree to draw
            words = "no search tree" if spec == "solver" else "plays games without chance"
            assert code == 2 and err.count("\n") == 1 and words in err, (name, spec, err)
            continue
        assert code == 0, (name, spec, err)
        assert drawn(out)["node"] >= 1
    for spec in ("expectimax:depth=2", "star1:depth=2", "star2:depth=3"):  # every game, with chance or not
        code, out, err = run(capsys, "tree", name, "--bot", spec, "--budget", "nodes=300", "--format", "svg",
                             "--moves", *moves)
        assert code == 0, (name, spec, err)
        assert drawn(out)["node"] >= 1


def test_a_plugin_game_can_be_drawn(capsys, tmp_path, monkeypatch):
    (tmp_path / "tinygame.py").write_text(textwrap.dedent('''
        from arena import hookimpl
        from games.bachet import Bachet

        class Tiny(Bachet):
            name = "tiny"
            description = "Bachet's game under another name"

        @hookimpl
        def register_games(register):
            register(Tiny)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run(capsys, "tree", "tiny", "--bot", "minimax:depth=2", "--plugin", "tinygame")
    assert code == 0, err
    assert "minimax:depth=2 on tiny" in out and len(node_lines(out)) > 3
    sys.modules.pop("tinygame", None)


def browser():
    """A headless Chromium driven by Selenium, or a skip saying what is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.skip("Chromium or chromedriver is not installed (Debian: apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver_path), options=options)


@pytest.mark.processes
@pytest.mark.parametrize("fmt", ["html", "svg"])
def test_the_figure_opens_in_chromium(capsys, tmp_path, fmt):
    out = tmp_path / f"bois.{fmt}"
    assert run(capsys, "tree", "tree", "--bot", ALPHABETA, "--out", str(out))[0] == 0
    driver = browser()
    try:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By

        driver.get(out.as_uri())
        nodes = driver.find_elements(By.CSS_SELECTOR, "g.node")
        pruned = driver.find_elements(By.CSS_SELECTOR, "g.pruned")
        assert (len(nodes), len(pruned)) == (13, 3)
        assert all(n.is_displayed() for n in nodes)
        assert len(driver.find_elements(By.CSS_SELECTOR, "line.edge.pv")) == 3
        if fmt == "html":
            cut = driver.find_element(By.CSS_SELECTOR, 'g.node[data-index="6"] .shape')  # a b: the beta cut-off
            ActionChains(driver).move_to_element(cut).perform()
            info = driver.find_element(By.ID, "info").text
            assert "path: a b" in info and "window [α, β]: [-∞, 3]" in info and "value: ≥ 4" in info
            assert "path: a b; first player (max) to move" in info  # the game's render
    finally:
        driver.quit()


def test_the_search_tree_doc_shows_real_commands_and_output(capsys):
    text = (Path(__file__).resolve().parent.parent / "docs" / "search-trees.md").read_text()
    blocks = re.findall(r"```console\n\$ arena (.*?)\n(.*?)```", text, re.S)
    assert len(blocks) == 5
    for command, shown in blocks:
        code, out, err = run(capsys, *command.split())
        assert code == 0 and out == shown, command


def test_the_readme_shows_the_outline_arena_tree_prints(capsys):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    shown = re.search(r"The first prints \(after two heading lines\):\n\n```\n(.*?)```", readme, re.S).group(1)
    assert main(["tree", "tree", "--bot", "alphabeta:depth=none,ordering=false,table=false,window=infinite"]) == 0
    printed = capsys.readouterr().out
    assert shown.strip() and shown in printed
    assert "13 nodes counted" in printed  # as the README says: alpha-beta in order visits 13


# -- chance nodes (expectimax, Star1, Star2) --------------------------------------------------


def test_expectimax_draws_the_whole_aima_chance_tree_with_probabilities_and_weighted_values(capsys):
    """AIMA 3rd ed., Figure 5.12: the chance nodes are worth 0.9 * 2 + 0.1 * 3 = 2.1 and 1.3."""
    code, out, _ = run(capsys, "tree", "tree:example=aima-chance", "--bot", "expectimax:depth=3")
    assert code == 0
    lines = [line.strip() for line in out.splitlines()]
    # the second chance node is exact, 1.3, below the window the root gave it: a bound for the root's search
    assert "a  chance  2.1  [-4, 4]" in lines and "b  chance  ≤ 1.3  [2.1, 4]" in lines
    assert "a p=0.9  min  2  [-4, 4]" in lines and "a p=0.9  min  1  [-4, 4]" in lines
    assert "15 nodes counted" in out and "cut-off" not in out  # expectimax prunes nothing across chance nodes


def test_star1_and_star2_draw_their_cut_offs_windows_and_probes(capsys, tmp_path):
    code, out, _ = run(capsys, "tree", "tree:example=aima-chance", "--bot", "star1:depth=3")
    assert code == 0
    assert "b  chance  ≤ 1.3  [2.1, 4]  chance cut-off after 1 outcome of 2: the value is below α" in out
    assert "a p=0.9  min  ≤ 1  [1.889, 4]" in out  # the window that decides the chance node: (2.1 - 0.1 * 4) / 0.9
    code, out, _ = run(capsys, "tree", "tree:example=aima-chance", "--bot", "star2:depth=3")
    assert code == 0
    assert "a p=0.9  min  ≤ 2  [-4, 4]  Star2's probe: its first move only, a bound on its value" in out
    assert "a p=0.9  min  ≥ 2  [-4, 2]  searched whole after its probe" in out
    assert "chance cut-off by the probes alone: the value is below α" in out
    assert "13 nodes counted" in out and "13 nodes, value 2.1" in out  # a probed child is counted once
    svg_file = tmp_path / "star2.svg"
    code, _, err = run(capsys, "tree", "tree:example=aima-chance", "--bot", "star2:depth=3", "--out", str(svg_file))
    text = svg_file.read_text()
    assert code == 0 and 'class="node chance inner"' in text and text.count('class="node chance') == 2
    assert text.count("node min probe") == 3 and "p=0.9" in text
    assert ET.fromstring(text) is not None
