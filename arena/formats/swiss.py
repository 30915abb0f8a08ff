"""Swiss: rounds paired by score as results come in; who meets whom each round, and the final order.

A Swiss round pairs every bot with one of equal or near score that it has not met: a
minimum-cost perfect matching (networkx's blossom algorithm, as a maximum-weight
matching). Each pairing plays one opening with both colours, two games, so colours are
balanced by construction. In an odd field the lowest-ranked bot without a bye yet sits
out, scoring ``BYE_POINTS`` (a drawn pair) without a game. Pairings depend only on the
results of finished rounds and on a seeded order that breaks ties, so a rerun or a
resumed run pairs alike. The standings rank by points, then Buchholz (the sum of the
opponents' points), then Sonneborn-Berger (the sum over opponents of the points scored
against them times their points); a bye adds to neither.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from arena.errors import ParameterError
from arena.formats.base import Format, RoundWatcher, Setting, whole

if TYPE_CHECKING:
    import pandas as pd

GAMES_PER_ROUND = 2
"""Games of one pairing in a round: one opening, colours swapped."""
BYE_POINTS = 1.0
"""Points of a bye: half the round's two, as for a drawn pair."""
WINDOW = 12
"""Neighbours below it in the standings each bot may be paired with (each more costs the matching time)."""
BLOCK = 32
"""Bots matched together: the standings are cut into blocks of this many (the last up to half as many
more, all even), each matched on its own. The blossom algorithm takes cubic time; blocks keep a round's pairing
time linear in the field, at the cost of never pairing across a block's edge."""
_BASE, _REMATCH, _STEP, _TIE = 10**15, 10**10, 1000, 1000


