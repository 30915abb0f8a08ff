"""Best-Reply Search (M. P. D. Schadd and M. H. M. Winands, "Best Reply Search for
Multiplayer Games", IEEE TCIAIG 3(1), 2011, 57-66): between two moves of the root seat only
one opponent moves, the one with the strongest reply; the others pass.

The tree alternates two kinds of layer (the paper's Algorithm 1): the root seat's moves
(MAX), and one MIN layer holding the moves of every opponent in the position, each as if it
were that opponent's turn, of which the search keeps the one worst for the root seat. After
the reply, play returns to the root seat. Every node is worth one number, the root seat's
value (``utility`` at the end, ``heuristic`` at the horizon), searched by fail-soft
alpha-beta with the root seat as MAX and the merged opponents as MIN. Depth counts layers:
each is one ply.

Moving an opponent out of turn needs the game's optional ``pass_to(state, seat)`` (contract
in bots/multiplayer.py): in a game of more than two seats the bot refuses a game without it.
In a two-seat game the only opponent is the one to move: no hook is asked for and the
search is alpha-beta (a seat moving twice in a row plays its own layers, as in minimax).

The opponents of a MIN layer are tried in turn order from the one to move; the reply that
last cut at a ply (a killer: seat and move), then the game's ``move_priorities``, order the
moves; at the root the previous iteration's best move comes first. The reported principal
variation stops before the first move played out of turn (it would not be a line of the game).

Recording (``arena tree``): with a ``recorder`` the search runs ``_recording_node_function``,
the node function's copy that records every node as the two-player searches do (the root
seat the max player, the merged opponents the min player, their values and windows negated),
each node with the seats of its layer and each move with the seat that made it; chosen once
per search, so a search that records nothing runs ``_node_function`` untouched. A change to
one copy is made to the other; tests/test_tree_seats.py holds them to the same decisions and
nodes.
"""

from __future__ import annotations

from math import inf

from arena import BudgetExhausted
from arena.searchtree import HORIZON, INNER, LEAF
from bots.multiplayer import PASS_HOOK, FamilyBot, RootResult, first_of, pass_hook, prioritiser


class BestReplySearch:
    """One move's Best-Reply Search for ``root_seat``."""

    def __init__(self, game, counter=None, *, root_seat: int, recorder=None):
        self.game = game
        self.counter = counter
        self.root_seat = root_seat
        self.recorder = recorder
        """An ``arena.searchtree.Recorder`` every node is recorded into (None: nothing is)."""
        players = game.model.players
        self.pass_to = pass_hook(game) if players > 2 else None
        if players > 2 and self.pass_to is None:
            raise ValueError(f"Best-Reply Search in {game.name} needs the game's {PASS_HOOK}(state, seat)")
        self.lines: list[tuple] = [()]
        """``lines[ply]``: the best line from that ply, each move as (seat, move, played in turn)."""
        self.horizon = [False]
        self.killers: list = []
        self.value = _node_function(self) if recorder is None else _recording_node_function(self, recorder)

    def root(self, state, depth: int, first=None) -> RootResult:
        """Search every root move ``depth`` layers (``first`` first); stops at the budget,
        keeping the best completed move."""
        game, value, lines, me = self.game, self.value, self.lines, self.root_seat
        self.horizon[0] = False
        lines[:] = [(), ()]
        moves = game.legal_moves(state)
        order = prioritiser(game)
        if order is not None and depth > 1:
            moves = order(state, moves)
        moves = first_of(moves, first)
        low, high = alpha, beta = game.bounds
        best_move, best, line = None, -inf, ()
        complete, cut = False, None
        recorder, by = self.recorder, me if self.pass_to is not None else None
        if recorder is not None:
            recorder.begin(state, me, depth, alpha, beta, "brs", ((me, len(moves)),) if by is not None else ())
        try:
            for i, move in enumerate(moves):
                if recorder is None:
                    v = value(game.apply(state, move), depth - 1, alpha, beta, 1, False)
                else:
                    v = value(game.apply(state, move), depth - 1, alpha, beta, 1, False, move, by, me)
                if v > best:
                    best_move, best, line = move, v, ((me, move, True),) + lines[1]
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            cut = i + 1
                            break
            complete = True
        except BudgetExhausted:
            pass
        if recorder is not None:
            recorder.finish(best_move, best, line_in_turn(line), complete, cut, moves[cut:] if cut else ())
        # a value at a bound is proven whatever the depth: every line to it ends the game
        settled = not self.horizon[0] or best <= low or best >= high
        return RootResult(best_move, best, complete, line, complete and settled)


