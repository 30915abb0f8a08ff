"""Stored tournaments as pandas DataFrames (columns documented in results/__init__.py)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from arena.referee import MAX_DEPTH, MAX_NODES
from results.about import About
from results.rows import GAME_COLUMNS, MOVE_COLUMNS, SEAT_COLUMNS
from results.sqlite import damaged
from results.store import Store


class _Frames(NamedTuple):
    games: pd.DataFrame
    moves: pd.DataFrame


class Tables(_Frames):
    """One tournament's games and moves, ``about``: what they describe (``results.about.About``),
    and ``seats``: a row per seat of every game (``SEAT_COLUMNS``; the bot in each seat, its
    utility, points, rank, moves, nodes and seconds), the one table of a game of more than two seats.

    Still a pair, so ``games, moves = results.load(path)`` unpacks as it always did.
    """

    about: About | None = None
    seats: pd.DataFrame | None = None

    def __new__(cls, games: pd.DataFrame, moves: pd.DataFrame, about: About | None = None,
                seats: pd.DataFrame | None = None):
        self = super().__new__(cls, games, moves)
        self.about = about
        self.seats = seats if seats is not None else pd.DataFrame(columns=list(SEAT_COLUMNS))
        return self

    def __getnewargs__(self):
        return (self.games, self.moves, self.about, self.seats)

    @property
    def players(self) -> int:
        """Seats per game (2 when no game is stored)."""
        return int(self.seats["seat"].max()) + 1 if len(self.seats) else 2


def load(path: str | Path, tournament: str | None = None) -> Tables:
    """The games and moves of one tournament (default: the most recently started), and what it is."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"results.load: path must be the path of a results database, got {path!r}")
    with Store(path, create=False) as store:
        try:
            return _load(store, tournament)
        except sqlite3.DatabaseError as exc:
            raise damaged(path, exc) from None
        except pd.errors.DatabaseError as exc:  # pandas' read_sql_query wraps SQLite's error in its own
            if isinstance(exc.__cause__, sqlite3.DatabaseError):
                raise damaged(path, exc.__cause__) from None
            raise


def _load(store: Store, tournament: str | None) -> Tables:
    t = store.tournament(tournament)
    games = pd.read_sql_query("SELECT * FROM games WHERE tournament_id=? ORDER BY game_id", store.db, params=(t.id,))
    seats = pd.read_sql_query(
        "SELECT * FROM seats WHERE tournament_id=? ORDER BY game_id, seat", store.db, params=(t.id,)
    )
    moves = pd.read_sql_query(
        "SELECT m.game_id, m.ply, m.player, COALESCE(s.bot, 'chance') AS bot, "
        "m.move, m.nodes, m.seconds, m.depth, m.score, m.reported, m.over_budget, m.cpu, m.clock FROM moves m LEFT JOIN seats s "
        "ON s.tournament_id = m.tournament_id AND s.game_id = m.game_id AND s.seat = m.player "
        "WHERE m.tournament_id=? ORDER BY m.game_id, m.ply",
        store.db,
        params=(t.id,),
    )
    for frame in (games, moves, seats):
        frame.insert(0, "tournament", t.name)
    about = About.from_store(t, len(games), t.id in store.keyed(), int(seats["seat"].max()) + 1 if len(seats) else 2)
    return Tables(typed_games(games[list(GAME_COLUMNS)]), typed_moves(moves[list(MOVE_COLUMNS)]), about,
                  typed_seats(seats[list(SEAT_COLUMNS)]))


def typed_games(games: pd.DataFrame) -> pd.DataFrame:
    return games.astype({"loser": "Int64", "score_first": "float64", "utility_first": "float64"})


def typed_seats(seats: pd.DataFrame) -> pd.DataFrame:
    return seats.astype({"seat": "int64", "utility": "float64", "points": "float64", "rank": "float64",
                         "moves": "int64", "nodes": "int64", "seconds": "float64"})


def typed_moves(moves: pd.DataFrame) -> pd.DataFrame:
    """The moves with their numbers typed. A value that is not one (text, infinity, a depth
    out of range) is read as missing: the referee stores no such value, but a database
    written by an earlier version may hold one, and no report may fail on it."""
    return moves.assign(
        nodes=_numbers(moves["nodes"], 0, MAX_NODES).fillna(0).astype("int64"),
        seconds=_numbers(moves["seconds"]),
        depth=_numbers(moves["depth"], 0, MAX_DEPTH).astype("Int64"),
        score=_numbers(moves["score"]),
        cpu=_numbers(moves["cpu"]),
        clock=_numbers(moves["clock"]),
    )


def _numbers(values: pd.Series, low: float | None = None, high: float | None = None) -> pd.Series:
    """``values`` as float64, NaN where a value is not a finite number (within [low, high]
    and whole, when they are given)."""
    if values.dtype.kind not in "iuf":
        values = pd.to_numeric(values, errors="coerce")
    values = values.astype("float64")
    fit = values.abs() < float("inf")
    if low is not None:
        fit &= values.between(low, high) & (values == values.round())
    return values if fit.all() else values.where(fit)
