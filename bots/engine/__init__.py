"""Engines in any language as bots: ``engine`` speaks the arena's text protocol (docs/protocol.md),
``uci`` speaks UCI to a chess engine such as Stockfish. A built-in plugin.

Both run their engine in a process of their own (``bots.engine.process``, supervised as any
bot process: cgroup, output and memory limits, bubblewrap under ``--sandbox``), so workers
build them locally even when bots are isolated (``ProgramBot``). A bot keeps its engine from
game to game while it is healthy; after any fault the engine and its children are killed,
and the next game starts a fresh one. In a game of hidden information every game starts a
fresh engine, in an empty scratch folder, and the engine is told its seat's view
(``bots.engine.views``), never the state.

Specs: ``cmd`` is split as a shell would (``engine:cmd=./bot --level 3``; ``'my bot'`` for a
path with a space); a comma ends it, since the spec's keys are comma-separated. On a
shell, quote the whole spec. Any other key is an engine option, checked against what the
engine declares: ``uci:cmd=stockfish,Hash=64,Threads=1,Skill Level=5``.
"""

from arena import hookimpl
from bots.engine.engine import ArenaEngine
from bots.engine.uci import UciBot


@hookimpl
def register_bots(register):
    register(ArenaEngine)
    register(UciBot)
