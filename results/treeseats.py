"""What the drawings of results/treeview.py say differently for the n-seat searches.

``SearchTree.method`` names the search. max^n ("maxn") has a value vector at every node,
one value per seat, written ``(0.6, *0.3, 0.1)`` with the seat to move's entry marked
``*`` (``*≥0.3`` at a shallow cut-off: the seat to move gets at least that); its cut-offs
are immediate (the seat to move has the most a seat can get) or shallow (what the seat to
move has leaves the parent's seat, under the constant sum, no more than it has already). Paranoid ("paranoid") and Best-Reply Search ("brs") have one
value per node, the root seat's, drawn as the two-player searches are (the root seat max,
the others, one coalition, min); their nodes name the seat to move, and Best-Reply
Search's MIN layers, which merge every opponent's replies, name the seat of each reply.
Seats are named as the game names them (``player_name``).
"""

from __future__ import annotations

from arena.searchtree import HORIZON, LEAF, Node, SearchTree

MAXN, PARANOID, BRS = "maxn", "paranoid", "brs"
#: Pixels per character of a vector's text in the figures (font size 10).
CHAR_X = 5.6


def seated(tree: SearchTree) -> bool:
    """Whether an n-seat search made ``tree`` (its drawing is this module's)."""
    return bool(tree.method)


def entry_text(value: float) -> str:
    """One value of a vector, rounded to two decimals (whole numbers without a point); a value
    that would round to zero keeps one significant digit."""
    if float(value).is_integer():
        return str(int(value))
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    if text in ("0", "-0"):
        text = f"{value:.1g}"
    return text


def vector_text(vector, mover: int | None = None, lower: bool = False) -> str:
    """``(0.6, *0.3, 0.1)``: the seats' values in seat order, ``mover``'s marked (None: none),
    with ``lower`` as a lower bound (``*≥0.3``)."""
    if vector is None:
        return "?"
    mark = "*≥" if lower else "*"
    return "(" + ", ".join((mark if seat == mover else "") + entry_text(v) for seat, v in enumerate(vector)) + ")"


def node_vector_text(node: Node) -> str:
    """A max^n node's vector as ``vector_text`` writes it, the seat to move's entry marked."""
    return vector_text(node.vector, marked(node), shallow_cut(node))


def names(game, seats) -> str:
    return ", ".join(game.player_name(seat) for seat in seats)


def inner(node: Node) -> bool:
    return node.kind not in (LEAF, HORIZON)


def marked(node: Node) -> int | None:
    """The seat whose entry a max^n node's vector marks: the seat to move at an inner node."""
    return node.mover if inner(node) else None


def shallow_cut(node: Node) -> bool:
    """Whether shallow pruning cut a max^n node off: its seat to move gets at least its entry."""
    return node.cut is not None and node.parent_best is not None


def seat_role(node: Node, tree: SearchTree, game, role: str) -> str:
    """The role column: max^n's seat to move; paranoid's and Best-Reply Search's ``role`` (max
    or min) with the seat to move, or a MIN layer's seats."""
    if not inner(node):
        return role
    if tree.method == MAXN:
        return game.player_name(node.mover)
    if len(node.layer) > 1:
        return f"{role} {names(game, [seat for seat, _ in node.layer])}"
    return f"{role} {game.player_name(node.mover)}"


def seat_label(node: Node, tree: SearchTree, game) -> str:
    """The seat written beside a node of the figure ("" at a leaf)."""
    if not inner(node):
        return ""
    if len(node.layer) > 1:
        return f"{len(node.layer)} opponents"
    return game.player_name(node.mover)


def state_of(game, state, seat):
    """``state`` with ``seat`` to move: itself if it is, else as Best-Reply Search moved there (``pass_to``)."""
    if seat is None or game.to_move(state) == seat:
        return state
    moved = getattr(game, "pass_to", None)
    return state if moved is None else moved(state, seat) or state


def out_of_turn(node: Node, tree: SearchTree, game) -> bool:
    """Whether Best-Reply Search played ``node``'s move out of turn (the seats between passed)."""
    if node.by is None or node.parent is None:
        return False
    return game.to_move(tree.nodes[node.parent].state) != node.by


def move_of(node: Node, tree: SearchTree, game) -> str:
    """The move that led to ``node``, written where it was played; a reply of a merged MIN layer
    (or a move out of turn) with the seat that made it: ``yellow c4``."""
    parent = tree.nodes[node.parent]
    text = game.move_text(state_of(game, parent.state, node.by), node.move)
    if node.by is not None and (len(parent.layer) > 1 or out_of_turn(node, tree, game)):
        return f"{game.player_name(node.by)} {text}"
    return text


