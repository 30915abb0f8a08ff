"""botarena: game-playing bots, a referee that trusts none of them, and tournaments."""

from arena.adjudication import Adjudication, DrawRule, ResignRule
from arena.bot import Bot, Decision
from arena.budget import Budget, BudgetExhausted, Counter
from arena.clock import Clock, TimeControl
from arena.errors import ArenaError, IllegalMoveError, ParameterError, PluginError, UnknownNameError
from arena.game import CHANCE, JOINT, Game, Model, SearchHooks
from arena.hookspecs import hookimpl
from arena.params import param, parse_spec
from arena.plugins import Registry, get_registry
from arena.records import GameRecord, MoveRecord, Termination
from arena.referee import play_game
from arena.view import View

__version__ = "0.1.0"

__all__ = [
    "Adjudication",
    "ArenaError",
    "Bot",
    "CHANCE",
    "Budget",
    "Clock",
    "BudgetExhausted",
    "Counter",
    "Decision",
    "DrawRule",
    "Game",
    "GameRecord",
    "IllegalMoveError",
    "JOINT",
    "Model",
    "MoveRecord",
    "ParameterError",
    "PluginError",
    "Registry",
    "ResignRule",
    "SearchHooks",
    "Termination",
    "TimeControl",
    "UnknownNameError",
    "View",
    "get_registry",
    "hookimpl",
    "param",
    "parse_spec",
    "play_game",
]
