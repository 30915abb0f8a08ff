"""``arena sprt`` end to end: verdicts, pair order, resume after SIGKILL, validation, report."""

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

import results
from arena.front.cli import main
from results import sprt as stats
from results.sprt_report import PairWalk, pair_table, past_verdict, sprt_summary, summary_lines
from results.sprt_report import summary as report_summary
from results.store import Store
from tests.helpers import stored

ARENA = [sys.executable, "-m", "arena"]
C4 = ["--game", "connect4", "--elo0", "0", "--elo1", "50", "--no-progress"]
# depth 3 against depth 2 under 500 nodes: results that vary from pair to pair, and no
# verdict within 60 games (inconclusive), so the counts depend on every game
CLOSE = ["alphabeta:depth=3", "alphabeta:depth=2", *C4, "--budget", "nodes=500", "--max-games", "60"]


def summary(db, name=None):
    tables = results.load(db, name)
    with Store(db, create=False) as store:
        config = store.tournament(tables.about.name).config
    return sprt_summary(tables.games, config)


def counted(s):
    keys = ("verdict", "pairs", "games", "wins", "draws", "losses", "LL", "LD", "WL+DD", "WD", "WW", "llr")
    return {k: s[k] for k in keys}


@pytest.fixture(scope="module")
def stronger(tmp_path_factory):
    """One SPRT of a clearly stronger bot, run once for the tests that read it: (db, code, stdout, stderr)."""
    db = tmp_path_factory.mktemp("stronger") / "s.db"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["sprt", "alphabeta:depth=4", "alphabeta:depth=1", *C4, "--budget", "nodes=2000",
                     "--db", str(db), "--jobs", "2"])
    return db, code, out.getvalue(), err.getvalue()


