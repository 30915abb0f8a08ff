"""The referee's fast paths keep its guarantees: seeds, counting, validation, records, fresh games."""

import pickle
import random
from collections import Counter as Tally

import pytest

from arena import (
    Budget, BudgetExhausted, Counter, Decision, GameRecord, MoveRecord, Termination, get_registry, play_game,
)
from arena.referee import ask, bot_seed
from arena.referee import legal_index as _index
from arena.front.tournament import Entrant, TournamentConfig, make_schedule
from arena.execution.specs import fresh_game
from arena.execution.worker import _LocalBuild, play_scheduled
from tests.plugins import misbehaving

REGISTRY = get_registry(entry_points=False, plugins=[misbehaving])


# Counter.reset


def test_a_reset_counter_starts_afresh_under_its_budget():
    counter = Counter(Budget(nodes=3))
    for _ in range(3):
        counter.tick()
    with pytest.raises(BudgetExhausted):
        counter.tick()
    start = counter.reset()
    assert counter.nodes == 0 and counter.started == start and counter.depth is None
    for _ in range(3):
        counter.tick()
    assert counter.exhausted


def test_a_reset_counter_restarts_its_clock_and_takes_its_limits_from_the_budget():
    now = [100.0]
    counter = Counter(Budget(time=1.0, depth=4), clock=lambda: now[0])
    now[0] = 102.0
    assert counter.exhausted
    counter._node_limit = 0  # whatever a bot did to it
    assert counter.reset() == 102.0
    assert counter.deadline == 103.0 and counter.depth == 4 and not counter.exhausted
    for _ in range(100):
        counter.tick()  # the clock is read every 32 ticks; still within the second
    now[0] = 103.5
    with pytest.raises(BudgetExhausted):
        for _ in range(100):
            counter.tick()


def test_budget_text_is_kept_and_does_not_change_equality():
    a, b = Budget(nodes=5, time=0.5), Budget(nodes=5, time=0.5)
    assert str(a) == "nodes=5,time=0.5" == str(a)
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    assert pickle.loads(pickle.dumps(a)) == a and str(Budget()) == "none"


# Seeds and the random bot


def test_bot_seeds_are_deterministic_63_bit_and_distinct():
    seeds = [bot_seed(s, p) for s in range(5000) for p in (0, 1)]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= x < 2**63 for x in seeds)
    assert bot_seed(-7, 0) == bot_seed(-7, 0) != bot_seed(-7, 1)
    assert 0 <= bot_seed(2**200 + 3, 1) < 2**63
    # well mixed: neighbouring seeds differ in about half their bits
    flips = [bin(bot_seed(s, 0) ^ bot_seed(s + 1, 0)).count("1") for s in range(1000)]
    assert 28 <= sum(flips) / len(flips) <= 35


def test_bot_rng_is_made_on_first_use_with_the_game_seed():
    bot = REGISTRY.bot("greedy")
    assert "rng" not in vars(bot)
    assert bot.rng.random() == random.Random(0).random()  # before any game, as if seeded with 0
    bot.new_game(REGISTRY.game("nim"), 0, 42)
    assert "rng" not in vars(bot)
    expected = random.Random(42)
    assert [bot.rng.random() for _ in range(3)] == [expected.random() for _ in range(3)]
    bot.rng = random.Random(1)  # a bot may set its own
    assert bot.rng.random() == random.Random(1).random()
    bot.new_game(REGISTRY.game("nim"), 0, 42)
    assert bot.rng.random() == random.Random(42).random()


def test_the_random_bot_is_seeded_uniform_and_counts_its_node():
    game = REGISTRY.game("connect4")
    state = game.initial_state()
    bot = REGISTRY.bot("random")

    def picks(seed, n=7000):
        bot.new_game(game, 0, seed)
        counter, out, nodes = Counter(), [], 0
        for _ in range(n):
            out.append(ask(bot, game, state, counter)[0])
            nodes += counter.nodes
        assert nodes == n  # the root of each move, counted by the arena
        return out

    moves = picks(bot_seed(3, 0))
    assert moves == picks(bot_seed(3, 0)) != picks(bot_seed(3, 1))
    assert all(type(m) is int for m in moves)  # the plain move: no search to report
    counts = Tally(moves)
    assert sorted(counts) == list(range(7))
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 22.5  # 6 degrees of freedom: p = 0.001


def test_random_games_replay_from_their_seed():
    game = REGISTRY.game("connect4")
    a, b, c = (play_game(game, [REGISTRY.bot("random"), REGISTRY.bot("random")], seed=s) for s in (11, 11, 12))
    assert [m.move for m in a.moves] == [m.move for m in b.moves] != [m.move for m in c.moves]
    assert a.utilities == b.utilities


# Validation


