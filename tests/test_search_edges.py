"""The search core's edges: depth limits combined, how children rank, move ordering (the game's
priorities, killers and history, the first move), and what a root search reports."""

import pytest

from arena import Budget, Counter, Game, Model
from arena.budget import counted
from math import inf

from arena.searchtree import Recorder
from bots.search import RANKED, UNLIMITED, RootResult, Search, effective_depth, rank
from games.counting import Counting


@pytest.mark.parametrize(
    "own, limit, depth", [(None, None, None), (None, 5, 5), (3, None, 3), (3, 5, 3), (7, 5, 5), (4, 4, 4)]
)
def test_the_effective_depth_is_the_shallower_limit(own, limit, depth):
    assert effective_depth(own, limit) == depth


def test_children_rank_wins_above_and_losses_below_every_heuristic():
    game = Counting(variant="22")  # bounds (-2, 2): 20 draws, 21 wins, 22 wins double
    # (counter, player to move): the player who reached the counter is the other one
    assert rank(game, (22, 1), 0) == 2 + 2  # player 0 reached 22: a double win
    assert rank(game, (21, 1), 0) == 2 + 1
    assert rank(game, (21, 0), 0) == -2 - 1  # the opponent reached 21
    assert rank(game, (22, 0), 0) == -2 - 2
    assert rank(game, (20, 1), 0) == 0.0
    assert rank(game, (17, 1), 0) == game.heuristic((17, 1), 0)
    # at 19 the player to move can reach 22: half its double win, for it, and against the other
    assert (rank(game, (19, 0), 0), rank(game, (19, 0), 1)) == (1.0, -1.0)
    assert -2 < rank(game, (17, 1), 0) < 2


class Row(Game):
    """Pick 0 to 4; the game ends after two picks. The first player scores the sum of the
    picks mod 5 minus 2, and offers move priorities: the move itself."""

    name = "row"
    bounds = (-2, 2)

    def __init__(self, **params):
        super().__init__(**params)
        self.asked = []

    def initial_state(self):
        return ()

    def to_move(self, state):
        return len(state) % 2

    def legal_moves(self, state):
        return [0, 1, 2, 3, 4]

    def apply(self, state, move):
        return state + (move,)

    def is_terminal(self, state):
        return len(state) == 2

    def utility(self, state, player):
        u = sum(state) % 5 - 2
        return u if player == 0 else -u

    def heuristic(self, state, player):
        return 0.0

    def move_priorities(self, state, moves):
        self.asked.append(tuple(moves))
        return [float(m) for m in moves]


def test_ordering_follows_the_games_priorities_then_the_first_move():
    game = Row()
    search = Search(game, Counter(), ordering=True)
    assert search.order((), [0, 1, 2, 3, 4], None, 0) == [4, 3, 2, 1, 0]
    assert search.order((), [0, 1, 2, 3, 4], 1, 0) == [1, 4, 3, 2, 0]
    assert search.order((), [0, 1, 2, 3, 4], 4, 0) == [4, 3, 2, 1, 0]
    assert search.order((), [0, 1, 2], 7, 0) == [2, 1, 0]  # a first move that is not there is ignored
    assert search.order((), [0, 1], None, 0) == [1, 0]  # two moves are worth ranking
    assert search.order((), [3, 0, 4], None, 0) == [4, 3, 0]  # by priority, not by position
    assert search.order((), [0, 1, 2, 3, 4], 3, 0) == [3, 4, 2, 1, 0]
    game.asked.clear()
    assert search.order((), [0, 1, 2, 3, 4], None, 1, leaves=True) == [0, 1, 2, 3, 4]
    assert search.order((), [3], None, 0) == [3]
    assert game.asked == []  # not asked where the children are leaves, nor for one move


