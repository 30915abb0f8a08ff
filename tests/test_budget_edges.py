"""Budgets and counters at their edges: every check of a budget word for word, the counter's
limits to the node and to the look at the clock, CPU deadlines, and what a counted view of a
game is (its class, copies, pickles, the rule book behind it)."""

import copy
import pickle
import time

import pytest

from arena import Budget, BudgetExhausted, Counter, Game, ParameterError
from arena.budget import TIME_CHECK_INTERVAL, counted, uncounted
from arena.clock import Clock
from arena.limits import DEFAULT_LIMITS
from games.nim import Nim
from games.rps import RockPaperScissors


def fresh_game():
    """A game of a class made for this call: views of it are built afresh, not taken from the
    cache of counted classes that earlier tests filled."""

    class Line(Game):
        """Walk right by 1 or 2."""

        name = "line"

        def initial_state(self):
            return 0

        def to_move(self, state):
            return state % 2

        def legal_moves(self, state):
            return [1, 2]

        def apply(self, state, move):
            """Step ``move`` to the right."""
            return state + move

        def is_terminal(self, state):
            return state >= 10

        def utility(self, state, player):
            return 0

    return Line()


# Budget


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"nodes": 0}, "bad budget nodes=0; expected a whole number of at least 1"),
        ({"nodes": 2.0}, "bad budget nodes=2.0; expected a whole number of at least 1"),
        ({"nodes": True}, "bad budget nodes=True; expected a whole number of at least 1"),
        ({"depth": 0}, "bad budget depth=0; expected a whole number of at least 1"),
        ({"depth": "3"}, "bad budget depth='3'; expected a whole number of at least 1"),
        ({"time": 0}, "bad budget time=0; expected seconds greater than 0"),
        ({"time": True}, "bad budget time=True; expected seconds greater than 0"),
        ({"time": "1"}, "bad budget time='1'; expected seconds greater than 0"),
        ({"time": float("inf")}, "bad budget time=inf; expected seconds greater than 0"),
        ({"cpu": -0.5}, "bad budget cpu=-0.5; expected seconds greater than 0"),
        ({"cpu": float("nan")}, "bad budget cpu=nan; expected seconds greater than 0"),
    ],
)
def test_a_bad_budget_field_is_refused_word_for_word(fields, message):
    with pytest.raises(ParameterError) as caught:
        Budget(**fields)
    assert str(caught.value) == message


def test_the_smallest_budgets_are_fine_and_seconds_are_floats():
    b = Budget(nodes=1, depth=1, time=1, cpu=2)
    assert (b.nodes, b.depth, b.time, b.cpu) == (1, 1, 1.0, 2.0)
    assert type(b.time) is float and type(b.cpu) is float and type(b.nodes) is int
    assert Budget(time=1e-9).time == 1e-9


def test_a_budget_is_unlimited_only_without_any_limit():
    assert Budget().unlimited
    for fields in ({"nodes": 1}, {"time": 1}, {"depth": 1}, {"cpu": 1}):
        assert not Budget(**fields).unlimited


def test_budget_text_lists_the_limits_in_order():
    assert str(Budget(cpu=0.25, depth=6, time=0.5, nodes=1000)) == "nodes=1000,time=0.5,depth=6,cpu=0.25"
    assert str(Budget(depth=2)) == "depth=2" and str(Budget()) == "none"
    b = Budget(cpu=1.5)
    assert str(b) == "cpu=1.5" and str(b) == "cpu=1.5"  # written once, then kept


