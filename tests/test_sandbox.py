"""The sandbox (arena.execution.sandbox): what a bot process under bubblewrap can see and do.

Tests that run bwrap skip, naming the reason, where it is missing or cannot start.
"""

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import results
from arena.errors import ArenaError
from arena.execution.sandbox import bubblewrap as sandbox
from arena.front.cli import main
from arena.front.reports import report_text
from results.store import Store
from tests.helpers import accepted, needs_bwrap




def run_inside(code: str, readable=(), tmp=None) -> subprocess.CompletedProcess:
    argv = sandbox.wrap([sys.executable, "-c", code], sandbox.Sandbox(tuple(readable)))
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("euid", [1000, 0], ids=["user", "root"])
def test_the_command_line_binds_only_what_is_listed_and_ends_with_the_command(euid, monkeypatch):
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: euid)
    monkeypatch.delenv(sandbox.ACCOUNT_VARIABLE, raising=False)
    argv = sandbox.wrap(["prog", "--x"], sandbox.Sandbox(("/opt/bot",)))
    assert argv[-3:] == ["--", "prog", "--x"]
    for flag in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--clearenv", "--new-session"):
        assert flag in argv or (flag in ("--unshare-pid", "--unshare-net") and "--unshare-all" in argv)
    if euid:  # a user namespace, every capability dropped, nobody inside
        assert "--unshare-all" in argv and "--unshare-user" in argv and argv[argv.index("--cap-drop") + 1] == "ALL"
    else:  # no user namespace (its nobody would be root outside): setpriv makes the process nobody outright
        assert "--unshare-user" not in argv and "--unshare-all" not in argv
        drop = argv[argv.index("--") + 1 : -2]
        assert os.path.basename(drop[0]) == "setpriv" and drop[-1] == "--"
        for word in ("--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"):
            assert word in drop
    binds = [argv[i + 1] for i, word in enumerate(argv) if word in ("--ro-bind", "--bind")]
    assert "/" not in binds and "/opt/bot" in binds and "/home" not in binds and os.getcwd() not in binds
    assert "/etc" not in binds and "/etc/shadow" not in binds and "/etc/ld.so.cache" in binds
    assert argv[argv.index("--chdir") + 1] == sandbox.SCRATCH
    # the folders above what is bound are made enterable, not left for bwrap to make root's only
    made = [argv[i + 1] for i, word in enumerate(argv) if word == "--dir"]
    assert "/opt" in made and argv[argv.index("/opt") - 3 : argv.index("/opt")] == ["--perms", "0755", "--dir"]


def test_run_as_root_the_sandbox_account_is_configurable_and_never_root(monkeypatch):
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    for name in ("root", "0"):
        monkeypatch.setenv(sandbox.ACCOUNT_VARIABLE, name)
        with pytest.raises(ArenaError, match="has root's rights; name an unprivileged account") as info:
            sandbox.wrap(["prog"], sandbox.Sandbox())
        assert "\n" not in str(info.value)
    monkeypatch.setenv(sandbox.ACCOUNT_VARIABLE, "no-such-account-here")
    with pytest.raises(ArenaError, match="there is no account 'no-such-account-here'; name one in ARENA_SANDBOX_USER"):
        sandbox.wrap(["prog"], sandbox.Sandbox())
    monkeypatch.setenv(sandbox.ACCOUNT_VARIABLE, "daemon")  # Debian's uid 1
    argv = sandbox.wrap(["prog"], sandbox.Sandbox())
    assert "--reuid=1" in argv and "--regid=1" in argv


def test_run_as_root_a_bot_folder_the_account_cannot_read_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    monkeypatch.delenv(sandbox.ACCOUNT_VARIABLE, raising=False)
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o700)
    folder.chmod(0o700)
    if os.stat(folder).st_uid == sandbox.NOBODY:
        pytest.skip("the test's files belong to nobody")
    with pytest.raises(ArenaError, match=f"run as 'nobody' here .*cannot read {folder}; make it readable to others"):
        sandbox.wrap(["prog"], sandbox.Sandbox((str(folder),)))
    folder.chmod(0o755)
    assert str(folder) in sandbox.wrap(["prog"], sandbox.Sandbox((str(folder),)))


