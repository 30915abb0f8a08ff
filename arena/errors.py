"""One error hierarchy for everything a user or a plugin can get wrong, and the fault of a supervised bot."""

from arena.records import Termination


class ArenaError(Exception):
    """Base class of every error the arena raises on purpose."""


class UnknownNameError(ArenaError, KeyError):
    """A game, bot or parameter name that is not registered."""

    def __str__(self):  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ParameterError(ArenaError, ValueError):
    """A parameter, spec or budget that cannot be used."""


class IllegalMoveError(ArenaError, ValueError):
    """A move that is not legal, or text that does not parse as a move."""


class PluginError(ArenaError):
    """A plugin that registers something unusable, or a name twice."""


class BotFault(Exception):
    """Raised by a supervised bot (see arena.execution.isolation): why it loses, in words.

    The referee turns it into a forfeit with ``termination``; it is not an ArenaError,
    since the user did nothing wrong.
    """

    def __init__(self, termination: Termination, verb: str, detail: str):
        super().__init__(f"{verb}: {detail}")
        self.termination = termination
        self.verb = verb
        self.detail = detail
