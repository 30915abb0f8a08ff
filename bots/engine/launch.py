"""How an engine's process starts and ends: its program found (and named), the hard limits it starts under,
and its whole tree killed."""

from __future__ import annotations

import os
import re
import resource
import shlex
import shutil
import signal
import subprocess

from arena.errors import BotFault, ParameterError
from arena.execution import cgroup
from arena.records import Termination

#: Folders searched after PATH for a program named without a folder (Debian puts Stockfish in /usr/games).
GAME_FOLDERS = ("/usr/games", "/usr/local/games")
#: Programs that run a script named after them (the script names the engine, not them).
INTERPRETER = re.compile(r"^(python|pypy|node|java|ruby|perl|php|Rscript|julia|bash|sh|dotnet|mono)[0-9.]*(\.exe)?$")


def find_program(program: str) -> str:
    """The path of a program: as given if it names a folder, else found on PATH or in GAME_FOLDERS."""
    if os.sep in program:
        return program
    found = shutil.which(program) or shutil.which(program, path=os.pathsep.join(GAME_FOLDERS))
    if found is None:
        where = ", ".join(("PATH",) + GAME_FOLDERS)
        raise BotFault(Termination.CRASH, "failed to start", f"no program {program!r} on {where}")
    return found


def command_line(cmd: str, bot: str) -> list[str]:
    """``cmd`` split as a shell would, its program found (``find_program``); ParameterError names
    bot ``bot``'s mistake."""
    try:
        argv = shlex.split(cmd)
    except ValueError as exc:
        raise ParameterError(f"bad cmd {cmd!r} for bot {bot!r}: {exc}") from None
    if not argv:
        raise ParameterError(f"bot {bot!r} needs the engine's command: {bot}:cmd=PATH")
    argv[0] = find_program(argv[0])
    return argv


def program_name(cmd: str) -> str | None:
    """The program a command line runs (``stockfish``), or the script an interpreter runs (``engine.py``)."""
    try:
        words = shlex.split(cmd)
    except ValueError:
        return None
    if not words:
        return None
    program = os.path.basename(words[0])
    if INTERPRETER.match(program):
        scripts = [w for w in words[1:] if not w.startswith("-")]
        program = os.path.basename(scripts[0]) if scripts else program
    return program or None


def kill_group(proc: subprocess.Popen, tree) -> None:
    """SIGKILL the process group ``proc`` leads and every process of its tree (those that left
    the group too), and reap ``proc``."""
    if tree is not None:  # first: a Descendants loses the orphans of a dead engine
        tree.kill()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if tree is not None:
        tree.kill()
    proc.wait()


def hard_limits(memory_bytes: int | None, output_bytes: int, tree: cgroup.Tree | None, drop=None):
    """What the child runs before the engine: join its tree, and set hard limits on its address
    space (if any) and on the size of any file it writes (its stderr file among them); ``drop``:
    give up its capabilities. System calls only: the runner may have threads, one of which may
    hold a lock when it forks."""
    join = tree.joiner() if tree is not None else cgroup.subreaper  # no cgroup: orphans stay below it

    def limit():
        join()
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (output_bytes, output_bytes))
        if drop is not None:
            drop()

    return limit
