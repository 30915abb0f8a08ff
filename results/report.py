"""Report tables for one tournament: standings with Elo, crosstable, colours, terminations.

Every function is pure: it takes the ``games`` and ``moves`` DataFrames of one tournament
(columns as in ``results.load``) and returns a DataFrame indexed by bot display name, in
standings order (Elo descending, then score). ``render`` and ``write`` (``results.render``)
turn tables into text or files, headed by ``About``: which tournament they describe.
"""

from __future__ import annotations

import pandas as pd

from arena.records import Termination
from results.about import About, Entry
from results.bradley_terry import PRIOR_DF
from results.ratings import K, PRIOR, Z95, Fit, View, fit, ratings, superiority
from results.render import FORMATS, render, write, write_file

__all__ = [
    "About", "Entry", "FORMATS", "K", "View", "Z95", "by_colour", "crosstable", "elo", "model", "render", "reported",
    "report", "standings", "superiority", "terminations", "write", "write_file",
]

TERMINATIONS = tuple(t.value for t in Termination)
"""Termination reasons every terminations table shows, in this order; others follow sorted."""
STANDINGS_COLUMNS = [
    "games", "wins", "draws", "losses", "score", "score_rate", "win_rate", "elo", "elo_low",
    "elo_high", "nodes_per_move", "nodes_per_second", "depth", "seconds_per_move",
]


# ---- Elo: the joint fit of results.ratings ----------------------------------------------------

def elo(games: pd.DataFrame, prior: float = PRIOR, view: View = View(), **options) -> pd.DataFrame:
    """Elo by bot with its 95% interval: ``results.ratings.ratings`` (the model and its
    options are described there), anchored as ``view`` says."""
    return ratings(games, prior=prior, anchors=view.anchors, **options)


# ---- tables ---------------------------------------------------------------------------------

def _sides(games: pd.DataFrame) -> pd.DataFrame:
    """Two rows per game, one per seat: bot, opponent, seat (0 first), score, termination, and
    whether the bot forfeited (``forfeit``) or its opponent did (``opponent_forfeit``)."""
    score = games["score_first"].astype(float)
    loser = games["loser"].astype("Int64")
    seats = []
    for seat, me, other, points in ((0, "first", "second", score), (1, "second", "first", 1 - score)):
        seats.append(pd.DataFrame({
            "bot": games[me].astype(str), "opponent": games[other].astype(str), "seat": seat,
            "score": points, "termination": games["termination"].astype(str),
            "forfeit": loser.eq(seat).fillna(False).astype(bool),
            "opponent_forfeit": loser.eq(1 - seat).fillna(False).astype(bool),
        }))
    return pd.concat(seats, ignore_index=True)


def _rank(table: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted by Elo descending, then score descending, then name."""
    table = table.sort_index(kind="stable")
    return table.sort_values(["elo", "score"], ascending=False, kind="stable")


def _order(games: pd.DataFrame) -> list[str]:
    """Bots in standings order."""
    score = _sides(games).groupby("bot")["score"].sum()
    return list(_rank(elo(games).assign(score=score)).index)


def standings(games: pd.DataFrame, moves: pd.DataFrame, view: View = View(), fitted: Fit | None = None) -> pd.DataFrame:
    """One row per bot: results, score and win rates, Elo with its 95% interval, search statistics.

    Wins, draws and losses come from ``score_first`` (1, 0.5, 0) whatever the utility's size.
    Search statistics use the bot's moves in these games: mean nodes, depth (over moves that
    report one) and seconds per move; nodes per second is total nodes / total seconds.
    Elo is ``results.ratings``'s, anchored as ``view`` says (``fitted``: that fit, if the
    caller has it); the frame's ``attrs`` hold the fit's other parameters.
    """
    fitted = fitted or fit(games, anchors=view.anchors)
    sides = _sides(games)
    sides = sides.assign(wins=sides.score == 1, draws=sides.score == 0.5, losses=sides.score == 0)
    by_bot = sides.groupby("bot")
    table = by_bot[["wins", "draws", "losses"]].sum().astype(int)
    table.insert(0, "games", by_bot.size())
    table["score"] = by_bot["score"].sum()
    table["score_rate"] = table["score"] / table["games"]
    table["win_rate"] = table["wins"] / table["games"]
    table = table.join(fitted.table[["elo", "elo_low", "elo_high"]])
    table = table.join(search_per_move(moves[moves["game_id"].isin(games["game_id"])]))
    table = table.reindex(columns=STANDINGS_COLUMNS)
    table.index.name = "bot"
    table = _rank(table)
    table.attrs = fitted.attrs()
    return table


def search_per_move(played: pd.DataFrame) -> pd.DataFrame:
    """Per bot of ``played`` (moves): mean nodes, nodes per second (total over total seconds),
    mean depth over the moves that report one, and mean seconds, per move."""
    played = played.assign(depth=played["depth"].astype("Float64").astype(float))
    per_move = played.groupby("bot")
    seconds = per_move["seconds"].sum()
    return pd.DataFrame({
        "nodes_per_move": per_move["nodes"].mean(),
        "nodes_per_second": per_move["nodes"].sum() / seconds.where(seconds > 0),
        "depth": per_move["depth"].mean(),
        "seconds_per_move": per_move["seconds"].mean(),
    })


def model(fitted: Fit) -> pd.DataFrame:
    """What the Elo fit found beside the ratings: the first-move advantage, the draws, and
    the dispersion its intervals use, one row each with what it means."""
    if fitted.table.empty:
        return pd.DataFrame(columns=["value", "se", "meaning"], index=pd.Index([], name="parameter"))
    rows = {
        "first_move": (fitted.first_move, fitted.first_move_se, "Elo the first mover gains"),
        "draw_rate": (fitted.draw_rate, None, "share of the games drawn"),
        "draw_equal": (fitted.draw_equal, None, f"drawn by equal bots (Davidson, nu {fitted.draw_nu:.3g})"),
        "dispersion": (fitted.dispersion, None,
                       f"variance / a coin flip's: {fitted.clusters:,} pairs or lone games" + (
                           f", {fitted.dispersion_df:,} df ({PRIOR_DF} prior)" if fitted.dispersion_df
                           else ", taken as coin flips")),
    }
    if fitted.anchors:
        rows["anchors"] = (len(fitted.anchors), None, "held at: "
                           + ", ".join(f"{b} {e:+g}" for b, e in fitted.anchors.items()))
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["value", "se", "meaning"])
    table.index.name = "parameter"
    return table


def crosstable(games: pd.DataFrame, normalize: bool = False, order: list[str] | None = None) -> pd.DataFrame:
    """Points of the row bot against the column bot (``normalize``: its score rate); diagonal NaN.
    ``order``: the bots' order (default: the standings')."""
    order = order or _order(games)
    sides = _sides(games)
    sides = sides[sides.bot != sides.opponent]
    grouped = sides.groupby(["bot", "opponent"])["score"]
    cells = grouped.mean() if normalize else grouped.sum()
    table = cells.unstack().reindex(index=order, columns=order).astype(float)
    table.index.name, table.columns.name = "bot", None
    return table


def by_colour(games: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Per bot: games, points and score rate as first mover and as second mover."""
    sides = _sides(games)
    table = pd.DataFrame(index=pd.Index(order or _order(games), name="bot"))
    for seat, name in ((0, "first"), (1, "second")):
        grouped = sides[sides.seat == seat].groupby("bot")["score"]
        table[f"{name}_games"] = grouped.size().reindex(table.index, fill_value=0).astype(int)
        table[f"{name}_score"] = grouped.sum().reindex(table.index, fill_value=0.0)
        table[f"{name}_rate"] = table[f"{name}_score"] / table[f"{name}_games"].where(table[f"{name}_games"] > 0)
    return table


