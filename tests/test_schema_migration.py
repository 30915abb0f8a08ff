"""A results database made by the version before seats (schema 3) opens, gains its seats rows,
and reports exactly as that version reported it.

tests/data/schema3 holds the database (as SQL: a tic-tac-toe round-robin of three bots and a
Pig match, with its dice's key) and what that version's ``arena report`` (text, json, csv,
markdown, with ``--pairs``), ``arena list`` and ``arena show`` printed for it. Text is compared
byte for byte, numbers within ``tests.helpers.PRINTED_TOLERANCE`` (a report's CSV keeps a float's
full precision, whose last digits move with numpy, pandas and the CPU).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

import results
from arena.front.cli import main
from results.store import SCHEMA, Store
from tests.helpers import printed_differences

DATA = Path(__file__).parent / "data" / "schema3"
TOURNAMENTS = {"tictactoe": "tictactoe-nodes=2000-e3457e", "pig": "pig:goal=20-nodes=2000-49ba01"}
NEW_TABLES = ("payoff", "cycles")
"""Tables for scripts added since that version (results.cycles): json and csv have them."""


@pytest.fixture
def old_db(tmp_path):
    db = tmp_path / "schema3.db"
    con = sqlite3.connect(db)
    con.executescript((DATA / "dump.sql").read_text())
    con.close()
    return db


def printed(capsys, *argv) -> str:
    assert main(list(argv)) == 0
    out = capsys.readouterr().out
    return out


def test_the_old_database_is_of_schema_3_until_opened(old_db):
    con = sqlite3.connect(old_db)
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "botarena-results/3"
    assert "seats" not in {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    con.close()
    Store(old_db, create=False).close()
    con = sqlite3.connect(old_db)
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == SCHEMA == "botarena-results/5"
    # 5: the clock after each move, NULL in the games stored before
    assert "clock" in {r[1] for r in con.execute("PRAGMA table_info(moves)")}
    assert con.execute("SELECT COUNT(*) FROM moves WHERE clock IS NOT NULL").fetchone()[0] == 0
    con.close()


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown"])
@pytest.mark.parametrize("short", sorted(TOURNAMENTS))
def test_reports_are_as_the_old_version_printed_them(capsys, old_db, short, fmt):
    out = printed(capsys, "report", str(old_db), "--tournament", TOURNAMENTS[short], "--as", fmt, "--pairs")
    assert printed_differences(without_new_tables(out, fmt), (DATA / f"{short}.{fmt}").read_text()) == []


def test_the_comparison_sees_a_changed_word_integer_or_number_beyond_the_tolerance():
    before = "greedy,4,3,0.75,565.1802744028307,5e-10\nElo +12.5 +/- 3.0\n"
    assert printed_differences(before.replace("5028307", "5028308"), before) == []  # a full float's last digit
    assert printed_differences(before.replace("greedy", "greedx"), before)[0].startswith("line 1: text differs")
    assert printed_differences(before.replace(",4,", ",5,"), before) == ["5 where 4 was printed"]
    assert printed_differences(before.replace("565.18027", "565.18028"), before) == [
        "565.1802844028307 where 565.1802744028307 was printed"]
    # rounded by the report: printed exactly as before, sign, zeros and all
    assert printed_differences(before.replace("3.0", "3"), before) == ["3 where 3.0 was printed"]
    assert printed_differences(before.replace("0.75", "0.750"), before) == ["0.750 where 0.75 was printed"]
    assert printed_differences(before.replace("+12.5", "12.5"), before) == ["12.5 where +12.5 was printed"]
    assert printed_differences(before.replace("5e-10", "1e-15"), before) == ["1e-15 where 5e-10 was printed"]
    assert printed_differences(before + "more\n", before)[0].startswith("the printouts have")


def without_new_tables(text: str, fmt: str) -> str:
    """A report as that version would have printed it: ``NEW_TABLES`` taken out."""
    if fmt == "json":  # each table a top-level key, its records indented below it
        return re.sub(rf'  "({"|".join(NEW_TABLES)})": \[(\]|\n.*?\n  \]),\n', "", text, flags=re.S)
    if fmt == "csv":  # each table a "# name" section, ended by a blank line
        return re.sub(rf"# ({'|'.join(NEW_TABLES)})\n.*?\n\n", "", text, flags=re.S)
    return text


def test_list_and_show_are_as_before(capsys, old_db):
    assert printed_differences(printed(capsys, "list", str(old_db)), (DATA / "list.txt").read_text()) == []
    shown = printed(capsys, "show", str(old_db), "--tournament", TOURNAMENTS["pig"], "3")
    assert printed_differences(shown, (DATA / "show.txt").read_text()) == []


def test_the_seats_rows_are_derived_from_the_games(old_db):
    for short, name in TOURNAMENTS.items():
        tables = results.load(old_db, name)
        games, seats = tables.games, tables.seats
        assert len(seats) == 2 * len(games) and tables.players == 2
        for _, game in games.iterrows():
            rows = seats[seats.game_id == game.game_id].sort_values("seat")
            first, second = rows.iloc[0], rows.iloc[1]
            assert (first.bot, second.bot) == (game["first"], game["second"])
            assert (first.points, second.points) == (game.score_first, 1 - game.score_first)
            assert (first.utility, second.utility) == (game.utility_first, -game.utility_first)
            assert (first.moves, second.moves, first.nodes, second.nodes) == (
                game.moves_first, game.moves_second, game.nodes_first, game.nodes_second)
            assert sorted((first["rank"], second["rank"])) == ([1.5, 1.5] if game.score_first == 0.5 else [1.0, 2.0])
            assert (first["rank"] < second["rank"]) == (game.score_first == 1)


@pytest.mark.processes
def test_the_migrated_database_grows_with_seats_for_its_new_games(capsys, old_db):
    name = TOURNAMENTS["tictactoe"]
    assert main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--bot", "minimax:depth=2",
                 "--games", "6", "--jobs", "1", "--no-progress", "--seed", "5", "--db", str(old_db)]) == 0
    capsys.readouterr()
    tables = results.load(old_db, name)
    assert len(tables.games) == 18 and len(tables.seats) == 36
