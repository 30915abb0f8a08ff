"""The referee's edges: argument checks word for word, every field of a decision at its limits,
forfeits of every kind with who loses and why, openings and moves written by position, CPU
clocks, and the seeds bots get."""

import re
import time

import pytest

from arena import CHANCE, Budget, BudgetExhausted, Counter, Decision, Game, IllegalMoveError, Model, ParameterError, Termination
from arena.adjudication import Adjudication
from arena.dice import Dice, seed_key
from arena.errors import BotFault
from arena.referee import MAX_DEPTH, MAX_NODES, ask, bot_seed, legal_index, play_game
import arena.referee as referee
from games.kuhn import KuhnPoker
from games.nim import Nim


class Steps(Game):
    """Add 1 or 2 to a counter from 0; whoever brings it to 4 or more wins. A move is written with
    the counter it is played at ("0+1"), so its text depends on the position."""

    name = "steps"
    bounds = (-1, 1)

    def initial_state(self):
        return (0, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return [1, 2]

    def apply(self, state, move):
        return (state[0] + move, 1 - state[1])

    def is_terminal(self, state):
        return state[0] >= 4

    def utility(self, state, player):
        winner = 1 - state[1]  # who moved last
        return {winner: 1, 1 - winner: -1}[player]  # only players 0 and 1 have a utility

    def heuristic(self, state, player):
        return 0.0

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        return int(text)

    def move_text(self, state, move):
        return f"{state[0]}+{move}"

    def parse_move_in(self, state, text):
        at, _, move = text.partition("+")
        if int(at) != state[0]:
            raise IllegalMoveError(f"{text!r} is not a move at {state[0]}")
        return int(move)


class Duck:
    """A bot written without arena.Bot (no ``interactive``, ``follows_moves``...): it answers
    with ``answer(game, state, counter)``, by default the first legal move."""

    def __init__(self, answer=None, spec="duck", **attrs):
        self.answer = answer or (lambda game, state, counter: game.legal_moves(state)[0])
        self.spec = spec
        self.started = []
        vars(self).update(attrs)

    def new_game(self, game, player, seed):
        self.started.append((game, player, seed))

    def choose(self, game, state, counter):
        return self.answer(game, state, counter)


def first(game, state, counter):
    return game.legal_moves(state)[0]


def decided(**fields):
    """A bot that plays the first legal move as a Decision with ``fields``."""
    return Duck(lambda game, state, counter: Decision(game.legal_moves(state)[0], **fields), spec="decider")


# Arguments


def test_arguments_are_refused_word_for_word():
    game, bots = Nim(), [Duck(), Duck()]

    def refused(error, message, *args, **kwargs):
        with pytest.raises(error) as caught:
            play_game(*args, **kwargs)
        assert str(caught.value) == message

    refused(TypeError, "play_game: game must be an arena.Game, got str", "nim", bots)
    refused(ParameterError, "play_game: bots must be two bots, the first to move first; got 3", game, bots + [Duck()])
    refused(ParameterError, "play_game: bots must be two bots, the first to move first; got int", game, 5)
    refused(ParameterError, "play_game: names must be two strings, got ('a', 'b', 'c')", game, bots,
            names=("a", "b", "c"))
    refused(ParameterError, "play_game: names must be two strings, got ('a', 2)", game, bots, names=("a", 2))
    refused(ParameterError, "play_game: budgets must be two Budgets, one per bot; got 1", game, bots,
            budgets=[Budget()])
    refused(TypeError, "play_game: budgets[1] must be an arena.Budget (Budget.parse reads text), got 'nodes=5'",
            game, bots, budgets=[Budget(), "nodes=5"])
    refused(TypeError, "play_game: seed must be an integer, got '3'", game, bots, seed="3")
    refused(TypeError, "play_game: seed must be an integer, got 2.0", game, bots, seed=2.0)
    refused(TypeError, "play_game: seed must be an integer, got True", game, bots, seed=True)
    refused(ParameterError, "play_game: time_margin must be 0 or more seconds, got -0.5", game, bots, time_margin=-0.5)
    refused(ParameterError, "play_game: time_margin must be 0 or more seconds, got True", game, bots, time_margin=True)
    refused(ParameterError, "play_game: time_margin must be 0 or more seconds, got 'x'", game, bots, time_margin="x")
    refused(ParameterError, "play_game: time_margin must be 0 or more seconds, got inf", game, bots,
            time_margin=float("inf"))


class _ChooseOnly:
    def choose(self, game, state, counter):
        return 0


class _StartOnly:
    def new_game(self, game, player, seed):
        pass


@pytest.mark.parametrize("odd", [_ChooseOnly(), _StartOnly(), object()])
def test_something_without_choose_and_new_game_is_not_a_bot(odd):
    with pytest.raises(TypeError) as caught:
        play_game(Nim(), [Duck(), odd])
    assert str(caught.value) == f"play_game: bots[1] is not a bot (it has no choose and new_game): {type(odd).__name__}"


def test_a_whole_seed_of_an_int_subclass_and_a_zero_margin_are_accepted():
    class Seed(int):
        pass

    record = play_game(Nim(heaps=(1,)), [Duck(), Duck()], seed=Seed(7), time_margin=0)
    assert record.termination is Termination.NORMAL and record.seed == 7


def test_defaults_seed_0_names_from_specs_unlimited_budgets_and_the_rules_result():
    game = Nim(heaps=(2,))
    record = play_game(game, [Duck(spec="one"), Duck(spec="two")])
    assert record.seed == 0 and record.players == ("one", "two") and record.budgets == ("none", "none")
    # each takes one object: the second takes the last and wins
    assert [m.move for m in record.moves] == ["1:1", "1:1"]
    assert record.utilities == (-1, 1) and record.message == game.result_text(game.play(((0, 1), (0, 1))))
    assert record.message == "second wins"
    named = play_game(game, [Duck(), Duck()], names=("a", "b"), budgets=[Budget(nodes=5), Budget(depth=2)], seed=9)
    assert named.players == ("a", "b") and named.budgets == ("nodes=5", "depth=2") and named.seed == 9


def test_a_games_bounds_are_checked_before_play_once_per_class(monkeypatch):
    class Upside(Steps):
        bounds = (1, -1)

    with pytest.raises(ParameterError) as caught:
        play_game(Upside(), [Duck(), Duck()])
    assert str(caught.value) == (
        "play_game: game 'steps' has bounds (1, -1): the lowest utility must be below the highest"
    )

    class Fresh(Steps):
        bounds = (-1, 1)

    checked = []
    real = referee.bounds_problem
    monkeypatch.setattr(referee, "bounds_problem", lambda bounds: checked.append(bounds) or real(bounds))
    for _ in range(3):
        assert play_game(Fresh(), [Duck(), Duck()]).termination is Termination.NORMAL
    assert checked == [(-1, 1)]  # found fine once; the same bounds are not checked again


# Decisions: every field at its limits


def play_decision(game=None, budgets=None, **fields):
    game = game or Nim(heaps=(1,))  # one move ends it: the decider moves first and wins
    return play_game(game, [decided(**fields), Duck()], budgets=budgets)


@pytest.mark.parametrize(
    "fields",
    [
        {"score": -1}, {"score": 1}, {"score": 1 + 1e-9}, {"score": -1 - 1e-9}, {"score": 0.25},
        {"depth": 0}, {"depth": MAX_DEPTH}, {"nodes": 0}, {"nodes": MAX_NODES}, {"pv": ((0, 1),)},
    ],
)
def test_decision_fields_at_their_limits_are_stored(fields):
    record = play_decision(**fields)
    assert record.termination is Termination.NORMAL and record.loser is None
    m = record.moves[0]
    for key, value in fields.items():
        stored = {"pv": ("1:1",)}.get(key, value)
        assert getattr(m, key) == stored


@pytest.mark.parametrize(
    "fields, why",
    [
        ({"score": 1 + 3e-9}, "score 1.000000003 is not a number within the game's bounds [-1, 1]"),
        ({"score": -1 - 3e-9}, "score -1.000000003 is not a number within the game's bounds [-1, 1]"),
        ({"score": 1.5}, "score 1.5 is not a number within the game's bounds [-1, 1]"),
        ({"score": True}, "score True is not a number within the game's bounds [-1, 1]"),
        ({"score": "0"}, "score '0' is not a number within the game's bounds [-1, 1]"),
        ({"score": float("nan")}, "score nan is not a number within the game's bounds [-1, 1]"),
        ({"depth": -1}, "depth -1 is not a whole number from 0 to 10,000"),
        ({"depth": MAX_DEPTH + 1}, "depth 10001 is not a whole number from 0 to 10,000"),
        ({"depth": 1.5}, "depth 1.5 is not a whole number from 0 to 10,000"),
        ({"depth": True}, "depth True is not a whole number from 0 to 10,000"),
        ({"nodes": -1}, "reported nodes -1 is not a whole number from 0 to 4,611,686,018,427,387,903"),
        ({"nodes": MAX_NODES + 1}, f"reported nodes {MAX_NODES + 1} is not a whole number from 0 to 4,611,686,018,427,387,903"),
        ({"nodes": 2.5}, "reported nodes 2.5 is not a whole number from 0 to 4,611,686,018,427,387,903"),
        ({"pv": "1:1"}, "principal variation is not a tuple of at most 1,000 moves"),
        ({"pv": ((0, 1),) * 1001}, "principal variation is not a tuple of at most 1,000 moves"),
        ({"score": "x" * 100}, "score '" + "x" * 58 + "… is not a number within the game's bounds [-1, 1]"),
    ],
)
def test_a_decision_field_out_of_range_loses_as_a_protocol_fault(fields, why):
    record = play_decision(**fields)
    assert record.termination is Termination.PROTOCOL and record.loser == 0 and record.utilities == (-1, 1)
    assert record.moves == () and record.message == f"'decider' broke the protocol at ply 0: {why}"


def test_the_score_tolerance_is_a_billionth_of_the_range_inclusive():
    class Wide(Steps):
        bounds = (0, 2**30)

    slack = 1e-9 * 2**30
    for score in (-slack, 2**30 + slack):
        assert play_decision(Wide(), score=score).termination is Termination.NORMAL
    for score in (-2 * slack, 2**30 + 2 * slack):
        assert play_decision(Wide(), score=score).termination is Termination.PROTOCOL


def test_a_full_length_principal_variation_is_stored():
    record = play_decision(Nim(heaps=(1000,)), pv=((0, 1),) * 1000)
    assert record.termination is Termination.NORMAL and record.moves[0].pv == ("1:1",) * 1000


def test_a_principal_variation_is_written_move_by_move_from_the_position():
    record = play_decision(Steps(), pv=(1, 2, 1), score=1.0)
    assert record.moves[0].pv == ("0+1", "1+2", "3+1")
    bad = play_decision(Steps(), pv=(1, 3))
    assert bad.termination is Termination.PROTOCOL and bad.message == (
        "'decider' broke the protocol at ply 0: principal variation cannot be written: "
        "IllegalMoveError: illegal move 3 in steps at ply 1 of the line"
    )


def test_a_reported_node_count_replaces_the_arenas_and_is_marked_over_past_the_budget():
    within = play_decision(budgets=[Budget(nodes=40), Budget()], nodes=40).moves[0]
    assert (within.nodes, within.reported, within.over_budget) == (40, True, False)
    over = play_decision(budgets=[Budget(nodes=40), Budget()], nodes=41).moves[0]
    assert (over.nodes, over.reported, over.over_budget) == (41, True, True)
    unlimited = play_decision(nodes=10**9).moves[0]
    assert (unlimited.nodes, unlimited.reported, unlimited.over_budget) == (10**9, True, False)
    counted = play_decision().moves[0]
    assert (counted.nodes, counted.reported, counted.over_budget) == (1, False, False)


def test_a_bot_that_reports_its_own_nodes_has_them_recorded_as_reported():
    reporter = Duck(reports_nodes=True)
    record = play_game(Steps(), [reporter, Duck()])
    assert [m.reported for m in record.moves] == [True, False] * (len(record.moves) // 2)
    truthy = Duck(reports_nodes=1)  # only True itself marks it
    assert not any(m.reported for m in play_game(Steps(), [truthy, Duck()]).moves)


# Forfeits: who loses, why, with what


def test_an_illegal_move_is_shown_in_200_characters_with_the_legal_moves_in_their_position():
    exact, long = "a" * 198, "a" * 199  # repr adds two quotes
    record = play_game(Steps(), [Duck(), Duck(lambda g, s, c: exact)], opening=(1,))
    assert record.message == f"illegal move '{exact}' by 'duck' in steps at ply 1; legal: 1+1, 1+2"
    record = play_game(Steps(), [Duck(), Duck(lambda g, s, c: long)], opening=(1,))
    assert record.message == f"illegal move '{long[:198]}… by 'duck' in steps at ply 1; legal: 1+1, 1+2"
    assert record.loser == 1 and record.utilities == (1, -1) and record.termination is Termination.ILLEGAL_MOVE


def test_a_value_that_cannot_be_shown_is_named_by_its_type():
    class Unprintable:
        def __repr__(self):
            raise RuntimeError("no")

    record = play_decision(score=Unprintable())
    assert record.message.endswith("score <unprintable Unprintable> is not a number within the game's bounds [-1, 1]")


def test_an_exception_without_a_message_is_named_by_its_type():
    def boom(game, state, counter):
        raise KeyError()

    record = play_game(Steps(), [Duck(), Duck(boom)])
    assert record.message == "'duck' crashed at ply 1: KeyError"
    assert record.termination is Termination.CRASH and record.loser == 1


@pytest.mark.parametrize("player", [0, 1])
def test_a_supervised_bots_fault_loses_with_its_own_termination(player):
    def fault(game, state, counter):
        raise BotFault(Termination.OUTPUT, "wrote too much", "2,000 bytes")

    bots = [Duck(spec="a"), Duck(spec="b")]
    bots[player] = Duck(fault, spec="x")
    record = play_game(Steps(), bots, seed=4, opening=("0+2",))
    assert record.termination is Termination.OUTPUT and record.loser == player
    assert record.message == f"'x' wrote too much at ply {2 - player}: 2,000 bytes"  # after the opening, player 1 moves at ply 1
    assert record.utilities == ((-1, 1) if player == 0 else (1, -1))
    assert record.seed == 4 and record.opening == ("0+2",) and record.game == "steps"


@pytest.mark.parametrize("player", [0, 1])
def test_a_fault_while_starting_a_game_loses_it(player):
    class Starter(Duck):
        def new_game(self, game, player, seed):
            raise BotFault(Termination.MEMORY, "ran out of memory", "512 MB")

    bots = [Duck(), Duck()]
    bots[player] = Starter(spec="x")
    record = play_game(Steps(), bots, names=("n0", "n1"), seed=6, opening=(1,))
    assert record.termination is Termination.MEMORY and record.loser == player
    assert record.message == f"'n{player}' failed to start a game: 512 MB"
    assert record.utilities == ((-1, 1) if player == 0 else (1, -1))
    assert record.seed == 6 and record.opening == ("0+1",) and record.players == ("n0", "n1")


def test_a_bot_that_lets_the_budget_escape_crashes_and_says_how_far_it_got():
    def greedy(game, state, counter):
        while True:
            state = game.apply(state, 1)

    record = play_game(Steps(), [Duck(greedy, spec="g"), Duck()], budgets=[Budget(nodes=3), Budget()])
    assert record.termination is Termination.CRASH and record.loser == 0
    assert record.message == "'g' crashed at ply 0: ran out of its budget (nodes=3) after 3 nodes without choosing a move"
    assert record.budgets == ("nodes=3", "none")


def test_each_player_counts_under_its_own_budget():
    def hungry(game, state, counter):
        try:
            for _ in range(50):
                game.apply(state, 1)
        except BudgetExhausted:
            pass
        return 1

    record = play_game(Steps(), [Duck(hungry), Duck(hungry)], budgets=[Budget(nodes=3), Budget()])
    assert {m.player: m.nodes for m in record.moves} == {0: 3, 1: 51}  # the root and what it applied


# Time and CPU


def _seconds(message, head, tail):
    """The seconds a timeout message reports, checked to sit, with three decimals, between ``head``
    and ``tail``. A sleep of 0.03 s may be reported much longer on a loaded machine, never shorter."""
    found = re.fullmatch(re.escape(head) + r" (\d+\.\d{3})s" + re.escape(tail), message)
    assert found, message
    return float(found.group(1))


def test_a_slow_move_loses_on_time_unless_the_bot_is_a_person():
    def slow(game, state, counter):
        time.sleep(0.03)
        return 1

    budgets = [Budget(time=0.005)] * 2
    record = play_game(Steps(), [Duck(slow, spec="s"), Duck()], budgets=budgets, time_margin=0.005)
    assert record.termination is Termination.TIMEOUT and record.loser == 0
    assert _seconds(record.message, "'s' took", " at ply 0; budget 0.005s + margin 0.005s") >= 0.03
    person = Duck(slow, interactive=True)
    assert play_game(Steps(), [person, Duck()], budgets=budgets, time_margin=0.005).termination is Termination.NORMAL


def _spin(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_move_over_its_cpu_budget_loses_measured_on_the_bots_thread():
    def busy(game, state, counter):
        _spin(0.03)
        return 1

    budgets = [Budget(cpu=0.005), Budget(cpu=0.005)]
    record = play_game(Steps(), [Duck(busy, spec="b"), Duck()], budgets=budgets, time_margin=0.005)
    assert record.termination is Termination.TIMEOUT and record.loser == 0 and record.moves == ()
    used = _seconds(record.message, "'b' used", " of CPU at ply 0; budget cpu=0.005s + margin 0.005s")
    assert 0.03 <= used < 0.1  # the CPU it spun, however long the wall clock took
    person = Duck(busy, interactive=True)
    calm = play_game(Steps(), [person, Duck()], budgets=budgets, time_margin=0.005)
    assert calm.termination is Termination.NORMAL
    assert calm.moves[0].cpu >= 0.03 and 0 <= calm.moves[1].cpu < 0.03


def test_cpu_is_measured_only_under_a_cpu_budget_or_by_the_bots_own_clock():
    plain = play_game(Steps(), [Duck(), Duck()], budgets=[Budget(nodes=10)] * 2)
    assert all(m.cpu is None for m in plain.moves)
    readings = iter([1.0, 1.25, 2.0, 2.5, 3.0, 3.125, 4.0, 4.0])
    clocked = Duck(cpu_seconds=lambda: next(readings))
    record = play_game(Steps(), [clocked, Duck()])  # no cpu budget: still the bot's own clock
    assert [m.cpu for m in record.moves if m.player == 0] == [0.25, 0.5][: len(record.moves[::2])]
    assert all(m.cpu is None for m in record.moves if m.player == 1)


def test_a_move_using_exactly_its_cpu_budget_and_margin_is_within_it():
    readings = iter([0.0, 0.75, 1.0, 2.0])
    clocked = Duck(cpu_seconds=lambda: next(readings), spec="c")
    record = play_game(Steps(), [clocked, Duck()], budgets=[Budget(cpu=0.5), Budget()], time_margin=0.25)
    assert record.moves[0].cpu == 0.75
    assert record.termination is Termination.TIMEOUT and record.loser == 0  # its second move used 1 s
    assert record.message == "'c' used 1.000s of CPU at ply 2; budget cpu=0.5s + margin 0.25s"


def test_without_a_readable_cpu_clock_the_wall_clock_stands_in():
    def slow(game, state, counter):
        time.sleep(0.03)
        return 1

    blind = Duck(slow, cpu_seconds=lambda: None, spec="blind")
    record = play_game(Steps(), [blind, Duck()], budgets=[Budget(cpu=0.005), Budget()], time_margin=0.005)
    assert record.termination is Termination.TIMEOUT and record.loser == 0
    tail = " (its CPU time cannot be read here) at ply 0; budget cpu=0.005s + margin 0.005s"
    assert _seconds(record.message, "'blind' took", tail) >= 0.03


# Openings, move texts, what bots are handed


def test_an_opening_of_moves_and_texts_is_written_in_its_positions():
    game = Steps()
    record = play_game(game, [Duck(), Duck()], opening=(1, "1+2"))
    assert record.opening == ("0+1", "1+2")
    assert [m.move for m in record.moves] == ["3+1"] and record.moves[0].ply == 2 and record.moves[0].player == 0
    assert record.utilities == (1, -1)


def test_an_opening_of_move_values_is_written_as_the_game_writes_moves():
    game = Nim(heaps=(2, 3))
    record = play_game(game, [Duck(), Duck()], opening=((1, 2), "1:1"))
    assert record.opening == ("2:2", "1:1")
    end = game.play([(1, 2), (0, 1)] + [game.parse_move(m.move) for m in record.moves])
    assert game.is_terminal(end)
    assert [m.move for m in record.moves] == ["1:1", "2:1"]  # the first legal move of what is left


def test_moves_of_a_game_that_writes_them_by_position_are_recorded_so():
    record = play_game(Steps(), [Duck(), Duck()])
    assert [m.move for m in record.moves] == ["0+1", "1+1", "2+1", "3+1"]
    assert record.utilities == (-1, 1) and record.loser is None


class Lists(Game):
    """Moves are lists (unhashable): pick [1] or [2] from a counter that ends at 3 or more."""

    name = "lists"

    def initial_state(self):
        return (0, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return [[1], [2]]

    def apply(self, state, move):
        return (state[0] + move[0], 1 - state[1])

    def is_terminal(self, state):
        return state[0] >= 3

    def utility(self, state, player):
        return 1 if player != state[1] else -1

    def format_move(self, move):
        return f"take{move[0]}"


def test_unhashable_moves_are_written_each_time():
    record = play_game(Lists(), [Duck(lambda g, s, c: [2]), Duck()])
    assert [m.move for m in record.moves] == ["take2", "take1"] and record.utilities == (-1, 1)


def test_each_bot_is_handed_a_counting_view_its_player_and_its_seed():
    a, b = Duck(), Duck()
    play_game(Steps(), [a, b], seed=11)
    (game_a, player_a, seed_a), (game_b, player_b, seed_b) = a.started[0], b.started[0]
    assert (player_a, player_b) == (0, 1) and (seed_a, seed_b) == (bot_seed(11, 0), bot_seed(11, 1))
    assert isinstance(game_a, Steps) and type(game_a) is not Steps  # the counted view
    assert game_a is not game_b


def test_bots_are_told_moves_only_if_they_follow_them():
    class Listener(Duck):
        def moved(self, text):
            self.told.append(text)

    yes, no = Listener(follows_moves=True, told=[]), Listener(told=[])
    record = play_game(Steps(), [yes, no])
    assert yes.told == [m.move for m in record.moves] and no.told == []


# ask, legal_index, bot_seed


def test_ask_counts_under_a_budget_a_counter_or_nothing():
    seen = []

    def look(game, state, counter):
        seen.append(counter)
        game.apply(state, 1)
        return 1

    answer, counter = ask(Duck(look), Steps(), (0, 0), Budget(nodes=7))
    assert answer == 1 and counter.nodes == 2 and counter.budget == Budget(nodes=7) and seen[-1] is counter
    mine = Counter(Budget(nodes=2))
    assert ask(Duck(look), Steps(), (0, 0), mine)[1] is mine and mine.nodes == 2
    _, none = ask(Duck(look), Steps(), (0, 0))
    assert none.budget.unlimited and none.nodes == 2
    with pytest.raises(BudgetExhausted):
        ask(Duck(look), Steps(), (0, 0), Budget(nodes=1))  # the root uses the only node


def test_legal_moves_in_a_sequence_without_index_are_found_by_a_scan():
    legal = {0: "a", 1: "b", 2: "c"}.keys()
    assert legal_index(legal, 1) == 1 and legal_index(legal, 7) is None and legal_index(legal, 1.0) is None


def test_bot_seeds_are_splitmix64_outputs_halved():
    # SplitMix64 (Steele, Lea, Flood 2014) from state 0 gives 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4,
    # 0x06C45D188009454F (Vigna's reference, https://prng.di.unimi.it/splitmix64.c); player p
    # of a game with seed s gets output p + 1 of the generator started at s, shifted to 63 bits.
    golden = 0x9E3779B97F4A7C15
    assert bot_seed(0, 0) == 0xE220A8397B1DCDAF >> 1
    assert bot_seed(0, 1) == 0x6E789E6AA1B965F4 >> 1
    assert bot_seed(golden, 1) == 0x06C45D188009454F >> 1 == bot_seed(0, 2)


# Chance, more seats, hidden information: what the referee hands on


class Draws(Game):
    """Seats 0 and 1 take turns to pick 1 or 2; after each pick the dice draw a digit from the
    stream of the seat that picked (``chance_seat``'s default). Four picks end it."""

    name = "draws"
    model = Model(chance=True)
    bounds = (-1, 1)
    DIGITS = tuple((d, 0.1) for d in range(10))

    def initial_state(self):
        return ()

    def to_move(self, state):
        return CHANCE if len(state) % 2 else len(state) // 2 % 2

    def legal_moves(self, state):
        return [] if len(state) % 2 or self.is_terminal(state) else [1, 2]

    def chance_outcomes(self, state):
        return self.DIGITS

    def apply(self, state, move):
        return state + (move,)

    def is_terminal(self, state):
        return len(state) >= 8

    def utility(self, state, player):
        return 1 if sum(state) % 2 == player else -1

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        return int(text)


def test_a_game_of_chance_keys_its_dice_and_its_bots_seeds_with_the_games_seed():
    bots = [Duck(), Duck()]
    record = play_game(Draws(), bots, seed=7)
    dice = Dice(seed_key(7))
    seeds = [started[0][2] for started in (bots[0].started, bots[1].started)]
    assert seeds == [dice.bot_seed(7, 0), dice.bot_seed(7, 1)] and seeds != [bot_seed(7, 0), bot_seed(7, 1)]
    drawn = [m.move for m in record.moves if m.player == CHANCE]
    assert drawn == [str(dice.pick(Draws.DIGITS, seat, 0)) for seat in (0, 1)] + [
        str(dice.pick(Draws.DIGITS, seat, 1)) for seat in (0, 1)]
    other = play_game(Draws(), [Duck(), Duck()], seed=8)
    assert [m.move for m in other.moves if m.player == CHANCE] != drawn


def test_a_draw_of_the_dice_is_a_ply_that_followers_and_the_observer_are_told_of():
    told, observed = [], []
    follower = Duck(follows_moves=True, moved=told.append)
    record = play_game(Draws(), [follower, Duck()], seed=2, observer=lambda state, move: observed.append((state, move)))
    assert [m.ply for m in record.moves] == list(range(8)) and [m.player for m in record.moves][:4] == [0, CHANCE, 1, CHANCE]
    assert told == [m.move for m in record.moves]  # as text
    assert [move for _, move in observed] == list(record.moves)
    assert [state for state, _ in observed] == [tuple(int(t) for t in told[:n]) for n in range(1, 9)]


def test_a_game_that_draws_without_declaring_chance_gets_the_dice_of_its_seed_at_its_first_draw():
    class Undeclared(Draws):
        model = Model()  # chance nodes all the same: the referee draws them

    bots = [Duck(), Duck()]
    record = play_game(Undeclared(), bots, seed=7)
    dice = Dice(seed_key(7))
    assert [started[0][2] for started in (bots[0].started, bots[1].started)] == [bot_seed(7, 0), bot_seed(7, 1)]
    assert [m.move for m in record.moves if m.player == CHANCE] == [
        str(dice.pick(Draws.DIGITS, seat, n)) for n in (0, 1) for seat in (0, 1)]


def test_after_an_opening_the_dice_draw_from_the_stream_of_its_latest_decisions_seat():
    # seat 0 picks 1, the dice draw 5, seat 1 picks 2: the next draw is seat 1's first
    record = play_game(Draws(), [Duck(), Duck()], seed=1, opening=(1, 5, 2))
    dice = Dice(seed_key(1))
    assert dice.pick(Draws.DIGITS, 1, 0) != dice.pick(Draws.DIGITS, 0, 0)  # seed 1 tells the streams apart
    assert (record.moves[0].player, record.moves[0].move) == (CHANCE, str(dice.pick(Draws.DIGITS, 1, 0)))


def test_each_moves_counter_carries_the_referees_time_margin():
    margins = []

    def note(game, state, counter):
        margins.append(counter.margin)
        return 1

    play_game(Steps(), [Duck(note), Duck(note)], time_margin=0.375)
    assert margins and set(margins) == {0.375}


def test_names_and_budgets_of_the_wrong_count_are_refused_by_the_number_of_seats():
    game, bots = Nim(players=3), [Duck(), Duck(), Duck()]
    with pytest.raises(ParameterError) as caught:
        play_game(game, bots, names=("a", "b"))
    assert str(caught.value) == "play_game: names must be 3 strings, got ('a', 'b')"
    with pytest.raises(ParameterError) as caught:
        play_game(game, bots, budgets=[Budget(nodes=5)] * 2)
    assert str(caught.value) == "play_game: budgets must be 3 Budgets, one per bot; got 2"


def test_a_game_of_three_seats_ends_with_each_seats_utility():
    game = Nim(players=3)
    record = play_game(game, [Duck(), Duck(), Duck()])
    final = game.play([game.parse_move(m.move) for m in record.moves])
    assert game.is_terminal(final) and record.termination is Termination.NORMAL
    assert record.utilities == tuple(float(game.utility(final, seat)) for seat in range(3))
    assert len(set(record.utilities)) > 1


def test_a_clock_for_one_seat_leaves_the_other_seats_moves_untimed():
    budgets = []

    def note(game, state, counter):
        budgets.append(counter.budget)
        return 1

    record = play_game(Steps(), [Duck(note), Duck(note)], budgets=[Budget.parse("tc=60+0"), Budget()])
    assert record.termination is Termination.NORMAL
    assert budgets[0].clock is not None and budgets[1].clock is None


def test_a_move_that_cannot_be_compared_is_illegal():
    class Touchy:
        def __eq__(self, other):
            raise RuntimeError("no comparing me")

        __hash__ = object.__hash__

    record = play_game(Steps(), [Duck(lambda game, state, counter: Touchy(), spec="t"), Duck()])
    assert (record.termination, record.loser, record.moves) == (Termination.ILLEGAL_MOVE, 0, ())
    assert record.message.startswith("illegal move ") and "by 't' in steps at ply 0; legal: 0+1, 0+2" in record.message


def test_a_game_ended_by_adjudication_keeps_its_opening_and_seed():
    record = play_game(Nim(), [Duck(), Duck()], opening=("1:1",), seed=9, adjudication=Adjudication(maxmoves=1))
    assert (record.termination, record.loser, record.utilities) == (Termination.MAX_MOVES, None, (0.0, 0.0))
    assert record.opening == ("1:1",) and record.seed == 9 and len(record.moves) == 2


def first_view(game, view, counter):
    return view.legal[0]


def test_a_hidden_games_opening_is_in_every_seats_history_and_every_ply_is_observed():
    histories, observed = [], []

    def look(game, view, counter):
        histories.append((view.seat, view.history))
        return view.legal[0]

    record = play_game(KuhnPoker(), [Duck(look), Duck(look)], opening=("K", "Q", "p"), trusted=True,
                       observer=lambda state, move: observed.append((state, move.ply)))
    assert [m.move for m in record.moves] == ["p"] and record.opening == ("K", "Q", "p") and record.seed == 0
    assert record.termination is Termination.NORMAL and record.message == "first wins 1: second shows Q against K"
    assert histories == [(1, ("?", "?", "p"))]  # the deal hidden, the pass public
    assert observed == [("KQpp", 3)]


def test_in_a_hidden_game_a_bot_that_fails_loses_under_its_name_at_its_ply():
    def boom(game, view, counter):
        raise RuntimeError("boom")

    record = play_game(KuhnPoker(), [Duck(first_view), Duck(boom)], names=("calm", "loud"), seed=4, trusted=True)
    assert (record.termination, record.loser, record.seed) == (Termination.CRASH, 1, 4)
    assert record.message == "'loud' crashed at ply 3: RuntimeError: boom" and record.utilities[1] < 0
    assert [m.player for m in record.moves] == [CHANCE, CHANCE, 0]


def test_in_a_hidden_game_a_clock_run_out_loses_on_time():
    def slow(game, view, counter):
        time.sleep(0.2)
        return view.legal[0]

    budgets = [Budget.parse("tc=60+0"), Budget.parse("tc=0.02+0")]
    record = play_game(KuhnPoker(), [Duck(first_view), Duck(slow, spec="slow")], budgets=budgets, trusted=True,
                       time_margin=0.05)
    assert (record.termination, record.loser) == (Termination.CLOCK, 1), record.message
    assert record.message.startswith("'slow' ")


def test_a_hidden_game_ended_by_adjudication_keeps_its_opening_and_seed_and_no_loser():
    def bet(game, view, counter):
        return "b"

    record = play_game(KuhnPoker(), [Duck(first_view), Duck(bet)], opening=("K", "Q"), seed=6, trusted=True,
                       adjudication=Adjudication(maxmoves=1))
    assert (record.termination, record.loser, record.utilities) == (Termination.MAX_MOVES, None, (0.0, 0.0))
    assert record.opening == ("K", "Q") and record.seed == 6 and [m.move for m in record.moves] == ["p", "b"]
    assert record.message == "draw by adjudication: 1 moves a side played (maxmoves)"
