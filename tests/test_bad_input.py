"""Bad input to ``arena run``: one clear line, exit code 2, no traceback, nothing written.

Each case runs the command line in-process, checks the one line on stderr and that no file
in the working folder was created or changed (an existing database is compared byte for
byte, with its -wal file), then calls the library API that the command line uses and checks
that it raises the documented error type with the very same message.
"""

import math
import os
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from arena import ParameterError, UnknownNameError, get_registry
from arena.front.cli import main
from arena.front.settings import ConfigError, build, settings
from arena.front.run import run_tournament
from arena.front.tournament import Entrant, TournamentConfig, make_schedule
from results.store import ConfigMismatch, Store, StoreError

BOTS = ("random", "greedy")


def argv(*extra, bots=BOTS, db="r.db"):
    """``arena run`` on a small tic-tac-toe tournament, then ``extra`` (a later flag wins)."""
    out = ["run", "--game", "tictactoe"]
    for bot in bots:
        out += ["--bot", bot]
    return out + ["--games", "2", "--jobs", "1", "--no-progress", "--db", db, *extra]


def from_settings(file=None, **overrides):
    """The library path of ``arena run``: settings, then build, then run_tournament."""
    values = dict(game="tictactoe", bots=list(BOTS), games=2, jobs=1, database="r.db")
    values.update(overrides)
    values = settings(file, values if file is None else overrides)
    values["progress"] = False
    config, run = build(values)
    return run_tournament(config, run)


def schedule(**changes):
    """make_schedule on a TournamentConfig built directly, as a library user would."""
    values = dict(game="tictactoe", bots=tuple(Entrant(b, b) for b in BOTS), games_per_pairing=2)
    values.update(changes)
    return make_schedule(TournamentConfig(**values), get_registry())


def write(name, text):
    return lambda folder: (folder / name).write_text(text)


def other_sqlite_database(folder):
    con = sqlite3.connect(folder / "other.db")
    con.execute("CREATE TABLE notes (body TEXT)")
    con.execute("INSERT INTO notes VALUES ('not a tournament')")
    con.commit()
    con.close()


def finished_tournament(folder):
    assert main(argv("--name", "t")) == 0


def finished_three_bots(folder):
    assert main(argv(bots=(*BOTS, "minimax:depth=1"))) == 0


@dataclass
class Case:
    id: str
    argv: list
    expect: list
    """Parts of the line after 'arena: error: ': the offending value and what is valid."""
    library: Callable[[], object]
    error: type
    setup: Callable[[Path], object] = field(default=lambda folder: None)


