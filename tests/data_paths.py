"""Where tests and benchmarks find reference data kept outside the repository."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CONNECT4_ENV = "ARENA_CONNECT4_DATA"


def connect4_data_dir() -> Path | None:
    """Pascal Pons's Connect Four test sets (Test_L1_R1, ...), or None if absent.

    The directory is ``$ARENA_CONNECT4_DATA`` when that is set, else
    ``../shared/data/connect4`` next to the repository root.
    """
    given = os.environ.get(CONNECT4_ENV)
    path = Path(given) if given else REPO_ROOT.parent / "shared" / "data" / "connect4"
    return path if path.is_dir() else None
