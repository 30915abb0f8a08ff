"""What follows a run's games as they come in: the progress bar's numbers, and which games are played."""

from __future__ import annotations

from typing import Iterable, Iterator

from arena.execution.task import GameTask
from arena.records import points
from results.rows import GameRow


class Leaderboard:
    """Points per bot as games come in, for the progress bar."""

    def __init__(self, rows: Iterable[tuple[str, str, float]] = ()):
        self.points: dict[str, float] = {}
        self.games: dict[str, int] = {}
        for first, second, score in rows:
            self.add(first, second, score)

    def add(self, first: str, second: str, score_first: float) -> None:
        for name, points in ((first, score_first), (second, 1.0 - score_first)):
            self.points[name] = self.points.get(name, 0.0) + points
            self.games[name] = self.games.get(name, 0) + 1

    def leader(self) -> str:
        if not self.points:
            return ""
        name = max(self.points, key=lambda n: (self.points[n] / self.games[n], self.points[n]))
        return f"leader {name} {self.points[name]:g}/{self.games[name]}"


class Watcher:
    """Follows a run's games as they come in: what the progress bar shows, and which games are played.

    This one plays every game and names the leader; a run that may stop early (an SPRT)
    gives its own (``arena.front.sprt.TestWatcher``).
    """

    unit = "game"

    def __init__(self, stored: list[dict], scheduled: int):
        """``stored``: the games already in the database (``Store.summaries``); ``scheduled``: the schedule's size."""
        self.board = Leaderboard((r["first"], r["second"], points(r["result"])) for r in stored)
        self.total, self.initial = scheduled, len(stored)

    def tasks(self, todo: list[GameTask]) -> Iterable[GameTask]:
        """The games to hand the executor (a lazy iterable lets a watcher stop them)."""
        return todo

    def rounds(self, todo: list[GameTask], schedule) -> Iterator[Iterable[GameTask]]:
        """The games to play in batches: each is finished (every game reported) before the
        next is asked for, so a format that pairs as results come in makes the next round here."""
        yield self.tasks(todo)

    def add(self, game: GameRow) -> int:
        """Take one finished game; return the steps the progress bar advances."""
        self.board.add(game.first, game.second, game.score_first)
        return 1

    def postfix(self) -> str:
        return self.board.leader()

    def news(self) -> Iterator[str]:
        """Lines to print above the progress bar, once each (none here)."""
        return iter(())
