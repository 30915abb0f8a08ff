"""An example botarena plugin: the game ``fifteen`` and the bot ``cautious``."""

__version__ = "0.1.0"
