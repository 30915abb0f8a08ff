"""The run loop on its own, in this process (tests/test_tournament.py and test_batches.py run it
with workers): what a run reports, resuming, a game that fails, Ctrl-C, a watcher that stops
early, the lock a caller holds, a stored tournament played on, and the registry it checks against."""

import json
import re
import shutil
import sqlite3
import threading
from dataclasses import replace
from types import SimpleNamespace

import pytest
from tqdm import tqdm

import arena.front.run as run_module
from arena import Budget, get_registry
from arena.execution.pool import Failure
from arena.execution.sandbox import bubblewrap
from arena.formats.base import Watcher
from arena.formats.swiss import Swiss
from arena.front.growth import ConfigMismatch
from arena.front.run import run_registry, run_tournament
from arena.front.settings import RunSettings
from arena.front.openings import OpeningBook
from arena.front.tournament import Entrant, TournamentConfig, _legacy_seed, make_openings
import results
from arena.dice import seed_key
from results.runlock import RUN_LOCK_SUFFIX, RunLock
from results.store import Store

REGISTRY = get_registry(entry_points=False)


@pytest.fixture(autouse=True)
def thread_lock_only():
    """tqdm's bars take a lock that is also a multiprocessing semaphore; a test process forked
    from one that held it (a mutation runner's worker) would wait on it for ever. In one
    process a thread lock does the same work."""
    old = tqdm.get_lock()
    tqdm.set_lock(threading.RLock())
    yield
    tqdm.set_lock(old)


def config(**kw):
    bots = (Entrant("a", "random"), Entrant("b", "greedy"), Entrant("c", "random"))
    return TournamentConfig(game="tictactoe", bots=bots, budget=Budget(nodes=100), isolate=False, **kw)


def settings(tmp_path, **kw):
    return RunSettings(tmp_path / "r.db", jobs=1, progress=kw.pop("progress", False), **kw)


def stored_ids(db):
    with sqlite3.connect(db) as con:
        return sorted(i for (i,) in con.execute("SELECT game_id FROM games"))


class Made(list):
    asked: list
    pinned: list


class Executor:
    """The executor a run makes, in this process; ``fail`` game indexes come back as failures,
    ``stop_after`` games Ctrl-C is pressed."""

    def __init__(self, real, fail=(), stop_after=None):
        self.real, self.fail, self.stop_after = real, set(fail), stop_after
        self.closed, self.batches, self.seen = [], [], 0
        self.elsewhere = False

    def run(self, tasks):
        tasks = list(tasks)
        self.batches.append([t.index for t in tasks])
        for task in tasks:
            if self.stop_after is not None and self.seen == self.stop_after:
                raise KeyboardInterrupt
            self.seen += 1
            if task.index in self.fail:
                yield Failure(task.index, "the referee failed: boom")
            else:
                yield from self.real.run([task])

    def close(self, abort=False):
        self.closed.append(abort)
        self.real.close(abort)


@pytest.fixture
def executors(monkeypatch):
    """The executors runs make, in this process; ``options`` shape the next one, ``asked`` gets
    the (dask, jobs, plugins) each was made for."""
    made, options, asked, pinned = Made(), {}, [], []
    real = run_module.make_executor

    def make(dask, jobs, plugins, prepare, affinity=False):
        asked.append((dask, jobs, plugins))
        pinned.append(affinity)
        made.append(Executor(real(None, 1, plugins, prepare), **options))
        return made[-1]

    monkeypatch.setattr(run_module, "make_executor", make)
    made.asked, made.pinned = asked, pinned
    return made, options


def test_a_run_plays_every_game_stores_it_and_says_so(tmp_path, executors):
    made, _ = executors
    result = run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert (result.scheduled, result.already, result.played, result.complete) == (6, 0, 6, True)
    assert not result.interrupted and result.failed == [] and result.registry is REGISTRY
    assert result.config.name == result.tournament.name and result.config.name.startswith("tictactoe-nodes=100-")
    assert stored_ids(tmp_path / "r.db") == list(range(6)) and made[0].closed == [False]
    assert not (tmp_path / ("r.db" + RUN_LOCK_SUFFIX)).exists()
    again = run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert (again.already, again.played, again.complete) == (6, 0, True) and made[1].batches == [[]]


