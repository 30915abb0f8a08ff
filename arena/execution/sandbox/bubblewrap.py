"""Bot processes under bubblewrap (``bwrap``): no network, nothing of the machine but the system.

A sandboxed process starts from an empty root and sees only what is bound into it:

- the system, read-only: /usr, the /bin, /sbin and /lib folders (or their links), and of
  /etc only what programs need to run (``ETC``: the loader's cache, the time zone, ...), so
  that no secret kept there (``/etc/shadow``) is in reach;
- Python, read-only: the interpreter's prefixes and site-packages, and the arena's own
  packages (``arena``, ``games``, ``bots``), each bound alone, not the folder above them;
- the bot's own files, read-only (``Sandbox.readable``): its plugin module, or its engine's folder;
- hidden again under the above: the files of every installed distribution with an ``arena``
  entry point (``arena.execution.sandbox.installed``) but the process's own (those holding a
  readable path), each folder covered by an empty read-only tmpfs and each file by /dev/null;
- a scratch folder of its own, writable, at /scratch, its HOME, TMPDIR and working folder,
  and a /tmp and a /dev/shm: each a tmpfs of bounded size (``SCRATCH_BYTES``, ``TMP_BYTES``)
  that lives in memory and vanishes with the sandbox, so nothing is left on disk after a
  game, even when the runner is killed;
- a /proc of its own PID namespace and a minimal /dev, read-only but for /dev/shm.

So it sees no home folder, no working folder, no results database and no other bot's files,
wherever they are: what is visible is a list, not what is left after hiding. It runs in new
network, PID, IPC and UTS namespaces with every capability dropped, as ``nobody`` in a user
namespace of its own; when the runner is root, as an unprivileged account outside too
(``account``), since a user namespace's "nobody" would be root outside. It runs in
a session of its own, with an empty environment but PATH, HOME, TMPDIR and LANG, and dies
with its parent (``--die-with-parent``). Sandboxed bots get a fresh process for every game
(see ``arena.execution.isolation``), so nothing they leave (files, processes, memory)
reaches their next game.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache

from arena.errors import ArenaError

#: Where the scratch folder is inside the sandbox.
SCRATCH = "/scratch"
#: System folders bound read-only (a symbolic link, as /bin -> usr/bin, is recreated as one).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What of /etc is bound read-only, where it exists: what programs need to start and run.
ETC = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone", "/etc/passwd",
    "/etc/group", "/etc/nsswitch.conf", "/etc/alternatives", "/etc/os-release", "/etc/mime.types", "/etc/ssl/certs",
)
#: Most bytes a bot may keep in /scratch (a tmpfs: memory, gone with the sandbox).
SCRATCH_BYTES = 256 << 20
#: Most bytes in each of /tmp and /dev/shm (tmpfs too).
TMP_BYTES = 64 << 20
#: The arena's own packages, bound for every Python bot (the built-in plugins among them).
PACKAGES = ("arena", "games", "bots")
#: Inside the sandbox the process runs as nobody.
NOBODY = 65534
#: When the runner is root: the account sandboxed processes run as, inside and out.
ACCOUNT = "nobody"
#: The environment variable naming another account for that.
ACCOUNT_VARIABLE = "ARENA_SANDBOX_USER"


@dataclass(frozen=True)
class Sandbox:
    """What a sandboxed bot process may read beyond the system and Python: its own files."""

    readable: tuple[str, ...] = ()
    """Absolute paths of files and folders bound read-only at the same place."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment variables set inside, besides PATH, HOME, TMPDIR and LANG."""


