"""Test plugin: a game that deals a hidden card, a game of throws made at once, and bots that
try to learn what the referee hides from them (see tests/test_hidden_hostile.py).

``games``: ``secret`` and ``duel``, whose hidden texts no one could come upon by accident.
``reach``: every place a bot can look. ``bots``: ``snooper`` (looks everywhere for the
card), ``sneak`` (for the other's throw of this turn), ``memory`` (notes the deal and reads
its notes in later games), ``peeker`` (for the other's card in Kuhn poker) and ``plain`` (a
random opponent).
"""

from arena import hookimpl
from tests.plugins.snoop.bots import Memory, Peeker, Plain, Sneak, Snooper
from tests.plugins.snoop.games import Duel, Secret


@hookimpl
def register_games(register):
    register(Secret)
    register(Duel)


@hookimpl
def register_bots(register):
    for cls in (Plain, Snooper, Sneak, Memory, Peeker):
        register(cls)
