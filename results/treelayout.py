"""Where a recorded search tree's nodes go in a figure: a tidy layout (results/treeview.py draws it)."""

from __future__ import annotations

from arena.searchtree import Node, SearchTree

#: Pruned children drawn one by one under a node; past this many, the rest share one stub.
STUBS = 4


def layout(tree: SearchTree) -> dict:
    """``{("node", index) or ("pruned", index, k): (x, ply)}``, x in units of one node's room.

    A tidy layout (Reingold and Tilford's, without their threads): each subtree is laid out
    on its own, then its siblings are pushed right only as far as their outlines (the
    leftmost and rightmost x at each depth) need to stay a unit apart, and the parent is
    centred over its first and last child. Children keep the search's order; pruned stubs
    come after the searched children.
    """
    nodes = tree.nodes
    if not nodes:
        return {}

    def below(key):
        if key[0] != "node":
            return []
        node = nodes[key[1]]
        return [("node", c) for c in node.children] + [("pruned", key[1], k) for k in range(len(stub_groups(node)))]

    offset: dict = {}  # key -> x relative to its parent
    outline_of: dict = {}  # key -> (lefts, rights): the subtree's extent at each depth from it, its own x 0
    todo, done = [("node", 0)], []  # post-order without recursion: trees can be deeper than the recursion limit
    while todo:
        key = todo.pop()
        done.append(key)
        todo.extend(below(key))
    for key in reversed(done):  # every child before its parent
        kids = below(key)
        if not kids:
            outline_of[key] = ([0.0], [0.0])
            continue
        lefts, rights = (list(side) for side in outline_of[kids[0]])
        xs = [0.0]
        for kid in kids[1:]:
            kid_lefts, kid_rights = outline_of[kid]
            shift = max(rights[d] - kid_lefts[d] + 1 for d in range(min(len(rights), len(kid_lefts))))
            xs.append(shift)
            for d, (left, right) in enumerate(zip(kid_lefts, kid_rights)):
                if d < len(rights):
                    rights[d] = right + shift
                else:
                    lefts.append(left + shift)
                    rights.append(right + shift)
        mid = (xs[0] + xs[-1]) / 2
        for kid, x in zip(kids, xs):
            offset[kid] = x - mid
        outline_of[key] = ([0.0] + [x - mid for x in lefts], [0.0] + [x - mid for x in rights])
    root = ("node", 0)
    places = {root: (-min(outline_of[root][0]), 0)}
    for key in done:  # pre-order: every parent before its children
        x, ply = places[key]
        for kid in below(key):
            places[kid] = (x + offset[kid], ply + 1)
    return places


def stub_groups(node: Node) -> list[tuple]:
    """The node's pruned moves as drawn: one stub each, or past ``STUBS``, the last stub for the rest."""
    moves = node.pruned
    if len(moves) <= STUBS:
        return [(m,) for m in moves]
    return [(m,) for m in moves[: STUBS - 1]] + [tuple(moves[STUBS - 1 :])]
