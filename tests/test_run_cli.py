"""The tournament commands end to end: run, kill, resume, report, show."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import results
from arena.front.cli import main

ARENA = [sys.executable, "-m", "arena"]
SMALL = [
    "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--bot", "alphabeta:depth=9",
    "--budget", "nodes=2000", "--games", "2", "--openings", "1", "--jobs", "1", "--no-progress",
]


def stored(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT game_id FROM games").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


@pytest.mark.processes
def test_run_prints_the_report_and_stores_the_games(tmp_path, capsys):
    db = tmp_path / "r.db"
    code = main(["run", *SMALL, "--db", str(db), "--name", "small"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("Tournament 'small': tictactoe, 6 of 6 games\n") and "\nStandings: " in out
    assert "Crosstable" in out and "alphabeta:depth=9" in out
    assert f"6 of 6 games in '{db}' (tournament 'small'; 6 played now)" in out
    assert len(stored(db)) == 6


@pytest.mark.processes
def test_run_reports_anchored_ratings_and_refuses_a_malformed_anchor_before_any_game(tmp_path, capsys):
    db = tmp_path / "a.db"
    assert main(["run", *SMALL, "--db", str(db), "--name", "anchored", "--anchor", "random=0"]) == 0
    out, err = capsys.readouterr()
    table = results.load(db, "anchored").games
    assert "held at: random +0" in out and err == ""
    row = next(line for line in out.splitlines() if line.startswith("random "))
    assert row.split()[8] == "+0"  # the elo column
    code = main(["run", *SMALL, "--db", str(tmp_path / "b.db"), "--anchor", "random:0"])
    out, err = capsys.readouterr()
    assert code == 2 and "--anchor takes BOT=ELO" in err and not stored(tmp_path / "b.db")
    # a name that is no bot of the run: refused before any game
    code = main(["run", *SMALL, "--db", str(tmp_path / "c.db"), "--anchor", "rnd=0"])
    out, err = capsys.readouterr()
    assert code == 2 and "--anchor rnd: no such bot in this tournament; bots: " in err and err.count("\n") == 1
    assert not stored(tmp_path / "c.db") and len(table) == 6


@pytest.mark.processes
def test_progress_goes_to_stderr_only(tmp_path):
    db = tmp_path / "p.db"
    args = [a for a in SMALL if a != "--no-progress"]
    proc = subprocess.run([*ARENA, "run", *args, "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "6/6" in proc.stderr and "game/s" in proc.stderr
    assert "game/s" not in proc.stdout and proc.stdout.startswith("Tournament 'tictactoe-nodes=2000-")


@pytest.mark.processes
def test_toml_file_with_flags_overriding(tmp_path, capsys):
    config = tmp_path / "t.toml"
    config.write_text(
        """
