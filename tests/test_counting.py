"""The arena counts a bot's nodes itself: the game a bot is handed ticks for it, in every mode."""

import copy
import gc
import pickle

import pytest

import results
from arena import Budget, BudgetExhausted, Counter, Termination, get_registry, play_game
from arena.budget import counted
from arena.front.run import run_tournament
from arena.front.settings import RunSettings
from arena.front.tournament import Entrant, TournamentConfig
from tests.plugins import untallied

PLUGINS = ("tests.plugins.untallied",)
REGISTRY = get_registry(entry_points=False, plugins=[untallied])
ROUTES = ("apply", "class", "copy", "pickle")


def test_the_view_counts_every_apply_and_raises_past_the_limit():
    game = REGISTRY.game("tictactoe")
    counter = Counter(Budget(nodes=3))
    view = counted(game, counter)
    state = view.apply(game.initial_state(), 4)
    assert counter.nodes == 1 and state == game.apply(game.initial_state(), 4)
    view.apply(state, 0), view.apply(state, 1)
    with pytest.raises(BudgetExhausted):
        view.apply(state, 2)
    assert counter.nodes == 3
    assert isinstance(view, type(game)) and view.spec == game.spec and view.params == game.params


def test_no_route_through_the_view_escapes_the_count():
    game = REGISTRY.game("connect4")
    counter = Counter()
    view = counted(game, counter)
    start = game.initial_state()
    type(view).apply(view, start, 3)
    copy.copy(view).apply(start, 3)
    copy.deepcopy(view).apply(start, 3)
    pickle.loads(pickle.dumps(view)).apply(start, 3)
    counted(view, counter).apply(start, 3)  # a view of a view counts once
    assert counter.nodes == 5
    game.apply(start, 3)  # the referee's own game is not counted
    assert counter.nodes == 5


def test_a_pickled_view_cannot_leave_its_process():
    view = counted(REGISTRY.game("nim"), Counter())
    data = pickle.dumps(view)
    del view
    gc.collect()  # a view refers to itself through its bound apply
    with pytest.raises(pickle.UnpicklingError, match="cannot leave its process"):
        pickle.loads(data)


@pytest.mark.parametrize("via", ROUTES)
def test_a_bot_that_never_ticks_is_stopped_at_its_node_budget(via):
    game = REGISTRY.game("tictactoe")
    bots = [REGISTRY.bot(f"untallied:via={via}"), REGISTRY.bot("random")]
    record = play_game(game, bots, budgets=[Budget(nodes=50)] * 2, seed=3)
    assert record.termination is Termination.NORMAL
    ours = [m.nodes for m in record.moves if m.player == 0]
    assert ours and all(n == 50 for n in ours)
    assert all(m.nodes == 1 for m in record.moves if m.player == 1)  # random: the root only


def test_without_a_budget_the_true_count_is_recorded():
    game = REGISTRY.game("tictactoe")
    record = play_game(game, [REGISTRY.bot("untallied:applies=300"), REGISTRY.bot("random")], seed=1)
    assert [m.nodes for m in record.moves if m.player == 0][0] == 301  # the root and 300 applies


def test_a_bot_that_lets_the_budget_escape_loses_with_its_count():
    game = REGISTRY.game("tictactoe")
    bots = [REGISTRY.bot("untallied:catch=false"), REGISTRY.bot("random")]
    record = play_game(game, bots, budgets=[Budget(nodes=50)] * 2, seed=1)
    assert record.termination is Termination.CRASH and record.loser == 0
    assert "ran out of its budget (nodes=50) after 50 nodes without choosing a move" in record.message


def _tournament(tmp_path, isolate, jobs, dask=None, bot="untallied"):
    config = TournamentConfig(
        game="tictactoe",
        bots=(Entrant("untallied", bot), Entrant("random", "random")),
        budget=Budget(nodes=50),
        games_per_pairing=2,
        isolate=isolate,
        seed=5,
        name="count",
    )
    run = RunSettings(tmp_path / "c.db", jobs, dask, progress=False)
    result = run_tournament(config, run, plugins=PLUGINS, registry=REGISTRY)
    assert result.complete and not result.failed
    return results.load(tmp_path / "c.db")


@pytest.mark.parametrize(
    "isolate, jobs, dask",
    [pytest.param(*p, marks=() if p == (False, 1, None) else pytest.mark.processes) for p in
     [(True, 1, None), (True, 2, None), (False, 1, None), (False, 2, None), (True, 2, "local"), (False, 2, "local")]],
    ids=["isolated", "isolated-2-jobs", "no-isolation", "no-isolation-2-jobs", "dask-isolated", "dask"],
)
def test_every_mode_stops_the_bot_at_its_budget_and_records_its_count(tmp_path, isolate, jobs, dask):
    if dask:
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    games, moves = _tournament(tmp_path, isolate, jobs, dask)
    assert (games.termination == "normal").all()
    ours = moves[moves.bot == "untallied"]
    assert len(ours) > 0 and (ours.nodes == 50).all()
    assert (moves[moves.bot == "random"].nodes == 1).all()


@pytest.mark.processes
def test_an_isolated_bot_that_lets_the_budget_escape_loses_with_a_clear_reason(tmp_path):
    games, _ = _tournament(tmp_path, True, 1, bot="untallied:catch=false")
    lost = games[games.loser.notna()]
    assert len(lost) == 2 and (lost.termination == "crash").all()
    assert lost.message.str.contains("ran out of its budget (nodes=50) after 50 nodes without choosing a move", regex=False).all()


@pytest.mark.parametrize("isolation", [pytest.param([], marks=pytest.mark.processes), ["--no-isolation"]],
                         ids=["isolated", "no-isolation"])
def test_arena_play_records_the_arenas_count(isolation, capsys):
    from arena.front.cli import main

    argv = ["play", "tictactoe", "--bot", "untallied", "--bot", "random", "--budget", "nodes=50", "--seed", "2"]
    assert main([*argv, "--plugin", "tests.plugins.untallied", *isolation]) == 0
    out = capsys.readouterr().out
    ours = [line for line in out.splitlines() if line.startswith("move ") and "(untallied)" in line]
    assert ours and all("(50 nodes, " in line for line in ours), out
