"""Report tables for one tournament: standings with Elo, crosstable, colours, terminations.

Every function is pure: it takes the ``games`` and ``moves`` DataFrames of one tournament
(columns as in ``results.load``) and returns a DataFrame indexed by bot display name, in
standings order (Elo descending, then score). ``render`` and ``write`` (``results.render``)
turn tables into text or files, headed by ``About``: which tournament they describe.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from arena.records import Termination
from results.about import About, Entry
from results.render import FORMATS, render, write, write_file

__all__ = [
    "About", "Entry", "FORMATS", "by_colour", "crosstable", "elo", "render", "reported", "report", "standings",
    "terminations", "write", "write_file",
]

K = math.log(10) / 400
"""Elo's logistic scale: P(i beats j) = 1 / (1 + 10**(-(r_i - r_j) / 400)) = sigmoid(K * (r_i - r_j))."""
Z95 = 1.959964
"""Standard normal quantile for a two-sided 95% interval."""
TERMINATIONS = tuple(t.value for t in Termination)
"""Termination reasons every terminations table shows, in this order; others follow sorted."""
STANDINGS_COLUMNS = [
    "games", "wins", "draws", "losses", "score", "score_rate", "win_rate", "elo", "elo_low",
    "elo_high", "nodes_per_move", "nodes_per_second", "depth", "seconds_per_move",
]


# ---- Elo: a joint Bradley-Terry fit -------------------------------------------------------

def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow for large |x|


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _pairs(games: pd.DataFrame):
    """Bots (sorted), games played and points scored: n[i, j] games of i against j, s[i, j] points of i."""
    bots = sorted(set(games["first"]) | set(games["second"]))
    index = {b: k for k, b in enumerate(bots)}
    played = games[games["first"] != games["second"]]  # a game against oneself says nothing
    i = played["first"].map(index).to_numpy(int)
    j = played["second"].map(index).to_numpy(int)
    return (bots, *tallies(i, j, played["score_first"].to_numpy(float), len(bots)))


