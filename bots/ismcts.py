"""Information-set Monte Carlo tree search (ISMCTS) for games of hidden information and
simultaneous moves (P. I. Cowling, E. J. Powley and D. Whitehouse, "Information Set Monte
Carlo Tree Search", IEEE Transactions on Computational Intelligence and AI in Games 4(2), 2012).

Each iteration draws a determinization: a state the seat cannot tell from the true one
(``game.sample_state(view, rng)``), and walks it down a tree whose nodes are information
sets. The node at a state is the information state of the seat to move there
(``game.information_key``), so each seat chooses by what it knows and nothing else, as
OpenSpiel's ISMCTS keys its nodes (the paper's single-observer form keys every node by what
the asking seat knows, so that the others choose as if they knew no more than it). Moves are picked by UCB1 with the paper's availability
counts: a move's mean reward plus ``c * sqrt(ln a / n)``, where ``a`` counts the iterations
in which the move was legal at the node, not the visits of the node, since a move is not
legal in every determinization. The first untried move met is expanded, uniformly random
moves (and chance outcomes drawn by their probabilities) play the game out, and the
utilities of every seat, scaled from the game's bounds into [0, 1], are backed up: each
node sums the reward of its own seat, so games of more seats, or whose utilities do not sum
to zero, are played too.

Where several seats move at once (``JOINT``) each acting seat picks by the statistics of its
own node (decoupled UCT, as in M. Lanctot et al., "Monte Carlo Tree Search in Simultaneous
Move Games with Applications to Goofspiel", 2013) and the moves are applied together.
Chance nodes stay out of the tree: an outcome is drawn by its probability at every visit.
In a game without hidden information the state is its own determinization and key.

Every position made by ``game.apply`` or ``game.apply_joint`` is counted by the arena; when
the budget runs out the unfinished iteration is dropped and the most visited move is played.
All randomness comes from ``self.rng``.
"""

from __future__ import annotations

from math import log, sqrt

from arena import CHANCE, JOINT, Bot, BudgetExhausted, Decision, Game, View, param
from arena.dice import outcome_at

#: Iterations per move when ``playouts`` is None and the budget has no node or time limit.
UNBOUNDED_PLAYOUTS = 1000


def cannot_sample(game: Game) -> str | None:
    """Why a bot that searches sampled states cannot play ``game``, or None: a game of hidden
    information must offer ``sample_state``."""
    if game.model.hidden and getattr(type(game), "sample_state", None) is Game.sample_state:
        return (f"it searches states sampled from what a seat knows; {game.name} has hidden information "
                f"and offers no sample_state")
    return None


def seat_and_moves(game: Game, view) -> tuple:
    """``(seat, legal moves, draw)`` of the seat asked to move: ``draw(rng)`` gives a state it
    cannot tell from the true one. ``view`` is an ``arena.View``, or the state itself where
    nothing is hidden (a perfect-information game; a tool that hands the state)."""
    if isinstance(view, View):
        return view.seat, tuple(view.legal), lambda rng: game.sample_state(view, rng)
    player = game.to_move(view)
    seat = game.acting(view)[0] if player == JOINT else player
    return seat, tuple(game.legal_moves_for(view, seat)), lambda rng: view


