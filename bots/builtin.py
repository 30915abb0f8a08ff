"""Registers the built-in bots (a default plugin)."""

from arena import hookimpl


@hookimpl
def register_bots(register):
    from bots.alphabeta import AlphaBetaBot
    from bots.brs import BRSBot
    from bots.cfr_bot import CFRBot
    from bots.expectimax import ExpectimaxBot, Star1Bot, Star2Bot
    from bots.greedy import GreedyBot
    from bots.human import HumanBot
    from bots.iterative import IterativeBot
    from bots.maxn import MaxnBot
    from bots.mcts import MCTSBot
    from bots.minimax import MinimaxBot
    from bots.paranoid import ParanoidBot
    from bots.policy import PolicyBot
    from bots.random_bot import RandomBot
    from bots.regret import RegretBot
    from bots.solver import SolverBot
    from bots.uniform import UniformBot
    from bots.ismcts import ISMCTSBot
    from bots.pimc import PIMCBot

    for cls in (RandomBot, GreedyBot, MinimaxBot, AlphaBetaBot, IterativeBot, SolverBot, MCTSBot, ExpectimaxBot,
                Star1Bot, Star2Bot, MaxnBot, ParanoidBot, BRSBot, UniformBot, RegretBot, CFRBot, PolicyBot,
                ISMCTSBot, PIMCBot, HumanBot):
        register(cls)
