"""Under --sandbox no code of a third-party bot plugin runs outside a sandbox (arena.execution.sandbox.probing).

A nosy plugin, written per test into the test's folder, tries at import and in its bot's
constructor to write a marker file there and to connect to a server the test listens on.
Without --sandbox both succeed (so the probes work); with it, neither does, and the
tournament runs normally. Tests that run bwrap skip, naming the reason, where it cannot start.
"""

import importlib
import re
import socket
import sys
import textwrap
import time
from pathlib import Path

import pytest

import results
from arena.errors import ArenaError
from arena.front.cli import main
from arena.execution.sandbox.probing import sandboxed_registry
from arena.front.run import run_tournament
from arena.front.settings import RunSettings
from arena.front.tournament import Entrant, TournamentConfig
from arena.limits import Limits
from tests.helpers import accepted, needs_bwrap



NOSY = '''
import os, socket
from arena import Bot, hookimpl, param

MARKER, PORT, OTHER = {marker!r}, {port}, {other!r}


def reach(where):
    try:
        with open(MARKER, "a") as f:
            f.write(where + "\\n")
    except OSError:
        pass
    try:
        socket.create_connection(("127.0.0.1", PORT), timeout=1).close()
    except OSError:
        pass


reach("import")
SAW_OTHER = os.path.exists(OTHER)


class Nosy(Bot):
    name = "{bot}"
    description = f"saw the other plugin: {{SAW_OTHER}}"
    fail: bool = param(False, "raise in the constructor")
    refuse: bool = param(False, "refuse every game")

    def __init__(self, **params):
        super().__init__(**params)
        reach("init")
        if self.fail:
            raise RuntimeError("nosy constructor failed")

    def suitable(self, game):
        return "it refuses every game" if self.refuse else None

    def choose(self, game, state, budget):
        return self.rng.choice(game.legal_moves(state))


@hookimpl
def register_bots(register):
    register(Nosy)
'''


class Nosy:
    """Nosy plugin modules in a folder on sys.path, the marker they write and the server they call."""

    def __init__(self, tmp_path: Path, monkeypatch):
        self.tmp = tmp_path
        self.folder = tmp_path / "plugins"
        self.folder.mkdir()
        monkeypatch.syspath_prepend(str(self.folder))
        self.marker = tmp_path / "marker.txt"
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.3)
        self.tag = re.sub(r"\W", "_", tmp_path.name)  # module names unique per test: none is cached
        self.db = tmp_path / "r.db"

    def module(self, bot: str = "nosy", other: str = "") -> str:
        """Write a nosy plugin registering ``bot``; its module name."""
        name = f"{bot.replace('-', '_')}_{self.tag}"
        text = NOSY.format(marker=str(self.marker), port=self.server.getsockname()[1], other=other, bot=bot)
        (self.folder / f"{name}.py").write_text(textwrap.dedent(text))
        return name

    def reached(self) -> tuple[list[str], int]:
        """What the plugin wrote into the marker, and how many times it connected."""
        count = accepted(self.server)
        written = self.marker.read_text().split() if self.marker.exists() else []
        return written, count

    def run(self, *extra: str) -> int:
        return main(["run", "--game", "tictactoe", "--games", "2", "--openings", "0", "--jobs", "1",
                     "--no-progress", "--db", str(self.db), *extra])


@pytest.fixture
def nosy(tmp_path, monkeypatch):
    out = Nosy(tmp_path, monkeypatch)
    yield out
    out.server.close()


@pytest.mark.processes
def test_without_the_sandbox_the_plugin_reaches_out_at_import_and_in_its_constructor(nosy):
    module = nosy.module()
    assert nosy.run("--plugin", module, "--bot", "nosy", "--bot", "random") == 0
    written, connections = nosy.reached()
    assert "import" in written and "init" in written and connections >= 2


@pytest.mark.processes
@needs_bwrap
def test_in_a_sandboxed_run_the_plugin_never_runs_outside_a_sandbox(nosy):
    module = nosy.module()
    assert nosy.run("--plugin", module, "--bot", "nosy", "--bot", "random", "--sandbox") == 0
    assert nosy.reached() == ([], 0)
    assert module not in sys.modules
    games = results.load(str(nosy.db)).games
    assert list(games.termination) == ["normal", "normal"] and set(games.first) == {"nosy", "random"}


