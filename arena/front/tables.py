"""Tournaments of games of more than two seats: tables of the field, each playing its seating cycle."""

from __future__ import annotations

from arena.errors import ParameterError
from arena.formats import formats
from arena.formats.base import Format
from arena.game import Game
from arena.seating import seating_cycle, table_games


def check_tables(config, game: Game, seats: int, challengers: tuple[str, ...]) -> None:
    """Refuse, in one line, a tournament of a game of ``seats`` seats that cannot be played."""
    fmt = config.format
    if type(fmt).tables is Format.tables:
        able = [name for name, cls in formats().items() if cls.tables is not Format.tables]
        raise ParameterError(f"the {fmt.name} format pairs two bots a game; {game.name} has {seats} players: "
                             f"use {' or '.join(able)}")
    if len(config.bots) < seats:
        raise ParameterError(f"{game.name} has {seats} players: a tournament of it needs at least {seats} bots, "
                             f"got {len(config.bots)} (the same spec may play twice under two names: NAME=SPEC)")
    if not fmt.tables(tuple(e.name for e in config.bots), challengers, seats):
        raise ParameterError(f"a {fmt.name} of {game.name} seats each challenger with {seats - 1} bots that are not "
                             f"challengers; there are {len(config.bots) - len(challengers)}")
    if config.games_per_pairing < 1:
        raise ParameterError(f"games per table must be 1 or more, got {config.games_per_pairing}")


def seating_rounds(games: int, seats: int) -> int:
    """The rounds of a table of ``seats`` asked for ``games`` games: whole seating cycles (every
    bot in every seat, every ordered pair adjacent, equally often), a block of ``seats`` games a round."""
    length = len(seating_cycle(seats))
    return -(-games // length) * (length // seats)


def table_schedule(format: Format, bots: tuple[str, ...], challengers: tuple[str, ...], games: int, seats: int) -> list[tuple]:
    """(round, the bots in seat order) of every game of a stage, in playing order: each round,
    every table plays a block of its seating cycle (the rotations of one seating: every bot in
    every seat once), the cycle's blocks in turn, so whole cycles balance predecessors too."""
    cycle, tables = seating_cycle(seats), format.tables(bots, challengers, seats)
    blocks = len(cycle) // seats
    out = []
    for r in range(seating_rounds(games, seats)):
        block = cycle[r % blocks * seats:][:seats]
        for table in tables:
            out += [(r, *(bots[b] for b in seated)) for seated in table_games(table, block)]
    return out
