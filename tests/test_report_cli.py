"""arena list, arena show's budgets, and where arena report writes (or refuses to)."""

import json
import sys

import pytest

import results
from arena.front.cli import main
from report_data import config, store_tournament


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """Two tournaments: 'full' (6 of 6 games, game 1 lost by a timeout of its first player,
    game 4 by an illegal move of its second) and, started later, 'ttt-small' (5 of 12)."""
    path = tmp_path_factory.mktemp("cli") / "two.db"
    store_tournament(path, config("full", games=2), faults={1: ("timeout", 0), 4: ("illegal_move", 1)})
    store_tournament(path, config(), played=5)
    return path


def run(capsys, *argv):
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, out, err, *parts):
    assert code == 2 and out == "" and err.startswith("arena: error: ") and err.count("\n") == 1, (code, out, err)
    for part in parts:
        assert part in err, (part, err)


def test_list_shows_the_tournaments(db, capsys):
    code, out, err = run(capsys, "list", db)
    assert code == 0, err
    header, full, small = out.splitlines()
    assert header.split() == ["name", "game", "games", "started", "bots"]
    assert full.split()[:5] == ["full", "tictactoe", "6", "of", "6"] and "partial" not in full
    assert small.split()[:6] == ["ttt-small", "tictactoe", "5", "of", "12", "(partial)"]
    assert small.endswith("rnd, ab, greedy")
    listed = json.loads(run(capsys, "list", db, "--json")[1])
    assert [(t["tournament"], t["finished"], t["scheduled"]) for t in listed] == [("full", 6, 6), ("ttt-small", 5, 12)]


def _ids(out):
    return [int(line.split()[0]) for line in out.splitlines()[2:]]


def test_list_shows_a_tournaments_games_filtered(db, capsys):
    games, _ = results.load(db, "full")
    code, out, err = run(capsys, "list", db, "--tournament", "full")
    assert code == 0, err
    assert out.startswith("Tournament 'full': tictactoe, 6 of 6 games; 6 listed\n")
    assert out.splitlines()[1].split() == ["game", "first", "second", "result", "ended", "plies"]
    assert _ids(out) == list(range(6))
    row = out.splitlines()[2 + 1].split()  # game 1: its first player timed out
    first = games.loc[1, "first"]
    assert row == ["1", first, games.loc[1, "second"], "0-1", "timeout", f"({first})", str(games.loc[1, "plies"])]
    rnd = games[(games["first"] == "rnd") | (games["second"] == "rnd")]
    assert _ids(run(capsys, "list", db, "--tournament", "full", "--bot", "rnd")[1]) == list(rnd.game_id)
    assert _ids(run(capsys, "list", db, "--tournament", "full", "--termination", "illegal_move")[1]) == [4]
    assert _ids(run(capsys, "list", db, "--tournament", "full", "--result", "0-1")[1]) == list(
        games[games["result"] == "0-1"].game_id)
    wins = [g for g, f, s, r in zip(games.game_id, games["first"], games["second"], games["result"])
            if (f, r) in (("rnd", "1-0"),) or (s, r) in (("rnd", "0-1"),)]
    assert _ids(run(capsys, "list", db, "--tournament", "full", "--bot", "rnd", "--result", "win")[1]) == wins
    latest = run(capsys, "list", db, "--games")[1]
    assert latest.startswith("Tournament 'ttt-small': tictactoe, 5 of 12 games (partial); 5 listed")
    listed = json.loads(run(capsys, "list", db, "--tournament", "full", "--json", "--termination", "timeout")[1])
    assert listed == [{"game_id": 1, "first": first, "second": games.loc[1, "second"], "result": "0-1",
                       "termination": "timeout", "loser": 0, "plies": int(games.loc[1, "plies"])}]


@pytest.mark.parametrize("argv, parts", [
    (["--bot", "nobody"], ["no bot 'nobody' in tournament 'ttt-small'; bots: rnd, ab, greedy"]),
    (["--result", "win"], ["--result win needs --bot"]),
    (["--termination", "bored"], ["invalid choice: 'bored'", "normal", "output"]),
    (["--tournament", "nope"], ["no tournament 'nope'", "full, ttt-small"]),
])
def test_list_errors_are_one_line(db, capsys, argv, parts):
    one_line_error(*run(capsys, "list", db, *argv), *parts)


def test_show_prints_the_budgets(db, capsys):
    games, _ = results.load(db, "full")
    code, out, err = run(capsys, "show", db, 0, "--tournament", "full")
    assert code == 0, err
    budgets = {"rnd": "nodes=100", "ab": "nodes=50", "greedy": "nodes=100"}
    first, second = games.loc[0, "first"], games.loc[0, "second"]
    assert out.splitlines()[1] == f"budgets: {first} {budgets[first]}, {second} {budgets[second]}"


# ---- where the report goes ---------------------------------------------------------------------

