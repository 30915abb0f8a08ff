"""Parts the HTML report's pages share, whatever the number of seats: the heatmaps' colour
scale, tables with word headers and sort values, the likelihood-of-superiority cells, and the
charts (``results.html_report`` puts them together; ``results.html_seats`` builds the sections
of a game of more than two seats).
"""

from __future__ import annotations

import math

import pandas as pd

from arena.errors import ArenaError
from results.about import About
from results.ratings import Fit, View, superiority
from results.render import _missing, _number

SCALE = ((0.0, (230, 97, 1)), (0.5, (247, 247, 247)), (1.0, (94, 60, 153)))
"""The heatmaps' colour scale, ColorBrewer's PuOr (safe for colour-blind readers): orange
where the row's bot lost everything, light grey at half the points, purple where it won all."""


def colour(rate: float) -> str:
    """The scale's colour at ``rate`` (0..1), as CSS."""
    for (a, ca), (b, cb) in zip(SCALE, SCALE[1:]):
        if rate <= b:
            t = (rate - a) / (b - a)
            return "rgb({},{},{})".format(*(round(x + t * (y - x)) for x, y in zip(ca, cb)))
    return "rgb({},{},{})".format(*SCALE[-1][1])


def sort_value(v):
    """A cell's sort key for the page: a number, or None for a missing one."""
    if _missing(v):
        return None
    value = float(v) if isinstance(v, (int, float)) or hasattr(v, "__float__") else v
    return max(min(value, 1e308), -1e308) if isinstance(value, float) else value  # an open interval sorts last


def table(frame: pd.DataFrame, headers: dict[str, str], label: str = "Bot") -> dict:
    """A table for the template: word headers, and per cell its text and its sort value."""
    frame = frame.copy()
    if {"elo_low", "elo_high"} <= set(frame.columns):
        frame["±"] = (frame["elo_high"] - frame["elo_low"]) / 2
    columns = [c for c in headers if c in frame.columns]
    rows = [
        [(str(name), str(name))] + [(_number(c, frame.at[name, c]), sort_value(frame.at[name, c])) for c in columns]
        for name in frame.index
    ]
    return {"headers": [label] + [headers[c] for c in columns], "rows": rows}


def superiority_cells(fitted: Fit, top: int) -> dict | None:
    """The likelihood-of-superiority matrix of the ``top`` best-rated bots, coloured as the
    heatmaps (any ``Fit`` with a covariance: ``results.ratings``' or ``results.plackett_luce``'s)."""
    if not top or len(fitted.table) < 2:
        return None
    matrix = superiority(fitted, top)
    rows = [{"bot": bot, "cells": [None if math.isnan(p) else {
        "text": f"{100 * p:.1f}%", "colour": colour(p), "dark": abs(p - 0.5) > 0.3} for p in matrix.loc[bot]]}
        for bot in matrix.index]
    return {"order": list(matrix.columns), "rows": rows, "shown": len(matrix), "total": len(fitted.table)}


def charts(games: pd.DataFrame, moves: pd.DataFrame, about: About, view: View,
           seats: pd.DataFrame | None = None) -> tuple[dict, str | None]:
    """The charts as SVG, or (no charts, why not); ``seats``: the seats table of a game of more
    than two seats, whose Elo chart is the Plackett-Luce fit's."""
    from results.plots import svg_charts

    drawn = {"elo": None, "nodes_by_depth": None}
    try:
        return {**drawn, **svg_charts(games, moves, about, view, seats=seats)}, None
    except ArenaError as exc:
        return drawn, f"Charts are not drawn: {exc}."
