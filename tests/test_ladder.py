"""The standing ladder (arena ladder): placement, rating pairings, joins and leaves over
several calls and from another process, determinism and resume, reports, bad input.
Bots of known strength come from tests/plugins/graded.py (strength rises with p)."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import results
from arena.front.cli import main
from arena.formats.ladder import STRIDE, draw_batch, ladder_table, placement_opponents, rating_pairs
from results.store import Store
from tests.helpers import needs_bwrap

ROOT = Path(__file__).resolve().parent.parent
FAST = ["--game", "tictactoe", "--budget", "nodes=200", "--no-isolation"]
QUIET = ["--jobs", "1", "--no-progress"]


def _games(db, name="ladder") -> pd.DataFrame:
    return results.load(str(db), name).games.sort_values("game_id").reset_index(drop=True)


def _config(db, name="ladder") -> dict:
    with Store(db) as store:
        return store.tournament(name).config


def _member(name, batch, left_batch=None, left=None):
    return {"name": name, "from_batch": batch, "left_batch": left_batch, "left": left}


def test_placement_opponents_are_spread_over_the_ratings():
    field = [f"b{k:02d}" for k in range(12)]  # best first
    assert placement_opponents(field, 4) == ["b01", "b04", "b07", "b10"]  # quantiles 1/8, 3/8, 5/8, 7/8
    assert placement_opponents(field[:3], 4) == ["b00", "b01", "b02"]  # a smaller field: each of it once
    # bots placed in the same batch take shifted quantiles: not all against the same four
    firsts = {tuple(placement_opponents(field, 4, (j + 0.5) / 3)) for j in range(3)}
    assert len(firsts) == 3


def test_rating_pairs_prefer_near_ratings_and_least_played_pairs():
    rating = {"a": 300.0, "b": 290.0, "c": 200.0, "d": -100.0}
    rng = random.Random(1)
    assert rating_pairs(list(rating), rating, {}, {}, 4, rng) == [("a", "b"), ("c", "d")] or \
        sorted(rating_pairs(list(rating), rating, {}, {}, 4, random.Random(1))) == [("a", "b"), ("c", "d")]
    # a, who played least, chooses first: b is 10 Elo away but met 3 times (+150), c is 100 away
    met = {frozenset("ab"): 3}
    played = {"a": 0, "b": 9, "c": 9, "d": 9}
    assert rating_pairs(list(rating), rating, met, played, 1, random.Random(1)) == [("a", "c")]
    assert rating_pairs(list(rating), rating, {frozenset("ab"): 1}, played, 1, random.Random(1)) == [("a", "b")]
    # the least-played bot is served first, and each bot plays at most once a batch
    pairs = rating_pairs(list(rating), rating, {}, {"d": 0, "a": 5, "b": 5, "c": 5}, 4, random.Random(2))
    assert pairs[0] == ("c", "d") and sorted(b for p in pairs for b in p) == ["a", "b", "c", "d"]


def test_a_batch_places_new_bots_founds_an_empty_ladder_and_leaves_out_those_who_left():
    founders = [_member(n, 0) for n in "abcd"]
    batch = draw_batch(founders, 0, {}, seed=1, placement=4, most=8)
    assert batch.founders == list("abcd") and not batch.placing and len(batch.pairings) == 2
    # batch 1: e joins; b left at batch 1
    members = [_member("a", 0), _member("b", 0, 1, "t"), _member("c", 0), _member("d", 0), _member("e", 1)]
    results_ = {0: ("a", "c", 1.0), 1: ("c", "a", 0.0), 2: ("d", "b", 0.0), 3: ("b", "d", 1.0)}
    batch = draw_batch(members, 1, results_, seed=1, placement=4, most=8)
    # only three rated bots are still in (c and d, each beaten twice, tie: their order is the fit's rounding)
    assert list(batch.placing) == ["e"] and sorted(batch.placing["e"]) == ["a", "c", "d"]
    assert all(p.placing for p in batch.pairings[:3]) and "b" not in {x for p in batch.pairings for x in (p.first, p.second)}
    assert [g[0] for g in batch.games()][:2] == [STRIDE, STRIDE + 1]
    # more newcomers than a batch holds: those that do not fit are placed in the next one
    crowd = members + [_member(f"n{k:03d}", 1) for k in range(200)]
    batch = draw_batch(crowd, 1, results_, seed=1, placement=4, most=8)
    assert len(batch.placing) == 166 and len(batch.waiting) == 200 - 165 and len(batch.games()) < STRIDE
    # a bot of the founding batch that sat out (an odd field) is placed once the others have games
    batch = draw_batch([_member(n, 0) for n in "abc"], 1, {0: ("a", "b", 1.0), 1: ("b", "a", 0.5)}, 1, 4, 8)
    assert batch.placing == {"c": ["a", "b"]}


@pytest.mark.processes
def test_bots_added_in_three_waves_end_in_their_true_order(tmp_path, capsys):
    db = str(tmp_path / "w.db")
    ps = [k / 11 for k in range(12)]
    waves = [[0, 5, 10, 3], [1, 6, 11, 8], [2, 7, 4, 9]]  # strengths interleaved across the waves
    for wave, budget in zip(waves, (40, 60, 100)):
        adds = [f"g{k:02d}=graded:p={ps[k]:.4f}" for k in wave]
        argv = ["ladder", db, "--add", *adds, "--games", str(budget), "--jobs", "2", "--no-progress",
                "--plugin", "tests.plugins.graded"]
        if wave is waves[0]:
            argv += ["--game", "connect4", "--budget", "nodes=300", "--openings", "2", "--no-isolation"]
        assert main(argv) == 0
    err = capsys.readouterr().err
    assert "no rated field to place against yet: g00, g05, g10, g03" in err and "placing g02 against" in err
    games = _games(db)
    assert len(games) == 200
    table = ladder_table(games, _config(db))
    truth = pd.Series({f"g{k:02d}": p for k, p in enumerate(ps)})
    rho = table["elo"].rank().corr(truth.reindex(table.index).rank())  # Spearman: Pearson's of the ranks
    assert rho >= 0.85, (rho, table)
    assert (table["games"] >= 8).all() and set(table["status"]) == {"active"}


@pytest.mark.processes
def test_a_killed_ladder_resumes_to_the_games_of_an_uninterrupted_one(tmp_path):
    bots = ["a=random", "b=greedy", "c=alphabeta:depth=2", "d=alphabeta:depth=4", "e=random"]
    whole = str(tmp_path / "whole.db")
    assert main(["ladder", whole, *FAST, "--add", *bots, "--games", "30", *QUIET]) == 0
    assert main(["ladder", whole, "--add", "f=greedy", "--games", "20", "--jobs", "2", "--no-progress"]) == 0
    cut = str(tmp_path / "cut.db")
    assert main(["ladder", cut, *FAST, "--add", *bots, "--games", "13", *QUIET]) == 0
    with sqlite3.connect(cut) as conn:  # killed: the last games of the batch in flight were never stored
        gone = conn.execute("SELECT game_id FROM games ORDER BY game_id DESC LIMIT 3").fetchall()
        for table in ("moves", "seats", "games"):
            conn.execute(f"DELETE FROM {table} WHERE game_id >= ?", (gone[-1][0],))
    assert main(["ladder", cut, "--games", str(17 + 3), *QUIET]) == 0
    assert main(["ladder", cut, "--add", "f=greedy", "--games", "20", *QUIET]) == 0
    columns = ["game_id", "first", "second", "result", "plies", "seed", "opening"]
    assert _games(whole)[columns].equals(_games(cut)[columns])
    assert "f" in set(_games(cut)["first"])


def test_removed_bots_play_no_more_and_their_games_still_count(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    assert main(["ladder", db, *FAST, "--add", "a=random", "b=greedy", "c=random", "d=greedy", "--games", "12", *QUIET]) == 0
    before = len(_games(db))
    assert main(["ladder", db, "--remove", "a", "--games", "0"]) == 0
    assert main(["ladder", db, "--games", "12", *QUIET]) == 0
    games = _games(db)
    left_batch = next(m for m in _config(db)["bots"] if m["name"] == "a")["left_batch"]
    later = games[games["game_id"] >= left_batch * STRIDE]
    assert len(later) == 12 and "a" not in set(later["first"]) | set(later["second"])
    table = ladder_table(games, _config(db))
    assert table.at["a", "status"] == "left" and table.at["a", "games"] == (games[["first", "second"]] == "a").any(axis=1).sum() > 0
    assert table.at["a", "left"] is not None and before == 12
    out = capsys.readouterr().out
    assert "left" in out and "joined" in out


@pytest.mark.processes
def test_a_bot_added_from_another_terminal_joins_the_running_ladder(tmp_path, capsys):
    db = str(tmp_path / "live.db")
    assert main(["ladder", db, *FAST, "--add", "a=random", "b=greedy", "c=random", "--games", "0"]) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runner = subprocess.Popen([sys.executable, "-m", "arena", "ladder", db, *QUIET], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _count(db):
            time.sleep(0.1)
        capsys.readouterr()
        assert main(["ladder", db, "--add", "z=alphabeta:depth=2"]) == 0  # records the join and leaves
        assert f"is running (process {runner.pid}); it picks up: added z at its next batch" in capsys.readouterr().out
        while time.monotonic() < deadline and not _count(db, "z"):
            time.sleep(0.1)
        assert _count(db, "z") > 0
    finally:
        runner.send_signal(signal.SIGINT)
        out, err = runner.communicate(timeout=60)
    assert runner.returncode == 130, err
    assert "placing z against" in err and f"run 'arena ladder {db}' again to resume" in err
    assert next(m for m in _config(db)["bots"] if m["name"] == "z")["from_batch"] > 0


def _count(db, bot=None) -> int:
    if not Path(db).exists():
        return 0
    with sqlite3.connect(db) as conn:
        if bot is None:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        return conn.execute("SELECT COUNT(*) FROM games WHERE first=? OR second=?", (bot, bot)).fetchone()[0]


def test_a_ladder_of_one_says_there_is_nothing_to_pair_then_plays_once_joined(tmp_path, capsys):
    db = str(tmp_path / "one.db")
    assert main(["ladder", db, *FAST, "--add", "a=random", "--games", "10", *QUIET]) == 0
    assert "nothing to pair in ladder 'ladder': fewer than two active bots (a)" in capsys.readouterr().err
    assert main(["ladder", db, "--add", "b=greedy", "--games", "4", *QUIET]) == 0
    assert len(_games(db)) == 4


@pytest.mark.parametrize("argv, message", [
    (["--remove", "zz"], "no bot 'zz' in ladder 'ladder'; members: a, b"),
    (["--add", "a=greedy"], "ladder 'ladder' has a bot 'a' already (random, joined"),
    (["--add", "c=nosuch"], "unknown bot 'nosuch' (arena bots lists them)"),
    (["--budget", "nodes=300"], "was created with other settings (--budget nodes=300 (stored nodes=200))"),
    (["--placement", "2"], "(--placement 2 (stored 4))"),
    (["--sandbox"], "(--sandbox (created without it))"),
    (["--name", "other"], "no ladder 'other' in"),
    (["--games", "-1"], "--games must be 0 or more"),
    (["--add", "x=random", "x=greedy"], "bot name 'x' is used twice ('random' and 'greedy')"),
])
def test_bad_input_is_one_line_naming_what_is_available(tmp_path, capsys, argv, message):
    db = str(tmp_path / "bad.db")
    assert main(["ladder", db, *FAST, "--add", "a=random", "b=greedy", "--games", "0"]) == 0
    capsys.readouterr()
    assert main(["ladder", db, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert [m["name"] for m in _config(db)["bots"]] == ["a", "b"]  # nothing recorded


def test_another_format_is_not_taken_for_a_ladder(tmp_path, capsys):
    db = str(tmp_path / "rr.db")
    assert main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--games", "2", "--budget",
                 "nodes=100", "--no-isolation", "--no-progress", "--jobs", "1", "--db", db, "--name", "ladder"]) == 0
    capsys.readouterr()
    assert main(["ladder", db, "--add", "c=random"]) == 2
    assert "is a round-robin tournament, not a ladder" in capsys.readouterr().err


def test_reports_and_listing_show_the_ladder(tmp_path, capsys):
    db = str(tmp_path / "rep.db")
    assert main(["ladder", db, *FAST, "--add", "a=random", "b=alphabeta:depth=4", "c=random", "--games", "12", *QUIET]) == 0
    capsys.readouterr()
    assert main(["report", db, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["ladder"]
    assert [r["bot"] for r in rows][0] == "b" and {"rank", "elo", "elo_low", "elo_high", "games", "joined", "left",
                                                   "status"} <= set(rows[0])
    assert data["about"]["format"] == "ladder" and data["about"]["scheduled"] is None
    assert main(["report", db, "--format", "csv"]) == 0
    assert "joined" in capsys.readouterr().out
    assert main(["list", db]) == 0
    out = capsys.readouterr().out
    assert "ladder  tictactoe  12 " in out and "partial" not in out
    assert main(["ladder", db, "--add", "d=greedy", "--games", "0"]) == 0
    assert ladder_table(_games(db), _config(db)).at["d", "status"] == "joining"
    pytest.importorskip("jinja2", reason="the HTML report needs Jinja2")
    assert main(["report", db, "--html", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert 'id="ladder-table"' in page and "Joined (UTC)" in page and '<a href="#ladder">Ladder</a>' in page


@pytest.mark.processes
@needs_bwrap
def test_a_sandboxed_ladder_runs_every_bot_under_bubblewrap_and_says_so(tmp_path, capsys):
    db = str(tmp_path / "box.db")
    assert main(["ladder", db, "--game", "tictactoe", "--budget", "nodes=100", "--sandbox", "--add", "a=random",
                 "b=greedy", "--games", "4", *QUIET]) == 0
    config = _config(db)
    assert config["sandbox"] is True and config["settings"]["sandbox"] is True
    assert "sandboxed (bubblewrap)" in capsys.readouterr().out
    assert main(["ladder", db, "--add", "c=random", "--games", "4", *QUIET]) == 0  # stays sandboxed
    assert "sandboxed (bubblewrap)" in capsys.readouterr().out
    assert len(_games(db)) == 8


def test_a_sandbox_without_isolation_is_refused_in_one_line(tmp_path, capsys):
    assert main(["ladder", str(tmp_path / "x.db"), *FAST, "--sandbox", "--add", "a=random", "b=greedy"]) == 2
    err = capsys.readouterr().err
    assert "--sandbox needs isolation" in err and err.count("\n") == 1


@pytest.mark.processes
def test_a_ladder_stopped_by_the_file_size_limit_resumes_with_the_command_it_names(tmp_path):
    # a full disk, as a file size limit: the database cannot grow past 160 KiB
    db = str(tmp_path / "full.db")
    command = [sys.executable, "-m", "arena", "ladder", db, *FAST, "--add", "a=random", "b=greedy", "c=random",
               "--games", "400", *QUIET]
    limit = "import resource, subprocess, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (160 << 10, 160 << 10)); "
    limit += "sys.exit(subprocess.run(sys.argv[1:]).returncode)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", limit, *command], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    said = done.stderr.strip().splitlines()[-1]
    assert "file size limit" in said and " games are stored" in said and " of 0 games" not in said, said
    assert "run the same command again to resume" in said
    before = _count(db)
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)  # the same command, as it says
    assert again.returncode == 0, again.stderr
    assert "has a bot" not in again.stderr and _count(db) > before


@pytest.mark.processes
def test_a_ladder_on_a_dask_cluster_plays_the_games_of_one_on_this_machine(tmp_path):
    pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    bots = ["a=random", "b=greedy", "c=alphabeta:depth=2", "d=random"]
    here, there = str(tmp_path / "here.db"), str(tmp_path / "there.db")
    assert main(["ladder", here, *FAST, "--add", *bots, "--games", "16", *QUIET]) == 0
    assert main(["ladder", there, *FAST, "--add", *bots, "--games", "16", "--no-progress", "--jobs", "2",
                 "--dask", "local"]) == 0
    columns = ["game_id", "first", "second", "result", "plies"]
    local, cluster = (_games(db)[columns].sort_values("game_id").reset_index(drop=True) for db in (here, there))
    assert len(local) == 16 and local.equals(cluster)
