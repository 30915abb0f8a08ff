"""Drawing recorded search trees: an indented outline, and SVG or HTML figures as textbooks draw them.

Two views of the values: the max/min view of the lecture notes (every value and window
from the root player's side, the root maximising), and the negamax view (each node's
own, for its player to move). Fail-soft alpha-beta returns a bound where a node's
value falls outside its window; it is written ``≥ 4`` or ``≤ 1`` as the notes do.

The figures lay each tree out top-down (a tidy layout: see ``layout``), max nodes as
triangles pointing up, min nodes down, pruned children as grey dashed stubs, the
principal variation drawn thick. Every node carries
an SVG ``<title>``: hovering shows its path, window, value and the position (the game's
``render``); the HTML page also shows it in a panel beside the figure.

The n-seat searches' trees (max^n's value vectors, paranoid's and Best-Reply Search's seats)
are drawn with what results/treeseats.py says differently for them.
"""

from __future__ import annotations

import re
from html import escape
from typing import Callable

from arena.game import CHANCE
from arena.searchtree import BOUNDS, HORIZON, LEAF, OPEN, PROBE, TABLE, Node, Recording, SearchTree, number_text
from results import treeseats as seats
from results.treelayout import STUBS, layout, stub_groups

#: Horizontal room per leaf and vertical room per ply, in SVG pixels.
STEP_X, STEP_Y, MARGIN = 54, 74, 30
#: Terminal colours and other control characters, which XML does not allow.
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NOTES = {TABLE: "table hit", BOUNDS: "settled by the game's tactics or bounds", OPEN: "unfinished: out of budget",
          PROBE: "Star2's probe: its first move only, a bound on its value"}


def value_text(node: Node, negamax: bool = False) -> str:
    """The node's value as the notes write it: ``3``, ``≥ 4`` (a lower bound) or ``≤ 1``."""
    if node.value is None:
        return "?"
    bound = node.bound
    value = node.value if negamax else node.root_value
    if node.kind == PROBE:  # the first move's value: at least the node's for its player to move
        return ("≥ " if negamax or node.root_view else "≤ ") + number_text(value)
    if bound != "exact" and not negamax and not node.root_view:
        bound = "upper" if bound == "lower" else "lower"  # the min player's lower bound is max's upper
    sign = {"lower": "≥ ", "upper": "≤ "}.get(bound, "")
    return sign + number_text(value)


def window_text(node: Node, negamax: bool = False) -> str:
    alpha, beta = (node.alpha, node.beta) if negamax else node.root_window
    return f"[{number_text(alpha)}, {number_text(beta)}]"


def role(node: Node) -> str:
    """max or min (the root player maximises), chance, or the kind of a leaf."""
    if node.kind in (LEAF, HORIZON):
        return node.kind
    if node.mover == CHANCE:
        return "chance"
    return "max" if node.root_view else "min"


def probability(node: Node, tree: SearchTree, game) -> str:
    """The probability of the outcome that led to ``node`` from a chance node ("" otherwise)."""
    if node.parent is None:
        return ""
    parent = tree.nodes[node.parent]
    if parent.mover != CHANCE:
        return ""
    for outcome, p in game.chance_outcomes(parent.state):
        if outcome == node.move:
            return _probability_text(p)
    return ""


def _probability_text(p) -> str:
    text = f"{float(p):.3g}"
    return text if float(text) == float(p) else str(p) if "/" in str(p) else text


def texts_at(game, state, moves) -> list[str]:
    """The texts of ``moves``, each legal in ``state``, as the game writes them there (``Game.move_text``)."""
    return [game.move_text(state, m) for m in moves]


def move_text(node: Node, tree: SearchTree, game) -> str:
    """The move that led to ``node``, written in its parent's position ("root" at the root);
    an outcome with its probability: ``a p=0.9``."""
    if node.move is None:
        return "root"
    text = game.move_text(tree.nodes[node.parent].state, node.move)
    chance = probability(node, tree, game)
    return f"{text} p={chance}" if chance else text


