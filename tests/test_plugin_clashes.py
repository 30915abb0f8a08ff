"""A name registered by two plugins: the first registration wins, the second is reported and skipped."""

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from arena import Bot, get_registry, hookimpl
from tests.plugins import clashing, duplicate

ROOT = Path(__file__).resolve().parent.parent


def test_built_ins_win_even_over_a_plugin_whose_hooks_pluggy_lists_first():
    registry = get_registry(entry_points=False, plugins=[clashing])
    assert registry.bots["random"].plugin == "bots.builtin"
    assert registry.errors == [
        "bot name 'random' is registered twice: by plugin 'bots.builtin' and by plugin "
        "'tests.plugins.clashing'; the second (ClashingRandom) is skipped"
    ]
    # the plugin's other names are registered and usable
    assert registry.bots["first-move"].plugin == "tests.plugins.clashing"
    assert registry.games["small-nim"].plugin == "tests.plugins.clashing"
    assert registry.bot("first-move").choose(registry.game("small-nim"), registry.game("small-nim").initial_state(), None)


def test_between_third_parties_the_first_registered_wins():
    class OtherFirstMove(Bot):
        name = "first-move"
        description = "clashes with the plugin clashing"

        def choose(self, game, state, budget):
            return game.legal_moves(state)[-1]

    later = types.SimpleNamespace(register_bots=hookimpl(tryfirst=True)(lambda register: register(OtherFirstMove)))
    registry = get_registry(entry_points=False, plugins=[clashing, later, duplicate])
    assert registry.bots["first-move"].cls is clashing.FirstMove
    clashes = [line for line in registry.errors if "'first-move'" in line]
    assert len(clashes) == 1 and "by plugin 'tests.plugins.clashing' and by plugin" in clashes[0]
    assert clashes[0].endswith("the second (OtherFirstMove) is skipped")
    assert len(registry.errors) == 3  # random twice (clashing, duplicate), first-move once


def _entry_point_dir(tmp_path: Path) -> Path:
    """A directory holding an installed distribution 'clash-plugin' whose entry point is tests.plugins.clashing."""
    dist = tmp_path / "clash_plugin-2.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: clash-plugin\nVersion: 2.0\n")
    (dist / "entry_points.txt").write_text("[arena]\nclash = tests.plugins.clashing\n")
    return tmp_path


@pytest.mark.processes
def test_an_installed_clashing_plugin_is_one_warning_and_every_command_still_works(tmp_path):
    path = os.pathsep.join([str(_entry_point_dir(tmp_path)), str(ROOT)])
    env = {**os.environ, "PYTHONPATH": path}

    def arena(*argv):
        return subprocess.run([sys.executable, "-m", "arena", *argv], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)

    listed = arena("bots")
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr == (
        "arena: warning: bot name 'random' is registered twice: by plugin 'bots.builtin' and by plugin "
        "'clash'; the second (ClashingRandom) is skipped\n"
    )
    assert "first-move" in listed.stdout and "uniformly random legal move" in listed.stdout
    played = arena("play", "small-nim", "--bot", "first-move", "--bot", "random", "--seed", "1", "--quiet")
    assert played.returncode == 0, played.stderr
    assert "result " in played.stdout and "(normal)" in played.stdout
