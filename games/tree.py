"""A game tree written out by hand, for teaching minimax and alpha-beta.

The players alternate down the tree: the root and every node an even number of moves
below it belong to the first player (maximising), the others to the second
(minimising). A leaf holds the first player's utility, any number; the second player
gets its negation. Leaves may sit at any depth.

Syntax: a node is a number (a leaf) or its children in square brackets, separated by
spaces or commas. The brackets around the root may be left out::

    tree:shape=[[-2 3 1] [4 5 6]] [[-3 -1 1] [7 8 9]]
    tree:shape=[[-2,3,1],[4,5,6]],[[-3,-1,1],[7,8,9]]

Both are the root with two children, each with two children with three leaves. A chance
node is written in braces, each child after its probability and a colon (a decimal or a
fraction; together they make 1): ``{0.9:[2 2] 0.1:[3 3]}``. The players alternate at the
decision nodes down the tree, chance nodes aside: under a max node and a chance node the
next decision is min's. Quote the spec in a shell (brackets are shell patterns). ``file=PATH`` reads the same syntax
from a file, where newlines separate too and ``#`` starts a comment that runs to the end
of the line. ``example=NAME`` picks a named tree (see EXAMPLES); with none of the three,
the game is ``example=bois``.

State: the path from the root, a tuple of child indices from 0 (equal paths, equal
states). Move: a child's index, written as a letter: "a" for the first child, "b" for
the second, ..., "z", then "aa", "ab", ... as spreadsheet columns are.

Render: the path, whose turn it is and the subtree below, one node a line (the node
itself marked ``*``, each child by its move), cut off after RENDER_LINES lines.

Bounds: plus and minus the largest absolute leaf value (1 when every leaf is 0). The
heuristic is 0 at every inner node, strictly inside the bounds: the tree gives no
estimates, so a depth-limited search values a node at its horizon as 0.
"""

from __future__ import annotations

import math
import re

from fractions import Fraction

from arena import CHANCE, Game, Model, ParameterError, param

#: Named trees: name -> (shape, where it comes from).
EXAMPLES = {
    "bois": (
        "[[-2 3 1] [4 5 6]] [[-3 -1 1] [7 8 9]]",
        "the game-theory lecture tree of the Belgian Olympiad in Informatics training: value 3",
    ),
    "aima": (
        "[3 12 8] [2 4 6] [14 5 2]",
        "Russell and Norvig, Artificial Intelligence: A Modern Approach, 3rd ed., Figure 5.2: value 3",
    ),
    "aima-chance": (
        "{0.9:[2 2] 0.1:[3 3]} {0.9:[1 1] 0.1:[4 4]}",
        "Russell and Norvig, 3rd ed., Figure 5.12 (left): max over chance nodes over min; expectiminimax "
        "value 2.1 (the first move; the second is worth 1.3)",
    ),
}
#: Lines of the subtree ``render`` shows at most.
RENDER_LINES = 40

_TOKEN = re.compile(r"\[|\]|\{|\}|#[^\n]*|[^\s,\[\]{}#:]+:|[^\s,\[\]{}#:]+")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_MOVE = re.compile(r"[a-z]+")
_SYNTAX = ("write a node as a number or as its children in [brackets], e.g. [[-2 3 1] [4 5 6]] [[-3 -1 1] [7 8 9]], "
           "and a chance node in {braces}, each child after its probability, e.g. {0.5:[1 2] 0.5:3}")


class Chance(tuple):
    """A chance node: its children, with their probabilities in ``probabilities`` (Fractions)."""

    probabilities: tuple = ()

    def __new__(cls, children, probabilities):
        node = super().__new__(cls, children)
        node.probabilities = tuple(probabilities)
        return node


class TreeSyntaxError(ValueError):
    """Text that is not a tree: what is wrong, at which character (from 0)."""

    def __init__(self, offset: int, problem: str):
        super().__init__(problem)
        self.offset = offset
        self.problem = problem


def parse_tree(text: str) -> tuple:
    """The root written in ``text`` as nested tuples: a tuple per inner node (a ``Chance`` per
    chance node), a number per leaf."""
    # one open group per '[' or '{': (its bracket, where, children, probabilities, pending probability)
    stack: list[list] = [["", 0, [], [], None]]
    for m in _TOKEN.finditer(text):
        token, at = m.group(), m.start()
        group = stack[-1]
        if token in ("[", "{"):
            _need_probability(group, at)
            stack.append([token, at, [], [], None])
        elif token in ("]", "}"):
            if len(stack) == 1:
                raise TreeSyntaxError(at, f"{token!r} closes no {'[' if token == ']' else '{'!r}")
            bracket, start, children, probabilities, pending = stack.pop()
            if (bracket, token) not in (("[", "]"), ("{", "}")):
                raise TreeSyntaxError(at, f"{token!r} closes the {bracket!r} at character {start + 1}")
            if pending is not None:
                raise TreeSyntaxError(pending[1], "a probability without a child after it")
            if not children:
                raise TreeSyntaxError(start, f"'{bracket}{token}' is an inner node without children (a leaf is a number)")
            node = tuple(children) if bracket == "[" else _chance(children, probabilities, start)
            _need_probability(stack[-1], start)
            _add(stack[-1], node)
        elif token.endswith(":"):
            if group[0] != "{":
                raise TreeSyntaxError(at, f"{token!r}: a probability belongs before a child of a chance node {{...}}")
            if group[4] is not None:
                raise TreeSyntaxError(at, "two probabilities in a row")
            group[4] = (_probability(token[:-1], at), at)
        elif token[0] != "#":
            _need_probability(group, at)
            _add(group, _number(token, at))
    if len(stack) > 1:
        raise TreeSyntaxError(stack[-1][1], f"{stack[-1][0]!r} is never closed")
    top = stack[0][2]
    if not top:
        raise TreeSyntaxError(len(text), "the tree is empty")
    # one bracketed group is the root itself; anything else lists the root's children
    return top[0] if len(top) == 1 and isinstance(top[0], tuple) else tuple(top)


