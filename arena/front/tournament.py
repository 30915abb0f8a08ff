"""Tournament configuration and schedule: who plays whom, with which colours and openings."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Sequence

from arena.budget import Budget
from arena.errors import ArenaError, ParameterError
from arena.execution.task import GameTask
from arena.front.openings import OpeningBook
from arena.front.probing import ProbedRegistry, check_bot, check_sandbox, host_table  # noqa: F401 (check_sandbox: used from here)
from arena.opening import Opening
from arena.game import Game
from arena.limits import DEFAULT_LIMITS, Limits
from arena.params import parse_spec
from arena.plugins import Registry
from results.race import Race
from results.sprt import SPRT
from results.swiss import GAMES_PER_ROUND

FORMATS = ("round-robin", "gauntlet", "sprt", "swiss", "race")
#: Formats whose rounds are paired as results come in (see arena.front.rounds).
ROUND_FORMATS = ("swiss", "race")
#: How games are laid out, stored with each tournament; tournaments stored without it
#: number their seeds by schedule position and cannot grow (see make_schedule).
SCHEDULE = "growing/1"
DEFAULT_DATABASE = "arena-results.db"


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
    """Everything that decides which games are played and how."""

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
    format: str = "round-robin"
    """``round-robin`` (every pair meets) or ``gauntlet`` (challengers against the field)."""
    challengers: tuple[str, ...] = ()
    """Display names of the challengers in a gauntlet."""
    time_margin: float = DEFAULT_LIMITS.time_margin
    """Seconds a move may run past a time budget before it loses on time (see arena.limits)."""
    isolate: bool = True
    """Run each bot in a supervised process of its own (see arena.execution.isolation)."""
    watchdog: float = DEFAULT_LIMITS.watchdog
    """Seconds allowed for a call without a time budget (start-up, moves under node or depth budgets)."""
    memory_limit: int | None = DEFAULT_LIMITS.memory_limit
    """Memory limit of each isolated bot, in MiB (None: no limit)."""
    output_limit: int = DEFAULT_LIMITS.output_limit
    """Most an isolated bot may write to stdout and stderr in a game, in KiB."""
    sandbox: bool = False
    """Run every bot process under bubblewrap (see arena.execution.sandbox); needs ``isolate``."""
    name: str | None = None
    """Tournament name in the results database; None: one derived from the settings (see arena.front.growth)."""
    opening_book: OpeningBook | None = None
    """Openings from a file, in place of random plies (see arena.front.openings)."""
    sprt: SPRT | None = None
    """The test of the ``sprt`` format: the first bot (new) against the second (base)."""
    rounds: int | None = None
    """Rounds of the ``swiss`` format."""
    race: Race | None = None
    """Confidence and games budget of the ``race`` format."""

    def budget_of(self, entrant: Entrant) -> Budget:
        return entrant.budget if entrant.budget is not None else self.budget

    def identity(self) -> dict:
        """The settings that decide the games: two runs with equal identities play equal games."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["budget"] = str(self.budget)
        out["bots"] = [
            {"name": e.name, "spec": e.spec, "budget": str(self.budget_of(e))} for e in self.bots
        ]
        out["challengers"] = list(self.challengers)
        out["schedule"] = SCHEDULE
        # absent unless used, so tournaments stored before they existed keep their identity
        if not self.sandbox:
            del out["sandbox"]
        for key, value in (("opening_book", self.opening_book), ("sprt", self.sprt), ("rounds", self.rounds),
                           ("race", self.race)):
            if value is None:
                del out[key]
            else:
                out[key] = value.identity() if key == "opening_book" else value if key == "rounds" else asdict(value)
        return out

    def to_json(self) -> str:
        return json.dumps(self.identity(), sort_keys=True)

    @property
    def limits(self) -> Limits:
        return Limits(self.time_margin, self.watchdog, self.memory_limit, self.output_limit, self.sandbox)


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
    _by_name: dict = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return len(self.games) or self.planned

    def task(self, index: int, pairing: int, round: int, first: str, second: str, seed: int | None = None) -> GameTask:
        """The game of round ``round`` in which ``first`` moves first against ``second`` (the one
        place a tournament's game becomes a ``GameTask``). ``seed``: default, the game's own
        (``game_seed``)."""
        config = self.config
        if len(self._by_name) != len(config.bots):
            self._by_name.update((e.name, e) for e in config.bots)
        a, b = self._by_name[first], self._by_name[second]
        opening = self.openings[round]
        spec, moves = (opening.game_spec(config.game), opening.moves) if isinstance(opening, Opening) else (config.game, opening)
        return GameTask(
            index=index, pairing=pairing, game=spec, names=(first, second), specs=(a.spec, b.spec),
            budgets=(config.budget_of(a), config.budget_of(b)),
            seed=game_seed(config.seed, first, second, round) if seed is None else seed,
            opening=moves, limits=config.limits, isolate=config.isolate, hosts=self.hosts_of(a.spec, b.spec),
        )

    def hosts_of(self, first: str, second: str):
        return None if self.hosts is None else (self.hosts[first], self.hosts[second])


