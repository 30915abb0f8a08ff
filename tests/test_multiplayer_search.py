"""The n-player search family (max^n, paranoid, Best-Reply Search) and MCTS with n seats.

Each search is held to a brute-force search written plainly (tests/plugins/nplayer.py), on
seeded random game trees of 2 to 4 seats (constant-sum and general-sum, with extra turns)
and on a small real game, ``Take``: take 1 to 3 counters, whoever takes the last one wins
(utility 1, the others 0; ``total`` 1). max^n with and without pruning must agree exactly,
the pruned one on fewer nodes.
"""

from __future__ import annotations

import random

import pytest

from arena import Budget, Decision, ParameterError, get_registry
from arena.referee import ask
from bots.brs import BestReplySearch, BRSBot
from bots.maxn import MaxnBot, MaxnSearch
from bots.mcts import MCTSBot
from bots.multiplayer import PASS_HOOK
from bots.paranoid import ParanoidBot, ParanoidSearch
from bots.table import Table
from tests.plugins.nplayer import (RandomTree, Take, TakeWithoutHook, Written, brute_brs, brute_maxn, brute_paranoid,
                                   counting, trees)

REGISTRY = get_registry(entry_points=False)


# -- max^n ----------------------------------------------------------------------------------


def test_maxn_pruned_and_unpruned_agree_and_pruning_saves_nodes():
    plain_nodes = pruned_nodes = 0
    for game in trees(300, depth=6):
        state = game.initial_state()
        view, counter = counting(game)
        plain = MaxnSearch(view, pruning=False).root(state, 6)
        used = counter.nodes
        counter.reset()
        pruned = MaxnSearch(view, pruning=True).root(state, 6)
        assert (pruned.vector, pruned.move, pruned.pv) == (plain.vector, plain.move, plain.pv), game.seed
        assert counter.nodes <= used, game.seed
        plain_nodes, pruned_nodes = plain_nodes + used, pruned_nodes + counter.nodes
    assert pruned_nodes < 0.9 * plain_nodes, (pruned_nodes, plain_nodes)


@pytest.mark.parametrize("constant", [True, False])
def test_maxn_is_plain_maxn(constant):
    for game in trees(150, constant=constant, depth=5):
        state = game.initial_state()
        for depth in (1, 3, 5):
            vector, move = brute_maxn(game, state, depth)
            for pruning in (True, False):
                result = MaxnSearch(game, pruning=pruning).root(state, depth)
                assert (result.vector, result.move) == (vector, move), (game.seed, depth, pruning)
                assert result.value == vector[0]


@pytest.mark.parametrize("second, cut", [((2, 4, 4), True), ((2, 3.5, 4.5), False)])
def test_maxn_shallow_pruning_cuts_exactly_at_the_bound(second, cut):
    # Korf (1991)'s shallow pruning, total 10, every value at least 0, three seats: seat 0
    # has 6 from A. Under B, seat 1's first child gives it 4, so B is worth at most
    # 10 - 4 - 0 = 6 to seat 0: no more than A, which keeps the tie, and B's other child
    # goes unsearched. Giving seat 1 3.5 leaves B possibly worth 6.5 to seat 0: no cut.
    game = Written((0, [(1, [(6, 4, 0)]), (1, [second, (0, 0, 10)])]))
    for pruning in (True, False):
        view, counter = counting(game)
        result = MaxnSearch(view, pruning=pruning).root((), 2)
        assert (result.vector, result.move) == ((6.0, 4.0, 0.0), 0)
        assert counter.nodes == (4 if pruning and cut else 5)


def test_maxn_shallow_pruning_cuts_only_in_constant_sum_games():
    general = RandomTree(seed=3, constant=False, depth=6)
    view, counter = counting(general)
    MaxnSearch(view, pruning=False).root(general.initial_state(), 6)
    used = counter.nodes
    counter.reset()
    MaxnSearch(view, pruning=True).root(general.initial_state(), 6)
    # general-sum: only immediate pruning (a child worth the top of the bounds, 10, to its mover)
    assert MaxnSearch(general).shallow is None
    assert counter.nodes <= used
    game = Take(counters=9, players=3)
    search = MaxnSearch(game)
    assert search.shallow == 1.0 and search.top == 1.0  # T - (n - 2) * low, min(high, T - (n - 1) * low)