def _need_probability(group: list, at: int) -> None:
    if group[0] == "{" and group[4] is None:
        raise TreeSyntaxError(at, "each child of a chance node {...} comes after its probability and a colon, e.g. 0.5:3")


def _add(group: list, node) -> None:
    group[2].append(node)
    if group[0] == "{":
        group[3].append(group[4][0])
        group[4] = None


def _probability(token: str, at: int) -> Fraction:
    try:
        p = Fraction(token)
    except (ValueError, ZeroDivisionError):
        raise TreeSyntaxError(at, f"{token!r} is not a probability (a decimal or a fraction, e.g. 0.25 or 1/4)") from None
    if not 0 < p <= 1:
        raise TreeSyntaxError(at, f"probability {token} is not above 0 and at most 1")
    return p


def _chance(children: list, probabilities: list, at: int) -> "Chance":
    total = sum(probabilities)
    if total != 1:
        raise TreeSyntaxError(at, f"the probabilities of a chance node add up to {float(total):g}, not 1")
    return Chance(children, probabilities)


def format_tree(root) -> str:
    """Canonical text for a tree of nested sequences (``parse_tree`` reads it back)."""
    out = []
    todo = [root]  # nodes still to write, and "]" or "}" where a node's children end
    while todo:
        node = todo.pop()
        if isinstance(node, Chance):
            out.append("{")
            todo.append("}")
            todo.extend(reversed([(_fraction_text(p), child) for p, child in zip(node.probabilities, node)]))
        elif isinstance(node, (tuple, list)) and len(node) == 2 and isinstance(node[0], str):
            out.append(node[0] + ":")  # a chance node's child, after its probability
            todo.append(node[1])
        elif isinstance(node, (tuple, list)):
            out.append("[")
            todo.append("]")
            todo.extend(reversed(node))
        elif node in ("]", "}"):
            out[-1] = out[-1].rstrip() + node + " "
        else:
            out.append(_number_text(node) + " ")
    return "".join(out).rstrip()


def _fraction_text(p: Fraction) -> str:
    """A probability as written: a decimal where it has a short one, else a fraction."""
    decimal = float(p)
    return repr(decimal) if Fraction(repr(decimal)) == p else f"{p.numerator}/{p.denominator}"


def move_text(index: int) -> str:
    """Letters for a child index from 0: a..z, aa..az, ba.. (bijective base 26)."""
    letters = ""
    index += 1
    while index:
        index, r = divmod(index - 1, 26)
        letters = chr(97 + r) + letters
    return letters


def _number(token: str, at: int):
    try:
        if _INTEGER.fullmatch(token):
            return int(token)
        value = float(token)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise TreeSyntaxError(at, f"{token!r} is not a number")
    return value


def _number_text(value) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))