def test_out_with_an_extension_is_one_file_in_the_format_it_names(db, tmp_path, capsys):
    page = tmp_path / "report.html"
    code, out, err = run(capsys, "report", db, "--out", page)
    assert code == 0, err
    assert page.is_file() and out == f"{page}\n"
    assert page.read_text().startswith("<!DOCTYPE html>") and 'id="standings-table"' in page.read_text()
    page.write_text("old")
    assert run(capsys, "report", db, "--out", page, "--format", "html")[0] == 0  # an existing file is replaced
    assert "ttt-small" in page.read_text()
    text = tmp_path / "nested" / "report.txt"
    assert run(capsys, "report", db, "--out", text)[0] == 0
    assert text.read_text().startswith("Tournament 'ttt-small'") and "Crosstable" in text.read_text()
    plain = tmp_path / "notes"  # an existing file without an extension: a file in the format asked
    plain.write_text("")
    assert run(capsys, "report", db, "--out", plain, "--format", "json")[0] == 0
    assert json.loads(plain.read_text())["about"]["tournament"] == "ttt-small"


def test_out_naming_a_directory_gets_one_file_per_table(db, tmp_path, capsys):
    for target in (tmp_path / "new", f"{tmp_path / 'slash.html'}/"):
        code, out, err = run(capsys, "report", db, "--out", target, "--format", "markdown")
        assert code == 0, err
        assert [p.rsplit("/", 1)[1] for p in out.split()] == [
            "standings.md", "rating_model.md", "superiority.md", "crosstable.md", "colours.md", "terminations.md"]


@pytest.mark.parametrize("argv, parts", [
    (["--out", "{file}/report.html"], ["cannot write the report to", "'{file}' is a file, not a directory"]),
    (["--out", "{file}/deeper/r.txt"], ["'{file}' is a file, not a directory"]),
    (["--out", "{tmp}/r.html", "--format", "text"], ["ends in '.html' (format html) but --format is text", "--format html"]),
    (["--plots", "{file}"], ["--plots takes a directory", "'{file}' is a file"]),
    (["--plots", "{file}/charts"], ["'{file}' is a file"]),
    (["--plots", "{tmp}/chart.png"], ["'{tmp}/chart.png' looks like a file name"]),
])
def test_report_path_errors_are_one_line_and_write_nothing(db, tmp_path, capsys, argv, parts):
    file = tmp_path / "notes.txt"
    file.write_text("mine\n")
    argv = [a.format(file=file, tmp=tmp_path) for a in argv]
    one_line_error(*run(capsys, "report", db, *argv), *(p.format(file=file, tmp=tmp_path) for p in parts))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"] and file.read_text() == "mine\n"


def test_plots_without_matplotlib_fail_before_the_report(db, tmp_path, capsys, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)  # makes the import fail
    one_line_error(*run(capsys, "report", db, "--plots", tmp_path / "charts"), "pip install 'botarena[plots]'")
    assert not (tmp_path / "charts").exists()


def test_the_output_format_is_given_with_as_and_its_old_spelling_still_works(db, capsys):
    code, new, err = run(capsys, "report", db, "--as", "json")
    assert code == 0 and json.loads(new)
    assert run(capsys, "report", db, "--format", "json")[1] == new
    assert "--as FORMAT" in " ".join(run_help(capsys, "report").split()) and "--format" not in run_help(capsys, "report")
    code, out, err = run(capsys, "report", db, "--as", "yaml")
    assert code == 2 and "invalid choice: 'yaml'" in err and out == ""


def run_help(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


# ---- how the report shows ratings: --anchor and --los --------------------------------------------------

def test_anchor_holds_a_bots_elo_and_los_sizes_the_superiority_table(db, capsys):
    code, out, err = run(capsys, "report", db, "--tournament", "full", "--as", "json")
    assert code == 0, err
    free = {r["bot"]: r for r in json.loads(out)["standings"]}
    bots = sorted(free)
    code, out, err = run(capsys, "report", db, "--tournament", "full", "--as", "json",
                         "--anchor", f"{bots[0]}=1500", "--los", "2")
    assert code == 0, err
    document = json.loads(out)
    held = {r["bot"]: r for r in document["standings"]}
    shift = 1500 - free[bots[0]]["elo"]
    assert held[bots[0]]["elo"] == pytest.approx(1500) and held[bots[0]]["elo_low"] == pytest.approx(1500)
    for bot in bots[1:]:
        assert held[bot]["elo"] == pytest.approx(free[bot]["elo"] + shift, abs=1e-6)
    assert len(document["superiority"]) == 2
    model = {r["parameter"]: r for r in document["rating_model"]}
    assert model["anchors"]["meaning"] == f"held at: {bots[0]} +1500"
    code, out, err = run(capsys, "report", db, "--tournament", "full", "--los", "0")
    assert code == 0 and "Superiority" not in out and "Rating model" in out


def test_report_refuses_an_anchor_that_is_not_a_bot_in_one_line(db, capsys):
    games, _ = results.load(db, "full")
    bots = ", ".join(sorted(set(games["first"]) | set(games["second"])))
    one_line_error(*run(capsys, "report", db, "--tournament", "full", "--anchor", "nobody=0"),
                   f"--anchor nobody: no such bot in this tournament; bots: {bots}")
    one_line_error(*run(capsys, "report", db, "--anchor", "random"), "--anchor takes BOT=ELO (e.g. random=0), not 'random'")
    one_line_error(*run(capsys, "report", db, "--los", "-1"), "--los takes 0 (no table) or a number of bots from 2, not -1")