def line_text(tree: SearchTree, game, moves) -> list[str]:
    """A line of moves from the tree's searched position (its root node's)."""
    return game.line_text(tree.nodes[0].state, moves) if tree.nodes else [game.format_move(m) for m in moves]


def cut_text(node: Node, game, negamax: bool = False, texts=None) -> str:
    """``β cut-off after child 1 of 3; pruned: 2 children (b, c)``, or "" without a cut; ``texts``:
    the pruned moves' (by default as the game writes them in the node's position)."""
    if node.cut is None:
        return ""
    if node.mover == CHANCE:  # *-minimax: the outcomes searched bound the node outside its window
        side = "above β" if node.value is not None and node.value >= node.beta else "below α"
        count = len(node.pruned)
        names = ", ".join(texts_at(game, node.state, node.pruned))
        after = (f"after {node.cut} outcome{'s' if node.cut != 1 else ''} of {node.cut + count}" if node.cut
                 else "by the probes alone")
        return f"chance cut-off {after}: the value is {side} whatever the rest give; pruned: {count} ({names})"
    which = "β" if negamax or node.root_view else "α"
    searched = node.cut
    total = searched + len(node.pruned)
    count = len(node.pruned)
    names = ", ".join(texts if texts is not None else texts_at(game, node.state, node.pruned))
    pruned = f"; pruned: {count} child{'ren' if count != 1 else ''} ({names})" if count else " (its last: nothing pruned)"
    return f"{which} cut-off after child {searched} of {total}{pruned}"


def skipped_text(node: Node, game) -> str:
    names = ", ".join(texts_at(game, node.state, node.skipped))
    return f"left out by the game's tactics (they lose at once): {names}"


def node_cut_text(node: Node, tree: SearchTree, game, negamax: bool = False) -> str:
    """``cut_text``, or for an n-seat search's node what ``results.treeseats`` says of it."""
    if tree.method == seats.MAXN:
        return seats.maxn_cut_text(node, tree, game)
    return cut_text(node, game, negamax, seats.pruned_texts(node, game) if seats.seated(tree) else None)


def node_line(node: Node, tree: SearchTree, game, negamax: bool = False) -> str:
    """One node of the outline, without its indentation."""
    if tree.method == seats.MAXN:
        parts = [seats.node_vector_text(node), seats.maxn_bound(node, game)]
    else:
        parts = [value_text(node, negamax), window_text(node, negamax)]
    if seats.seated(tree):
        move = "root" if node.parent is None else seats.move_of(node, tree, game)
        parts = [move, seats.seat_role(node, tree, game, role(node))] + [part for part in parts if part]
    else:
        parts = [move_text(node, tree, game), role(node)] + parts
    notes = [_NOTES[node.kind]] if node.kind in _NOTES else []
    if seats.out_of_turn(node, tree, game):
        notes.append("out of turn: the seats between passed")
    if node.repeat:
        after_probe = node.parent is not None and tree.nodes[node.parent].mover == CHANCE
        notes.append("searched whole after its probe" if after_probe else "re-searched with a wider window")
    if node.cut is not None:
        notes.append(node_cut_text(node, tree, game, negamax))
    if node.skipped:
        notes.append(skipped_text(node, game))
    return "  ".join(parts) + ("  " + "; ".join(notes) if notes else "")


def tree_heading(tree: SearchTree, game, number: int, of: int) -> str:
    counted = "" if tree.complete else " (stopped: out of budget)"
    best = "none" if tree.move is None else line_text(tree, game, [tree.move])[0]
    pv = " ".join(line_text(tree, game, tree.pv)) or "none"
    head = f"search {number} of {of}: " if of > 1 else ""
    label, value = tree.label(), f"{number_text(tree.value)} for {game.player_name(tree.player)}"
    if tree.method == seats.MAXN:
        label, value = seats.heading_parts(tree, game)
        value += f"; {game.player_name(tree.player)}"
    text = (
        f"{head}{label}: {tree.seen} nodes{counted}, value {value} "
        f"(to move at the root), best move {best}, principal variation {pv}"
    )
    if tree.truncated:
        kept = sum(not n.repeat for n in tree.nodes)
        text += f"\n(the node limit was reached: {kept} of {tree.seen} nodes recorded; raise --max-nodes to see more)"
    return text


