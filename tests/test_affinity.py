"""``--affinity``: each worker process, and every engine it starts, runs on one CPU of its own
(as fastchess's ``-use-affinity``); with one job the run's own process, until the run ends;
never with Dask. The CPUs are those the engine itself reads (``sched_getaffinity``)."""

import os
import sys
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.execution.executors import LocalExecutor, executor
from arena.front.cli import main
from results.rows import game_rows

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "engines" / "python" / "engine.py"
#: An engine that writes its parent and the CPUs it may run on to a file of its own, then becomes
#: the example engine.
WRAPPER = """import os, sys
with open(os.path.join(sys.argv[1], str(os.getpid())), "w") as f:
    f.write(" ".join(map(str, [os.getppid(), *sorted(os.sched_getaffinity(0))])))
os.execv(sys.executable, [sys.executable, sys.argv[2]])
"""

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux's")


def engines_cpus(tmp_path, *flags, jobs=2):
    """The CPU sets the engines that played the games of a 4-game run saw, one per engine process
    (not the one this process starts to check that the bot can play, before the games)."""
    seen = tmp_path / "seen"
    seen.mkdir()
    wrapper = tmp_path / "wrap.py"
    wrapper.write_text(WRAPPER)
    spec = f"engine:cmd={sys.executable} {wrapper} {seen} {EXAMPLE}"
    code = main(["run", "--game", "tictactoe", "--bot", f"a={spec}", "--bot", f"b={spec}", "--budget", "nodes=50",
                 "--games", "4", "--jobs", str(jobs), "--no-progress", "--db", str(tmp_path / "a.db"), *flags])
    assert code == 0
    found = [[int(n) for n in p.read_text().split()] for p in seen.iterdir()]
    return [frozenset(cpus) for parent, *cpus in found if jobs == 1 or parent != os.getpid()]


@pytest.mark.processes
def test_with_affinity_each_worker_and_its_engines_run_on_one_cpu_of_their_own(tmp_path):
    allowed = os.sched_getaffinity(0)
    seen = engines_cpus(tmp_path, "--affinity")
    assert seen and all(len(cpus) == 1 and cpus <= allowed for cpus in seen)
    if len(allowed) >= 2:  # the two workers' engines: two CPUs, the first two this process may use
        assert set().union(*seen) == set(sorted(allowed)[:2])
    assert os.sched_getaffinity(0) == allowed  # the run's own process is not pinned for workers


@pytest.mark.processes
def test_without_affinity_engines_may_run_on_any_cpu(tmp_path):
    allowed = os.sched_getaffinity(0)
    seen = engines_cpus(tmp_path)
    assert seen and all(cpus == allowed for cpus in seen)


@pytest.mark.processes
def test_with_one_job_the_runs_own_process_is_pinned_until_the_run_ends(tmp_path):
    allowed = os.sched_getaffinity(0)
    first = min(allowed)
    seen = engines_cpus(tmp_path, "--affinity", jobs=1)
    assert seen and all(cpus == {first} for cpus in seen)
    assert os.sched_getaffinity(0) == allowed
    pinned = LocalExecutor(1, (), game_rows, affinity=True)
    try:
        assert os.sched_getaffinity(0) == {first}
    finally:
        pinned.close()
    assert os.sched_getaffinity(0) == allowed


def test_affinity_is_refused_with_dask_in_one_line(tmp_path, capsys):
    with pytest.raises(ArenaError, match="--affinity pins this machine's worker processes"):
        executor("local", 2, (), game_rows, affinity=True)
    code = main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--games", "2", "--dask", "local",
                 "--affinity", "--no-progress", "--db", str(tmp_path / "a.db")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "leave out --affinity or --dask" in err
    assert "Traceback" not in err


def test_affinity_is_refused_in_one_line_where_processes_cannot_be_pinned(tmp_path, capsys, monkeypatch):
    monkeypatch.delattr(os, "sched_setaffinity")
    code = main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--games", "2", "--affinity",
                 "--no-progress", "--db", str(tmp_path / "a.db")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == ("arena: error: --affinity needs a system that pins processes to CPUs (Linux's "
                                 "sched_setaffinity); leave it out here")
