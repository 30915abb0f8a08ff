"""The referee: validation, records, and forfeits for every kind of misbehaviour."""

import pytest

from arena import Bot, Budget, GameRecord, ParameterError, Termination, get_registry, play_game
from games.nim import Nim
from tests.plugins import misbehaving


@pytest.fixture
def reg():
    return get_registry(entry_points=False, plugins=[misbehaving])


def test_record_of_a_normal_game(reg):
    game = reg.game("tictactoe")
    record = play_game(game, [reg.bot("alphabeta:depth=9"), reg.bot("random")], seed=5)
    assert isinstance(record, GameRecord)
    assert record.termination is Termination.NORMAL
    assert record.players == ("alphabeta:depth=9", "random")
    assert record.seed == 5
    assert record.utilities[0] == -record.utilities[1]
    assert record.utilities[0] >= 0  # a perfect X never loses
    assert [m.ply for m in record.moves] == list(range(len(record.moves)))
    assert [m.player for m in record.moves] == [i % 2 for i in range(len(record.moves))]
    end = game.play([m.move for m in record.moves])
    assert game.is_terminal(end)
    assert record.utilities == (game.utility(end, 0), game.utility(end, 1))
    first = record.moves[0]
    assert first.nodes > 1 and first.depth == 9 and first.score == 0 and first.pv[0] == first.move


def test_same_seed_same_game_and_different_seed_differs(reg):
    game = reg.game("connect4")
    bots = lambda: [reg.bot("greedy"), reg.bot("random")]  # noqa: E731
    a = play_game(game, bots(), seed=1)
    b = play_game(game, bots(), seed=1)
    c = play_game(game, bots(), seed=2)
    assert [m.move for m in a.moves] == [m.move for m in b.moves]
    assert [m.move for m in a.moves] != [m.move for m in c.moves]


def test_nodes_are_counted_by_the_arena_and_respect_the_budget(reg):
    game = reg.game("connect4")
    record = play_game(game, [reg.bot("alphabeta:depth=8"), reg.bot("iterative")], budgets=[Budget(nodes=300)] * 2)
    assert record.termination is Termination.NORMAL
    assert all(1 <= m.nodes <= 300 for m in record.moves)


@pytest.mark.parametrize(
    "spec, termination, words",
    [
        ("raises", Termination.CRASH, ["'raises' crashed at ply 1", "RuntimeError: boom"]),
        ("illegal", Termination.ILLEGAL_MOVE, ["illegal move -12345 by 'illegal' in tictactoe at ply 1; legal: a1, b1"]),
        ("none", Termination.ILLEGAL_MOVE, ["illegal move None by 'none'"]),
        ("float", Termination.ILLEGAL_MOVE, [".0 by 'float' in tictactoe"]),
        ("badstart", Termination.CRASH, ["'badstart' failed to start a game", "ValueError: no tables today"]),
    ],
)
def test_a_misbehaving_bot_loses_with_the_reason_recorded(reg, spec, termination, words):
    game = reg.game("tictactoe")
    record = play_game(game, [reg.bot("random"), reg.bot(spec)], seed=3)
    assert record.termination is termination
    assert record.loser == 1
    assert record.utilities == (1, -1)
    assert record.result == "1-0"
    for w in words:
        assert w in record.message


def test_forfeit_costs_the_lowest_utility(reg):
    game = reg.game("counting:variant=22")
    record = play_game(game, [reg.bot("raises"), reg.bot("random")])
    assert record.utilities == (-2, 2)
    assert record.loser == 0


def test_overrunning_the_time_budget_loses_on_time(reg):
    game = reg.game("tictactoe")
    record = play_game(
        game, [reg.bot("random"), reg.bot("slow:seconds=0.2")], budgets=[Budget(time=0.05)] * 2, time_margin=0.05
    )
    assert record.termination is Termination.TIMEOUT
    assert record.loser == 1
    assert "budget 0.05s + margin 0.05s" in record.message
    generous = play_game(
        game, [reg.bot("random"), reg.bot("slow:seconds=0.01")], budgets=[Budget(time=0.05)] * 2, time_margin=0.05
    )
    assert generous.termination is Termination.NORMAL


def test_a_move_past_its_time_budget_but_within_the_margin_ends_its_game_normally(reg):
    # 0.2 s a move under a budget of 0.05 s: lost with a margin of 0.05 s (above), played with one
    # of 1 s, however loaded the machine (a sleep costs no CPU)
    game = reg.game("tictactoe")
    record = play_game(game, [reg.bot("random"), reg.bot("slow:seconds=0.2")], budgets=[Budget(time=0.05)] * 2,
                       time_margin=1.0)
    assert record.termination is Termination.NORMAL, record.message
    assert all(m.seconds > 0.2 for m in record.moves if m.player == 1)


def test_a_bot_mutating_nothing_can_change_the_referees_state(reg):
    # states are immutable values: a bot can only build new ones with apply
    game = reg.game("connect4")
    state = game.initial_state()
    with pytest.raises((TypeError, AttributeError)):
        state[0] = 1  # type: ignore[index]
    assert game.apply(state, 3) != state == game.initial_state()


def test_opening_moves_are_played_before_the_bots_take_over(reg):
    game = reg.game("tictactoe")
    record = play_game(game, [reg.bot("random"), reg.bot("random")], opening=["b2", "a1"], seed=0)
    assert record.opening == ("b2", "a1")
    assert record.moves[0].ply == 2 and record.moves[0].player == 0
    assert record.plies == 2 + len(record.moves)


def test_observer_sees_every_move(reg):
    game = reg.game("nim")
    seen = []
    record = play_game(game, [reg.bot("greedy"), reg.bot("random")], observer=lambda s, r: seen.append((s, r)))
    assert [r for _, r in seen] == list(record.moves)
    assert game.is_terminal(seen[-1][0])


def test_a_bot_refuses_an_unsuitable_game_at_set_up(reg):
    picky = reg.bot("picky")
    picky.check_game(reg.game("nim"))
    with pytest.raises(ParameterError, match="bot 'picky' cannot play 'tictactoe': it plays only nim"):
        picky.check_game(reg.game("tictactoe"))


class Follower(Bot):
    """Plays the first legal move and keeps what the referee tells it."""

    name = "follower"
    follows_moves = True

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self.told, self.opened = [], ()

    def opening(self, moves):
        self.opened = moves

    def moved(self, text):
        self.told.append(text)

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


def test_a_bot_that_follows_moves_is_told_every_move_of_both_players_in_order():
    game = Nim(heaps=(3, 4))
    follower, other = Follower(), Follower()
    other.follows_moves = False  # told nothing
    record = play_game(game, [follower, other], opening=("1:1",))
    assert follower.opened == ("1:1",) and follower.told == [m.move for m in record.moves]
    assert len(record.moves) > 2 and other.told == []
