"""Report tables for a tournament of a game of more than two seats, read from its ``seats`` table.

Standings by mean points, mean rank and win rate, with Plackett-Luce ratings
(``results.plackett_luce``); each bot's points by seat; how each bot fared against each
(the share of their games together in which it finished ahead); and why games ended. Every
function takes the ``seats`` (and ``moves``) DataFrames of one tournament, as ``results.load``
gives them, and returns a DataFrame indexed by bot display name in standings order.
"""

from __future__ import annotations

import pandas as pd

from results.ratings import View
from results.report import UTILITY_COLUMNS, reasons, UTILITY_NOTE, search_per_move, utility_per_game, with_utility

SEAT_STANDINGS_COLUMNS = [
    "games", "wins", "shared", "points", "score_rate", "mean_rank", "win_rate", "elo", "elo_low", "elo_high",
    "nodes_per_move", "nodes_per_second", "depth", "seconds_per_move",
]


STANDINGS_NOTE = ("Plackett-Luce Elo with its 95% interval (±); points: 1 shared among a game's best; rank: mean "
                  "place, 1 first; nodes, depth and seconds are per move")
UTILITY_STANDINGS_NOTE = ("Plackett-Luce Elo with its 95% interval (±); points: 1 shared among a game's best; rank: "
                          "mean place, 1 first; " + UTILITY_NOTE.format(units="a table's rounds")
                          + "; nodes, depth and seconds are per move")
"""The standings' note where they show the utility."""


