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
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from tqdm import tqdm

from arena import __version__
from arena.execution.executors import executor as make_executor
from arena.execution.pool import Failure
from arena.front import interrupt
from arena.front.probing import config_registry, host_table, run_registry
from arena.front.settings import DEFAULT_SETTINGS, ConfigError, UsageError, build, parse_entrant
from arena.front.tournament import Entrant, Schedule, TournamentConfig, round_openings, validate
from arena.opening import stored_text
from arena.records import points
from results import ladder as ladders
from results.rows import game_rows
from results.store import RUN_LOCK_SUFFIX, DatabaseBusy, RunLock, Store
from results.writer import GameWriter

# The ladder refits ratings (small matrices) between batches while the workers play: BLAS
# threads would only spin against them on the same cores. Set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: Settings fixed when a ladder is created, as ``arena run`` names them (see DEFAULT_SETTINGS).
KEYS = ("game", "budget", "openings", "shuffle", "seed", "time_margin", "watchdog", "memory_limit", "output_limit",
        "isolate", "sandbox")
FLAGS = {"game": "--game", "budget": "--budget", "openings": "--openings", "shuffle": "--shuffle", "seed": "--seed",
         "time_margin": "--time-margin", "watchdog": "--watchdog", "memory_limit": "--memory-limit",
         "output_limit": "--output-limit", "isolate": "--no-isolation", "sandbox": "--sandbox",
         "placement": "--placement", "batch": "--batch"}
DEFAULT_NAME = "ladder"
FORMAT = "ladder"