@pytest.mark.processes
@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="runs as root: checks the sandbox's account is unprivileged outside it")
def test_run_as_root_a_sandboxed_process_is_nobody_outside_with_no_capability():
    code = """
import json, os
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(json.dumps({"uid_map": open("/proc/self/uid_map").read().split(), "uid": status["Uid"].split(),
                  "groups": status["Groups"].split(), "caps": [status[k].strip() for k in ("CapPrm", "CapEff", "CapBnd", "CapAmb")],
                  "nnp": status["NoNewPrivs"].strip()}))
"""
    done = run_inside(code)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    # no user namespace: the identity map of the machine's own, so the uids are the outside ones
    assert seen["uid_map"] == ["0", "0", "4294967295"]
    assert seen["uid"] == [str(sandbox.NOBODY)] * 4 and seen["groups"] == []
    assert seen["caps"] == ["0000000000000000"] * 4 and seen["nnp"] == "1"


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


@pytest.mark.processes
def test_a_bwrap_that_cannot_start_says_to_enable_user_namespaces(monkeypatch, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "_CHECKED", [])
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(ArenaError, match="No permissions to creating new namespace.*unprivileged_userns_clone=1"):
        sandbox.check()


@pytest.mark.processes
@needs_bwrap
def test_inside_there_is_no_network_no_home_no_working_folder_and_only_scratch_is_writable(tmp_path):
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
seen["shadow"] = os.path.exists("/etc/shadow")
for place in ("/scratch", "/tmp", "/dev/shm"):  # each a tmpfs of bounded size
    try:
        with open(place + "/big", "wb") as f:
            for _ in range(300):
                f.write(bytes(1 << 20))
        seen[place] = "300 MiB written"
    except OSError:
        seen[place] = "full"
    os.remove(place + "/big")
try:
    open("/dev/new", "w")
    seen["dev"] = "written"
except OSError:
    seen["dev"] = "refused"
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
        "shadow": False, "/scratch": "full", "/tmp": "full", "/dev/shm": "full", "dev": "refused",
    }


# hostile bots (tests/plugins/hostile.py) in a gauntlet against random: the same tournament
# with and without --sandbox, so the test proves the sandbox, not the probes

SECRET_VARIABLE = "ARENA_RUNNER_SECRET"  # set in the runner's environment: no sandboxed bot may see it
OTHER_BOT = Path(__file__).parent / "plugins" / "misbehaving.py"  # another plugin's source, beside hostile.py


class Hostile:
    """The files, server and signal the hostile bots reach for."""

    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.db = tmp_path / "results.db"
        self.outside = tmp_path / "outside.txt"
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.5)
        self.signals = []
        self.previous = signal.signal(signal.SIGUSR1, lambda *_: self.signals.append(1))

    def close(self):
        self.server.close()
        signal.signal(signal.SIGUSR1, self.previous)

    def bots(self) -> dict[str, str]:
        return {
            "net": f"hostile-net:port={self.server.getsockname()[1]}",
            "write": f"hostile-write:path={self.outside}",
            "db": f"hostile-read:path={self.db}",
            "peek": f"hostile-read:path={OTHER_BOT}",
            "signal": f"hostile-signal:pid={os.getpid()}",
            "litter": "hostile-litter",
            "snoop": f"hostile-snoop:variable={SECRET_VARIABLE}",
        }

    def run(self, *flags: str) -> dict[str, list[tuple[str, str]]]:
        """Run the gauntlet; per hostile bot, the (termination, message) of its games in order."""
        bots = self.bots()
        argv = ["run", "--game", "tictactoe", "--games", "2", "--openings", "0", "--format", "gauntlet",
                "--bot", "random", "--jobs", "1", "--no-progress", "--db", str(self.db), "--plugin", "tests.plugins.hostile"]
        for name, spec in bots.items():
            argv += ["--bot", f"{name}={spec}", "--challenger", name]
        assert main(argv + list(flags)) == 0
        games = results.load(str(self.db)).games
        out = {name: [] for name in bots}
        for row in games.itertuples():
            name = row.first if row.first != "random" else row.second
            out[name].append((row.termination, row.message))
        return out

    def connections(self) -> int:
        return accepted(self.server)