def test_a_game_that_cannot_be_played_is_reported_not_stored_and_played_next_time(tmp_path, executors, capsys):
    made, options = executors
    options["fail"] = {3}
    result = run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert [f.index for f in result.failed] == [3] and result.played == 5 and not result.complete
    assert stored_ids(tmp_path / "r.db") == [0, 1, 2, 4, 5]
    assert "arena: warning: game 3 could not be played: the referee failed: boom\n" in capsys.readouterr().err
    options["fail"] = set()
    again = run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert (again.already, again.played, again.complete) == (5, 1, True) and made[1].batches == [[3]]


def test_ctrl_c_keeps_every_finished_game_and_closes_the_workers_at_once(tmp_path, executors):
    made, options = executors
    options["stop_after"] = 4
    result = run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert result.interrupted and result.played == 4 and not result.complete
    assert stored_ids(tmp_path / "r.db") == [0, 1, 2, 3] and made[0].closed == [True]


def test_an_error_in_the_loop_closes_the_workers_at_once_and_keeps_what_was_played(tmp_path, executors, monkeypatch):
    made, _ = executors
    calls = []

    def failing(*args):
        calls.append(args)
        if len(calls) == 3:
            raise RuntimeError("a bug")

    monkeypatch.setattr(run_module.interrupt, "check", failing)
    with pytest.raises(RuntimeError, match="a bug"):
        run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert made[0].closed == [True] and stored_ids(tmp_path / "r.db") == [0, 1]


def test_a_bad_tournament_stops_the_workers_booting_beside_its_checks_and_stores_nothing(tmp_path, executors):
    made, _ = executors
    bad = replace(config(), bots=(Entrant("a", "random"), Entrant("b", "greedy:nonsense=1")))
    with pytest.raises(Exception, match="nonsense") as caught:
        run_tournament(bad, settings(tmp_path), registry=REGISTRY)
    assert not isinstance(caught.value, RuntimeError)  # the one clear error the check raises
    assert made[0].closed == [True] and made[0].batches == []  # made before the check, sent nothing, closed
    assert not (tmp_path / "r.db").exists() or stored_ids(tmp_path / "r.db") == []


@pytest.mark.parametrize("elsewhere", [True, False])
def test_preloaded_modules_load_beside_games_played_elsewhere_and_a_broken_one_harms_nothing(tmp_path, executors,
                                                                                            monkeypatch, elsewhere):
    import sys

    imported, import_all = [], run_module._import_all

    def record(names):
        imported.append((tuple(names), threading.current_thread() is threading.main_thread()))

    monkeypatch.setattr(run_module, "_import_all", record)
    real_make = run_module.make_executor

    def make(*args):
        executor = real_make(*args)
        executor.elsewhere = elsewhere
        return executor

    monkeypatch.setattr(run_module, "make_executor", make)
    result = run_tournament(config(), settings(tmp_path), registry=REGISTRY, preload=("results.tables",))
    assert result.played == 6
    # once, off the main thread, and done by the run's end; never beside games played in this process
    assert imported == ([(("results.tables",), False)] if elsewhere else [])
    sys.modules.pop("json.tool", None)
    import_all(("json.tool", "no_such_module_here"))  # raises nothing: the report's own import would say
    assert "json.tool" in sys.modules and "no_such_module_here" not in sys.modules


@pytest.mark.processes
def test_only_an_executor_of_worker_processes_plays_elsewhere():
    from arena.execution.executors import LocalExecutor
    from results.rows import game_rows

    alone, pool = LocalExecutor(1, (), game_rows), LocalExecutor(2, (), game_rows)
    try:
        assert (alone.elsewhere, pool.elsewhere) == (False, True)
    finally:
        alone.close()
        pool.close()


class Stopper(Watcher):
    """Stops after ``last`` games, and says so."""

    def __init__(self, stored, scheduled, last=2):
        super().__init__(stored, scheduled)
        self.last = last

    def rounds(self, todo, schedule):
        self.lines.append("arena: first batch")
        yield todo[: self.last]
        self.lines.append("arena: done")

    def add(self, game):
        self.lines.append(f"arena: game {game.game_id}")
        return super().add(game)

    def failed(self, index):
        self.lines.append(f"arena: lost game {index}")

    def postfix(self):
        return "the stopper's postfix"


def test_a_watcher_chooses_the_games_and_what_the_run_says(tmp_path, executors, capsys):
    made, options = executors
    options["fail"] = {1}
    result = run_tournament(config(), settings(tmp_path, progress=True), registry=REGISTRY,
                            watch=lambda stored, scheduled: Stopper(stored, scheduled, last=3))
    assert isinstance(result.watcher, Stopper) and result.played == 2 and not result.complete
    err = capsys.readouterr().err
    assert (err.index("arena: first batch") < err.index("arena: game 0") < err.index("arena: lost game 1")
            < err.index("arena: game 2") < err.index("arena: done"))
    assert result.config.name in err and "the stopper's postfix" in err  # the progress bar's heading and postfix


