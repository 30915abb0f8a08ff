"""What a tournament format is: its settings, its checks, its games and when it stops.

A format is a frozen dataclass of its own settings that subclasses ``Format``; a
tournament's config holds one (``TournamentConfig.format``). The run loop
(``arena.front.run.run_tournament``) asks it for the games a stage of the tournament lays
out in advance (``pairings``), or for a ``Watcher`` that pairs rounds as results come in
and may stop the run early. Reports ask it for the tables only it has.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from arena.errors import ParameterError
from arena.records import points

if typing.TYPE_CHECKING:
    from arena.execution.task import GameTask
    from results.rows import GameRow


@dataclass(frozen=True)
class Setting:
    """One setting, declared once: the command-line flags, TOML keys, help, stored form and
    growth checks all come from its row (``arena.front.options``)."""

    key: str
    """Its name in a TOML file and among the merged settings, e.g. ``time_margin``."""
    kind: str
    """``int``, ``float``, ``text``, ``texts`` (a list), ``on`` (a flag that sets True), ``off``
    (one that sets False), or ``choice``."""
    default: Any
    """The value with no file and no flag."""
    help: str
    """The flag's help; ``{default}`` is replaced by the default as a user would type it."""
    flag: str | None = ""
    """The flag (default: the key with dashes, ``--time-margin``); None: a TOML key only."""
    metavar: str | None = None
    commands: tuple[str, ...] = ("run",)
    """The commands that take it."""
    stored: tuple[str, ...] = ()
    """The stored keys it decides (a change of which makes other games), for growth's messages."""
    grows: bool = False
    """True if a stored tournament may grow in it (more games per pairing, more bots)."""
    fixed: bool = False
    """True if a ladder fixes it at creation."""
    choices: tuple[str, ...] = ()
    flag_only: bool = False
    """A flag only, not a key of a tournament file (how a run runs on this machine)."""
    none: str = "none"
    """How the help shows a default of None."""
    words: tuple[str, str] = ()
    """How the help shows a default of True and of False (default: true, false)."""

    @property
    def option(self) -> str:
        return f"--{self.key.replace('_', '-')}" if self.flag == "" else self.flag or ""


