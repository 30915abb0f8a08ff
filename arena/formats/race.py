"""A race: successive elimination, dropping each bot once it is clearly worse than the leader.

Each round the leader (the best score rate so far, shrunk towards one half: (points + 1) /
(games + 2)) plays every other surviving bot one opening with both colours. After the
round, each survivor's games against the current leader are put to a one-sided exact sign
test (decisive games only; H0: the two are equal), and Holm's step-down procedure over the
survivors' tests drops those worse than the leader at the race's confidence. The race ends
when one bot remains, or before a round that would pass the games budget. Holm corrects
for the number of comparisons in a round, not for looking again after every round.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Sequence

from arena.errors import ParameterError
from arena.formats.base import Format, RoundWatcher, Setting, number, whole

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Race(Format):
    """A race: the leader against every survivor each round; clearly worse bots are dropped."""

    confidence: float = 0.95
    """How sure a drop must be: 1 - the family-wise error rate of one round's tests."""
    max_games: int = 1000
    """The games budget: no round starts that would pass it."""

    name = "race"
    settings = (
        Setting("confidence", "float", None, "a race drops a bot worse than the leader at this confidence (default "
                "{default})", stored=("race",), none=f"{confidence:g}"),
        Setting("max_games", "int", None, "a race's games budget (default {default})", metavar="N", stored=("race",),
                none=str(max_games)),
    )
    grows = False
    laid_out = False
    open_ended = True  # it stops when one bot is left
    games_per_round = 2

    def __post_init__(self):
        if not 0 < self.confidence < 1:
            raise ParameterError(f"confidence must be between 0 and 1, got {self.confidence!r}")
        if self.max_games < 2:
            raise ParameterError(f"max-games must be at least 2, got {self.max_games!r}")

    @classmethod
    def build(cls, values: dict) -> "Race":
        confidence = cls.confidence if values.get("confidence") is None else number(values, "confidence")
        max_games = cls.max_games if values.get("max_games") is None else whole(values, "max_games")
        return cls(confidence, max_games)

    @classmethod
    def from_stored(cls, stored: dict) -> "Race":
        return cls(**stored["race"])

    def stored(self) -> dict:
        return {"race": {"confidence": self.confidence, "max_games": self.max_games}}

    def round_count(self, config, most_games_per_pairing: int) -> int:
        return self.max_games // self.games_per_round

    def planned(self, config) -> int:
        return self.max_games

    def watcher(self, config, stored, scheduled):
        return RaceWatcher(stored, scheduled)

    def describe(self, config: dict) -> str:
        return f"at most {self.max_games:,} games, drops at {self.confidence:g} confidence"

    def own_tables(self, games, config: dict, standings) -> dict:
        return {"race": race_table(games, config)}


@dataclass(frozen=True)
class Drop:
    """Why a bot left the race."""

    bot: str
    round: int
    """The round after which it was dropped (from 0)."""
    games: int
    """Games played in the race by then."""
    leader: str
    score: float
    """Its points against the leader."""
    leader_score: float
    """The leader's points against it."""
    p_value: float
    """Of the one-sided sign test against the leader."""
    threshold: float
    """Holm's level it passed."""