@pytest.fixture
def hostile(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where an unsandboxed bot process leaves its litter
    monkeypatch.setenv(SECRET_VARIABLE, "a value of the runner's")
    out = Hostile(tmp_path)
    yield out
    out.close()


@pytest.mark.processes
def test_without_the_sandbox_every_probe_succeeds(hostile):
    games = hostile.run()
    assert hostile.connections() == 2 and hostile.outside.exists() and len(hostile.signals) == 2
    for name in ("net", "write", "db", "peek", "signal", "snoop"):
        assert [t for t, _ in games[name]] == ["crash", "crash"], games[name]
        assert all("probe hostile-" in m and "succeeded" in m for _, m in games[name])
    # the litter of the first game is found in the second
    assert [t for t, _ in games["litter"]] == ["normal", "crash"]
    assert "found" in games["litter"][1][1] and "from an earlier game" in games["litter"][1][1]


@pytest.mark.processes
@needs_bwrap
def test_in_the_sandbox_every_probe_fails_and_every_game_is_normal(hostile):
    games = hostile.run("--sandbox")
    assert hostile.connections() == 0, "a sandboxed bot reached the test's server"
    assert not hostile.outside.exists(), "a sandboxed bot wrote outside its scratch folder"
    assert hostile.signals == [], "a sandboxed bot signalled the runner"
    assert not (hostile.tmp / "arena-litter").exists()
    for name, played in games.items():
        assert [t for t, _ in played] == ["normal", "normal"], (name, played)
    config = json.loads(results_config(hostile.db))
    assert config["sandbox"] is True
    assert "sandboxed (bubblewrap)" in report_text(str(hostile.db), None)


def results_config(db: Path) -> str:
    with Store(db, create=False) as store:
        return json.dumps(store.tournament(None).config)


@pytest.mark.processes
@needs_bwrap
def test_an_engine_plays_sandboxed_and_a_sandboxed_run_with_no_isolation_is_refused(tmp_path, capsys):
    engine = f"engine:cmd={sys.executable} {Path(__file__).parent / 'engines' / 'random_engine.py'}"
    argv = ["run", "--game", "tictactoe", "--bot", engine, "--bot", "random", "--games", "2", "--jobs", "1",
            "--no-progress", "--db", str(tmp_path / "r.db"), "--sandbox"]
    assert main(argv) == 0
    games = results.load(str(tmp_path / "r.db")).games
    assert list(games.termination) == ["normal", "normal"] and games.plies.min() >= 5
    capsys.readouterr()
    assert main(argv + ["--no-isolation"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--sandbox needs isolation" in err


def test_without_bubblewrap_a_sandboxed_run_refuses_to_start_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sandbox, "_CHECKED", ["bubblewrap (bwrap) is not installed; install it"])
    argv = ["run", "--game", "nim", "--bot", "random", "--bot", "greedy", "--games", "2", "--no-progress",
            "--db", str(tmp_path / "r.db"), "--sandbox"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not installed" in err and "never run unsandboxed" in err
    assert not (tmp_path / "r.db").exists()


def test_a_python_under_tmp_stays_visible_over_the_scratch_folder(monkeypatch, tmp_path):
    # CI makes its virtual environment under /tmp, where the sandbox mounts the scratch folder
    venv = str(tmp_path / "venv")
    monkeypatch.setattr(sandbox, "python_paths", lambda: (venv,))
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: "bwrap")
    argv = sandbox.wrap(["python"], sandbox.Sandbox())
    pairs = list(zip(argv, argv[1:], argv[2:]))
    tmp = pairs.index(("--size", str(sandbox.TMP_BYTES), "--tmpfs"))
    assert argv[tmp + 3] == "/tmp" and pairs.index(("--ro-bind", venv, venv)) > tmp  # later mounts win


@pytest.mark.processes
@needs_bwrap
def test_no_sandboxed_process_reaches_a_keyring():
    """The kernel's keyrings are per user, not per sandbox: a bot could keep data there from
    game to game, or read its runner's keys. Key calls fail as on a kernel without keys."""
    if not sandbox.seccomp_filter():
        pytest.skip("no seccomp filter for this architecture")
    code = (
        "import ctypes, json, os, platform\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "add_key, request_key, keyctl = {'x86_64': (248, 249, 250), 'aarch64': (217, 218, 219)}[platform.machine()]\n"
        "out = {}\n"
        "for name, args in (('keyctl', (keyctl, 0, -4, 0)), ('add_key', (add_key, b'user', b'x', b'data', 4, -4)),\n"
        "                   ('request_key', (request_key, b'user', b'x', None, -4))):\n"
        "    out[name] = [libc.syscall(*args), ctypes.get_errno()]\n"
        "out['getpid'] = libc.syscall(39 if platform.machine() == 'x86_64' else 172)\n"
        "print(json.dumps(out))\n"
    )
    proc = sandbox.popen([sys.executable, "-c", code], sandbox.Sandbox(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    seen = json.loads(out)
    import errno

    for name in ("keyctl", "add_key", "request_key"):
        assert seen[name] == [-1, errno.ENOSYS], (name, seen)
    assert seen["getpid"] > 0  # every other call goes through
