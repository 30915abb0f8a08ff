"""The suite's own machinery (tests/conftest.py): the quick lane, the check that a test which
starts a process says so, the lock that keeps ``alone`` tests alone, and the time limit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Turnstile

ROOT = Path(__file__).resolve().parent.parent


def test_an_alone_test_waits_for_the_others_and_they_wait_for_it(tmp_path):
    # two workers' locks on the same files (an open file each, as in two processes)
    alone, other = Turnstile(tmp_path), Turnstile(tmp_path)
    other.enter(alone=False)  # a test running on the other worker
    entered = threading.Event()
    waiting = threading.Thread(target=lambda: (alone.enter(alone=True), entered.set()))
    waiting.start()
    assert not entered.wait(0.3), "an alone test started beside a running test"
    other.leave()
    assert entered.wait(10), "an alone test never started"
    later = threading.Event()
    follower = threading.Thread(target=lambda: (other.enter(alone=False), later.set()))
    follower.start()
    assert not later.wait(0.3), "a test started beside an alone test"
    alone.leave()
    assert later.wait(10)
    other.leave()
    waiting.join()
    follower.join()


def test_the_lanes_are_declared_and_the_limit_is_set():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    declared = {m.split(":")[0].split("(")[0] for m in options["markers"]}
    assert declared == {"processes", "slow", "alone", "quick"}
    assert options["timeout"] >= 120  # generous: the slowest test takes about a minute on a loaded machine
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert any(r.startswith("pytest-xdist") for r in extra) and any(r.startswith("pytest-timeout") for r in extra)


def test_every_slow_mark_says_why(request):
    for item in request.session.items:
        for mark in item.iter_markers("slow"):
            assert mark.kwargs.get("reason"), f"{item.nodeid}: slow without a reason"


def test_this_test_is_in_the_quick_lane(request):
    assert request.node.get_closest_marker("quick") is not None


@pytest.fixture
def suite(tmp_path):
    """A folder holding this suite's conftest and a test module written by the test."""
    folder = tmp_path / "tests"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", folder / "conftest.py")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    return folder


def pytest_in(folder: Path, source: str, *args: str) -> subprocess.CompletedProcess:
    (folder / "test_written.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(folder), *args],
                          cwd=folder.parent, env=env, capture_output=True, text=True, timeout=120)


WRITTEN = '''
import subprocess, sys, time
import pytest

def test_unmarked_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

@pytest.mark.processes
def test_marked_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

def test_stays_here():
    assert sum(range(10)) == 45

@pytest.mark.timeout(1)
def test_hangs():
    time.sleep(60)
'''


@pytest.mark.processes
def test_a_test_that_starts_a_process_unmarked_fails_and_a_hung_test_fails_at_its_limit(suite):
    started = time.monotonic()
    proc = pytest_in(suite, WRITTEN, "-rA")
    out = proc.stdout
    assert "started a process (one that has ended): mark it @pytest.mark.processes" in out, out
    assert "ERROR tests/test_written.py::test_unmarked_starts_a_process" in out, out
    assert "PASSED tests/test_written.py::test_marked_starts_a_process" in out, out
    assert "PASSED tests/test_written.py::test_stays_here" in out, out
    assert "FAILED tests/test_written.py::test_hangs" in out and "Timeout" in out, out
    assert time.monotonic() - started < 50  # the hang ended at its 1 s limit, not its 60 s sleep


@pytest.mark.processes
def test_the_quick_lane_leaves_out_the_tests_that_start_processes_and_the_slow(suite):
    source = WRITTEN.replace("@pytest.mark.timeout(1)", "@pytest.mark.slow(reason='waits')")
    proc = pytest_in(suite, source, "-m", "quick", "--collect-only")
    assert "test_stays_here" in proc.stdout and "test_unmarked_starts_a_process" in proc.stdout, proc.stdout
    assert "test_marked_starts_a_process" not in proc.stdout and "test_hangs" not in proc.stdout, proc.stdout


GROUPED = '''
import os
from pathlib import Path

import pytest

@pytest.fixture(scope="module")
def shared():
    return os.environ["PYTEST_XDIST_WORKER"]

@pytest.mark.parametrize("k", range(8))
def test_one_worker(shared, k):
    (Path(__file__).parent / f"worker-{k}").write_text(os.environ["PYTEST_XDIST_WORKER"])
    assert os.environ["PYTEST_XDIST_WORKER"] == shared
'''
CRASHING = '''
import os, time

def test_first():
    time.sleep(0.2)

def test_takes_its_worker_down():
    os._exit(3)

def test_after():
    pass
'''


@pytest.mark.processes
def test_in_parallel_a_module_fixture_keeps_its_tests_on_one_worker_and_a_crash_is_reported_once(suite):
    (suite / "test_grouped.py").write_text(GROUPED)
    proc = pytest_in(suite, CRASHING, "-n", "2")
    out = proc.stdout
    workers = {(suite / f"worker-{k}").read_text() for k in range(8)}
    assert len(workers) == 1, workers  # one worker: the module's fixture built once
    assert out.count("node down") == 1 and out.count("FAILED tests/test_written.py::test_takes_its_worker_down") == 1, out
    assert re.search(r"worker 'gw\d' crashed while running 'tests/test_written.py::test_takes_its_worker_down'", out), out
    assert "1 failed, 10 passed" in out, out