def sign_p(wins: int, losses: int) -> float:
    """One-sided exact sign test: the chance of ``wins`` or more of ``wins + losses`` fair coin flips."""
    n = wins + losses
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n if n else 1.0


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level ``alpha``."""
    order = sorted(range(len(p_values)), key=p_values.__getitem__)
    out = [False] * len(p_values)
    for k, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - k):
            break
        out[i] = True
    return out


class RaceState:
    """The race between rounds: who survives, who leads, the head-to-head counts."""

    def __init__(self, bots: Sequence[str], seed: int, race: Race):
        self.race = race
        tie = random.Random(json.dumps(["race", seed]))
        self.tie = {b: tie.random() for b in bots}
        self.alive = list(bots)
        self.points = {b: 0.0 for b in bots}
        self.games = {b: 0 for b in bots}
        self.head: dict[tuple[str, str], list] = {}
        """(a, b) -> [a's wins, a's points] against b."""
        self.dropped: list[Drop] = []
        self.played = 0

    def leader(self) -> str:
        return max(self.alive, key=lambda b: ((self.points[b] + 1) / (self.games[b] + 2), -self.tie[b]))

    def pair(self) -> list[tuple[str, str]]:
        """The next round's pairings (leader first), or [] when the race is over."""
        if len(self.alive) < 2:
            return []
        leader = self.leader()
        others = sorted((b for b in self.alive if b != leader), key=self.tie.__getitem__)
        if self.played + 2 * len(others) > self.race.max_games:
            return []
        return [(leader, b) for b in others]

    def record(self, round: int, games: Sequence[tuple[str, str, float]]) -> list[Drop]:
        """Add a finished round's games (first, second, first's score); return the bots it drops."""
        for first, second, score in games:
            for me, other, points in ((first, second, score), (second, first, 1.0 - score)):
                self.points[me] += points
                self.games[me] += 1
                cell = self.head.setdefault((me, other), [0, 0.0])
                cell[0] += points == 1.0
                cell[1] += points
        self.played += len(games)
        leader = self.leader()
        others = [b for b in self.alive if b != leader]
        counts = [(self.head.get((leader, b), [0, 0.0]), self.head.get((b, leader), [0, 0.0])) for b in others]
        p = [sign_p(mine[0], theirs[0]) for mine, theirs in counts]
        alpha = 1 - self.race.confidence
        rank = sorted(range(len(p)), key=p.__getitem__)
        drops = []
        for k, i in enumerate(rank):
            threshold = alpha / (len(p) - k)
            if p[i] > threshold:
                break
            mine, theirs = counts[i]
            drops.append(Drop(others[i], round, self.played, leader, theirs[1], mine[1], p[i], threshold))
        for drop in drops:
            self.alive.remove(drop.bot)
        self.dropped += drops
        return drops


def replay(bots: Sequence[str], seed: int, race: Race, results: dict[int, tuple[str, str, float]]) -> Iterator:
    """Walk a race's rounds from its games (``results``: game id -> first, second, score).

    Yields ``(round, first_game_id, pairs, complete, state)`` for each round, recording each
    complete one, and stops after the first incomplete one or when the race is over. A
    round's games follow the last round's, two per pairing, the leader first in the first.
    """
    state = RaceState(bots, seed, race)
    start = 0
    for r in range(race.max_games):
        pairs = state.pair()
        if not pairs:
            return
        ids = range(start, start + 2 * len(pairs))
        complete = all(i in results for i in ids)
        yield r, start, pairs, complete, state
        if not all(i in results for i in ids):  # looked at again: the caller may have played it meanwhile
            return
        state.record(r, [results[i] for i in ids])
        start += len(ids)


def race_table(games: "pd.DataFrame", config: dict) -> "pd.DataFrame":
    """Per bot: still in the race or when it was dropped (round, games by then), and the evidence."""
    import pandas as pd

    bots = [b["name"] for b in config["bots"]]
    race = Race.from_stored(config)
    results = {
        int(i): (f, s, float(x)) for i, f, s, x in zip(games["game_id"], games["first"], games["second"], games["score_first"])
    }
    state = RaceState(bots, config["seed"], race)
    for *_, state in replay(bots, config["seed"], race, results):
        pass
    rows = []
    leader = state.leader()
    for b in state.alive:
        rows.append({"bot": b, "status": "winner" if len(state.alive) == 1 else ("leader" if b == leader else "in"),
                     "points": state.points[b], "games": state.games[b]})
    for d in reversed(state.dropped):
        rows.append({"bot": d.bot, "status": "dropped", "points": state.points[d.bot], "games": state.games[d.bot],
                     "after_round": d.round + 1, "race_games": d.games, "leader": d.leader,
                     "score": f"{d.score:g}-{d.leader_score:g}", "p_value": d.p_value, "holm_level": d.threshold})
    table = pd.DataFrame(rows).set_index("bot")
    for column in ("after_round", "race_games", "leader", "score", "p_value", "holm_level"):
        if column not in table:
            table[column] = None
    return table


class RaceWatcher(RoundWatcher):
    """Plays a race's rounds: the leader against every survivor, until one is left."""

    def __init__(self, stored: list[dict], scheduled: int):
        super().__init__(stored, scheduled)
        self.state = None

    def walk(self, config):
        bots = [e.name for e in config.bots]
        told = 0
        for r, start, pairs, complete, state in replay(bots, config.seed, config.format, self.results):
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
