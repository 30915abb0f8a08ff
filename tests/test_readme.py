"""The README's examples work as written: every shell command finishes promptly, what the commands
write is ignored by git, the tournament file it shows is the one it runs, the plugin's
``pyproject.toml`` installs, and the defaults it states are the code's."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.front.settings import DEFAULT_SETTINGS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
EXAMPLE = ROOT / "examples" / "arena-example"

#: Seconds a README command may take. The default tournament gets more: the README says about
#: 20 s on two idle cores, and it took 99 s on a shared two-core machine at a load of 12.
LIMIT, TOURNAMENT_LIMIT = 60, 300


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.M | re.S)


def commands() -> list[str]:
    """Each command of the README's ``sh`` blocks: continuation lines joined, ``&&`` chains split."""
    out = []
    for block in blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            while words:
                cut = words.index("&&") if "&&" in words else len(words)
                out.append(shlex.join(words[:cut]))
                words = words[cut + 1 :]
    return out


def why_skip(command: str, cwd: Path | None) -> str | None:
    """Why a README command is not run in ``cwd``, or None (``cwd`` None: files are not checked)."""
    words = shlex.split(command)
    if "pip" in words:
        return "installs the project into the running environment; the tests run it from the source tree"
    if words[:3] == ["python", "-m", "pytest"]:
        return "runs this very test suite"
    if "human" in words:
        return "needs a person at the terminal (tests/test_play.py feeds the human bot instead)"
    if any(w.startswith("tcp://") for w in words):
        return "needs a running Dask cluster"
    if "--dask" in words and importlib.util.find_spec("distributed") is None:
        return "needs the optional package distributed (pip install 'botarena[dask]')"
    if "--plots" in words and importlib.util.find_spec("matplotlib") is None:
        return "needs the optional package matplotlib (pip install 'botarena[plots]')"
    names = [w.partition(":")[0] for w in words if not w.endswith(".db")]  # game and bot names among them
    if "chess" in names and importlib.util.find_spec("chess") is None:
        return "needs the optional package python-chess (pip install 'botarena[chess]')"
    if any(n.startswith("openspiel.") for n in names) and importlib.util.find_spec("pyspiel") is None:
        return "needs the optional package open-spiel (pip install 'botarena[openspiel]')"
    if words[0] in ("cc", "gcc") and shutil.which(words[0]) is None:
        return f"needs a C compiler ({words[0]})"
    if any("uci:cmd=stockfish" in w for w in words) and not _stockfish():
        return "needs Stockfish (Debian's stockfish package; .ci/run installs it)"
    if cwd is None:
        return None
    read = [w for i, w in enumerate(words) if w.endswith((".toml", ".db")) and words[i - 1] != "--db"]
    if words[1:2] == ["ladder"] and "--game" in words:
        read = read[1:]  # a ladder made by this command: its database is written, not read
    for name in read:
        if not (cwd / name).exists() and name.endswith(".db"):
            return f"needs {name}, which the README's 'arena run' writes earlier in this module (run the module whole)"
    return None


def _stockfish() -> bool:
    return shutil.which("stockfish") is not None or Path("/usr/games/stockfish").exists()


def argv(command: str) -> list[str]:
    words = shlex.split(command)
    if words[0] in ("cc", "gcc"):  # building an example engine
        return words
    if words[:3] == ["python", "-m", "arena"]:
        words = words[3:]
    else:
        assert words[0] == "arena", command
        words = words[1:]
    return [sys.executable, "-m", "arena", *words]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """One directory for all the commands, in README order: reports read what runs stored. It holds
    the examples the commands use, as in the repository (the engines, the tournament file)."""
    folder = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples" / "engines", folder / "examples" / "engines", ignore=shutil.ignore_patterns("engine"))
    shutil.copy(ROOT / "examples" / "tournament.toml", folder / "examples")
    shutil.copytree(ROOT / "examples" / "openings", folder / "examples" / "openings")
    return folder