CASES = [
    # Tournament files
    Case("malformed-toml", ["run", "bad.toml", "--db", "r.db"],
         ["tournament file 'bad.toml' is not valid TOML: ", "(at line 2, column 8)"],
         lambda: settings("bad.toml"), ConfigError, write("bad.toml", 'name = "x"\ngame = tictactoe\n')),
    Case("toml-unknown-key", ["run", "typo.toml", "--db", "r.db"],
         ["unknown setting 'gmae' in 'typo.toml'; settings: name, game, bots, budget, tc, games, openings"],
         lambda: settings("typo.toml"), ConfigError, write("typo.toml", 'gmae = "tictactoe"\n')),
    Case("toml-bots-as-a-number", ["run", "num.toml", "--game", "tictactoe", "--db", "r.db"],
         ["bots must be a list of bot specs (or tables with spec, name, budget), got 3"],
         lambda: from_settings("num.toml"), ConfigError, write("num.toml", "bots = 3\n")),
    Case("toml-no-bots", ["run", "none.toml", "--game", "tictactoe", "--db", "r.db"],
         ["bots must be a list of bot specs (or tables with spec, name, budget), got []"],
         lambda: from_settings("none.toml"), ConfigError, write("none.toml", "bots = []\n")),
    Case("toml-unknown-format", ["run", "knockout.toml", *argv()[1:]],
         ["unknown format 'knockout'; formats: round-robin, gauntlet, sprt, swiss, race"],
         lambda: schedule(format="knockout"), ParameterError, write("knockout.toml", 'format = "knockout"\n')),
    Case("swiss-without-rounds", ["run", "swiss.toml", *argv()[1:]],
         ["rounds are for the swiss format, which needs them: --format swiss --rounds R"],
         lambda: schedule(format="swiss"), ParameterError, write("swiss.toml", 'format = "swiss"\n')),
    # Games, bots and their parameters
    Case("unknown-game", argv("--game", "tictactoo"),
         ["unknown game 'tictactoo'; did you mean 'tictactoe'", "(arena games lists them)"],
         lambda: schedule(game="tictactoo"), UnknownNameError),
    Case("unknown-bot", argv(bots=("random", "blunder")),
         ["unknown bot 'blunder' (arena bots lists them)"],
         lambda: schedule(bots=(Entrant("random", "random"), Entrant("blunder", "blunder"))), UnknownNameError),
    Case("unknown-game-parameter", argv("--game", "tictactoe:rowz=3"),
         ["unknown parameter 'rowz' for game 'tictactoe'; parameters: rows, columns, k"],
         lambda: schedule(game="tictactoe:rowz=3"), ParameterError),
    Case("unknown-bot-parameter", argv(bots=("random", "minimax:deep=3")),
         ["unknown parameter 'deep' for bot 'minimax'; parameters: depth"],
         lambda: schedule(bots=(Entrant("random", "random"), Entrant("m", "minimax:deep=3"))), ParameterError),
    Case("parameter-of-the-wrong-type", argv("--game", "tictactoe:rows=abc"),
         ["bad value 'abc' for parameter 'rows' of game 'tictactoe'; expected int"],
         lambda: schedule(game="tictactoe:rows=abc"), ParameterError),
    Case("parameter-out-of-range", argv(bots=("random", "minimax:depth=0")),
         ["bad value 0 for parameter 'depth' of bot 'minimax'; must be at least 1"],
         lambda: schedule(bots=(Entrant("random", "random"), Entrant("m", "minimax:depth=0"))), ParameterError),
    # Budgets
    Case("budget-of-zero", argv("--budget", "nodes=0"),
         ["budget: bad budget nodes=0; expected a whole number of at least 1"],
         lambda: from_settings(budget="nodes=0"), ConfigError),
    Case("budget-negative", argv("--budget", "time=-1"),
         ["budget: bad budget time=-1.0; expected seconds greater than 0"],
         lambda: from_settings(budget="time=-1"), ConfigError),
    Case("budget-unparseable", argv("--budget", "lots"),
         ["budget: bad budget 'lots'; expected nodes=N, time=SECONDS or depth=D, comma-separated"],
         lambda: from_settings(budget="lots"), ConfigError),
    Case("budget-value-unparseable", argv("--budget", "nodes=many"),
         ["budget: bad budget nodes='many'; expected a whole number"],
         lambda: from_settings(budget="nodes=many"), ConfigError),
    Case("bot-budget-of-zero", argv(bots=("random", "greedy@depth=0")),
         ["budget of bot 'greedy': bad budget depth=0; expected a whole number of at least 1"],
         lambda: from_settings(bots=["random", "greedy@depth=0"]), ConfigError),
    # The schedule
    Case("games-zero", argv("--games", "0"),
         ["games per pairing must be an even number of at least 2 (colours are swapped), got 0"],
         lambda: schedule(games_per_pairing=0), ParameterError),
    Case("games-negative", argv("--games", "-2"),
         ["games per pairing must be an even number of at least 2 (colours are swapped), got -2"],
         lambda: schedule(games_per_pairing=-2), ParameterError),
    Case("games-odd", argv("--games", "3"),
         ["games per pairing must be an even number of at least 2 (colours are swapped), got 3"],
         lambda: schedule(games_per_pairing=3), ParameterError),
    Case("one-bot", argv(bots=("random",)),
         ["a tournament needs at least two bots, got 1"],
         lambda: schedule(bots=(Entrant("random", "random"),)), ParameterError),
    Case("display-name-used-twice", argv(bots=("a=random", "a=greedy")),
         ["bot name 'a' is used twice ('random' and 'greedy'); give each its own display name: NAME=SPEC"],
         lambda: schedule(bots=(Entrant("a", "random"), Entrant("a", "greedy"))), ParameterError),
    Case("same-bot-twice-without-names", argv(bots=("random", "random")),
         ["bot name 'random' is used twice ('random' and 'random'); give each its own display name: NAME=SPEC"],
         lambda: schedule(bots=(Entrant("random", "random"), Entrant("random", "random"))), ParameterError),
    Case("gauntlet-without-challengers", argv("--format", "gauntlet"),
         ["a gauntlet needs challengers among the bots (random, greedy); got []"],
         lambda: schedule(format="gauntlet"), ParameterError),
    Case("challengers-in-a-round-robin", argv("--challenger", "random"),
         ["challengers are only for the gauntlet format"],
         lambda: schedule(challengers=("random",)), ParameterError),
    Case("openings-negative", argv("--openings", "-1"),
         ["opening plies must be 0 or more, got -1"],
         lambda: schedule(opening_plies=-1), ParameterError),
    Case("openings-too-many-for-the-game", argv("--openings", "12"),
         ["cannot find 12 opening plies in tictactoe that do not end the game; use fewer"],
         lambda: schedule(opening_plies=12), ParameterError),
    Case("time-margin-negative", argv("--time-margin", "-1"),
         ["time margin must be 0 or more seconds, got -1.0"],
         lambda: schedule(time_margin=-1.0), ParameterError),
    Case("jobs-zero", argv("--jobs", "0"),
         ["jobs must be a whole number of at least 1, got 0"],
         lambda: from_settings(jobs=0), ConfigError),
    # The database
    Case("database-in-a-missing-folder", argv(db="nodir/r.db"),
         ["cannot create results database 'nodir/r.db': no folder 'nodir'; create it first or choose another path"],
         lambda: Store("nodir/r.db"), StoreError),
    Case("database-path-is-a-folder", argv(db="sub"),
         ["'sub' is a folder, not a results database; give a file path, e.g. 'sub/arena-results.db'"],
         lambda: Store("sub"), StoreError, lambda folder: (folder / "sub").mkdir()),
    Case("database-under-a-file", argv(db="notes.txt/r.db"),
         ["cannot create results database 'notes.txt/r.db': 'notes.txt' is a file, not a folder"],
         lambda: Store("notes.txt/r.db"), StoreError, write("notes.txt", "hello\n")),
    Case("not-a-database", argv(db="notes.txt"),
         ["'notes.txt' is not a botarena results database (file is not a database); "
          "give a new file name or an existing results database"],
         lambda: Store("notes.txt"), StoreError, write("notes.txt", "hello, this is not SQLite\n" * 100)),
    Case("another-applications-database", argv(db="other.db"),
         ["'other.db' is not a botarena results database (no botarena schema; expected botarena-results/5); "
          "give a new file name or an existing results database"],
         lambda: Store("other.db"), StoreError, other_sqlite_database),
    Case("tournament-name-with-another-config", argv("--name", "t", "--seed", "2"),
         ["tournament 't' in 'r.db' was started with other settings (--seed differ); "
          "give a new name with --name, or use another database"],
         lambda: from_settings(name="t", seed=2), ConfigMismatch, finished_tournament),
    Case("tournament-name-with-another-budget-and-limit", argv("--name", "t", "--budget", "nodes=5", "--watchdog", "9"),
         ["tournament 't' in 'r.db' was started with other settings (--budget/--tc, --watchdog differ); "
          "give a new name with --name, or use another database"],
         lambda: from_settings(name="t", budget="nodes=5", watchdog=9), ConfigMismatch, finished_tournament),
    Case("fewer-bots-than-stored", argv(),
         ["tournament 'tictactoe-nodes=2000-", "' in 'r.db' already holds these games (--bot leaves out 'minimax:depth=1'): "
          "a smaller tournament plays nothing new; see it with 'arena report r.db --tournament tictactoe-nodes=2000-"],
         lambda: from_settings(), ConfigMismatch, finished_three_bots),
]


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` with its bytes (a -wal or -shm file left behind shows too)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def one_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), err
    return lines[0]


@pytest.mark.parametrize("case", [  # a case that plays a tournament first plays it in bots' processes
    pytest.param(c, id=c.id, marks=pytest.mark.processes if c.setup in (finished_tournament, finished_three_bots) else ())
    for c in CASES])
def test_bad_input_is_one_clear_line_and_writes_nothing(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # relative paths, and the default database would land here too
    case.setup(tmp_path)
    capsys.readouterr()
    before = snapshot(tmp_path)
    code = main(case.argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    line = one_line(err)
    for part in case.expect:
        assert part in line
    assert snapshot(tmp_path) == before, "bad input must write nothing"

    with pytest.raises(case.error) as info:
        case.library()
    assert f"arena: error: {info.value}" == line  # the library says exactly what the command line says
    assert snapshot(tmp_path) == before


def test_unknown_names_are_key_errors_and_bad_values_value_errors():
    assert issubclass(UnknownNameError, KeyError)
    assert issubclass(ParameterError, ValueError) and issubclass(ConfigError, ValueError)
    assert issubclass(ConfigMismatch, StoreError) and issubclass(ConfigMismatch, ValueError)


@pytest.mark.processes
@pytest.mark.parametrize("case_id", ["malformed-toml", "unknown-bot", "budget-unparseable", "not-a-database",
                                     "fewer-bots-than-stored",
                                     "tournament-name-with-another-config"])
def test_a_real_process_prints_one_line_and_no_traceback(case_id, tmp_path, monkeypatch, capsys):
    case = next(c for c in CASES if c.id == case_id)
    monkeypatch.chdir(tmp_path)
    case.setup(tmp_path)
    capsys.readouterr()
    before = snapshot(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "arena", *case.argv], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    line = one_line(proc.stderr)
    assert all(part in line for part in case.expect), line
    assert snapshot(tmp_path) == before


def test_a_time_margin_that_is_not_a_number(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = main(argv("--time-margin", "nan"))
    line = one_line(capsys.readouterr().err)
    assert code == 2 and "time margin must be 0 or more seconds, got nan" in line
    assert snapshot(tmp_path) == {}
    with pytest.raises(ParameterError) as info:
        schedule(time_margin=math.nan)
    assert f"arena: error: {info.value}" == line


# Paths without write permission. Root may write anywhere, so as root the command runs
# without the capabilities that let it ignore file permissions (setpriv, from util-linux).


def as_a_user():
    """A command prefix under which file permissions apply."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"] if setpriv else None
    if prefix is None or subprocess.run([*prefix, "true"]).returncode != 0:
        pytest.skip("running as root, and setpriv cannot drop the capability to ignore file permissions")
    return prefix


STORE_BY_LIBRARY = """
import sys
from results.store import Store, StoreError
try:
    Store(sys.argv[1])
except StoreError as exc:
    print(f"{type(exc).__name__}: {exc}")
"""


@pytest.mark.processes
@pytest.mark.parametrize("where, db, message", [
    ("folder", "locked/r.db",
     "cannot create results database 'locked/r.db': no permission to write in folder 'locked'; "
     "choose a path in a writable folder"),
    ("database", "r.db",
     "results database 'r.db' is read-only (no permission to write it); make it writable or choose another path"),
    ("database's folder", "locked/r.db",
     "cannot write results database 'locked/r.db': no permission to write in its folder 'locked', where SQLite "
     "keeps the -wal and -shm files; make it writable or choose another path"),
])
def test_a_database_path_that_cannot_be_written(tmp_path, monkeypatch, capsys, where, db, message):
    prefix = as_a_user()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "locked").mkdir()
    if where != "folder":
        assert main(argv("--name", "first", db=db)) == 0
        capsys.readouterr()
    locked = tmp_path / "locked" if where != "database" else tmp_path / db
    locked.chmod(0o555 if locked.is_dir() else 0o444)
    try:
        before = snapshot(tmp_path)
        proc = subprocess.run([*prefix, sys.executable, "-m", "arena", *argv("--name", "second", db=db)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and proc.stdout == ""
        assert one_line(proc.stderr) == f"arena: error: {message}"
        lib = subprocess.run([*prefix, sys.executable, "-c", STORE_BY_LIBRARY, db], capture_output=True, text=True,
                             timeout=60)
        assert lib.stdout == f"StoreError: {message}\n", lib.stderr
        assert snapshot(tmp_path) == before
    finally:
        locked.chmod(0o755 if locked.is_dir() else 0o644)