class Tree(Game):
    name = "tree"
    description = "a game tree given by hand: leaves hold the first player's utility (for teaching search)"

    shape: str | None = param(
        None,
        "the tree: a leaf is a number, an inner node its children in [brackets], separated by spaces or "
        "commas; the root's brackets may be left out: '[[1 2] [3 4]]' or '[1,2],[3,4]'",
    )
    file: str | None = param(None, "a file holding the tree in the same syntax ('#' starts a comment)")
    example: str | None = param(
        None,
        "a named tree (bois if none of shape, file and example is given): "
        + "; ".join(f"{k}: {v[1]}" for k, v in EXAMPLES.items()),
        choices=tuple(EXAMPLES),
    )

    def __init__(self, **params):
        super().__init__(**params)
        given = [k for k in ("shape", "file", "example") if getattr(self, k) is not None]
        if len(given) > 1:
            raise self.bad_parameter(given[1], f"give only one of shape, file and example ({given[0]} is given)")
        if self.file is not None:
            root = self._read(self.file)
        elif self.shape is not None:
            root = self._parse("shape", self.shape, self.shape)
            self.shape = format_tree(root)  # canonical: one spec per tree
        else:
            root = parse_tree(EXAMPLES[self.example or "bois"][0])
        self.root = root
        self._children: dict[tuple, int] = {}  # inner node's path -> number of children
        self._leaves: dict[tuple, float] = {}  # leaf's path -> the first player's utility
        self._mover: dict[tuple, int] = {}  # every node's path -> 0 (max), 1 (min) or CHANCE
        self._outcomes: dict[tuple, list] = {}  # chance node's path -> [(child, probability)]
        todo = [((), root, 0)]  # path, node, the seat of the next decision
        while todo:
            path, node, seat = todo.pop()
            if isinstance(node, Chance):
                self._mover[path] = CHANCE
                self._outcomes[path] = [(i, p) for i, p in enumerate(node.probabilities)]
                below = seat
            else:
                self._mover[path] = seat
                below = 1 - seat
            if isinstance(node, tuple):
                self._children[path] = len(node)
                todo.extend((path + (i,), child, below) for i, child in enumerate(node))
            else:
                self._leaves[path] = node
        if self._outcomes:
            self.model = Model(chance=True)
        self._sizes: dict[tuple, int] = {}  # inner node's path -> nodes in its subtree, itself included
        sizes = self._sizes
        for path in sorted(self._children, key=len, reverse=True):  # every child before its parent
            sizes[path] = 1 + sum(sizes.get(path + (i,), 1) for i in range(self._children[path]))
        top = max(abs(v) for v in self._leaves.values())
        self.bounds = (-top, top) if top else (-1, 1)
        self._widest = max(self._children.values())

    def _read(self, path: str) -> tuple:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or exc  # a UnicodeDecodeError has none
            raise ParameterError(f"cannot read tree file {path!r} for game 'tree': {why}") from None
        return self._parse("file", path, text)

    def _parse(self, attr: str, value: str, text: str) -> tuple:
        try:
            return parse_tree(text)
        except TreeSyntaxError as exc:
            line = text.count("\n", 0, exc.offset) + 1
            column = exc.offset - (text.rfind("\n", 0, exc.offset) + 1) + 1
            where = f"line {line}, column {column}" if "\n" in text else f"character {column}"
            near = " ".join(text[max(0, exc.offset - 12) : exc.offset + 13].split())
            source = f"file {value!r} (parameter 'file')" if attr == "file" else "parameter 'shape'"
            raise ParameterError(
                f"malformed tree in {source} of game 'tree' at {where}"
                + (f" (near {near!r})" if near else "")
                + f": {exc.problem}; {_SYNTAX}"
            ) from None

    def initial_state(self):
        return ()

    def to_move(self, state):
        return self._mover[state]

    def chance_outcomes(self, state):
        return self._outcomes[state]

    def legal_moves(self, state):
        if self._mover[state] == CHANCE:
            return []
        return list(range(self._children.get(state, 0)))

    def apply(self, state, move):
        return state + (move,)

    def is_terminal(self, state):
        return state in self._leaves

    def utility(self, state, player):
        value = self._leaves[state]
        return -value if player else value

    def heuristic(self, state, player):
        return 0.0

    def render(self, state):
        path = " ".join(map(move_text, state)) if state else "root"
        if state in self._leaves:
            value = self._leaves[state]
            first, second = _number_text(value), _number_text(-value)
            return f"path: {path}; a leaf: {first} for the first player, {second} for the second"
        role = {0: "first player (max)", 1: "second player (min)", CHANCE: "chance"}[self._mover[state]]
        size = self._sizes[state]
        lines = [f"path: {path}; {role} to move; {size} nodes in this subtree", *self._outline(state)]
        return "\n".join(lines)

    def _outline(self, state) -> list[str]:
        """The subtree below ``state``, one node a line, cut off after RENDER_LINES lines."""
        lines, shown = [], 0
        todo = [(state, "*")]
        while todo:
            path, label = todo.pop()
            if shown == RENDER_LINES:
                rest = self._sizes[state] - shown
                lines.append(f"... and {rest} more node{'s' if rest > 1 else ''}")
                break
            indent = "  " * (len(path) - len(state))
            if path in self._leaves:
                lines.append(f"{indent}{label}: {_number_text(self._leaves[path])}")
            else:
                lines.append(f"{indent}{label}: {('max', 'min', 'chance')[self._mover[path]]}")
                odds = dict(self._outcomes.get(path, ()))
                todo.extend((path + (i,), move_text(i) + (f" ({_fraction_text(odds[i])})" if i in odds else ""))
                            for i in reversed(range(self._children[path])))
            shown += 1
        return lines

    def result_text(self, state):
        return f"{super().result_text(state)} (leaf {_number_text(self._leaves[state])})"

    def format_move(self, move):
        return move_text(move)

    def parse_move(self, text):
        t = text.strip().lower()
        if not _MOVE.fullmatch(t):
            raise self.bad_move_text(text, f"a letter naming a child, from a to {move_text(self._widest - 1)}")
        index = 0
        for ch in t:
            index = index * 26 + ord(ch) - 96
        if index > self._widest:
            raise self.bad_move_text(text, f"a letter naming a child, from a to {move_text(self._widest - 1)}")
        return index - 1
