"""A bot's process tree shares one memory allowance and one process count, and no process it
starts outlives the run: attacked by bots that fork (tests/plugins/lifters.py) and by an engine
that daemonizes, in each mode (skipped where cgroups cannot be had)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import results
from arena import Budget, get_registry
from arena.errors import ParameterError
from arena.execution import cgroup
from arena.front.cli import main
from arena.limits import Limits
from arena.records import Termination
from arena.referee import play_game
from tests.helpers import process_gone as gone, sandbox_unavailable

needs_cgroups = pytest.mark.skipif(cgroup.available() is not None, reason=f"no cgroups here: {cgroup.available()}")
MODES = {"isolated": [], "sandboxed": ["--sandbox"], "dask": ["--dask", "local"]}
ENGINE = Path(__file__).parent / "engines" / "faulty.py"


def skip_unless(mode: str) -> None:
    if mode == "sandboxed" and sandbox_unavailable():
        pytest.skip(sandbox_unavailable())
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")


def run(tmp_path, mode: str, bots: dict, *flags) -> dict:
    db = tmp_path / "trees.db"
    argv = ["run", "--game", "tictactoe", "--games", "2", "--openings", "0", "--format", "gauntlet", "--bot", "random",
            "--jobs", "1", "--no-progress", "--db", str(db), "--plugin", "tests.plugins.lifters", *MODES[mode], *flags]
    for name, spec in bots.items():
        argv += ["--bot", f"{name}={spec}", "--challenger", name]
    assert main(argv) == 0
    out = {name: [] for name in bots}
    for row in results.load(db).games.itertuples():
        out[row.first if row.first != "random" else row.second].append((row.termination, row.message))
    return out


@pytest.mark.processes
@needs_cgroups
@pytest.mark.parametrize("mode", list(MODES))
def test_a_bots_children_share_its_memory_and_its_process_count(tmp_path, mode):
    skip_unless(mode)
    notes = tmp_path / "forked.txt"
    bomb = "fork-bomb" if mode == "sandboxed" else f"fork-bomb:path={notes}"  # a sandbox cannot write the notes
    # a time budget: under a node budget the CPU the children spend touching memory would end it first (cpu_ceiling)
    games = run(tmp_path, mode, {"hog": "fork-memory:children=4,mib=200", "bomb": bomb}, "--memory-limit", "512", "--budget", "time=20")
    for termination, message in games["hog"]:  # 4 x 200 MiB, each child within its own 512 MiB
        assert termination == Termination.MEMORY.value and "processes together went over its limit of 512 MiB" in message, message
    for termination, message in games["bomb"]:
        forked = int(message.split("forked ")[1].split()[0])
        assert termination == "crash" and 0 < forked < cgroup.TASKS, message
    if mode != "sandboxed":
        pids = [int(p) for p in notes.read_text().split()]
        assert pids and all(gone(p) for p in pids), "a forked child outlived the run"


@pytest.mark.processes
@needs_cgroups
@pytest.mark.parametrize("mode", ["isolated", "dask"])
def test_a_daemon_a_python_bot_leaves_does_not_outlive_the_run(tmp_path, mode):
    skip_unless(mode)
    notes = tmp_path / "daemons.txt"
    games = run(tmp_path, mode, {"daemon": f"daemon:path={notes}"})
    assert [t for t, _ in games["daemon"]] == ["normal", "normal"]
    pids = [int(p) for p in notes.read_text().split()]
    assert len(pids) == 2 and all(gone(p) for p in pids), "a daemonized grandchild outlived the run"


@pytest.fixture
def no_cgroups(monkeypatch):
    """This process finds no cgroup: bots' trees are ``cgroup.Descendants`` (runs with --jobs 1
    play in this process)."""
    monkeypatch.setattr(cgroup, "tree", lambda memory_bytes: None)


# where no cgroup can be had: the tree found in /proc, capped by a supervising thread


@pytest.mark.processes
@pytest.mark.parametrize("mode", ["isolated", "sandboxed"])
def test_without_cgroups_a_fork_bomb_is_killed_past_the_task_cap_and_nothing_it_forked_is_left(tmp_path, mode, no_cgroups):
    skip_unless(mode)
    notes = tmp_path / "forked.txt"
    bomb = "fork-bomb" if mode == "sandboxed" else f"fork-bomb:path={notes}"
    games = run(tmp_path, mode, {"bomb": bomb, "daemon": f"daemon:path={tmp_path / 'daemons.txt'}"}, "--budget", "time=20")
    for termination, message in games["bomb"]:
        assert termination == "crash" and cgroup.OVER in message, message
    if mode == "isolated":
        pids = [int(p) for p in notes.read_text().split()]
        assert len(pids) >= cgroup.TASKS // 2 and all(gone(p) for p in pids), "a forked child outlived the run"
        # a setsid grandchild stays in the tree (its host is its subreaper) and ends with the game
        assert [t for t, _ in games["daemon"]] == ["normal", "normal"]
        daemons = [int(p) for p in (tmp_path / "daemons.txt").read_text().split()]
        assert len(daemons) == 2 and all(gone(p) for p in daemons), "a daemonized grandchild outlived the run"


@pytest.mark.alone
@pytest.mark.processes
def test_without_cgroups_a_trees_cpu_time_is_read_from_each_process_clock(tmp_path, no_cgroups):
    seen = cpu_per_move(tmp_path, "isolated")
    burn_cpu, _ = seen["burn"]
    nap_cpu, nap_wall = seen["nap"]
    assert all(0.045 <= c <= 0.065 for c in burn_cpu), burn_cpu  # as with a cgroup (see below)
    assert all(c < 0.01 for c in nap_cpu) and all(w >= 0.05 for w in nap_wall), (nap_cpu, nap_wall)
    tree = cgroup.Descendants(os.getpid())
    try:
        assert os.getpid() in tree.members() and tree.tasks() >= 1 and not tree.out_of_memory()
        before = tree.cpu_seconds()
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass
        assert 0.045 <= tree.cpu_seconds() - before <= 0.08
    finally:
        with cgroup._WATCH_LOCK:
            cgroup._WATCHED.discard(tree)  # never killed: it is this process


def marked(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    out = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes() and not gone(int(pid), 0):
                out.append(int(pid))
        except OSError:
            pass
    return out


@pytest.mark.processes
@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "no-cgroup"])
@pytest.mark.parametrize("sandboxed", [False, True], ids=["isolated", "sandboxed"])
def test_a_daemonizing_engine_leaves_no_process_behind(tmp_path, sandboxed, cgroups, monkeypatch):
    if sandboxed:
        skip_unless("sandboxed")
    if cgroups and cgroup.available() is not None:
        pytest.skip(f"no cgroups here: {cgroup.available()}")
    if not cgroups:
        monkeypatch.setattr(cgroup, "tree", lambda memory_bytes: None)
    marker = f"marker-{os.getpid()}-{sandboxed}-{cgroups}"  # on the command line of the engine and of what it forks
    registry = get_registry(entry_points=False)
    bot = registry.bot(f"engine:cmd={sys.executable} {ENGINE} daemon {marker}")
    bot.limits = Limits(watchdog=10.0, sandbox=sandboxed)
    record = play_game(registry.game("tictactoe"), [bot, registry.bot("random")], budgets=[Budget(nodes=50)] * 2)
    assert record.termination is Termination.NORMAL, record.message
    assert len(marked(marker)) >= 2, "the engine and its daemon should live while the engine does"
    bot.close()
    for _ in range(100):
        if not marked(marker):
            break
        time.sleep(0.02)
    assert marked(marker) == [], "the engine's setsid grandchild outlived it"


@pytest.mark.processes
@needs_cgroups
def test_the_trees_of_a_killed_runner_are_emptied_and_removed_at_the_next_start():
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a runner that is no more
    _, parents = cgroup._layout()
    stale = {c: os.path.join(p, f"arena-{dead.pid}-0") for c, p in parents.items()}
    for path in stale.values():
        os.mkdir(path)
    left = subprocess.Popen(["sleep", "60"])  # what its bot left running
    for path in dict.fromkeys(stale.values()):
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(left.pid))
    for parent in dict.fromkeys(parents.values()):
        cgroup._remove_stale(parent)
    assert left.wait(timeout=10) == -9
    assert not any(os.path.exists(p) for p in stale.values())


# CPU time per move, measured outside the bot: its tree's, as the kernel counts it


def run_command(argv: list[str], fresh: bool) -> None:
    """``arena ARGV``, in a process of its own when ``fresh``: a bot in the referee's process is
    charged its thread's CPU, and in the test process that includes a garbage collector sweeping
    every earlier test's objects."""
    if not fresh:
        assert main(argv) == 0
        return
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run([sys.executable, "-m", "arena", *argv], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def cpu_per_move(tmp_path, mode: str, *flags) -> dict:
    db = tmp_path / f"cpu-{mode}.db"
    argv = ["run", "--game", "connect4", "--games", "2", "--openings", "0", "--bot", "burn=burn:ms=50", "--bot",
            "nap=nap:ms=50", "--budget", "cpu=1", "--jobs", "1", "--no-progress", "--db", str(db), "--plugin",
            "tests.plugins.lifters", *flags]
    run_command(argv, fresh=mode == "in-process")
    moves = results.load(db).moves
    return {bot: (list(m.cpu), list(m.seconds)) for bot, m in moves.groupby("bot")}


@pytest.mark.alone
@pytest.mark.processes
@pytest.mark.parametrize("mode", ["in-process", "isolated"])
def test_each_moves_cpu_time_is_measured_outside_the_bot_and_a_busy_machine_does_not_change_it(tmp_path, mode):
    if mode == "isolated" and cgroup.available() is not None:
        pytest.skip(f"no cgroups here: {cgroup.available()}")
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])  # another CPU-bound process beside the run
    try:
        seen = cpu_per_move(tmp_path, mode, *(["--no-isolation"] if mode == "in-process" else []))
    finally:
        busy.kill()
        busy.wait()
    burn_cpu, burn_wall = seen["burn"]
    nap_cpu, nap_wall = seen["nap"]
    # tolerance for a busy CI machine: 50 ms of CPU is charged 50 ms, within 15 ms (the bench asks for 5 ms);
    # a bot that sleeps 50 ms is charged (almost) none, however long its move took on the wall clock
    assert all(0.045 <= c <= 0.065 for c in burn_cpu), burn_cpu
    assert all(c < 0.01 for c in nap_cpu) and all(w >= 0.05 for w in nap_wall), (nap_cpu, nap_wall)


