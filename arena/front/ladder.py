"""``arena ladder``: a standing ladder that bots join and leave over days.

A ladder is a tournament of the ``ladder`` format in the results database. Its settings
(game, budget, openings, seed, limits, isolation, sandbox, placement, batch size) are fixed
when it is created; later calls reuse them and refuse, in one line, a flag that differs.
Members are recorded in the stored settings (``results.ladder``) in one short transaction,
so a bot can be added or removed from another terminal while the ladder runs: the running
ladder (which holds the database's run lock) reads the members again between batches.
Batches are drawn from the stored games (``results.ladder.draw_batch``), so a ladder killed
mid-batch resumes by drawing the same batch again and playing only its missing games.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from arena import __version__
from arena.execution.pool import Failure
from arena.formats.ladder import MAX_PAIRS, PLACEMENT, Ladder, LadderWatcher
from arena.front.options import rows
from arena.front.run import run_registry, run_tournament
from arena.front.settings import DEFAULT_SETTINGS, ConfigError, RunSettings, UsageError, build, parse_entrant, settings
from arena.front.tournament import Entrant, Schedule, TournamentConfig, from_stored, round_openings, validate
from results.store import RUN_LOCK_SUFFIX, DatabaseBusy, RunLock, Store

# The ladder refits ratings (small matrices) between batches while the workers play: BLAS
# threads would only spin against them on the same cores. Set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: Settings fixed when a ladder is created (the settings table's ``fixed`` rows), and their flags;
#: the ladder's own (placement, batch) are kept beside the others.
FIXED = [row for row in rows("ladder") if row.fixed]
SHAPE = tuple(row.key for row in Ladder.settings)
KEYS = tuple(row.key for row in FIXED if row.key not in SHAPE)
FLAGS = {row.key: row.option for row in FIXED}
DEFAULT_NAME = "ladder"


def tournament_config(stored: dict, members: list[dict] | None = None) -> TournamentConfig:
    """The TournamentConfig a ladder's games are played with, from its stored form
    (``members``: default, all stored ones)."""
    return from_stored({**stored, "bots": stored["bots"] if members is None else members})


def _given(stored_settings: dict, members: list[dict] = ()) -> TournamentConfig:
    """The config the settings given to ``arena ladder`` make (before it is stored)."""
    bots = [{"name": m["name"], "spec": m["spec"], **({"budget": m["budget"]} if m.get("budget") else {})} for m in members]
    values = {**DEFAULT_SETTINGS, **stored_settings, "bots": bots or ["random"], "games": 2, "format": Ladder.name,
              "challengers": [], "database": "-", "jobs": 1}
    config, _ = build(values)
    return config if bots else replace(config, bots=())


def check(config: TournamentConfig, registry, entrants=()):
    """Validate the game, the limits and the bots ``entrants``; returns the game (see ``validate``)."""
    bots = tuple(entrants)
    # validate wants a field of two: a lone bot is checked beside a renamed copy of itself
    pad = tuple(replace(b, name=f"{b.name}'") for b in (bots or (Entrant("random", "random"),) * 2))
    return validate(replace(config, bots=bots + pad[: max(0, 2 - len(bots))]), registry)


def stored_config(values: dict, placement: int, batch: int, members: list[dict]) -> dict:
    """What the database keeps of a new ladder: its settings, the fields reports read, its members."""
    config = _given(values, members)
    identity = config.identity()
    out = {k: identity[k] for k in ("game", "budget", "opening_plies", "seed", "isolate", "time_margin", "watchdog",
                                     "memory_limit", "output_limit")}
    for key in ("opening_book", "adjudication"):
        if key in identity:
            out[key] = identity[key]
    out.update(format=Ladder.name, schedule="ladder/1", settings=values, placement=placement, batch=batch,
               games_per_pairing=2, challengers=[], sandbox=config.limits.sandbox, bots=members)
    return out


def conflicts(stored: dict, given: dict) -> list[str]:
    """The flags among ``given`` (setting -> value) that differ from the stored ladder's."""
    out = []
    for key, value in given.items():
        if key in ("placement", "batch"):
            if stored.get(key) != value:
                out.append(f"{FLAGS[key]} {value} (stored {stored.get(key)})")
            continue
        try:
            mine = _given({**stored["settings"], key: value}).identity()
        except ConfigError:
            out.append(FLAGS[key])
            continue
        theirs = _given(stored["settings"]).identity()
        if mine != theirs:
            if isinstance(value, bool):  # a flag given alone: the ladder was made without it
                out.append(f"{FLAGS[key]} (created without it)")
            else:
                out.append(f"{FLAGS[key]} {value} (stored {stored['settings'].get(key)})")
    return out


