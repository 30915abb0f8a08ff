"""A bot host: one bot spec in a process of its own, driven by the referee over a socket.

Started by ``arena.execution.isolation`` as ``python -m arena.execution.host FD PARENT``. The host caps its own
memory and output, dies with its parent, and answers one request at a time:

    ("start", spec, game_spec, player, seed)    build a fresh bot; start a game -> ("ok",)
    ("choose", state, budget)                   -> ("move", move or Decision, nodes)

``budget`` is None when it is the one of the move before (it is sent once per game).
Any other answer names a fault: ("error", text, nodes), ("memory", text, nodes) or
("output", text, nodes). stdout and stderr go to a file the referee truncates each game.
"""

from __future__ import annotations

import ctypes
import errno
import os
import pickle
import resource
import signal
import sys
from multiprocessing.connection import Connection

PR_SET_PDEATHSIG = 1


class Unsendable:
    """Stands in for a move that could not be pickled; never equal to a legal move."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text


def die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (best effort elsewhere).

    ``parent`` 0: the host is in a sandbox's PID namespace, where the runner is not its
    parent; the sandbox (``--die-with-parent``) ends it with the runner.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if parent and os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def limit_resource(kind: int, value: int | None) -> None:
    """Lower this process's soft limit of ``kind`` to ``value`` (at most its hard limit); None: leave it."""
    if value is None:
        return
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, hard))


def serve(conn: Connection) -> None:
    setup = conn.recv()
    sys.path[:] = setup["sys_path"]
    from arena.bot import Decision
    from arena.budget import BudgetExhausted, Counter, counted
    from arena.execution.specs import fresh_game, registry_for

    plugins = tuple(setup["plugins"])
    entry_points = setup.get("entry_points", True)
    registry = registry_for(plugins, entry_points)
    output_limit = setup["output_bytes"]
    limit_resource(resource.RLIMIT_FSIZE, output_limit)
    limit_resource(resource.RLIMIT_AS, setup["memory_bytes"])
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    conn.send(("ready",))
    bot = view = counter = None
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        kind, active = request[0], None  # active: the counter of a move under way
        try:
            if kind == "start":
                _, spec, game_spec, player, seed = request
                bot = view = None
                bot = registry.bot(spec)
                counter = Counter()
                # a copy per game, as in the worker, counting what the bot's apply makes
                view = counted(fresh_game(game_spec, plugins, entry_points), counter)
                bot.new_game(view, player, seed)
                answer = ("ok",)
            else:
                _, state, budget = request
                if budget is not None:
                    counter.budget = budget
                counter.reset()
                counter.tick()  # the root, as the referee counts it
                active = counter
                chosen = bot.choose(view, state, counter)
                answer = ("move", chosen, counter.nodes)
        except BudgetExhausted:
            answer = ("error", counter.out_of_budget(), counter.nodes)  # raised in a move: the counter is set
        except MemoryError:
            answer = ("memory", "MemoryError", _nodes(active))
        except BaseException as exc:  # a bot may raise anything, SystemExit included
            if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
                answer = ("output", _output_text(output_limit), _nodes(active))
            else:
                text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                answer = ("error", text, _nodes(active))
        if _flush_failed() or os.fstat(1).st_size >= output_limit:
            answer = ("output", _output_text(output_limit), _nodes(active))
        try:
            conn.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            chosen = answer[1]
            move = chosen.move if isinstance(chosen, Decision) else chosen
            conn.send(("move", Unsendable(f"<unsendable {type(move).__name__}: {exc}>"), answer[2]))


def _nodes(counter) -> int:
    return counter.nodes if counter is not None else 0


def _flush_failed() -> bool:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        return False
    except OSError:
        return True


def _output_text(limit: int) -> str:
    return f"more than its limit of {limit:,} bytes to stdout and stderr"


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner handles Ctrl-C
    die_with_parent(int(sys.argv[2]))
    serve(Connection(int(sys.argv[1])))


if __name__ == "__main__":
    main()
