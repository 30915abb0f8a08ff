"""Ladder: a standing ladder that bots join and leave over days; pairings are drawn batch by batch by rating.

Membership is part of the ladder's stored settings (``config["bots"]``): each member has its
name, spec and budget, when it joined and left (UTC, ISO 8601), and the batches from which
it plays (``from_batch``) and no longer plays (``left_batch``). Those batches are set by the
run that holds the database's run lock, at the first batch with no stored game, so a join
recorded from another terminal while a batch is in flight takes effect at the next one, and
replaying the stored games pairs every batch alike.

Batch ``b``'s games have ids ``b * STRIDE`` on, two per pairing (one opening, colours
swapped), so which batch a game belongs to is read from its id and the ratings before a
batch are one fit of the games below its first id. A batch holds first a placement gauntlet
for every bot without games yet (``PLACEMENT`` pairings against opponents spread over the
ratings of the placed field), then rating pairings among the placed bots (each at most
once): least-played bots choose first, each the partner nearest in rating, a pairing
already played counting as ``REMATCH_ELO`` Elo further per time. Ratings are the joint
fit the reports use (``results.ratings``) over every game of the ladder.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

from arena.errors import ParameterError
from arena.formats.base import Format, Setting, Watcher
from arena.records import points

if TYPE_CHECKING:
    import pandas as pd

STRIDE = 1000
"""Game ids of batch b are b * STRIDE + 0, 1, ...: a batch holds fewer than this many games."""
PLACEMENT = 4
"""Default pairings of a new bot's placement gauntlet (two games each)."""
REMATCH_ELO = 50.0
"""How much further (in Elo) a partner looks for each pairing the two have played already."""
MAX_PAIRS = (STRIDE - 1) // 2


@dataclass(frozen=True)
class Ladder(Format):
    """A ladder: a placement gauntlet for each new bot, then rating pairings, batch by batch."""

    placement: int = PLACEMENT
    """Pairings of a new bot's placement gauntlet, two games each."""
    batch: int | None = None
    """Most rating pairings per batch (None: every placed bot once a batch)."""

    name = "ladder"
    command = "ladder"
    in_files = False
    fixed_at_creation = True
    grows = False
    laid_out = False
    min_bots = 0  # its field changes while it runs: a batch needs two active bots
    open_ended = True  # it runs until stopped
    games_per_round = 2
    settings = (
        Setting("placement", "int", PLACEMENT, "pairings of a new bot's placement gauntlet, two games each "
                "(default {default})", metavar="K", commands=("ladder",), fixed=True),
        Setting("batch", "int", None, "most rating pairings per batch, the ratings refit between batches "
                "(default: every placed bot once a batch)", metavar="P", commands=("ladder",), fixed=True),
    )

    def __post_init__(self):
        for key, value in (("placement", self.placement), ("batch", self.batch)):
            if value is not None and not 1 <= value <= MAX_PAIRS:
                raise ParameterError(f"--{key} must be between 1 and {MAX_PAIRS} pairings, got {value}")

    @classmethod
    def build(cls, values: dict) -> "Ladder":
        placement = values.get("placement")
        return cls(PLACEMENT if placement is None else placement, values.get("batch"))

    def stored(self) -> dict:
        return {"placement": self.placement, "batch": self.batch}

    def check(self, config) -> None:
        pass  # its field changes while it runs: a batch needs two active bots, not the ladder

    def describe(self, config: dict) -> str:
        return "placement gauntlet, then rating pairings, one opening with both colours per pairing"

    def own_tables(self, games, config: dict, standings) -> dict:
        return {"ladder": ladder_table(games, config, standings)}  # the standings' Elo fit: one fit for both

    def page(self, games, config: dict, standings) -> dict:
        return self.own_tables(games, config, standings)


@dataclass(frozen=True)
class Pairing:
    """Two games of one batch: ``first`` moves first in the first, ``second`` in the other."""

    first: str
    second: str
    placing: bool = False
    """Part of ``first``'s placement gauntlet."""


