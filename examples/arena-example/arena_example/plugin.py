"""The plugin module named by the ``arena`` entry point: it registers classes, not instances."""

from arena import hookimpl

from arena_example.cautious import CautiousBot
from arena_example.fifteen import Fifteen


@hookimpl
def register_games(register):
    register(Fifteen)


@hookimpl
def register_bots(register):
    register(CautiousBot)
