"""Parts the HTML report's pages share, whatever the number of seats: the heatmaps' colour
scale, tables with word headers and sort values, the likelihood-of-superiority cells, the
charts, the games list as columns of numbers for the page's script, and which games have a
replay: a sample, and the games lost by a fault (``results.html_report`` puts them together;
``results.html_seats`` builds the sections of a game of more than two seats).
"""

from __future__ import annotations

import json
import math
import random
import shlex
from dataclasses import dataclass
from itertools import zip_longest

import numpy as np
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


# ---- the games list and which of its games the page replays ----------------------------------

SAMPLE = (500, 10_000)
"""The replay sample's size, in games and in plies (whichever is reached first): whole groups
(colour-swapped pairs, rounds) drawn at random, in turn from each pairing. A tournament within
both (the default one: 400 games of Connect Four, about 8,000 plies) has a replay of every game.
Plies bound the time a page takes to draw: a chess board costs python-chess about 1.6 ms."""
FAULT_REPLAYS = (500, 10_000)
"""The most games lost by a fault (and plies) replayed besides the sample: the first by game id."""


@dataclass(frozen=True)
class Replayed:
    """Which games a page replays: a sample and the games lost by a fault."""

    sample: tuple[int, ...]
    """The sample's game ids."""
    faults: tuple[int, ...]
    """The ids of the games lost by a fault that are replayed, in the sample or not."""
    fault_total: int
    """How many games were lost by a fault in all."""
    groups: int
    """How many groups (pairs, rounds) the sample's games make."""

    @property
    def ids(self) -> set[int]:
        return set(self.sample) | set(self.faults)


def replayed(games: pd.DataFrame, groups: list[list[int]], sample: tuple[int, int] = SAMPLE,
             faults: tuple[int, int] = FAULT_REPLAYS) -> Replayed:
    """The games whose replays the page holds: a sample of ``groups`` (``SAMPLE``, in an order
    seeded by a constant, so that the same games give the same page) and the games lost by a
    fault (``FAULT_REPLAYS``)."""
    plies = dict(zip(games["game_id"].astype(int), games["plies"].astype(int)))
    pairing = dict(zip(games["game_id"].astype(int), games["pairing"].astype(int)))
    queues: dict[int, list[list[int]]] = {}
    for group in groups:
        queues.setdefault(pairing[group[0]], []).append(group)
    rng = random.Random("replays")
    for key in sorted(queues):
        rng.shuffle(queues[key])
    turns = [group for layer in zip_longest(*(queues[k] for k in sorted(queues))) for group in layer if group]
    picked, count, length = [], 0, 0
    for group in turns:  # a group of each pairing in turn, up to the first that does not fit
        size = sum(plies[g] for g in group)
        if count + len(group) > sample[0] or length + size > sample[1]:
            break
        picked.append(group)
        count, length = count + len(group), length + size
    lost = games.loc[games["loser"].notna(), ["game_id", "plies"]].sort_values("game_id")
    kept = lost[(lost["plies"].cumsum() <= faults[1]).to_numpy() & (np.arange(len(lost)) < faults[0])]
    return Replayed(tuple(sorted(g for group in picked for g in group)), tuple(int(g) for g in kept["game_id"]),
                    len(lost), len(picked))


def replays_note(chosen: Replayed, total: int, groups: str, database: str | None, tournament: str, chess: bool) -> str:
    """What the page says of its replays: which games have one, and how to see any other.
    ``groups``: what the sample's groups are (colour-swapped pairs, rounds)."""
    db = shlex.quote(database or "DATABASE")
    show = f"arena show {db} ID --tournament {shlex.quote(tournament)}"
    pgn = f"; arena export {db} --pgn FILE writes every game as PGN" if chess else ""
    if len(chosen.ids) == total:
        return f"Every game has its replay here. {show} prints a game's moves and boards in a terminal{pgn}."
    faults = (f"every game lost by a fault ({chosen.fault_total:,})" if len(chosen.faults) == chosen.fault_total
              else f"the first {len(chosen.faults):,} by game id of the {chosen.fault_total:,} games lost by a fault")
    return (f"{len(chosen.ids):,} of the {total:,} games have their replay here (the Replay filter lists them): "
            f"a sample of {len(chosen.sample):,} games ({chosen.groups:,} {groups} drawn at random, in turn from "
            f"each pairing) and {faults}. Any other game: {show} prints its moves and boards{pgn}.")


def listing(games: pd.DataFrame, groups: list[list[int]], seats: pd.DataFrame) -> dict:
    """The games list as the page's script reads it: columns of numbers, in listing order.

    ``seats``: the bots of each game in seat order (indexed by game id, a column per seat).
    Texts (bots, results, endings, openings, messages) are numbers into ``text``; ``seats``
    holds ``players`` numbers a game (-1: no bot stored); ``loser`` is the seat that lost by
    its fault (-1: none); ``groups`` the index of each group's first game.
    """
    order = [g for group in groups for g in group]
    rows = games.set_index("game_id").loc[order]
    bots = seats.reindex(order)
    columns = {"result": rows["result"], "termination": rows["termination"], "opening": rows["opening"],
               "message": rows["message"]}
    cells = bots.to_numpy(dtype=object).ravel()  # row by row: a game's seats in turn
    present = pd.notna(cells)
    texts = pd.concat([*columns.values(), pd.Series(cells[present])], ignore_index=True).astype(str)
    codes, uniques = pd.factorize(texts)
    coded, at = {}, 0
    for name, column in columns.items():
        coded[name] = codes[at:at + len(column)].tolist()
        at += len(column)
    seated = np.full(len(cells), -1, dtype=np.int64)
    seated[present] = codes[at:]
    return {
        "players": bots.shape[1], "text": [str(t) for t in uniques], "id": [int(g) for g in order],
        "seats": seated.tolist(), **coded, "loser": rows["loser"].fillna(-1).astype(int).tolist(),
        "plies": rows["plies"].astype(int).tolist(), "groups": np.cumsum([0] + [len(g) for g in groups[:-1]]).tolist(),
    }


def packed_replays(game, games: pd.DataFrame, moves: pd.DataFrame, ids: set[int], seats: pd.DataFrame | None = None
                   ) -> dict[int, str]:
    """Each game of ``ids``' packed replay (``results.replay``); ``seats``: the bots in seat order
    of a game of more than two seats (as ``listing`` takes them)."""
    from results.replay import pack, replay

    rows = games[games["game_id"].isin(ids)].sort_values("game_id").to_dict("records")
    grouped: dict[int, list[dict]] = {}
    for move in moves[moves["game_id"].isin(ids)].sort_values(["game_id", "ply"]).to_dict("records"):
        grouped.setdefault(int(move["game_id"]), []).append(move)
    out = {}
    for row in rows:
        gid, bots = int(row["game_id"]), None
        if seats is not None:
            bots = [b for b in seats.loc[gid] if isinstance(b, str)] if gid in seats.index else []
        out[gid] = pack(replay(game, row, grouped.get(gid, []), bots))
    return out


def script_json(data) -> str:
    """``data`` as compact JSON that may stand inside a ``<script>`` element (marked safe for Jinja2)."""
    from markupsafe import Markup  # Jinja2's: the page needs it already

    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))
