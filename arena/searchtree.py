"""The tree a search bot searched for one move, recorded node by node for drawing.

A bot that can record its search has a ``recorder`` attribute, None while recording is
off; ``record_search`` sets it to a ``Recorder`` for one move and hands back a
``Recording``: one ``SearchTree`` per root search (iterative deepening searches once per
depth, the solver once per null window). The built-in search bots choose recording node
functions once per search when a recorder is set (bots/negamax.py; the n-seat searches
of bots/maxn.py, bots/paranoid.py and bots/brs.py likewise), so a search that records
nothing runs the same code as before.

The n-seat searches say which they are (``SearchTree.method``). Paranoid and Best-Reply
Search record one value per node as the two-player searches do (the root seat the max
player, the others, one coalition, the min player); max^n records every node's value
vector (``Node.vector``), and for a cut-off the bound that made it (``Node.beta`` and
``Node.parent_best``).

Nodes are counted as the arena counts them: the root and every position ``apply``
makes. A position searched a second time without a new ``apply`` (principal variation
search's re-search) is recorded again with ``repeat`` set and is not counted again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.bot import Bot, Decision
from arena.budget import Budget
from arena.errors import ParameterError
from arena.game import CHANCE, Game, State
from arena.referee import ask

#: Most nodes a recording keeps unless told otherwise (the search itself goes on past it).
DEFAULT_MAX_NODES = 100_000

#: Why a node has the value it has.
INNER = "inner"  # the best of its children
LEAF = "leaf"  # a finished game: its utility
HORIZON = "horizon"  # the depth limit: the game's heuristic
TABLE = "table"  # the transposition table held a value good enough for the window
BOUNDS = "bounds"  # the game's value bounds or tactics settled it without searching a child
OPEN = "open"  # the search stopped (out of budget) before this node had a value
PROBE = "probe"  # Star2's probe of a chance node's child: its first move only, a bound on its value
KINDS = (INNER, LEAF, HORIZON, TABLE, BOUNDS, OPEN, PROBE)


@dataclass
class Node:
    """One position the search visited."""

    index: int
    """Position in ``SearchTree.nodes`` (pre-order: a parent before its children)."""
    parent: int | None
    """The parent's index (None at the root)."""
    path: tuple
    """The moves from the searched position to this one."""
    ply: int
    """Moves below the searched position."""
    state: State
    """The position."""
    mover: int
    """The player to move here (``CHANCE`` at a chance node). In the n-seat searches, at a
    finished game, the seat that made the last move; at a Best-Reply Search MIN node, the
    first seat of its ``layer``."""
    alpha: float
    """Lower end of the window on entry, from the player to move's view (max^n: -inf)."""
    beta: float
    """Upper end of the window on entry, from the player to move's view. max^n: the value
    for the seat to move at which the node is cut off (immediate or shallow pruning; +inf
    without pruning, and at a leaf)."""
    root_view: bool
    """Whether the player to move is the root's (the maximising player of the lecture notes);
    a chance node's value and window are recorded from the root player's view too."""
    value: float | None = None
    """The value the search returned, for the player to move (None: ``OPEN``); max^n: the
    ``vector``'s entry for the seat to move."""
    kind: str = INNER
    """Why it has that value: one of ``KINDS``."""
    cut: int | None = None
    """After a cut-off: the number of children searched (the last one caused it)."""
    pruned: tuple = ()
    """The moves never generated because of the cut-off, in the order they would have come."""
    skipped: tuple = ()
    """Legal moves the game's tactics left out of the search (they lose at once)."""
    repeat: bool = False
    """A second search of a position already counted (a re-search with a wider window)."""
    vector: tuple | None = None
    """max^n: the value for every seat, in seat order, that the search returned (None in the
    searches of one value per node, and while ``OPEN``). ``root_value`` and ``root_window``
    belong to the searches of one value: they mean nothing at a max^n node."""
    parent_best: float | None = None
    """max^n, where shallow pruning bounds the node: what the parent's seat to move had
    already found (its best child so far); ``beta`` is then the constant-sum bound less it
    (None where only immediate pruning applies, or none)."""
    by: int | None = None
    """Best-Reply Search with more than two seats: the seat that made ``move`` (in a MIN
    layer, whose reply this is; it may have moved out of turn). None elsewhere."""
    layer: tuple = ()
    """Best-Reply Search with more than two seats: the seats whose moves this node holds, with
    how many moves each had, in search order (``((seat, count), ...)``; a MIN layer merges
    every opponent's). Empty elsewhere."""
    children: list = field(default_factory=list)
    """Indexes of the children, in the order they were searched."""

    @property
    def move(self):
        """The move that led here (None at the root)."""
        return self.path[-1] if self.path else None

    @property
    def root_value(self) -> float | None:
        """``value`` from the root player's view (the max/min view)."""
        if self.value is None:
            return None
        return self.value if self.root_view else -self.value

    @property
    def root_window(self) -> tuple[float, float]:
        """(alpha, beta) from the root player's view."""
        return (self.alpha, self.beta) if self.root_view else (-self.beta, -self.alpha)

    @property
    def bound(self) -> str:
        """"exact", "lower" or "upper": what ``value`` is for the player to move (fail-soft
        alpha-beta returns a bound when the value falls outside the window)."""
        if self.kind in (LEAF, HORIZON) or self.value is None:
            return "exact"
        if self.value >= self.beta:
            return "lower"
        return "upper" if self.value <= self.alpha else "exact"


