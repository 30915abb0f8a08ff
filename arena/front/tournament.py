"""Tournament configuration and schedule: who plays whom, with which colours and openings."""

from __future__ import annotations

import json
import random
import typing
from dataclasses import InitVar, dataclass, field, replace

from arena.adjudication import Adjudication, DrawRule, ResignRule
from arena.budget import Budget
from arena.dice import Dice, game_context, table_context
from arena.errors import ParameterError
from arena.execution.task import GameTask
from arena.front.openings import OpeningBook, make_openings
from arena.execution.sandbox.probing import check_sandbox
from arena.opening import Opening
from arena.game import Game
from arena.formats import format_class, formats, stored_format
from arena.formats.base import Format
from arena.formats.roundrobin import RoundRobin
from arena.front.tables import check_tables, seating_rounds, table_schedule
from arena.limits import DEFAULT_LIMITS, Limits
from arena.plugins import Registry

#: How games are laid out, stored with each tournament; tournaments stored without it
#: number their seeds by schedule position and cannot grow (see make_schedule).
SCHEDULE = "growing/1"
_UNSET: typing.Any = object()  # a keyword of earlier versions not given


@dataclass(frozen=True)
class Entrant:
    """One bot in a tournament."""

    name: str
    """Display name, unique in the tournament (the key of every results table)."""
    spec: str
    """Bot spec, e.g. ``alphabeta:depth=4``."""
    budget: Budget | None = None
    """Per-move budget for this bot; None means the tournament's default."""


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides which games are played and how.

    The keywords of earlier versions still build one: ``format`` as a name with the
    format's settings beside it (``challengers``, ``rounds``, ``race``, ``sprt``), and the
    limits one by one (``time_margin``, ``watchdog``, ``memory_limit``, ``output_limit``,
    ``sandbox``); they are folded into ``format`` and ``limits``.
    """

    game: str
    """Game spec, e.g. ``connect4`` or ``connect4:columns=8``."""
    bots: tuple[Entrant, ...]
    """The field, in order."""
    budget: Budget = Budget()
    """Default per-move budget."""
    games_per_pairing: int = 2
    """Games each pair of bots plays; even, half with each bot moving first."""
    opening_plies: int = 0
    """Random plies played before the bots take over; each opening is played twice, colours swapped."""
    seed: int = 0
    """Master seed: openings and per-game seeds derive from it."""
    format: Format = RoundRobin()
    """The tournament format and its settings (``arena.formats``)."""
    limits: Limits = DEFAULT_LIMITS
    """What each bot is allowed beyond its budget, the sandbox included (see arena.limits)."""
    isolate: bool = True
    """Run each bot in a supervised process of its own (see arena.execution.isolation)."""
    trusted: bool = False
    """Bots may play a game of hidden information or simultaneous moves in the referee's
    process (unisolated), where they could read what is hidden (see arena.view)."""
    independent_chance: bool = False
    """In a game with chance, every game draws from streams of its own; by default a pair's
    games share them seat by seat (see arena.dice)."""
    name: str | None = None
    """Tournament name in the results database; None: one derived from the settings (see arena.front.growth)."""
    opening_book: OpeningBook | None = None
    """Openings from a file, in place of random plies (see arena.front.openings)."""
    adjudication: Adjudication | None = None
    """When the referee ends a game early: draw, resign, most moves (see arena.adjudication)."""
    challengers: InitVar[typing.Any] = _UNSET
    rounds: InitVar[typing.Any] = _UNSET
    race: InitVar[typing.Any] = _UNSET
    sprt: InitVar[typing.Any] = _UNSET
    time_margin: InitVar[typing.Any] = _UNSET
    watchdog: InitVar[typing.Any] = _UNSET
    memory_limit: InitVar[typing.Any] = _UNSET
    output_limit: InitVar[typing.Any] = _UNSET
    sandbox: InitVar[typing.Any] = _UNSET

    def __post_init__(self, challengers, rounds, race, sprt, time_margin, watchdog, memory_limit, output_limit, sandbox):
        given = {k: v for k, v in (("challengers", challengers), ("rounds", rounds), ("race", race), ("sprt", sprt))
                 if v is not _UNSET and v is not None and v != ()}
        fmt = self.format
        if isinstance(fmt, str) or given:
            cls = format_class(fmt) if isinstance(fmt, str) else type(fmt)
            values = {**(fmt.stored() if isinstance(fmt, Format) else {}), **given}
            wrong = [k for k in given if k not in _legacy_keys(cls)]
            if wrong:
                owner = next(f for f in formats().values() if wrong[0] in _legacy_keys(f))
                raise ParameterError(owner.misplaced(wrong))
            object.__setattr__(self, "format", given.get("race") if isinstance(given.get("race"), Format) else cls.build(values))
        limits = {k: v for k, v in (("time_margin", time_margin), ("watchdog", watchdog), ("memory_limit", memory_limit),
                                    ("output_limit", output_limit), ("sandbox", sandbox)) if v is not _UNSET}
        if limits:
            object.__setattr__(self, "limits", replace(self.limits, **limits))

    def budget_of(self, entrant: Entrant) -> Budget:
        return entrant.budget if entrant.budget is not None else self.budget

    def identity(self) -> dict:
        """The settings that decide the games: two runs with equal identities play equal games."""
        return stored_form(self)

    def to_json(self) -> str:
        return json.dumps(self.identity(), sort_keys=True)


def _legacy_keys(cls: type[Format]) -> tuple[str, ...]:
    """The keywords of earlier versions that a format's settings came as."""
    return tuple(dict.fromkeys(k for s in cls.settings for k in s.stored if k != "games_per_pairing"))


