"""The example plugin distribution (examples/arena-example), as a plugin author ships it.

One test installs it into a fresh virtual environment and drives it through the real
command line; the others check it from its source tree, and check that a broken
third-party plugin is reported without taking the arena down.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

import arena
from arena.front.cli import main
from arena.testing import check_plugin

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "arena-example"


def _missing_build_tools() -> str | None:
    """Why the example cannot be built offline with the running environment's tools, or None."""
    if importlib.util.find_spec("pip") is None:
        return "pip is not installed in the running environment (needed to install the example)"
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed in the running environment (needed to build the example offline)"
    version = importlib.metadata.version("setuptools")
    major_minor = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    if major_minor < (70, 1) and importlib.util.find_spec("wheel") is None:
        return (
            f"setuptools {version} builds wheels only with the 'wheel' package, which is not installed "
            f"in the running environment; install 'wheel' or setuptools>=70.1 to run this test"
        )
    return None


def _run(*args, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _make_venv(path: Path) -> Path:
    """A fresh venv that sees the running environment's packages (botarena, pytest, pip, setuptools)."""
    # --without-pip saves seconds: the running environment's pip is seen and installs into the venv.
    result = _run(sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", path, cwd=path.parent)
    assert result.returncode == 0, result.stderr
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if sys.prefix != sys.base_prefix:
        # Run from a venv, --system-site-packages shows the base interpreter's packages, not
        # this venv's: add this venv's site-packages (and their .pth files, such as an
        # editable install's) to the new one.
        purelib = _run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=path.parent)
        lines = "".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages())
        Path(purelib.stdout.strip(), "_arena_test_parent_env.pth").write_text(lines)
    return python


@pytest.mark.processes
def test_installed_example_plays_through_the_command_line(tmp_path):
    why = _missing_build_tools()
    if why:
        pytest.skip(why)
    # Build from a copy, so pip's in-tree build leaves no build/ or *.egg-info in the repo.
    source = tmp_path / "src" / "arena-example"
    junk = shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".*cache")
    shutil.copytree(EXAMPLE, source, ignore=junk)
    python = _make_venv(tmp_path / "venv")

    installed = _run(
        python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", source, cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = _run(python, "-c", "import arena_example; print(arena_example.__file__)", cwd=tmp_path)
    assert where.returncode == 0 and Path(where.stdout.strip()).is_relative_to(tmp_path / "venv"), where

    for kind, name in (("games", "fifteen"), ("bots", "cautious")):
        listed = _run(python, "-m", "arena", kind, "--json", cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        assert "warning" not in listed.stderr, listed.stderr
        entries = {e["name"]: e for e in json.loads(listed.stdout)}
        assert entries[name]["plugin"] == "example"
        assert entries["tictactoe" if kind == "games" else "alphabeta"]["plugin"] != "example"
    assert [p["name"] for p in entries["cautious"]["parameters"]] == ["lookahead"]

    play = ["play", "fifteen", "--bot", "cautious", "--bot", "alphabeta", "--seed", "1", "--quiet"]
    played = _run(python, "-m", "arena", *play, cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    result = [line for line in played.stdout.splitlines() if line.startswith("result ")]
    assert len(result) == 1 and "(normal)" in result[0], played.stdout

    tested = _run(python, "-m", "pytest", source / "tests", "-q", "-p", "no:cacheprovider", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(r"\b\d+ passed\b", tested.stdout) and "failed" not in tested.stdout, tested.stdout


@pytest.fixture
def example_source(monkeypatch):
    """The example package importable from its source tree; forgotten again afterwards."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    yield
    for name in [m for m in sys.modules if m == "arena_example" or m.startswith("arena_example.")]:
        del sys.modules[name]


def test_example_passes_conformance_checks_from_source(example_source):
    plugin = importlib.import_module("arena_example.plugin")
    check_plugin(plugin)
    registry = arena.get_registry(entry_points=False, plugins=[plugin])
    assert registry.games["fifteen"].cls.__module__ == "arena_example.fifteen"
    assert registry.bot("cautious:lookahead=false").lookahead is False


@pytest.fixture
def broken_plugin(tmp_path, monkeypatch):
    """An installed distribution 'broken-plugin' 1.2.3 whose ``arena`` entry point fails to import."""
    dist = tmp_path / "broken_plugin-1.2.3.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.2.3\n")
    (dist / "entry_points.txt").write_text("[arena]\nbroken = arena_broken_plugin\n")
    (tmp_path / "arena_broken_plugin.py").write_text('raise ImportError("needs frobnicate>=2")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "broken"
    sys.modules.pop("arena_broken_plugin", None)


def test_broken_plugin_is_reported_and_skipped(broken_plugin):
    registry = arena.get_registry()
    lines = [line for line in registry.errors if repr(broken_plugin) in line]
    assert lines == ["plugin 'broken' (broken-plugin 1.2.3) failed to load: ImportError: needs frobnicate>=2"]
    assert {"tictactoe", "nim", "connect4"} <= set(registry.games)
    assert "alphabeta" in registry.bots
    assert registry.plugin_manager.get_plugin(broken_plugin) is None


def test_broken_plugin_is_a_warning_on_the_command_line(broken_plugin, capsys):
    assert main(["games"]) == 0
    out, err = capsys.readouterr()
    assert "arena: warning: plugin 'broken' (broken-plugin 1.2.3) failed to load: ImportError" in err
    assert "tictactoe" in out