@dataclass
class Batch:
    """One batch of a ladder: who plays whom, and the state it was drawn from."""

    number: int
    pairings: list[Pairing]
    ratings: dict[str, float]
    """Elo of every bot with games before this batch."""
    placing: dict[str, list[str]] = field(default_factory=dict)
    """New bot -> its placement opponents."""
    founders: list[str] = field(default_factory=list)
    """Bots that start in rating pairings without placement: no rated field to place them against."""
    active: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    """New bots left for the next batch: this one is full."""

    @property
    def start(self) -> int:
        return self.number * STRIDE

    def games(self) -> list[tuple[int, str, str]]:
        """(game id, first, second) of every game of the batch, in id order."""
        out = []
        for k, p in enumerate(self.pairings):
            out += [(self.start + 2 * k, p.first, p.second), (self.start + 2 * k + 1, p.second, p.first)]
        return out


def active_at(members: Sequence[dict], batch: int) -> list[str]:
    """Members who play in ``batch``: joined at or before it (``from_batch`` set) and not left by it."""
    return [m["name"] for m in members if m.get("from_batch") is not None and m["from_batch"] <= batch
            and (m.get("left_batch") is None or m["left_batch"] > batch)]


def ratings(results: dict[int, tuple[str, str, float]], before: int) -> dict[str, float]:
    """Elo of every bot from the games with ids below ``before``: the reports' joint fit
    (``results.ratings.strengths``), its arrays made here without pandas (it runs every batch)."""
    import numpy as np

    from results.ratings import strengths

    rows = [r for i, r in results.items() if i < before and r[0] != r[1]]
    if not rows:
        return {}
    bots = sorted({b for first, second, _ in rows for b in (first, second)})
    index = {b: k for k, b in enumerate(bots)}
    i = np.fromiter((index[r[0]] for r in rows), int, len(rows))
    j = np.fromiter((index[r[1]] for r in rows), int, len(rows))
    x = np.fromiter((r[2] for r in rows), float, len(rows))
    return dict(zip(bots, strengths(i, j, x, len(bots)).tolist()))


def placement_opponents(placed_by_rating: Sequence[str], count: int, offset: float = 0.5) -> list[str]:
    """``count`` opponents spread over a field sorted best first: the bots at the quantiles
    (k + offset) / count, all different (fewer when the field is smaller). Bots placed in the
    same batch take different offsets, so they do not all meet the same opponents."""
    n = len(placed_by_rating)
    count = min(count, n)
    return [placed_by_rating[min(n - 1, int((k + offset) * n / count))] for k in range(count)]


def rating_pairs(
    bots: Sequence[str],
    rating: dict[str, float],
    met: dict[frozenset, int],
    played: dict[str, int],
    most: int,
    rng: random.Random,
) -> list[tuple[str, str]]:
    """Up to ``most`` pairings of ``bots``, each bot at most once: the least-played bot first
    takes the partner nearest in rating, a pairing played ``m`` times before counting as
    ``m * REMATCH_ELO`` further. Ties fall to ``rng``; the higher-rated bot is listed first."""
    tie = {b: rng.random() for b in bots}
    order = sorted(bots, key=lambda b: (played.get(b, 0), tie[b]))
    free = set(bots)
    out = []
    for a in order:
        if len(out) >= most:
            break
        if a not in free:
            continue
        free.discard(a)
        if not free:
            break
        r = rating.get(a, 0.0)
        b = min(free, key=lambda c: (abs(rating.get(c, 0.0) - r) + REMATCH_ELO * met.get(frozenset((a, c)), 0), tie[c]))
        free.discard(b)
        out.append((a, b) if (rating.get(a, 0.0), -tie[a]) >= (rating.get(b, 0.0), -tie[b]) else (b, a))
    return out


