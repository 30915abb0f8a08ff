"""One game to play, with everything a process needs to play it."""

from __future__ import annotations

from dataclasses import dataclass

from arena.adjudication import Adjudication
from arena.budget import Budget
from arena.dice import Dice
from arena.limits import Limits


@dataclass(frozen=True)
class GameTask:
    """One game of a schedule: specs, budgets, seed and opening (it travels to workers)."""

    index: int
    """Position in the schedule: the game's id in the results."""
    pairing: int
    """Which pair of bots of the schedule plays it."""
    game: str
    """Game spec."""
    names: tuple[str, str]
    """Display names, first player first."""
    specs: tuple[str, str]
    """Bot specs, first player first."""
    budgets: tuple[Budget, Budget]
    """Each player's per-move budget."""
    seed: int
    """Seed the bots' randomness derives from."""
    opening: tuple[str, ...]
    """Moves played before the bots take over, as text."""
    limits: Limits
    """What the referee and the bot supervisor allow."""
    isolate: bool
    """Run each bot in a supervised process of its own."""
    trusted: bool = False
    """Bots of the referee's process may play a game of hidden information (see arena.view)."""
    hosts: tuple[tuple[str, ...] | None, tuple[str, ...] | None] | None = None
    """In a sandboxed run, per player: the plugins its sandboxed host loads, for a bot of a
    third-party plugin (which is never loaded where the referee runs); None for the arena's own bots."""
    round: int = 0
    """The round of its pairing it belongs to (each round has its own opening)."""
    dice: Dice | None = None
    """Where its chance outcomes come from, in a game with chance; the run's secret in it
    stays with the referee (see arena.dice)."""
    adjudication: Adjudication | None = None
    """When the referee ends the game early (see arena.adjudication); None: never."""
