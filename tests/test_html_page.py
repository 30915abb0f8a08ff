"""The HTML report without a browser: boards drawn by the games, replays, pairs, the SPRT
verdict, the page's parts, the command line, and the template files a wheel must carry."""

import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from arena.errors import ArenaError
from arena.front.cli import main
from results.replay import board, pack, replay, unpack
from results.sprt import SPRT, pentanomial
from results.sprt_report import game_pairs
from arena.formats.sprt import sprt_box
from tests.report_data import config, store_tournament

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("spec, moves", [
    ("connect4", "4 4 3 5 3"), ("tictactoe", "a1 b2 c3"), ("othello", "d3 c5 f6"),
    ("connect4:columns=5,rows=4", "1 1 5"),
])
def test_svg_boards_hold_the_pieces_render_draws(registry, spec, moves):
    game = registry.game(spec)
    state = game.play(moves.split())
    picture = game.svg(state)
    shown = re.findall(r'data-piece="(.)"', picture)
    rows = [[t for t in line.split() if not t.isdigit()] for line in game.render(state).splitlines()]
    text = [c for row in rows if row and set(row) <= {"X", "O", "."} for c in row]  # the board's lines
    if not spec.startswith("connect4"):  # empty cells are holes in Connect Four only, elsewhere not drawn
        text = [c for c in text if c != "."]
    assert picture.startswith("<svg") and picture.endswith("</svg>") and "viewBox" in picture
    assert shown == text and shown.count("X") + shown.count("O") == len(moves.split()) + 4 * spec.startswith("othello")


def test_chess_draws_with_python_chess_and_other_games_have_no_picture(registry):
    pytest.importorskip("chess", reason="the chess extra (python-chess) is not installed")
    chess = registry.game("chess")
    assert chess.svg(chess.play(["e2e4"])).startswith("<svg")
    nim = registry.game("nim")
    assert nim.svg(nim.initial_state()) is None


def test_a_replay_has_every_ply_and_shares_fragments(registry):
    game = registry.game("nim:heaps=2,3")  # no svg: boards are its text render
    row = {"game_id": 3, "first": "a", "second": "b", "opening": "1:1", "result": "1-0", "termination": "normal",
           "message": "a wins"}
    moves = [{"ply": 1, "player": 1, "move": "1:1", "nodes": 5, "seconds": 0.5, "depth": None, "score": float("nan")},
             {"ply": 2, "player": 0, "move": "2:3", "nodes": 7, "seconds": 0.25, "depth": 2, "score": 1.0}]
    data = unpack(pack(replay(game, row, moves)))
    assert data["kind"] == "text" and data["error"] is None and len(data["boards"]) == 4
    assert board(data, 3) == game.render(game.play(["1:1", "1:1", "2:3"]))
    assert [m["player"] for m in data["moves"]] == [None, 1, 0] and data["moves"][1]["score"] is None
    broken = replay(game, row, moves[:1] + [{**moves[1], "move": "9:9"}])
    assert len(broken["boards"]) == 3 and "the boards stop at ply 2" in broken["error"]


def test_connect4_boards_pack_small(registry):
    game = registry.game("connect4")
    opening = "4 4 3 3 5 5 1 2 2 6 6 7 7 1".split()
    moves = [{"ply": k, "player": k % 2, "move": "1", "nodes": 1, "seconds": 0.0, "depth": 1, "score": 0.0}
             for k in range(len(opening), len(opening) + 3)]
    data = replay(game, {"game_id": 0, "first": "a", "second": "b", "opening": " ".join(opening), "result": "1-0",
                         "termination": "normal", "message": ""}, moves)
    one_board = len(game.svg(game.initial_state()))
    assert len(data["boards"]) == 18 and len(pack(data)) < 3 * one_board  # 18 boards in less than 3


@pytest.fixture
def ttt(tmp_path):
    db = tmp_path / "ttt.db"
    store_tournament(db, config(games=4))
    import results

    return db, results.load(db)


def test_pairs_are_one_opening_with_colours_swapped(ttt):
    games = ttt[1].games.set_index("game_id")
    pairs, unpaired = game_pairs(ttt[1].games)
    assert unpaired == [] and len(pairs) == len(games) // 2
    for a, b in pairs:
        assert (games.at[a, "first"], games.at[a, "second"]) == (games.at[b, "second"], games.at[b, "first"])
        assert games.at[a, "opening"] == games.at[b, "opening"]
    some = ttt[1].games[ttt[1].games.game_id != pairs[0][1]]
    assert game_pairs(some)[1] == [pairs[0][0]]


def sprt_games(pair_points: list[tuple[float, float]]) -> pd.DataFrame:
    """Games of 'new' against 'old', two per opening, 'new' first in the first: its points in each."""
    rows = []
    for k, (a, b) in enumerate(pair_points):
        rows.append({"game_id": 2 * k, "first": "new", "second": "old", "opening": str(k), "score_first": a})
        rows.append({"game_id": 2 * k + 1, "first": "old", "second": "new", "opening": str(k), "score_first": 1 - b})
    return pd.DataFrame(rows)


