"""Chess clocks: the time control's text, the running clocks (as fastchess keeps them), what a
bot is shown, the built-in searches' share, the go lines, and the referee's flag: a bot that
spends more than its clock loses on time in every mode the referee runs in, and no other game
is touched."""

from __future__ import annotations

import statistics

import pandas as pd
import pytest

import results
from arena import Budget, Clock, Counter, TimeControl, Termination, get_registry, play_game
from arena.clock import Clocks
from arena.errors import ParameterError
from arena.limits import DEFAULT_LIMITS
from arena.front.cli import main
from bots.engine.golines import arena_clock, go_line, uci_clock
from tests.helpers import sandbox_unavailable


@pytest.mark.parametrize("text, seconds, increment, moves, shown", [
    ("40/60+0.6", 60, 0.6, 40, "40/60+0.6"),
    ("10+0.1", 10, 0.1, None, "10+0.1"),
    ("60", 60, 0, None, "60"),
    ("1:30+1", 90, 1, None, "90+1"),
    ("0+0.5", 0, 0.5, None, "0+0.5"),
    (" 8/2.5 ", 2.5, 0, 8, "8/2.5"),
])
def test_time_controls_read_as_fastchess_and_cutechess_write_them(text, seconds, increment, moves, shown):
    tc = TimeControl.parse(text)
    assert (tc.seconds, tc.increment, tc.moves) == (seconds, increment, moves)
    assert str(tc) == shown and TimeControl.parse(str(tc)) == tc


@pytest.mark.parametrize("text", ["", "10+", "abc", "0", "0/10", "40/", "10+0.1+2", "-5", "inf"])
def test_a_bad_time_control_is_one_line_naming_the_forms(text):
    with pytest.raises(ParameterError) as caught:
        TimeControl.parse(text)
    message = str(caught.value)
    assert "\n" not in message and ("40/60+0.6" in message or "needs some time" in message or "at least 1" in message)


def test_the_budget_carries_its_clock_and_refuses_a_move_time_beside_it():
    budget = Budget.parse("nodes=500,tc=10+0.1")
    assert budget.tc == TimeControl(10, 0.1) and budget.nodes == 500 and str(budget) == "nodes=500,tc=10+0.1"
    assert Budget.parse(str(budget)) == budget and not budget.unlimited
    assert Budget(tc="40/60").tc == TimeControl(60, 0, 40)
    with pytest.raises(ParameterError, match="not both"):
        Budget.parse("time=1,tc=10+0.1")


def test_the_clocks_run_as_fastchess_runs_them():
    # fastchess, app/src/game/timecontrol/timecontrol.cpp: a clock starts with its time plus one
    # increment; the period's time is added before the move that completes it is charged; a move
    # within the margin leaves the clock at zero, plus the increment
    clocks = Clocks([TimeControl(1.0, 0.1, 2), None])
    assert clocks.left == [1.1, None]
    assert clocks.clock(0) == Clock(0, (1.1, None), (0.1, 0.0), 2)
    assert clocks.charge(0, 0.5, 0.05) == pytest.approx(0.7)  # 1.1 - 0.5 + 0.1
    assert clocks.clock(0).moves_to_go == 1
    assert clocks.charge(0, 0.2, 0.05) == pytest.approx(1.6)  # the period's second 1.0 first: 0.7 + 1 - 0.2 + 0.1
    assert clocks.clock(0).moves_to_go == 2
    assert clocks.charge(0, 1.62, 0.05) == pytest.approx(0.1)  # 0.02 over, within the margin: zero, then + 0.1
    # the next period's 1.0 first, then 1.3 off: 0.2 below zero, past the margin: the flag falls
    assert clocks.charge(0, 1.3, 0.05) is None
    assert "lost on time" in clocks.flag(0, 1.3, 0.05) and "1.100s on its clock" in clocks.flag(0, 1.3, 0.05)


def test_a_move_under_a_clock_stops_its_search_at_its_share():
    clock = Clock(0, (3.0, 5.0), (0.1, 0.1), None)
    assert clock.share() == pytest.approx(3.0 / 30 + 0.1)
    assert Clock(0, (0.1,), (0.5,), None).share() == pytest.approx(0.05)  # never more than half of what is left
    assert Clock(0, (20.0,), (0.0,), 4).share() == pytest.approx(5.0)
    counter = Counter(Budget(tc="3+0.1").at(clock))
    assert counter.clock is clock
    assert counter.time_left() == pytest.approx(clock.share(), abs=0.01)
    counter.allot(2.5)  # a bot planning its own time
    assert counter.time_left() == pytest.approx(2.5, abs=0.01)
    counter.allot(100)  # never past the clock
    assert counter.time_left() == pytest.approx(3.0, abs=0.01)
    with pytest.raises(ValueError):
        Counter(Budget(nodes=5)).allot(1)


def test_the_go_lines_send_both_clocks_in_milliseconds():
    budget = Budget(nodes=100, tc="40/10+0.25").at(Clock(1, (9.5, 8.0004), (0.25, 0.25), 7))
    assert go_line(budget, arena_clock) == "go nodes 100 time0 9500 time1 8000 inc0 250 inc1 250 movestogo 7"
    assert go_line(budget, uci_clock) == "go nodes 100 wtime 9500 btime 8000 winc 250 binc 250 movestogo 7"
    alone = Budget(tc="5").at(Clock(0, (4.0, None), (0.0, 0.0), None))
    assert go_line(alone, uci_clock) == "go wtime 4000 winc 0"
    assert go_line(alone, arena_clock) == "go time0 4000 inc0 0"


