"""What a third-party plugin registers, learned in a sandbox: its code never runs in the runner.

In a sandboxed run the runner does not import third-party plugins. For each one it starts
``python -m arena.execution.sandbox.probe FD`` under bubblewrap (see arena.execution.sandbox.bubblewrap), seeing
only that plugin's files (and the game's plugin, if the game is a third party's), which
imports it and answers, as JSON on ``FD``:

    {"games": [name, ...], "bots": {name: {"interactive", "external", "follows_moves", "describe"}},
     "errors": [line, ...], "game": true if it could build the game,
     "checks": {spec: {"short", "params", "parameters", "error": [class, text], "broken": text}}}

or ``{"failed": text}`` if the plugin cannot be loaded. A check builds the bot of each spec
given whose name the plugin registers, and asks it whether it can play the game, as the
runner does for the arena's own bots: "error" is the error it raised (a bad parameter, a
refused game), "broken" a constructor that failed otherwise.
"""

from __future__ import annotations

import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import time

from arena.execution.sandbox import bubblewrap as sandbox
from arena.execution.host import limit_resource
from arena.execution.isolation import output_tail
from arena.limits import Limits

MODULE = "arena.execution.sandbox.probe"  # run as __main__, so not __name__
#: The longest answer read from a probe (a plugin's listing is a few KiB).
ANSWER_BYTES = 16 << 20


def probe(source: str, game: str, specs, limits: Limits, game_plugins=()) -> dict:
    """Load plugin ``source`` in a sandbox of its own and return its answer (see the module's text).

    ``game_plugins`` (trusted) are loaded in the sandbox too, so a third-party game can be built;
    the probe may take ``limits.watchdog`` seconds, and ``limits.memory_limit`` of memory.
    """
    readable = tuple(f for name in (*game_plugins, source) for f in sandbox.source_files(name))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    box = sandbox.Sandbox(readable, (("PYTHONPATH", root),))  # where arena/ is, for python -m
    request = {
        "sys_path": sandbox.visible(sys.path, readable), "source": source, "game_plugins": list(game_plugins),
        "game": game, "specs": list(specs), "memory_bytes": limits.memory_bytes, "output_bytes": limits.output_bytes,
    }
    ours, theirs = os.pipe()
    output = tempfile.TemporaryFile()
    try:
        proc = sandbox.popen(
            [sys.executable, "-m", MODULE, str(theirs)], box,
            pass_fds=(theirs,), stdin=subprocess.PIPE, stdout=output, stderr=output,
        )
    except OSError as exc:
        os.close(ours)
        return {"failed": f"its sandbox cannot start: {exc}"}
    finally:
        os.close(theirs)
    try:
        try:
            proc.stdin.write(json.dumps(request).encode())
            proc.stdin.close()
        except OSError:
            pass  # it died at once: said below
        data = _read(ours, time.monotonic() + limits.watchdog)
        if data is None:
            proc.kill()
            proc.wait()
            return {"failed": f"took longer than {limits.watchdog:g}s to load in its sandbox; its process was killed"}
        code = proc.wait()
        try:
            answer = json.loads(data)
        except (ValueError, RecursionError):
            tail = output_tail(output.fileno())
            return {"failed": f"its process exited with code {code}" + (f" (last output: {tail})" if tail else "")}
        why = answer_problem(answer)
        return answer if why is None else {"failed": f"it sent a malformed answer ({why})"}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(ours)
        output.close()


def _read(fd: int, deadline: float) -> bytes | None:
    """Everything written to ``fd`` until it closes, or None past ``deadline``."""
    chunks, size = [], 0
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > ANSWER_BYTES:
                return b""  # not JSON: reported as a failed probe


