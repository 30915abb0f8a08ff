"""Registers the built-in bots (a default plugin)."""

from arena import hookimpl


@hookimpl
def register_bots(register):
    from bots.alphabeta import AlphaBetaBot
    from bots.greedy import GreedyBot
    from bots.human import HumanBot
    from bots.iterative import IterativeBot
    from bots.minimax import MinimaxBot
    from bots.random_bot import RandomBot

    for cls in (RandomBot, GreedyBot, MinimaxBot, AlphaBetaBot, IterativeBot, HumanBot):
        register(cls)