def stored_form(config: TournamentConfig) -> dict:
    """The config as the database stores it (and as growth compares and names it): the one
    codec of a tournament's settings; ``from_stored`` reads it back."""
    limits = config.limits
    out = {
        "game": config.game, "budget": str(config.budget), "games_per_pairing": config.games_per_pairing,
        "opening_plies": config.opening_plies, "seed": config.seed, "format": config.format.name, "challengers": [],
        "time_margin": limits.time_margin, "watchdog": limits.watchdog, "memory_limit": limits.memory_limit,
        "output_limit": limits.output_limit, "isolate": config.isolate, "name": config.name,
        "bots": [{"name": e.name, "spec": e.spec, "budget": str(config.budget_of(e))} for e in config.bots],
        "schedule": SCHEDULE,
    }
    out.update(config.format.stored())
    # absent unless used, so tournaments stored before they existed keep their identity
    if limits.sandbox:
        out["sandbox"] = True
    if config.independent_chance:
        out["independent_chance"] = True
    if config.trusted:
        out["trusted"] = True
    if config.opening_book is not None:
        out["opening_book"] = config.opening_book.identity()
    rules = config.adjudication
    if rules:
        out["adjudication"] = {"draw": rules.draw and str(rules.draw), "resign": rules.resign and str(rules.resign),
                               "maxmoves": rules.maxmoves}
    return out


def from_stored(stored: dict) -> TournamentConfig:
    """The config a stored form describes (``stored_form``'s inverse); a bot stored without a
    budget plays the tournament's. The openings file, if any, is read again (see ``OpeningBook``)."""
    book = stored.get("opening_book")
    limits = Limits(stored.get("time_margin", DEFAULT_LIMITS.time_margin), stored.get("watchdog", DEFAULT_LIMITS.watchdog),
                    stored.get("memory_limit", DEFAULT_LIMITS.memory_limit),
                    stored.get("output_limit", DEFAULT_LIMITS.output_limit), bool(stored.get("sandbox")))
    return TournamentConfig(
        game=stored["game"],
        bots=tuple(Entrant(b["name"], b["spec"], Budget.parse(b["budget"]) if b.get("budget") else None)
                   for b in stored.get("bots", ())),
        budget=Budget.parse(stored["budget"]), games_per_pairing=stored.get("games_per_pairing", 2),
        opening_plies=stored.get("opening_plies", 0), seed=stored.get("seed", 0), format=stored_format(stored),
        limits=limits, isolate=stored.get("isolate", True),
        independent_chance=bool(stored.get("independent_chance")), trusted=bool(stored.get("trusted")),
        name=stored.get("name"),
        opening_book=None if book is None else OpeningBook.read(book["file"], book.get("shuffle", False), book.get("plies")),
        adjudication=_stored_adjudication(stored.get("adjudication")),
    )


def _stored_adjudication(stored: dict | None) -> Adjudication | None:
    if not stored:
        return None
    draw, resign = stored.get("draw"), stored.get("resign")
    return Adjudication(draw and DrawRule.parse(draw), resign and ResignRule.parse(resign), stored.get("maxmoves"))


