"""Game pairs and the SPRT verdict of a stored tournament.

Schedules play every opening twice with colours swapped (``arena.front.tournament``): a
pair is two games of the same two bots and opening, each bot first once. ``sprt_box``
gives the verdict box of an SPRT run (tournament format "sprt") from the numbers
``arena sprt`` reports.
"""

from __future__ import annotations

import pandas as pd

from results.sprt_report import PENTANOMIAL, sprt_summary


def game_pairs(games: pd.DataFrame) -> tuple[list[tuple[int, int]], list[int]]:
    """(pairs of game ids, ids of games whose partner is not stored), in game id order.

    Games of one pair of bots and one opening are matched in id order, each with the first
    later game in which the colours are swapped.
    """
    pairs, waiting = [], {}
    for gid, first, second, opening in games[["game_id", "first", "second", "opening"]].sort_values(
        "game_id"
    ).itertuples(index=False):
        partners = waiting.get((second, first, opening))
        if partners:
            pairs.append((partners.pop(0), int(gid)))
        else:
            waiting.setdefault((first, second, opening), []).append(int(gid))
    unpaired = sorted(g for ids in waiting.values() for g in ids)
    return sorted(pairs), unpaired


def sprt_box(games: pd.DataFrame, config: dict | None) -> dict | None:
    """The HTML report's verdict box of an SPRT run, None for other formats.

    The numbers are ``results.sprt_report.sprt_summary``'s, so the page, ``arena sprt`` and
    ``arena report`` count the same pairs (in pair order, up to the pair that decided) and
    agree on the verdict.
    """
    if not config or config.get("format") != "sprt":
        return None
    s = sprt_summary(games, config)
    state = {"H1": "accepted", "H0": "rejected", "inconclusive": "inconclusive", None: "running"}[s["verdict"]]
    counts = tuple(s[k] for k in PENTANOMIAL)
    return {
        "state": state, "candidate": s["new"], "llr": f"{s['llr']:.2f}",
        "lower": f"{s['lower']:.2f}", "upper": f"{s['upper']:.2f}", "counts": counts,
        "pairs": s["pairs"], "unpaired": s["uncounted_games"],
        "hypotheses": f"H0: {s['elo0']:g} against H1: {s['elo1']:g} ({s['model']} Elo), "
        f"alpha {s['alpha']:g}, beta {s['beta']:g}",
    }