def outline(recording: Recording, negamax: bool = False) -> str:
    """The recorded trees as indented text, one node a line."""
    game = recording.game
    out = [summary(recording, negamax)]
    for number, tree in enumerate(recording.trees, 1):
        out.append("")
        out.append(tree_heading(tree, game, number, len(recording.trees)))
        for node in tree.nodes:
            out.append("  " * node.ply + node_line(node, tree, game, negamax))
    return "\n".join(out)


def view_text(negamax: bool) -> str:
    if negamax:
        return "negamax view: values and windows for the player to move"
    return "max/min view: values and windows for the root player, who maximises"


def summary(recording: Recording, negamax: bool = False) -> str:
    """What was searched, by whom, how many nodes the arena counted, and how to read the rest."""
    searches = len(recording.trees)
    how = f"{view_text(negamax)}; each line: move, player, value, window [α, β]"
    if recording.trees and seats.seated(recording.trees[0]):
        how = seats.reading(recording) + ("" if recording.trees[0].method == seats.MAXN else how)
    return (
        f"{recording.bot} on {recording.game.spec}: {recording.nodes} nodes counted, "
        f"{searches} root search{'es' if searches != 1 else ''}\n{how}"
    )


def plain(text: str) -> str:
    """``text`` without terminal colours and control characters (a game's render may have them)."""
    return _CONTROL.sub("", text)


def pv_nodes(tree: SearchTree, game=None) -> set:
    """Indexes of the nodes along the principal variation (the last visit of each; with
    ``game``, a move played in turn, not Best-Reply Search's same move out of turn)."""
    found, index, nodes = {0} if tree.nodes else set(), 0, tree.nodes
    for move in tree.pv:
        matches = [c for c in nodes[index].children
                   if nodes[c].move == move and not (game and seats.out_of_turn(nodes[c], tree, game))]
        if not matches:
            break
        index = matches[-1]
        found.add(index)
    return found


def svg(recording: Recording, negamax: bool = False, describe: Callable | None = None) -> str:
    """Every recorded tree as one SVG figure, stacked top to bottom."""
    parts, width, y = [], 0, 0
    style = _SEAT_STYLE if any(seats.seated(tree) for tree in recording.trees) else ""
    for number, tree in enumerate(recording.trees, 1):
        body, w, h = tree_svg(recording, tree, number, negamax, describe)
        parts.append(f'<g class="tree" transform="translate(0,{y})">{body}</g>')
        width, y = max(width, w), y + h
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" viewBox="0 0 {width} {y}" '
        f'font-family="sans-serif" font-size="11">{_STYLE}{style}{"".join(parts)}</svg>'
    )


_STYLE = """<style>
.edge{stroke:#555;stroke-width:1.2}.edge.pv{stroke:#c0392b;stroke-width:3.5}
.pruned line{stroke:#aaa;stroke-dasharray:4 3}.pruned text{fill:#999}
.node .shape{fill:#fff;stroke:#222;stroke-width:1.3}.node.pv .shape{stroke:#c0392b;stroke-width:2.5}
.node.table .shape{fill:#e8f0ff}.node.open .shape{stroke-dasharray:2 2}.node.repeat .shape{fill:#f3f3f3}
.node:hover .shape{fill:#ffe9a8}.win{font-size:9px;fill:#36c}.val{font-weight:bold}
.val,.win,.mv{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}.mv{fill:#555;font-size:10px}
.heading{font-size:13px;font-weight:bold}.node .inner{fill:none;stroke:#222;stroke-width:.8}
.node.probe .shape{stroke-dasharray:5 2;fill:#f5efe0}
</style>"""
#: What the n-seat searches' figures add (results/treeseats.py): vectors, and seats beside the nodes.
_SEAT_STYLE = """<style>
.vec{font-size:10px;font-weight:normal}.vec .mine{font-weight:bold;fill:#c0392b}.seat{font-size:9px;fill:#666}
</style>"""