def terminations(games: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Per bot: why its games ended, its own faults apart from its opponents'.

    A reason column counts the bot's games that ended for it without a fault ("normal") or by
    the bot's own fault ("timeout": its own timeouts, each a game it lost); ``forfeits`` is
    the total of its own faults, and ``wins_by_forfeit`` counts games it won by its
    opponent's fault. The reason columns and ``wins_by_forfeit`` add up to its games.
    """
    sides = _sides(games)
    reasons = list(TERMINATIONS) + sorted(set(sides.termination) - set(TERMINATIONS))
    own = sides[~sides.opponent_forfeit]  # the opponent's faults are not this bot's reasons
    order = order or _order(games)
    table = pd.crosstab(own.bot, own.termination).reindex(index=order, columns=reasons, fill_value=0)
    by_bot = sides.groupby("bot")
    table["forfeits"] = by_bot["forfeit"].sum().reindex(table.index, fill_value=0)
    table["wins_by_forfeit"] = by_bot["opponent_forfeit"].sum().reindex(table.index, fill_value=0)
    table = table.astype(int)
    table.index.name, table.columns.name = "bot", None
    return table


def reported(games: pd.DataFrame, moves: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Per bot whose nodes were counted in its own process (an engine's report, or an isolated
    Python bot's count: the arena cannot check them): its moves, how many were reported, and
    how many reported more nodes than the node budget."""
    played = moves[moves["game_id"].isin(games["game_id"])]
    shown = played[played["reported"].astype(bool)]
    by_bot = played[played["bot"].isin(shown["bot"])].groupby("bot")
    table = pd.DataFrame({
        "moves": by_bot.size(),
        "reported_moves": by_bot["reported"].sum(),
        "over_budget": by_bot["over_budget"].sum(),
    }).astype(int)
    table = table.reindex([b for b in order or _order(games) if b in table.index])
    table.index.name = "bot"
    return table


def report(games: pd.DataFrame, moves: pd.DataFrame, view: View = View()) -> dict[str, pd.DataFrame]:
    """Every report table: standings, the rating model's parameters, the likelihood of
    superiority of the ``view.top`` best bots (none when 0), crosstable (points), colours and
    terminations, and ``reported`` when a bot's nodes were counted in its own process (the
    standings' nodes are those)."""
    fitted = fit(games, anchors=view.anchors)
    table = standings(games, moves, view, fitted)
    order = list(table.index)  # one fit for every table, in the standings' order
    tables = {
        "standings": table,
        "rating_model": model(fitted),
        **({"superiority": superiority(fitted, view.top)} if view.top else {}),
        "crosstable": crosstable(games, order=order),
        "colours": by_colour(games, order),
        "terminations": terminations(games, order),
    }
    if "reported" in moves and moves["reported"].astype(bool).any():
        tables["reported"] = reported(games, moves, order)
    return tables