@pytest.mark.parametrize(
    "legal, move, found",
    [
        ([0, 1, 2], 1, 1),
        ([0, 1, 2], 7, None),
        ([0, 1, 2], 1.0, None),  # equal, but not the game's type
        ([0, 1, 2], True, None),
        ([True, 1], 1, 1),  # an equal value of another type first: the scan finds the int
        ([(0, 1), (1, 2)], (1, 2), 1),
        (["a1", "b2"], "b2", 1),
        ((3, 4), 4, 1),  # any sequence
        (range(3), 2, 2),
        ([0, 1], None, None),
        ([0, 1], [1], None),  # unhashable, and not a legal move
    ],
)
def test_a_move_is_found_by_type_and_value(legal, move, found):
    assert _index(legal, move) == found


class Sly(int):
    """Claims to equal everything."""

    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def test_a_move_that_claims_to_equal_everything_is_illegal():
    assert _index([0, 1, 2], Sly(9)) is None
    record = play_game(REGISTRY.game("connect4"), [_Fixed(Sly(9)), REGISTRY.bot("random")], seed=1)
    assert record.termination is Termination.ILLEGAL_MOVE and record.loser == 0


class _Fixed:
    spec, interactive = "fixed", False

    def __init__(self, answer):
        self.answer = answer

    def new_game(self, game, player, seed):
        pass

    def choose(self, game, state, budget):
        return self.answer


def test_a_decision_and_a_plain_move_make_the_same_record_fields():
    game = REGISTRY.game("nim:heaps=1")
    plain = play_game(game, [_Fixed((0, 1)), _Fixed((0, 1))])
    decided = play_game(game, [_Fixed(Decision((0, 1), score=1.0, depth=2, pv=((0, 1),))), _Fixed((0, 1))])
    # a bot that examines nothing still has its root counted by the arena
    first = plain.moves[0]  # its wall and CPU seconds as measured
    assert first == MoveRecord(0, 0, game.format_move((0, 1)), 1, first.seconds, cpu=first.cpu)
    m = decided.moves[0]
    assert (m.move, m.depth, m.score, m.pv) == (game.format_move((0, 1)), 2, 1.0, (game.format_move((0, 1)),))


# Records


def test_move_records_are_named_tuples_with_the_documented_fields():
    assert MoveRecord._fields == (
        "ply", "player", "move", "nodes", "seconds", "depth", "score", "pv", "reported", "over_budget", "cpu", "clock"
    )
    m = MoveRecord(3, 1, "4", 10, 0.5)
    assert (m.depth, m.score, m.pv, m.reported, m.over_budget, m.cpu, m.clock) == (None, None, (), False, False, None, None)
    with pytest.raises(AttributeError):
        m.nodes = 0  # type: ignore[misc]


def test_game_records_survive_pickling_whole():
    game = REGISTRY.game("tictactoe")
    records = [
        play_game(game, [REGISTRY.bot("alphabeta:depth=3"), REGISTRY.bot("random")], seed=2, opening=["b2"]),
        play_game(game, [REGISTRY.bot("random"), REGISTRY.bot("illegal")], seed=3),
    ]
    for record in records:
        again = pickle.loads(pickle.dumps(record, pickle.HIGHEST_PROTOCOL))
        assert again == record and type(again) is GameRecord
        assert all(type(m) is MoveRecord for m in again.moves)
        assert again.termination is record.termination and again.winner == record.winner
    assert any(m.pv for m in records[0].moves) and records[1].termination is Termination.ILLEGAL_MOVE


# Fresh games and bots in a worker


def test_a_bot_tampering_with_its_game_does_not_reach_the_next_game():
    plugins = ("tests.plugins.misbehaving",)
    config = TournamentConfig(
        game="connect4", bots=(Entrant("vandal", "vandal"), Entrant("random", "random")), isolate=False, seed=3
    )
    for task in make_schedule(config, REGISTRY).games:
        play_scheduled(task, plugins)  # the vandal sets the game's attributes to None and rebinds its methods
    game, built = fresh_game("connect4", plugins), REGISTRY.game("connect4")
    assert vars(game).keys() == vars(built).keys()  # no method rebound on the instance
    assert [k for k, v in vars(game).items() if v is None] == [k for k, v in vars(built).items() if v is None]
    state = game.play([3, 3, 4, 4, 5, 5])
    assert game.legal_moves(state) == list(range(7)) and game.is_terminal(game.apply(state, 6))


def test_each_game_gets_a_newly_built_bot():
    build = _LocalBuild("greedy", ())
    game = REGISTRY.game("nim")
    build.new_game(game, 0, 1)
    first = build.bot
    assert build.choose == first.choose
    build.release()
    build.new_game(game, 0, 1)
    assert build.bot is not first
    build.release()
    assert build.bot is None and "choose" not in vars(build)