def test_without_priorities_killers_come_first_then_history():
    game = Counting()
    search = Search(game, Counter(), ordering=True)
    assert search.order((0, 0), [1, 2, 3], None, 0) == [1, 2, 3]  # nothing learnt yet: as given
    search._cutoff(2, depth=3, ply=1)
    assert search.killers == [[], [2]] and search.history == {2: 9}
    search._cutoff(3, depth=1, ply=1)
    search._cutoff(1, depth=2, ply=1)
    assert search.killers[1] == [1, 3]  # the two latest, newest first
    search._cutoff(1, depth=2, ply=1)
    assert search.killers[1] == [1, 3] and search.history == {2: 9, 3: 1, 1: 8}
    assert search.order((0, 0), [1, 2, 3], None, 1) == [1, 3, 2]  # killers (by history), then history
    assert search.order((0, 0), [1, 2, 3], None, 0) == [2, 1, 3]  # ply 0 has no killers: history alone
    assert search.order((0, 0), [1, 2, 3], None, 5) == [2, 1, 3]  # nor has a ply never reached
    assert search.order((0, 0), [1, 2, 3], 3, 0) == [3, 2, 1]
    assert search.order((0, 0), [4, 3, 2, 1], None, 0) == [2, 1, 3, 4]  # 3 has some history, 4 none


def test_a_root_search_reports_its_best_move_value_line_and_depth():
    game = Row()
    counter = Counter()
    search = Search(counted(game, counter), counter, pruning=False)
    result = search.root((), None)
    # whatever the first player picks, the second makes the sum 0 mod 5: utility -2 for the first
    assert isinstance(result, RootResult)
    assert result.value == -2 and result.complete and result.exact and result.max_ply == 2
    assert result.move == 0 and result.pv == (0, 0)  # the first of equal moves
    assert counter.nodes == 5 + 25  # every child and grandchild: the root is the referee's
    shallow = search.root((), 1)
    assert shallow.value == 0.0 and not shallow.exact and shallow.complete and shallow.max_ply == 1
    before = counter.nodes
    assert search.root((), 2, first=3).move == 3  # searched first, and no better move follows
    assert counter.nodes - before == 5 + 25  # and every other move after it
    assert search.root((), 2, first=7).move == 0  # a first move that is not legal is not searched


def test_a_root_search_cut_short_keeps_the_best_completed_move():
    game = Row()
    counter = Counter(Budget(nodes=3))  # the root and two children: moves 0 and 1
    counter.tick()  # the root
    search = Search(counted(game, counter), counter, pruning=False)
    result = search.root((4,), None)  # the second player: it wants the sum 0 mod 5, move 1
    assert result.move == 1 and result.value == 2 and not result.complete and not result.exact
    counter = Counter(Budget(nodes=1))
    counter.tick()
    nothing = Search(counted(game, counter), counter).root((), None)
    assert nothing.move is None and nothing.pv == () and nothing.max_ply == 0 and not nothing.complete


def test_pruning_stops_at_a_root_value_reaching_beta():
    game = Row()
    counter = Counter()
    search = Search(counted(game, counter), counter, pruning=True)
    result = search.root((4,), None, alpha=-2, beta=2)
    assert result.move == 1 and result.value == 2 and result.complete
    assert counter.nodes == 2  # moves 0 and 1: 1 reaches beta, the rest are not searched
    assert UNLIMITED > 10**8


class Hooked(Row):
    """Row with every search hook of its own."""

    def tactics(self, state, rank):
        low, high = self.bounds
        return (low, high, list(self.legal_moves(state)))

    def value_bounds(self, state, player):
        return self.bounds

    def key(self, state):
        return state


