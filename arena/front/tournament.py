"""Tournament configuration and schedule: who plays whom, with which colours and openings."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field

from arena.budget import Budget
from arena.errors import ParameterError
from arena.execution.task import GameTask
from arena.game import Game
from arena.limits import DEFAULT_LIMITS, Limits
from arena.params import parse_spec
from arena.plugins import Registry

FORMATS = ("round-robin", "gauntlet")
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
    name: str = "default"
    """Tournament name in the results database."""

    def budget_of(self, entrant: Entrant) -> Budget:
        return entrant.budget if entrant.budget is not None else self.budget

    def identity(self) -> dict:
        """The settings that decide the games: two runs with equal identities play equal games."""
        out = asdict(self)
        out["budget"] = str(self.budget)
        out["bots"] = [
            {"name": e.name, "spec": e.spec, "budget": str(self.budget_of(e))} for e in self.bots
        ]
        out["challengers"] = list(self.challengers)
        return out

    def to_json(self) -> str:
        return json.dumps(self.identity(), sort_keys=True)

    @property
    def limits(self) -> Limits:
        return Limits(self.time_margin, self.watchdog, self.memory_limit, self.output_limit)


@dataclass
class Schedule:
    """The games of a tournament in playing order: round by round, every pairing each round."""

    config: TournamentConfig
    pairings: list[tuple[int, int]] = field(default_factory=list)
    games: list[GameTask] = field(default_factory=list)


def validate(config: TournamentConfig, registry: Registry) -> Game:
    """Check a config against the registry; return the game. Raises ParameterError or UnknownNameError."""
    game = registry.game(config.game)
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
        name, text = parse_spec(entrant.spec)
        cls = registry.bot_class(name)
        values = cls.parse_params(text)
        if cls.interactive:
            raise ParameterError(f"bot {entrant.spec!r} is played by a person and cannot enter a tournament")
        try:
            bot = cls(**values)
        except ParameterError:
            raise
        except Exception:
            continue  # a constructor that fails loses its games, each recorded as a crash
        bot.check_game(game)
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
    config.limits  # checks every limit
    return game


def make_schedule(config: TournamentConfig, registry: Registry, game: Game | None = None) -> Schedule:
    """Lay out every game, deterministically from the master seed.

    ``game`` is what ``validate(config, registry)`` returned; without it, the config is
    validated here.
    """
    if game is None:
        game = validate(config, registry)
    n = len(config.bots)
    if config.format == "gauntlet":
        challengers = [i for i, e in enumerate(config.bots) if e.name in config.challengers]
        field_ = [i for i in range(n) if i not in challengers]
        pairings = [(c, f) for c in challengers for f in field_]
    else:
        pairings = [(i, j) for i in range(n) for j in range(i + 1, n)]
    rounds = config.games_per_pairing // 2
    openings = make_openings(game, rounds, config.opening_plies, config.seed)
    schedule = Schedule(config, pairings)
    limits = config.limits
    for r in range(rounds):
        for p, (a, b) in enumerate(pairings):
            for first, second in ((a, b), (b, a)):
                index = len(schedule.games)
                x, y = config.bots[first], config.bots[second]
                schedule.games.append(
                    GameTask(
                        index=index,
                        pairing=p,
                        game=config.game,
                        names=(x.name, y.name),
                        specs=(x.spec, y.spec),
                        budgets=(config.budget_of(x), config.budget_of(y)),
                        seed=game_seed(config.seed, index),
                        opening=openings[r],
                        limits=limits,
                        isolate=config.isolate,
                    )
                )
    return schedule


def game_seed(master: int, index: int) -> int:
    """The seed of game ``index`` of a tournament with master seed ``master``."""
    return random.Random(f"game/{master}/{index}").getrandbits(63)


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
            moves.append(game.format_move(move))
            state = game.apply(state, move)
        else:
            return tuple(moves)
    raise ParameterError(f"cannot find {plies} opening plies in {game.name} that do not end the game; use fewer")
