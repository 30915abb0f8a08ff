"""Monte Carlo tree search: UCT with uniformly random playouts.

Each iteration walks down the tree by UCT (Kocsis and Szepesvári, 2006: a child's mean
reward plus ``exploration * sqrt(ln N / n)``), adds one untried child, plays uniformly
random moves from it to the end of the game, and backs the result up the path. Rewards
are utilities scaled from the game's bounds into [0, 1]; each node keeps the sum for
the player who moved into it, so games where a player moves twice in a row work too.

In a game of more than two seats, or whose utilities do not sum to zero, the playout's
reward is a vector, every seat's utility scaled into [0, 1], and each node sums the reward
of the seat that moved into it (max^n style, as in N. R. Sturtevant, "An analysis of UCT in
multi-player games", Computers and Games 2008): UCT at a node picks by the mean rewards of
the seat to move there. Those games take the loop of games with chance (``_search_chance``),
which plays deterministic games as well; two-player zero-sum games keep their own loops.

Every position made by ``game.apply`` is counted by the arena, in the tree and in the
playouts alike, and so is the root: that is the node count it records. When
the budget runs out, the unfinished playout is dropped and the bot plays the most
visited root move so far. All randomness comes from ``self.rng``.
"""

from __future__ import annotations

from math import log, sqrt

from arena import CHANCE, Bot, BudgetExhausted, Decision, param
from arena.dice import outcome_at

#: Playouts per move when ``playouts`` is None and the budget has no node or time limit.
UNBOUNDED_PLAYOUTS = 1000


class _Node:
    """One position in the tree, with the statistics of the move that led to it."""

    __slots__ = (
        "state", "move", "who", "mover", "untried", "children", "n", "w", "q", "isq", "value", "closed", "drawn"
    )

    def __init__(self, state, move, who, mover, untried, value):
        self.state = state
        self.move = move  # the move from the parent
        self.who = who  # the player who made ``move`` (whose rewards ``w`` sums)
        self.mover = mover  # the player to move here (-1 at the end of the game)
        self.untried = untried  # legal moves without a child yet (a list we own)
        self.children = []
        self.n = 0  # visits
        self.w = 0.0  # total reward for ``who``, each in [0, 1]
        self.q = 0.0  # w / n
        self.isq = 0.0  # 1 / sqrt(n): UCT's exploration term without its constant
        self.value = value  # at the end of the game: player 0's reward in [0, 1]; else None
        self.closed = value is not None  # every line below is expanded to the end
        self.drawn = None  # at a chance node: outcome -> child, for the outcomes drawn so far


