"""Strategies per information state: a game's whole tree of information states, a strategy's
exact best responses and exploitability, and the strategy file that stores one.

For games where bots see views (hidden information or simultaneous moves). Moves made at
once are taken one acting seat after another, each from its own information state (it does
not see the others' choices of the turn): the usual sequential form of a simultaneous move.

A strategy is a table: for each information state (``Tree.infosets``) a probability per
legal move, in the game's order. ``tabulate`` asks a bot's ``policy(game, view)`` (see
``bots.policy``) once per information state; ``exploitability`` computes each seat's best
response to it. Exploitability is OpenSpiel's: NashConv / 2, the mean over the two seats of
what a best response gains over the game's total (0 if zero-sum): 0 exactly at a Nash equilibrium.
Best responses assume perfect recall (a seat's information key tells all it saw and did before),
which the information keys of the arena's games give.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Hashable, Sequence

from arena.errors import ParameterError
from arena.game import CHANCE, JOINT, Game
from arena.view import View, make_view

TERMINAL = -3
"""``Tree.kind`` of a node where the game is over."""
#: Most nodes a tree may have before ``build_tree`` gives up (about 6 s and 250 MB to reach).
MAX_NODES = 1_000_000
#: How far a strategy's probabilities at one information state may sum from 1.
TOLERANCE = 1e-6
#: The first field of a strategy file, naming its format and version.
FORMAT = "arena-strategy 1"


class TooLarge(ParameterError):
    """A game whose tree has more nodes than the walk may make."""


@dataclass
class Infoset:
    """One seat's information state: the states it cannot tell apart."""

    seat: int
    key: Hashable
    """``game.information_key`` of its states."""
    moves: tuple
    """The seat's legal moves there, in the game's order (equal in all its states)."""
    texts: tuple[str, ...]
    """Their texts (``move_text`` where the state shows, else ``format_move``), as a view's host writes them."""
    view: View
    """The view of the first of its states reached: what a bot is handed there."""
    nodes: list[int] = field(default_factory=list)
    """Its nodes in the tree."""


@dataclass
class Tree:
    """A game's whole tree, flattened: node 0 the start, a parent before its children."""

    game: Game
    kind: list[int] = field(default_factory=list)
    """Per node: the seat to move, ``CHANCE`` or ``TERMINAL``."""
    children: list[tuple[int, ...]] = field(default_factory=list)
    """Per node: its children, one per legal move (in the ``Infoset``'s order) or chance outcome."""
    probs: list = field(default_factory=list)
    """Per chance node: each outcome's probability (a float); None elsewhere."""
    info: list[int] = field(default_factory=list)
    """Per decision node: the index of its ``Infoset``; -1 elsewhere."""
    utilities: list = field(default_factory=list)
    """Per terminal node: every seat's utility; None elsewhere."""
    infosets: list[Infoset] = field(default_factory=list)
    index: dict = field(default_factory=dict)
    """``(seat, key)`` -> index in ``infosets``."""

    def __len__(self):
        return len(self.kind)


def check_game(game: Game) -> None:
    """Raise ParameterError unless ``game`` is one this module works on: two seats whose utilities
    have a constant sum, and bots handed views (hidden information or simultaneous moves)."""
    model = game.model
    if not model.imperfect:
        raise ParameterError(f"{game.name} has neither hidden information nor simultaneous moves: its bots are handed "
                             "the state, not a view, so no strategy per information state applies")
    if model.players != 2 or model.total is None:
        what = f"{model.players} players" if model.players != 2 else "utilities of no constant sum"
        raise ParameterError(f"{game.name} has {what}: exploitability is computed for two-player zero-sum "
                             "(or constant-sum) games")


def build_tree(game: Game, max_nodes: int = MAX_NODES) -> Tree:
    """Walk every line of ``game`` (chance included) into a ``Tree``; ParameterError past ``max_nodes``."""
    tree = Tree(game)
    _Walk(tree, max_nodes).node(game.initial_state(), ())
    return tree