def line_in_turn(line) -> tuple:
    """The moves of a line of (seat, move, played in turn) up to the first played out of turn."""
    out = []
    for _, move, turn in line:
        if not turn:
            break
        out.append(move)
    return tuple(out)


def _layer_function(search):
    """``layer(state, mover, max_turn)``: the positions a layer moves from, ``[(seat, state, in turn)]``."""
    me, pass_to, players = search.root_seat, search.pass_to, search.game.model.players
    # the opponents in turn order, from the seat to move (from the root seat's next if it is to move)
    opponents = [[(start + i) % players for i in range(players) if (start + i) % players != me]
                 for start in range(players)]

    def layer(state, mover, max_turn):
        if pass_to is None:
            return [(mover, state, True)]
        if max_turn:
            if mover == me:
                return [(me, state, True)]
            s = pass_to(state, me)
            return [] if s is None else [(me, s, False)]
        out = []
        for seat in opponents[mover]:
            if seat == mover:
                out.append((seat, state, True))
            else:
                s = pass_to(state, seat)
                if s is not None:
                    out.append((seat, s, False))
        return out

    return layer


def _node_function(search):
    """``value(state, depth, alpha, beta, ply, max_turn)``: the root seat's BRS value of
    ``state`` searched ``depth`` layers, fail-soft in (alpha, beta); ``max_turn``: the root
    seat moves next (with more than two seats; with two the seat to move says)."""
    game, me = search.game, search.root_seat
    is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    pass_to, order = search.pass_to, prioritiser(game)
    lines, horizon, killers = search.lines, search.horizon, search.killers
    layer = _layer_function(search)

    def value(state, depth, alpha, beta, ply, max_turn):
        lines[ply] = ()
        if is_terminal(state):
            return utility(state, me)
        if depth <= 0:
            horizon[0] = True
            return heuristic(state, me)
        mover = to_move(state)
        if pass_to is None:
            max_turn = mover == me
        sources = layer(state, mover, max_turn)
        if not sources:  # nobody of this layer can move: the other layer moves instead
            max_turn = not max_turn
            sources = layer(state, mover, max_turn)
            if not sources:
                horizon[0] = True
                return heuristic(state, me)
        if len(lines) <= ply + 1:
            lines.append(())
        while len(killers) <= ply:
            killers.append(None)
        killer = killers[ply]
        deeper, below, after = depth - 1, ply + 1, not max_turn
        best = -inf if max_turn else inf
        for seat, s, in_turn in sources:
            moves = legal_moves(s)
            if order is not None and depth > 1:
                moves = order(s, moves)
            if killer is not None and killer[0] == seat:
                moves = first_of(moves, killer[1])
            for move in moves:
                v = value(apply(s, move), deeper, alpha, beta, below, after)
                if max_turn:
                    if v > best:
                        best = v
                        lines[ply] = ((seat, move, in_turn),) + lines[below]
                        if v > alpha:
                            alpha = v
                            if alpha >= beta:
                                killers[ply] = (seat, move)
                                return best
                elif v < best:
                    best = v
                    lines[ply] = ((seat, move, in_turn),) + lines[below]
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            killers[ply] = (seat, move)
                            return best
        return best

    return value


