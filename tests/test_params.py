"""Declared parameters, specs and budgets."""

import pytest

from arena import Budget, BudgetExhausted, Counter, Game, ParameterError, param, parse_spec
from arena.budget import TIME_CHECK_INTERVAL


class Toy(Game):
    name = "toy"
    heaps: tuple[int, ...] = param((3, 4), "heap sizes", min=0, max=9)
    misere: bool = param(False, "last take loses")
    depth: int | None = param(None, "a limit", min=1)
    rate: float = param(0.5, "a rate", min=0, max=1)
    mode: str = param("a", "a mode", choices=("a", "b"))


def test_defaults_keywords_and_listing():
    toy = Toy(heaps=[1, 2], depth=3)
    assert toy.params == {"heaps": (1, 2), "misere": False, "depth": 3, "rate": 0.5, "mode": "a"}
    assert toy.spec == "toy:heaps=1,2,depth=3"
    assert Toy().spec == "toy"
    described = {p["name"]: p for p in Toy.describe()["parameters"]}
    assert described["heaps"] == {"name": "heaps", "type": "tuple[int]", "default": [3, 4], "help": "heap sizes", "min": 0, "max": 9}
    assert described["depth"]["type"] == "int | None"
    assert described["mode"]["choices"] == ["a", "b"]


def test_text_values_parse_like_the_command_line():
    name, text = parse_spec("toy:heaps=1,2,3,misere=yes,depth=none,rate=0.25,mode=b")
    assert name == "toy"
    assert Toy.parse_params(text) == {"heaps": (1, 2, 3), "misere": True, "depth": None, "rate": 0.25, "mode": "b"}
    assert parse_spec(" alphabeta ") == ("alphabeta", {})
    assert parse_spec("nim:heaps=(1, 2)") == ("nim", {"heaps": "(1,2)"})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"heapz": 1}, "unknown parameter 'heapz' for game 'toy'; parameters: heaps, misere, depth, rate, mode"),
        ({"heaps": (1, 10)}, "bad value (1, 10) for parameter 'heaps' of game 'toy'; must be at most 9"),
        ({"heaps": "12"}, "expected a sequence of integers"),
        ({"misere": 1}, "bad value 1 for parameter 'misere' of game 'toy'; expected true or false"),
        ({"depth": 0}, "must be at least 1"),
        ({"depth": True}, "expected an integer"),
        ({"rate": "x"}, "expected a number"),
        ({"mode": "c"}, "choose one of: a, b"),
    ],
)
def test_bad_keyword_values_name_the_problem(kwargs, message):
    with pytest.raises(ParameterError) as info:
        Toy(**kwargs)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("toy:depth=two", "bad value 'two' for parameter 'depth' of game 'toy'; expected int | None"),
        ("toy:misere=maybe", "expected bool"),
        ("toy:heaps=1,x", "expected tuple[int]"),
        ("toy:=3", "empty parameter name"),
        ("toy:3", "expected key=value after ':'"),
        ("toy:rate=1,rate=0", "given twice"),
        (":x=1", "bad spec"),
    ],
)
def test_bad_specs_name_the_problem(spec, message):
    with pytest.raises(ParameterError) as info:
        Toy.parse_params(parse_spec(spec)[1])
    assert message in str(info.value)


@pytest.mark.parametrize(
    "text, budget",
    [
        ("nodes=1000", Budget(nodes=1000)),
        ("time=0.5,depth=6", Budget(time=0.5, depth=6)),
        (" none ", Budget()),
        ("depth=3, nodes=7", Budget(nodes=7, depth=3)),
    ],
)
def test_budget_parses(text, budget):
    assert Budget.parse(text) == budget
    assert Budget.parse(str(budget)) == budget


@pytest.mark.parametrize(
    "text, message",
    [
        ("nodes=0", "bad budget nodes=0; expected a whole number of at least 1"),
        ("nodes=-5", "at least 1"),
        ("time=0", "bad budget time=0.0; expected seconds greater than 0"),
        ("time=-1", "greater than 0"),
        ("time=nan", "greater than 0"),
        ("nodes=lots", "bad budget nodes='lots'; expected a whole number"),
        ("speed=3", "expected nodes=N, time=SECONDS or depth=D"),
        ("nodes=1,nodes=2", "given twice"),
    ],
)
def test_bad_budgets_name_the_problem(text, message):
    with pytest.raises(ParameterError) as info:
        Budget.parse(text)
    assert message in str(info.value)


def test_counter_allows_exactly_the_node_budget():
    counter = Counter(Budget(nodes=5))
    for _ in range(5):
        counter.tick()
    assert counter.exhausted
    with pytest.raises(BudgetExhausted):
        counter.tick()
    with pytest.raises(BudgetExhausted):
        counter.tick()
    assert counter.nodes == 5


def test_counter_stops_at_the_deadline_on_a_fake_clock():
    now = [100.0]
    counter = Counter(Budget(time=1.0), clock=lambda: now[0])
    for _ in range(3 * TIME_CHECK_INTERVAL):
        counter.tick()
    assert counter.time_left() == 1.0 and not counter.exhausted
    now[0] = 101.0
    with pytest.raises(BudgetExhausted):
        for _ in range(TIME_CHECK_INTERVAL + 1):
            counter.tick()
    assert counter.exhausted
    assert 3 * TIME_CHECK_INTERVAL <= counter.nodes <= 4 * TIME_CHECK_INTERVAL
    with pytest.raises(BudgetExhausted):
        counter.tick()


def test_reset_enforces_a_node_limit_under_the_check_interval_with_a_time_limit_afresh():
    # a node limit below TIME_CHECK_INTERVAL: ticks meet it before any look at the clock, so the
    # deadline shows through ``exhausted`` and ``time_left``, and each reset must set both again
    assert 20 < TIME_CHECK_INTERVAL
    now = [100.0]
    counter = Counter(Budget(nodes=20, time=1.0), clock=lambda: now[0])
    for start in (100.0, 200.0):
        now[0] = start
        assert counter.reset() == start
        assert counter.nodes == 0 and counter.time_left() == 1.0 and not counter.exhausted
        for _ in range(19):
            counter.tick()
        assert not counter.exhausted
        now[0] = start + 1.5  # past this move's deadline
        assert counter.exhausted and counter.time_left() == -0.5
        counter.tick()  # the 20th node, within the node limit
        with pytest.raises(BudgetExhausted):
            counter.tick()
        assert counter.nodes == 20


def test_unlimited_counter_just_counts():
    counter = Counter()
    for _ in range(1000):
        counter.tick()
    assert counter.nodes == 1000 and not counter.exhausted and counter.time_left() is None