class _Walk:
    def __init__(self, tree: Tree, max_nodes: int):
        self.tree, self.game, self.max_nodes = tree, tree.game, max_nodes

    def new(self, kind: int) -> int:
        t = self.tree
        n = len(t.kind)
        if n >= self.max_nodes:
            raise TooLarge(f"{self.game.spec} has more than {self.max_nodes:,} states in its tree: too many to walk exactly")
        t.kind.append(kind)
        t.children.append(())
        t.probs.append(None)
        t.info.append(-1)
        t.utilities.append(None)
        return n

    def node(self, state, history: tuple) -> int:
        game, t = self.game, self.tree
        if game.is_terminal(state):
            n = self.new(TERMINAL)
            t.utilities[n] = tuple(float(u) for u in game.utilities(state))
            return n
        player = game.to_move(state)
        if player == JOINT:
            return self.joint(state, history, game.acting(state), ())
        if player == CHANCE:
            n = self.new(CHANCE)
            outcomes = game.chance_outcomes(state)
            t.probs[n] = tuple(float(p) for _, p in outcomes)
            t.children[n] = tuple(self.node(game.apply(state, o), history + (game.public_text(state, o),))
                                  for o, _ in outcomes)
            return n
        n, infoset = self.decision(state, player, history)
        t.children[n] = tuple(self.node(game.apply(state, m), history + (game.public_text(state, m),))
                              for m in infoset.moves)
        return n

    def joint(self, state, history: tuple, seats: tuple, chosen: tuple) -> int:
        """The acting seats of a joint move one after another, each from the state before any chose."""
        game, t = self.game, self.tree
        n, infoset = self.decision(state, seats[len(chosen)], history)
        if len(chosen) + 1 < len(seats):
            kids = (self.joint(state, history, seats, chosen + (m,)) for m in infoset.moves)
        else:
            kids = (self.node(game.apply_joint(state, moves), history + tuple(game.public_text(state, m) for m in moves))
                    for moves in (chosen + (m,) for m in infoset.moves))
        t.children[n] = tuple(kids)
        return n

    def decision(self, state, seat: int, history: tuple) -> tuple[int, Infoset]:
        game, t = self.game, self.tree
        n = self.new(seat)
        key = game.information_key(state, seat)
        i = t.index.get((seat, key))
        if i is None:
            view = make_view(game, state, seat, history)
            write = (lambda m: game.move_text(state, m)) if view.state is not None else game.format_move
            i = t.index[(seat, key)] = len(t.infosets)
            t.infosets.append(Infoset(seat, key, view.legal, tuple(write(m) for m in view.legal), view))
        infoset = t.infosets[i]
        if infoset.nodes and tuple(game.legal_moves_for(state, seat)) != infoset.moves:
            raise ParameterError(f"{game.name} gives seat {seat} different legal moves in two states of its "
                                 f"information state {key_text(key)!r}")
        infoset.nodes.append(n)
        t.info[n] = i
        return n, infoset


Policy = Callable[[View], Sequence[tuple]]


def tabulate(tree: Tree, policy: Policy, who: str = "the policy", seats=(0, 1)) -> list:
    """``policy(view)`` at every information state of ``seats``: per infoset a tuple of probabilities
    in the order of its moves (None for the other seats'). ParameterError, naming ``who``, for an
    answer that is not a distribution over the legal moves."""
    table: list = [None] * len(tree.infosets)
    for i, infoset in enumerate(tree.infosets):
        if infoset.seat in seats:
            table[i] = distribution(infoset, policy(infoset.view), who)
    return table


