"""One error hierarchy for everything a user or a plugin can get wrong."""


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
