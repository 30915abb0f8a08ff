"""A run's finished games on their way into the results database, in batches.

Committing a transaction costs more than a fast game's moves, so ``GameWriter`` commits a
run's games in batches, one transaction per ``BATCH_SECONDS`` of play; a run killed
between two commits loses only games that running it again plays again, identically
(per-game seeds make them replay). The rows themselves are laid out by
``results.rows.game_rows``.
"""

from __future__ import annotations

import time

from results.rows import GameRows
from results.store import Store, Tournament

#: GameWriter commits when this many seconds have passed since its last commit...
BATCH_SECONDS = 0.2
#: ...or when this many games wait.
BATCH_GAMES = 1000


class GameWriter:
    """Stores a run's finished games in batches: one transaction per ``interval`` seconds.

    ``add`` commits the waiting games, itself included, once ``interval`` seconds have
    passed since the last commit (or ``max_games`` wait): a game that took longer than
    that is written at once, and fast games share a commit. A process killed between
    two commits loses only games finished within ``interval`` of the last one, which a
    rerun plays again. ``flush`` writes whatever waits; call it before the store closes,
    on every way out (the runner does so in a ``finally``).
    """

    def __init__(
        self, store: Store, tournament: Tournament, interval: float = BATCH_SECONDS, max_games: int = BATCH_GAMES
    ):
        self.store, self.tournament = store, tournament
        self.interval, self.max_games = interval, max_games
        self.pending: list[GameRows] = []
        self.stored = 0
        """Games this writer has committed."""
        self._last = time.monotonic()

    def add(self, rows: GameRows) -> None:
        """Queue one finished game; commit the queue if it is due. StoreError if that fails."""
        self.pending.append(rows)
        if len(self.pending) >= self.max_games or time.monotonic() - self._last >= self.interval:
            self.flush()

    def flush(self) -> None:
        """Commit every queued game; StoreError if it cannot.

        Games a failing commit could not write are dropped from the queue: a rerun plays
        them again.
        """
        pending, self.pending = self.pending, []
        self._last = time.monotonic()
        if pending:
            self.store.save_rows(self.tournament, pending)
            self.stored += len(pending)
