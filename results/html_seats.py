"""The HTML report's sections for a game of more than two seats, read from its ``seats`` table.

Standings with the Plackett-Luce Elo (``results.seat_report.seat_standings``), who is stronger
from that fit's covariance, the versus heatmap (the share of their games together in which the
row's bot finished ahead) in place of the crosstable, mean points by seat in place of the
colours, endings in place of the faults, and the games in rounds (listed with their bots in
seat order, see ``results.html_parts.listing``). ``seat_sections`` gives them as the
template's variables.
"""

from __future__ import annotations

import pandas as pd

from arena.game import Game
from results.html_parts import colour, superiority_cells, table
from results.plackett_luce import fit
from results.ratings import Fit, View, origin
from results.render import _number
from results.seat_report import by_seat, seat_standings, seat_terminations, versus

STANDINGS = {
    "games": "Games", "wins": "Wins", "shared": "Shared firsts", "points": "Points", "score_rate": "Score rate",
    "mean_rank": "Mean rank", "win_rate": "Win rate", "elo": "Elo", "±": "Elo ± (95%)",
    "nodes_per_move": "Nodes per move", "nodes_per_second": "Nodes per second", "depth": "Mean depth",
    "seconds_per_move": "Seconds per move",
}
ENDINGS = {
    "normal": "Ended normally", "illegal_move": "Illegal moves", "timeout": "Timeouts", "crash": "Crashes",
    "memory": "Over memory", "output": "Over output", "protocol": "Protocol errors", "cpu_ceiling": "Over CPU time",
    "forfeits": "Own faults in all", "others_forfeited": "Another seat's fault",
}


def seat_names(game: Game | None, seats: int) -> list[str]:
    """How the game calls each seat (e.g. red, yellow, ...); without the game, seat 1, seat 2, ..."""
    if game is None:
        return [f"seat {s + 1}" for s in range(seats)]
    return [game.player_name(s) for s in range(seats)]


def _model(fitted: Fit) -> str:
    """The Plackett-Luce fit's other parameters in a sentence."""
    text = f"In {100 * fitted.draw_rate:.1f}% of games two or more seats share a place."
    if fitted.dispersion_df:
        text += (f" Intervals count games: the rankings vary {fitted.dispersion:.2f} times as much as the model "
                 f"expects.")
    return text


def _versus(seats: pd.DataFrame, order: list[str]) -> list[dict]:
    """Per row bot: its cells against each column bot (None on the diagonal or without games
    together): the share of their games together in which it finished ahead, a tie half."""
    rates = versus(seats, order)
    pairs = seats.merge(seats, on="game_id", suffixes=("", "_other"))
    together = pairs[pairs["bot"] != pairs["bot_other"]].groupby(["bot", "bot_other"]).size()
    rows = []
    for bot in order:
        cells = []
        for other in order:
            rate = rates.at[bot, other]
            if bot == other or pd.isna(rate):
                cells.append(None)
                continue
            games = int(together[(bot, other)])
            cells.append({"rate": f"{100 * rate:.0f}%", "games": games, "ahead": _number("score", rate * games),
                          "colour": colour(rate), "dark": abs(rate - 0.5) > 0.3})
        rows.append({"bot": bot, "cells": cells})
    return rows


def _rounds(games: pd.DataFrame, n: int) -> list[list[int]]:
    """Game ids in rounds: the games of one table and one opening, ``n`` at a time in id order
    (a round of the seating cycle: every bot of the table in every seat once)."""
    tables: dict[tuple, list[int]] = {}
    listed = games[["game_id", "pairing", "opening"]].sort_values("game_id")
    for gid, pairing, opening in listed.itertuples(index=False):
        tables.setdefault((pairing, opening), []).append(int(gid))
    return sorted(ids[k:k + n] for ids in tables.values() for k in range(0, len(ids), n))


def seat_sections(games: pd.DataFrame, moves: pd.DataFrame, seats: pd.DataFrame, game: Game | None,
                  view: View = View()) -> dict:
    """The template's variables for a game of more than two seats (``games`` finished, ``moves``
    and ``seats`` theirs): standings, superiority, versus, by seat, endings, and the games in rounds."""
    seats = seats[seats["game_id"].isin(games["game_id"])]
    n = int(seats["seat"].max()) + 1
    fitted = fit(seats, anchors=view.anchors)
    standings = seat_standings(seats, moves, fitted)
    order = [str(b) for b in standings.index]
    names = seat_names(game, n)
    headers = {f"seat_{s + 1}": f"Seat {s + 1} ({name})" for s, name in enumerate(names)}
    ended = seat_terminations(seats, games, order)
    extra = [c for c in ended.columns if c not in ENDINGS]  # a reason this version does not know
    return {
        "seated": True, "players": n, "seat_names": names, "standings": table(standings, STANDINGS),
        "origin": origin(view.anchors), "model": _model(fitted), "superiority": superiority_cells(fitted, view.top),
        "versus": _versus(seats, order), "order": order, "by_seat": table(by_seat(seats, order), headers),
        "endings": table(ended, {**ENDINGS, **{c: c.replace("_", " ").capitalize() for c in extra}}),
        "verdict": None, "ladder": None, "groups": _rounds(games, n), "bots": order,
    }


__all__ = ["ENDINGS", "STANDINGS", "seat_names", "seat_sections"]