@dataclass(frozen=True)
class Swiss(Format):
    """A Swiss tournament of ``rounds`` rounds: each round pairs every bot with one of near
    score it has not met, one opening with both colours."""

    rounds: int
    """Rounds to play."""

    name = "swiss"
    settings = (
        Setting("rounds", "int", None, "rounds of a swiss, each pairing one opening with both colours (default {default})",
                none="none: give it with --format swiss",
                metavar="R", stored=("rounds",)),
    )
    grows = False  # paired as results came in: other bots, other pairings
    laid_out = False
    games_per_round = GAMES_PER_ROUND

    @classmethod
    def misplaced(cls, keys: list[str]) -> str:
        return "rounds are for the swiss format, which needs them: --format swiss --rounds R"

    @classmethod
    def build(cls, values: dict) -> "Swiss":
        if values.get("rounds") is None:
            raise ParameterError(cls.misplaced(["rounds"]))
        return cls(whole(values, "rounds"))

    def stored(self) -> dict:
        return {"rounds": self.rounds}

    def check(self, config) -> None:
        if self.rounds < 1:
            raise ParameterError(f"a Swiss tournament needs at least one round, got {self.rounds}")
        super().check(config)

    def round_count(self, config, most_games_per_pairing: int) -> int:
        return self.rounds

    def planned(self, config) -> int:
        return self.rounds * GAMES_PER_ROUND * (len(config.bots) // 2)

    def watcher(self, config, stored, scheduled):
        return SwissWatcher(stored, scheduled)

    def describe(self, config: dict) -> str:
        return f"{self.rounds} rounds, one opening with both colours per pairing"

    def own_tables(self, games, config: dict, standings) -> dict:
        return {"swiss": swiss_standings(games, config)}


class SwissWatcher(RoundWatcher):
    """Plays a Swiss tournament's rounds, each paired by score from the rounds before it."""

    def walk(self, config):
        bots = [e.name for e in config.bots]
        rounds = config.format.rounds
        for r, start, pairs, bye, complete, _ in replay(bots, config.seed, rounds, self.results):
            if bye is not None and not complete:
                self.lines.append(f"arena: round {r + 1}: bye for {bye} ({BYE_POINTS:g} point)")
            yield r, start, pairs, complete


def _networkx():
    try:
        import networkx
    except ImportError:
        from arena.errors import ArenaError

        raise ArenaError("the swiss format needs networkx: pip install networkx") from None
    return networkx


class SwissState:
    """The state of a Swiss tournament between rounds: points, who met whom, byes."""

    def __init__(self, bots: Sequence[str], seed: int):
        self.bots = list(bots)
        self.seed = seed
        self.points = {b: 0.0 for b in self.bots}
        self.met: set[frozenset] = set()
        self.byes: dict[str, list[int]] = {}
        """Bot -> the rounds of its byes."""
        self.rounds = 0
        """Rounds recorded."""

    def _order(self, round: int) -> list[str]:
        """Bots by points, ties in an order drawn from the seed and the round."""
        rng = random.Random(json.dumps(["swiss", self.seed, round]))
        tie = {b: rng.random() for b in self.bots}
        return sorted(self.bots, key=lambda b: (-self.points[b], tie[b]))

    def pair(self, round: int) -> tuple[list[tuple[str, str]], str | None]:
        """The pairings of ``round`` (the higher-ranked bot first) and the bot with the bye (or None)."""
        order = self._order(round)
        bye = None
        if len(order) % 2:
            # the lowest-ranked of the bots with the fewest byes: once all had one, a second round of byes
            fewest = min(len(self.byes.get(b, ())) for b in order)
            bye = next(b for b in reversed(order) if len(self.byes.get(b, ())) == fewest)
            order.remove(bye)
        rank = {b: k for k, b in enumerate(order)}
        rng = random.Random(json.dumps(["swiss-tie", self.seed, round]))
        pairs = []
        starts = list(range(0, len(order), BLOCK))
        if len(starts) > 1 and len(order) - starts[-1] < BLOCK // 2:
            starts.pop()  # a short last block joins the one before
        for start, end in zip(starts, [*starts[1:], len(order)]):
            # a block is even and each bot has an edge to the next, so the matching is perfect
            matching = self._match(order[start:end], rng)
            pairs += [tuple(sorted(p, key=rank.__getitem__)) for p in matching]
        return sorted(pairs, key=lambda p: rank[p[0]]), bye

    def _match(self, order: list[str], rng: random.Random) -> set:
        """The cheapest perfect matching of ``order`` (by points) where each bot may meet its next
        ``WINDOW``: a pair d half-points apart costs ``_STEP`` * d², a rematch ``_REMATCH`` more, and a
        random amount under ``_TIE`` breaks ties."""
        nx = _networkx()
        graph = nx.Graph()
        graph.add_nodes_from(order)
        twice = [int(round(2 * self.points[b])) for b in order]
        for i, a in enumerate(order):
            for j in range(i + 1, min(i + 1 + WINDOW, len(order))):
                b = order[j]
                cost = _STEP * (twice[i] - twice[j]) ** 2 + (_REMATCH if frozenset((a, b)) in self.met else 0)
                graph.add_edge(a, b, weight=_BASE - cost + rng.randrange(_TIE))
        return nx.max_weight_matching(graph, maxcardinality=True)

    def record(self, round: int, games: Iterable[tuple[str, str, float]], bye: str | None) -> None:
        """Add a finished round: each game's (first, second, first's score), and the bye."""
        for first, second, score in games:
            self.points[first] += score
            self.points[second] += 1.0 - score
            self.met.add(frozenset((first, second)))
        if bye is not None:
            self.points[bye] += BYE_POINTS
            self.byes.setdefault(bye, []).append(round)
        self.rounds = round + 1


def replay(bots: Sequence[str], seed: int, rounds: int, results: dict[int, tuple[str, str, float]]):
    """Walk a Swiss tournament's rounds from its games (``results``: game id -> first, second, score).

    Yields ``(round, first_game_id, pairs, bye, complete)`` for each round up to ``rounds``,
    recording each complete one, and stops after the first incomplete one. Round r's games
    are ids ``r * per_round`` on, two per pairing, the higher-ranked bot first in the first.
    """
    swiss = SwissState(bots, seed)
    per_round = GAMES_PER_ROUND * (len(bots) // 2)
    for r in range(rounds):
        pairs, bye = swiss.pair(r)
        start = r * per_round
        ids = range(start, start + per_round)
        complete = all(i in results for i in ids)
        yield r, start, pairs, bye, complete, swiss
        if not all(i in results for i in ids):  # looked at again: the caller may have played it meanwhile
            return
        swiss.record(r, (results[i] for i in ids), bye)


def swiss_standings(games: "pd.DataFrame", config: dict) -> "pd.DataFrame":
    """Per bot, in Swiss order: points, games, byes, Buchholz, Sonneborn-Berger, over the finished rounds."""
    import pandas as pd

    bots = [b["name"] for b in config["bots"]]
    results = {
        int(i): (f, s, float(x)) for i, f, s, x in zip(games["game_id"], games["first"], games["second"], games["score_first"])
    }
    for *_, swiss in replay(bots, config["seed"], config["rounds"], results):  # at least one round
        pass  # the last state yielded has recorded every finished round
    against: dict[tuple[str, str], float] = {}
    played = {b: 0 for b in bots}
    for r in range(swiss.rounds):
        per_round = GAMES_PER_ROUND * (len(bots) // 2)
        for i in range(r * per_round, (r + 1) * per_round):
            first, second, score = results[i]
            against[first, second] = against.get((first, second), 0.0) + score
            against[second, first] = against.get((second, first), 0.0) + 1.0 - score
            played[first] += 1
            played[second] += 1
    opponents = {b: [o for (me, o) in against if me == b] for b in bots}
    table = pd.DataFrame(
        {
            "rounds": swiss.rounds,
            "points": [swiss.points[b] for b in bots],
            "games": [played[b] for b in bots],
            "byes": [len(swiss.byes.get(b, ())) for b in bots],
            "buchholz": [sum(swiss.points[o] for o in opponents[b]) for b in bots],
            "sonneborn_berger": [sum(against[b, o] * swiss.points[o] for o in opponents[b]) for b in bots],
        },
        index=pd.Index(bots, name="bot"),
    )
    table = table.sort_index(kind="stable").sort_values(
        ["points", "buchholz", "sonneborn_berger"], ascending=False, kind="stable"
    )
    table.insert(0, "rank", range(1, len(table) + 1))
    return table