def test_a_round_made_as_results_come_in_is_played_and_stored(tmp_path, executors):
    made, _ = executors
    c = replace(config(), format=Swiss(2))
    result = run_tournament(c, settings(tmp_path), registry=REGISTRY)
    assert result.complete and result.played == 4 and len(made[0].batches) == 2  # a round a batch
    assert stored_ids(tmp_path / "r.db") == [0, 1, 2, 3]


def test_a_caller_holding_the_lock_keeps_it_and_the_run_names_itself_in_it(tmp_path, executors):
    db = tmp_path / "r.db"
    with RunLock(db) as lock:
        result = run_tournament(config(), settings(tmp_path), registry=REGISTRY, lock=lock)
        assert lock.fd is not None and (tmp_path / ("r.db" + RUN_LOCK_SUFFIX)).exists()
        assert f'"tournament": "{result.config.name}"' in (tmp_path / ("r.db" + RUN_LOCK_SUFFIX)).read_text()


def test_a_stored_tournament_is_played_on_as_it_is(tmp_path, executors):
    first = run_tournament(config(name="t"), settings(tmp_path), registry=REGISTRY,
                           watch=lambda stored, scheduled: Stopper(stored, scheduled, last=4))
    with Store(tmp_path / "r.db") as store:
        (stored,) = store.tournaments()
    result = run_tournament(config(name="t"), settings(tmp_path), registry=REGISTRY, stored=stored)
    assert (first.played, result.already, result.played) == (4, 4, 2) and result.tournament.name == "t"
    assert stored_ids(tmp_path / "r.db") == list(range(6))


def test_the_registry_given_serves_a_run_sandboxed_as_it_is_else_one_is_built(monkeypatch, capsys):
    assert run_registry((), config(), registry=REGISTRY) is REGISTRY
    asked = []

    def probed(plugins, **run):
        asked.append((plugins, run))
        return SimpleNamespace(errors=["plugin 'x' did not load: y"], sandboxed=run["sandboxed"])

    monkeypatch.setattr(run_module.probing, "registry", probed)
    sandboxed = replace(config(), limits=replace(config().limits, sandbox=True))
    built = run_registry(["p"], sandboxed, extra=[Entrant("d", "minimax")], registry=REGISTRY)
    assert built is not REGISTRY and built.sandboxed
    assert asked == [(("p",), {"sandboxed": True, "isolate": False, "game": "tictactoe",
                               "specs": ["random", "greedy", "random", "minimax"], "limits": sandboxed.limits})]
    assert capsys.readouterr().err == "arena: warning: plugin 'x' did not load: y\n"
    assert run_registry((), config()).sandboxed is False


def games(db):
    with sqlite3.connect(db) as con:
        return con.execute("SELECT game_id, first, second, opening, seed FROM games ORDER BY game_id").fetchall()


def test_a_run_without_a_registry_builds_one_and_hands_its_workers_the_plugins_given(tmp_path, monkeypatch):
    handed, real = [], run_module.make_executor

    def make(dask, jobs, plugins, prepare, affinity=False):
        handed.append(plugins)
        return real(dask, jobs, plugins, prepare)

    monkeypatch.setattr(run_module, "make_executor", make)
    result = run_tournament(config(), settings(tmp_path), plugins=["tests.plugins.misbehaving"])
    assert result.complete and handed == [("tests.plugins.misbehaving",)]
    assert result.registry.bot_class("illegal")  # the --plugin module's bots are in the registry built


def test_the_progress_bar_counts_the_whole_schedule_in_games_from_those_stored(tmp_path, executors, capsys):
    run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert capsys.readouterr().err == ""  # no progress asked for: no bar
    result = run_tournament(config(), settings(tmp_path, progress=True), registry=REGISTRY)  # all stored already
    err = capsys.readouterr().err
    assert result.watcher.total == 6 and "6/6 [" in err and result.config.name in err and "game/s]" in err


def test_openings_of_random_plies_are_played_and_stored(tmp_path, executors):
    result = run_tournament(config(opening_plies=2), settings(tmp_path), registry=REGISTRY)
    (opening,) = make_openings(REGISTRY.game("tictactoe"), 1, 2, 0)  # one round: one opening for every game
    assert result.complete and [g[3] for g in games(tmp_path / "r.db")] == [" ".join(opening)] * 6