class Format:
    """A tournament format. Subclasses are frozen dataclasses of the format's settings."""

    name: typing.ClassVar[str] = ""
    """How the format is named in files, on the command line and in the database."""
    settings: typing.ClassVar[tuple[Setting, ...]] = ()
    """Its own settings' rows in the settings table."""
    command: typing.ClassVar[str] = "run"
    """The command that runs it."""
    grows: typing.ClassVar[bool] = True
    """A stored tournament of this format may grow in games per pairing and bots."""
    open_ended: typing.ClassVar[bool] = False
    """It may stop before its schedule's end: the schedule's size is a most, never 'partial'."""
    games_per_round: typing.ClassVar[int | None] = None
    """Games each pairing plays a round, for formats paired round by round (None: any even number)."""
    laid_out: typing.ClassVar[bool] = True
    """Its games are laid out in advance (``pairings``); else paired as results come in (``watcher``)."""
    min_bots: typing.ClassVar[int] = 2
    """The fewest bots it can be played with."""
    fixed_at_creation: typing.ClassVar[bool] = False
    """Its command fixes the settings marked ``fixed`` when it creates the tournament (a ladder)."""
    in_files: typing.ClassVar[bool] = True
    """A tournament file may name it (a ladder is made by ``arena ladder``)."""

    @classmethod
    def misplaced(cls, keys: list[str]) -> str:
        """The message for settings of this format (``keys``: those given) in a tournament of another."""
        names = " and ".join(s.option.lstrip("-") for s in cls.settings)
        return f"{names} are for the {cls.name} format (--format {cls.name})"

    @classmethod
    def build(cls, values: dict) -> "Format":
        """The format from merged settings (``values``: key -> value, checked here)."""
        return cls()

    @classmethod
    def from_stored(cls, stored: dict) -> "Format":
        """The format of a stored tournament's config (the inverse of ``stored``)."""
        return cls.build(stored)

    def stored(self) -> dict:
        """The format's settings as the database keeps them, beside the tournament's."""
        return {}

    def check(self, config) -> None:
        """Raise ParameterError if ``config`` (a ``TournamentConfig`` of this format) cannot be played."""
        per_round = self.games_per_round
        if per_round is not None and config.games_per_pairing != per_round:
            raise ParameterError(
                f"a {self.name} pairs bots round by round, {per_round} games each (one opening, colours "
                f"swapped); games per pairing must be {per_round}, got {config.games_per_pairing}"
            )

    def pairings(self, bots: tuple[str, ...], challengers: tuple[str, ...]) -> list[tuple[int, int]] | None:
        """The pairings of a stage's field (indices into ``bots``), each played every round; None
        for a format paired as results come in."""
        return None

    def tables(self, bots: tuple[str, ...], challengers: tuple[str, ...], seats: int) -> list[tuple[int, ...]] | None:
        """The tables of a stage's field for a game of ``seats`` seats (more than two), each a
        tuple of indices into ``bots``; None: this format pairs two bots a game."""
        return None

    def round_count(self, config, most_games_per_pairing: int) -> int:
        """How many rounds (each with an opening of its own) the tournament may play."""
        return most_games_per_pairing // 2

    def planned(self, config) -> int:
        """Most games of a format paired as results come in (0: laid out in advance)."""
        return 0

    def watcher(self, config, stored: list[dict], scheduled: int) -> "Watcher":
        """What follows the run's games: by default, every game is played."""
        return Watcher(stored, scheduled)

    def describe(self, config: dict) -> str:
        """The format's settings in words, for a report's heading (``config``: as stored)."""
        games = config.get("games_per_pairing")
        return "" if games is None else f"{games} games per pairing"

    def report(self, tables, config: dict, fmt: str, view=None) -> tuple[list[str], dict]:
        """Lines that lead the report in text (``fmt``), and its tables: the format's own
        (``own_tables``) before the standard ones (``tables``: ``results.load``'s; ``config``: as
        stored; ``view``: how the ratings are shown, a ``results.ratings.View``)."""
        from results.report import View, report

        if getattr(tables, "players", 2) > 2:  # a game of more seats: its tables read the seats
            from results.seat_report import seat_report

            standard = seat_report(tables.seats, tables.games, tables.moves, view or View())
            return [], standard
        standard = report(tables.games, tables.moves, view or View(), seats=getattr(tables, "seats", None))
        return [], {**self.own_tables(tables.games, config, standard["standings"]), **standard}

    def own_tables(self, games, config: dict, standings) -> dict:
        """The report tables only this format has, by name (``standings``: the standard table, its Elo fit)."""
        return {}

    def page(self, games, config: dict, standings) -> dict:
        """The HTML page's sections only this format has (``verdict``, ``ladder``)."""
        return {}

    def flag(self, stored_key: str) -> str | None:
        """The flag that changes ``stored_key`` where this format names it otherwise (None: the usual)."""
        return None


class Leaderboard:
    """Points per bot as games come in, for the progress bar."""

    def __init__(self, rows: Iterable[tuple[str, str, float]] = ()):
        self.points: dict[str, float] = {}
        self.games: dict[str, int] = {}
        for first, second, score in rows:
            self.add(first, second, score)

    def add(self, first: str, second: str, score_first: float) -> None:
        self.add_seats(((first, score_first), (second, 1.0 - score_first)))

    def add_seats(self, seats: Iterable[tuple[str, float]]) -> None:
        """One game's (bot, points) per seat."""
        for name, won in seats:
            self.points[name] = self.points.get(name, 0.0) + won
            self.games[name] = self.games.get(name, 0) + 1

    def leader(self) -> str:
        if not self.points:
            return ""
        name = max(self.points, key=lambda n: (self.points[n] / self.games[n], self.points[n]))
        return f"leader {name} {self.points[name]:g}/{self.games[name]}"