@dataclass
class LadderResult:
    """What one call of ``run_ladder`` did."""

    name: str
    played: int = 0
    batches: int = 0
    interrupted: bool = False
    failed: list[Failure] = field(default_factory=list)
    stopped: str = ""
    """Why it stopped before its budget (nothing to pair), or ""."""
    lines: list[str] = field(default_factory=list)
    """What it said about the ladder, in order."""


def run_ladder(db: str | Path, name: str = DEFAULT_NAME, *, games: int | None = None, jobs: int = 1, plugins=(),
               registry=None, progress: bool = False, lock: RunLock | None = None, dask: str | None = None,
               affinity: bool = False) -> LadderResult:
    """Play the ladder ``name`` until ``games`` more games are stored (None: until Ctrl-C) or
    nothing can be paired, through the run loop every format is played by (``run_tournament``).
    ``lock``: the run lock, if the caller holds it already (released here at the end)."""
    held = lock if lock is not None else RunLock(db).acquire()
    try:
        with Store(db, create=False) as store:
            tournament = store.tournament(name)
        stored = tournament.config
        config = tournament_config(stored)
        if config.opening_book is not None and config.opening_book.identity() != stored.get("opening_book"):
            raise UsageError(f"the openings file {config.opening_book.path!r} of ladder {name!r} has changed since the "
                             "ladder was created; restore it, or start a new ladder with --name")
        active = tuple(e for e, m in zip(config.bots, stored["bots"]) if m.get("left") is None)
        registry = run_registry(plugins, replace(config, bots=active), registry=registry)
        game = check(config, registry, active)
        openings: list = []

        def members(number: int, fresh: bool):
            with Store(db, create=False) as store:
                found = store.tournament(name)
                current = found.config["bots"]
                news = assign(current, number) if fresh else ""
                if news:
                    current = update_config(store, found, lambda c: assign(c["bots"], number))["bots"]
                return current, news

        key: list[bytes] = []  # the ladder's secret for its dice, read once (a game with chance)

        def schedule_for(members: list[dict], number: int) -> Schedule:
            nonlocal openings
            batch_config = tournament_config(stored, members)
            if len(openings) <= number:
                openings = round_openings(batch_config, game, max(2 * len(openings), number + 1, 16))
            made = Schedule(batch_config, openings=openings, hosts=registry.host_table(batch_config.bots))
            if game.model.secret:
                if not key:
                    with Store(db, create=False) as store:
                        key.append(store.chance_key(store.tournament(name)))
                made.with_key(key[0])
            return made

        def watch(rows, scheduled):
            fmt = config.format
            return LadderWatcher(rows, seed=stored["seed"], placement=fmt.placement, most=fmt.batch, limit=games,
                                 members=members, schedule_for=schedule_for)

        run = RunSettings(Path(db), jobs, dask, progress, affinity)
        outcome = run_tournament(replace(config, bots=active, name=name), run, plugins=plugins, registry=registry,
                                 watch=watch, stored=tournament, lock=held)
    finally:
        held.release()
    watcher = outcome.watcher
    stopped = ""
    if watcher.stopped:
        stopped = (f"nothing to pair in ladder {name!r}: {watcher.stopped}; add bots with: arena ladder {db} --add NAME=SPEC")
    return LadderResult(name, outcome.played, watcher.batches, outcome.interrupted, outcome.failed, stopped, watcher.said)