# the cpu budget: charged on that figure, so a busy machine does not use it up


def test_a_cpu_budget_reads_and_prints_like_the_others():
    assert str(Budget.parse("cpu=0.25,nodes=100")) == "nodes=100,cpu=0.25" and Budget.parse("cpu=2").cpu == 2.0
    with pytest.raises(ParameterError, match="bad budget cpu=0; expected seconds greater than 0"):
        Budget(cpu=0)


CPU_MODES = {"in-process": ["--no-isolation"], **MODES}


@pytest.mark.alone
@pytest.mark.processes
@pytest.mark.parametrize("mode", list(CPU_MODES))
def test_a_cpu_budget_stops_a_bot_that_burns_cpu_and_spares_one_that_waits(tmp_path, mode):
    if mode != "in-process":
        skip_unless(mode)
        if cgroup.available() is not None:
            pytest.skip(f"no cgroups here: {cgroup.available()}")
    db = tmp_path / "cpu.db"
    argv = ["run", "--game", "connect4", "--games", "2", "--openings", "0", "--format", "gauntlet", "--bot", "iterative",
            "--budget", "cpu=0.05", "--jobs", "1", "--no-progress", "--db", str(db), "--plugin", "tests.plugins.lifters",
            *CPU_MODES[mode]]
    # in-process, a bot that never returns cannot be stopped: it burns 0.3 s there, 30 s elsewhere
    burn = "burn:ms=300" if mode == "in-process" else "burn:ms=30000"
    for name, spec in {"burn": burn, "nap": "nap:ms=200", "fair": "iterative"}.items():
        argv += ["--bot", f"{name}={spec}", "--challenger", name]
    started = time.monotonic()
    run_command(argv, fresh=mode == "in-process")
    assert time.monotonic() - started < 25, "a bot over its cpu budget was waited for"
    games = results.load(db)
    for row in games.games.itertuples():
        name = row.first if row.first != "iterative" else row.second
        if name == "burn":
            assert row.termination == "timeout" and "of CPU" in row.message and "budget cpu=0.05s + margin 0.1s" in row.message, row.message
        else:  # a bot that sleeps 0.2 s a move spends no CPU; iterative stops itself within its budget
            assert row.termination == "normal", row.message
    fair = games.moves[games.moves.bot.isin(["fair", "iterative"])]
    assert fair.cpu.max() < 0.15, fair.cpu.max()