def tournament_config(stored: dict, members: list[dict] | None = None) -> TournamentConfig:
    """The TournamentConfig a ladder's games are played with (``members``: default, all stored ones)."""
    members = stored["bots"] if members is None else members
    bots = [{"name": m["name"], "spec": m["spec"], **({"budget": m["budget"]} if m.get("budget") else {})} for m in members]
    values = {**DEFAULT_SETTINGS, **stored["settings"], "bots": bots or ["random"], "games": 2, "format": "round-robin",
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
    config = tournament_config({"settings": values, "bots": members})
    identity = config.identity()
    out = {k: identity[k] for k in ("game", "budget", "opening_plies", "seed", "isolate", "time_margin", "watchdog",
                                     "memory_limit", "output_limit")}
    if "opening_book" in identity:
        out["opening_book"] = identity["opening_book"]
    out.update(format=FORMAT, schedule="ladder/1", settings=values, placement=placement, batch=batch,
               games_per_pairing=2, challengers=[], sandbox=config.sandbox, bots=members)
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
            mine = tournament_config({"settings": {**stored["settings"], key: value}, "bots": []}).identity()
        except ConfigError:
            out.append(FLAGS[key])
            continue
        theirs = tournament_config(stored | {"bots": []}).identity()
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
               registry=None, progress: bool = False, lock: RunLock | None = None) -> LadderResult:
    """Play the ladder ``name`` until ``games`` more games are stored (None: until Ctrl-C) or
    nothing can be paired. ``lock``: the run lock, if the caller holds it already (released here at the end)."""
    plugins = tuple(plugins)
    result = LadderResult(name)
    held = lock if lock is not None else RunLock(db).acquire()
    with ExitStack() as stack:
        stack.callback(held.release)
        store = stack.enter_context(Store(db, create=False))
        held.note(name)
        tournament = store.tournament(name)
        stored = tournament.config
        config = tournament_config(stored)
        if config.opening_book is not None and config.opening_book.identity() != stored.get("opening_book"):
            raise UsageError(f"the openings file {config.opening_book.path!r} of ladder {name!r} has changed since the "
                             "ladder was created; restore it, or start a new ladder with --name")
        active = [e for e, m in zip(config.bots, stored["bots"]) if m.get("left") is None]
        registry, plugins = run_registry(config, plugins, registry, [e.spec for e in active])
        game = check(config, registry, active)
        results = {r["game_id"]: (r["first"], r["second"], points(r["result"]))
                   for r in store.summaries(tournament)}
        number = max(results) // ladders.STRIDE if results else 0
        openings: list = []
        executor = None
        writer = GameWriter(store, tournament)
        bar = tqdm(total=games, unit="game", file=sys.stderr, disable=not progress, dynamic_ncols=True, desc=name)

        def say(line: str) -> None:
            result.lines.append(line)
            bar.write(f"arena: {line}", file=sys.stderr)

        aborted = False
        try:
            while games is None or result.played < games:
                interrupt.check()
                members = store.tournament(name).config["bots"]
                if not any(i // ladders.STRIDE == number for i in results):  # a fresh batch: joins and leaves count from it
                    news = ladders.assign(members, number)
                    if news:
                        members = ladders.update_config(
                            store, tournament, lambda c: ladders.assign(c["bots"], number))["bots"]
                        say(f"batch {number + 1}: {news}")
                batch = ladders.draw_batch(members, number, results, stored["seed"], stored["placement"], stored["batch"])
                todo = [g for g in batch.games() if g[0] not in results]
                if not batch.pairings:
                    active = ", ".join(batch.active) or "none"
                    result.stopped = (f"nothing to pair in ladder {name!r}: fewer than two active bots ({active}); "
                                      f"add bots with: arena ladder {db} --add NAME=SPEC")
                    break
                if not todo:
                    number += 1
                    continue
                _tell(batch, todo, stored["placement"], say)
                if executor is None:
                    executor = make_executor(None, jobs, plugins, game_rows)
                config = tournament_config(stored, members)
                while len(openings) <= number:
                    openings = round_openings(config, game, max(2 * len(openings), number + 1, 16))
                schedule = Schedule(config, openings=openings, hosts=host_table(registry, config.bots))
                if games is not None:
                    todo = todo[: games - result.played]
                tasks = [schedule.task(i, i // 2, number, first, second) for i, first, second in todo]
                positions = {t.index: t.game for t in tasks if t.game != config.game}
                failed = len(result.failed)
                for outcome in executor.run(tasks):
                    interrupt.check()
                    if isinstance(outcome, Failure):
                        result.failed.append(outcome)
                        bar.write(f"arena: warning: game {outcome.index} could not be played: {outcome.message}", file=sys.stderr)
                        continue
                    index, rows = outcome
                    if index in positions:
                        rows = rows._replace(game=rows.game._replace(
                            opening=stored_text(config.game, positions[index], rows.game.opening)))
                    writer.add(rows)
                    results[index] = (rows.game.first, rows.game.second, rows.game.score_first)
                    result.played += 1
                    bar.update(1)
                    bar.set_postfix_str(_postfix(batch), refresh=False)
                writer.flush()  # a batch's games are in before the next batch is drawn from them
                result.batches += 1
                if len(result.failed) > failed:
                    break  # the next batch is drawn from this one's games: all of them
                if all(i in results for i, _, _ in batch.games()):
                    number += 1
        except KeyboardInterrupt:
            result.interrupted = aborted = True
        finally:
            try:
                writer.flush()
            finally:
                bar.close()
                if executor is not None:
                    executor.close(abort=aborted or sys.exc_info()[0] is not None)
    return result


def _tell(batch: ladders.Batch, todo: list, placement: int, say) -> None:
    if len(todo) < len(batch.games()):
        return  # resumed mid-batch: told when it was drawn
    if batch.founders:
        say(f"batch {batch.number + 1}: no rated field to place against yet: {', '.join(batch.founders)} "
            "start in rating pairings")
    for bot, opponents in batch.placing.items():
        shown = ", ".join(f"{o} ({batch.ratings.get(o, 0.0):+.0f})" for o in opponents)
        fewer = f" (only {len(opponents)} rated bots: {placement} pairings asked)" if len(opponents) < placement else ""
        say(f"batch {batch.number + 1}: placing {bot} against {shown}{fewer}")
    if batch.waiting:
        say(f"batch {batch.number + 1} is full: {len(batch.waiting)} new bots are placed in the next")


def _postfix(batch: ladders.Batch) -> str:
    text = f"batch {batch.number + 1}, {len(batch.active)} active"
    if batch.ratings:
        leader = max((b for b in batch.active if b in batch.ratings), key=batch.ratings.get, default=None)
        if leader is not None:
            text += f", leader {leader} {batch.ratings[leader]:+.0f}"
    if batch.placing:
        text += f", placing {', '.join(batch.placing)}"
    return text


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
    shape = {k: getattr(args, k) for k in ("placement", "batch") if getattr(args, k) is not None}
    for key, value in shape.items():
        if not 1 <= value <= ladders.MAX_PAIRS:
            raise UsageError(f"{FLAGS[key]} must be between 1 and {ladders.MAX_PAIRS} pairings, got {value}")
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
            values = {**{k: DEFAULT_SETTINGS[k] for k in KEYS}, **given}
            config = tournament_config({"settings": values, "bots": []})
            registry = config_registry(args.plugin, config, adds)
            check(config, registry, adds)
            members = [ladders.member(e.name, e.spec, None if e.budget is None else str(e.budget), now()) for e in adds]
            stored = stored_config(values, shape.get("placement", ladders.PLACEMENT),
                                   shape.get("batch"), members)
            store.open_tournament(name, config.game, stored, config.seed, 0, __version__)
            what = f"created ladder {name!r} ({config.game}, {config.budget}) with {', '.join(e.name for e in adds)}"
        else:
            if tournament.config.get("format") != FORMAT:
                raise UsageError(f"tournament {name!r} in {db!r} is a {tournament.config.get('format')} tournament, "
                                 "not a ladder; give the ladder's name with --name")
            bad = conflicts(tournament.config, {**given, **shape})
            if bad:
                raise UsageError(f"ladder {name!r} in {db!r} was created with other settings ({'; '.join(bad)}); "
                                 "leave these flags out to use the stored ones, or give a new --name")
            config = tournament_config(tournament.config)
            # a member added again as it is (the command that made the ladder, run again to resume): nothing to record
            adds = [e for e in adds if not _member_as_given(tournament.config["bots"], e)]
            registry = config_registry(args.plugin, config, adds)  # members' and newcomers' bots
            if adds:
                check(config, registry, adds)
            if adds or removes:
                ladders.update_config(store, tournament, lambda c: _change(c["bots"], name, adds, removes))
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
                        progress=not args.no_progress, lock=lock)
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
        members.append(ladders.member(entrant.name, entrant.spec, None if entrant.budget is None else str(entrant.budget), now()))
    for bot in removes:
        still = ", ".join(ladders.names(members, "in")) or "none"
        if bot not in by_name:
            raise UsageError(f"no bot {bot!r} in ladder {name!r}; members: {still}")
        if by_name[bot].get("left"):
            raise UsageError(f"{bot!r} left ladder {name!r} already ({by_name[bot]['left'][:16]}); members: {still}")
        by_name[bot]["left"] = now()


def ladder_text(db: str | Path, name: str) -> str:
    """The ladder's table as text, headed by what it describes."""
    import results
    from results.ladder import ladder_table
    from results.render import render

    tables = results.load(db, name)
    with Store(db, create=False) as store:
        config = store.tournament(name).config
    return render({"ladder": ladder_table(tables.games, config)}, "text", tables.about)
