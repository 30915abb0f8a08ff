"""What a report describes: the tournament's name, game, field, settings and completion.

``About`` is built from a stored tournament (its settings as the run recorded them, and the
games finished so far) or from game records held in memory (only what the records tell).
Every report format and chart heads itself with it, so a report read on its own says which
games it is about and whether they are all of them.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from arena.formats import stored_format
from arena.game import Model
from arena.plugins import get_registry
from arena.records import GameRecord
from arena.seating import seating_cycle


#: How the dice of a game with chance fell, in a report's settings line.
CHANCE_WORDS = {
    "duplicate": "duplicate chance (a pair's games draw the same outcomes seat by seat)",
    "independent": "independent chance (every game its own dice)",
}


#: What a report's heading says of how far the bots of a game with hidden information were kept
#: from it, by how they ran (``About.isolation``); a sandboxed run needs no word.
ISOLATION_NOTES = {
    "isolated": "NOT SANDBOXED: each bot ran in a process of its own, but as the user: it could read and write files "
    "(the results database, notes of earlier games), so the guarantee that no bot saw hidden information is "
    "against accidents, not attacks; run with --sandbox for that",
    "in-process": "TRUSTED: the bots ran in the referee's own process (--no-isolation --trusted) and could read "
    "everything, {what} included",
}


@lru_cache(maxsize=64)
def game_model(spec: str | None) -> Model | None:
    """The model of the game ``spec`` as the installed plugins register it; None if it cannot
    be made here (a plugin that is not installed): a report never fails on it."""
    if not spec:
        return None
    try:
        return get_registry().game(spec).model
    except Exception:
        return None


def table_words(seats: int, games: int) -> str:
    """What each table of a game of ``seats`` seats plays when asked for ``games``, in words:
    whole seating cycles (``arena.seating``)."""
    length = len(seating_cycle(seats))
    played = -(-games // length) * length
    return (f"{seats} seats a table, {played} games a table: every bot in every seat {played // seats} times, "
            f"every ordered pair of bots adjacent in turn in {played // (seats - 1)}")


@dataclass(frozen=True)
class Entry:
    """One bot of the field."""

    name: str
    """Display name (the key of every report table)."""
    spec: str | None
    """Bot spec, e.g. ``alphabeta:depth=5``; None when not known (records in memory)."""
    budget: str | None
    """Per-move budget as text, e.g. ``nodes=2000``; several joined by `` / `` if they varied."""

    def __str__(self):
        """``[NAME=]SPEC[@BUDGET]``, as ``arena run --bot`` takes it."""
        text = self.name if self.spec in (None, self.name) else f"{self.name}={self.spec}"
        return text if self.budget is None else f"{text}@{self.budget}"


@dataclass(frozen=True)
class About:
    """One tournament as a report describes it; None marks a setting that is not known."""

    name: str
    """Tournament name ("" for records in memory)."""
    game: str | None
    """Game spec, e.g. ``connect4:columns=8``."""
    bots: tuple[Entry, ...]
    """The field, in the tournament's order."""
    finished: int
    """Games finished (in the database, or records given)."""
    scheduled: int | None = None
    """Games in the whole schedule."""
    format: str | None = None
    """``round-robin`` or ``gauntlet``."""
    challengers: tuple[str, ...] = ()
    """The gauntlet's challengers."""
    games_per_pairing: int | None = None
    openings: int | None = None
    """Random opening plies before the bots take over."""
    seed: int | None = None
    """Master seed."""
    started: str | None = None
    """When the tournament was started: UTC, ISO 8601."""
    version: str | None = None
    """botarena version that started it."""
    opening_file: str | None = None
    """The openings file the openings came from, if one was used."""
    rounds: int | None = None
    """A Swiss tournament's rounds."""
    race: dict | None = None
    """A race's confidence and games budget."""
    sandboxed: bool | None = None
    """Every bot process ran under bubblewrap (see arena.execution.sandbox.bubblewrap)."""
    plan: str | None = None
    """How much each bot plays, in the format's words (``Format.describe``)."""
    chance: str | None = None
    """In a game with chance, where the dice came from: "duplicate" (a pair's games drew the
    same outcomes seat by seat) or "independent"; None otherwise."""

    seats: int = 2
    """Seats of the game: a game of more is played at tables (``arena.seating``)."""
    hidden: bool | None = None
    """The game hides information from the seats (``Model.hidden``); None when not known."""
    simultaneous: bool | None = None
    """The game has seats move at once (``Model.simultaneous``); None when not known."""
    isolation: str | None = None
    """How the bots ran: "sandboxed", "isolated" (a process each, without the sandbox) or
    "in-process" (in the referee's, trusted); None when not known."""

    @classmethod
    def from_store(cls, tournament, finished: int, keyed: bool = False, seats: int = 2,
                   model: Model | None = None) -> "About":
        """From a ``results.store.Tournament`` row and the number of games stored for it;
        ``keyed``: its dice have a key (a game with chance, hidden information or simultaneous
        moves, ``Store.keyed``); ``seats``: its game's; ``model``: its game's (default: for a
        keyed game, looked up among the installed plugins, ``game_model``)."""
        config = tournament.config
        if model is None and keyed:
            model = game_model(tournament.game)
        sandboxed = bool(config.get("sandbox"))
        isolation = "sandboxed" if sandboxed else "isolated" if config.get("isolate", True) else "in-process"
        bots = tuple(Entry(b["name"], b.get("spec"), b.get("budget")) for b in config.get("bots", ()))
        return cls(
            name=tournament.name, game=tournament.game, bots=bots, finished=int(finished),
            # a format that stops when it decides (an SPRT, a race): its schedule is a most, never "partial"
            scheduled=None if stored_format(config).open_ended else tournament.scheduled,
            format=config.get("format"),
            challengers=tuple(config.get("challengers", ())), games_per_pairing=config.get("games_per_pairing"),
            openings=config.get("opening_plies"), seed=tournament.seed, started=tournament.started,
            version=tournament.version, opening_file=(config.get("opening_book") or {}).get("file"),
            sandboxed=sandboxed, rounds=config.get("rounds"), race=config.get("race"),
            plan=stored_format(config).describe(config) if config else None,
            chance=("independent" if config.get("independent_chance") else "duplicate")
            if keyed and (model is None or model.chance) else None,
            seats=seats, hidden=None if model is None else model.hidden,
            simultaneous=None if model is None else model.simultaneous, isolation=isolation if config else None,
        )

    @classmethod
    def from_records(cls, records: Iterable[GameRecord], name: str = "") -> "About":
        """What records in memory tell: the game(s), the players and their budgets, the count."""
        games: dict[str, None] = {}
        budgets: dict[str, dict[str, None]] = {}
        count = 0
        for record in records:
            count += 1
            games.setdefault(record.game)
            for player, budget in zip(record.players, record.budgets):
                budgets.setdefault(player, {}).setdefault(str(budget))
        bots = tuple(Entry(p, None, " / ".join(b) or None) for p, b in budgets.items())
        return cls(name=name, game=", ".join(games) or None, bots=bots, finished=count)

    @property
    def partial(self) -> bool:
        """True when fewer games are finished than were scheduled."""
        return self.scheduled is not None and self.finished < self.scheduled

    def notes(self) -> list[str]:
        """What the heading must warn of beyond a partial run: how far the bots of a game with
        hidden information (or simultaneous moves, in the referee's process) were kept from it."""
        if self.isolation == "in-process" and (self.hidden or self.simultaneous):
            what = "what the game hides" if self.hidden else "the other seats' choices of a turn"
            return [ISOLATION_NOTES["in-process"].format(what=what)]
        if self.isolation == "isolated" and self.hidden:
            return [ISOLATION_NOTES["isolated"]]
        return []

    @property
    def completion(self) -> str:
        """``146 of 600 games (partial)``, ``600 of 600 games``, or ``3 games`` when the schedule is unknown."""
        if self.scheduled is None:
            return f"{self.finished:,} game{'s' * (self.finished != 1)}"
        text = f"{self.finished:,} of {self.scheduled:,} games"
        return f"{text} (partial)" if self.partial else text

    @property
    def title(self) -> str:
        """One short line: ``tournament 'default': connect4, 146 of 600 games (partial)``."""
        who = f"tournament {self.name!r}" if self.name else "games in memory"
        return f"{who}: {self.game or 'unknown game'}, {self.completion}"

    def settings(self) -> str:
        """The settings that decide the games, in words (the known ones)."""
        parts = []
        if self.format:
            against = f" ({', '.join(self.challengers)} against the field)" if self.challengers else ""
            parts.append(self.format + against)
        if self.seats > 2 and self.games_per_pairing is not None:
            parts.append(table_words(self.seats, self.games_per_pairing))
        elif self.plan:
            parts.append(self.plan)
        elif self.games_per_pairing is not None:
            parts.append(f"{self.games_per_pairing} games per pairing")
        if self.opening_file is not None:
            parts.append(f"openings from {self.opening_file}")
        elif self.openings is not None:
            plies = f"{self.openings}-ply random openings" if self.openings else "no random openings"
            if self.openings and self.hidden:
                plies += " (up to the first deal: deals come from the run's secret dice)"
            parts.append(plies)
        if self.seed is not None:
            parts.append(f"seed {self.seed}")
        if self.sandboxed:
            parts.append("sandboxed (bubblewrap)")
        if self.chance is not None:
            parts.append(CHANCE_WORDS[self.chance])
        return ", ".join(parts) or "settings not recorded"

    def provenance(self) -> str:
        """When it was started and by which version, as far as known."""
        when = f"started {self.started.replace('T', ' ')[:16]} UTC" if self.started else "start not recorded"
        return f"{when}, botarena {self.version}" if self.version else when

    def fields(self) -> dict[str, object]:
        """Every item as plain values (for JSON and CSV), None where not known."""
        return {
            "tournament": self.name, "game": self.game,
            "bots": [{"name": b.name, "spec": b.spec, "budget": b.budget} for b in self.bots],
            "format": self.format, "challengers": list(self.challengers),
            "games_per_pairing": self.games_per_pairing, "openings": self.openings, "seed": self.seed,
            "opening_file": self.opening_file, "started": self.started, "version": self.version,
            "sandboxed": self.sandboxed, "chance": self.chance, "rounds": self.rounds, "race": self.race, "finished": self.finished,
            "scheduled": self.scheduled, "partial": self.partial, "completion": self.completion,
            **({"seats": self.seats} if self.seats > 2 else {}),
            **({"isolation": self.isolation, "notes": self.notes()} if self.notes() else {}),
        }

    def lines(self, width: int = 100) -> list[str]:
        """The description for people, wrapped to ``width`` columns."""
        out = [self.title[0].upper() + self.title[1:]]
        if self.partial:
            out.append(f"PARTIAL: {self.scheduled - self.finished:,} scheduled games are not played yet; "
                       "the tables cover the finished ones, and the Elo intervals are fixed-sample: they hold for "
                       "this one look, not for stopping the moment one clears")
        out += self.notes()
        out += [self.settings(), self.provenance()]
        out.append("bots: " + ", ".join(map(str, self.bots)) if self.bots else "bots: none")
        wrap = textwrap.TextWrapper(width=width, subsequent_indent="  ", break_on_hyphens=False)
        return [piece for line in out for piece in wrap.wrap(line)]