@pytest.mark.processes
@needs_bwrap
def test_run_tournament_of_a_sandboxed_config_probes_the_plugins_itself(nosy):
    module = nosy.module()
    config = TournamentConfig(game="tictactoe", bots=(Entrant("nosy", "nosy"), Entrant("greedy", "greedy")),
                              sandbox=True, opening_plies=0)
    result = run_tournament(config, RunSettings(nosy.db, 1, progress=False), plugins=[module])
    assert result.complete and result.played == 2 and not result.failed
    assert nosy.reached() == ([], 0)
    assert module not in sys.modules


@pytest.mark.processes
@needs_bwrap
@pytest.mark.parametrize("command", ["sprt", "play"])
def test_sprt_and_play_take_the_same_path(nosy, command, capsys):
    module = nosy.module()
    if command == "sprt":
        argv = ["sprt", "nosy", "random", "--game", "tictactoe", "--max-games", "4", "--jobs", "1", "--no-progress",
                "--db", str(nosy.db)]
    else:
        argv = ["play", "tictactoe", "--bot", "nosy", "--bot", "random", "--quiet", "--seed", "1"]
    assert main([*argv, "--plugin", module, "--sandbox"]) == 0
    assert nosy.reached() == ([], 0)
    assert module not in sys.modules
    if command == "play":
        assert "result " in capsys.readouterr().out


@pytest.mark.processes
@needs_bwrap
@pytest.mark.parametrize("bot, says", [
    ("nosy-typo", "unknown bot 'nosy-typo'; did you mean 'nosy'? (arena bots lists them)"),
    ("nosy:depth=3", "unknown parameter 'depth' for bot 'nosy'"),
    ("nosy:fail=maybe", "'fail'"),
    ("nosy:refuse=true", "cannot play 'tictactoe': it refuses every game"),
])
def test_a_bad_bot_is_the_same_one_line_with_and_without_the_sandbox(nosy, capsys, bot, says):
    module = nosy.module()
    errors = []
    for flags in ((), ("--sandbox",)):
        assert nosy.run("--plugin", module, "--bot", bot, "--bot", "random", *flags) == 2
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1] and errors[0].count("\n") == 1 and says in errors[0], errors
    assert not nosy.db.exists()


@pytest.mark.processes
@needs_bwrap
def test_a_failing_constructor_loses_its_games_as_crashes_in_both_modes(nosy):
    module = nosy.module()
    for flags in ((), ("--sandbox",)):
        nosy.db.unlink(missing_ok=True)
        assert nosy.run("--plugin", module, "--bot", "nosy:fail=true", "--bot", "random", *flags) == 0
        games = results.load(str(nosy.db)).games
        assert list(games.termination) == ["crash", "crash"], flags
        assert all("nosy constructor failed" in m for m in games.message)


@pytest.mark.processes
@needs_bwrap
def test_a_plugin_that_fails_to_import_in_its_sandbox_is_one_line(nosy, capsys):
    (nosy.folder / "broken_plugin.py").write_text("raise RuntimeError('boom at import')\n")
    assert nosy.run("--plugin", "broken_plugin", "--bot", "random", "--bot", "greedy", "--sandbox") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot import plugin module 'broken_plugin'" in err and "boom at import" in err
    for flags in ((), ("--sandbox",)):  # a missing module: the same line either way
        assert nosy.run("--plugin", "no_such_plugin", "--bot", "random", "--bot", "greedy", *flags) == 2
        assert capsys.readouterr().err == "arena: error: cannot import plugin module 'no_such_plugin': No module named 'no_such_plugin'\n"


@pytest.mark.processes
@needs_bwrap
def test_each_plugin_is_probed_in_a_sandbox_that_shows_no_other_plugin(nosy):
    other = nosy.module("other")
    mine = nosy.module("nosy", other=str(nosy.folder / f"{other}.py"))
    registry = sandboxed_registry("tictactoe", ["nosy", "other"], [mine, other], Limits(sandbox=True))
    assert registry.bot_class("nosy").describe()["description"] == "saw the other plugin: False"
    assert registry.hosts("nosy") == (mine,) and registry.hosts("other") == (other,) and registry.hosts("random") is None
    assert registry.errors == [] and nosy.reached() == ([], 0)
    # outside a sandbox, the same module sees it: the probe can succeed
    assert importlib.import_module(mine).SAW_OTHER is True