def tree_svg(recording, tree, number, negamax, describe) -> tuple[str, float, float]:
    """One tree's SVG elements, and their width and height."""
    game = recording.game
    describe = describe or game.render
    places = layout(tree)
    on_pv = pv_nodes(tree, game)
    top = MARGIN + 24
    step = seats.step_x(tree, game, STEP_X)
    left = MARGIN + 20 + step - STEP_X  # wider labels (n-seat trees) need room on the left too

    def at(key):
        x, ply = places[key]
        return left + x * step, top + ply * STEP_Y

    edges, shapes = [], []
    for node in tree.nodes:
        x, y = at(("node", node.index))
        for child in node.children:
            cx, cy = at(("node", child))
            pv = " pv" if child in on_pv and node.index in on_pv else ""
            edges.append(f'<line class="edge{pv}" x1="{x}" y1="{y}" x2="{cx}" y2="{cy}"/>')
        pruned = seats.pruned_texts(node, game) if seats.seated(tree) else texts_at(game, node.state, node.pruned)
        for k, moves in enumerate(stub_groups(node)):
            sx, sy = at(("pruned", node.index, k))
            texts = pruned[k:] if len(moves) > 1 else [pruned[k]]  # the last group holds the rest
            names = escape(", ".join(texts))
            label = escape(texts[0]) if len(moves) == 1 else f"+{len(moves)}"
            edges.append(
                f'<g class="pruned" data-count="{len(moves)}"><title>pruned, never generated: {names}</title>'
                f'<line x1="{x}" y1="{y}" x2="{sx}" y2="{sy - 8}"/>'
                f'<text x="{sx}" y="{sy + 4}" text-anchor="middle">{label} ✂</text></g>'
            )
        shapes.append(_node_svg(node, tree, x, y, game, negamax, describe, node.index in on_pv))
    heading = escape(tree_heading(tree, game, number, len(recording.trees)).splitlines()[0])
    height = top + (1 + max((p[1] for p in places.values()), default=0)) * STEP_Y
    width = 2 * MARGIN + 90 + step - STEP_X + step * max((p[0] for p in places.values()), default=0)
    width = max(width, MARGIN + 8 * len(heading))
    text = f'<text class="heading" x="{MARGIN}" y="{MARGIN}">{heading}</text>'
    return text + "".join(edges) + "".join(shapes), width, height


