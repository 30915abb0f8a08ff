"""Under --sandbox a pip-installed plugin cannot read another's files (arena.execution.sandbox.installed).

Each test writes, into a ``site-packages`` folder of its own put on sys.path, three installed
distributions as pip leaves them (a package or module and its ``.dist-info``): two plugins with
an ``arena`` entry point, ``alpha`` (a package) and ``beta`` (a single module), whose bots try
to read each other's files, and ``gamma``, a plain library every bot may read. A sandbox binds
that folder whole, as it does Python's own site-packages.
"""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import results
from arena.execution.sandbox import bubblewrap as sandbox
from arena.front.cli import main
from arena.execution.sandbox.probing import sandboxed_registry
from tests.helpers import needs_bwrap



READER = '''
import os
from arena import Bot, hookimpl

OWN, SHARED, OTHER = {own!r}, {shared!r}, {other!r}


def readable(path):
    try:
        if os.path.isdir(path):
            return bool(os.listdir(path))
        with open(path) as f:
            return bool(f.read())
    except OSError:
        return False


def seen():
    return [p for p in OTHER if readable(p)]


SEEN_AT_IMPORT = seen()


class Reader(Bot):
    name = "{bot}"
    description = f"saw at import: {{SEEN_AT_IMPORT}}"

    def choose(self, game, state, budget):
        if seen():
            raise RuntimeError(f"read the other plugin's {{seen()}}")
        if not readable(OWN) or not readable(SHARED):
            raise RuntimeError("cannot read its own files or a shared library")
        return self.rng.choice(game.legal_moves(state))


@hookimpl
def register_bots(register):
    register(Reader)
'''


class Site:
    """A site-packages folder holding the alpha, beta and gamma distributions."""

    def __init__(self, tmp_path: Path, monkeypatch):
        self.root = tmp_path / "lib" / "site-packages"
        self.root.mkdir(parents=True)
        tag = re.sub(r"\W", "_", tmp_path.name)  # module names unique per test: none is cached
        self.alpha, self.beta, self.gamma = (f"{n}_{tag}" for n in ("alpha", "beta", "gamma"))
        self.db = tmp_path / "r.db"
        r = self.root
        files = {
            self.alpha: [f"{self.alpha}/__init__.py"],
            self.beta: [f"{self.beta}.py"],
            self.gamma: [f"{self.gamma}.py"],
        }
        info = {name: f"{name}-1.0.dist-info" for name in files}
        alpha_sees = [str(r / files[self.beta][0]), str(r / info[self.beta] / "entry_points.txt")]
        beta_sees = [str(r / self.alpha), str(r / files[self.alpha][0]), str(r / info[self.alpha] / "RECORD")]
        (r / self.alpha).mkdir()
        shared = str(r / files[self.gamma][0])
        for name, bot, other in ((self.alpha, "alpha", alpha_sees), (self.beta, "beta", beta_sees)):
            own = str(r / files[name][0])
            Path(own).write_text(textwrap.dedent(READER.format(own=own, shared=shared, other=other, bot=bot)))
        (r / files[self.gamma][0]).write_text("LIBRARY = True\n")
        for name, paths in files.items():
            folder = r / info[name]
            folder.mkdir()
            (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
            (folder / "top_level.txt").write_text(name + "\n")
            if name != self.gamma:
                (folder / "entry_points.txt").write_text(f"[arena]\n{name} = {name}\n")
            record = [*paths, *(f"{info[name]}/{f}" for f in ("METADATA", "top_level.txt", "entry_points.txt", "RECORD"))]
            (folder / "RECORD").write_text("".join(f"{line},,\n" for line in record))
        monkeypatch.syspath_prepend(str(r))
        sandbox.python_paths.cache_clear()  # shows the new site-packages, as Python's own

    def run(self, *extra: str) -> int:
        return main(["run", "--game", "tictactoe", "--games", "2", "--openings", "0", "--jobs", "1", "--no-progress",
                     "--db", str(self.db), "--bot", "alpha", "--bot", "beta", *extra])


@pytest.fixture
def site(tmp_path, monkeypatch):
    yield Site(tmp_path, monkeypatch)
    monkeypatch.undo()
    sandbox.python_paths.cache_clear()


def test_the_hidden_files_are_the_other_plugins_only(site):
    r = site.root
    alpha_files = {str(r / site.alpha), str(r / f"{site.alpha}-1.0.dist-info")}
    beta_files = {str(r / f"{site.beta}.py"), str(r / f"{site.beta}-1.0.dist-info")}
    assert set(sandbox.hidden()) == alpha_files | beta_files  # gamma is no plugin: never hidden
    assert set(sandbox.hidden([str(r / site.alpha)])) == beta_files
    assert set(sandbox.hidden([str(r / f"{site.beta}.py")])) == alpha_files
    assert set(sandbox.hidden([str(r / site.alpha / "engine")])) == beta_files  # an engine in alpha's package
    assert set(sandbox.hidden([str(r)])) == alpha_files | beta_files  # a folder holding plugins owns none
    assert not any(p.startswith(sandbox.package_paths()) for p in sandbox.hidden())
    assert site.alpha not in sys.modules and site.beta not in sys.modules  # found, never imported


@pytest.mark.processes
def test_without_the_sandbox_each_plugin_reads_the_other(site):
    assert site.run() == 0
    games = results.load(str(site.db)).games
    assert list(games.termination) == ["crash", "crash"]
    assert all("read the other plugin's" in m for m in games.message)


@pytest.mark.processes
@needs_bwrap
def test_under_the_sandbox_no_plugin_reads_the_other_and_the_games_are_normal(site):
    assert site.run("--sandbox") == 0
    games = results.load(str(site.db)).games
    assert list(games.termination) == ["normal", "normal"], list(games.message)


@pytest.mark.processes
@needs_bwrap
def test_each_probe_sees_no_other_plugin_distribution(site):
    registry = sandboxed_registry("tictactoe", ["alpha", "beta"])
    assert registry.errors == []
    for bot in ("alpha", "beta"):
        assert registry.bot_class(bot).describe()["description"] == "saw at import: []"


@pytest.mark.processes
@needs_bwrap
def test_a_masked_folder_is_empty_and_a_masked_module_unreadable_a_library_readable(site):
    script = (f"import os; print(os.listdir({str(site.root / site.alpha)!r}));"
              f"open({str(site.root / (site.gamma + '.py'))!r}).read();"
              f"open({str(site.root / (site.beta + '.py'))!r}).read()")
    done = subprocess.run(sandbox.wrap([sys.executable, "-c", script], sandbox.Sandbox()),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout == "[]\n" and "PermissionError" in done.stderr, (done.stdout, done.stderr)
    assert os.listdir(site.root / site.alpha)  # outside, it is all there
