"""The suite's lanes, and what keeps parallel runs honest.

Markers (pyproject.toml lists them):

- ``processes``: the test starts a process (a bot's or engine's, a sandbox, a Dask cluster, a
  browser, the command line). A test without it that starts one fails, so the quick run stays
  in this process.
- ``slow``: the test takes more than a few seconds in this process (a published figure, a
  statistic over many games, a sandbox a game); ``reason=`` says why it is no smaller.
- ``alone``: the test measures CPU or wall time (a CPU ceiling, a clock, a deadline), so under
  pytest-xdist nothing of this run plays beside it (``Turnstile``).
- ``quick``: given here to every test that is neither ``processes`` nor ``slow``: the quick run
  is ``python -m pytest -m quick``.
"""

from __future__ import annotations

import fcntl
import os
import platform
import re
import resource
import sys
from pathlib import Path

import pytest

from arena import get_registry

# pytest rewrites the asserts of every test module it imports (7 s for this suite) and keeps the
# result beside the module, unless Python is told to write no bytecode (PYTHONDONTWRITEBYTECODE,
# set in many containers): the suite keeps it all the same, so each run after the first starts in
# seconds. __pycache__ is ignored by git.
sys.dont_write_bytecode = False
# platform asks ``uname -p`` in a process of its own, once a process (dask.distributed reads it as
# a cluster starts, even one of threads): asked here, so that no test is taken to start it
platform.processor()
# matplotlib lists the machine's fonts with ``fc-list``, in a process of its own, the first time it
# runs under a user's home (then reads its cache): done here, so that no test is taken to start it
try:
    import matplotlib.font_manager  # noqa: F401
except ImportError:
    pass


@pytest.fixture
def registry():
    """A fresh registry of the built-in plugins only (no third-party entry points)."""
    return get_registry(entry_points=False)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the quick lane; in a parallel run, start the modules that start processes first (the
    longest tests), so that none of them is left to end the run on one worker."""
    weight = {}
    for item in items:
        lane = item.get_closest_marker("processes") or item.get_closest_marker("slow")
        if not lane:
            item.add_marker(pytest.mark.quick)
        weight[item.path] = weight.get(item.path, 0) + bool(lane)
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike: their collections must agree
        items.sort(key=lambda item: -weight[item.path])


class _ByModule:
    """Scheduling of a parallel run (``-n``): each test goes to whichever worker is free, but the
    tests of a module with a module- or class-scoped fixture (a tournament built once, a browser,
    the README's folder of commands run in order) go together to one worker, in order.
    (pytest-xdist's ``--dist loadgroup`` does this by marks, and stopped grouping with pytest 9.2:
    pytest-dev/pytest-xdist#1386.) An explicit ``--dist`` other than ``load`` is left alone."""

    @staticmethod
    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") != "load":
            return None
        from xdist.scheduler import LoadScopeScheduling

        grouped = {str(path.relative_to(config.rootpath)) for path in Path(__file__).parent.rglob("test_*.py")
                   if _MODULE_FIXTURE.search(path.read_text(encoding="utf-8"))}

        class Scheduling(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                path = nodeid.split("::", 1)[0]
                return path if path in grouped else nodeid

            def mark_test_complete(self, node, item_index: int, duration: float = 0) -> None:
                # a unit done is forgotten: the scheduler counts what each worker has left over
                # every unit it was given, after each test (quadratic in the suite's 5,000 units)
                nodeid = self.registered_collections[node][item_index]
                scope = self._split_scope(nodeid)
                unit = self.assigned_work[node][scope]
                unit[nodeid] = True
                if all(unit.values()):
                    del self.assigned_work[node][scope]
                self._reschedule(node)

            def remove_node(self, node):
                # a test that took its worker down is reported once, as xdist's default scheduling
                # does, not run again with the rest of its unit
                crashed = super().remove_node(node)
                unit = self.workqueue.get(self._split_scope(crashed)) if crashed is not None else None
                if unit is not None:
                    unit[crashed] = True
                    if all(unit.values()):
                        del self.workqueue[self._split_scope(crashed)]
                return crashed

        config.option.loadscopereorder = False  # units in the order the workers collected them (above)
        return Scheduling(config, log)


_MODULE_FIXTURE = re.compile(r"@pytest\.fixture\(scope=\"(module|class)\"")


class Turnstile:
    """A readers-writer lock across xdist workers, on two files: every test holds the room shared,
    an ``alone`` test holds it alone. The gate keeps a waiting ``alone`` test from being starved by
    tests that follow each other on the other workers."""

    def __init__(self, folder):
        self.gate = os.open(folder / "alone.gate", os.O_CREAT | os.O_RDWR)
        self.room = os.open(folder / "alone.room", os.O_CREAT | os.O_RDWR)

    def enter(self, alone: bool) -> None:
        if alone:
            fcntl.flock(self.gate, fcntl.LOCK_EX)
            fcntl.flock(self.room, fcntl.LOCK_EX)
        else:
            fcntl.flock(self.gate, fcntl.LOCK_SH)
            fcntl.flock(self.gate, fcntl.LOCK_UN)
            fcntl.flock(self.room, fcntl.LOCK_SH)

    def leave(self) -> None:
        fcntl.flock(self.room, fcntl.LOCK_UN)
        fcntl.flock(self.gate, fcntl.LOCK_UN)


_turnstile: Turnstile | None = None


def pytest_configure(config):
    global _turnstile
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_ByModule())
    if os.environ.get("PYTEST_XDIST_WORKER") and config.option.basetemp:
        # a worker's base folder is popen-gwN in the run's own, which pytest removes in time
        _turnstile = Turnstile(Path(config.option.basetemp).parent)


def _children() -> set[int]:
    found = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                found.update(int(pid) for pid in f.read().split())
        except OSError:
            pass
    return found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _turnstile is not None:
        _turnstile.enter(alone=item.get_closest_marker("alone") is not None)
    item.stash[_BEFORE] = _children(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    try:
        yield
    finally:
        if _turnstile is not None:
            _turnstile.leave()


_BEFORE = pytest.StashKey[tuple]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Fail a test that started a process without the ``processes`` mark (its teardown, module
    fixtures' included): a child of this process is new, or one was reaped. A child left by an
    earlier test and reaped during this one makes the reaping ambiguous: then only new ones count."""
    outcome = yield
    report = outcome.get_result()
    if call.when != "teardown" or item.get_closest_marker("processes") or _BEFORE not in item.stash:
        return
    before, faults = item.stash[_BEFORE]
    now = _children()
    seen = ", ".join(f"{pid} {_command(pid)}" for pid in sorted(now - before))
    if not seen and before <= now and resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt != faults:
        seen = "one that has ended"
    if seen and report.passed:
        report.outcome = "failed"
        report.longrepr = f"{item.nodeid} started a process ({seen}): mark it @pytest.mark.processes (tests/conftest.py)"


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:200] or "?"
    except OSError:
        return "(ended)"
