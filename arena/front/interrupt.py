"""Ctrl-C that is never lost.

Python raises KeyboardInterrupt wherever the main thread happens to be when SIGINT comes,
and an exception raised inside a finalizer or a weak reference's callback (the referee's
views of a game are collected all the time) is printed and dropped: the run would go on
as if Ctrl-C had never been pressed. The command line's handler also remembers the
signal, and the loops that play games call ``check`` between games, so a dropped one is
raised again there.
"""

from __future__ import annotations

import signal
import threading

_pending = False


def _handler(signum, frame):
    global _pending
    _pending = True
    raise KeyboardInterrupt


class handled:
    """Within it, SIGINT is remembered as well as raised (main thread only: elsewhere signals cannot be handled)."""

    def __enter__(self):
        global _pending
        _pending = False
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, _handler)
        return self

    def __exit__(self, *exc):
        global _pending
        _pending = False
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def check() -> None:
    """Raise KeyboardInterrupt if Ctrl-C came and its exception was dropped (or not yet handled)."""
    global _pending
    if _pending:
        _pending = False
        raise KeyboardInterrupt