def tallies(i: np.ndarray, j: np.ndarray, x: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Games and points of ``size`` bots from games of bot i[k] (first) against j[k] scoring
    x[k]: n[a, b] games of a against b, s[a, b] points of a (the input of ``ratings``)."""
    n = np.zeros((size, size))
    s = np.zeros_like(n)
    np.add.at(n, (i, j), 1.0)
    np.add.at(n, (j, i), 1.0)
    np.add.at(s, (i, j), x)
    np.add.at(s, (j, i), 1.0 - x)
    return n, s


def _log_posterior(theta, n, s, prior):
    d = theta[:, None] - theta[None, :]
    virtual = 0.5 * (_log_sigmoid(theta) + _log_sigmoid(-theta))  # one drawn game against 0
    return float((s * _log_sigmoid(d)).sum() + prior * virtual.sum())


def _information(theta, n, prior):
    """Observed information: the Hessian of the negative log-posterior."""
    p = _sigmoid(theta[:, None] - theta[None, :])
    w = n * p * (1 - p)
    p0 = _sigmoid(theta)
    return np.diag(w.sum(axis=1) + prior * p0 * (1 - p0)) - w


def _mle_exists(s) -> bool:
    """Ford's condition: every bot reaches every other along "scored points against" links."""
    reach = (s > 0) | np.eye(len(s), dtype=bool)
    for _ in range(len(s).bit_length()):
        reach = (reach.astype(int) @ reach.astype(int)) > 0
    return bool(reach.all())


def _fit(n, s, prior):
    """Newton's method with step halving on the log-posterior, in natural units (Elo * K)."""
    if prior <= 0 and not _mle_exists(s):
        raise ValueError("no finite maximum-likelihood Elo: some bots scored all or none of the points "
                         "against the others; use prior > 0")
    theta = np.zeros(len(n))
    value = _log_posterior(theta, n, s, prior)
    for _ in range(200):
        p = _sigmoid(theta[:, None] - theta[None, :])
        gradient = s.sum(axis=1) - (n * p).sum(axis=1) + prior * (0.5 - _sigmoid(theta))
        information = _information(theta, n, prior)
        # with a prior the information is positive definite: a solve, several times faster than pinv's SVD
        step = np.linalg.solve(information, gradient) if prior > 0 else np.linalg.pinv(information) @ gradient
        t = 1.0
        while (new := _log_posterior(theta + t * step, n, s, prior)) < value and t > 1e-6:
            t /= 2
        theta, value = theta + t * step, new
        if np.abs(t * step).max(initial=0.0) < 1e-10:
            return theta
    raise ValueError("Elo fit did not converge")


def ratings(n: np.ndarray, s: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """The Elo of ``elo`` without intervals, from the games played (``n[i, j]``) and points
    scored (``s[i, j]``) of each bot against each other: for a caller that refits often."""
    theta = _fit(n, s, prior)
    return (theta - theta.mean()) / K


def elo(games: pd.DataFrame, prior: float = 1.0) -> pd.DataFrame:
    """Elo ratings from a joint Bradley-Terry fit of all games (draws count half a point).

    Maximises the log-posterior of the observed scores with P(i beats j) = 1 / (1 +
    10**(-(r_i - r_j) / 400)). Prior: each bot plays ``prior`` virtual drawn games (half a
    point each way) against a virtual opponent rated 0. This keeps a perfect or zero score
    finite, weighs like one real game, and moves a bot's expected score at most ``prior / 2``
    points from its real one, so with 20+ games per pairing the ratings stay well inside the
    intervals around the maximum-likelihood ones. ``prior=0`` gives the plain maximum
    likelihood (ValueError when it is infinite). Ratings are shifted to mean 0; ``se`` comes
    from the inverse observed information projected onto that mean-zero constraint, and
    ``elo_low``/``elo_high`` = elo -/+ 1.96 se.
    """
    bots, n, s = _pairs(games)
    if not bots:
        return pd.DataFrame(columns=["elo", "elo_low", "elo_high", "se"], index=pd.Index([], name="bot"), dtype=float)
    theta = _fit(n, s, prior)
    centre = np.eye(len(bots)) - 1.0 / len(bots)
    cov = centre @ np.linalg.pinv(_information(theta, n, prior)) @ centre
    rating = centre @ theta / K
    se = np.sqrt(np.clip(np.diag(cov), 0, None)) / K
    return pd.DataFrame(
        {"elo": rating, "elo_low": rating - Z95 * se, "elo_high": rating + Z95 * se, "se": se},
        index=pd.Index(bots, name="bot"),
    )


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


def standings(games: pd.DataFrame, moves: pd.DataFrame) -> pd.DataFrame:
    """One row per bot: results, score and win rates, Elo with its 95% interval, search statistics.

    Wins, draws and losses come from ``score_first`` (1, 0.5, 0) whatever the utility's size.
    Search statistics use the bot's moves in these games: mean nodes, depth (over moves that
    report one) and seconds per move; nodes per second is total nodes / total seconds.
    """
    sides = _sides(games)
    sides = sides.assign(wins=sides.score == 1, draws=sides.score == 0.5, losses=sides.score == 0)
    by_bot = sides.groupby("bot")
    table = by_bot[["wins", "draws", "losses"]].sum().astype(int)
    table.insert(0, "games", by_bot.size())
    table["score"] = by_bot["score"].sum()
    table["score_rate"] = table["score"] / table["games"]
    table["win_rate"] = table["wins"] / table["games"]
    table = table.join(elo(games)[["elo", "elo_low", "elo_high"]])
    played = moves[moves["game_id"].isin(games["game_id"])]
    played = played.assign(depth=played["depth"].astype("Float64").astype(float))
    per_move = played.groupby("bot")
    seconds = per_move["seconds"].sum()
    table = table.join(pd.DataFrame({
        "nodes_per_move": per_move["nodes"].mean(),
        "nodes_per_second": per_move["nodes"].sum() / seconds.where(seconds > 0),
        "depth": per_move["depth"].mean(),
        "seconds_per_move": per_move["seconds"].mean(),
    }))
    table = table.reindex(columns=STANDINGS_COLUMNS)
    table.index.name = "bot"
    return _rank(table)


def crosstable(games: pd.DataFrame, normalize: bool = False) -> pd.DataFrame:
    """Points of the row bot against the column bot (``normalize``: its score rate); diagonal NaN."""
    order = _order(games)
    sides = _sides(games)
    sides = sides[sides.bot != sides.opponent]
    grouped = sides.groupby(["bot", "opponent"])["score"]
    cells = grouped.mean() if normalize else grouped.sum()
    table = cells.unstack().reindex(index=order, columns=order).astype(float)
    table.index.name, table.columns.name = "bot", None
    return table


def by_colour(games: pd.DataFrame) -> pd.DataFrame:
    """Per bot: games, points and score rate as first mover and as second mover."""
    sides = _sides(games)
    table = pd.DataFrame(index=pd.Index(_order(games), name="bot"))
    for seat, name in ((0, "first"), (1, "second")):
        grouped = sides[sides.seat == seat].groupby("bot")["score"]
        table[f"{name}_games"] = grouped.size().reindex(table.index, fill_value=0).astype(int)
        table[f"{name}_score"] = grouped.sum().reindex(table.index, fill_value=0.0)
        table[f"{name}_rate"] = table[f"{name}_score"] / table[f"{name}_games"].where(table[f"{name}_games"] > 0)
    return table


def terminations(games: pd.DataFrame) -> pd.DataFrame:
    """Per bot: why its games ended, its own faults apart from its opponents'.

    A reason column counts the bot's games that ended for it without a fault ("normal") or by
    the bot's own fault ("timeout": its own timeouts, each a game it lost); ``forfeits`` is
    the total of its own faults, and ``wins_by_forfeit`` counts games it won by its
    opponent's fault. The reason columns and ``wins_by_forfeit`` add up to its games.
    """
    sides = _sides(games)
    reasons = list(TERMINATIONS) + sorted(set(sides.termination) - set(TERMINATIONS))
    own = sides[~sides.opponent_forfeit]  # the opponent's faults are not this bot's reasons
    order = _order(games)
    table = pd.crosstab(own.bot, own.termination).reindex(index=order, columns=reasons, fill_value=0)
    by_bot = sides.groupby("bot")
    table["forfeits"] = by_bot["forfeit"].sum().reindex(table.index, fill_value=0)
    table["wins_by_forfeit"] = by_bot["opponent_forfeit"].sum().reindex(table.index, fill_value=0)
    table = table.astype(int)
    table.index.name, table.columns.name = "bot", None
    return table


def reported(games: pd.DataFrame, moves: pd.DataFrame) -> pd.DataFrame:
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
    table = table.reindex([b for b in _order(games) if b in table.index])
    table.index.name = "bot"
    return table


def report(games: pd.DataFrame, moves: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every report table: standings, crosstable (points), colours and terminations, and
    ``reported`` when a bot's nodes were counted in its own process (the standings' nodes are those)."""
    tables = {
        "standings": standings(games, moves),
        "crosstable": crosstable(games),
        "colours": by_colour(games),
        "terminations": terminations(games),
    }
    if "reported" in moves and moves["reported"].astype(bool).any():
        tables["reported"] = reported(games, moves)
    return tables