def seat_standings(seats: pd.DataFrame, moves: pd.DataFrame, fitted=None,
                   games: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per bot: games; wins (best utility alone) and shared firsts; points (1 shared
    among a game's best) and their mean (``score_rate``); mean rank (1 best; ties share the
    mean place); win rate; the Plackett-Luce Elo with its 95% interval; search statistics.
    Given ``games`` (their tables and rounds), the mean utility per game with its 95% interval
    too, after the win rate, where the utilities tell more than the points
    (``results.report.utility_per_game``, a table's round the unit: ``table_rounds``)."""
    if fitted is None:
        fitted = _fit(seats)
    tops = seats.groupby("game_id")["points"].transform("max")
    seats = seats.assign(wins=seats.points == 1.0, shared=(seats.points == tops) & (seats.points < 1.0))
    by_bot = seats.groupby("bot")
    table = pd.DataFrame({
        "games": by_bot.size(), "wins": by_bot["wins"].sum().astype(int), "shared": by_bot["shared"].sum().astype(int),
        "points": by_bot["points"].sum(), "score_rate": by_bot["points"].mean(), "mean_rank": by_bot["rank"].mean(),
    })
    table["win_rate"] = table["wins"] / table["games"]
    table = table.join(fitted.table[["elo", "elo_low", "elo_high"]])
    table = table.join(search_per_move(moves[moves["game_id"].isin(seats["game_id"]) & (moves["player"] >= 0)]))
    utility = None
    if games is not None:
        rounds = table_rounds(games, int(seats["seat"].max()) + 1 if len(seats) else 2)
        unit = seats["game_id"].map(rounds).fillna(-1 - seats["game_id"].astype(float))  # a game not in games: alone
        utility = utility_per_game(seats.assign(unit=unit))
    table = table.reindex(columns=SEAT_STANDINGS_COLUMNS if utility is None else with_utility(SEAT_STANDINGS_COLUMNS))
    if utility is not None:
        table[UTILITY_COLUMNS] = utility.reindex(table.index)
    table.index.name = "bot"
    table = table.sort_index(kind="stable").sort_values(["elo", "score_rate"], ascending=False, kind="stable")
    table.attrs = {**fitted.attrs(), "note": STANDINGS_NOTE if utility is None else UTILITY_STANDINGS_NOTE}
    return table


def table_rounds(games: pd.DataFrame, seats: int) -> pd.Series:
    """Each game's unit, by game id: its table's round. A round of a table is a block of
    ``seats`` games (every bot in every seat once) that share one opening and one deal of the
    dice (``arena.dice.table_context``): a table's games of one opening, in id order, ``seats``
    at a time. Without the table or the opening, each game is a unit of its own."""
    ids = games["game_id"].astype(int)
    if "pairing" not in games or "opening" not in games:
        return pd.Series(range(len(games)), index=ids.to_numpy())
    ordered = games.assign(game_id=ids).sort_values("game_id", kind="stable")
    block = ordered.groupby(["pairing", "opening"], sort=False).cumcount() // seats
    keys = pd.MultiIndex.from_arrays([ordered["pairing"], ordered["opening"], block])
    return pd.Series(pd.factorize(keys)[0], index=ordered["game_id"].to_numpy())


def by_seat(seats: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Per bot, its mean points in each seat (``seat_1`` moves first), and a row ``all`` with
    every bot's together: what each seat is worth in this game."""
    seats = seats.assign(column="seat_" + (seats["seat"] + 1).astype(str))
    columns = [f"seat_{s + 1}" for s in sorted(seats["seat"].unique())]
    table = seats.pivot_table(index="bot", columns="column", values="points", aggfunc="mean")
    table = table.reindex(index=order, columns=columns)
    every = seats.groupby("column")["points"].mean().reindex(columns)
    table.loc["all"] = every
    table.index.name, table.columns.name = "bot", None
    return table


def versus(seats: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Row bot against column bot: the share of the games they played together in which the row
    bot finished ahead (a tie counts half). Diagonal NaN."""
    pairs = seats.merge(seats, on="game_id", suffixes=("", "_other"))
    pairs = pairs[pairs["bot"] != pairs["bot_other"]]
    ahead = (pairs["rank"] < pairs["rank_other"]) + 0.5 * (pairs["rank"] == pairs["rank_other"])
    cells = pairs.assign(ahead=ahead.astype(float)).groupby(["bot", "bot_other"])["ahead"].mean()
    table = cells.unstack().reindex(index=order, columns=order).astype(float)
    table.index.name, table.columns.name = "bot", None
    return table


def seat_terminations(seats: pd.DataFrame, games: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Per bot: why its games ended, its own faults apart from the others' (as
    ``results.report.terminations`` counts them for two seats)."""
    info = games[["game_id", "termination", "loser"]]
    sides = seats.merge(info, on="game_id")
    loser = sides["loser"].astype("Int64")
    sides = sides.assign(forfeit=loser.eq(sides["seat"]).fillna(False).astype(bool),
                         other_forfeit=(loser.notna() & loser.ne(sides["seat"])).fillna(False).astype(bool))
    own = sides[~sides.other_forfeit]
    table = pd.crosstab(own.bot, own.termination).reindex(index=order, columns=reasons(sides.termination), fill_value=0)
    by_bot = sides.groupby("bot")
    table["forfeits"] = by_bot["forfeit"].sum().reindex(table.index, fill_value=0)
    table["others_forfeited"] = by_bot["other_forfeit"].sum().reindex(table.index, fill_value=0)
    table = table.astype(int)
    table.index.name, table.columns.name = "bot", None
    return table


def seat_report(seats: pd.DataFrame, games: pd.DataFrame, moves: pd.DataFrame, view: View = View()) -> dict[str, pd.DataFrame]:
    """Every report table of a game of more than two seats: standings (with the mean utility per
    game where it tells more than the points: ``seat_standings``), the rating model, points by
    seat, versus (who finished ahead of whom) and terminations."""
    fitted = _fit(seats, view)
    table = seat_standings(seats, moves, fitted, games)
    order = list(table.index)
    return {
        "standings": table,
        "rating_model": _model(fitted),
        "by_seat": by_seat(seats, order),
        "versus": versus(seats, order),
        "endings": seat_terminations(seats, games, order),
    }


def _fit(seats: pd.DataFrame, view: View = View()):
    from results.plackett_luce import fit

    return fit(seats, anchors=view.anchors)


def _model(fitted) -> pd.DataFrame:
    """What the Plackett-Luce fit found beside the ratings, one row each with what it means."""
    rows = {"model": (None, None, "Plackett-Luce over each game's ranking (ties allowed); Elo scale")}
    dispersion = getattr(fitted, "dispersion", None)
    if dispersion is not None:
        rows["dispersion"] = (dispersion, None, "variance / the model's, widening the intervals")
    anchors = getattr(fitted, "anchors", None)
    if anchors:
        rows["anchors"] = (len(anchors), None, "held at: " + ", ".join(f"{b} {e:+g}" for b, e in anchors.items()))
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["value", "se", "meaning"])
    table.index.name = "parameter"
    return table