def distribution(infoset: Infoset, pairs, who: str) -> tuple[float, ...]:
    """``pairs`` of (move, probability) as probabilities in ``infoset``'s move order, checked."""
    where = f"{who} at information state {key_text(infoset.key)!r} of seat {infoset.seat}"
    probs = [0.0] * len(infoset.moves)
    place = {m: j for j, m in enumerate(infoset.moves)}
    try:
        for move, p in pairs:
            j = place.get(move)
            p = float(p)
            if j is None:
                raise ParameterError(f"{where} gives {move!r}, not a legal move; legal: {', '.join(infoset.texts)}")
            if not (math.isfinite(p) and p >= 0):
                raise ParameterError(f"{where} gives {move!r} the probability {p!r}; expected a number from 0 to 1")
            probs[j] += p
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError(f"{where} answered {str(pairs)[:200]!r}; expected (move, probability) pairs") from None
    if abs(sum(probs) - 1) > TOLERANCE:
        raise ParameterError(f"{where} gives probabilities summing to {sum(probs)!r}, not 1")
    return tuple(probs)


def uniform_table(tree: Tree) -> list:
    """Every seat's uniform strategy."""
    return [tuple(1 / len(s.moves) for _ in s.moves) for s in tree.infosets]


def best_response(tree: Tree, table: list, seat: int, moves: dict | None = None) -> float:
    """The most ``seat`` can expect against ``table`` played by the other seats (a best response:
    at each of its information states the move of the highest counterfactual value). ``moves``,
    if given, receives the response: infoset index -> move index, where the play may reach."""
    kind, children, probs, info, utilities = tree.kind, tree.children, tree.probs, tree.info, tree.utilities
    reach = [0.0] * len(kind)  # the chance and other seats' probability of reaching each node
    reach[0] = 1.0
    for n in range(len(kind)):  # parents before children
        k, r = kind[n], reach[n]
        if k == TERMINAL:
            continue
        if k == seat:
            for c in children[n]:
                reach[c] = r
        else:
            for c, p in zip(children[n], probs[n] if k == CHANCE else table[info[n]]):
                reach[c] = r * p
    value: list = [None] * len(kind)
    best: dict[int, int] = {} if moves is None else moves

    def choice(i: int) -> int:
        j = best.get(i)
        if j is None:
            best[i] = -1  # under way: met again below itself only if the seat forgets (imperfect recall)
            nodes = tree.infosets[i].nodes
            totals = [sum(reach[n] * worth(children[n][a]) for n in nodes) for a in range(len(children[nodes[0]]))]
            j = best[i] = max(range(len(totals)), key=totals.__getitem__)  # the first of equal ones
        elif j < 0:
            s = tree.infosets[i]
            raise ParameterError(f"{tree.game.name} returns to seat {s.seat}'s information state "
                                 f"{key_text(s.key)!r} below itself: best responses need perfect recall")
        return j

    def worth(n: int) -> float:
        v = value[n]
        if v is None:
            k = kind[n]
            if k == TERMINAL:
                v = utilities[n][seat]
            elif k == seat:
                v = worth(children[n][choice(info[n])])
            else:
                v = sum(p * worth(c) for c, p in zip(children[n], probs[n] if k == CHANCE else table[info[n]]) if p)
            value[n] = v
        return v

    return worth(0)


def expected_utilities(tree: Tree, table: list) -> tuple[float, ...]:
    """Every seat's expected utility when all play ``table``."""
    kind, children, probs, info, utilities = tree.kind, tree.children, tree.probs, tree.info, tree.utilities

    def worth(n):
        k = kind[n]
        if k == TERMINAL:
            return utilities[n]
        out = None
        for c, p in zip(children[n], probs[n] if k == CHANCE else table[info[n]]):
            if p:
                v = worth(c)
                out = [p * x for x in v] if out is None else [o + p * x for o, x in zip(out, v)]
        return tuple(out)

    return worth(0)


@dataclass(frozen=True)
class Exploitability:
    """What best responses gain against a strategy played in both seats."""

    best: tuple[float, float]
    """Each seat's expected utility when it plays a best response and the other seat the strategy."""
    selfplay: tuple[float, float]
    """Each seat's expected utility when both play the strategy."""
    total: float
    """The game's constant sum of utilities (0: zero-sum)."""

    @property
    def exploitability(self) -> float:
        """NashConv / 2, OpenSpiel's ``exploitability``: the mean of ``best`` over the seats, less the
        mean utility (total / 2)."""
        return (self.best[0] + self.best[1] - self.total) / 2

    @property
    def guaranteed(self) -> tuple[float, float]:
        """What the strategy secures in each seat against a best response in the other."""
        return (self.total - self.best[1], self.total - self.best[0])