def path_texts(tree: SearchTree, game, node: Node) -> list[str]:
    """The moves from the root to ``node``, each written as ``move_of`` writes it."""
    out = []
    while node.parent is not None:
        out.append(move_of(node, tree, game))
        node = tree.nodes[node.parent]
    return out[::-1]


def pruned_texts(node: Node, game) -> list[str]:
    """The pruned moves' texts, in order; in a merged MIN layer each with the seat whose it is."""
    if len(node.layer) < 2:
        seat = node.layer[0][0] if node.layer else None
        state = state_of(game, node.state, seat)
        return [game.move_text(state, m) for m in node.pruned]
    seats = [seat for seat, count in node.layer for _ in range(count)]
    seats = seats[len(seats) - len(node.pruned):]  # the pruned moves are the layer's last
    return [f"{game.player_name(seat)} {game.move_text(state_of(game, node.state, seat), m)}"
            for seat, m in zip(seats, node.pruned)]


def maxn_bound(node: Node, game) -> str:
    """A max^n node's bound, where shallow pruning is in force: ``cut at ≥ 0.4``."""
    if node.parent_best is None or not inner(node):
        return ""
    return f"cut if {game.player_name(node.mover)} ≥ {entry_text(node.beta)}"


def maxn_cut_text(node: Node, tree: SearchTree, game) -> str:
    """Why a max^n node was cut off, and what it pruned."""
    count, seat = len(node.pruned), game.player_name(node.mover)
    got = entry_text(node.value)
    if node.parent_best is None:
        why = f"cut-off after child {node.cut} of {node.cut + count}: {seat} has {got}, the most a seat can get"
    else:
        other = game.player_name(tree.nodes[node.parent].mover)
        room = node.beta + node.parent_best  # the constant sum less the least of the other seats
        why = (f"shallow cut-off after child {node.cut} of {node.cut + count}: {seat} has ≥ {got}, leaving {other} "
               f"at most {entry_text(room)} - {got} = {entry_text(room - node.value)}, no more than the "
               f"{entry_text(node.parent_best)} {other} has already")
    if not count:
        return why + " (its last: nothing pruned)"
    return f"{why}; pruned: {count} child{'ren' if count != 1 else ''} ({', '.join(pruned_texts(node, game))})"


def heading_parts(tree: SearchTree, game) -> tuple[str, str]:
    """(label, value) of a max^n tree's heading: its depth, and the root's vector for the seats."""
    depth = "to the end" if tree.depth is None else f"depth {tree.depth}"
    seats = names(game, range(len(tree.vector))) if tree.vector is not None else ""
    return depth, f"{vector_text(tree.vector)}" + (f" for {seats}" if seats else "")


def reading(recording) -> str:
    """How to read an n-seat recording's lines (the summary's second line)."""
    method = recording.trees[0].method
    game = recording.game
    seats = names(game, range(game.model.players))
    if method == MAXN:
        return (f"max^n: each node's value vector, one value per seat ({seats}), the seat to move's marked *; "
                "each line: move, seat to move, vector, and where shallow pruning bounds the node, the value that cuts it")
    if method == PARANOID:
        return "paranoid: the root seat maximises its value, every other seat minimises it (one coalition); "
    return ("Best-Reply Search: the root seat maximises its value; a min layer holds every opponent's replies "
            "(each named with the seat that made it), of which the one worst for the root seat counts; ")


def step_x(tree: SearchTree, game, step: float) -> float:
    """The figure's room per node: ``step``, or wide enough for max^n's vectors and Best-Reply
    Search's replies named with their seats."""
    if tree.method == MAXN:
        widest = max((len(node_vector_text(n)) for n in tree.nodes), default=0)
    elif tree.method == BRS:
        widest = max((len(move_of(n, tree, game)) for n in tree.nodes if n.parent is not None), default=0)
    else:
        return step
    return max(step, CHAR_X * widest + 10)


def vector_svg(node: Node) -> str:
    """The vector's text for an SVG ``<text>``: the seat to move's entry in a bold ``<tspan>``."""
    if node.vector is None:
        return "?"
    mine, mark = marked(node), "≥" if shallow_cut(node) else ""
    parts = [f'<tspan class="mine">{mark}{entry_text(v)}</tspan>' if seat == mine else entry_text(v)
             for seat, v in enumerate(node.vector)]
    return "(" + ", ".join(parts) + ")"