@dataclass
class Schedule:
    """The games of a tournament in playing order: round by round, every pairing each round."""

    config: TournamentConfig
    pairings: list[tuple[int, int]] = field(default_factory=list)
    games: list[GameTask] = field(default_factory=list)
    openings: list = field(default_factory=list)
    """Each round's opening."""
    planned: int = 0
    """Most games a format paired round by round may play (its games are made as it goes)."""
    hosts: dict | None = None
    """In a sandboxed run, the plugins of each bot spec's host (see ``GameTask.hosts``)."""
    key: bytes | None = field(default=None, repr=False)
    """The run's secret for its dice, in a game with chance (see ``with_key``)."""
    _by_name: dict = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return len(self.games) or self.planned

    def task(self, index: int, pairing: int, round: int, *seated: str, seed: int | None = None) -> GameTask:
        """The game of round ``round`` with the bots named ``seated`` in seat order (``first,
        second``: first moves first): the one place a tournament's game becomes a ``GameTask``.
        ``pairing``: its pair or table. ``seed``: default, the game's own (``game_seed``)."""
        config = self.config
        if len(self._by_name) != len(config.bots):
            self._by_name.update((e.name, e) for e in config.bots)
        entrants = tuple(self._by_name[name] for name in seated)
        specs = tuple(e.spec for e in entrants)
        opening = self.openings[round]
        spec, moves = (opening.game_spec(config.game), opening.moves) if isinstance(opening, Opening) else (config.game, opening)
        return GameTask(
            index=index, pairing=pairing, game=spec, names=tuple(seated), specs=specs,
            budgets=tuple(config.budget_of(e) for e in entrants),
            seed=game_seed(config.seed, *seated, round) if seed is None else seed,
            opening=moves, limits=config.limits, isolate=config.isolate, trusted=config.trusted,
            hosts=self.hosts_of(*specs), adjudication=config.adjudication,
            round=round, dice=None if self.key is None else Dice(self.key, self._context(seated, round)),
        )

    def with_key(self, key: bytes | None) -> "Schedule":
        """This schedule with the run's secret for the dice: its games, and those made later, draw
        from it (a key is kept with the tournament: see ``results.store.Store.chance_key``)."""
        self.key = key
        if key is not None:
            self.games = [replace(g, dice=Dice(key, self._context(g.names, g.round))) for g in self.games]
        return self

    def _context(self, seated: tuple[str, ...], round: int) -> str:
        return game_context(*seated, round) if self.config.independent_chance else table_context(seated, round)

    def hosts_of(self, *specs: str):
        return None if self.hosts is None else tuple(self.hosts[spec] for spec in specs)


def validate(config: TournamentConfig, registry: Registry) -> Game:
    """Check a config against the registry; return the game. Raises ParameterError or UnknownNameError.

    A sandboxed tournament's registry is probed (``arena.execution.sandbox.probing``), so no
    third-party bot is built here.
    """
    game = registry.game(config.game)
    if config.limits.sandbox:
        check_sandbox(config.isolate)
    if game.model.imperfect and not config.isolate and not config.trusted:
        what = "hides information" if game.model.hidden else "has simultaneous moves"
        raise ParameterError(
            f"{game.name} {what}: with --no-isolation the bots would run in the arena's own process, where they "
            f"could read what is hidden from them; isolate them (the default), or add --trusted if you trust them"
        )
    if len(config.bots) < config.format.min_bots:
        raise ParameterError(f"a tournament needs at least two bots, got {len(config.bots)}")
    seen: dict[str, str] = {}
    for entrant in config.bots:
        if entrant.name in seen:
            raise ParameterError(
                f"bot name {entrant.name!r} is used twice ({seen[entrant.name]!r} and {entrant.spec!r}); "
                f"give each its own display name: NAME=SPEC"
            )
        if entrant.spec not in seen.values():  # a bot entered twice (self-play) is checked once: checking may start it
            registry.check_bot(entrant.spec, game, config.limits)
        seen[entrant.name] = entrant.spec
    seats = game.model.players
    if seats != 2:
        check_tables(config, game, seats, _challengers(config))
    elif config.games_per_pairing < 2 or config.games_per_pairing % 2:
        raise ParameterError(
            f"games per pairing must be an even number of at least 2 (colours are swapped), got {config.games_per_pairing}"
        )
    if config.opening_plies < 0:
        raise ParameterError(f"opening plies must be 0 or more, got {config.opening_plies}")
    config.format.check(config)
    if config.opening_book is not None:
        if config.opening_plies:
            raise ParameterError("openings come from a file or from random plies, not both")
        config.opening_book.check(registry, config.game)
    if config.adjudication:
        config.adjudication.check(game)
    config.limits  # checks every limit
    return game


