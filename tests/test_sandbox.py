"""The sandbox (arena.execution.sandbox): what a bot process under bubblewrap can see and do.

Tests that run bwrap skip, naming the reason, where it is missing or cannot start.
"""

import os
import subprocess
import sys

import pytest

from arena.errors import ArenaError
from arena.execution import sandbox


def _why_not() -> str:
    try:
        sandbox.check()
    except ArenaError as exc:
        return str(exc)
    return ""


WHY_NOT = _why_not()
needs_bwrap = pytest.mark.skipif(bool(WHY_NOT), reason=WHY_NOT or "bwrap works")


def run_inside(code: str, readable=(), tmp=None) -> subprocess.CompletedProcess:
    scratch = sandbox.Scratch()
    try:
        argv = sandbox.wrap([sys.executable, "-c", code], sandbox.Sandbox(tuple(readable)), scratch.path)
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)
    finally:
        scratch.close()


def test_the_command_line_binds_only_what_is_listed_and_ends_with_the_command():
    argv = sandbox.wrap(["prog", "--x"], sandbox.Sandbox(("/opt/bot",)), "/tmp/s")
    assert argv[-3:] == ["--", "prog", "--x"]
    for flag in ("--unshare-all", "--unshare-user", "--die-with-parent", "--clearenv", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    binds = [argv[i + 1] for i, word in enumerate(argv) if word in ("--ro-bind", "--bind")]
    assert "/" not in binds and "/opt/bot" in binds and "/home" not in binds and os.getcwd() not in binds
    assert argv[argv.index("--chdir") + 1] == sandbox.SCRATCH


def test_an_engine_command_has_its_paths_made_absolute_and_its_folder_readable(tmp_path, monkeypatch):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "engine.py").write_text("")
    monkeypatch.chdir(tmp_path)
    argv, box = sandbox.engine_argv(["/usr/bin/env", "bot/engine.py", "--level", "3"])
    assert argv == ["/usr/bin/env", str(tmp_path / "bot" / "engine.py"), "--level", "3"]
    assert box.readable == (str(tmp_path / "bot"),)


def test_a_missing_bwrap_is_one_line_saying_how_to_install_it(monkeypatch):
    monkeypatch.setattr(sandbox, "_CHECKED", [])
    monkeypatch.setattr(sandbox.shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(ArenaError, match="not installed; install it .*apt-get install bubblewrap") as info:
        sandbox.check()
    assert "\n" not in str(info.value)


def test_a_bwrap_that_cannot_start_says_to_enable_user_namespaces(monkeypatch, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "_CHECKED", [])
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(ArenaError, match="No permissions to creating new namespace.*unprivileged_userns_clone=1"):
        sandbox.check()


@needs_bwrap
def test_inside_there_is_no_network_no_home_no_working_folder_and_only_scratch_is_writable(tmp_path):
    import json
    import socket

    secret = tmp_path / "secret"
    secret.write_text("x")
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    code = f"""
import json, os, socket
seen = {{"secret": os.path.exists({str(secret)!r}), "readme": os.path.exists({os.getcwd()!r} + "/README.md"),
        "root": os.listdir("/root") if os.path.isdir("/root") else [], "uid": os.getuid(), "cwd": os.getcwd(),
        "env": sorted(os.environ)}}
try:
    open("/etc/arena-written", "w")
    seen["etc"] = "written"
except OSError:
    seen["etc"] = "refused"
open("/scratch/mine", "w").write("ok")
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    seen["net"] = "connected"
except OSError:
    seen["net"] = "refused"
print(json.dumps(seen))
"""
    try:
        done = run_inside(code)
        server.settimeout(0.2)
        with pytest.raises(socket.timeout):
            server.accept()
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {
        "secret": False, "readme": False, "root": [".pyenv"] if seen["root"] else [], "uid": sandbox.NOBODY,
        "cwd": sandbox.SCRATCH, "env": ["HOME", "LANG", "PATH", "PWD", "TMPDIR"], "etc": "refused", "net": "refused",
    }