SPRT_TEST = {"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05, "model": "normalized"}


def sprt_config(pairs: int, **test) -> dict:
    """A stored SPRT tournament's config, as ``arena sprt`` records it."""
    return {"format": "sprt", "sprt": {**SPRT_TEST, **test}, "bots": [{"name": "new"}, {"name": "old"}],
            "games_per_pairing": 2 * pairs}


def test_sprt_box_counts_pairs_by_the_new_bots_points():
    games = sprt_games([(1, 1), (1, 0), (0.5, 0.5), (0, 0.5), (1, 0.5)])
    box = sprt_box(games, sprt_config(100))
    assert box["counts"] == (0, 1, 2, 1, 1) and box["candidate"] == "new" and box["unpaired"] == 0
    assert box["state"] == "running" and box["pairs"] == 5
    assert sprt_box(games, {**sprt_config(100), "format": "round-robin"}) is None
    assert sprt_box(games, sprt_config(5))["state"] == "inconclusive"  # every pair played, no bound crossed
    assert sprt_box(games.iloc[:-1], sprt_config(100))["pairs"] == 4  # a pair counts once both games are in


def test_sprt_box_accepts_and_rejects_and_stops_counting_at_the_verdict():
    strong = [(1, 1)] * 75 + [(1, 0.5)] * 60 + [(1, 0)] * 150 + [(0.5, 0)] * 30 + [(0, 0)] * 15
    box = sprt_box(sprt_games(strong), sprt_config(1000))
    assert box["state"] == "accepted"
    pairs = box["pairs"]
    assert 0 < pairs < len(strong) and box["unpaired"] == 2 * (len(strong) - pairs)
    assert box["counts"] == pentanomial(a + b for a, b in strong[:pairs])
    assert SPRT(**SPRT_TEST).status(pentanomial(a + b for a, b in strong[: pairs - 1])).verdict is None
    weak = [(1 - a, 1 - b) for a, b in strong]
    assert sprt_box(sprt_games(weak), sprt_config(1000))["state"] == "rejected"


def page_of(tables, game=None, config=None):
    pytest.importorskip("jinja2", reason="the html extra (Jinja2) is not installed")
    from results.html_report import html

    return html(tables, game, config)


def test_page_holds_every_part_and_escapes(ttt, registry):
    page = page_of(ttt[1], registry.game("tictactoe"))
    for part in ('id="standings-table"', 'class="heatmap"', 'id="colours-table"', 'id="faults-table"',
                 'id="games-table"', 'id="replay-data"', "Games as X", "Score rate as O", 'class="legend"'):
        assert part in page
    listed = json.loads(re.search(r'id="games-data">(.*?)</script>', page).group(1))  # the script draws the list
    assert len(listed["groups"]) == len(ttt[1].games) // 2 and sorted(listed["id"]) == sorted(ttt[1].games["game_id"])
    for fetch in (r" src=", r"<link", r'href="(?!#)', r"url\((?!#)", r"@import"):  # nothing loads from elsewhere
        assert not re.search(fetch, page), fetch
    data = re.search(r'id="replay-data">(.*?)</script>', page).group(1)
    assert len(re.findall(r'"\d+":', data)) == len(ttt[1].games)


def test_page_without_the_game_or_matplotlib_says_so(ttt, monkeypatch):
    import results.plots

    def missing():
        raise ArenaError("plots need matplotlib: pip install 'botarena[plots]'")

    monkeypatch.setattr(results.plots, "check_matplotlib", missing)
    page = page_of(ttt[1])
    assert "Charts are not drawn: plots need matplotlib" in page
    assert "Games cannot be replayed here: the game &#39;tictactoe&#39; is not available here" in page
    assert 'class="replay"' not in page


def test_page_of_an_sprt_run_has_its_verdict_box(ttt):
    tables = ttt[1]
    games = tables.games.assign(score_first=1.0 * (tables.games["first"] == "ab") + 0.5 * (
        ~tables.games["first"].isin(["ab"]) & ~tables.games["second"].isin(["ab"])))
    cfg = {**sprt_config(len(games), elo0=-10, elo1=0), "bots": [{"name": "ab"}, {"name": "other"}]}
    page = page_of(type(tables)(games, tables.moves, tables.about), None, cfg)
    found = re.search(r'<section id="sprt" class="verdict (\w+)">(.*?)</section>', page, re.S)
    box = sprt_box(games, cfg)
    assert found.group(1) == box["state"] and f"LLR <strong>{box['llr']}</strong>" in found.group(2)
    assert "".join(f'<td class="num">{c}</td>' for c in box["counts"]) in found.group(2)


def test_page_needs_jinja(ttt, monkeypatch):
    import sys

    from results.html_report import html

    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(ArenaError, match=r"needs Jinja2: pip install 'botarena\[html\]'"):
        html(ttt[1])


def test_cli_writes_the_page_one_way_and_refuses_a_directory(ttt, tmp_path, capsys):
    pytest.importorskip("jinja2", reason="the html extra (Jinja2) is not installed")
    db, page, other = str(ttt[0]), tmp_path / "r.html", tmp_path / "out" / "same.html"
    assert main(["report", db, "--html", str(page)]) == 0
    assert main(["report", db, "--format", "html", "--out", str(other)]) == 0
    assert capsys.readouterr().out.split() == [str(page), str(other)]
    assert page.read_text().startswith("<!DOCTYPE html>") and page.read_text() == other.read_text()
    for argv, message in [
        (["--html", str(tmp_path)], "--html takes a file name (e.g. report.html), not the directory"),
        (["--format", "html", "--out", f"{tmp_path}/dir/"], "the HTML report is one file, not a directory"),
        (["--html", f"{page}/x.html"], "is a file, not a directory"),
    ]:
        assert main(["report", db, *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_package_data_declares_the_template_files():
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = settings["package-data"]["results"]
    files = [p.relative_to(ROOT / "results").as_posix() for d in ("templates", "static")
             for p in (ROOT / "results" / d).iterdir()]
    assert {"templates/report.html.j2", "static/report.css", "static/report.js"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} is not in package-data"
    assert "jinja2>=3.1" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["html"]