def draw_batch(members: Sequence[dict], number: int, results: dict[int, tuple[str, str, float]], seed: int,
               placement: int, most: int | None) -> Batch:
    """Batch ``number``'s pairings, from the members and the games of the batches before it
    (``most``: rating pairings at most; None: every placed bot once, as far as it can be)."""
    before = number * STRIDE
    rating = ratings(results, before)
    met: dict[frozenset, int] = {}
    played: dict[str, int] = {}
    for i, (first, second, _) in results.items():
        if i < before:
            if i % 2 == 0:  # a pairing's first game counts it once
                met[frozenset((first, second))] = met.get(frozenset((first, second)), 0) + 1
            played[first] = played.get(first, 0) + 1
            played[second] = played.get(second, 0) + 1
    active = active_at(members, number)
    fresh = [b for b in active if not played.get(b)]  # placed by their first games
    placed = [b for b in active if played.get(b)]
    batch = Batch(number, [], rating, active=active)
    if len(placed) < 2:  # no rated field to place against: everyone starts in rating pairings
        batch.founders, fresh, placed = fresh, [], active
    rng = random.Random(json.dumps(["ladder", seed, number]))
    tie = {b: rng.random() for b in active}
    by_rating = sorted(placed, key=lambda b: (-rating.get(b, 0.0), tie[b]))
    for j, bot in enumerate(fresh):
        opponents = placement_opponents(by_rating, placement, (j + 0.5) / len(fresh))
        if len(batch.pairings) + len(opponents) > MAX_PAIRS:
            batch.waiting = fresh[j:]  # more newcomers than a batch holds: the rest are placed next batch
            break
        batch.placing[bot] = opponents
        batch.pairings += [Pairing(bot, o, True) for o in opponents]
    room = MAX_PAIRS - len(batch.pairings) if most is None else min(most, MAX_PAIRS - len(batch.pairings))
    batch.pairings += [Pairing(a, b) for a, b in rating_pairs(by_rating, rating, met, played, room, rng)]
    return batch