def test_an_opening_that_sets_the_games_parameters_is_stored_with_them(tmp_path, executors):
    book = tmp_path / "book.txt"
    book.write_text("[heaps=5] 1:2\n1:1\n")
    c = TournamentConfig("nim", bots=(Entrant("a", "random"), Entrant("b", "greedy")), budget=Budget(nodes=100),
                         isolate=False, games_per_pairing=4, opening_book=OpeningBook.read(str(book)))
    result = run_tournament(c, settings(tmp_path), registry=REGISTRY)
    assert result.complete and [g[3] for g in games(tmp_path / "r.db")] == ["[heaps=5] 1:2"] * 2 + ["1:1"] * 2


def test_a_grown_tournament_keeps_its_games_and_plays_the_new_ones(tmp_path, executors):
    # a and c first, b added between them: the games of a and c keep numbers 0 and 1
    two = TournamentConfig("tictactoe", bots=(Entrant("a", "random"), Entrant("c", "random")), budget=Budget(nodes=100),
                           isolate=False, name="t")
    run_tournament(two, settings(tmp_path), registry=REGISTRY)
    before = games(tmp_path / "r.db")
    grown = run_tournament(replace(config(), name="t"), settings(tmp_path), registry=REGISTRY)
    assert (grown.already, grown.played, grown.scheduled, grown.complete) == (2, 4, 6, True)
    after = games(tmp_path / "r.db")
    assert after[:2] == before and len(after) == 6
    with Store(tmp_path / "r.db") as store:
        (stored,) = store.tournaments()
    assert stored.scheduled == 6 and [b["name"] for b in stored.config["bots"]] == ["a", "b", "c"]
    assert [g[1:3] for g in after] == [("a", "c"), ("c", "a"), ("a", "b"), ("b", "a"), ("b", "c"), ("c", "b")]


def test_a_tournament_stored_before_schedules_could_grow_plays_its_games_by_number(tmp_path, executors):
    first = run_tournament(config(name="t"), settings(tmp_path), registry=REGISTRY,
                           watch=lambda stored, scheduled: Stopper(stored, scheduled, last=2))
    with sqlite3.connect(tmp_path / "r.db") as con:  # as an early version stored it: no schedule
        (text,) = con.execute("SELECT config FROM tournaments").fetchone()
        stored = json.loads(text)
        del stored["schedule"]
        con.execute("UPDATE tournaments SET config = ?", (json.dumps(stored),))
    result = run_tournament(config(name="t"), settings(tmp_path), registry=REGISTRY)
    assert (first.played, result.already, result.played) == (2, 2, 4)
    assert [g[4] for g in games(tmp_path / "r.db")[2:]] == [_legacy_seed(0, i) for i in range(2, 6)]


def test_a_stored_tournament_given_is_played_whatever_the_config_is_named(tmp_path, executors):
    run_tournament(config(name="t"), settings(tmp_path), registry=REGISTRY,
                   watch=lambda stored, scheduled: Stopper(stored, scheduled, last=3))
    with Store(tmp_path / "r.db") as store:
        (stored,) = store.tournaments()
    result = run_tournament(config(name="u"), settings(tmp_path), registry=REGISTRY, stored=stored)
    assert result.tournament.name == "t" and (result.already, result.played) == (3, 3)
    with Store(tmp_path / "r.db") as store:
        assert [t.name for t in store.tournaments()] == ["t"]


def test_a_run_checks_its_bots_by_their_short_names(tmp_path, executors, monkeypatch):
    seen = []
    real = run_module.with_short_names

    def spy(config, registry):
        seen.append(registry)
        return real(config, registry)

    monkeypatch.setattr(run_module, "with_short_names", spy)
    run_tournament(config(), settings(tmp_path), registry=REGISTRY)
    assert seen == [REGISTRY]


def test_a_run_on_dask_asks_for_its_executor(tmp_path, executors):
    made, _ = executors
    run_tournament(config(), RunSettings(tmp_path / "r.db", jobs=3, dask="tcp://scheduler:8786", progress=False),
                   registry=REGISTRY, plugins=["tests.plugins.misbehaving"])
    # an unsandboxed run's workers import the plugins given, whatever the registry given was built from
    assert REGISTRY.plugins == () and made.asked == [("tcp://scheduler:8786", 3, ("tests.plugins.misbehaving",))]