def test_maxn_on_take_is_plain_maxn_and_wins_when_it_can():
    for n in (2, 3, 4):
        for counters in range(1, 14):
            game = Take(counters=counters, players=n)
            state = game.initial_state()
            vector, move = brute_maxn(game, state, 40)
            result = MaxnSearch(game).root(state, 40)
            assert (result.vector, result.move) == (vector, move) and result.exact
            if counters <= 3:
                assert result.move == counters and result.value == 1.0


# -- paranoid -------------------------------------------------------------------------------


@pytest.mark.parametrize("constant", [True, False])
def test_paranoid_is_plain_paranoid_with_and_without_the_table(constant):
    for game in trees(150, constant=constant, depth=5):
        state = game.initial_state()
        for depth in (1, 2, 5):
            value, move = brute_paranoid(game, state, depth, 0)
            for table in (None, Table(1 << 10)):
                result = ParanoidSearch(game, root_seat=0, table=table).root(state, depth)
                assert (result.value, result.move) == (value, move), (game.seed, depth, table)


def test_paranoid_with_its_table_solves_take_as_brute_force_does():
    # with the whole game searched (no horizon), transpositions only share exact values
    for n in (2, 3, 4):
        for counters in range(1, 16):
            game = Take(counters=counters, players=n)
            state = game.initial_state()
            value, _ = brute_paranoid(game, state, 40, 0)
            for table in (None, Table(64)):  # a small table makes room too
                result = ParanoidSearch(game, root_seat=0, table=table).root(state, 40)
                assert result.value == value and result.exact
                assert brute_paranoid(game, game.apply(state, result.move), 39, 0)[0] == value


def test_paranoid_with_two_seats_is_bachets_game():
    # Bachet (Problemes plaisants et delectables, 1612): taking 1 to k, the player to move
    # loses exactly when the pile is a multiple of k + 1
    for counters in range(1, 21):
        game = Take(counters=counters, players=2)
        result = ParanoidSearch(game, root_seat=0, table=Table()).root(game.initial_state(), 30)
        assert result.value == (0.0 if counters % 4 == 0 else 1.0)


def test_paranoid_bot_matches_brute_force_at_every_depth():
    bot = ParanoidBot()
    for game in trees(40, depth=5):
        state = game.initial_state()
        if len(game.legal_moves(state)) == 1:
            continue  # played at once, unsearched (depth 0)
        for depth in (1, 3, 4):
            bot.new_game(game, 0, 1)
            decision, _ = ask(bot, game, state, Budget(depth=depth))
            value, _ = brute_paranoid(game, state, depth, 0)
            assert decision.score == value and decision.depth <= depth
            child = game.apply(state, decision.move)
            assert brute_paranoid(game, child, depth - 1, 0)[0] == value


def test_the_paranoid_table_is_cleared_for_another_seat():
    game = Take(counters=7, players=3)
    bot = ParanoidBot()
    bot.new_game(game, 0, 1)
    ask(bot, game, (7, 0), Budget(depth=20))
    decision, _ = ask(bot, game, (7, 1), Budget(depth=20))  # the same bot asked for seat 1
    assert decision.score == brute_paranoid(game, (7, 1), 20, 1)[0]


# -- Best-Reply Search ----------------------------------------------------------------------


@pytest.mark.parametrize("constant", [True, False])
def test_brs_is_plain_brs(constant):
    for game in trees(150, players=(3, 4), constant=constant, depth=5):
        state = game.initial_state()
        for depth in (1, 2, 3, 5):
            value, move = brute_brs(game, state, depth, 0)
            result = BestReplySearch(game, root_seat=0).root(state, depth)
            assert (result.value, result.move) == (value, move), (game.seed, depth)


def test_brs_with_two_seats_is_alpha_beta():
    for game in trees(100, players=(2,), depth=5):
        state = game.initial_state()
        for depth in (1, 3, 5):
            value, move = brute_paranoid(game, state, depth, 0)
            result = BestReplySearch(game, root_seat=0).root(state, depth)
            assert (result.value, result.move) == (value, move), (game.seed, depth)


def test_brs_on_take_and_its_line():
    for counters in range(2, 14):  # from 1 counter the one move is played unsearched
        game = Take(counters=counters, players=3)
        value, _ = brute_brs(game, game.initial_state(), 6, 0)
        bot = BRSBot()
        bot.new_game(game, 0, 1)
        decision, _ = ask(bot, game, game.initial_state(), Budget(depth=6))
        assert decision.score == value
        # the reported line stops before the first move played out of turn: a line of the game
        assert decision.pv[0] == decision.move
        state = game.initial_state()
        for move in decision.pv:
            assert move in game.legal_moves(state)
            state = game.apply(state, move)
    game = Take(counters=13, players=3)
    result = BestReplySearch(game, root_seat=0).root(game.initial_state(), 4)
    assert len(result.pv) == 4 and not all(in_turn for _, _, in_turn in result.pv)
    assert len(BRSBot().line(result.pv)) < 4


