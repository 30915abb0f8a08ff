"""A damaged results database: every command says so in one line, exit 2, and leaves the file as it was."""

import hashlib
import sqlite3

import pytest

from arena.front.cli import main


@pytest.fixture(scope="module")
def damaged_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("damaged") / "games.db"
    assert main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--games", "200", "--jobs", "1",
                 "--no-isolation", "--no-progress", "--db", str(db)]) == 0  # in this process: the games only fill the file
    data = bytearray(db.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 4096] = b"\xab" * 4096  # garbage over pages in its middle, as a failing disk leaves it
    db.write_bytes(bytes(data))
    return db


@pytest.mark.parametrize("command", [["report"], ["report", "--format", "json"], ["report", "--format", "csv"],
                                     ["report", "--html", "{tmp}/r.html"], ["ladder", "--games", "1"]])
def test_a_damaged_database_is_named_in_one_line_and_left_untouched(damaged_db, command, tmp_path, capsys):
    before = hashlib.sha256(damaged_db.read_bytes()).hexdigest()
    capsys.readouterr()
    argv = [command[0], str(damaged_db), *(c.replace("{tmp}", str(tmp_path)) for c in command[1:])]
    code = main(argv)
    err = capsys.readouterr().err
    assert hashlib.sha256(damaged_db.read_bytes()).hexdigest() == before
    if command[0] == "ladder":  # it holds no ladder: said before any damaged page is read
        assert code == 2 and err.count("\n") == 1 and "no ladder" in err
        return
    assert code == 2 and err.count("\n") == 1, err
    assert f"results database {str(damaged_db)!r} is damaged (database disk image is malformed)" in err
    assert "left as it is" in err and ".recover" in err and "new file name" not in err


@pytest.mark.processes
def test_a_damaged_moves_table_read_through_pandas_is_named_in_one_line(tmp_path, capsys):
    # pandas' read_sql_query wraps SQLite's error in its own DatabaseError: the tables read there
    db = tmp_path / "games.db"
    assert main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--games", "20", "--jobs", "1",
                 "--no-progress", "--db", str(db)]) == 0
    with sqlite3.connect(db) as con:
        (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'moves'").fetchone()
        (size,) = con.execute("PRAGMA page_size").fetchone()
    con.close()
    data = bytearray(db.read_bytes())
    data[(root - 1) * size : root * size] = b"\xab" * size  # the moves table's first page, garbage
    db.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["report", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"results database {str(db)!r} is damaged (database disk image is malformed)" in err
