"""The interface every bot implements, and the decision record it may return."""

from __future__ import annotations

import random
import typing
from dataclasses import dataclass

from arena.budget import Counter
from arena.errors import ParameterError
from arena.game import Game, Move, State
from arena.limits import DEFAULT_LIMITS, Limits
from arena.params import Configurable


@dataclass(frozen=True)
class Decision:
    """What a bot chose, with what its search learned on the way.

    The referee checks every field before it stores one (``arena.referee``); a field out of
    its range loses the game as a protocol fault.
    """

    move: Move
    """The move to play."""
    score: float | None = None
    """The search's value of the position for the bot: a finite number within the game's bounds."""
    depth: int | None = None
    """Deepest search completed, in plies: 0 to 10,000."""
    pv: tuple = ()
    """Principal variation: the expected line of play, starting with ``move``; at most 1,000
    moves, each one the game can write (``line_text``: legal where it is played, in games that
    write moves by position)."""
    nodes: int | None = None
    """Nodes the bot's own search reported, for searches the arena cannot count (engines).

    When given, the record holds it instead of the arena's count, marked as reported."""


class _GameRandom:
    """``Bot.rng``: a random.Random seeded with the game's seed, made on first use.

    Seeding a Mersenne Twister costs about as much as a fast bot's whole game, so a bot
    that draws no random number in a game does not pay for it. Assigning ``self.rng``
    replaces it for the current game.
    """

    def __get__(self, bot, owner=None):
        if bot is None:
            return self
        rng = bot.__dict__["rng"] = random.Random(bot.__dict__.get("_rng_seed", 0))
        return rng


class Bot(Configurable):
    """A player. Subclasses set ``name`` and ``description`` and implement ``choose``.

    A bot is built from declared keyword parameters (see ``arena.params``). Before each
    game the arena calls ``new_game`` with a seed; bots draw all their randomness from
    ``self.rng`` so that games replay exactly under node or depth budgets.
    """

    kind: typing.ClassVar[str] = "bot"
    interactive: typing.ClassVar[bool] = False
    """True for bots driven by a person (never given a budget, not for tournaments)."""
    external: typing.ClassVar[bool] = False
    """True for bots that run a program of their own (``ProgramBot``)."""
    handles: typing.ClassVar[frozenset[str]] = frozenset()
    """What this bot plays beyond two-player, zero-sum, deterministic games: names among a game
    model's ``features`` ("chance", "players", "nonzero-sum", "simultaneous", "hidden"). The
    default ``suitable`` refuses a game with others."""

    rng = _GameRandom()
    """This game's random generator (``random.Random``), seeded by ``new_game`` (0 before)."""

    @classmethod
    def short_name(cls, params: dict[str, str]) -> str | None:
        """A short display name for this bot's spec with ``params`` (as text), or None to show
        the spec itself. Tournaments use it for bots entered without a name."""
        return None

    @classmethod
    def reads(cls, params: dict) -> tuple[str, ...]:
        """Files this bot's parameters name for it to read (a strategy file), as given: a
        sandbox shows a built-in bot these, read-only, and nothing else of the disk."""
        return ()

    def suitable(self, game: Game) -> str | None:
        """Why this bot cannot play ``game``, or None if it can. Checked at set-up."""
        return self.unhandled(game)

    def unhandled(self, game: Game) -> str | None:
        """What of ``game``'s model this bot does not handle (``handles``), in words, or None."""
        model = game.model
        missing = model.features - self.handles
        if not missing:
            return None
        return f"it plays games without {model.describe(missing)}; {game.name} has {model.describe(missing)}"

    def check_game(self, game: Game) -> None:
        """Raise ParameterError if this bot refuses ``game``."""
        why = self.suitable(game)
        if why:
            raise ParameterError(f"bot {self.name!r} cannot play {game.name!r}: {why}")

    def new_game(self, game: Game, player: int, seed: int) -> None:
        """Called before each game. The default reseeds ``self.rng``; override to clear tables."""
        self._rng_seed = seed
        self.__dict__.pop("rng", None)  # the next use of self.rng makes a generator with this seed

    def choose(self, game: Game, state: State, budget: Counter) -> Move | Decision:
        """Pick a move in ``state``.

        ``game`` counts for the arena: the root is counted before the call, and every
        position ``game.apply`` makes ticks ``budget``, this move's Counter. Once the node
        or time limit is reached, ``apply`` raises BudgetExhausted: catch it and answer
        with the best move found so far. Call ``budget.tick()`` yourself only for
        positions examined some other way (not made by ``apply``). ``budget.budget``
        holds the limits, including an optional depth limit.

        In a game of hidden information or simultaneous moves (``game.model.imperfect``)
        ``state`` is an ``arena.View`` of what this bot's seat knows, never the state: answer
        with one of ``view.legal``; ``game.sample_state(view, rng)``, where the game offers
        it, draws a state to search. A bot that can say its strategy there may define
        ``policy(game, view)``: ``(move, probability)`` pairs (``arena exploit`` reads it).
        """
        raise NotImplementedError


class ProgramBot(Bot):
    """A bot that runs a program of its own in a process (an engine), and the hooks only such
    a bot needs.

    Workers build it locally even when bots are isolated, since isolating it again would add
    nothing but a hop. It is handed the run's ``arena.Limits`` as ``self.limits`` before its
    first game, to enforce on its own process, and its ``close()`` is called when the game is
    over unless ``reusable()``. The referee calls ``opening`` and ``moved`` on any bot that has
    them (a bot that wants the whole history of a game may define them without being a
    program).
    """

    external: typing.ClassVar[bool] = True
    follows_moves: typing.ClassVar[bool] = True
    """True: the referee tells this bot every move played (``moved``)."""
    limits: Limits = DEFAULT_LIMITS
    """The run's limits, set by whoever builds the bot for a game."""

    def opening(self, moves: tuple[str, ...]) -> None:
        """Called after ``new_game`` when the game starts after opening moves (the game's move
        text), for bots that need the whole history (engines). The default ignores them."""

    def reusable(self) -> bool:
        """True if this instance, its process healthy, may play the process's next game of
        its spec (a fresh one is built otherwise)."""
        return False

    def moved(self, text: str) -> None:
        """Called after every move of the game, either player's, with its move text (engines
        send the whole history): cheaper than working out from each new state which moves
        led to it."""

    def close(self) -> None:
        """Stop the program (after a game, unless the bot is kept for the next one)."""
