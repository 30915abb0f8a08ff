"""Which stored tournament a run continues: resumed as it is, grown, or a new one.

Names. A run without a name (no ``--name``, no ``name`` in its file) gets one derived from
the settings that decide how each game is played: ``GAME-BUDGET-HASH``, e.g.
``connect4-nodes=2000-5c1e0a``, HASH being the first 6 hex digits of the SHA-256 of the
game, budget, openings, seed, format, limits and isolation. Games per pairing and the bots
are left out, so that running with more of either grows the tournament of that name. A
field of bots that neither equals nor grows the stored one gets a tournament of its own,
``NAME-2``, ``NAME-3``, ...; the same command always finds its own again.

Growing. The same settings with more games per pairing, or more bots (the stored ones
keeping their spec, budget and role), play only the new games (see make_schedule). Fewer
games per pairing or fewer bots are refused, naming the flag: the stored tournament has
those games already (``arena report`` shows it). Under an explicit name, any other change
is refused naming the flags that differ. A tournament stored before schedules could grow
resumes with its own settings only.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.front.options import stored_flags, table
from arena.front.tournament import Stage, TournamentConfig
from results.store import ConfigMismatch, Tournament

#: The flag of each stored setting, for messages (from the settings table).
FLAGS = stored_flags()
#: Settings a tournament can grow in; the derived name leaves them out.
GROWING = tuple(dict.fromkeys(key for row in table() if row.grows for key in row.stored))
_NOT_SETTINGS = ("name", "schedule", "grown_from")


@dataclass
class Verdict:
    """How a run's settings compare with a stored tournament's."""

    changed: list[str] = field(default_factory=list)
    """Flags whose change would make other games."""
    fewer: list[str] = field(default_factory=list)
    """Flags asking for fewer games or bots than stored."""
    more: list[str] = field(default_factory=list)
    """Flags asking for more games or bots."""
    missing: list[str] = field(default_factory=list)
    """Stored bots the run leaves out."""

    @property
    def same(self) -> bool:
        return not (self.changed or self.fewer or self.more)

    @property
    def grows(self) -> bool:
        return bool(self.more) and not (self.changed or self.fewer)


@dataclass
class Plan:
    """What a run does with the database: a new tournament, or a stored one resumed or grown."""

    config: TournamentConfig
    """The run's config, named."""
    stored: Tournament | None = None
    grown_from: list[Stage] = field(default_factory=list)
    """The stages before this one (see make_schedule)."""
    grows: bool = False
    legacy: bool = False
    """Stored before schedules could grow."""

    def stored_config(self) -> dict:
        """The config to store: the identity, and the stages it grew from."""
        out = _plain(self.config.identity())
        if self.grown_from:
            out["grown_from"] = [s.to_json() for s in self.grown_from]
        return self.stored.config if self.legacy else out


def derived_name(config: TournamentConfig) -> str:
    """``GAME-BUDGET-HASH`` of the settings other than the name, games per pairing and bots."""
    key = {k: v for k, v in _plain(config.identity()).items() if k not in GROWING and k != "name"}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:6]
    return f"{config.game}-{config.budget}-{digest}"


def compare(stored: dict, config: TournamentConfig) -> Verdict:
    """How ``config`` differs from a stored tournament's config."""
    new = _plain(config.identity())
    out = Verdict()
    for key, flag in FLAGS.items():
        if key not in GROWING and stored.get(key) != new.get(key):
            out.changed.append(flag)
    old_bots = _bots(stored)
    new_bots = _bots(new)
    if any(new_bots.get(name, bot) != bot for name, bot in old_bots.items()):
        out.changed.append("--bot")
    kept = old_bots.keys() & new_bots.keys()
    roles = [(n in stored.get("challengers", []), n in new["challengers"]) for n in kept]
    if any(a != b for a, b in roles):
        out.changed.append("--challenger")
    out.missing = [name for name in old_bots if name not in new_bots]
    if out.missing:
        out.fewer.append("--bot")
    if new_bots.keys() - old_bots.keys():
        out.more.append("--bot")
    games, old_games = new["games_per_pairing"], stored.get("games_per_pairing")
    if old_games is not None and games != old_games:
        (out.fewer if games < old_games else out.more).append("--games")
    if not config.format.grows:  # paired as results came in: other bots, other pairings (another format: changed)
        out.changed += [f for f in out.more if f not in out.changed]
        out.more = []
    return out