@pytest.mark.alone
def test_search_bots_play_a_whole_game_on_their_clocks_and_every_move_records_its_clock():
    registry = get_registry()
    game = registry.game("connect4")
    budgets = [Budget(tc="1.5+0.05"), Budget(tc="40/1.5")]
    record = play_game(game, [registry.bot("iterative"), registry.bot("mcts")], budgets=budgets, seed=4)
    assert record.termination is Termination.NORMAL, record.message
    left = [1.55, 1.5]
    for move in record.moves:
        seat = move.player  # connect4 ends before mcts's 40th move: one period
        assert move.seconds <= left[seat] + DEFAULT_LIMITS.time_margin  # never past its clock and the margin
        left[seat] = max(left[seat] - move.seconds, 0) + (0.05 if seat == 0 else 0)
        assert move.clock == pytest.approx(left[seat])
    # the share, at most half the clock: on the median move of each seat, since one move on a loaded
    # machine may be held up well past its share (0.85 s seen beside four busy processes on two cores)
    for seat in (0, 1):
        assert statistics.median(m.seconds for m in record.moves if m.player == seat) < 1.55 / 2 + 0.05
    # each bot spent some of its clock thinking, not none of it (a search stopped at its share)
    assert sum(m.seconds for m in record.moves if m.player == 0) > 0.1
    assert sum(m.seconds for m in record.moves if m.player == 1) > 0.1


def test_a_bot_that_rewrites_the_clock_it_is_shown_still_loses_on_time():
    from arena import Bot

    class Forger(Bot):
        name = "forger"

        def choose(self, game, state, budget):
            clock = budget.clock
            object.__setattr__(clock, "remaining", (1e9, 1e9))
            budget.allot(1e9)
            import time
            time.sleep(0.3)
            return game.legal_moves(state)[0]

    registry = get_registry()
    record = play_game(registry.game("nim"), [Forger(), registry.bot("random")], budgets=[Budget(tc="0.25"), Budget()],
                       time_margin=0.02)
    assert record.termination is Termination.CLOCK and record.loser == 0
    assert "lost on time" in record.message and record.moves == ()


MODES = {
    "in-process": ["--no-isolation"],
    "isolated": ["--jobs", "2"],
    "sandboxed": ["--sandbox", "--jobs", "2"],
    "dask": ["--dask", "local", "--jobs", "2"],
}


def mode_param(mode):
    why = sandbox_unavailable() if mode == "sandboxed" else ""
    return pytest.param(mode, marks=[pytest.mark.skipif(bool(why), reason=why or "bwrap works")], id=mode)


@pytest.mark.alone
@pytest.mark.processes
@pytest.mark.parametrize("mode", [mode_param(m) for m in MODES])
def test_a_bot_that_ignores_its_clock_loses_on_time_and_no_other_game_is_touched(tmp_path, capsys, mode):
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    db = tmp_path / "t.db"
    # the slow bot sleeps 0.3 s a move on a clock of 0.5 s: its second move loses on time at the latest
    argv = ["run", "--game", "nim", "--bot", "bad=slow:seconds=0.3@tc=0.5", "--bot", "random", "--bot", "greedy",
            "--games", "2", "--openings", "0", "--tc", "30+0.5", "--no-progress", "--db", str(db),
            "--plugin", "tests.plugins.misbehaving", *MODES[mode]]
    assert main(argv) == 0, capsys.readouterr().err
    tables = results.load(db)
    games, moves = tables.games, tables.moves
    assert len(games) == 6
    for _, row in games.iterrows():
        if "bad" in (row.first, row.second):
            seat = (row.first, row.second).index("bad")
            assert row.termination == "clock" and row.loser == seat, (row.termination, row.message)
            assert "'bad'" in row.message and "lost on time" in row.message
        else:
            assert row.termination == "normal" and pd.isna(row.loser), row.message
            mine = moves[moves.game_id == row.game_id]
            assert mine.clock.notna().all() and (mine.clock > 25).all()  # 30.5 s each, a fast bot's moves



ENGINE_MODES = {"in-process": ["--no-isolation"], "isolated": ["--jobs", "2"], "sandboxed": ["--sandbox", "--jobs", "2"],
                "dask": ["--dask", "local", "--jobs", "2"]}


@pytest.mark.alone
@pytest.mark.processes
@pytest.mark.parametrize("mode", [mode_param(m) for m in ENGINE_MODES])
def test_an_engine_that_never_answers_is_killed_when_its_clock_runs_out(tmp_path, capsys, mode):
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    import shlex
    import sys
    from pathlib import Path

    faulty = Path(__file__).resolve().parent / "engines" / "faulty.py"
    spec = f"hung=engine:cmd={shlex.join([sys.executable, str(faulty), 'hang'])}@tc=0.4"
    db = tmp_path / "t.db"
    argv = ["run", "--game", "tictactoe", "--bot", spec, "--bot", "random", "--bot", "greedy", "--games", "2",
            "--openings", "0", "--no-progress", "--db", str(db), *ENGINE_MODES[mode]]
    assert main(argv) == 0, capsys.readouterr().err
    games = results.load(db).games
    for _, row in games.iterrows():
        if "hung" in (row.first, row.second):
            assert row.termination == "clock" and row.loser == (row.first, row.second).index("hung"), row.message
            assert "lost on time" in row.message and "killed" in row.message
            assert row.seconds_first + row.seconds_second < 5  # killed at its clock and the margin, not the watchdog
        else:
            assert row.termination == "normal", row.message