def test_a_changed_config_under_a_stored_name_is_refused_naming_the_database(tmp_path, executors):
    run_tournament(config(name="t"), settings(tmp_path), registry=REGISTRY)
    with pytest.raises(ConfigMismatch, match=re.escape(f"tournament 't' in '{tmp_path / 'r.db'}' was started with other")):
        run_tournament(replace(config(name="t"), budget=Budget(nodes=7)), settings(tmp_path), registry=REGISTRY)


def test_an_sprt_is_followed_by_its_test_from_the_runs_config(tmp_path, executors):
    from arena.formats.sprt import Sprt, TestWatcher
    from results.sprt import SPRT

    c = TournamentConfig("tictactoe", bots=(Entrant("new", "greedy"), Entrant("base", "random")), budget=Budget(nodes=50),
                         isolate=False, games_per_pairing=4, format=Sprt(SPRT(0.0, 5.0, 0.05, 0.05, "normalized")))
    result = run_tournament(c, settings(tmp_path), registry=REGISTRY)
    assert isinstance(result.watcher, TestWatcher) and result.watcher.total == 2 and result.played == 4


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="a sandboxed run needs bubblewrap (Debian: apt install bubblewrap)")
def test_a_sandboxed_run_hands_its_workers_the_registrys_plugins_not_the_ones_given(tmp_path, executors, monkeypatch):
    made, options = executors
    options["fail"] = set(range(6))  # nothing is played: only what the workers are handed matters
    probed = []  # bubblewrap's own probe starts a sandbox: tests/test_sandbox.py runs it
    monkeypatch.setattr(bubblewrap, "check", lambda: probed.append(True))

    class Sandboxed:
        sandboxed, plugins = True, ("the_games_plugin",)

        def __getattr__(self, name):
            return getattr(REGISTRY, name)

        def host_table(self, entrants):
            return {e.spec: () for e in entrants}

    sandboxed = replace(config(), isolate=True, limits=replace(config().limits, sandbox=True))
    result = run_tournament(sandboxed, settings(tmp_path), plugins=["given"], registry=Sandboxed())
    assert made.asked == [(None, 1, ("the_games_plugin",))] and len(result.failed) == 6 and probed == [True]


def test_an_opening_of_a_round_paired_as_results_come_in_is_stored_with_its_parameters(tmp_path, executors):
    book = tmp_path / "book.txt"
    book.write_text("[heaps=5] 1:2\n1:1\n")
    c = TournamentConfig("nim", bots=(Entrant("a", "random"), Entrant("b", "greedy")), budget=Budget(nodes=100),
                         isolate=False, format=Swiss(2), opening_book=OpeningBook.read(str(book)))
    result = run_tournament(c, settings(tmp_path), registry=REGISTRY)
    assert result.complete and [g[3] for g in games(tmp_path / "r.db")] == ["[heaps=5] 1:2"] * 2 + ["1:1"] * 2


def test_a_run_asks_for_its_workers_pinned_to_cores_only_when_told_to(tmp_path, executors):
    made, _ = executors
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    run_tournament(config(), settings(tmp_path / "a", affinity=True), registry=REGISTRY)
    run_tournament(config(), settings(tmp_path / "b"), registry=REGISTRY)
    assert made.pinned == [True, False]


def test_the_points_of_every_seat_at_a_table_of_three_reach_the_leaderboard(tmp_path, executors):
    bots = (Entrant("a", "random"), Entrant("b", "random"), Entrant("c", "random"))
    c = TournamentConfig("nim:players=3", bots=bots, budget=Budget(nodes=10), isolate=False, games_per_pairing=6,
                         opening_plies=0)
    result = run_tournament(c, settings(tmp_path), registry=REGISTRY)
    points = results.load(tmp_path / "r.db").seats.groupby("bot")["points"].sum().to_dict()
    assert result.played == 6 and sum(points.values()) == 6 and len(points) == 3
    assert result.watcher.board.points == points


def test_a_game_of_chance_is_dealt_from_the_key_its_database_keeps(tmp_path, executors, monkeypatch):
    def draws(key, where):
        monkeypatch.setattr("results.store.new_key", lambda: seed_key(key))  # a new database's secret, fixed here
        where.mkdir()
        c = TournamentConfig("pig:goal=10", bots=(Entrant("a", "random"), Entrant("b", "random")), budget=Budget(nodes=50),
                             isolate=False, games_per_pairing=2, opening_plies=0)
        run_tournament(c, settings(where), registry=REGISTRY)
        moves = results.load(where / "r.db").moves
        return moves[moves["player"] == -1]["move"].tolist()

    first = draws(1, tmp_path / "a")
    assert len(first) > 4 and draws(1, tmp_path / "b") == first and draws(2, tmp_path / "c") != first