def test_brs_refuses_a_game_of_more_seats_without_the_hook_in_one_line():
    bot = BRSBot()
    why = bot.suitable(TakeWithoutHook(players=3))
    assert why == f"it needs the game's {PASS_HOOK}(state, seat) to let any opponent reply; take has none"
    assert "\n" not in why
    with pytest.raises(ParameterError, match="^bot 'brs' cannot play 'take': it needs"):
        bot.check_game(TakeWithoutHook(players=3))
    assert bot.suitable(REGISTRY.game("nim:players=3")) is not None
    assert bot.suitable(TakeWithoutHook(players=2)) is None  # two seats: the opponent is the one to move
    assert bot.suitable(Take(players=4)) is None


# -- the bots: budgets, depths, refusals ----------------------------------------------------

FAMILY = ("maxn", "paranoid", "brs")


def some_states(game, count, seed=0):
    rng, out = random.Random(seed), []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(6)):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if not game.is_terminal(state):
            out.append(state)
    return out


@pytest.mark.parametrize("name", FAMILY + ("mcts",))
@pytest.mark.parametrize("nodes", [1, 2, 7, 50, 400])
def test_legal_move_within_a_node_budget(name, nodes):
    games = [Take(counters=25, players=3), Take(counters=30, players=4), RandomTree(seed=5, depth=8, players=3),
             REGISTRY.game("nim:players=3")]
    for game in games:
        if name == "brs" and REGISTRY.bot(name).suitable(game):
            continue
        for state in some_states(game, 4):
            bot = REGISTRY.bot(name)
            bot.new_game(game, game.to_move(state), 7)
            decision, counter = ask(bot, game, state, Budget(nodes=nodes))
            move = decision.move if isinstance(decision, Decision) else decision
            assert move in game.legal_moves(state)
            assert counter.nodes <= nodes
            if isinstance(decision, Decision) and decision.score is not None:
                low, high = game.bounds
                assert low <= decision.score <= high


@pytest.mark.parametrize("name", FAMILY)
def test_legal_move_within_a_time_budget(name):
    game = Take(counters=200, players=3)
    bot = REGISTRY.bot(name)
    bot.new_game(game, 0, 1)
    decision, counter = ask(bot, game, game.initial_state(), Budget(time=0.05))
    assert decision.move in (1, 2, 3) and counter.elapsed() < 0.05 + 0.1


@pytest.mark.parametrize("name", FAMILY)
def test_the_depth_reported_is_the_deepest_completed(name):
    game = RandomTree(seed=11, players=3, depth=40, branching=3, extra=0.0)  # not settled within the budgets
    state = game.initial_state()
    for nodes in (60, 300, 2000):
        bot = REGISTRY.bot(name)
        bot.new_game(game, 0, 1)
        decision, _ = ask(bot, game, state, Budget(nodes=nodes))
        done = decision.depth
        assert done >= 1
        bot.new_game(game, 0, 1)
        again, counter = ask(bot, game, state, Budget(depth=done))
        assert (again.move, again.score, again.depth) == (decision.move, decision.score, done)
        assert counter.nodes <= nodes  # those iterations fit the budget ...
        bot.new_game(game, 0, 1)
        deeper, counter = ask(bot, game, state, Budget(depth=done + 1))
        if deeper.depth == done:
            assert deeper == again  # settled at ``done`` (a proven value): no deeper iteration
        else:
            assert counter.nodes > nodes  # ... and the next one did not


@pytest.mark.parametrize("name", FAMILY)
def test_a_settled_game_stops_deepening(name):
    game = Take(counters=5, players=3)
    bot = REGISTRY.bot(name)
    bot.new_game(game, 0, 1)
    decision, _ = ask(bot, game, game.initial_state(), Budget(nodes=100000))
    assert decision.depth <= 5  # no line is longer than 5 plies


def test_a_two_player_bot_refuses_more_seats_in_one_line():
    game = Take(players=3)
    for name in ("alphabeta", "iterative", "minimax"):
        bot = REGISTRY.bot(name)
        why = bot.suitable(game)
        assert why and "\n" not in why and "3 players" in why
        with pytest.raises(ParameterError, match=f"^bot '{name}' cannot play 'take': it plays games without 3 players"):
            bot.check_game(game)


