"""The README and docs say what the code does: defaults, layout, architecture."""

import re
from pathlib import Path

from arena.front.cli import build_parser
from arena.front.settings import DEFAULT_SETTINGS
from arena.limits import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
LIMITS = {
    "time_margin": DEFAULT_LIMITS.time_margin,
    "watchdog": DEFAULT_LIMITS.watchdog,
    "memory_limit": DEFAULT_LIMITS.memory_limit,
    "output_limit": DEFAULT_LIMITS.output_limit,
}


def test_each_limit_has_one_default_everywhere():
    assert {k: DEFAULT_SETTINGS[k] for k in LIMITS} == LIMITS
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    helps = {a.dest: a.help for a in run._actions}
    for key, value in LIMITS.items():
        assert re.search(rf"^{key} = {value:g}\b", README, re.M), f"README's TOML example: {key}"
        assert f"(default {value:g}" in helps[key], f"arena run --help: {key}"
    flags = {"time_margin": "s", "watchdog": "s", "memory_limit": "", "output_limit": ""}
    for key, unit in flags.items():
        flag = "--" + key.replace("_", "-")
        found = re.search(rf"`{flag}`[^|]*default {LIMITS[key]:g}\b", README)
        assert found, f"README's table of faults: {flag}"


def test_the_architecture_doc_is_short_and_names_every_layer():
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert len(text.splitlines()) < 150
    for folder in ("arena/", "arena/execution/", "arena/front/", "results/", "games/", "bots/"):
        assert f"`{folder}`" in text and f"`{folder}`" in README, folder


def test_ci_runs_the_readmes_test_command_verbatim():
    first_block = re.search(r"^```sh\n(.*?)^```", README, re.M | re.S).group(1).splitlines()
    assert len(first_block) == 2 and "pytest" in first_block[1]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert first_block[1] in ci
