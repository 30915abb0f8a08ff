"""The run lock: one run at a time writes a results database."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on Windows: no run lock there
    fcntl = None

from results.sqlite import StoreError


#: Beside a results database while a run writes it (see RunLock).
RUN_LOCK_SUFFIX = "-run.lock"


class DatabaseBusy(StoreError):
    """Another run is writing the results database."""


class RunLock:
    """One run at a time writes a results database: an flock on ``<database>-run.lock``.

    The system releases the lock when the process ends, however it ends: after a SIGKILL
    the file stays, and the next run takes it over. The file names the process and the
    tournament holding it, for the message of a run refused. Readers never take it.
    """

    def __init__(self, database: str | Path):
        self.database = Path(database)
        self.path = Path(str(database) + RUN_LOCK_SUFFIX)
        self.fd: int | None = None
        self.since = ""

    def acquire(self) -> "RunLock":
        """Take the lock, or raise DatabaseBusy naming the run that holds it."""
        if fcntl is None:
            return self
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise StoreError(f"cannot create the lock file {str(self.path)!r}: {exc.strerror}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 4096, 0)
                os.close(fd)
                raise DatabaseBusy(self._busy(holder)) from None
            try:  # the run before may have removed the file between our open and our lock
                if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    self.fd = fd
                    self.since = datetime.now(timezone.utc).isoformat(timespec="seconds")
                    self.note(None)
                    return self
            except FileNotFoundError:
                pass
            os.close(fd)

    def note(self, tournament: str | None) -> None:
        """Write who holds the lock: this process, and the tournament once it is known."""
        if self.fd is None:
            return
        text = json.dumps({"pid": os.getpid(), "tournament": tournament, "since": self.since}).encode()
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, text, 0)

    def release(self) -> None:
        """Remove the lock file and let go of the lock."""
        if self.fd is None:
            return
        try:
            os.unlink(self.path)  # while still locked: a run waiting opens the file anew
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None

    def _busy(self, holder: bytes) -> str:
        try:
            info = json.loads(holder)
            who = f"process {info['pid']}, " + (
                f"tournament {info['tournament']!r}" if info["tournament"] else "choosing its tournament"
            ) + f", since {info['since']}"
        except (ValueError, KeyError, TypeError):
            who = f"see {str(self.path)!r}"
        return (
            f"results database {str(self.database)!r} is being written by another run ({who}); "
            "wait for it to end, or use another database"
        )

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()