class MCTSBot(Bot):
    """UCT: grows a tree by random playouts and plays the most visited move."""

    name = "mcts"
    description = ("Monte Carlo tree search (UCT) with uniformly random playouts; chance nodes sampled; "
                   "n seats back up a utility vector")
    handles = frozenset({"chance", "players", "nonzero-sum"})

    playouts: int | None = param(
        1000,
        "playouts per move (none: until the node or time budget runs out, "
        "at most one per node of a node budget)",
        min=1,
    )
    exploration: float = param(1.41, "UCT exploration constant c", min=0)

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        rng = self.rng
        if len(moves) == 1:
            return Decision(moves[0], depth=0)
        low, high = game.bounds
        mover = game.to_move(state)
        root = _Node(state, None, 1 - mover, mover, list(moves), None)  # its own rewards go unused
        vector = bool(game.model.features & _VECTOR_FEATURES)
        if vector:
            root.who = mover  # any seat: its index must be within the reward vector
        limit, until_spent = self.playouts, self.playouts is None
        if until_spent:
            # A playout that ends inside the tree applies no move and counts nothing, so a
            # node budget also caps the playouts: the search never outlasts what the same
            # budget allows when every playout applies a move.
            limit = budget.budget.nodes
            if limit is None and budget.budget.time is None and budget.budget.clock is None:
                limit = UNBOUNDED_PLAYOUTS
        if vector:
            reward, back_up = _vector_reward(game, low, high), _back_up_vector
            depth = self._search_chance(game, root, limit, until_spent, budget, rng.random, reward, back_up)
        elif game.model.chance:
            utility, span = game.utility, high - low

            def reward(state):
                return (utility(state, 0) - low) / span

            depth = self._search_chance(game, root, limit, until_spent, budget, rng.random, reward, _back_up)
        else:
            depth = self._search(game, root, limit, until_spent, budget, rng.random, low, high)
        return self._decision(root, rng, moves, low, high, depth)

    def _search(self, game, root, limit, until_spent, budget, random, low, high) -> int:
        """Run playouts until ``limit`` (None: no limit) or the budget stops them.

        With ``until_spent`` the search also stops once the whole game tree below the root
        is built. Returns the depth of the tree, in plies.
        """
        apply = game.apply
        legal = game.legal_moves
        to_move = game.to_move
        terminal = game.is_terminal
        utility = game.utility
        c = self.exploration
        span = high - low
        done = deepest = 0
        try:
            while limit is None or done < limit:
                node = root
                path = [root]
                # Selection: while every move here has a child, follow the best UCT score.
                while not node.untried and node.children:
                    k = c * sqrt(log(node.n))
                    best = None
                    top = -1.0
                    for child in node.children:
                        v = child.q + k * child.isq
                        if v > top:
                            top = v
                            best = child
                    node = best
                    path.append(node)
                # Expansion: one untried move, picked at random.
                untried = node.untried
                if untried:
                    i = int(random() * len(untried))
                    move = untried[i]
                    untried[i] = untried[-1]
                    untried.pop()
                    s = apply(node.state, move)  # the arena's apply counts it, and raises at the budget
                    if terminal(s):
                        child = _Node(s, move, node.mover, -1, None, (utility(s, 0) - low) / span)
                    else:
                        moves = legal(s)
                        child = _Node(s, move, node.mover, to_move(s), list(moves), None)
                    node.children.append(child)
                    path.append(child)
                    node = child
                if len(path) > deepest:
                    deepest = len(path)
                # Playout: uniformly random moves to the end of the game.
                value = node.value
                if value is None:
                    s = node.state  # just expanded, not terminal: ``moves`` are its legal moves
                    while True:
                        s = apply(s, moves[int(random() * len(moves))])
                        if terminal(s):
                            break
                        moves = legal(s)
                    value = (utility(s, 0) - low) / span
                elif node.n == 0:  # a new child at the end of the game
                    _close(path)
                elif budget.exhausted or (until_spent and root.closed):
                    break  # a playout that ended in the tree counted nothing: look at the budget
                _back_up(path, value)
                done += 1
        except BudgetExhausted:
            pass  # the unfinished playout is dropped
        return deepest - 1

    def _search_chance(self, game, root, limit, until_spent, budget, random, reward, back_up) -> int:
        """``_search`` for a game with chance nodes: a chance node's child is the outcome
        drawn by its probability (a new one is added to the tree), never chosen by UCT, and
        playouts draw outcomes by their probabilities too. Kept apart so the loop of
        deterministic games pays nothing for it. ``reward(state)`` scores the end of a
        playout (player 0's reward, or every seat's) and ``back_up(path, reward)`` backs it up."""
        apply, legal, to_move, terminal = game.apply, game.legal_moves, game.to_move, game.is_terminal
        outcomes = game.chance_outcomes
        c = self.exploration

        def draw(state):
            return outcome_at(outcomes(state), random())

        def made(state, move, who):
            if terminal(state):
                return _Node(state, move, who, -1, None, reward(state))
            mover = to_move(state)
            node = _Node(state, move, who, mover, [] if mover == CHANCE else list(legal(state)), None)
            if mover == CHANCE:
                node.drawn = {}
            return node

        done = deepest = 0
        try:
            while limit is None or done < limit:
                node, path = root, [root]
                while node.value is None:
                    if node.mover == CHANCE:
                        outcome = draw(node.state)
                        child = node.drawn.get(outcome)
                        if child is None:  # a new outcome: expanded here
                            child = node.drawn[outcome] = made(apply(node.state, outcome), outcome, node.who)
                            node.children.append(child)
                            path.append(child)
                            node = child
                            break
                    elif node.untried:  # one untried move, picked at random
                        untried = node.untried
                        i = int(random() * len(untried))
                        move = untried[i]
                        untried[i] = untried[-1]
                        untried.pop()
                        child = made(apply(node.state, move), move, node.mover)
                        node.children.append(child)
                        path.append(child)
                        node = child
                        break
                    else:  # UCT among the children
                        k = c * sqrt(log(node.n))
                        child = max(node.children, key=lambda ch: ch.q + k * ch.isq)
                    path.append(child)
                    node = child
                if len(path) > deepest:
                    deepest = len(path)
                value = node.value
                if value is None:  # a playout: random moves and drawn outcomes to the end
                    s = node.state
                    while not terminal(s):
                        if to_move(s) == CHANCE:
                            s = apply(s, draw(s))
                        else:
                            moves = legal(s)
                            s = apply(s, moves[int(random() * len(moves))])
                    value = reward(s)
                elif budget.exhausted:
                    break  # a playout that ended in the tree counted nothing: look at the budget
                back_up(path, value)
                done += 1
        except BudgetExhausted:
            pass
        return deepest - 1

    def _decision(self, root, rng, moves, low, high, depth) -> Decision:
        children = [c for c in root.children if c.n]
        if not children:
            return Decision(rng.choice(moves), depth=0)
        best = max(children, key=lambda c: (c.n, c.q))
        pv = [best.move]
        node = best
        while True:
            visited = [c for c in node.children if c.n]
            if not visited:
                break
            node = max(visited, key=lambda c: (c.n, c.q))
            pv.append(node.move)
        return Decision(best.move, score=low + best.q * (high - low), depth=depth, pv=tuple(pv))


def _back_up(path, value: float) -> None:
    """Backpropagation: each node on ``path`` sums the reward of the player who moved into it
    (``value`` is player 0's, in [0, 1])."""
    rewards = (value, 1.0 - value)
    for nd in path:
        n = nd.n + 1
        nd.n = n
        w = nd.w + rewards[nd.who]
        nd.w = w
        nd.q = w / n
        nd.isq = 1.0 / sqrt(n)


#: Model features under which a playout's reward is a vector (one utility per seat).
_VECTOR_FEATURES = frozenset({"players", "nonzero-sum"})


def _vector_reward(game, low: float, high: float):
    """``reward(state)``: every seat's utility at the end ``state``, scaled into [0, 1]."""
    utilities, span = game.utilities, high - low

    def reward(state):
        return tuple([(u - low) / span for u in utilities(state)])

    return reward


def _back_up_vector(path, rewards: tuple) -> None:
    """``_back_up`` for a reward vector (one per seat, each in [0, 1])."""
    for nd in path:
        n = nd.n + 1
        nd.n = n
        w = nd.w + rewards[nd.who]
        nd.w = w
        nd.q = w / n
        nd.isq = 1.0 / sqrt(n)


def _close(path) -> None:
    """After a first visit to the end of the game at ``path[-1]``, mark the finished subtrees."""
    for node in reversed(path[:-1]):
        if node.untried or not all(c.closed for c in node.children):
            return
        node.closed = True