def make_schedule(
    config: TournamentConfig,
    registry: Registry,
    game: Game | None = None,
    *,
    grown_from=(),
    legacy: bool = False,
    openings: list[tuple[str, ...]] | None = None,
) -> Schedule:
    """Lay out every game, deterministically from the master seed.

    A game is known by its players in order and its round: its seed derives from those
    and its opening from the round, never from its place in the schedule, so more games
    per pairing or more bots add games and change none. Games are numbered in playing
    order: round by round, every pairing each round, each bot moving first once. A grown
    tournament's ``grown_from`` lists the stages it had before (see ``Stage``), oldest
    first: their games keep their numbers and the new games follow, in playing order.
    ``legacy`` lays out a tournament stored before schedules could grow (seeds by game
    number; it cannot grow). ``game`` is what ``validate(config,
    registry)`` returned; without it, the config is validated here. ``openings`` are those
    of ``make_openings`` for the config, if made already.
    """
    if game is None:
        game = validate(config, registry)
    if legacy and grown_from:
        raise ValueError("a legacy schedule cannot grow")
    stages = [*grown_from, Stage.of(config)]
    by_name = {e.name: e for e in config.bots}
    seats = game.model.players
    rounds = round_count(config, stages, seats)
    if openings is None or len(openings) < rounds:
        openings = round_openings(config, game, rounds)
    schedule = Schedule(config, openings=openings, hosts=registry.host_table(config.bots))
    schedule.planned = config.format.planned(config)
    if not config.format.laid_out:
        return schedule  # paired as results come in (the format's watcher)
    pairing_of: dict[frozenset, int] = {}
    seen: set[tuple] = set()
    for stage in stages:
        for r, *seated in stage.games(config.format, seats):
            if (*seated, r) in seen:
                continue
            seen.add((*seated, r))
            index = len(schedule.games)
            pair = frozenset(seated)  # a pair of bots, or a table of more
            if pair not in pairing_of:
                pairing_of[pair] = len(schedule.pairings)
                schedule.pairings.append(tuple(config.bots.index(by_name[x]) for x in seated))
            seed = _legacy_seed(config.seed, index) if legacy else None
            schedule.games.append(schedule.task(index, pairing_of[pair], r, *seated, seed=seed))
    return schedule


@dataclass(frozen=True)
class Stage:
    """The size of a tournament at one time: what grows when it grows."""

    games_per_pairing: int
    bots: tuple[str, ...]
    """Display names, in order."""
    challengers: tuple[str, ...] = ()

    @classmethod
    def of(cls, config: TournamentConfig) -> "Stage":
        return cls(config.games_per_pairing, tuple(e.name for e in config.bots), _challengers(config))

    def to_json(self) -> dict:
        return {"games": self.games_per_pairing, "bots": list(self.bots), "challengers": list(self.challengers)}

    @classmethod
    def from_json(cls, data: dict) -> "Stage":
        return cls(data["games"], tuple(data["bots"]), tuple(data["challengers"]))

    def games(self, format: Format, seats: int = 2) -> list[tuple]:
        """(round, first, second) of every game, in playing order; with more seats (round, the
        bots in seat order): each round, every table plays a block of its seating cycle (the
        rotations of one seating: every bot in every seat once), the blocks in turn."""
        out = []
        if seats == 2:
            for r in range(self.games_per_pairing // 2):
                for a, b in format.pairings(self.bots, self.challengers):
                    out += [(r, self.bots[a], self.bots[b]), (r, self.bots[b], self.bots[a])]
            return out
        return table_schedule(format, self.bots, self.challengers, self.games_per_pairing, seats)


def _challengers(config: TournamentConfig) -> tuple[str, ...]:
    return tuple(config.format.stored().get("challengers", ()))


def round_count(config: TournamentConfig, stages=(), seats: int = 2) -> int:
    """How many rounds (each with an opening of its own) the tournament may play (``seats``: the game's)."""
    most = max(s.games_per_pairing for s in [*stages, Stage.of(config)])
    return config.format.round_count(config, most) if seats == 2 else seating_rounds(most, seats)


def game_seed(master: int, *seated_and_round) -> int:
    """The seed of the game ``game_seed(master, first, second, ..., round)``: the bots named in
    seat order (first moves first) in round ``round``."""
    return random.Random(json.dumps(["game", master, *seated_and_round])).getrandbits(63)


def _legacy_seed(master: int, index: int) -> int:
    """The seed of game ``index`` in a tournament stored before schedules could grow."""
    return random.Random(f"game/{master}/{index}").getrandbits(63)


def round_openings(config: TournamentConfig, game: Game, count: int) -> list:
    """The openings of rounds 0 to ``count - 1``: the openings file's, or random plies (see make_openings)."""
    if config.opening_book is not None:
        return config.opening_book.rounds(count, config.seed)
    return make_openings(game, count, config.opening_plies, config.seed)
