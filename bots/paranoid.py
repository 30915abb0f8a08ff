"""Paranoid search (N. R. Sturtevant and R. E. Korf, "On pruning techniques for multi-player
games", AAAI 2000): the root seat against the coalition of all the others. Every node is
worth one number, the root seat's value: the root seat maximises it, every other seat
minimises it, so the n-seat game is searched as a two-player zero-sum one, by fail-soft
alpha-beta.

A transposition table (kept for the whole game, like alphabeta's) stores values for the
root seat, keyed by the game's ``key`` (its table key hook, else the state) and the seat to
move; it is cleared when the bot is asked to move for another seat, so the seat whose values
it holds is fixed. The table's move, the best of the previous iteration, is searched first
at every node it knows, and at the root the previous iteration's best move; the game's
``move_priorities``, if it offers them, order the rest. Values cut off by the depth limit
carry their depth; values no horizon touched hold at any depth (``SOLVED``), as in the
negamax core (bots/negamax.py).

Recording (``arena tree``): with a ``recorder`` the search runs ``_recording_node_function``,
the node function's copy that records every node as the two-player searches do (the root
seat the max player, the coalition the min player: a coalition node's value and window are
recorded negated, for the player to move), chosen once per search: a search that records
nothing runs ``_node_function`` untouched. A change to one copy is made to the other;
tests/test_tree_seats.py holds them to the same decisions and nodes.
"""

from __future__ import annotations

from math import inf

from arena import BudgetExhausted, param
from arena.searchtree import HORIZON, INNER, LEAF, TABLE
from bots.multiplayer import FamilyBot, RootResult, first_of, prioritiser
from bots.table import EXACT, LOWER, SOLVED, UPPER, Table, TableOwner


class ParanoidSearch:
    """One move's paranoid search for ``root_seat``, with an optional table."""

    def __init__(self, game, counter=None, *, root_seat: int, table: Table | None = None, recorder=None):
        self.game = game
        self.counter = counter
        self.root_seat = root_seat
        self.table = table
        self.recorder = recorder
        """An ``arena.searchtree.Recorder`` every node is recorded into (None: nothing is)."""
        self.lines: list[tuple] = [()]
        self.horizon = [False]
        self.value = _node_function(self) if recorder is None else _recording_node_function(self, recorder)

    def root(self, state, depth: int, first=None) -> RootResult:
        """Search every root move ``depth`` plies (``first`` first) in the window of the game's
        bounds; stops at the budget, keeping the best completed move."""
        game, value, lines = self.game, self.value, self.lines
        self.horizon[0] = False
        lines[:] = [(), ()]
        if self.table is not None:
            self.table.new_search()
        moves = game.legal_moves(state)
        order = prioritiser(game)
        if order is not None and depth > 1:
            moves = order(state, moves)
        moves = first_of(moves, first)
        low, high = alpha, beta = game.bounds
        best_move, best, line = None, -inf, ()
        complete, cut = False, None
        recorder, me = self.recorder, self.root_seat
        if recorder is not None:
            recorder.begin(state, me, depth, alpha, beta, "paranoid")
        try:
            # the root seat is to move here: a max node, each child in the window (alpha, beta)
            for i, move in enumerate(moves):
                if recorder is None:
                    v = value(game.apply(state, move), depth - 1, alpha, beta, 1)
                else:
                    v = value(game.apply(state, move), depth - 1, alpha, beta, 1, move, me)
                if v > best:
                    best_move, best, line = move, v, (move,) + lines[1]
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            cut = i + 1
                            break  # the most the root seat can get
            complete = True
        except BudgetExhausted:
            pass
        if recorder is not None:
            recorder.finish(best_move, best, line, complete, cut, moves[cut:] if cut else ())
        # a value at a bound is proven whatever the depth: every line to it ends the game
        settled = not self.horizon[0] or best <= low or best >= high
        return RootResult(best_move, best, complete, line, complete and settled)


def _node_function(search):
    """``value(state, depth, alpha, beta, ply)``: the root seat's paranoid value of ``state``
    searched ``depth`` plies, fail-soft in the window (alpha, beta)."""
    game, me = search.game, search.root_seat
    is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    key_of = game.search_hooks().key or (lambda state: state)
    order = prioritiser(game)
    lines, horizon, table = search.lines, search.horizon, search.table
    entries = table.entries if table is not None else None

    def value(state, depth, alpha, beta, ply):
        lines[ply] = ()
        if is_terminal(state):
            return utility(state, me)
        if depth <= 0:
            horizon[0] = True
            return heuristic(state, me)
        if len(lines) <= ply + 1:
            lines.append(())
        mover = to_move(state)
        key = first = None
        tainted = False
        if entries is not None:
            key = (key_of(state), mover)
            entry = entries.get(key)
            if entry is not None:
                known_depth, bound, v, move, _, _, known_state = entry  # a bots.table.Entry
                if known_state == state:  # not a symmetric image: its move applies
                    first = move
                if known_depth >= depth:
                    if bound == EXACT or (bound == LOWER and v >= beta) or (bound == UPPER and v <= alpha):
                        if known_depth < SOLVED:
                            horizon[0] = True
                        return v
                    tainted = known_depth < SOLVED  # a bound that does not cut still narrows the window
                    if bound == LOWER:
                        if v > alpha:
                            alpha = v
                    elif v < beta:
                        beta = v
        moves = legal_moves(state)
        if order is not None and depth > 1:
            moves = order(state, moves)
        moves = first_of(moves, first)
        outer, horizon[0] = horizon[0], False
        window_low, window_high = alpha, beta
        deeper, below = depth - 1, ply + 1
        if mover == me:
            best = -inf
            for move in moves:
                v = value(apply(state, move), deeper, alpha, beta, below)
                if v > best:
                    best = v
                    lines[ply] = (move,) + lines[below]
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        else:  # one of the coalition: the root seat's value is minimised
            best = inf
            for move in moves:
                v = value(apply(state, move), deeper, alpha, beta, below)
                if v < best:
                    best = v
                    lines[ply] = (move,) + lines[below]
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        cut_off = horizon[0] or tainted
        horizon[0] = outer or cut_off
        if entries is not None:
            store(key, state, depth if cut_off else SOLVED, best, lines[ply][0], window_low, window_high)
        return best

    store = _table_store(table) if table is not None else None
    return value