def test_the_options_decide_which_hooks_a_search_uses():
    game, counter = Hooked(), Counter()
    plain = Search(game, counter)  # by default: pruning, no ordering, no principal variation search
    assert plain.counter is counter and plain.game is game and plain.table is None
    assert (plain.pruning, plain.ordering, plain.pvs) == (True, False, False)
    assert plain.priorities is None and plain.tactics is None and plain.value_bounds == game.value_bounds
    assert plain.key == game.key and plain.recorder is None and plain.horizon == [False]
    ordered = Search(game, counter, ordering=True, pvs=True)
    assert ordered.ordering and ordered.pvs
    assert ordered.priorities == game.move_priorities and ordered.tactics == game.tactics
    bare = Search(game, counter, ordering=True, pruning=False, pvs=True)
    assert not bare.pvs and bare.tactics is None and bare.value_bounds is None
    assert bare.priorities == game.move_priorities
    assert Search(Row(), counter).key((1, 2)) == (1, 2)  # no key hook: the state itself


class Spy(Recorder):
    """A recorder that also keeps what the root search told it."""

    def __init__(self):
        super().__init__()
        self.begun, self.finished = [], []

    def begin(self, state, player, depth, alpha, beta):
        self.begun.append((state, player, depth, alpha, beta))
        super().begin(state, player, depth, alpha, beta)

    def finish(self, move, value, pv, complete, cut, pruned, skipped=()):
        self.finished.append((move, value, pv, complete, cut, tuple(pruned), tuple(skipped)))
        super().finish(move, value, pv, complete, cut, pruned, skipped)


def test_a_recorder_is_told_how_each_root_search_began_and_ended():
    game, counter = Row(), Counter()
    spy = Spy()
    search = Search(counted(game, counter), counter, pruning=True, recorder=spy)
    assert search.recorder is spy
    result = search.root((), None)
    assert spy.begun == [((), 0, None, -inf, inf)]
    assert spy.finished == [(result.move, -2, result.pv, True, None, (), ())]
    cut = search.root((4,), 1, alpha=-2, beta=2)  # move 1 reaches beta: 2, 3 and 4 are pruned
    assert spy.begun[-1] == ((4,), 1, 1, -2, 2)
    assert spy.finished[-1] == (1, 2, (1,), True, 2, (2, 3, 4), ())
    assert cut.move == 1 and len(spy.trees) == 2


class Tactical(Hooked):
    """Row whose tactics keep only the moves that can make the sum 0 mod 5 or 1 (never the best
    move left out), and remember how they were asked."""

    def __init__(self, **params):
        super().__init__(**params)
        self.ranks = []

    def tactics(self, state, rank):
        self.ranks.append(rank)
        if len(state) == 1:
            keep = [m for m in self.legal_moves(state) if (state[0] + m) % 5 in (0, 1)]
            return (-2, 2, keep)
        return (-2, 2, None)  # nothing to say: every move is searched


def test_tactics_choose_the_root_moves_where_two_plies_remain_ranked_from_RANKED():
    game = Tactical()
    counter = Counter()
    spy = Spy()
    search = Search(counted(game, counter), counter, ordering=True, recorder=spy)
    result = search.root((4,), 2)
    assert result.move == 1 and result.value == 2
    assert spy.finished[-1][6] == (0, 3, 4)  # 4 + 1 and 4 + 2 are 0 and 1 mod 5: the rest are left out
    assert game.ranks == [False]
    search.root((4,), RANKED - 1)
    search.root((4,), RANKED)
    assert game.ranks == [False, False, True]
    search.root((4,), 1)  # one ply left: not asked
    assert game.ranks == [False, False, True]
    game.ranks.clear()
    every = search.root((), 2)  # the tactics have nothing to say at the start: all five moves
    assert game.ranks[0] is False and spy.finished[-1][6] == () and every.complete


class Twice(Row):
    """Row where the first player makes both picks: no alternation."""

    def to_move(self, state):
        return 0


def test_a_player_moving_twice_is_searched_as_the_same_player():
    game, counter = Twice(), Counter()
    result = Search(counted(game, counter), counter, pruning=False).root((), None)
    assert result.value == 2 and sum(result.pv) % 5 == 4  # both picks its own: the sum can be 4


def test_a_search_that_completes_no_move_has_no_value():
    counter = Counter(Budget(nodes=1))
    counter.tick()
    nothing = Search(counted(Row(), counter), counter).root((), None)
    assert nothing.value == -inf and nothing.move is None


