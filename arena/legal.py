"""Where a move a bot hands back is matched against the legal ones: by value and by type."""

from __future__ import annotations

from typing import Sequence

_FAST_TYPES = (int, str, tuple)


def legal_index(legal: Sequence, move) -> int | None:
    """Index of ``move`` among the legal moves, matching type as well as value.

    For ints, strings and tuples, ``legal.index`` finds it in C; the scan in Python is
    for other types, and for an equal value of another type (``1.0`` or ``True`` for 1).
    """
    if type(move) in _FAST_TYPES:
        try:
            i = legal.index(move)
        except ValueError:
            return None
        except Exception:
            return _find(legal, move)
        if type(legal[i]) is type(move):
            return i
    return _find(legal, move)


def _find(legal: Sequence, move) -> int | None:
    """Index of ``move`` among the legal moves, matching type as well as value."""
    for i, m in enumerate(legal):
        try:
            if type(m) is type(move) and m == move:
                return i
        except Exception:
            return None
    return None
