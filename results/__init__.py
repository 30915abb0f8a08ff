"""Results: game records as pandas tables (storage and reports build on these)."""

from results.frames import games_frame, moves_frame

__all__ = ["games_frame", "moves_frame"]
