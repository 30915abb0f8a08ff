"""Closing processes off from each other in games of hidden information or simultaneous moves.

A bot's process runs as the user who runs the arena. Without more, it could read the
referee's memory (the hidden cards, the other seats' choices of a turn) or another bot's
through ``/proc/PID/mem``, and as root it could do so whatever the others allow. So the
referee and each bot's host process are made not dumpable (another process of the same
user then needs ``CAP_SYS_PTRACE`` to read them), and every bot process gives up all its
capabilities for good. Linux only; elsewhere these do nothing. An engine is dumpable
again once its program starts (the kernel resets it at ``exec``): only ``--sandbox`` keeps
the other seat's engine out of it.
"""

from __future__ import annotations

import ctypes
import os
import tempfile

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
_CAPABILITY_VERSION_3 = 0x20080522


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def scratch_folder() -> str:
    """A new empty folder for one bot process of a game with hidden information to work in
    (removed with it): nothing it writes there reaches its next game."""
    return tempfile.mkdtemp(prefix="arena-scratch-")


def in_scratch(folder: str) -> dict:
    """``subprocess.Popen`` options that start a process in ``folder``, its HOME and TMPDIR too."""
    return dict(cwd=folder, env=dict(os.environ, HOME=folder, TMPDIR=folder))


def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def undumpable() -> None:
    """Make this process not dumpable: processes of the same user without capabilities cannot
    read its memory or its files under ``/proc``."""
    libc = _libc()
    if libc is not None:
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def dropper():
    """A function that gives up every capability for good (no ``exec`` gets one back) and makes
    the process not dumpable: for a child's ``preexec_fn``, so its libc calls are found here,
    before the fork."""
    libc = _libc()
    if libc is None:
        return lambda: None
    prctl, capset = libc.prctl, libc.capset
    header, data = _Header(_CAPABILITY_VERSION_3, 0), (_Data * 2)()

    def drop() -> None:
        for cap in range(64):
            prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        capset(ctypes.byref(header), ctypes.byref(data))  # effective, permitted, inheritable: none
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)

    return drop


def drop_privileges() -> None:
    """Give up every capability for good and become not dumpable (a bot's host, before its bot runs)."""
    dropper()()
