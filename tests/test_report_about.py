"""Every report names the tournament it describes, fits a terminal, and says when it is partial."""

import io
import json
import pickle
import pydoc

import pandas as pd
import pytest

import results
from arena import Budget, MoveRecord, Termination, get_registry, play_game
from arena.front.settings import DEFAULT_SETTINGS
from arena.records import GameRecord
from results.about import About
from results.report import FORMATS, render, report, write, write_file
from report_data import LONG, config, store_tournament


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    """12 games scheduled (3 pairings x 4), 5 stored."""
    db = tmp_path_factory.mktemp("about") / "partial.db"
    store_tournament(db, config(), played=5)
    return db


def test_load_gives_what_the_tables_describe_and_still_unpacks_as_a_pair(partial):
    tables = results.load(partial)
    games, moves = tables  # the public API: a pair
    assert len(games) == 5 and len(tables) == 2
    about = tables.about
    assert about.name == "ttt-small" and about.game == "tictactoe"
    assert [str(b) for b in about.bots] == ["rnd=random@nodes=100", "ab=alphabeta:depth=2@nodes=50", "greedy@nodes=100"]
    assert (about.format, about.games_per_pairing, about.openings, about.seed) == ("round-robin", 4, 1, 7)
    assert about.version == "0.1.0" and about.started[:2] == "20"
    assert (about.finished, about.scheduled, about.partial) == (5, 12, True)
    assert about.completion == "5 of 12 games (partial)"
    assert pickle.loads(pickle.dumps(tables)).about == about


def _expected(about: About) -> list[str]:
    """What every format must say: name, game, bots with budgets, format, games per pairing,
    openings, seed, date, version and completion."""
    return [
        about.name, about.game, *(b.name for b in about.bots), "nodes=100", "nodes=50", "round-robin", "4",
        "1", "7", about.started[:10], about.version, "5", "12",
    ]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_names_the_tournament_and_says_it_is_partial(partial, fmt):
    tables = results.load(partial)
    text = render(report(*tables), fmt, tables.about)
    about = tables.about
    if fmt == "json":
        head = json.loads(text)["about"]
        assert head["tournament"] == "ttt-small" and head["game"] == "tictactoe" and head["partial"] is True
        assert head["bots"][1] == {"name": "ab", "spec": "alphabeta:depth=2", "budget": "nodes=50"}
        assert (head["format"], head["games_per_pairing"], head["openings"], head["seed"]) == ("round-robin", 4, 1, 7)
        assert (head["finished"], head["scheduled"], head["version"]) == (5, 12, "0.1.0")
        assert head["started"] == about.started
        return
    if fmt == "csv":
        section = text.split("\n\n")[0]
        assert section.startswith("# about\n")
        items = pd.read_csv(io.StringIO(section.split("\n", 1)[1]), index_col=0)["value"].to_dict()
        assert items["tournament"] == "ttt-small" and items["completion"] == "5 of 12 games (partial)"
        assert items["bots"] == "rnd=random@nodes=100; ab=alphabeta:depth=2@nodes=50; greedy@nodes=100"
        assert items["partial"] in (True, "True") and items["started"] == about.started
        return
    head = text[: text.index("Standings")]
    for item in _expected(about):
        assert item in head, (item, head)
    assert "5 of 12 games (partial)" in head and "PARTIAL" in head
    assert "round-robin, 4 games per pairing, 1-ply random openings, seed 7" in head
    assert "rnd=random@nodes=100, ab=alphabeta:depth=2@nodes=50, greedy@nodes=100" in head.replace("\n  ", " ")


def test_a_complete_tournament_is_not_marked_partial(tmp_path):
    db = tmp_path / "full.db"
    store_tournament(db, config(games=2))
    tables = results.load(db)
    text = render(report(*tables), "text", tables.about)
    assert text.startswith("Tournament 'ttt-small': tictactoe, 6 of 6 games\n")
    assert "partial" not in text.lower()


def test_written_files_are_headed_too(partial, tmp_path):
    tables = results.load(partial)
    out = report(*tables)
    for fmt in ("text", "markdown", "html"):
        for path in write(out, fmt, tmp_path / fmt, tables.about):
            assert "ttt-small" in path.read_text() and "5 of 12 games" in path.read_text()
    paths = write(out, "csv", tmp_path / "csv", tables.about)
    assert paths[0].name == "about.csv" and "ttt-small" in paths[0].read_text()
    page = write_file(out, "html", tmp_path / "new" / "report.html", tables.about)
    assert page.read_text().count("<table>") == 6 and "<h1>Tournament &#x27;ttt-small&#x27;" in page.read_text()


def test_frames_describe_what_the_records_tell():
    registry = get_registry(entry_points=False)
    game = registry.game("nim:heaps=1,2")
    records = [
        play_game(game, [registry.bot("random"), registry.bot("greedy")], names=["r", "g"], seed=s,
                  budgets=[Budget(nodes=10), Budget(depth=2)])
        for s in range(3)
    ]
    tables = results.frames(records, tournament="mem")
    games, moves = tables
    about = tables.about
    assert (about.name, about.game, about.finished, about.scheduled, about.partial) == ("mem", "nim:heaps=1,2", 3, None, False)
    assert [str(b) for b in about.bots] == ["r@nodes=10", "g@depth=2"]
    text = render(report(games, moves), "text", about)
    assert text.startswith("Tournament 'mem': nim:heaps=1,2, 3 games\n") and "settings not recorded" in text


def _field_records(names: list[str], games: int = 4) -> list[GameRecord]:
    """Made-up games among ``names`` with large figures (every pair, both colours, one timeout)."""
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for k in range(games):
                first, second = (a, b) if k % 2 == 0 else (b, a)
                moves = tuple(MoveRecord(p, p % 2, "3", 123_456 + p, 12.345, 17, 0.5) for p in range(20))
                fault = k == 3
                out.append(GameRecord(
                    "connect4", (first, second), ("nodes=2000000", "time=0.25,depth=20"), k, (), moves,
                    (-1.0, 1.0) if fault or k == 1 else (0.0, 0.0),
                    Termination.TIMEOUT if fault else Termination.NORMAL, 0 if fault else None,
                ))
    return out


@pytest.mark.parametrize("names", [
    [e if isinstance(e, str) else e["name"] for e in DEFAULT_SETTINGS["bots"]],
    [f"{LONG},{k}" for k in range(5)],
    ["x" * 150, "y" * 150, "z"],
], ids=["default field", "long names", "very long names"])
def test_the_text_report_fits_100_columns(names):
    tables = results.frames(_field_records(names), tournament="a-tournament-with-a-rather-long-name")
    text = render(report(*tables), "text", tables.about)
    too_long = [line for line in text.splitlines() if len(line) > 100]
    assert not too_long, too_long
    assert text.count("Standings") >= 2  # the standings split in two
    for name in names[:2] if len(names[0]) < 90 else []:
        assert name in text  # names that fit are never cut


def test_help_results_lists_every_termination():
    page = pydoc.render_doc(results, renderer=pydoc.plaintext)
    for termination in Termination:
        assert f'"{termination.value}"' in page, termination