def holder(db: str | Path) -> dict:
    """Who holds the run lock of ``db`` (pid, tournament), as its lock file says; {} if unknown."""
    try:
        return json.loads(Path(str(db) + RUN_LOCK_SUFFIX).read_text())
    except (OSError, ValueError):
        return {}


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def cmd_ladder(args) -> int:
    """Create a ladder or record its joins and leaves; then run it, unless a running one picks them up."""
    db, name = args.db, args.name or DEFAULT_NAME
    adds = [parse_entrant(text) for text in args.add or []]
    removes = list(args.remove or [])
    given = {k: getattr(args, k) for k in KEYS if getattr(args, k, None) is not None}
    shape = {k: getattr(args, k) for k in SHAPE if getattr(args, k) is not None}
    for key, value in shape.items():
        if not 1 <= value <= MAX_PAIRS:
            raise UsageError(f"{FLAGS[key]} must be between 1 and {MAX_PAIRS} pairings, got {value}")
    if args.games is not None and args.games < 0:
        raise UsageError(f"--games must be 0 or more (0: record joins and leaves, play nothing), got {args.games}")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    jobs = args.jobs or os.cpu_count() or 1
    with Store(db, create=bool(adds)) as store:
        found = {t.name: t for t in store.tournaments()}
        tournament = found.get(name)
        if tournament is None:
            if not adds:
                others = f"; tournaments: {', '.join(found)}" if found else ""
                raise UsageError(f"no ladder {name!r} in {db!r}: create it with arena ladder {db} --add NAME=SPEC ...{others}")
            if removes:
                raise UsageError(f"ladder {name!r} is new: it has no bot to --remove yet")
            values = settings(None, given, {k: DEFAULT_SETTINGS[k] for k in KEYS})  # a clock alone replaces the budget
            config = _given(values)
            registry = run_registry(args.plugin, config, adds)
            check(config, registry, adds)
            members = [member(e.name, e.spec, None if e.budget is None else str(e.budget), now()) for e in adds]
            stored = stored_config(values, shape.get("placement", PLACEMENT),
                                   shape.get("batch"), members)
            store.open_tournament(name, config.game, stored, config.seed, 0, __version__)
            what = f"created ladder {name!r} ({config.game}, {config.budget}) with {', '.join(e.name for e in adds)}"
        else:
            if tournament.config.get("format") != Ladder.name:
                raise UsageError(f"tournament {name!r} in {db!r} is a {tournament.config.get('format')} tournament, "
                                 "not a ladder; give the ladder's name with --name")
            bad = conflicts(tournament.config, {**given, **shape})
            if bad:
                raise UsageError(f"ladder {name!r} in {db!r} was created with other settings ({'; '.join(bad)}); "
                                 "leave these flags out to use the stored ones, or give a new --name")
            config = tournament_config(tournament.config)
            # a member added again as it is (the command that made the ladder, run again to resume): nothing to record
            adds = [e for e in adds if not _member_as_given(tournament.config["bots"], e)]
            registry = run_registry(args.plugin, config, adds)  # members' and newcomers' bots
            if adds:
                check(config, registry, adds)
            if adds or removes:
                update_config(store, tournament, lambda c: _change(c["bots"], name, adds, removes))
            parts = [f"added {', '.join(e.name for e in adds)}"] * bool(adds) + [f"removed {', '.join(removes)}"] * bool(removes)
            what = "; ".join(parts)
    lock = RunLock(db)
    try:
        lock.acquire()
    except DatabaseBusy as exc:
        who = holder(db)
        if who.get("tournament") == name:
            picked = f"picks up: {what}" if what else "goes on"
            print(f"arena: ladder {name!r} is running (process {who.get('pid')}); it {picked} at its next batch")
            return 0
        if not what:
            raise
        print(f"arena: ladder {name!r}: recorded ({what}); it cannot run now: {exc}", file=sys.stderr)
        return 0
    if what:
        print(f"arena: ladder {name!r}: {what}", file=sys.stderr)
    if args.games == 0:
        lock.release()
        print(ladder_text(db, name))
        return 0
    until = f"{args.games} games" if args.games is not None else "Ctrl-C"
    print(f"arena: running ladder {name!r} until {until}, {jobs} jobs; from another terminal: "
          f"arena ladder {db} --add NAME=SPEC (or --remove NAME)", file=sys.stderr)
    result = run_ladder(db, name, games=args.games, jobs=jobs, plugins=args.plugin, registry=registry,
                        progress=args.progress is not False, lock=lock, dask=args.dask, affinity=bool(args.affinity))
    if result.interrupted:
        print(f"arena: interrupted: {result.played} games played now are stored in {db!r}; "
              f"run 'arena ladder {db}' again to resume", file=sys.stderr)
        return 130
    if result.stopped:
        print(f"arena: {result.stopped}", file=sys.stderr)
    print(ladder_text(db, name))
    print(f"\n{result.played} games played now in {result.batches} batches (ladder {name!r} in {db!r})")
    if result.failed:
        print(f"arena: {len(result.failed)} games could not be played (see the warnings above); the next batch is "
              "drawn from them: run the same command again to retry them", file=sys.stderr)
        return 1
    return 0