@pytest.mark.processes
@needs_bwrap
def test_a_third_party_game_is_loaded_by_the_runner_and_its_bots_probed(nosy, capsys):
    (nosy.folder / f"game_{nosy.tag}.py").write_text(textwrap.dedent('''
        from arena import hookimpl
        from games.tictactoe import TicTacToe

        class Noughts(TicTacToe):
            name = "noughts"

        @hookimpl
        def register_games(register):
            register(Noughts)
    '''))
    module = nosy.module()
    argv = ["run", "--game", "noughts", "--games", "2", "--openings", "0", "--jobs", "1", "--no-progress",
            "--db", str(nosy.db), "--plugin", f"game_{nosy.tag}", "--plugin", module, "--sandbox",
            "--bot", "nosy", "--bot", "random"]
    assert main(argv) == 0, capsys.readouterr().err
    assert f"game_{nosy.tag}" in sys.modules and module not in sys.modules
    assert nosy.reached() == ([], 0)
    assert list(results.load(str(nosy.db)).games.termination) == ["normal", "normal"]


@pytest.mark.processes
@needs_bwrap
def test_probing_costs_a_sandboxed_process_start_per_plugin_in_parallel(nosy, capsys):
    # the extra set-up cost of a sandboxed run with 2 and 8 plugin bots, each in a module of its own
    seconds = {}
    for count in (2, 8):
        modules = [nosy.module(f"nosy{count}x{i}") for i in range(count)]
        start = time.perf_counter()
        registry = sandboxed_registry("tictactoe", [f"nosy{count}x{i}" for i in range(count)], modules)
        seconds[count] = time.perf_counter() - start
        assert sorted(registry.probed) == sorted(f"nosy{count}x{i}" for i in range(count))
    with capsys.disabled():
        print(f"\nprobing set-up: 2 plugins {seconds[2]:.2f}s, 8 plugins {seconds[8]:.2f}s")
    assert seconds[8] < 60


@needs_bwrap
def test_validate_refuses_to_build_a_third_party_bot_of_a_sandboxed_config_from_a_plain_registry(nosy):
    from arena.plugins import get_registry
    from arena.front.tournament import validate

    module = importlib.import_module(nosy.module())
    nosy.reached()  # imported here on purpose: only validate's own building is under test
    nosy.marker.unlink()
    config = TournamentConfig(game="tictactoe", bots=(Entrant("nosy", "nosy"), Entrant("random", "random")), sandbox=True)
    with pytest.raises(ArenaError, match="'nosy' of plugin .* would be built outside a sandbox"):
        validate(config, get_registry(plugins=[module]))
    assert nosy.reached() == ([], 0)


@pytest.mark.processes
@needs_bwrap
def test_a_sandboxed_ladder_never_runs_a_plugin_outside_a_sandbox_even_for_a_bot_added_later(nosy):
    first, later = nosy.module("nosy"), nosy.module("nosy-late")
    db = str(nosy.db)
    quiet = ["--no-progress", "--jobs", "1"]
    assert main(["ladder", db, "--game", "tictactoe", "--budget", "nodes=50", "--sandbox", "--plugin", first,
                 "--plugin", later, "--add", "n=nosy", "r=random", "--games", "4", *quiet]) == 0
    assert main(["ladder", db, "--plugin", first, "--plugin", later, "--add", "m=nosy-late", "--games", "8", *quiet]) == 0
    assert nosy.reached() == ([], 0)
    assert first not in sys.modules and later not in sys.modules
    games = results.load(db, "ladder").games
    assert set(games.termination) == {"normal"} and {"n", "m"} <= set(games.first) | set(games.second)


@pytest.mark.processes
def test_without_the_sandbox_the_same_ladder_reaches_out(nosy):
    module = nosy.module()
    assert main(["ladder", str(nosy.db), "--game", "tictactoe", "--budget", "nodes=50", "--plugin", module,
                 "--add", "n=nosy", "r=random", "--games", "2", "--no-progress", "--jobs", "1"]) == 0
    written, connections = nosy.reached()
    assert "import" in written and connections >= 1