def _node_svg(node: Node, tree: SearchTree, x, y, game, negamax, describe, pv) -> str:
    kind, maxn = role(node), tree.method == seats.MAXN
    if maxn and seats.inner(node):
        kind = "max"  # every seat maximises its own value
    if kind == "max":
        shape = f'<polygon class="shape" points="{x - 13},{y + 10} {x + 13},{y + 10} {x},{y - 13}"/>'
    elif kind == "min":
        shape = f'<polygon class="shape" points="{x - 13},{y - 10} {x + 13},{y - 10} {x},{y + 13}"/>'
    elif kind == "leaf":
        shape = f'<rect class="shape" x="{x - 11}" y="{y - 11}" width="22" height="22"/>'
    elif kind == "chance":
        shape = f'<circle class="shape" cx="{x}" cy="{y}" r="14"/><circle class="inner" cx="{x}" cy="{y}" r="9"/>'
    else:
        shape = f'<circle class="shape" cx="{x}" cy="{y}" r="11"/>'
    classes = " ".join(["node", kind, node.kind] + (["pv"] if pv else []) + (["repeat"] if node.repeat else []))
    notes = [_NOTES[node.kind]] if node.kind in _NOTES else []
    if seats.out_of_turn(node, tree, game):
        notes.append("out of turn: the seats between passed")
    if node.cut is not None:
        notes.append(node_cut_text(node, tree, game, negamax))
    if node.skipped:
        notes.append(skipped_text(node, game))
    window = window_text(node, negamax)
    if maxn:
        window = seats.maxn_bound(node, game)
        values = [f"value vector: {seats.node_vector_text(node)}"] + ([window] if window else [])
        value = f'<text class="val vec" x="{x}" y="{y + 27}" text-anchor="middle">{seats.vector_svg(node)}</text>'
    else:
        values = [f"window [α, β]: {window}", f"value: {value_text(node, negamax)}"]
        value = (f'<text class="val" x="{x}" y="{y + 27}" text-anchor="middle">'
                 f'{escape(value_text(node, negamax).replace(" ", ""))}</text>')
    if seats.seated(tree):
        path = " ".join(seats.path_texts(tree, game, node)) or "root"
        move = "" if node.parent is None else seats.move_of(node, tree, game)
        who = seats.seat_role(node, tree, game, role(node))
        label = seats.seat_label(node, tree, game)
        value += f'<text class="seat" x="{x + 15}" y="{y + 4}">{escape(label)}</text>' if label else ""
    else:
        path, who = " ".join(line_text(tree, game, node.path)) or "root", kind
        move = "" if node.move is None else move_text(node, tree, game)
    title = plain("\n".join([f"path: {path} (ply {node.ply}, {who})", *values, *notes, "", describe(node.state)]))
    return (
        f'<g class="{classes}" data-index="{node.index}"><title>{escape(title)}</title>{shape}{value}'
        f'<text class="mv" x="{x - 14}" y="{y - 14}" text-anchor="end">{escape(move)}</text>'
        + ("" if kind in (LEAF, HORIZON) or not window else  # a leaf's window is its parent's: in its title only
           f'<text class="win" x="{x}" y="{y + 39}" text-anchor="middle">{escape(window)}</text>')
        + "</g>"
    )


def _seats_legend(recording: Recording) -> str:
    """The legend's words for an n-seat search ("" for the others)."""
    if not recording.trees or not seats.seated(recording.trees[0]):
        return ""
    text = seats.reading(recording).rstrip("; ")
    if recording.trees[0].method == seats.MAXN:
        text += "; in the figure every inner node a ▲ (each seat maximises its own value), the seat to move's entry in red"
    return "<br>" + escape(text) + "; beside each node, the seat to move."


def html(recording: Recording, negamax: bool = False, describe: Callable | None = None) -> str:
    """One offline page: the figure, a legend and a panel that shows the hovered node."""
    figure = svg(recording, negamax, describe)
    head, view = summary(recording, negamax).splitlines()[0], view_text(negamax)
    if recording.trees and recording.trees[0].method == seats.MAXN:
        view = "max^n view: a value vector at every node, one value per seat"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(recording.bot)} on {escape(recording.game.spec)}</title>
<style>body{{font-family:sans-serif;margin:1em}}#info{{position:fixed;right:1em;bottom:1em;max-width:40em;
background:#fffbe8;border:1px solid #ccc;padding:.5em;white-space:pre;font-family:monospace;font-size:12px}}
.legend{{color:#444;font-size:13px}}</style></head>
<body><h1>{escape(recording.bot)} on {escape(recording.game.spec)}</h1>
<p>{escape(head)}.</p>
<p class="legend">{view}. ▲ max, ▼ min, ◎ chance (each outcome's edge labelled with its probability; its value
the outcomes' probability-weighted mean; a dashed child: Star2's probe of one move), ■ end of the game, ● depth limit; value below each node, then its
window [α, β]; grey dashed: pruned, never generated (past {STUBS} under one node, one stub "+N" for the rest); thick red: principal variation. Hover a node.{_seats_legend(recording)}</p>
<pre id="info">hover a node</pre>
{figure}
<script>
document.querySelectorAll("g.node, g.pruned").forEach(function (g) {{
  g.addEventListener("mouseover", function () {{
    document.getElementById("info").textContent = g.querySelector("title").textContent;
  }});
}});
</script></body></html>
"""
