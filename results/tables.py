"""Stored tournaments as pandas DataFrames (columns documented in results/__init__.py)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pandas as pd

from results.about import About
from results.rows import GAME_COLUMNS, MOVE_COLUMNS
from results.store import Store


class _Frames(NamedTuple):
    games: pd.DataFrame
    moves: pd.DataFrame


class Tables(_Frames):
    """One tournament's games and moves, and ``about``: what they describe (``results.about.About``).

    Still a pair, so ``games, moves = results.load(path)`` unpacks as it always did.
    """

    about: About | None = None

    def __new__(cls, games: pd.DataFrame, moves: pd.DataFrame, about: About | None = None):
        self = super().__new__(cls, games, moves)
        self.about = about
        return self

    def __getnewargs__(self):
        return (self.games, self.moves, self.about)


def load(path: str | Path, tournament: str | None = None) -> Tables:
    """The games and moves of one tournament (default: the most recently started), and what it is."""
    with Store(path, create=False) as store:
        t = store.tournament(tournament)
        games = pd.read_sql_query(
            "SELECT * FROM games WHERE tournament_id=? ORDER BY game_id", store.db, params=(t.id,)
        )
        moves = pd.read_sql_query(
            "SELECT m.game_id, m.ply, m.player, CASE m.player WHEN 0 THEN g.first ELSE g.second END AS bot, "
            "m.move, m.nodes, m.seconds, m.depth, m.score, m.reported, m.over_budget FROM moves m JOIN games g "
            "ON g.tournament_id = m.tournament_id AND g.game_id = m.game_id "
            "WHERE m.tournament_id=? ORDER BY m.game_id, m.ply",
            store.db,
            params=(t.id,),
        )
    games.insert(0, "tournament", t.name)
    moves.insert(0, "tournament", t.name)
    about = About.from_store(t, len(games))
    return Tables(typed_games(games[list(GAME_COLUMNS)]), typed_moves(moves[list(MOVE_COLUMNS)]), about)


def typed_games(games: pd.DataFrame) -> pd.DataFrame:
    return games.astype({"loser": "Int64", "score_first": "float64", "utility_first": "float64"})


def typed_moves(moves: pd.DataFrame) -> pd.DataFrame:
    return moves.astype({"depth": "Int64", "score": "float64", "seconds": "float64"})