def plan(tournaments: list[Tournament], config: TournamentConfig, db: Path) -> Plan:
    """The tournament among ``tournaments`` (those stored in ``db``) that a run of ``config`` continues.

    ConfigMismatch, naming the flags, when the run's settings cannot continue it.
    """
    if config.name is not None:
        stored = next((t for t in tournaments if t.name == config.name), None)
        if stored is None:
            return Plan(config)
        verdict = compare(stored.config, config)
        if verdict.same or (verdict.grows and not _legacy(stored)):
            return _continue(stored, config, verdict)
        raise _refusal(stored, verdict, db, config)
    base = derived_name(config)
    ours = [t for t in tournaments if re.fullmatch(rf"{re.escape(base)}(-[2-9]|-[1-9]\d+)?", t.name)]
    verdicts = [(t, compare(t.config, config)) for t in ours]
    for wanted in ("same", "grows"):
        for t, verdict in verdicts:
            if getattr(verdict, wanted):
                return _continue(t, replace(config, name=t.name), verdict)
    for t, verdict in verdicts:
        if verdict.fewer and not (verdict.changed or verdict.more):
            raise _refusal(t, verdict, db, config)
    for t in tournaments:  # the same settings stored before names were derived
        if _legacy(t) and compare(t.config, config).same:
            return _continue(t, replace(config, name=t.name), Verdict())
    taken = {t.name for t in tournaments}
    name = next(n for n in (base, *(f"{base}-{k}" for k in range(2, len(taken) + 3))) if n not in taken)
    return Plan(replace(config, name=name))


def _continue(stored: Tournament, config: TournamentConfig, verdict: Verdict) -> Plan:
    grown_from = [Stage.from_json(s) for s in stored.config.get("grown_from", [])]
    if verdict.grows:
        old = stored.config
        names = tuple(b["name"] for b in old["bots"])
        grown_from.append(Stage(old["games_per_pairing"], names, tuple(old["challengers"])))
    return Plan(config, stored, grown_from, verdict.grows, _legacy(stored))


def _refusal(stored: Tournament, verdict: Verdict, db: Path, config: TournamentConfig) -> ConfigMismatch:
    where = f"tournament {stored.name!r} in {str(db)!r}"
    if verdict.changed or _legacy(stored):
        flags = list(dict.fromkeys(verdict.changed + verdict.fewer + verdict.more))
        before = " (before tournaments could grow)" if _legacy(stored) and not verdict.changed else ""
        return ConfigMismatch(
            f"{where} was started{before} with other settings ({', '.join(flags)} differ); "
            "give a new name with --name, or use another database"
        )
    old = stored.config
    parts = []
    if "--games" in verdict.fewer:
        parts.append(f"--games asks for fewer than its {old['games_per_pairing']} per pairing")
    if verdict.missing:
        parts.append(f"--bot leaves out {', '.join(map(repr, verdict.missing))}")
    flag = config.format.flag("games_per_pairing")  # the stored format's: fewer games of another format is a change
    if flag:  # an SPRT's games per pairing are its --max-games
        parts = [p.replace("--games asks", f"{flag} asks").replace(" per pairing", " games") for p in parts]
    return ConfigMismatch(
        f"{where} already holds these games ({'; '.join(parts)}): a smaller tournament plays nothing new; "
        f"see it with 'arena report {db} --tournament {stored.name}', or give a new name with --name"
    )


def _bots(config: dict) -> dict[str, tuple[str, str | None]]:
    """Spec and budget of each bot by name; None for the tournament's budget (a change of which is --budget)."""
    default = config.get("budget")
    return {b["name"]: (b["spec"], None if b["budget"] == default else b["budget"]) for b in config.get("bots", [])}


def _legacy(stored: Tournament) -> bool:
    return "schedule" not in stored.config


def _plain(identity: dict) -> dict:
    """The identity as it reads back from the database (tuples as lists)."""
    return json.loads(json.dumps(identity, sort_keys=True))
