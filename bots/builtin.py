"""Registers the built-in bots (a default plugin)."""

from arena import hookimpl


@hookimpl
def register_bots(register):
    from bots.alphabeta import AlphaBetaBot
    from bots.brs import BRSBot
    from bots.expectimax import ExpectimaxBot, Star1Bot, Star2Bot
    from bots.greedy import GreedyBot
    from bots.human import HumanBot
    from bots.iterative import IterativeBot
    from bots.maxn import MaxnBot
    from bots.mcts import MCTSBot
    from bots.minimax import MinimaxBot
    from bots.paranoid import ParanoidBot
    from bots.random_bot import RandomBot
    from bots.solver import SolverBot

    for cls in (RandomBot, GreedyBot, MinimaxBot, AlphaBetaBot, IterativeBot, SolverBot, MCTSBot, ExpectimaxBot,
                Star1Bot, Star2Bot, MaxnBot, ParanoidBot, BRSBot, HumanBot):
        register(cls)