def _files(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*") if p.is_file()}


def test_the_readme_has_the_commands_this_module_runs():
    found = commands()
    assert "arena play nim:heaps=2,3,5 --bot minimax:depth=none@none --bot random --seed 7 --quiet" in found
    assert any(c.startswith("arena report arena-results.db") for c in found)
    assert "arena run examples/tournament.toml --jobs 2" in found
    assert any(c.startswith("arena run --format gauntlet --challenger ") for c in found)
    assert sum(why_skip(c, None) is None for c in found) >= 10


def test_the_tournament_file_the_readme_shows_is_the_one_it_runs():
    [shown] = [b for b in blocks("toml") if b.startswith('name = "c4-nodes"')]
    assert (ROOT / "examples" / "tournament.toml").read_text() == shown


@pytest.mark.processes
@pytest.mark.slow(reason="every README command as a new user runs it, in order, each in a process of its own")
@pytest.mark.timeout(TOURNAMENT_LIMIT + 60)  # its own limit (above) says which command ran long
@pytest.mark.parametrize("command", commands())
def test_readme_command_finishes_promptly(command, workdir):
    why = why_skip(command, workdir)
    if why:
        pytest.skip(why)
    words = argv(command)[3:]
    limit = TOURNAMENT_LIMIT if words[:1] == ["run"] and "--game" not in words else LIMIT  # the default tournament
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        proc = subprocess.run(argv(command), cwd=workdir, env=env, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command!r} did not finish within {limit} s")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    if " play " in f" {command} ":
        result = [line for line in proc.stdout.splitlines() if line.startswith("result ")]
        assert len(result) == 1 and "(normal)" in result[0], proc.stdout[-2000:]


@pytest.mark.processes
@pytest.mark.slow(reason="reads what every README command wrote (the tests above)")
def test_what_the_commands_write_is_ignored_by_git(workdir):
    """After the commands above, in their folder: each file they wrote is one git ignores at the
    same place in the repository, so running the README there leaves ``git status`` clean."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and the repository")
    written = sorted(
        str(p) for p in _files(workdir) if not (ROOT / p).is_file() or (ROOT / p).read_bytes() != (workdir / p).read_bytes()
    )
    if not any(name.endswith(".db") for name in written):
        pytest.skip("no README command ran before this test (run the module whole)")
    check = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT, input="\n".join(written), capture_output=True, text=True
    )
    assert check.returncode in (0, 1), check.stderr  # 1: none is ignored
    assert set(written) - set(check.stdout.splitlines()) == set(), "written by the README's commands, not ignored by git"


def test_the_playing_section_states_the_default_budget_and_watchdog():
    section = README[README.index("## Playing") : README.index("## Tournaments")]
    assert f"default budget, `{DEFAULT_SETTINGS['budget']}`" in section
    assert f"(`--watchdog`, {DEFAULT_SETTINGS['watchdog']:g} s)" in section


@pytest.mark.processes
def test_the_plugin_pyproject_installs_as_written(tmp_path):
    from tests.test_example_plugin import _make_venv, _missing_build_tools, _run

    why = _missing_build_tools()
    if why:
        pytest.skip(why)
    [pyproject] = [b for b in blocks("toml") if "[project.entry-points.arena]" in b]
    source = tmp_path / "src"
    source.mkdir()
    (source / "pyproject.toml").write_text(pyproject)
    shutil.copytree(EXAMPLE / "arena_example", source / "arena_example", ignore=shutil.ignore_patterns("__pycache__"))
    python = _make_venv(tmp_path / "venv")
    installed = _run(
        python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", source, cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # the version the README's warning example quotes, "(arena-example 0.1.0)"
    quoted = re.search(r"\(arena-example ([0-9.]+)\)", README).group(1)
    version = _run(python, "-c", "import importlib.metadata as m; print(m.version('arena-example'))", cwd=tmp_path)
    assert version.stdout.strip() == quoted
    listed = _run(python, "-m", "arena", "games", cwd=tmp_path)
    assert listed.returncode == 0 and "warning" not in listed.stderr, listed.stderr
    assert re.search(r"^fifteen\s", listed.stdout, re.M), listed.stdout