def _table_store(table):
    """``store(key, state, depth, best, best_move, alpha, beta)``: keep in ``table`` what a search
    of ``state`` in the window (alpha, beta) found (both node functions' own)."""
    entries = table.entries

    def store(key, state, depth, best, best_move, alpha, beta):
        generation = table.generation
        old = entries.get(key)
        if old is not None:
            if old[4] == generation and depth < old[0]:
                return  # a deeper result of this search stays
        elif len(entries) >= table.size:
            table.make_room()
        bound = UPPER if best <= alpha else LOWER if best >= beta else EXACT
        entries[key] = (depth, bound, best, best_move, generation, None, state)

    return store


def _recording_node_function(search, recorder):
    """``_node_function``'s search, every node recorded into ``recorder``: the same moves in the
    same order, the same windows and table entries. ``value`` takes the move that led to
    ``state`` and the seat that made it last (a finished game is recorded with that seat).
    Values and windows are recorded for the player to move: the root seat's as they are, a
    coalition seat's negated."""
    game, me = search.game, search.root_seat
    is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    key_of = game.search_hooks().key or (lambda state: state)
    order = prioritiser(game)
    lines, horizon, table = search.lines, search.horizon, search.table
    entries = table.entries if table is not None else None
    store = _table_store(table) if table is not None else None
    enter, leave, leaf = recorder.enter, recorder.leave, recorder.leaf

    def value(state, depth, alpha, beta, ply, move, parent_mover):
        lines[ply] = ()
        if is_terminal(state):
            v = utility(state, me)
            seat = parent_mover
            if seat == me:
                leaf(move, state, seat, ply, alpha, beta, v, LEAF)
            else:
                leaf(move, state, seat, ply, -beta, -alpha, -v, LEAF)
            return v
        mover = to_move(state)
        if depth <= 0:
            horizon[0] = True
            v = heuristic(state, me)
            if mover == me:
                leaf(move, state, mover, ply, alpha, beta, v, HORIZON)
            else:
                leaf(move, state, mover, ply, -beta, -alpha, -v, HORIZON)
            return v
        sign = 1 if mover == me else -1
        if mover == me:
            enter(move, state, mover, ply, alpha, beta)
        else:
            enter(move, state, mover, ply, -beta, -alpha)
        if len(lines) <= ply + 1:
            lines.append(())
        key = first = None
        tainted = False
        if entries is not None:
            key = (key_of(state), mover)
            entry = entries.get(key)
            if entry is not None:
                known_depth, bound, v, known_move, _, _, known_state = entry
                if known_state == state:
                    first = known_move
                if known_depth >= depth:
                    if bound == EXACT or (bound == LOWER and v >= beta) or (bound == UPPER and v <= alpha):
                        if known_depth < SOLVED:
                            horizon[0] = True
                        leave(sign * v, TABLE)
                        return v
                    tainted = known_depth < SOLVED
                    if bound == LOWER:
                        if v > alpha:
                            alpha = v
                    elif v < beta:
                        beta = v
        moves = legal_moves(state)
        if order is not None and depth > 1:
            moves = order(state, moves)
        moves = first_of(moves, first)
        outer, horizon[0] = horizon[0], False
        window_low, window_high = alpha, beta
        deeper, below = depth - 1, ply + 1
        cut = None
        if mover == me:
            best = -inf
            for i, m in enumerate(moves):
                v = value(apply(state, m), deeper, alpha, beta, below, m, mover)
                if v > best:
                    best = v
                    lines[ply] = (m,) + lines[below]
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            cut = i + 1
                            break
        else:
            best = inf
            for i, m in enumerate(moves):
                v = value(apply(state, m), deeper, alpha, beta, below, m, mover)
                if v < best:
                    best = v
                    lines[ply] = (m,) + lines[below]
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            cut = i + 1
                            break
        cut_off = horizon[0] or tainted
        horizon[0] = outer or cut_off
        if entries is not None:
            store(key, state, depth if cut_off else SOLVED, best, lines[ply][0], window_low, window_high)
        leave(sign * best, INNER, cut, moves[cut:] if cut else ())
        return best

    return value


class ParanoidBot(TableOwner, FamilyBot):
    """Paranoid alpha-beta with iterative deepening and a transposition table."""

    name = "paranoid"
    description = ("paranoid search for n seats: the others are a coalition minimising its value "
                   "(alpha-beta, iterative deepening, table)")

    table: bool = param(True, "keep a transposition table (for the whole game)")
    table_size: int = param(1 << 18, "transposition table entries", min=1)

    recorder = None
    """An ``arena.searchtree.Recorder`` that the next searches record into (None: off)."""

    _seat: int | None = None

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self._seat = None

    def make_search(self, game, counter, state):
        seat = game.to_move(state)
        table = self.transposition_table()
        if table is not None and seat != self._seat:
            table.clear()  # its values are another seat's
        self._seat = seat
        return ParanoidSearch(game, counter, root_seat=seat, table=table, recorder=self.recorder)