@pytest.mark.processes
def test_a_clearly_stronger_bot_is_accepted_as_better(stronger):
    db, code, out, err = stronger
    assert code == 0, err
    s = summary(db)
    assert s["verdict"] == "H1" and s["pairs"] <= 300
    assert s["llr"] >= s["upper"] and s["llr_share"] >= 1
    assert "H1 accepted (alphabeta:depth=4 is better)" in out and f"LLR {s['llr']:.2f}" in out
    # the verdict is the first crossing: one pair fewer had not crossed
    walk = PairWalk(stats.SPRT(0, 50), "alphabeta:depth=4", s["pairs"] - 1)
    games = results.load(db).games
    for row in games.itertuples():
        walk.add(row.game_id, row.first, row.score_first)
    assert walk.pairs == s["pairs"] - 1 and walk.status.verdict is None
    with Store(db, create=False) as store:
        config = store.tournament().config
    assert config["format"] == "sprt"
    assert config["sprt"] == {"elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}


@pytest.mark.processes
def test_a_bot_against_its_identical_copy_is_not_accepted(tmp_path, capsys):
    db = tmp_path / "i.db"
    code = main(["sprt", "a=alphabeta:depth=2", "b=alphabeta:depth=2", *C4, "--budget", "nodes=300",
                 "--max-games", "40", "--db", str(db), "--jobs", "2"])
    assert code == 0, capsys.readouterr().err
    s = summary(db)
    assert s["verdict"] in ("H0", "inconclusive") and s["games"] <= 40
    assert s["llr"] < s["upper"]


@pytest.mark.processes
def test_the_verdict_and_counts_do_not_depend_on_the_jobs_and_a_rerun_plays_nothing(tmp_path, capsys):
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    assert main(["sprt", *CLOSE, "--db", str(one), "--jobs", "1"]) == 0
    assert main(["sprt", *CLOSE, "--db", str(two), "--jobs", "2"]) == 0
    first, second = summary(one), summary(two)
    assert first["verdict"] == "inconclusive" and first["pairs"] == 30  # --max-games 60
    assert counted(first) == counted(second)
    capsys.readouterr()
    before = stored(two)
    assert main(["sprt", *CLOSE, "--db", str(two), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "0 played now" in out and stored(two) == before and counted(summary(two)) == counted(second)


@pytest.mark.processes
def test_resume_after_sigkill_gives_the_same_verdict_and_counts(tmp_path):
    whole, killed = tmp_path / "whole.db", tmp_path / "killed.db"
    args = [*ARENA, "sprt", *CLOSE, "--jobs", "2"]
    proc = subprocess.Popen([*args, "--db", str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while stored(killed) < 12 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None and stored(killed) >= 12, "the run must be killed mid-way"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert stored(killed) < 60
    again = subprocess.run([*args, "--db", str(killed)], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert subprocess.run([*args, "--db", str(whole)], capture_output=True, text=True, timeout=120).returncode == 0
    assert counted(summary(killed)) == counted(summary(whole))


def test_pairs_count_in_pair_order_whatever_order_games_finish():
    test = stats.SPRT(0, 50)
    rng = __import__("random").Random(3)
    new_points = [rng.choice((0.0, 0.5, 1.0, 1.0)) for _ in range(400)]
    # game 2p: new moves first; 2p + 1: base does, and its score is the first player's
    games = [(i, "new", x) if i % 2 == 0 else (i, "base", 1.0 - x) for i, x in enumerate(new_points)]
    in_order, shuffled = PairWalk(test, "new", 200), PairWalk(test, "new", 200)
    for g in games:
        in_order.add(*g)
    mixed = games[:]
    rng.shuffle(mixed)
    for g in mixed:
        shuffled.add(*g)
    assert (in_order.verdict, in_order.counts, in_order.pairs) == (shuffled.verdict, shuffled.counts, shuffled.pairs)
    assert in_order.verdict == "H1"  # new scores 2/3 per game on average
    # the counts are the pentanomial counts of the first pairs, up to the deciding one
    points = [new_points[2 * p] + new_points[2 * p + 1] for p in range(in_order.pairs)]
    assert tuple(in_order.counts) == stats.pentanomial(points)
    assert stats.SPRT(0, 50).status(stats.pentanomial(points[:-1])).verdict is None
    # pair 0 counts only once both its games are in
    walk = PairWalk(test, "new", 200)
    assert walk.add(1, "base", 0.0) == 0 and walk.add(0, "new", 1.0) == 1 and walk.counts == [0, 0, 0, 0, 1]


def test_the_run_and_the_report_count_the_same_games_after_the_deciding_pair():
    # the games of the pairs after the deciding one, as they come in: some finished before the
    # verdict (later pairs, played in parallel), the rest in flight when it is reached
    test = stats.SPRT(0, 50)
    walk = PairWalk(test, "new", 100)
    game = lambda i: (i, "new", 1.0) if i % 2 == 0 else (i, "base", 0.0)  # new wins every game
    decides = next(p for p in range(1, 100) if test.status([0, 0, 0, 0, p]).verdict) - 1  # the deciding pair
    last = 2 * decides + 1
    for i in [*range(last), last + 1, last + 2, last + 3]:  # pair decides+1 and half of the next finish first
        walk.add(*game(i))
    assert not walk.over
    walk.add(*game(last))
    assert walk.verdict == "H1" and walk.pairs == decides + 1
    said = past_verdict(walk, in_flight=2)
    assert said == ("5 more games, after the deciding pair, do not count (3 finished, 2 in flight, finishing now): "
                    "they are stored but do not change the verdict")
    for i in (last + 4, last + 5):  # the games in flight are finished and stored
        walk.add(*game(i))
    lines = summary_lines(report_summary(walk, last + 6))
    assert ("5 more stored games, after the deciding pair, do not count: played in parallel with the pairs before "
            "it, they are stored but do not change the verdict") in lines
    assert past_verdict(PairWalk(test, "new", 100), 0) == ""


def _uncounted(text: str, pattern: str) -> int:
    found = re.findall(pattern, text)
    assert len(found) <= 1, text
    return int(found[0].replace(",", "")) if found else 0


@pytest.mark.processes
def test_a_stopped_sprt_and_its_report_name_the_same_uncounted_games(stronger):
    db, code, out, err = stronger
    assert code == 0, err
    s = summary(db)
    assert s["verdict"] == "H1"
    [verdict] = [line for line in err.splitlines() if line.startswith("arena: SPRT H1 accepted after ")]
    assert f"after {s['pairs']} pairs" in verdict
    announced = _uncounted(verdict, r"; ([\d,]+) more games, after the deciding pair, do not count")
    reported = _uncounted(out, r"\n([\d,]+) more stored games, after the deciding pair, do not count")
    assert announced == reported == s["uncounted_games"] == stored(db) - s["games"], (verdict, out)
    if announced:
        finished = _uncounted(verdict, r"\(([\d,]+) finished")
        flying = _uncounted(verdict, r"([\d,]+) in flight, finishing now")
        assert finished + flying == announced


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--elo0", "5", "--elo1", "5"], "elo0 must be less than elo1"),
        (["--alpha", "0"], "bad SPRT alpha=0.0; expected a number between 0 and 1"),
        (["--beta", "1"], "bad SPRT beta=1.0; expected a number between 0 and 1"),
        (["--alpha", "0.6", "--beta", "0.5"], "their sum must be less than 1"),
        (["--max-games", "7"], "max-games must be an even number of at least 2 (games come in pairs), got 7"),
        (["--max-games", "0"], "max-games must be an even number of at least 2"),
        (["--model", "bayes"], "invalid choice: 'bayes'"),
    ],
)
def test_bad_settings_are_one_line_and_exit_2(tmp_path, capsys, flags, message):
    code = main(["sprt", "random", "greedy", "--db", str(tmp_path / "v.db"), "--no-progress", *flags])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "v.db").exists()


@pytest.mark.processes
def test_bots_must_be_two_and_distinctly_named(tmp_path, capsys):
    assert main(["sprt", "random", "--db", str(tmp_path / "v.db")]) == 2
    assert "takes NEW and BASE" in capsys.readouterr().err
    assert main(["sprt", "random", "random", "--db", str(tmp_path / "v.db")]) == 2
    assert "bot name 'random' is used twice" in capsys.readouterr().err


@pytest.mark.processes
def test_settings_from_a_toml_file(tmp_path, capsys):
    path = tmp_path / "sprt.toml"
    db = tmp_path / "t.db"
    path.write_text(
        f'game = "tictactoe"\nnew = "alphabeta:depth=9"\nbase = "random"\nbudget = "nodes=2000"\n'
        f'elo0 = 0\nelo1 = 100\nalpha = 0.1\nbeta = 0.1\nmodel = "logistic"\nmax_games = 40\n'
        f'openings = 1\njobs = 1\ndatabase = "{db}"\n'
    )
    assert main(["sprt", str(path), "--no-progress"]) == 0, capsys.readouterr().err
    s = summary(db)
    assert (s["model"], s["elo1"], s["alpha"], s["new"], s["base"]) == ("logistic", 100, 0.1, "alphabeta:depth=9", "random")
    assert s["verdict"] == "H1"  # perfect play never loses tic-tac-toe to random moves
    path.write_text(path.read_text() + "games = 4\n")
    assert main(["sprt", str(path)]) == 2
    assert "unknown setting 'games'" in capsys.readouterr().err


@pytest.mark.processes
def test_report_json_and_csv_carry_the_numbers(tmp_path, capsys):
    db = tmp_path / "r.db"
    assert main(["sprt", *CLOSE, "--db", str(db), "--jobs", "2"]) == 0
    text = capsys.readouterr().out
    assert main(["report", str(db)]) == 0
    report = capsys.readouterr().out
    assert report.split("\n\n")[1] in text  # arena report prints the same verdict block
    assert main(["report", str(db), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (s,) = data["sprt"]
    games = results.load(db).games
    # recomputed here from the stored games: pairs are games 2p (new first) and 2p + 1
    new_points = [row.score_first if row.first == "alphabeta:depth=3" else 1 - row.score_first for row in games.itertuples()]
    pairs = [new_points[2 * p] + new_points[2 * p + 1] for p in range(30)]
    counts = stats.pentanomial(pairs)
    assert [s[k] for k in ("LL", "LD", "WL+DD", "WD", "WW")] == list(counts)
    assert s["llr"] == pytest.approx(stats.llr(counts, 0, 50)) and s["verdict"] == "inconclusive"
    assert s["elo"] == pytest.approx(stats.elo(counts).value) and s["los"] == pytest.approx(stats.los(counts))
    assert s["wins"] == new_points[:60].count(1.0) and s["draws"] == new_points[:60].count(0.5)
    assert (s["games"], s["pairs"], s["model"], s["lower"]) == (60, 30, "normalized", pytest.approx(stats.bounds(0.05, 0.05)[0]))
    assert main(["report", str(db), "--format", "csv"]) == 0
    csv = capsys.readouterr().out
    assert "# sprt\n" in csv and ",inconclusive," in csv and "WL+DD" in csv


@pytest.mark.processes
def test_report_pairs_of_a_round_robin(tmp_path, capsys):
    db = tmp_path / "rr.db"
    assert main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "alphabeta:depth=9", "--bot", "greedy",
                 "--games", "6", "--openings", "1", "--jobs", "1", "--no-progress", "--db", str(db)]) == 0
    capsys.readouterr()
    games = results.load(db).games
    table = pair_table(games)
    assert list(table.index) == ["random", "random", "alphabeta:depth=9"]
    assert (table["pairs"] == 3).all() and (table["unpaired"] == 0).all()
    row = table[table["opponent"] == "alphabeta:depth=9"].iloc[0]
    assert row["WW"] + row["WD"] == 0  # random never beats perfect play
    assert main(["report", str(db), "--pairs", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["LL"] + p["LD"] + p["WL+DD"] + p["WD"] + p["WW"] for p in data["pairs"]] == [3, 3, 3]


@pytest.mark.processes
def test_html_at_the_end_shows_the_verdict_the_command_printed(tmp_path, capsys):
    pytest.importorskip("jinja2", reason="the html extra (Jinja2) is not installed")
    db, page = tmp_path / "s.db", tmp_path / "sprt.html"
    code = main(["sprt", "alphabeta:depth=4", "alphabeta:depth=1", *C4, "--budget", "nodes=1000",
                 "--db", str(db), "--jobs", "1", "--html", str(page)])
    out, err = capsys.readouterr()
    assert code == 0, err
    s = summary(db)
    assert f"HTML report: {page}" in out
    text = page.read_text()
    state = {"H1": "accepted", "H0": "rejected"}.get(s["verdict"], "inconclusive")
    assert f'<section id="sprt" class="verdict {state}">' in text
    assert f"LLR <strong>{s['llr']:.2f}</strong>" in text


@pytest.mark.processes
def test_the_report_heading_names_the_roles_and_the_most_games(tmp_path, capsys):
    db = tmp_path / "s.db"
    assert main(["sprt", "new=alphabeta:depth=2", "base=random", *C4, "--budget", "nodes=200", "--max-games", "4",
                 "--db", str(db), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "sprt, at most 4 games per pairing" in out
    assert "SPRT new against base: " in out  # names that say their role are not repeated


@pytest.mark.processes
def test_arena_list_does_not_call_a_decided_sprt_partial(tmp_path, capsys):
    db = tmp_path / "s.db"
    assert main(["sprt", "alphabeta:depth=4", "alphabeta:depth=1", *C4, "--budget", "nodes=1000",
                 "--db", str(db), "--jobs", "1"]) == 0
    assert summary(db)["verdict"] == "H1"
    capsys.readouterr()
    assert main(["list", str(db)]) == 0
    out = capsys.readouterr().out
    assert "partial" not in out and "of 2,000" not in out, out


def test_a_game_that_could_not_be_played_is_not_counted_in_flight():
    from arena.formats.sprt import Sprt, TestWatcher
    from arena.front.tournament import Entrant, TournamentConfig
    from results.rows import GameRow
    from results.sprt import SPRT

    config = TournamentConfig(game="nim", bots=(Entrant("new", "random"), Entrant("base", "random")),
                              games_per_pairing=2, format=Sprt(SPRT(0, 5)))
    watcher = TestWatcher(config, [], 2)  # one pair at most: the first pair decides (inconclusive)
    handed = list(watcher.tasks(range(4)))  # four games in flight
    assert handed == [0, 1, 2, 3] and watcher.in_flight == 4
    watcher.failed(3)  # its worker died: it will not come back
    fields = dict.fromkeys(GameRow._fields)
    for game_id, score in ((0, 1.0), (1, 0.0)):  # new wins both
        watcher.add(GameRow(**{**fields, "game_id": game_id, "first": ("new", "base")[game_id % 2],
                               "second": ("base", "new")[game_id % 2], "score_first": score}))
    assert watcher.walk.over and watcher.in_flight == 1
    assert "1 in flight" in next(watcher.news())