def _recording_node_function(search, recorder):
    """``_node_function``'s search, every node recorded into ``recorder``: the same moves in the
    same order, the same windows and killers. ``value`` takes the move that led to ``state``,
    the seat that made it (with more than two seats; else None) and the seat its parent was
    recorded for (a finished game is recorded with that seat) last. A MIN node is recorded for
    its first opponent, its value and window negated; ``layer`` names every seat of it."""
    game, me = search.game, search.root_seat
    is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    pass_to, order = search.pass_to, prioritiser(game)
    lines, horizon, killers = search.lines, search.horizon, search.killers
    layer = _layer_function(search)
    enter, leave, leaf = recorder.enter, recorder.leave, recorder.leaf

    def value(state, depth, alpha, beta, ply, max_turn, move, by, side):
        lines[ply] = ()
        if is_terminal(state):
            v = utility(state, me)
            if side == me:
                leaf(move, state, side, ply, alpha, beta, v, LEAF, by=by)
            else:
                leaf(move, state, side, ply, -beta, -alpha, -v, LEAF, by=by)
            return v
        if depth <= 0:
            horizon[0] = True
            v = heuristic(state, me)
            seat = to_move(state)
            if seat == me:
                leaf(move, state, seat, ply, alpha, beta, v, HORIZON, by=by)
            else:
                leaf(move, state, seat, ply, -beta, -alpha, -v, HORIZON, by=by)
            return v
        mover = to_move(state)
        if pass_to is None:
            max_turn = mover == me
        sources = layer(state, mover, max_turn)
        if not sources:
            max_turn = not max_turn
            sources = layer(state, mover, max_turn)
            if not sources:  # nobody can move: scored as at the horizon
                horizon[0] = True
                v = heuristic(state, me)
                if mover == me:
                    leaf(move, state, mover, ply, alpha, beta, v, HORIZON, by=by)
                else:
                    leaf(move, state, mover, ply, -beta, -alpha, -v, HORIZON, by=by)
                return v
        if len(lines) <= ply + 1:
            lines.append(())
        while len(killers) <= ply:
            killers.append(None)
        killer = killers[ply]
        moves_of = []  # every seat's moves in search order, made at once: the pruned ones are recorded
        for seat, s, in_turn in sources:
            moves = legal_moves(s)
            if order is not None and depth > 1:
                moves = order(s, moves)
            if killer is not None and killer[0] == seat:
                moves = first_of(moves, killer[1])
            moves_of.append(moves)
        side = me if max_turn else sources[0][0]
        seats = tuple((seat, len(moves)) for (seat, _, _), moves in zip(sources, moves_of)) if pass_to is not None else ()
        if max_turn:
            enter(move, state, side, ply, alpha, beta, by=by, layer=seats)
        else:
            enter(move, state, side, ply, -beta, -alpha, by=by, layer=seats)
        deeper, below, after = depth - 1, ply + 1, not max_turn
        best = -inf if max_turn else inf
        searched = 0
        for k, (seat, s, in_turn) in enumerate(sources):
            maker = seat if pass_to is not None else None
            moves = moves_of[k]
            for i, m in enumerate(moves):
                v = value(apply(s, m), deeper, alpha, beta, below, after, m, maker, side)
                searched += 1
                if max_turn:
                    if v > best:
                        best = v
                        lines[ply] = ((seat, m, in_turn),) + lines[below]
                        if v > alpha:
                            alpha = v
                            if alpha >= beta:
                                killers[ply] = (seat, m)
                                rest = tuple(moves[i + 1:]) + tuple(x for ms in moves_of[k + 1:] for x in ms)
                                leave(best, INNER, searched, rest)
                                return best
                elif v < best:
                    best = v
                    lines[ply] = ((seat, m, in_turn),) + lines[below]
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            killers[ply] = (seat, m)
                            rest = tuple(moves[i + 1:]) + tuple(x for ms in moves_of[k + 1:] for x in ms)
                            leave(-best, INNER, searched, rest)
                            return best
        leave(best if max_turn else -best, INNER)
        return best

    return value


class BRSBot(FamilyBot):
    """Best-Reply Search with iterative deepening."""

    name = "brs"
    description = ("Best-Reply Search for n seats: between two of its moves only the opponent with the "
                   "strongest reply moves (alpha-beta, iterative deepening)")

    def suitable(self, game):
        why = self.unhandled(game)
        if why is None and game.model.players > 2 and pass_hook(game) is None:
            return f"it needs the game's {PASS_HOOK}(state, seat) to let any opponent reply; {game.name} has none"
        return why

    recorder = None
    """An ``arena.searchtree.Recorder`` that the next searches record into (None: off)."""

    def make_search(self, game, counter, state):
        return BestReplySearch(game, counter, root_seat=game.to_move(state), recorder=self.recorder)

    def line(self, pv):
        return line_in_turn(pv)