class Watcher:
    """Follows a run's games as they come in: what the progress bar shows, and which games are played.

    This one plays every game and names the leader; a format that pairs as results come in,
    or may stop early, gives its own (``Format.watcher``).
    """

    unit = "game"

    def __init__(self, stored: list[dict], scheduled: int):
        """``stored``: the games already in the database (``Store.summaries``); ``scheduled``: the schedule's size."""
        self.board = Leaderboard((r["first"], r["second"], points(r["result"])) for r in stored if "seats" not in r)
        for r in stored:
            if "seats" in r:
                self.board.add_seats(r["seats"])
        self.total, self.initial = scheduled, len(stored)
        self.lines: list[str] = []
        """What the format has to say above the progress bar, until ``news`` takes it."""

    def tasks(self, todo: list["GameTask"]) -> Iterable["GameTask"]:
        """The games to hand the executor (a lazy iterable lets a watcher stop them)."""
        return todo

    def rounds(self, todo: list["GameTask"], schedule) -> Iterator[Iterable["GameTask"]]:
        """The games to play in batches: each is finished (every game reported) before the
        next is asked for, so a format that pairs as results come in makes the next round here."""
        yield self.tasks(todo)

    def add(self, game: "GameRow") -> int:
        """Take one finished game; return the steps the progress bar advances."""
        self.board.add(game.first, game.second, game.score_first)
        return 1

    def add_table(self, game: "GameRow", seats: list) -> int:
        """Take one finished game of more than two seats (``seats``: its ``SeatRow`` tuples)."""
        self.board.add_seats((row[2], row[4]) for row in seats)
        return 1

    def failed(self, index: int) -> None:
        """A game handed out could not be played (it is not stored; a later run tries it again)."""

    def postfix(self) -> str:
        return self.board.leader()

    def news(self) -> Iterator[str]:
        """Lines to print above the progress bar, once each."""
        lines, self.lines = self.lines, []
        return iter(lines)


class RoundWatcher(Watcher):
    """Plays a format's rounds one after another, each paired from the rounds before it;
    subclasses say how a round is paired (``walk``).

    Round r+1's pairings depend only on the rounds before it, so the run finishes and stores a
    round's games before asking for the next. Pairings are recomputed from the stored games
    of finished rounds, so a run killed mid-round resumes by pairing the same rounds again
    and playing only the missing games.
    """

    def __init__(self, stored: list[dict], scheduled: int):
        super().__init__(stored, scheduled)
        self.results = {r["game_id"]: (r["first"], r["second"], points(r["result"])) for r in stored}
        self.round = 0
        """The round being played or last played (from 0)."""

    def add(self, game: "GameRow") -> int:
        self.results[game.game_id] = (game.first, game.second, game.score_first)
        return super().add(game)

    def postfix(self) -> str:
        return f"round {self.round + 1} {super().postfix()}"

    def walk(self, config) -> Iterator[tuple[int, int, list[tuple[str, str]], bool]]:
        """``(round, first game id, pairs, complete)`` of each round, up to the first incomplete one."""
        raise NotImplementedError

    def rounds(self, todo: list["GameTask"], schedule) -> Iterator[list["GameTask"]]:
        config = schedule.config
        bots = [e.name for e in config.bots]
        number = {b: k for k, b in enumerate(bots)}
        for r, start, pairs, complete in self.walk(config):
            self.round = r
            for i in [i for i in self.results if i < start]:  # recorded rounds': the walk is done with them
                del self.results[i]
            if not complete:
                batch = []
                for k, (a, b) in enumerate(pairs):
                    i, j = sorted((number[a], number[b]))
                    for c, (x, y) in enumerate(((a, b), (b, a))):
                        index = start + 2 * k + c
                        if index not in self.results:
                            batch.append(schedule.task(index, i * len(bots) + j, r, x, y))
                yield batch
                # the walk goes on only if every game of the round came back (none failed)


def whole(values: dict, key: str) -> int:
    """``values[key]`` as a whole number, or a ParameterError naming the key."""
    v = values[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise ParameterError(f"{key} must be a whole number, got {v!r}")
    return v


def number(values: dict, key: str) -> float:
    """``values[key]`` as a number, or a ParameterError naming the key."""
    v = values[key]
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise ParameterError(f"{key} must be a number, got {v!r}")
    return float(v)