def ladder_table(games: "pd.DataFrame", config: dict, fit: "pd.DataFrame | None" = None) -> "pd.DataFrame":
    """Per member, best first: Elo with its 95% interval, games played, joined, left, and status:
    joining (recorded, not yet drawn), placing (in its placement gauntlet), active, or left.
    ``fit``: the Elo of these games by bot (``elo``, ``elo_low``, ``elo_high``, as the standings
    hold them), if the caller has it; else fitted here."""
    import pandas as pd

    from results.ratings import ratings

    if fit is None:
        fit = ratings(games) if len(games) else pd.DataFrame(columns=["elo", "elo_low", "elo_high"])
    members = config.get("bots", [])
    counts = pd.concat([games["first"], games["second"]]).value_counts() if len(games) else pd.Series(dtype=int)
    ids = pd.concat([games[["first", "game_id"]].set_axis(["bot", "id"], axis=1),
                     games[["second", "game_id"]].set_axis(["bot", "id"], axis=1)])
    start = (ids.groupby("bot")["id"].min() // STRIDE).to_dict() if len(games) else {}
    last = int(games["game_id"].max()) // STRIDE if len(games) else -1
    rows = []
    for m in members:
        name = m["name"]
        first = start.get(name, last + 1)  # the batch of its first games (the next, if none yet)
        if m.get("left") is not None:
            status = "left"
        elif m.get("from_batch") is None:
            status = "joining"  # recorded; the ladder has not drawn a batch since
        elif first >= last and sum(b < first for b in start.values()) >= 2:
            status = "placing"  # its placement gauntlet is the latest batch, or the next
        else:
            status = "active"
        rated = name in fit.index
        rows.append({
            "bot": name, "elo": float(fit.at[name, "elo"]) if rated else None,
            "elo_low": float(fit.at[name, "elo_low"]) if rated else None,
            "elo_high": float(fit.at[name, "elo_high"]) if rated else None,
            "games": int(counts.get(name, 0)), "joined": _when(m.get("joined")), "left": _when(m.get("left")),
            "status": status,
        })
    table = pd.DataFrame(rows, columns=["bot", "elo", "elo_low", "elo_high", "games", "joined", "left", "status"])
    table = table.set_index("bot")
    table = table.sort_values("elo", ascending=False, kind="stable", na_position="last")
    table.insert(0, "rank", range(1, len(table) + 1))
    return table


def _when(stamp: str | None) -> str | None:
    """``2026-11-24 04:05`` of an ISO 8601 time, in UTC."""
    return None if stamp is None else stamp.replace("T", " ")[:16]


class LadderWatcher(Watcher):
    """Plays a ladder batch by batch until ``limit`` more games are played (None: until
    stopped) or nothing can be paired. Between batches it asks for the members and for the
    schedule that makes the batch's games (``schedule_for(members, number)``); each batch is
    drawn from the games stored before it."""

    def __init__(self, stored: list[dict], *, seed: int, placement: int, most: int | None, limit: int | None,
                 members, schedule_for):
        """``members(number, fresh)``: the members, and what changed if ``fresh`` (no game of
        batch ``number`` stored yet: joins and leaves recorded since take effect there)."""
        super().__init__([], 0)
        self.results = {r["game_id"]: (r["first"], r["second"], points(r["result"])) for r in stored}
        self.number = max(self.results) // STRIDE if self.results else 0
        self.seed, self.placement, self.most, self.limit = seed, placement, most, limit
        self.members, self.schedule_for = members, schedule_for
        self.total, self.initial = limit, 0
        self.played = self.batches = 0
        self.batch: Batch | None = None
        self.stopped = ""
        """Why it stopped before its limit (nothing to pair), or ""."""
        self.said: list[str] = []
        """What it said about the ladder, in order."""

    def say(self, line: str) -> None:
        self.said.append(line)
        self.lines.append(f"arena: {line}")

    def rounds(self, todo, schedule):
        while self.limit is None or self.played < self.limit:
            fresh = not any(i // STRIDE == self.number for i in self.results)  # joins and leaves count from here
            members, news = self.members(self.number, fresh)
            if news:
                self.say(f"batch {self.number + 1}: {news}")
            batch = draw_batch(members, self.number, self.results, self.seed, self.placement, self.most)
            games = [g for g in batch.games() if g[0] not in self.results]
            if not batch.pairings:
                self.stopped = f"fewer than two active bots ({', '.join(batch.active) or 'none'})"
                return
            if not games:
                self.number += 1
                continue
            self.batch = batch
            self._tell(batch, games)
            if self.limit is not None:
                games = games[: self.limit - self.played]
            made = self.schedule_for(members, self.number)
            yield [made.task(i, i // 2, self.number, first, second) for i, first, second in games]
            self.batches += 1
            if not all(i in self.results for i, _, _ in games):
                return  # a game failed: the next batch is drawn from this one's games, all of them
            if all(i in self.results for i, _, _ in batch.games()):
                self.number += 1

    def add(self, game) -> int:
        self.results[game.game_id] = (game.first, game.second, game.score_first)
        self.played += 1
        return 1

    def postfix(self) -> str:
        batch = self.batch
        if batch is None:
            return ""
        text = f"batch {batch.number + 1}, {len(batch.active)} active"
        if batch.ratings:
            leader = max((b for b in batch.active if b in batch.ratings), key=batch.ratings.get, default=None)
            if leader is not None:
                text += f", leader {leader} {batch.ratings[leader]:+.0f}"
        if batch.placing:
            text += f", placing {', '.join(batch.placing)}"
        return text

    def _tell(self, batch: Batch, todo: list) -> None:
        if len(todo) < len(batch.games()):
            return  # resumed mid-batch: told when it was drawn
        if batch.founders:
            self.say(f"batch {batch.number + 1}: no rated field to place against yet: {', '.join(batch.founders)} "
                     "start in rating pairings")
        for bot, opponents in batch.placing.items():
            shown = ", ".join(f"{o} ({batch.ratings.get(o, 0.0):+.0f})" for o in opponents)
            fewer = f" (only {len(opponents)} rated bots: {self.placement} pairings asked)" if len(opponents) < self.placement else ""
            self.say(f"batch {batch.number + 1}: placing {bot} against {shown}{fewer}")
        if batch.waiting:
            self.say(f"batch {batch.number + 1} is full: {len(batch.waiting)} new bots are placed in the next")
