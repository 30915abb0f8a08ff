"""The referee's limits hold at tables of more than two seats, in every mode it runs in:
a bot that plays an illegal move, raises, or overruns its time budget loses each of its
games, the other seats share what the game's constant sum leaves, and the games of the
tables it does not sit at are untouched. In process, isolated, sandboxed and on Dask."""

from __future__ import annotations

import pandas as pd
import pytest

import results
from arena.checks import forfeit_utilities
from arena.front.cli import main
from games.nim import Nim
from tests.helpers import RUN_MODES, sandbox_unavailable

ATTACKS = {
    "illegal": ("illegal", "illegal_move", ("illegal move",)),
    "raises": ("raises", "crash", ("crashed at ply",)),
    # the referee's clock in its own process; an isolated bot's watchdog kills it at the same limit
    # (a margin of 0.02 s: in this process the referee waits out each of its 18 moves of 0.08 s)
    "slow": ("slow:seconds=0.08@time=0.01", "timeout", ("budget 0.01s + margin 0.02s", "took longer than 0.03s")),
}


def mode_param(mode):
    why = sandbox_unavailable() if mode == "sandboxed" else ""
    marks = [pytest.mark.skipif(bool(why), reason=why or "bwrap works")]
    if mode != "in-process":
        marks.append(pytest.mark.processes)
    if mode == "sandboxed":
        marks.append(pytest.mark.slow(reason="a sandbox started afresh for each of the hostile bot's 18 games"))
    return pytest.param(mode, marks=marks, id=mode)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
@pytest.mark.parametrize("mode", [mode_param(m) for m in RUN_MODES])
def test_a_hostile_bot_at_three_seat_tables_loses_its_games_and_no_other(tmp_path, capsys, mode, attack):
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    spec, termination, words = ATTACKS[attack]
    db = tmp_path / "t.db"
    argv = ["run", "--game", "nim:players=3", "--bot", f"bad={spec}", "--bot", "random", "--bot", "greedy",
            "--bot", "r2=random", "--games", "6", "--openings", "0", "--budget", "nodes=500", "--time-margin", "0.02", "--no-progress",
            "--db", str(db), "--plugin", "tests.plugins.misbehaving", *RUN_MODES[mode]]
    assert main(argv) == 0, capsys.readouterr().err
    tables = results.load(db)
    games, seats = tables.games.set_index("game_id"), tables.seats
    assert len(games) == 4 * 6  # C(4, 3) tables, each its 6 seatings
    game = Nim(players=3)
    hostile = 0
    for game_id, rows in seats.groupby("game_id"):
        bots = list(rows.sort_values("seat").bot)
        row = games.loc[game_id]
        if "bad" in bots:
            hostile += 1
            seat = bots.index("bad")
            assert row.termination == termination and row.loser == seat, (row.termination, row.message)
            assert any(w in row.message for w in words) and "'bad'" in row.message, row.message
            assert tuple(rows.sort_values("seat").utility) == forfeit_utilities(game, seat, 3)
        else:  # the table without it: every game normal, a winner's point each
            assert row.termination == "normal" and pd.isna(row.loser)
            assert sorted(rows.points) == [0.0, 0.0, 1.0]
    assert hostile == 3 * 6

