"""Report tables for one tournament: standings with Elo, crosstable, colours, terminations.

Every function is pure: it takes the ``games`` and ``moves`` DataFrames of one tournament
(columns as in ``results.load``) and returns a DataFrame indexed by bot display name, in
standings order (Elo descending, then score). ``render`` and ``write`` turn tables into text.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from arena.errors import ParameterError
from arena.records import Termination

K = math.log(10) / 400
"""Elo's logistic scale: P(i beats j) = 1 / (1 + 10**(-(r_i - r_j) / 400)) = sigmoid(K * (r_i - r_j))."""
Z95 = 1.959964
"""Standard normal quantile for a two-sided 95% interval."""
TERMINATIONS = tuple(t.value for t in Termination)
"""Termination reasons every terminations table shows, in this order; others follow sorted."""
FORMATS = {"text": "txt", "csv": "csv", "markdown": "md", "json": "json", "html": "html"}
"""Output formats and the file extension ``write`` gives each."""
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
    x = played["score_first"].to_numpy(float)
    n = np.zeros((len(bots), len(bots)))
    s = np.zeros_like(n)
    np.add.at(n, (i, j), 1.0)
    np.add.at(n, (j, i), 1.0)
    np.add.at(s, (i, j), x)
    np.add.at(s, (j, i), 1.0 - x)
    return bots, n, s


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
        step = np.linalg.pinv(_information(theta, n, prior)) @ gradient
        t = 1.0
        while (new := _log_posterior(theta + t * step, n, s, prior)) < value and t > 1e-6:
            t /= 2
        theta, value = theta + t * step, new
        if np.abs(t * step).max(initial=0.0) < 1e-10:
            return theta
    raise ValueError("Elo fit did not converge")


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
    """Two rows per game, one per seat: bot, opponent, seat (0 first), score, termination, forfeit."""
    score = games["score_first"].astype(float)
    loser = games["loser"].astype("Int64")
    seats = []
    for seat, me, other, points in ((0, "first", "second", score), (1, "second", "first", 1 - score)):
        seats.append(pd.DataFrame({
            "bot": games[me].astype(str), "opponent": games[other].astype(str), "seat": seat,
            "score": points, "termination": games["termination"].astype(str),
            "forfeit": loser.eq(seat).fillna(False).astype(bool),
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
    """Per bot: how many of its games ended for each reason, and ``forfeits``: games it lost by forfeit."""
    sides = _sides(games)
    reasons = list(TERMINATIONS) + sorted(set(sides.termination) - set(TERMINATIONS))
    table = pd.crosstab(sides.bot, sides.termination).reindex(index=_order(games), columns=reasons, fill_value=0)
    table["forfeits"] = sides.groupby("bot")["forfeit"].sum().reindex(table.index, fill_value=0)
    table = table.astype(int)
    table.index.name, table.columns.name = "bot", None
    return table


def report(games: pd.DataFrame, moves: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every report table: standings, crosstable (points), colours and terminations."""
    return {
        "standings": standings(games, moves),
        "crosstable": crosstable(games),
        "colours": by_colour(games),
        "terminations": terminations(games),
    }


# ---- rendering ----------------------------------------------------------------------------

def _number(column: str, value) -> str:
    """One cell for people: Elo as signed integers, rates as percentages, counts with commas."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return str(value)
    if column == "elo":
        return f"{value:+.0f}"
    if column in ("±", "elo_low", "elo_high", "se"):
        return f"{value:.0f}"
    if column.endswith("rate"):
        return f"{100 * value:.1f}%"
    if float(value).is_integer():
        return f"{value:,.0f}"
    if float(2 * value).is_integer():  # half points
        return f"{value:,.1f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    text = f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def _display(table: pd.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, rows of cell strings, and which columns are numeric (right-aligned).

    An Elo interval (``elo_low``, ``elo_high``) becomes one ``±`` column: its half-width.
    """
    table = table.copy()
    if {"elo", "elo_low", "elo_high"} <= set(table.columns):
        half = (table["elo_high"] - table["elo_low"]) / 2
        table.insert(table.columns.get_loc("elo") + 1, "±", half)
        table = table.drop(columns=["elo_low", "elo_high"])
    columns = [str(c) for c in table.columns]
    header = [str(table.index.name or "")] + columns
    rows = [
        [str(label)] + [_number(c, v) for c, v in zip(columns, values)]
        for label, values in zip(table.index, table.itertuples(index=False))
    ]
    numeric = [False] + [pd.api.types.is_numeric_dtype(t) for t in table.dtypes]
    return header, rows, numeric


def _title(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _text(name: str, table: pd.DataFrame) -> str:
    header, rows, numeric = _display(table)
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]

    def line(cells):
        return "  ".join(c.rjust(w) if right else c.ljust(w) for c, w, right in zip(cells, widths, numeric)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([_title(name), line(header), rule, *map(line, rows)]) + "\n"


def _markdown(name: str, table: pd.DataFrame) -> str:
    header, rows, numeric = _display(table)

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if right else ":---" for right in numeric) + "|"
    return "\n".join([f"## {_title(name)}", "", line(header), rule, *map(line, rows)]) + "\n"


def _html(name: str, table: pd.DataFrame) -> str:
    header, rows, numeric = _display(table)

    def cells(tag, values):
        return "".join(
            f'<{tag}{" class=num" if right else ""}>{html.escape(v)}</{tag}>' for v, right in zip(values, numeric)
        )

    body = "\n".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return (f"<h2>{html.escape(_title(name))}</h2>\n<table>\n<thead><tr>{cells('th', header)}</tr></thead>\n"
            f"<tbody>\n{body}\n</tbody>\n</table>\n")


def _records(table: pd.DataFrame) -> list[dict]:
    return json.loads(table.reset_index().to_json(orient="records"))


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ParameterError(f"unknown report format {fmt!r}; choose from {', '.join(FORMATS)}")


def render(tables: dict[str, pd.DataFrame], fmt: str = "text") -> str:
    """The tables as one string in ``fmt``: text, csv, markdown, json or html.

    text, markdown and html are for people (rounded, Elo as ``elo`` and ``±``, rates as
    percentages); csv (tables separated by a blank line, each after a ``# name`` line) and json
    (``{name: [record, ...]}``) keep the raw numbers.
    """
    _check(fmt)
    if fmt == "json":
        return json.dumps({name: _records(t) for name, t in tables.items()}, indent=2) + "\n"
    if fmt == "csv":
        return "\n".join(f"# {name}\n{t.to_csv()}" for name, t in tables.items())
    if fmt == "html":
        parts = "\n".join(_html(name, t) for name, t in tables.items())
        return ("<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>botarena report</title>\n"
                "<style>table{border-collapse:collapse}td,th{padding:2px 8px}.num{text-align:right}</style>\n"
                f"</head>\n<body>\n{parts}</body>\n</html>\n")
    one = _text if fmt == "text" else _markdown
    return "\n".join(one(name, t) for name, t in tables.items())


def write(tables: dict[str, pd.DataFrame], fmt: str, out_dir: str | Path) -> list[Path]:
    """Write the tables into ``out_dir`` (created): one file per table, or report.json; returns the paths."""
    _check(fmt)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "json":
        items = [(out / "report.json", render(tables, fmt))]
    elif fmt == "csv":  # plain CSV files, without the ``# name`` line
        items = [(out / f"{name}.csv", t.to_csv()) for name, t in tables.items()]
    else:
        items = [(out / f"{name}.{FORMATS[fmt]}", render({name: t}, fmt)) for name, t in tables.items()]
    for path, text in items:
        path.write_text(text, encoding="utf-8")
    return [path for path, _ in items]