@pytest.mark.parametrize(
    "text, budget",
    [
        ("NONE", Budget()),
        (" Unlimited ", Budget()),
        ("time=0.5,cpu=0.25", Budget(time=0.5, cpu=0.25)),
        (" nodes = 5 , depth = 2 ", Budget(nodes=5, depth=2)),
        ("cpu=2", Budget(cpu=2.0)),
        ("nodes=1,time=1,depth=1,cpu=1", Budget(1, 1.0, 1, 1.0)),
    ],
)
def test_budget_text_is_parsed(text, budget):
    assert Budget.parse(text) == budget


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty budget; expected nodes=N, time=SECONDS, depth=D, cpu=SECONDS or tc=CLOCK, comma-separated, or 'none'"),
        ("  ", "empty budget; expected nodes=N, time=SECONDS, depth=D, cpu=SECONDS or tc=CLOCK, comma-separated, or 'none'"),
        ("nodes", "bad budget 'nodes'; expected nodes=N, time=SECONDS or depth=D, comma-separated, "
                  "cpu=SECONDS for CPU time and tc=[MOVES/]SECONDS[+INCREMENT] for a clock"),
        ("nodes=5;time=1", "bad budget nodes='5;time=1'; expected a whole number"),
        ("nodes=5=6", "bad budget nodes='5=6'; expected a whole number"),
        ("Nodes=5", "bad budget 'Nodes=5'; expected nodes=N, time=SECONDS or depth=D, comma-separated, "
                    "cpu=SECONDS for CPU time and tc=[MOVES/]SECONDS[+INCREMENT] for a clock"),
        ("nodes=1,nodes=2", "bad budget 'nodes=1,nodes=2': nodes given twice"),
        ("time=soon", "bad budget time='soon'; expected seconds"),
        ("cpu= x ", "bad budget cpu='x'; expected seconds"),
        ("depth=deep", "bad budget depth='deep'; expected a whole number"),
        ("nodes=1.5", "bad budget nodes='1.5'; expected a whole number"),
        ("none,nodes=1", "bad budget 'none,nodes=1'; expected nodes=N, time=SECONDS or depth=D, comma-separated, "
                         "cpu=SECONDS for CPU time and tc=[MOVES/]SECONDS[+INCREMENT] for a clock"),
    ],
)
def test_bad_budget_text_is_refused_word_for_word(text, message):
    with pytest.raises(ParameterError) as caught:
        Budget.parse(text)
    assert str(caught.value) == message


def test_only_text_is_parsed():
    with pytest.raises(TypeError) as caught:
        Budget.parse(5)
    assert str(caught.value) == "Budget.parse takes text such as 'nodes=1000', got 5"


def test_budget_text_of_a_million_nodes_parses_back():
    # str(Budget) writes numbers with :g (stored in every record, so kept): 'nodes=1e+06' parses back
    assert Budget.parse(str(Budget(nodes=10**6))) == Budget(nodes=10**6)
    with pytest.raises(ParameterError, match="expected a whole number"):
        Budget.parse("nodes=2.5")


# Counter


def test_a_new_counter_takes_its_limits_from_the_budget():
    now = [100.0]
    counter = Counter(Budget(time=1.5, depth=4, nodes=9), clock=lambda: now[0])
    assert counter.depth == 4 and counter.started == 100.0 and counter.deadline == 101.5
    assert counter.time_left() == 1.5 and counter.cpu_deadline is None and counter.nodes == 0
    now[0] = 100.5
    assert counter.elapsed() == 0.5 and counter.time_left() == 1.0
    unlimited = Counter()
    assert unlimited.budget == Budget() and unlimited.deadline is None and unlimited.time_left() is None


def test_a_cpu_budget_sets_a_deadline_on_the_threads_cpu_clock():
    before = time.thread_time()
    counter = Counter(Budget(cpu=0.5))
    after = time.thread_time()
    assert before + 0.5 <= counter.cpu_deadline <= after + 0.5 and counter.deadline is None
    _spin(0.002)
    start = time.thread_time()
    counter.reset()
    assert start + 0.5 <= counter.cpu_deadline <= time.thread_time() + 0.5