name = "from-file"
game = "nim:heaps=1,2,3"
budget = "nodes=100"
games = 4
openings = 0
seed = 3
bots = [
  "random",
  { spec = "minimax:depth=none", name = "perfect" },
  { spec = "greedy", budget = { nodes = 5 } },
]
"""
    )
    db = tmp_path / "f.db"
    assert main(["run", str(config), "--db", str(db), "--games", "2", "--jobs", "1", "--no-progress"]) == 0
    capsys.readouterr()
    games, moves = results.load(db)
    assert set(games["first"]) | set(games.second) == {"random", "perfect", "greedy"}
    assert len(games) == 3 * 2  # --games 2 overrides the file's 4
    assert moves[moves.bot == "greedy"].nodes.max() <= 5
    with sqlite3.connect(db) as con:
        name, cfg = con.execute("SELECT name, config FROM tournaments").fetchone()
    cfg = json.loads(cfg)
    assert name == "from-file" and cfg["game"] == "nim:heaps=1,2,3" and cfg["seed"] == 3
    assert {b["name"]: b["budget"] for b in cfg["bots"]} == {"random": "nodes=100", "perfect": "nodes=100", "greedy": "nodes=5"}


@pytest.mark.processes
def test_sigkill_mid_tournament_then_resume_stores_every_game_once(tmp_path):
    db = tmp_path / "k.db"
    args = [
        *ARENA, "run", "--game", "connect4", "--bot", "iterative", "--bot", "alphabeta:depth=4", "--bot", "greedy",
        "--budget", "nodes=3000", "--games", "6", "--openings", "2", "--jobs", "1", "--no-progress", "--db", str(db),
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(stored(db)) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(stored(db))
    assert 3 <= partial < 18, "the run must be killed part-way"
    subprocess.run(args, check=True, timeout=300, stdout=subprocess.DEVNULL)
    ids = [r[0] for r in stored(db)]
    assert sorted(ids) == list(range(18))
    with sqlite3.connect(db) as con:
        per_game = con.execute("SELECT g.game_id, g.moves_first + g.moves_second, COUNT(m.ply) FROM games g "
                               "LEFT JOIN moves m USING (tournament_id, game_id) GROUP BY g.game_id").fetchall()
    assert all(expected == found for _, expected, found in per_game)  # no partial game


@pytest.mark.processes
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path):
    db = tmp_path / "c.db"
    args = [
        *ARENA, "run", "--game", "connect4", "--bot", "iterative", "--bot", "alphabeta:depth=4",
        "--budget", "nodes=3000", "--games", "20", "--jobs", "2", "--no-progress", "--db", str(db),
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(stored(db)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "run the same command again to resume" in err and "Traceback" not in err
    kept = len(stored(db))
    assert 2 <= kept < 20
    again = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0
    assert f"; {20 - kept} played now)" in again.stdout
    assert sorted(r[0] for r in stored(db)) == list(range(20))


@pytest.fixture
def finished_db(tmp_path):
    db = tmp_path / "done.db"
    assert main(["run", *SMALL, "--no-isolation", "--db", str(db)]) == 0  # in this process: the reports are the subject
    return db


@pytest.mark.parametrize("fmt, check", [
    ("csv", lambda out: "bot,games,wins" in out),
    ("markdown", lambda out: "| bot |" in out and "|---" in out.replace(" ", "")),
    ("json", lambda out: set(json.loads(out)) >= {"standings", "crosstable"}),
    ("html", lambda out: "<table" in out),
])
def test_report_formats(finished_db, capsys, fmt, check):
    capsys.readouterr()
    assert main(["report", str(finished_db), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert check(out), out[:500]


def test_report_writes_files_and_plots(finished_db, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the plots extra (matplotlib) is not installed")
    out_dir, plot_dir = tmp_path / "out", tmp_path / "plots"
    assert main(["report", str(finished_db), "--format", "csv", "--out", str(out_dir), "--plots", str(plot_dir)]) == 0
    written = capsys.readouterr().out.split()
    assert {p.rsplit("/", 1)[-1] for p in written if p.endswith(".csv")} >= {"standings.csv", "crosstable.csv"}
    pngs = list(plot_dir.glob("*.png"))
    assert len(pngs) == 3 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_show_replays_a_stored_game(finished_db, capsys):
    capsys.readouterr()
    assert main(["show", str(finished_db), "2"]) == 0
    out = capsys.readouterr().out
    games, moves = results.load(finished_db)
    row = games[games.game_id == 2].iloc[0]
    # players named as the game names them (tic-tac-toe: X moves first), never "first"
    assert out.startswith(f"{row['tournament']} game 2: X: {row['first']} vs O: {row['second']}")
    assert f"opening: {row['opening']}" in out
    assert out.count("\nmove ") == len(moves[moves.game_id == 2])
    assert out.count(f": X ({row['first']}) plays ") + out.count(f": O ({row['second']}) plays ") == out.count("\nmove ")
    assert f"result {row['result']} (normal)" in out


@pytest.mark.parametrize("argv, message", [
    (["show", "{db}", "99"], "no game 99 in tournament 'tictactoe-nodes=2000-"),
    (["show", "{db}", "99"], "; it has 6 finished games of 6 scheduled"),
    (["show", "{db}", "1", "--tournament", "nope"], "no tournament 'nope' in"),
    (["report", "{missing}"], "not found"),
    (["report", "{notdb}"], "is not a botarena results database"),
])
def test_report_and_show_errors_are_one_line(finished_db, tmp_path, capsys, argv, message):
    notdb = tmp_path / "notes.txt"
    notdb.write_text("hello, this is not SQLite\n" * 100)
    argv = [a.format(db=finished_db, missing=tmp_path / "missing.db", notdb=notdb) for a in argv]
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: ") and message in err and err.count("\n") == 1
