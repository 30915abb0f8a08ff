"""A bot host: one bot spec in a process of its own, driven by the referee over a socket.

Started by ``arena.execution.isolation`` as ``python -m arena.execution.host FD PARENT``. The host caps its own
memory and output, dies with its parent, and answers one request at a time:

    ("start", spec, game_spec, player, seed)    build a fresh bot; start a game -> {"ok": true}
    ("choose", state, budget)                   -> {"move": TEXT, "nodes": N, ...}
    ("view", view_texts, budget)                a seat's view, never the state (``arena.view``) -> the same

``budget`` is None when it is the one of the move before (it is sent once per game).
Answers are plain data (``arena.execution.channel``): the move as the game writes it, never
a pickled object, so nothing a bot returns can run code in the runner. Any other answer
names a fault. stdout and stderr go to a file the referee truncates each game.
"""

from __future__ import annotations

import ctypes
import errno
import os
import pickle
import resource
import signal
import socket
import sys

from arena.bot import Decision
from arena.execution import channel
from arena.execution.confine import drop_privileges
from arena.referee import legal_index
from arena.view import View, move_text, view_from_texts

PR_SET_PDEATHSIG = 1


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
    """Set this process's limit of ``kind`` to ``value``, soft and hard alike, so that no code
    it runs can lift it (and every child inherits it); at most the hard limit it had. None: leave it."""
    if value is None:
        return
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def serve(sock: socket.socket) -> None:
    setup = pickle.loads(channel.read_frame(sock))
    output_limit = setup["output_bytes"]
    # before any plugin's code runs: nothing it starts escapes them
    limit_resource(resource.RLIMIT_FSIZE, output_limit)
    limit_resource(resource.RLIMIT_AS, setup["memory_bytes"])
    if setup.get("confined"):
        drop_privileges()
    sys.path[:] = setup["sys_path"]
    from arena.budget import BudgetExhausted, Counter, counted
    from arena.execution.specs import fresh_game, registry_for

    plugins = tuple(setup["plugins"])
    entry_points = setup.get("entry_points", True)
    registry = registry_for(plugins, entry_points)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    sock.sendall(channel.answer({"ready": True}))
    bot = view = counter = game = None
    while True:
        data = channel.read_frame(sock)
        if data is None:
            return
        request = pickle.loads(data)  # from the runner, which this process trusts
        kind, active = request[0], None  # active: the counter of a move under way
        try:
            if kind == "start":
                _reap()  # what the bot started in its last game was killed: its process count is free again
                _, spec, game_spec, player, seed = request
                bot = view = None
                bot = registry.bot(spec)
                counter = Counter()
                game = fresh_game(game_spec, plugins, entry_points)
                # a copy per game, as in the worker, counting what the bot's apply makes
                view = counted(game, counter)
                bot.new_game(view, player, seed)
                answer = {"ok": True}
            else:
                _, state, budget = request
                if kind == "view":
                    state = view_from_texts(game, state)
                if budget is not None:
                    counter.budget = budget
                counter.reset()
                counter.tick()  # the root, as the referee counts it
                active = counter
                chosen = bot.choose(view, state, counter)
                answer = move_answer(game, state, chosen, counter.nodes)
        except BudgetExhausted:
            answer = _fault("budget", counter.out_of_budget(), counter.nodes)  # raised in a move: the counter is set
        except MemoryError:
            answer = _fault("memory", "MemoryError", _nodes(active))
        except BaseException as exc:  # a bot may raise anything, SystemExit included
            if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
                answer = _fault("output", _output_text(output_limit), _nodes(active))
            else:
                answer = _fault("crash", _describe(exc), _nodes(active))
        if _flush_failed() or os.fstat(1).st_size >= output_limit:
            answer = _fault("output", _output_text(output_limit), _nodes(active))
        sock.sendall(channel.answer(answer))


def move_answer(game, state, chosen, nodes: int) -> dict:
    """The answer for what a bot chose: its move as the game writes it, with the decision's
    fields as plain values; a move that is not legal is only shown (the runner checks again)."""
    decision = chosen if isinstance(chosen, Decision) else None
    move = decision.move if decision is not None else chosen
    seen = isinstance(state, View)
    try:
        if seen:  # the texts the runner sent, as it reads them back
            index = legal_index(state.legal, move)
            text = None if index is None else move_text(game, state, state.legal[index])
        else:
            legal = game.legal_moves(state)
            index = legal_index(legal, move)
            text = None if index is None else game.move_text(state, legal[index])
    except Exception:
        text = None
    if text is None:
        return {"illegal": _shown(move), "nodes": nodes}
    answer = {"move": text, "nodes": nodes}
    if decision is None:
        return answer
    for key in ("score", "depth"):
        value = getattr(decision, key)
        if value is not None:
            answer[key] = value if type(value) in (int, float) else _shown(value)  # the runner refuses text
    if decision.nodes is not None:
        answer["reported"] = decision.nodes if type(decision.nodes) is int else _shown(decision.nodes)
    if decision.pv and not seen:  # a line of play needs the state
        try:
            pv = list(decision.pv)
            if len(pv) > channel.MAX_PV:
                answer["badpv"] = f"{len(pv):,} moves"
            else:
                answer["pv"] = game.line_text(state, pv)
        except Exception as exc:
            answer["badpv"] = _describe(exc)
    return answer


def _reap() -> None:
    """Reap this process's children that have ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _fault(kind: str, text: str, nodes: int) -> dict:
    return {"fault": kind, "text": text, "nodes": nodes}


def _shown(value) -> str:
    try:
        return channel.plain(repr(value))
    except Exception:
        return f"<{channel.plain(type(value).__name__, 80)}>"


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        text = ""
    return channel.plain(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


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
    serve(socket.socket(fileno=int(sys.argv[1])))


if __name__ == "__main__":
    main()