def _spin(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.mark.parametrize("reset", [False, True])
def test_a_cpu_budget_stops_a_search_that_uses_it_up(reset):
    view_of = fresh_game()
    start = time.thread_time()
    counter = Counter(Budget(cpu=0.01))
    if reset:
        counter.reset()
    view = counted(view_of, counter)
    with pytest.raises(BudgetExhausted):
        while True:
            view.apply(0, 1)
    assert 0.01 <= time.thread_time() - start < 1.0 and counter.exhausted


@pytest.mark.parametrize("reset", [False, True])
def test_past_the_deadline_exactly_one_check_interval_of_nodes_passes(reset):
    # the clock is read every TIME_CHECK_INTERVAL nodes: a deadline already past shows at the
    # first look, after exactly that many nodes
    now = [10.0]
    counter = Counter(Budget(time=1.0), clock=lambda: now[0])
    if reset:
        counter.reset()
    now[0] = 11.0  # the deadline itself: no time left
    assert counter.exhausted
    for _ in range(TIME_CHECK_INTERVAL):
        counter.tick()
    with pytest.raises(BudgetExhausted):
        counter.tick()
    assert counter.nodes == TIME_CHECK_INTERVAL
    with pytest.raises(BudgetExhausted):
        counter.tick()  # and again, without counting
    assert counter.nodes == TIME_CHECK_INTERVAL


def test_the_view_reads_the_clock_no_more_often_than_the_counter():
    now = [10.0]
    counter = Counter(Budget(time=1.0), clock=lambda: now[0])
    view = counted(fresh_game(), counter)
    now[0] = 12.0
    for _ in range(TIME_CHECK_INTERVAL):
        view.apply(0, 1)
    with pytest.raises(BudgetExhausted):
        view.apply(0, 1)
    with pytest.raises(BudgetExhausted):
        view.apply(0, 1)
    assert counter.nodes == TIME_CHECK_INTERVAL


@pytest.mark.parametrize("reset", [False, True])
def test_under_a_time_budget_a_node_limit_just_past_the_interval_is_met_exactly(reset):
    limit = TIME_CHECK_INTERVAL + 1
    counter = Counter(Budget(nodes=limit, time=100.0), clock=lambda: 0.0)
    if reset:
        counter.reset()
    for _ in range(limit):
        counter.tick()
    assert counter.exhausted
    with pytest.raises(BudgetExhausted):
        counter.tick()
    assert counter.nodes == limit


def test_a_counter_says_what_its_move_ran_out_of():
    counter = Counter(Budget(nodes=2, depth=3))
    counter.tick(), counter.tick()
    with pytest.raises(BudgetExhausted):
        counter.tick()
    assert counter.out_of_budget() == "ran out of its budget (nodes=2,depth=3) after 2 nodes without choosing a move"


# Counted views


def test_a_view_is_of_a_subclass_that_looks_like_the_games_class():
    game = fresh_game()
    counter = Counter()
    view = counted(game, counter)
    cls, base = type(view), type(game)
    assert cls is not base and cls.__bases__ == (base,)
    assert (cls.__name__, cls.__qualname__, cls.__module__, cls.__doc__) == (
        base.__name__, base.__qualname__, base.__module__, base.__doc__)
    assert cls.apply.__doc__ == "Step ``move`` to the right."
    assert cls.apply(view, 3, 2) == 5 and counter.nodes == 1  # the class's apply is the view's own
    assert type(counted(fresh_game(), counter)) is not cls  # one per class...
    assert type(counted(game, Counter())) is cls  # ...made once


def test_a_view_of_a_view_is_of_the_same_class_and_counts_once_on_its_own_counter():
    game = fresh_game()
    first, second = Counter(), Counter()
    inner = counted(game, first)
    outer = counted(inner, second)
    assert type(outer) is type(inner)
    assert outer.apply(1, 2) == 3 and (first.nodes, second.nodes) == (0, 1)


def test_copies_of_a_view_count_on_its_counter_and_pickle_back_to_themselves():
    counter = Counter()
    view = counted(fresh_game(), counter)
    shallow, deep = copy.copy(view), copy.deepcopy(view)
    assert type(shallow) is type(view) is type(deep) and shallow is not view and deep is not view
    assert shallow.apply(0, 1) == 1 and deep.apply(0, 2) == 2 and counter.nodes == 2
    for v in (view, shallow, deep):
        assert pickle.loads(pickle.dumps(v)) is v


def test_a_view_that_left_its_process_cannot_come_back():
    view = counted(fresh_game(), Counter())
    data = pickle.dumps(view)
    from arena import budget

    budget._LIVE.pop(id(view))  # as in another process: no such view
    with pytest.raises(pickle.UnpicklingError) as caught:
        pickle.loads(data)
    assert str(caught.value) == "a game handed to a bot counts its moves and cannot leave its process"


def test_a_wrapper_set_on_the_game_is_kept_under_the_count_and_given_back():
    game = fresh_game()
    calls = []
    rule_book = game.apply

    def traced(state, move):
        calls.append(move)
        return rule_book(state, move)

    game.apply = traced
    counter = Counter()
    view = counted(game, counter)
    assert view.apply(0, 2) == 2 and calls == [2] and counter.nodes == 1
    assert type(view).apply(view, 2, 1) == 3 and calls == [2, 1] and counter.nodes == 2
    plain = uncounted(view)
    assert type(plain) is type(game) and plain.apply is traced
    assert plain.apply(0, 1) == 1 and counter.nodes == 2  # followed, not counted


def test_the_rule_book_behind_a_view_counts_nothing():
    game = fresh_game()
    counter = Counter()
    view = counted(game, counter)
    plain = uncounted(view)
    assert type(plain) is type(game) and vars(plain).keys() == vars(game).keys()
    assert plain.apply(4, 2) == 6 and plain.apply.__self__ is plain and counter.nodes == 0
    assert uncounted(game) is game  # not a view: itself
    assert uncounted(counted(view, Counter())).apply(0, 1) == 1 and counter.nodes == 0


@pytest.mark.parametrize("reset", [False, True])
def test_a_cpu_budget_stops_a_counter_that_only_ticks(reset):
    start = time.thread_time()
    counter = Counter(Budget(cpu=0.01))
    if reset:
        counter.reset()
    with pytest.raises(BudgetExhausted):
        while time.thread_time() - start < 2.0:
            counter.tick()
    assert 0.01 <= time.thread_time() - start < 1.0


def test_a_time_control_parses_beside_the_other_limits():
    budget = Budget.parse("tc=40/60+0.6,nodes=500")
    assert budget.nodes == 500 and str(budget.tc) == "40/60+0.6" and str(budget) == "nodes=500,tc=40/60+0.6"


def test_under_a_clock_a_move_plans_its_share_and_allot_moves_the_deadline_within_the_clock():
    plain = Counter(Budget(nodes=5))
    with pytest.raises(ValueError) as caught:
        plain.allot(1.0)
    assert str(caught.value) == "allot: this move has no clock (its budget has no tc)"
    now = [100.0]
    clock = Clock(0, (12.0, 30.0), (0.0, 0.0))
    counter = Counter(Budget.parse("tc=60+0").at(clock), clock=lambda: now[0])
    assert counter.deadline == 100.0 + clock.share() == 100.4  # 12 s over 30 moves
    now[0] = 101.0
    counter.reset()
    assert counter.deadline == 101.4
    now[0] = 100.0
    counter.reset()
    counter.allot(3.0)
    assert counter.deadline == 103.0
    counter.allot(50.0)
    assert counter.deadline == 112.0  # no later than the clock's time
    counter.allot(0.0)
    assert counter.deadline == 100.0
    now[0] = 100.5  # past the deadline: the counter stops within one check interval
    with pytest.raises(BudgetExhausted):
        for _ in range(TIME_CHECK_INTERVAL + 1):
            counter.tick()


def test_a_joint_move_counts_on_a_simultaneous_games_view_and_not_behind_it(monkeypatch):
    # a view's class is made once a process: made afresh here, so that this test sees how it is made
    monkeypatch.setattr("arena.budget._COUNTED_CLASSES", {})
    game = RockPaperScissors(throws=2)
    counter = Counter(Budget(nodes=2))
    view = counted(game, counter)
    start = game.initial_state()
    after = view.apply_joint(start, ("R", "P"))
    assert after == game.apply_joint(start, ("R", "P")) and counter.nodes == 1
    assert type(view).apply_joint(view, start, ("S", "S")) == game.apply_joint(start, ("S", "S"))
    assert counter.nodes == 2  # the class's method counts as the view's
    with pytest.raises(BudgetExhausted):
        view.apply_joint(after, ("S", "S"))
    spent = counter.nodes
    turns = counted(Nim(), counter)  # a game of turns has no joint move, on a view as in its rule book
    with pytest.raises(NotImplementedError) as caught:
        type(turns).apply_joint(turns, Nim().initial_state(), ((0, 1), (1, 1)))
    assert str(caught.value) == "nim has no simultaneous moves"
    plain = uncounted(view)
    assert type(plain) is RockPaperScissors and "apply_joint" not in vars(plain)
    assert plain.apply_joint(after, ("S", "S")) == game.apply_joint(after, ("S", "S")) and counter.nodes == spent


def test_a_counter_carries_the_time_margin_it_is_given():
    assert Counter(Budget(), margin=0.25).margin == 0.25 and Counter(Budget(nodes=3)).margin == DEFAULT_LIMITS.time_margin
