"""What the arena allows each bot beyond its budget: the one home of every limit and its default.

The field names are the names used everywhere: ``play_game``'s keyword, the tournament's
fields, the TOML keys and (with dashes) the command-line flags.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ParameterError

#: Below this a Python process with the arena loaded cannot run at all, in MiB.
MIN_MEMORY_MB = 128


@dataclass(frozen=True)
class Limits:
    """What the referee and the bot supervisor allow each bot."""

    time_margin: float = 0.1
    """Seconds a move may run past a time budget before it loses on time."""
    watchdog: float = 60.0
    """Seconds allowed for any call without a time budget: building the bot, its new-game
    hook, and moves under node or depth budgets (isolated bots only)."""
    memory_limit: int | None = 1024
    """Address-space limit of an isolated bot's process, in MiB (None: no limit)."""
    output_limit: int = 1024
    """Most an isolated bot may write to stdout and stderr in one game, in KiB."""
    sandbox: bool = False
    """Run every bot process under bubblewrap (see arena.execution.sandbox.bubblewrap); isolated bots only."""

    def __post_init__(self):
        margin, watchdog, memory, output = self.time_margin, self.watchdog, self.memory_limit, self.output_limit
        if not _number(margin) or not margin >= 0:  # nan too
            raise ParameterError(f"time margin must be 0 or more seconds, got {margin}")
        if not _number(watchdog) or not watchdog > 0:
            raise ParameterError(f"watchdog must be more than 0 seconds, got {watchdog}")
        if memory is not None and (not _whole(memory) or memory < MIN_MEMORY_MB):
            raise ParameterError(f"memory limit must be at least {MIN_MEMORY_MB} MiB (or none), got {memory}")
        if not _whole(output) or output < 1:
            raise ParameterError(f"output limit must be at least 1 KiB, got {output}")

    @property
    def memory_bytes(self) -> int | None:
        return None if self.memory_limit is None else self.memory_limit * 1024 * 1024

    @property
    def output_bytes(self) -> int:
        return self.output_limit * 1024


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: The limits used when none are given.
DEFAULT_LIMITS = Limits()
