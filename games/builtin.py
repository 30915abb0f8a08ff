"""Registers the built-in games (a default plugin)."""

from arena import hookimpl


@hookimpl
def register_games(register):
    from games.bachet import Bachet
    from games.chess_game import Chess
    from games.connect4 import ConnectFour
    from games.counting import Counting
    from games.goofspiel import Goofspiel
    from games.kuhn import KuhnPoker
    from games.leduc import LeducPoker
    from games.nim import Nim
    from games.othello import Othello
    from games.pig import Pig
    from games.rolit import Rolit
    from games.rps import RockPaperScissors
    from games.tictactoe import TicTacToe
    from games.tree import Tree
    from games.wythoff import Wythoff

    for cls in (Nim, Bachet, Counting, Wythoff, TicTacToe, ConnectFour, Othello, Chess, Tree, Pig, Rolit,
                RockPaperScissors, Goofspiel, KuhnPoker, LeducPoker):
        register(cls)
