"""Game pairs and the SPRT verdict of a stored tournament.

Schedules play every opening twice with colours swapped (``arena.front.tournament``): a
pair is two games of the same two bots and opening, each bot first once. ``sprt_verdict``
counts the pairs of an SPRT run (tournament format "sprt") into pentanomial counts and
asks ``results.sprt`` for the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from results.sprt import SPRT, Status, pentanomial

SPRT_SETTINGS = ("elo0", "elo1", "alpha", "beta", "model")
"""The keys of an SPRT run's settings, at the top of its stored config or under "sprt"."""


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


@dataclass(frozen=True)
class Verdict:
    """Where an SPRT run stands."""

    test: SPRT
    """The hypotheses and error rates."""
    candidate: str
    """The bot under test (the counts are its results)."""
    status: Status
    """Verdict, LLR and bounds."""
    counts: tuple[int, int, int, int, int]
    """Pentanomial counts of the candidate's pairs: (LL, LD, WL+DD, WD, WW)."""
    unpaired: int
    """Finished games of the candidate whose partner is not finished (not counted)."""
    finished: bool
    """All scheduled games are played."""

    @property
    def state(self) -> str:
        """"accepted" (H1), "rejected" (H0), "running" (play on) or "inconclusive" (no games left)."""
        if self.status.verdict is not None:
            return "accepted" if self.status.verdict == "H1" else "rejected"
        return "inconclusive" if self.finished else "running"


def sprt_test(config: dict) -> SPRT | None:
    """The test of a stored tournament's config, None unless its format is "sprt"."""
    if config.get("format") != "sprt":
        return None
    source = config["sprt"] if isinstance(config.get("sprt"), dict) else config
    return SPRT(**{k: source[k] for k in SPRT_SETTINGS if source.get(k) is not None})


def sprt_verdict(games: pd.DataFrame, config: dict, finished: bool) -> Verdict | None:
    """The verdict of an SPRT run from its stored games and config; None for other formats.

    The candidate is the first challenger if the config names any, else the first bot;
    each of its finished pairs counts by the points it scored in the two games.
    """
    test = sprt_test(config)
    if test is None:
        return None
    names = list(config.get("challengers") or []) or [b["name"] for b in config.get("bots", ())]
    candidate = names[0]
    points = dict(zip(games["game_id"].astype(int), games["score_first"].astype(float)))
    firsts = dict(zip(games["game_id"].astype(int), games["first"]))
    pairs, unpaired = game_pairs(games)

    def scored(gid: int) -> float:
        return points[gid] if firsts[gid] == candidate else 1.0 - points[gid]

    mine = [(a, b) for a, b in pairs if candidate in (firsts[a], firsts[b])]
    counts = pentanomial(scored(a) + scored(b) for a, b in mine)
    played = set(games.loc[(games["first"] == candidate) | (games["second"] == candidate), "game_id"].astype(int))
    return Verdict(test, candidate, test.status(counts), counts, len(played & set(unpaired)), finished)