@pytest.mark.processes
def test_without_cgroups_a_trees_cpu_time_never_goes_back_when_a_child_is_reaped_unseen(no_cgroups, tmp_path):
    # each step waits for the one before (files as signals, not sleeps): a loaded machine only
    # makes it slower
    burnt, go = tmp_path / "burnt", tmp_path / "go"
    code = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped by the kernel: their time is nobody's\n"
        "if os.fork() == 0:\n"
        "    end = time.process_time() + 0.3\n"
        "    while time.process_time() < end: pass\n"
        "    open(sys.argv[1], 'w').close()\n"
        "    while not os.path.exists(sys.argv[2]): time.sleep(0.01)\n"
        "    os._exit(0)\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(burnt), str(go)])
    tree = cgroup.Descendants(proc.pid)
    try:
        assert until(burnt.exists, 60), "the child never burnt its 0.3 s"
        seen = tree.cpu_seconds()
        assert seen >= 0.28 and len(tree.members()) == 2
        go.touch()
        assert until(lambda: len(tree.members()) == 1, 60), "the child never ended"  # reaped by the kernel
        assert tree.cpu_seconds() >= seen
    finally:
        tree.close()
        proc.kill()
        proc.wait()


def until(condition, seconds: float) -> bool:
    """Whether ``condition()`` became true within ``seconds`` (asked every 10 ms)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True
