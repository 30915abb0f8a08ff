"""Engines in games of hidden information and simultaneous moves (docs/protocol.md, "Hidden
information and simultaneous moves"): the public history, one ``observation`` line and a
``legal`` line before each ``go``, never a hidden card; a fresh engine per game, started in an
empty scratch folder that is removed after it.

Every engine here runs behind ``SPY``, a wrapper written by the tests that logs each line the
arena sends and where the engine was started, then passes the lines on: what an engine was
told is read from that log, not from the engine's own word.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from arena import Budget, get_registry
from arena.records import Termination
from arena.referee import play_game
from arena.view import make_view
from bots.engine.views import escape, unescape, view_lines

ROOT = Path(__file__).resolve().parent.parent
KUHN_ENGINE = ROOT / "examples" / "engines" / "python" / "kuhn.py"
REGISTRY = get_registry(entry_points=False)

# ``spy LOG [COMMAND...]``: logs where it runs and every line it gets, and passes them to COMMAND;
# with no command it is an engine itself that plays the first move of the ``legal`` line
SPY = """
import os, subprocess, sys

log = open(sys.argv[1], "a")
here = os.getcwd()
log.write(f"start pid={os.getpid()} cwd={here} empty={not os.listdir(here)} "
          f"home={os.environ.get('HOME') == here} tmp={os.environ.get('TMPDIR') == here}\\n")
log.flush()
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, text=True) if sys.argv[2:] else None
legal = []
for line in sys.stdin:
    log.write("> " + line)
    log.flush()
    if child is not None:
        child.stdin.write(line)
        child.stdin.flush()
        continue
    words = line.split()
    head = words[0] if words else ""
    answers = {"arena": ["id name spy", "arenaok"], "isready": ["readyok"]}.get(head, [])
    if head == "legal":
        legal = words[1:]
    if head == "go":
        answers = ["info nodes 1", "bestmove " + legal[0]]
    if head == "quit":
        break
    for answer in answers:
        sys.stdout.write(answer + "\\n")
    sys.stdout.flush()
if child is not None:
    child.stdin.close()
    child.wait()
"""


@pytest.fixture
def spied(tmp_path):
    """``spied(name, *command)``: an engine bot behind SPY (its own engine without a command),
    and the log of what it was sent."""
    spy = tmp_path / "spy.py"
    spy.write_text(SPY)
    made = []

    def make(name, *command):
        log = tmp_path / f"{name}.log"
        bot = REGISTRY.bot(f"engine:cmd={shlex.join([sys.executable, str(spy), str(log), *map(str, command)])}")
        made.append(bot)
        return bot, log

    yield make
    for bot in made:
        bot.close()


def games_in(log: Path) -> list[list[str]]:
    """The log cut at each engine start: per process, its start line then every line it was sent."""
    out: list[list[str]] = []
    for line in log.read_text().splitlines():
        if line.startswith("start "):
            out.append([line])
        else:
            out[-1].append(line[2:])
    return out


def test_an_observation_travels_on_one_line_and_reads_back():
    for text in ("You hold Q.\nPlay: first bets.", "a \\ b\\n c\r\n", "", "naïve\tsecond"):
        line = escape(text)
        assert "\n" not in line and "\r" not in line and unescape(line) == text
    game = REGISTRY.game("kuhn_poker")
    state = game.play(["Q", "K", "b"])
    lines = view_lines(game, make_view(game, state, 1, ("?", "?", "b")))
    assert lines[0] == "position start public ? ? b" and lines[2] == "legal p b"
    assert unescape(lines[1][len("observation "):]) == game.observation(state, 1) and "Q" not in lines[1]


@pytest.mark.processes
def test_the_kuhn_engine_is_told_only_its_own_card_each_game_in_a_fresh_process(spied, tmp_path):
    """Six games of the example engine against a spied engine of its own, seats swapped: each game
    starts both engines afresh in an empty folder of their own, and no line either engine is sent
    holds the other's card."""
    game = REGISTRY.game("kuhn_poker")
    kuhn, kuhn_log = spied("kuhn", sys.executable, KUHN_ENGINE)
    kuhn.options = (("Seed", "7"),)
    spy, spy_log = spied("spy")
    records = []
    for k in range(6):
        bots = [kuhn, spy] if k % 2 == 0 else [spy, kuhn]
        records.append(play_game(game, bots, budgets=[Budget(nodes=100)] * 2, seed=k))
        assert records[-1].termination is Termination.NORMAL, records[-1].message
        assert kuhn.engine is not None and kuhn.engine.scratch is not None and os.path.isdir(kuhn.engine.scratch)
    for bot, log in ((kuhn, kuhn_log), (spy, spy_log)):
        played = games_in(log)
        assert len(played) == 6 and len({lines[0].split()[1] for lines in played}) == 6  # six processes
        for k, (record, lines) in enumerate(zip(records, played)):
            start = lines[0]
            assert "empty=True home=True tmp=True" in start and f"cwd={os.getcwd()} " not in start
            seat = k % 2 if bot is kuhn else 1 - k % 2
            dealt = [m.move for m in record.moves if m.player == -1]
            mine, theirs = dealt[seat], dealt[1 - seat]
            assert f"newgame {seat}" in lines and not any(theirs in line for line in lines[1:]), lines
            observed = [unescape(line[len("observation "):]) for line in lines if line.startswith("observation ")]
            asked = [m for m in record.moves if m.player == seat]
            assert len(observed) == len(asked) and all(f"hold {mine}." in o for o in observed)
            positions = [line for line in lines if line.startswith("position ")]
            assert all(p.startswith("position start public ? ?") for p in positions)
        bot.close()
    scratch = [lines[0].split("cwd=")[1].split()[0] for lines in games_in(kuhn_log)]
    assert not any(os.path.exists(folder) for folder in scratch)  # each removed with its engine


@pytest.mark.processes
def test_an_engine_at_a_joint_move_is_never_told_the_other_choice(spied):
    """Rock-Paper-Scissors: both engines are asked before either choice is applied, so the position
    each is sent holds the throws before this one only (``moves``: nothing is hidden)."""
    game = REGISTRY.game("rps:throws=3")
    first, first_log = spied("first")
    second, second_log = spied("second")
    record = play_game(game, [first, second], seed=1)
    assert record.termination is Termination.NORMAL and [m.move for m in record.moves] == ["R", "R"] * 3
    for log in (first_log, second_log):
        (lines,) = games_in(log)
        positions = [line for line in lines if line.startswith("position ")]
        assert positions == ["position start", "position start moves R R", "position start moves R R R R"]
        assert all(line.startswith("observation ") for line in lines if line.startswith("obs"))
        assert "legal P R S" in lines or "legal R P S" in lines


@pytest.mark.processes
def test_the_protocol_doc_shows_what_the_kuhn_engine_answers():
    """docs/protocol.md's Kuhn exchange, sent to the example engine: the same answers (with a king,
    facing a check, the engine always bets)."""
    import re
    import subprocess

    text = (ROOT / "docs" / "protocol.md").read_text()
    (block,) = re.findall(r"```text\n(> arena 1\n.*?)```", text, re.S)
    sent = [line[2:] for line in block.splitlines() if line.startswith("> ")]
    shown = [line[2:] for line in block.splitlines() if line.startswith("< ")]
    done = subprocess.run([sys.executable, str(KUHN_ENGINE)], input="\n".join(sent) + "\n", capture_output=True,
                          text=True, timeout=30)
    assert done.stdout.splitlines() == shown and done.stderr == ""