def _member_as_given(members: list[dict], entrant) -> bool:
    """True if ``entrant`` is a member still in the ladder, with the same spec and budget."""
    budget = None if entrant.budget is None else str(entrant.budget)
    return any(m["name"] == entrant.name and m["spec"] == entrant.spec and m.get("budget") == budget
               and m.get("left") is None for m in members)


def _change(members: list[dict], name: str, adds, removes) -> None:
    """Record joins and leaves in ``members``; UsageError (nothing recorded) for a name taken or unknown."""
    by_name = {m["name"]: m for m in members}
    for entrant in adds:
        old = by_name.get(entrant.name)
        if old is not None:
            left = f", left {old['left'][:16]}" if old.get("left") else ""
            raise UsageError(f"ladder {name!r} has a bot {entrant.name!r} already ({old['spec']}, joined "
                             f"{old['joined'][:16]}{left}); give the new one another name: NAME=SPEC")
        members.append(member(entrant.name, entrant.spec, None if entrant.budget is None else str(entrant.budget), now()))
    for bot in removes:
        still = ", ".join(names(members, "in")) or "none"
        if bot not in by_name:
            raise UsageError(f"no bot {bot!r} in ladder {name!r}; members: {still}")
        if by_name[bot].get("left"):
            raise UsageError(f"{bot!r} left ladder {name!r} already ({by_name[bot]['left'][:16]}); members: {still}")
        by_name[bot]["left"] = now()


def ladder_text(db: str | Path, name: str) -> str:
    """The ladder's table as text, headed by what it describes."""
    import results
    from arena.formats.ladder import ladder_table
    from results.render import render

    tables = results.load(db, name)
    with Store(db, create=False) as store:
        config = store.tournament(name).config
    return render({"ladder": ladder_table(tables.games, config)}, "text", tables.about)


def assign(members: list[dict], batch: int) -> str:
    """Set ``from_batch`` of members who joined and ``left_batch`` of members who left since a
    run last looked, to ``batch``; return what changed, in words (``members`` changes in place)."""
    joins, leaves = [], []
    for m in members:
        if m.get("from_batch") is None and m.get("left") is None:
            m["from_batch"] = batch
            joins.append(m["name"])
        elif m.get("left") is not None and m.get("from_batch") is not None and m.get("left_batch") is None:
            m["left_batch"] = batch
            leaves.append(m["name"])
    return "; ".join(f"{', '.join(who)} {verb + 's' * (len(who) == 1)}" for who, verb in ((joins, "join"), (leaves, "leave"))
                     if who)


def update_config(store, tournament, change) -> dict:
    """Read a stored tournament's config, ``change(config)`` it in place, and write it back, in
    one transaction (two processes recording joins at once both keep theirs); returns it."""
    from results.sqlite import write

    def work():
        (text,) = store.db.execute("SELECT config FROM tournaments WHERE id=?", (tournament.id,)).fetchone()
        config = json.loads(text)
        change(config)
        store.db.execute("UPDATE tournaments SET config=? WHERE id=?", (json.dumps(config, sort_keys=True), tournament.id))
        return config

    return write(store.db, store.path, store.lock_timeout, f"the members of ladder {tournament.name!r}", work)


def member(name: str, spec: str, budget: str, joined: str) -> dict:
    """A new member's stored entry (it plays from the batch the running ladder gives it)."""
    return {"name": name, "spec": spec, "budget": budget, "joined": joined, "left": None,
            "from_batch": None, "left_batch": None}


def names(members: Iterable[dict], status: str | None = None) -> list[str]:
    """Member names; ``status="in"``: those who have not left."""
    return [m["name"] for m in members if status is None or m.get("left") is None]
