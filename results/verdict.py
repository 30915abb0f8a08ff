"""The HTML report's verdict box of an SPRT run: ``sprt_box`` gives it from the numbers
``arena sprt`` reports (``results.sprt_report.sprt_summary``)."""

from __future__ import annotations

import pandas as pd

from results.sprt_report import PENTANOMIAL, sprt_summary


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