class Unranked(Row):
    """Row that withholds its move priorities: ordering falls back on killers and history."""

    def search_hooks(self):
        return super().search_hooks()._replace(move_priorities=None)


def test_the_root_orders_its_moves_with_the_roots_own_killers():
    game, counter = Unranked(), Counter()
    search = Search(counted(game, counter), counter, ordering=True, pruning=False)
    assert search.priorities is None
    search.killers = [[], [3]]  # a killer one ply down is no reason to search 3 first at the root
    result = search.root((), 2)
    assert result.value == -2 and result.move == 0  # every move ties: the first searched is kept


@pytest.mark.parametrize("spec", ["tictactoe", "othello:size=6", "connect4:columns=5,rows=4"])
def test_a_null_window_search_without_a_table_finds_the_minimax_value_and_its_recording_agrees(spec):
    # principal variation search returns the minimax value of the same depth (Marsland, "A review
    # of game-tree pruning", ICCA Journal 9(1), 1986); with no table, tactics or value bounds its
    # null windows and re-searches run in value_plain, and the recording copy must search alike
    import random

    from arena import get_registry

    game = get_registry(entry_points=False).game(spec)
    rng = random.Random(7)
    searched = 0
    for _ in range(6):
        state = game.initial_state()
        for _ in range(rng.randrange(2, 6)):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if game.is_terminal(state):
            continue
        truth = Search(game, Counter(), pruning=False).root(state, 4).value
        counter = Counter()
        pvs = Search(counted(game, counter), counter, pvs=True).root(state, 4)
        assert pvs.value == pytest.approx(truth), state
        recorded_counter = Counter()
        recorded = Search(counted(game, recorded_counter), recorded_counter, pvs=True, recorder=Recorder()).root(state, 4)
        assert (recorded.value, recorded.move, recorded.pv) == (pvs.value, pvs.move, pvs.pv)
        assert recorded_counter.nodes == counter.nodes
        searched += 1
    assert searched >= 4


class Ends(Game):
    """A one-move game for rank: the move is the final state, whose utility for each seat is given."""

    name = "ends"

    def __init__(self, model, bounds, payoffs):
        self.model, self.bounds, self.payoffs = model, bounds, payoffs

    def initial_state(self):
        return None

    def to_move(self, state):
        return 0

    def legal_moves(self, state):
        return list(self.payoffs)

    def apply(self, state, move):
        return move

    def is_terminal(self, state):
        return state is not None

    def utility(self, state, player):
        return self.payoffs[state][player]

    def heuristic(self, state, player):
        return 0.0


@pytest.mark.parametrize("model, bounds, payoffs, ranks", [
    # zero-sum: a win is a win by its utility
    (Model(), (-1, 1), {"won": (1, -1), "drawn": (0, 0), "lost": (-1, 1)}, {"won": 2, "drawn": 0, "lost": -2}),
    # constant-sum, total 1 between two: a win is more than half
    (Model(total=1.0), (0, 1), {"won": (1, 0), "drawn": (0.5, 0.5), "lost": (0, 1)},
     {"won": 1.5, "drawn": 0, "lost": -0.5}),
    # three seats sharing 3: more than 1 is a win
    (Model(players=3, total=3.0), (0, 3), {"won": (3, 0, 0), "drawn": (1, 1, 1), "lost": (0, 1.5, 1.5)},
     {"won": 5, "drawn": 0, "lost": -1}),
    # no total: a win is more than the middle of the bounds
    (Model(total=None), (0, 10), {"won": (7, 7), "drawn": (5, 9), "lost": (2, 0)}, {"won": 12, "drawn": 0, "lost": -3}),
])
def test_rank_puts_a_win_above_and_a_loss_below_every_heuristic_by_an_even_share(model, bounds, payoffs, ranks):
    game = Ends(model, bounds, payoffs)
    assert {move: rank(game, move, 0) for move in payoffs} == ranks