def wrap(argv: list[str], sandbox: Sandbox) -> list[str]:
    """The bwrap command line that runs ``argv`` in ``sandbox``."""
    drop = account()
    if drop is None:
        out = [bwrap_path(), "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL"]
    else:
        # Run by root, bwrap makes no user namespace (its "nobody" would be root outside): it
        # builds the sandbox with root's rights, then setpriv turns the process into the
        # unprivileged account for good (uids, groups, every capability) before argv starts.
        out = [bwrap_path(), "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        uid, gid = drop
        argv = [
            _setpriv(), f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--", *argv,
        ]
    out += ["--die-with-parent", "--new-session", "--clearenv"]
    for name, value in (("PATH", "/usr/local/bin:/usr/bin:/bin"), ("HOME", SCRATCH), ("TMPDIR", SCRATCH), ("LANG", "C.UTF-8"), *sandbox.env):
        out += ["--setenv", name, value]
    for path in SYSTEM:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            out += ["--ro-bind", path, path]
    for path in ETC:
        if os.path.exists(path):
            out += ["--ro-bind", path, path]
    out += ["--proc", "/proc", "--dev", "/dev"]
    for place, size in ((SCRATCH, SCRATCH_BYTES), ("/tmp", TMP_BYTES), ("/dev/shm", TMP_BYTES)):
        out += ["--perms", "01777", "--size", str(size), "--tmpfs", place]
    # after /tmp: a Python or a bot's files under /tmp (a venv made there) stay visible
    # a folder inside a bound one exists; one inside a tmpfs or the root must be made
    mounted = [p for p in (*SYSTEM, *ETC) if not os.path.islink(p)]
    made = {"/proc", "/dev", "/dev/shm", SCRATCH, "/tmp"}
    for path in _unique(python_paths() + sandbox.readable):
        if drop is not None:
            _check_readable(path, *drop)
        # the folders above it, made enterable (bwrap would make them root's only)
        for above in _ancestors(path):
            if above not in made and not any(_within(above, m) for m in mounted):
                out += ["--perms", "0755", "--dir", above]
                made.add(above)
        out += ["--ro-bind", path, path]
        mounted.append(path)
    for path in hidden(sandbox.readable):
        out += ["--tmpfs", path, "--remount-ro", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    return out + ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", SCRATCH, "--", *argv]


def account() -> tuple[int, int] | None:
    """The (uid, gid) a sandboxed process runs as, inside and outside, when the runner is root
    (``ACCOUNT``, or the account ``ARENA_SANDBOX_USER`` names); None when it is not root.

    Raises ArenaError (one line) for an unknown account or one with root's rights.
    """
    if os.geteuid() != 0:
        return None
    name = os.environ.get(ACCOUNT_VARIABLE, "").strip() or ACCOUNT
    try:
        entry = pwd.getpwuid(int(name)) if name.isdigit() else pwd.getpwnam(name)
    except KeyError:
        raise ArenaError(
            f"--sandbox run as root needs an unprivileged account to run bots as, and there is no account {name!r}; "
            f"name one in {ACCOUNT_VARIABLE} (e.g. {ACCOUNT_VARIABLE}=nobody), or run as an unprivileged user"
        ) from None
    if entry.pw_uid == 0 or entry.pw_gid == 0:
        raise ArenaError(
            f"{ACCOUNT_VARIABLE}={name} has root's rights; name an unprivileged account for sandboxed bots "
            f"(e.g. nobody), or run as an unprivileged user"
        )
    return entry.pw_uid, entry.pw_gid


def _setpriv() -> str:
    found = shutil.which("setpriv")
    if found is None:
        raise ArenaError(
            "--sandbox run as root needs setpriv (util-linux) to run bots as an unprivileged account, and it is not "
            "installed; install util-linux, or run as an unprivileged user"
        )
    return found


def _check_readable(path: str, uid: int, gid: int) -> None:
    """Raise ArenaError unless the account can read ``path`` (and enter it, for a folder): the
    folders above it are the sandbox's own, but its own mode is kept."""
    try:
        info = os.stat(path)
    except OSError:
        return  # bwrap says what is missing
    need = 0o5 if os.path.isdir(path) else 0o4
    shift = 6 if info.st_uid == uid else 3 if info.st_gid == gid else 0
    if (info.st_mode >> shift) & need != need:
        name = pwd.getpwuid(uid).pw_name
        raise ArenaError(
            f"sandboxed bots run as {name!r} here (the runner is root), who cannot read {path}; "
            f"make it readable to others (chmod o+rX), or name another account in {ACCOUNT_VARIABLE}"
        )


def popen(argv: list[str], sandbox: Sandbox, **options) -> subprocess.Popen:
    """Start ``argv`` in ``sandbox`` (``subprocess.Popen`` with ``options``).

    bwrap starts with an empty environment and reads its own options from a memory file
    descriptor, which it closes: its process stays in the sandbox as PID 1, where every bot
    can read its ``environ`` and ``cmdline``, and they must name nothing of the runner (its
    environment, the other bots' paths that the options hide) but the command itself. A
    second one holds the seccomp filter (``seccomp_filter``), where this machine has one.
    """
    full = wrap(argv, sandbox)
    cut = full.index("--")
    fds = []
    try:
        program = seccomp_filter()
        if program:
            fds.append(_memory_file("arena-bwrap-seccomp", program))
            full[cut:cut] = ["--seccomp", str(fds[-1])]
            cut += 2
        fds.append(_memory_file("arena-bwrap-args", b"".join(word.encode() + b"\0" for word in full[1:cut])))
        options["pass_fds"] = (*options.get("pass_fds", ()), *fds)
        return subprocess.Popen([full[0], "--args", str(fds[-1]), *full[cut:]], env={}, **options)
    finally:
        for fd in fds:
            os.close(fd)


def _memory_file(name: str, content: bytes) -> int:
    fd = os.memfd_create(name)
    data = memoryview(content)
    while data:
        data = data[os.write(fd, data) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


#: The kernel's key-management calls (``add_key``, ``request_key``, ``keyctl``) by audit
#: architecture: the keyrings they reach are per user, not per sandbox, so a bot could keep
#: data there from game to game, or read keys of the runner's user.
KEY_CALLS = {
    0xC000003E: (248, 249, 250, 0x40000000 | 248, 0x40000000 | 249, 0x40000000 | 250),  # x86_64 and x32
    0x40000003: (286, 287, 288),  # i386 (a 32-bit program on x86_64)
    0xC00000B7: (217, 218, 219),  # aarch64
    0x40000028: (309, 310, 311),  # arm (32-bit)
}


@lru_cache(maxsize=1)
def seccomp_filter() -> bytes:
    """A classic BPF seccomp program (as bwrap's ``--seccomp`` reads it) that makes every key
    call of ``KEY_CALLS`` fail with ENOSYS, as on a kernel without keys, and lets every other
    call through. Empty on a machine with none of those architectures."""
    import errno
    import platform
    import struct

    if platform.machine() not in ("x86_64", "aarch64", "armv7l", "armv8l"):
        return b""
    load, jump_equal, give = 0x20, 0x15, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
    allow, refuse = 0x7FFF0000, 0x00050000 | errno.ENOSYS  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO
    code: list[tuple[int, int, int, int]] = []
    for arch, calls in KEY_CALLS.items():
        # if the arch is this one: load the call's number, refuse the key calls, allow the rest
        block = [(load, 0, 0, 0)]
        for i, number in enumerate(calls):
            block.append((jump_equal, len(calls) - i, 0, number))  # to the refusal after the allow
        block += [(give, 0, 0, allow), (give, 0, 0, refuse)]
        code += [(load, 0, 0, 4), (jump_equal, 0, len(block), arch)] + block  # seccomp_data.arch at 4, nr at 0
    code.append((give, 0, 0, allow))  # another architecture
    return b"".join(struct.pack("=HBBI", *line) for line in code)


def visible(entries, readable=()) -> list[str]:
    """The ``sys.path`` entries a sandboxed Python needs: those inside what it shows (Python, the
    arena's packages) and those holding one of its ``readable`` files; the runner's working
    folder and other paths of its own are left out."""
    shown = [*python_paths(), *(os.path.abspath(p) for p in readable)]
    out = []
    for entry in entries:
        entry = os.path.abspath(entry or os.getcwd())
        if any(_within(entry, s) or _within(s, entry) for s in shown):
            out.append(entry)
    return _unique(out)


@lru_cache(maxsize=1)
def python_paths() -> tuple[str, ...]:
    """What a Python bot needs to run the arena: the interpreter, its libraries, the arena's packages."""
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    found += [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    found.append(os.path.realpath(sys.executable))
    found += package_paths()
    found = [p for p in _unique(os.path.abspath(p) for p in found) if os.path.exists(p) and not _system(p)]
    return tuple(p for p in found if not any(p.startswith(q + os.sep) for q in found))  # not inside another


@lru_cache(maxsize=1)
def package_paths() -> tuple[str, ...]:
    """The folders of the arena's own packages."""
    found = []
    for name in PACKAGES:
        module = sys.modules.get(name)
        if module is None:
            try:
                module = __import__(name)
            except ImportError:
                continue
        found += [os.path.abspath(p) for p in getattr(module, "__path__", ())]
    return tuple(found)


def hidden(readable=()) -> list[str]:
    """The files of installed plugin distributions a sandbox showing ``readable`` hides: every
    one's but a distribution's holding a readable path (the plugin's own, or an engine's in it),
    found without importing any; never the arena's own packages, and only what the sandbox shows."""
    from arena.execution.sandbox.installed import plugin_distributions

    own = [os.path.abspath(p) for p in readable]
    shown = [*python_paths(), *(s for s in SYSTEM if not os.path.islink(s))]
    arena = package_paths()
    out = []
    for dist in plugin_distributions():
        paths = [p for p in dist.paths if os.path.lexists(p) and not os.path.islink(p)]
        if any(_within(q, p) for p in paths for q in own):
            continue  # the process's own plugin (or the game's)
        out += [p for p in paths if any(_within(p, s) and p != s for s in shown) and not any(_overlap(p, a) for a in arena)]
    return _unique(out)


def source_files(source: str) -> tuple[str, ...]:
    """The files to bind for a plugin source (``module`` or ``module:attribute``): the module's
    file, or a package's whole folder, and the ``__init__.py`` of each package above it. Found
    on sys.path without importing anything: a sandboxed plugin's code never runs out here.
    Empty if the module is not found."""
    from importlib.machinery import PathFinder

    out, search = [], None
    for part in source.partition(":")[0].strip().split("."):
        spec = PathFinder.find_spec(part, search)
        if spec is None:
            return ()
        search = spec.submodule_search_locations
        if spec.origin and os.path.isfile(spec.origin):  # None or "namespace" for a namespace package
            out.append(os.path.abspath(spec.origin))
    if out and search is not None and os.path.basename(out[-1]) == "__init__.py":
        out[-1] = os.path.dirname(out[-1])  # the package named itself: its whole folder
    return tuple(out)


def engine_argv(argv: list[str]) -> tuple[list[str], Sandbox]:
    """An engine's command line with every path in it made absolute (it runs in /scratch),
    and a sandbox that shows it the folders of those paths (its own files)."""
    out, readable = [], []
    for i, word in enumerate(argv):
        if (i == 0 or not word.startswith("-")) and os.path.exists(word) and (i == 0 or os.sep in word):
            word = os.path.abspath(word)
            if not _system(word):
                readable.append(word if os.path.isdir(word) else os.path.dirname(word))
        out.append(word)
    return out, Sandbox(tuple(_unique(readable)))


def bwrap_path() -> str:
    return shutil.which("bwrap") or "bwrap"


_CHECKED: list[str] = []  # the reason bwrap cannot run, once found ("" when it can)


def check() -> None:
    """Raise ArenaError (one line: why, and how to fix it) unless bwrap can start a sandbox here.

    Probed once per process by running ``true`` in a sandbox like the bots'.
    """
    if not _CHECKED:
        _CHECKED.append(_probe())
    if _CHECKED[0]:
        raise ArenaError(f"--sandbox cannot run: {_CHECKED[0]}; bots are never run unsandboxed instead")


def _probe() -> str:
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; install it (Debian, Ubuntu: apt-get install bubblewrap)"
    try:
        proc = popen(["true"], Sandbox(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return "bubblewrap did not finish starting a sandbox within 30s"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap cannot start: {exc}"
    if proc.returncode == 0:
        return ""
    said = (stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
    return (
        f"bubblewrap cannot start a sandbox here ({said}); enable unprivileged user namespaces "
        "(sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a container, allow them)"
    )


def _system(path: str) -> bool:
    """True for a path inside a system folder, which every sandbox shows anyway."""
    real = os.path.realpath(path)
    return any(real == s or real.startswith(s + os.sep) for s in SYSTEM if not os.path.islink(s))


def _ancestors(path: str) -> list[str]:
    """The folders above an absolute path, outermost first ("/" left out)."""
    parts = path.strip(os.sep).split(os.sep)[:-1]
    return [os.sep + os.sep.join(parts[: i + 1]) for i in range(len(parts))]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


def _overlap(a: str, b: str) -> bool:
    return _within(a, b) or _within(b, a)


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))