@dataclass
class SearchTree:
    """One root search: its window, depth and result, and the nodes recorded."""

    depth: int | None
    """Depth limit in plies (None: to the end of the game)."""
    alpha: float
    """The root window's lower end, for the root player."""
    beta: float
    """The root window's upper end."""
    player: int
    """The root player."""
    nodes: list = field(default_factory=list)
    """The recorded ``Node``s; ``nodes[0]`` is the root."""
    seen: int = 0
    """Nodes the search counted (``apply`` calls, plus the root), recorded or not."""
    move: object = None
    """The best move found (None if no root move was searched completely)."""
    value: float | None = None
    """Its value for the root player."""
    pv: tuple = ()
    """The principal variation."""
    complete: bool = False
    """Whether every root move was searched (False: the budget ran out)."""
    method: str = ""
    """The n-seat search that made it: "maxn", "paranoid" or "brs" ("": a two-player or chance
    search)."""
    vector: tuple | None = None
    """max^n: the root's value vector (``value`` is the root player's entry)."""

    @property
    def truncated(self) -> bool:
        """Whether the node limit left nodes out."""
        return self.seen > sum(not n.repeat for n in self.nodes)

    def label(self) -> str:
        """A few words naming the search: its depth and window."""
        depth = "to the end" if self.depth is None else f"depth {self.depth}"
        return f"{depth}, window [{number_text(self.alpha)}, {number_text(self.beta)}]"


@dataclass
class Recording:
    """What ``record_search`` recorded: one tree per root search, and the bot's answer."""

    game: Game
    state: State
    bot: str
    """The bot's spec."""
    trees: list
    """``SearchTree``s in the order searched."""
    decision: object
    """What the bot answered (a move or a ``Decision``)."""
    nodes: int
    """Nodes the arena counted for the whole move."""
    max_nodes: int
    """The node limit the recording had."""

    @property
    def truncated(self) -> bool:
        return any(t.truncated for t in self.trees)