def validate(config: TournamentConfig, registry: Registry | ProbedRegistry) -> Game:
    """Check a config against the registry; return the game. Raises ParameterError or UnknownNameError.

    A sandboxed tournament's registry is a ``ProbedRegistry`` (``arena.front.probing.sandboxed_registry``),
    so no third-party bot is built here.
    """
    game = registry.game(config.game)
    if config.sandbox:
        check_sandbox(config.isolate)
    if len(config.bots) < 2:
        raise ParameterError(f"a tournament needs at least two bots, got {len(config.bots)}")
    seen: dict[str, str] = {}
    for entrant in config.bots:
        if entrant.name in seen:
            raise ParameterError(
                f"bot name {entrant.name!r} is used twice ({seen[entrant.name]!r} and {entrant.spec!r}); "
                f"give each its own display name: NAME=SPEC"
            )
        seen[entrant.name] = entrant.spec
        check_bot(registry, entrant.spec, game, config.limits)
    if config.games_per_pairing < 2 or config.games_per_pairing % 2:
        raise ParameterError(
            f"games per pairing must be an even number of at least 2 (colours are swapped), got {config.games_per_pairing}"
        )
    if config.opening_plies < 0:
        raise ParameterError(f"opening plies must be 0 or more, got {config.opening_plies}")
    if config.format not in FORMATS:
        raise ParameterError(f"unknown format {config.format!r}; formats: {', '.join(FORMATS)}")
    if config.format == "gauntlet":
        names = [e.name for e in config.bots]
        unknown = [c for c in config.challengers if c not in names]
        if not config.challengers or unknown:
            raise ParameterError(
                f"a gauntlet needs challengers among the bots ({', '.join(names)}); got {list(config.challengers)}"
            )
        if len(config.challengers) == len(names):
            raise ParameterError("a gauntlet needs at least one bot that is not a challenger")
    elif config.challengers:
        raise ParameterError("challengers are only for the gauntlet format")
    if (config.format == "swiss") != (config.rounds is not None):
        raise ParameterError("rounds are for the swiss format, which needs them: --format swiss --rounds R")
    if config.rounds is not None and config.rounds < 1:
        raise ParameterError(f"a Swiss tournament needs at least one round, got {config.rounds}")
    if (config.format == "race") != (config.race is not None):
        raise ParameterError("a race needs its confidence and games budget: --format race --max-games N")
    if config.format in ROUND_FORMATS and config.games_per_pairing != GAMES_PER_ROUND:
        raise ParameterError(
            f"a {config.format} pairs bots round by round, {GAMES_PER_ROUND} games each (one opening, colours "
            f"swapped); games per pairing must be {GAMES_PER_ROUND}, got {config.games_per_pairing}"
        )
    if (config.format == "sprt") != (config.sprt is not None):
        raise ParameterError("the sprt format is run by 'arena sprt', which sets the test's bounds")
    if config.format == "sprt" and len(config.bots) != 2:
        raise ParameterError(f"an SPRT plays two bots, new and base; got {len(config.bots)}")
    if config.opening_book is not None:
        if config.opening_plies:
            raise ParameterError("openings come from a file or from random plies, not both")
        config.opening_book.check(registry, config.game)
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
    rounds = round_count(config, stages)
    if openings is None or len(openings) < rounds:
        openings = round_openings(config, game, rounds)
    schedule = Schedule(config, openings=openings, hosts=host_table(registry, config.bots))
    if config.format == "swiss":
        schedule.planned = config.rounds * GAMES_PER_ROUND * (len(config.bots) // 2)
    if config.format == "race":
        schedule.planned = config.race.max_games
    if config.format in ROUND_FORMATS:
        return schedule  # paired round by round as results come in (arena.front.rounds)
    pairing_of: dict[frozenset, int] = {}
    seen: set[tuple[str, str, int]] = set()
    for stage in stages:
        for r, x, y in stage.games(config.format):
            if (x, y, r) in seen:
                continue
            seen.add((x, y, r))
            index = len(schedule.games)
            pair = frozenset((x, y))
            if pair not in pairing_of:
                pairing_of[pair] = len(schedule.pairings)
                schedule.pairings.append((config.bots.index(by_name[x]), config.bots.index(by_name[y])))
            seed = _legacy_seed(config.seed, index) if legacy else None
            schedule.games.append(schedule.task(index, pairing_of[pair], r, x, y, seed))
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
        return cls(config.games_per_pairing, tuple(e.name for e in config.bots), tuple(config.challengers))

    def to_json(self) -> dict:
        return {"games": self.games_per_pairing, "bots": list(self.bots), "challengers": list(self.challengers)}

    @classmethod
    def from_json(cls, data: dict) -> "Stage":
        return cls(data["games"], tuple(data["bots"]), tuple(data["challengers"]))

    def games(self, format: str) -> list[tuple[int, str, str]]:
        """(round, first, second) of every game, in playing order."""
        n = len(self.bots)
        if format == "gauntlet":
            challengers = [i for i, b in enumerate(self.bots) if b in self.challengers]
            pairings = [(c, f) for c in challengers for f in range(n) if f not in challengers]
        else:
            pairings = [(i, j) for i in range(n) for j in range(i + 1, n)]
        out = []
        for r in range(self.games_per_pairing // 2):
            for a, b in pairings:
                out += [(r, self.bots[a], self.bots[b]), (r, self.bots[b], self.bots[a])]
        return out


def round_count(config: TournamentConfig, stages=()) -> int:
    """How many rounds (each with an opening of its own) the tournament may play."""
    if config.format == "swiss":
        return config.rounds
    if config.format == "race":
        return config.race.max_games // GAMES_PER_ROUND
    return max(s.games_per_pairing for s in [*stages, Stage.of(config)]) // 2


def game_seed(master: int, first: str, second: str, round: int) -> int:
    """The seed of the game of round ``round`` in which ``first`` moves first against ``second``."""
    return random.Random(json.dumps(["game", master, first, second, round])).getrandbits(63)


def _legacy_seed(master: int, index: int) -> int:
    """The seed of game ``index`` in a tournament stored before schedules could grow."""
    return random.Random(f"game/{master}/{index}").getrandbits(63)


def round_openings(config: TournamentConfig, game: Game, count: int) -> list:
    """The openings of rounds 0 to ``count - 1``: the openings file's, or random plies (see make_openings)."""
    if config.opening_book is not None:
        return config.opening_book.rounds(count, config.seed)
    return make_openings(game, count, config.opening_plies, config.seed)


def make_openings(game: Game, count: int, plies: int, seed: int, attempts: int = 50) -> list[tuple[str, ...]]:
    """``count`` openings of ``plies`` random legal moves that never end the game.

    Openings are kept distinct while fresh ones can be found in a few attempts.
    """
    if plies == 0:
        return [()] * count
    rng = random.Random(f"openings/{seed}")
    out: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for _ in range(count):
        opening = ()
        for _ in range(attempts):
            opening = _random_opening(game, plies, rng)
            if opening not in seen:
                break
        seen.add(opening)
        out.append(opening)
    return out


def _random_opening(game: Game, plies: int, rng: random.Random, tries: int = 100) -> tuple[str, ...]:
    for _ in range(tries):
        state, moves = game.initial_state(), []
        while len(moves) < plies:
            options = [m for m in game.legal_moves(state) if not game.is_terminal(game.apply(state, m))]
            if not options:
                break  # a dead end: every move ends the game; start again
            move = rng.choice(options)
            moves.append(game.move_text(state, move))
            state = game.apply(state, move)
        else:
            return tuple(moves)
    raise ParameterError(f"cannot find {plies} opening plies in {game.name} that do not end the game; use fewer")


def short_names(entrants: Sequence[Entrant], registry: Registry) -> tuple[Entrant, ...]:
    """``entrants`` with the bot's short name (``Bot.short_name``; an engine's program) for
    each one entered without a display name, where that name is unique in the field."""
    wanted = []
    for entrant in entrants:
        short = None
        if entrant.name == entrant.spec:
            try:
                name, text = parse_spec(entrant.spec)
                short = registry.bot_class(name).short_name(text)
            except ArenaError:
                short = None  # a bad spec is reported where it is built
        wanted.append(short)
    taken = [e.name for e, short in zip(entrants, wanted) if short is None]
    unique = {s for s in wanted if s is not None and wanted.count(s) == 1 and s not in taken}
    return tuple(replace(e, name=s) if s in unique else e for e, s in zip(entrants, wanted))


def with_short_names(config: TournamentConfig, registry: Registry) -> TournamentConfig:
    """``config`` with ``short_names`` given to its bots (its challengers renamed alike)."""
    bots = short_names(config.bots, registry)
    renamed = {old.name: new.name for old, new in zip(config.bots, bots)}
    challengers = tuple(renamed.get(c, c) for c in config.challengers)
    return replace(config, bots=bots, challengers=challengers)