@pytest.mark.parametrize("name", FAMILY + ("mcts",))
def test_the_family_refuses_nothing_about_seats_or_sums(name):
    bot = REGISTRY.bot(name)
    for game in (Take(players=3), Take(players=4), RandomTree(constant=False), REGISTRY.game("tictactoe"),
                 REGISTRY.game("nim:players=4")):
        if name == "brs" and game.name == "nim":
            continue  # no pass_to
        assert bot.suitable(game) is None, (name, game.name)
    assert {"players", "nonzero-sum"} <= type(bot).handles


def test_registered_with_their_parameters():
    assert isinstance(REGISTRY.bot("maxn:pruning=false,max_depth=3"), MaxnBot)
    assert isinstance(REGISTRY.bot("paranoid:table=false"), ParanoidBot)
    assert isinstance(REGISTRY.bot("brs:max_depth=4"), BRSBot)


@pytest.mark.parametrize("name", FAMILY)
def test_two_seat_zero_sum_games_get_alpha_beta_values(name):
    # max^n, paranoid and BRS reduce to minimax with two seats and a zero sum
    game = REGISTRY.game("tictactoe")
    alphabeta = REGISTRY.bot("alphabeta:depth=3")
    for state in some_states(game, 5, seed=3):
        bot = REGISTRY.bot(name)
        bot.new_game(game, game.to_move(state), 1)
        alphabeta.new_game(game, game.to_move(state), 1)
        decision, _ = ask(bot, game, state, Budget(depth=3))
        expected, _ = ask(alphabeta, game, state, Budget(depth=3))
        assert decision.score == pytest.approx(expected.score)


# -- MCTS with n seats ----------------------------------------------------------------------


def test_mcts_takes_the_win_for_the_seat_to_move():
    for n in (3, 4):
        for seat in range(n):
            game = Take(counters=3, players=n)
            state = (3, seat)
            bot = MCTSBot(playouts=300)
            bot.new_game(game, seat, 1)
            decision, _ = ask(bot, game, state, Budget())
            assert decision.move == 3 and decision.score == 1.0


def test_mcts_backs_up_each_seats_utility_as_max_n_does():
    # general-sum: seat 0 picks A or B, then seat 1 x or y. After A seat 1 prefers x (6 to 5),
    # which gives seat 0 7; a paranoid seat 1 would pick y and give it 0. After B seat 0 gets 3
    # whatever seat 1 does. max^n plays A (7), paranoid B (3).
    game = Written((0, [(1, [(7, 6, 0), (0, 5, 5)]), (1, [(3, 3, 4), (3, 4, 3)])]), total=None)
    bot = MCTSBot(playouts=3000)
    bot.new_game(game, 0, 5)
    decision, _ = ask(bot, game, (), Budget())
    assert decision.move == 0 and 5.0 < decision.score <= 7.0
    assert ask(REGISTRY.bot("maxn"), game, (), Budget())[0].move == 0
    paranoid = ask(REGISTRY.bot("paranoid"), game, (), Budget())[0]
    assert (paranoid.move, paranoid.score) == (1, 3.0)


def test_mcts_is_reproducible_on_a_general_sum_tree():
    game = RandomTree(seed=4, constant=False, players=4, depth=7)
    answers = []
    for _ in range(2):
        bot = MCTSBot(playouts=200)
        bot.new_game(game, 0, 9)
        answers.append(ask(bot, game, game.initial_state(), Budget())[0])
    assert answers[0] == answers[1]
    assert 0.0 <= answers[0].score <= 10.0


# -- a whole game with n bots, played by a loop of our own ---------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_a_whole_game_with_every_bot_of_the_family(players):
    game = Take(counters=23, players=players)
    names = ["maxn", "paranoid", "brs", "mcts:playouts=200"][:players]
    bots = [REGISTRY.bot(name) for name in names]
    for seat, bot in enumerate(bots):
        bot.new_game(game, seat, 100 + seat)
    state, plies = game.initial_state(), 0
    while not game.is_terminal(state):
        seat = game.to_move(state)
        decision, counter = ask(bots[seat], game, state, Budget(nodes=500))
        move = decision.move if isinstance(decision, Decision) else decision
        assert move in game.legal_moves(state) and counter.nodes <= 500
        state, plies = game.apply(state, move), plies + 1
    assert sum(game.utilities(state)) == game.model.total and plies <= 23