class Recorder:
    """Collects the nodes of a bot's root searches, at most ``max_nodes`` in all.

    The search calls ``begin`` at the root, ``enter`` and ``leave`` around every node
    below it (or ``leaf`` for a child scored in its parent's loop), and ``finish`` at the
    end. Past the limit, nodes are counted in ``SearchTree.seen`` but not kept.
    """

    def __init__(self, max_nodes: int = DEFAULT_MAX_NODES):
        if max_nodes < 1:
            raise ParameterError(f"bad max_nodes={max_nodes!r}; expected a whole number of at least 1")
        self.max_nodes = max_nodes
        self.trees: list[SearchTree] = []
        self.kept = 0
        self._tree: SearchTree | None = None
        self._stack: list = []  # the nodes entered and not yet left (None: not kept)

    def begin(self, state, player: int, depth: int | None, alpha: float, beta: float, method: str = "",
              layer: tuple = ()) -> None:
        self._tree = SearchTree(depth, alpha, beta, player, method=method)
        self.trees.append(self._tree)
        self._stack = []
        self.enter(None, state, player, 0, alpha, beta, layer=layer)

    def enter(self, move, state, mover: int, ply: int, alpha: float, beta: float, repeat: bool = False,
              parent_best: float | None = None, by: int | None = None, layer: tuple = ()) -> None:
        tree = self._tree
        if tree is None:
            return
        if not repeat:
            tree.seen += 1
        stack = self._stack
        parent = stack[-1] if stack else None
        if self.kept >= self.max_nodes or (stack and parent is None):
            stack.append(None)
            return
        self.kept += 1
        nodes = tree.nodes
        path = () if parent is None else parent.path + (move,)
        node = Node(len(nodes), None if parent is None else parent.index, path, ply, state, mover, alpha, beta,
                    mover == tree.player or mover == CHANCE, repeat=repeat, parent_best=parent_best, by=by,
                    layer=layer)
        if parent is not None:
            parent.children.append(node.index)
        nodes.append(node)
        stack.append(node)

    def leave(self, value: float, kind: str = INNER, cut: int | None = None, pruned=(), skipped=(),
              vector: tuple | None = None) -> float:
        """Close the node entered last; returns ``value`` (so a search can ``return leave(v)``)."""
        if self._tree is None:
            return value
        node = self._stack.pop()
        if node is not None:
            node.value, node.kind, node.cut = value, kind, cut
            node.pruned, node.skipped, node.vector = tuple(pruned), tuple(skipped), vector
        return value

    def current(self) -> Node | None:
        """The node entered last and not yet left (None if it is not kept)."""
        return self._stack[-1] if self._tree is not None and self._stack else None

    def leaf(self, move, state, mover: int, ply: int, alpha: float, beta: float, value: float, kind: str,
             vector: tuple | None = None, by: int | None = None) -> None:
        self.enter(move, state, mover, ply, alpha, beta, by=by)
        self.leave(value, kind, vector=vector)

    def finish(self, move, value: float, pv: tuple, complete: bool, cut: int | None, pruned, skipped=(),
               vector: tuple | None = None) -> None:
        """Close the root search; nodes still open (the budget ran out) are marked ``OPEN``."""
        tree = self._tree
        if tree is None:
            return
        stack = self._stack
        while len(stack) > 1:
            node = stack.pop()
            if node is not None:
                node.kind = OPEN
        if complete:
            self.leave(value, INNER, cut, pruned, skipped, vector)
        elif stack:
            root = stack.pop()
            if root is not None:
                root.kind = OPEN
        tree.move, tree.value, tree.pv, tree.complete, tree.vector = move, value, pv, complete, vector
        self._tree = None


def recording_bots(registry) -> list[str]:
    """Names of the registered bots that can record their search."""
    return sorted(name for name, entry in registry.bots.items() if hasattr(entry.cls, "recorder"))


def record_search(
    bot: Bot, game: Game, state: State, budget: Budget | None = None, max_nodes: int = DEFAULT_MAX_NODES
) -> Recording:
    """Ask ``bot`` for a move in ``state`` as the referee does, recording its search."""
    if not hasattr(bot, "recorder"):
        raise ParameterError(f"bot {bot.name!r} cannot record its search (it has no 'recorder')")
    if game.is_terminal(state):
        raise ParameterError(f"the position is a finished game of {game.name!r}: there is nothing to search")
    recorder = Recorder(max_nodes)
    bot.recorder = recorder
    try:
        answer, counter = ask(bot, game, state, budget)
    finally:
        bot.recorder = None
    return Recording(game, state, bot.spec, recorder.trees, answer, counter.nodes, max_nodes)


def decision_move(answer):
    """The move of a bot's answer (a move or a ``Decision``)."""
    return answer.move if isinstance(answer, Decision) else answer


def number_text(value: float | None) -> str:
    """A value as lecture notes write it: whole numbers without a point, infinity as ∞."""
    if value is None:
        return "?"
    if value == float("inf"):
        return "+∞"
    if value == float("-inf"):
        return "-∞"
    if float(value).is_integer():
        return str(int(value))
    near = round(value)
    if abs(value - near) < 1e-6:  # a null window's edge, EPSILON from a whole number
        side = "+ε" if value > near else "-ε"
        return side if near == 0 else f"{near}{side}"
    return f"{value:.4g}"