def exploitability(tree: Tree, table: list) -> Exploitability:
    """``table``'s best responses in a two-seat game of a constant sum (``check_game``)."""
    total = float(tree.game.model.total)
    return Exploitability((best_response(tree, table, 0), best_response(tree, table, 1)),
                          tuple(expected_utilities(tree, table)), total)


# The strategy file (JSON, UTF-8):
#   {"format": "arena-strategy 1", "game": SPEC, "source": TEXT, "iterations": N or null,
#    "exploitability": X, "best_response": [B0, B1],
#    "strategy": {"0": {KEY: {MOVE: P, ...}, ...}, "1": {...}}}
# SPEC is the game's spec (its name and non-default parameters); KEY an information key as
# text (``key_text``); MOVE a legal move's text there; P its probability (summing to 1).


def key_text(key: Hashable) -> str:
    """An information key as text: a string as it is; numbers, and tuples of them and of strings, as
    compact JSON (a tuple a list): stable across runs and Python versions, never ``repr``."""
    if isinstance(key, str):
        return key
    try:
        return json.dumps(key, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        raise ParameterError(f"information key {key!r} is not text, a number or a tuple of them") from None


def strategy_texts(tree: Tree, table: list) -> dict:
    """``table`` as the file's ``strategy``: seat -> key text -> move text -> probability."""
    out: dict = {}
    for infoset, probs in zip(tree.infosets, table):
        if probs is None:
            continue
        seat = out.setdefault(str(infoset.seat), {})
        text = key_text(infoset.key)
        if text in seat:
            raise ParameterError(f"two information states of seat {infoset.seat} in {tree.game.name} have the key "
                                 f"text {text!r}: their keys cannot be stored apart")
        seat[text] = dict(zip(infoset.texts, probs))
    return out


def save(path, game: Game, strategy: dict, source: str, result: Exploitability, iterations: int | None = None) -> None:
    """Write a strategy file (the format above); ParameterError in one line if it cannot be written."""
    data = {"format": FORMAT, "game": game.spec, "source": source, "iterations": iterations,
            "exploitability": result.exploitability, "best_response": list(result.best), "strategy": strategy}
    try:
        Path(path).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"cannot write the strategy file {str(path)!r}: {exc.strerror or exc}") from None


def load(path) -> dict:
    """A strategy file's contents, checked: ParameterError in one line naming what is wrong."""
    where = f"strategy file {str(path)!r}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        hint = "" if Path(path).is_absolute() else f" (relative to {str(Path.cwd())!r}; an absolute path is safest)"
        raise ParameterError(f"{where} does not exist{hint}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ParameterError(f"cannot read {where}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ParameterError(f"{where} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ParameterError(f"{where} is not a strategy file (its 'format' must be {FORMAT!r})")
    if not isinstance(data.get("game"), str) or not isinstance(data.get("strategy"), dict):
        raise ParameterError(f"{where} lacks its 'game' (a spec) or its 'strategy' (seat -> key -> move -> probability)")
    for seat, entries in data["strategy"].items():
        if seat not in ("0", "1") or not isinstance(entries, dict):
            raise ParameterError(f"{where}: 'strategy' has the entry {seat!r}; expected seats \"0\" and \"1\", "
                                 "each key -> move -> probability")
        for key, probs in entries.items():
            ok = isinstance(probs, dict) and probs and all(
                isinstance(p, (int, float)) and not isinstance(p, bool) and 0 <= p <= 1 for p in probs.values())
            if not ok or abs(sum(probs.values()) - 1) > TOLERANCE:
                raise ParameterError(f"{where}: seat {seat}'s information state {key!r} needs move -> probability, "
                                     f"each from 0 to 1, summing to 1; got {probs!r}"[:300])
    return data
