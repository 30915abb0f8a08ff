"""Formats paired round by round as results come in: Swiss and race.

Round r+1's pairings depend only on the rounds before it, so the watcher hands the run one
round at a time (``Watcher.rounds``): the run finishes and stores a round's games before
asking for the next. Pairings are recomputed from the stored games of finished rounds
(``results.swiss.replay``, ``results.race.replay``), so a run killed mid-round resumes by
pairing the same rounds again and playing only the missing games.
"""

from __future__ import annotations

from typing import Iterator

from arena.execution.task import GameTask
from arena.front.watch import Watcher
from arena.records import points
from results import race as racing
from results import swiss as swissing
from results.rows import GameRow


class RoundWatcher(Watcher):
    """Plays a format's rounds one after another; subclasses say how a round is paired."""

    def __init__(self, stored: list[dict], scheduled: int):
        super().__init__(stored, scheduled)
        self.results = {r["game_id"]: (r["first"], r["second"], points(r["result"])) for r in stored}
        self.round = 0
        """Rounds finished."""
        self.lines: list[str] = []

    def add(self, game: GameRow) -> int:
        self.results[game.game_id] = (game.first, game.second, game.score_first)
        return super().add(game)

    def news(self) -> Iterator[str]:
        lines, self.lines = self.lines, []
        return iter(lines)

    def postfix(self) -> str:
        return f"round {self.round + 1} {super().postfix()}"

    def walk(self, config) -> Iterator[tuple[int, int, list[tuple[str, str]], bool]]:
        raise NotImplementedError

    def rounds(self, todo: list[GameTask], schedule) -> Iterator[list[GameTask]]:
        config = schedule.config
        bots = [e.name for e in config.bots]
        number = {b: k for k, b in enumerate(bots)}
        for r, start, pairs, complete in self.walk(config):
            self.round = r
            for i in [i for i in self.results if i < start]:  # recorded rounds': the walk is done with them
                del self.results[i]
            if not complete:
                batch = []
                for k, (a, b) in enumerate(pairs):
                    i, j = sorted((number[a], number[b]))
                    for c, (x, y) in enumerate(((a, b), (b, a))):
                        index = start + 2 * k + c
                        if index not in self.results:
                            batch.append(schedule.task(index, i * len(bots) + j, r, x, y))
                yield batch
                # the walk goes on only if every game of the round came back (none failed)


class SwissWatcher(RoundWatcher):
    """A Swiss tournament: ``config.rounds`` rounds, bots paired by score."""

    def walk(self, config):
        bots = [e.name for e in config.bots]
        for r, start, pairs, bye, complete, _ in swissing.replay(bots, config.seed, config.rounds, self.results):
            if bye is not None and not complete:
                self.lines.append(f"arena: round {r + 1}: bye for {bye} ({swissing.BYE_POINTS:g} point)")
            yield r, start, pairs, complete
        self.round = config.rounds - 1


class RaceWatcher(RoundWatcher):
    """A race: the leader against every survivor each round; clearly worse bots are dropped."""

    def __init__(self, stored: list[dict], scheduled: int):
        super().__init__(stored, scheduled)
        self.state = None

    def walk(self, config):
        bots = [e.name for e in config.bots]
        told = 0
        for r, start, pairs, complete, state in racing.replay(bots, config.seed, config.race, self.results):
            self.state = state
            told = self._tell(told)
            yield r, start, pairs, complete
        self._tell(told)

    def _tell(self, told: int) -> int:
        for d in self.state.dropped[told:] if self.state else ():
            self.lines.append(
                f"arena: after round {d.round + 1}: {d.bot} dropped ({d.score:g}-{d.leader_score:g} against "
                f"{d.leader}, p={d.p_value:.2g})"
            )
        return len(self.state.dropped) if self.state else told

    def postfix(self) -> str:
        alive = len(self.state.alive) if self.state is not None else 0
        return f"round {self.round + 1}, {alive} left"


def watcher_for(format: str) -> type[Watcher]:
    """The watcher that runs a tournament of ``format``."""
    return {"swiss": SwissWatcher, "race": RaceWatcher}.get(format, Watcher)