def examine(request: dict) -> dict:
    """Inside the sandbox: load the plugin and answer for it."""
    from arena.errors import ArenaError, ParameterError
    from arena.params import parse_spec
    from arena.plugins import get_registry, load_plugin

    try:
        trusted = [load_plugin(name) for name in request["game_plugins"]]
        base = get_registry(entry_points=False, plugins=trusted)
        full = get_registry(entry_points=False, plugins=[*trusted, load_plugin(request["source"])])
    except (Exception, SystemExit) as exc:  # its module-level code may raise anything
        return {"failed": f"{type(exc).__name__}: {exc}"}
    bots = {name: e.cls for name, e in full.bots.items() if name not in base.bots}
    answer = {
        "games": [name for name in full.games if name not in base.games],
        "bots": {name: _about(cls) for name, cls in bots.items()},
        "errors": [line for line in full.errors if line not in base.errors],
        "checks": {},
    }
    try:
        game = full.game(request["game"])
    except Exception:
        game = None  # not this plugin's, or bad parameters: the runner says which
    answer["game"] = game is not None
    for spec in request["specs"]:
        try:
            name, text = parse_spec(spec)
        except ArenaError:
            continue  # the runner reports it
        if name not in bots or game is None:
            continue
        cls = bots[name]
        check = answer["checks"][spec] = {"short": _quiet(lambda: cls.short_name(text))}
        try:
            values = cls.parse_params(text)
            check["params"] = json.loads(json.dumps(values, default=str))
            check["parameters"] = bool(cls.parameters)
            if cls.interactive:
                continue  # refused by the runner
            try:
                bot = cls(**values)
            except ParameterError:
                raise
            except (Exception, SystemExit) as exc:
                check["broken"] = f"{type(exc).__name__}: {exc}"
                continue
            bot.check_game(game)
        except ArenaError as exc:
            check["error"] = [type(exc).__name__, str(exc)]
        except (Exception, SystemExit) as exc:
            check["error"] = ["ParameterError", f"bot {spec!r} failed at set-up: {type(exc).__name__}: {exc}"]
    return answer


def answer_problem(answer) -> str | None:
    """Why a probe's answer is not one ``examine`` writes (its types, which the runner uses
    unchecked otherwise), or None: a sandboxed plugin writes it, and may write anything."""
    if not isinstance(answer, dict):
        return "not an object"
    if "failed" in answer:
        return None if isinstance(answer["failed"], str) else "failed is not text"
    if not _texts(answer.get("games")) or not _texts(answer.get("errors")):
        return "games and errors must be lists of text"
    if not isinstance(answer.get("game", False), bool):
        return "game is not true or false"
    bots, checks = answer.get("bots"), answer.get("checks")
    if not isinstance(bots, dict) or not isinstance(checks, dict):
        return "bots and checks must be objects"
    for name, about in bots.items():
        if not isinstance(about, dict) or not all(isinstance(about.get(k), bool) for k in ("interactive", "external", "follows_moves")):
            return f"bot {name[:40]!r} lacks its flags"
        describe = about.get("describe")
        if not (isinstance(describe, dict) and isinstance(describe.get("name"), str) and isinstance(describe.get("description"), str)
                and isinstance(describe.get("parameters"), list) and all(isinstance(p, dict) for p in describe["parameters"])):
            return f"bot {name[:40]!r} has a malformed description"
    for spec, found in checks.items():
        if not isinstance(found, dict):
            return f"check of {spec[:40]!r} is not an object"
        if not isinstance(found.get("short"), (str, type(None))) or not isinstance(found.get("broken", ""), str):
            return f"check of {spec[:40]!r} has a malformed field"
        if "params" in found and not isinstance(found["params"], dict):
            return f"check of {spec[:40]!r} has malformed parameters"
        if "error" in found and not (isinstance(found["error"], list) and len(found["error"]) == 2 and _texts(found["error"])):
            return f"check of {spec[:40]!r} has a malformed error"
    return None


def _texts(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _about(cls) -> dict:
    return {
        "interactive": bool(cls.interactive), "external": bool(cls.external), "follows_moves": bool(getattr(cls, "follows_moves", False)),
        "describe": _quiet(cls.describe) or {"name": cls.name, "description": "", "parameters": []},
        "class": cls.__name__,
    }


def _quiet(call):
    try:
        return call()
    except Exception:
        return None


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner handles Ctrl-C
    request = json.loads(sys.stdin.read())
    sys.path[:] = request["sys_path"]
    limit_resource(resource.RLIMIT_AS, request["memory_bytes"])
    limit_resource(resource.RLIMIT_FSIZE, request["output_bytes"])
    answer = json.dumps(examine(request), default=str)
    with os.fdopen(int(sys.argv[1]), "w") as out:
        out.write(answer)


if __name__ == "__main__":
    main()
