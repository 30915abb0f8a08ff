"""Report tables for one tournament: standings with Elo, crosstable, colours, terminations.

Every function is pure: it takes the ``games`` and ``moves`` DataFrames of one tournament
(columns as in ``results.load``) and returns a DataFrame indexed by bot display name, in
standings order (Elo descending, then score). ``render`` and ``write`` (``results.render``)
turn tables into text or files, headed by ``About``: which tournament they describe.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from arena.records import Termination
from results.about import About, Entry
from results.bradley_terry import PRIOR_DF
from results.cycles import intransitivity, units
from results.ratings import K, PRIOR, Z95, Fit, View, fit, interval_quantile, ratings, superiority
from results.render import FORMATS, render, write, write_file

__all__ = [
    "About", "Entry", "FORMATS", "K", "View", "Z95", "by_colour", "crosstable", "elo", "model", "render", "reported",
    "report", "standings", "superiority", "terminations", "utility_per_game", "write", "write_file",
]

#: Terminations a table shows only where they occur: most tournaments have no clock and no adjudication.
OCCASIONAL = (Termination.CLOCK, Termination.DRAW_ADJUDICATION, Termination.RESIGN_ADJUDICATION, Termination.MAX_MOVES)
TERMINATIONS = tuple(t.value for t in Termination if t not in OCCASIONAL)
"""Termination reasons every terminations table shows, in this order; others follow where they occur."""


def reasons(found) -> list[str]:
    """The columns of a terminations table: ``TERMINATIONS``, then those of ``found`` beyond them
    (the enum's order, then any other text sorted)."""
    found = set(found)
    known = [t.value for t in Termination]
    return list(TERMINATIONS) + [t for t in known if t in found and t not in TERMINATIONS] + sorted(found - set(known))
STANDINGS_COLUMNS = [
    "games", "wins", "draws", "losses", "score", "score_rate", "win_rate", "elo", "elo_low",
    "elo_high", "nodes_per_move", "nodes_per_second", "depth", "seconds_per_move",
]
UTILITY_COLUMNS = ["utility_per_game", "utility_low", "utility_high"]
"""The standings' mean utility per game and its 95% interval, after ``win_rate``, where utilities tell more
than the results (``utility_per_game``)."""
UNIT_RESULTS = (-1.0, 0.0, 1.0)
"""Utilities that say no more than a win, a draw or a loss."""
UTILITY_NOTE = "utility/game: mean utility per game (poker: chips won) with its 95% interval (±), {units} the units"
"""What the standings' note adds where they show the utility, ``units`` the units of its interval."""
STANDINGS_NOTE = ("Elo with its 95% interval (±); " + UTILITY_NOTE.format(units="colour-swapped pairs")
                  + "; nodes, depth and seconds are per move")
"""The standings' note where they show the utility (without it, ``results.render.NOTES``'s)."""


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


def standings(games: pd.DataFrame, moves: pd.DataFrame, view: View = View(), fitted: Fit | None = None,
              seats: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per bot: results, score and win rates, Elo with its 95% interval, search statistics.

    Wins, draws and losses come from ``score_first`` (1, 0.5, 0) whatever the utility's size.
    Given ``seats`` (``results.load``'s: each seat's utility), the mean utility per game with its
    95% interval too (``UTILITY_COLUMNS``), where the utilities tell more than the results
    (``utility_per_game``): the chips of a game of poker.
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
    utility = None if seats is None else utility_per_game(_utilities(games, seats))
    table = table.reindex(columns=STANDINGS_COLUMNS if utility is None else with_utility(STANDINGS_COLUMNS))
    if utility is not None:
        table[UTILITY_COLUMNS] = utility.reindex(table.index)
    table.index.name = "bot"
    table = _rank(table)
    table.attrs = fitted.attrs()
    if utility is not None:
        table.attrs["note"] = STANDINGS_NOTE
    return table


def with_utility(columns: list[str]) -> list[str]:
    """Standings ``columns`` with ``UTILITY_COLUMNS`` after ``win_rate``."""
    at = columns.index("win_rate") + 1
    return columns[:at] + UTILITY_COLUMNS + columns[at:]


def _utilities(games: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """Two rows per game, as ``_sides``: bot, its stored utility (``seats``'; a seat not stored
    is left out), its points, and its unit (its colour-swapped pair, or the game alone)."""
    stored = seats.drop_duplicates(["game_id", "seat"]).set_index(["game_id", "seat"])["utility"].astype(float)
    unit, ids = units(games), games["game_id"].astype(int).to_numpy()
    score = games["score_first"].astype(float).to_numpy()
    sides = [pd.DataFrame({
        "bot": games[me].astype(str).to_numpy(), "points": points, "unit": unit,
        "utility": stored.reindex(pd.MultiIndex.from_arrays([ids, np.full(len(ids), seat)])).to_numpy(),
    }) for seat, me, points in ((0, "first", score), (1, "second", 1.0 - score))]
    return pd.concat(sides, ignore_index=True).dropna(subset=["utility"])


def utility_per_game(sides: pd.DataFrame) -> pd.DataFrame | None:
    """Per bot of ``sides`` (a row per seat of each game: bot, utility, points, unit: games that
    may be correlated share one), its mean utility per game and the 95% interval (``UTILITY_COLUMNS``).
    None when the utilities tell no more than the results: every one -1, 0 or 1, or its points.

    The interval is cluster-robust, the units the clusters (Cameron and Miller 2015, "A
    practitioner's guide to cluster-robust inference", J. Human Resources 50: CR1 with G - 1
    degrees of freedom): with n games of the bot in G units, the mean's variance is G / (G - 1)
    times the sum over its units of the square of their games' summed deviations from the mean,
    over n squared; the quantile is Student's t on G - 1 degrees of freedom below
    ``results.ratings.SMALL_DF``, the normal one from there on. Fewer than two units: no interval.
    """
    utility = sides["utility"].astype(float)
    if utility.isin(UNIT_RESULTS).all() or utility.eq(sides["points"].astype(float)).all():
        return None
    by_bot = sides.assign(utility=utility).groupby("bot")["utility"]
    mean = by_bot.mean()
    deviation = utility - sides["bot"].map(mean)
    spread = deviation.groupby([sides["bot"], sides["unit"]]).sum().pow(2).groupby(level=0).agg(["sum", "size"])
    clusters = spread["size"]
    half = np.sqrt(spread["sum"] * clusters / (clusters - 1).where(clusters > 1)) / by_bot.size()
    half *= clusters.map(lambda g: interval_quantile(g - 1) if g > 1 else np.nan)
    return pd.DataFrame({"utility_per_game": mean, "utility_low": mean - half, "utility_high": mean + half})


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
    columns = reasons(sides.termination)
    own = sides[~sides.opponent_forfeit]  # the opponent's faults are not this bot's reasons
    order = order or _order(games)
    table = pd.crosstab(own.bot, own.termination).reindex(index=order, columns=columns, fill_value=0)
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


def report(games: pd.DataFrame, moves: pd.DataFrame, view: View = View(),
           seats: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Every report table: standings (with ``seats``, the mean utility per game where it tells more
    than the results: ``standings``), the rating model's parameters, the likelihood of
    superiority of the ``view.top`` best bots (none when 0), crosstable (points), colours and
    terminations, and ``reported`` when a bot's nodes were counted in its own process (the
    standings' nodes are those).

    For scripts (json, csv) also ``payoff`` (every ordered pair's games and mean score) and
    ``cycles`` (``results.cycles``: the 3-cycles and their p-values). Where a cycle is
    significant, people's formats show ``payoff_matrix`` and a line under the standings
    saying that Elo cannot represent it."""
    fitted = fit(games, anchors=view.anchors)
    table = standings(games, moves, view, fitted, seats)
    order = list(table.index)  # one fit for every table, in the standings' order
    found = intransitivity(games, order)
    warning = found.line()
    if warning:
        table.attrs["warning"] = warning
    tables = {
        "standings": table,
        "rating_model": model(fitted),
        **({"superiority": superiority(fitted, view.top)} if view.top else {}),
        "crosstable": crosstable(games, order=order),
        **({"payoff_matrix": _for(found.matrix(order), "people")} if warning else {}),
        "colours": by_colour(games, order),
        "terminations": terminations(games, order),
    }
    if "reported" in moves and moves["reported"].astype(bool).any():
        tables["reported"] = reported(games, moves, order)
    tables["payoff"] = _for(found.payoff, "data")
    tables["cycles"] = _for(found.cycles, "data")
    return tables


def _for(table: pd.DataFrame, audience: str) -> pd.DataFrame:
    """``table`` marked for one audience: "people" (text, markdown, html) or "data" (json, csv)."""
    table.attrs["audience"] = audience
    return table