class ISMCTSBot(Bot):
    """ISMCTS: UCB1 over information sets, a sampled state per iteration; plays the most visited move."""

    name = "ismcts"
    description = ("information-set MCTS: a state sampled from what the seat knows per iteration, a node per "
                   "information set, availability counts; decoupled UCT at simultaneous moves; a utility per seat")
    handles = frozenset({"chance", "players", "nonzero-sum", "simultaneous", "hidden"})

    playouts: int | None = param(
        1000, "iterations per move (none: until the node or time budget runs out, at most one per node of a "
              "node budget)", min=1)
    c: float = param(0.7, "UCB1 exploration constant (rewards scaled into [0, 1])", min=0)

    def suitable(self, game):
        return self.unhandled(game) or cannot_sample(game)

    def choose(self, game, view, budget):
        seat, legal, draw = seat_and_moves(game, view)
        if len(legal) == 1:
            return Decision(legal[0], depth=0)
        rng = self.rng
        limit = self.playouts
        if limit is None:  # every iteration applies at least one move: a node budget caps them
            limit = budget.budget.nodes
            if limit is None and budget.budget.time is None and budget.budget.clock is None:
                limit = UNBOUNDED_PLAYOUTS
        tree: dict = {}  # (seat, information key) -> {move: [visits, reward, availability]}
        root: dict = {}  # the asking seat's node at the root, whatever key a sample gives it
        done = deepest = 0
        try:
            iterate = self._iteration(game, seat, root, tree, rng.random)
            while limit is None or done < limit:
                deepest = max(deepest, iterate(draw(rng)))
                done += 1
        except BudgetExhausted:
            pass  # the unfinished iteration is dropped
        return self._decision(game, root, legal, rng, deepest)

    def _iteration(self, game, seat: int, root: dict, tree: dict, random):
        """``iterate(state)``: one iteration from the determinization ``state`` (selection and
        expansion, a playout, the back-up), returning how many decisions it took in the tree."""
        apply, apply_joint, terminal, to_move = game.apply, game.apply_joint, game.is_terminal, game.to_move
        legal_for, acting, outcomes = game.legal_moves_for, game.acting, game.chance_outcomes
        key = game.information_key if game.model.hidden else _state_key
        low, high = game.bounds
        span, utilities, c = high - low, game.utilities, self.c

        def select(node: dict, legal) -> tuple:
            """A move at ``node``: an untried one at random, else the best by UCB1; and whether it is new."""
            untried = [m for m in legal if m not in node]
            if untried:
                move = untried[int(random() * len(untried))]
                node[move] = [0, 0.0, 0]
                return move, True
            best, top = None, -1.0
            for m in legal:
                n, w, a = node[m]
                v = w / n + c * sqrt(log(a) / n)
                if v > top:
                    best, top = m, v
            return best, False

        def iterate(state) -> int:
            path = []  # (node, seat, move, legal) of every choice made in the tree
            s, first, expanded, decisions = state, True, False, 0
            while not terminal(s):
                mover = to_move(s)
                if mover == CHANCE:
                    s = apply(s, outcome_at(outcomes(s), random()))
                    continue
                if expanded:
                    break
                seats = acting(s) if mover == JOINT else (mover,)
                joint = []
                for p in seats:
                    node = root if first and p == seat else tree.setdefault((p, key(s, p)), {})
                    legal = legal_for(s, p)
                    move, new = select(node, legal)
                    path.append((node, p, move, legal))
                    joint.append(move)
                    expanded = expanded or new
                s = apply_joint(s, tuple(joint)) if mover == JOINT else apply(s, joint[0])
                first = False
                decisions += 1
            while not terminal(s):  # the playout: uniformly random moves, outcomes by their probabilities
                mover = to_move(s)
                if mover == CHANCE:
                    s = apply(s, outcome_at(outcomes(s), random()))
                elif mover == JOINT:
                    s = apply_joint(s, tuple(_pick(legal_for(s, p), random) for p in acting(s)))
                else:
                    s = apply(s, _pick(legal_for(s, mover), random))
            rewards = [(u - low) / span for u in utilities(s)]
            for node, p, move, legal in path:
                stats = node[move]
                stats[0] += 1
                stats[1] += rewards[p]
                for m in legal:  # availability: every tried move that was legal here this time
                    other = node.get(m)
                    if other is not None:
                        other[2] += 1
            return decisions

        return iterate

    def _decision(self, game, root: dict, legal, rng, depth: int) -> Decision:
        tried = [(root[m][0], root[m][1] / root[m][0], i) for i, m in enumerate(legal) if root.get(m, (0,))[0]]
        if not tried:
            return Decision(rng.choice(legal), depth=0)
        n, q, i = max(tried, key=lambda t: (t[0], t[1], -t[2]))
        low, high = game.bounds
        return Decision(legal[i], score=low + q * (high - low), depth=depth, pv=(legal[i],))


def _state_key(state, seat):
    """Where nothing is hidden, a state is its own information state."""
    return state


def _pick(moves, random):
    return moves[int(random() * len(moves))]
