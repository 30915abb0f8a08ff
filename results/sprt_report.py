"""An SPRT run's verdict and numbers, and pair statistics of any tournament, from the games.

A pair is two games from one opening with colours swapped. ``PairWalk`` counts an SPRT's
pairs in pair order, over the contiguous prefix of finished pairs only, and stops at the
first pair whose LLR crosses a bound: the verdict and counts depend on the games' results,
never on which game finished first. The runner (``arena sprt``) and the report use it
alike, so both say the same. ``sprt_summary`` gives every number of a stored SPRT as a
plain dict (the HTML report's verdict box reads it), ``summary_lines`` the text, and
``game_pairs`` the pairs of any tournament's games and ``pair_table`` the pentanomial
counts and Elo of each pairing.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

from results import sprt as stats
from results.sprt_stopped import stopped_elo, stopped_nelo

if TYPE_CHECKING:
    import pandas as pd

PENTANOMIAL = ("LL", "LD", "WL+DD", "WD", "WW")
"""Names of the pair counts, lowest score first."""
RESULTS = {"H1": "H1 accepted", "H0": "H0 accepted", "inconclusive": "inconclusive", None: "not decided yet"}
"""The verdict in words."""


class PairWalk:
    """An SPRT's counts, pair by pair in pair order, up to the first pair that decides it.

    Game ``2p`` (new moves first) and ``2p + 1`` (base moves first) make pair ``p``. Games may
    be added in any order; a pair counts once it and every pair before it are finished, and
    none counts after the LLR crosses a bound or after ``max_pairs``.
    """

    def __init__(self, test: stats.SPRT, new: str, max_pairs: int):
        self.test, self.new, self.max_pairs = test, new, max_pairs
        self.scores: dict[int, float] = {}
        """New's points in each finished game, by game id."""
        self.counts = [0, 0, 0, 0, 0]
        self.trinomial = [0, 0, 0]
        """(L, D, W) of new over the counted games."""
        self.pairs = 0
        """Pairs counted."""
        self.status = test.status(self.counts)

    @property
    def decided(self) -> bool:
        return self.status.verdict is not None

    @property
    def verdict(self) -> str | None:
        """"H1", "H0", "inconclusive" (every pair counted, no bound crossed), or None (to play on)."""
        if self.status.verdict is not None:
            return self.status.verdict
        return "inconclusive" if self.pairs >= self.max_pairs else None

    @property
    def over(self) -> bool:
        return self.verdict is not None

    def add(self, game_id: int, first: str, score_first: float) -> int:
        """Take one finished game; return how many pairs it made count."""
        self.scores[game_id] = score_first if first == self.new else 1.0 - score_first
        before = self.pairs
        while not self.over and 2 * self.pairs in self.scores and 2 * self.pairs + 1 in self.scores:
            a, b = self.scores[2 * self.pairs], self.scores[2 * self.pairs + 1]
            self.counts[int(round(2 * (a + b)))] += 1
            for points in (a, b):
                self.trinomial[int(round(2 * points))] += 1
            self.pairs += 1
            self.status = self.test.status(self.counts)
        return self.pairs - before


def past_verdict(walk: PairWalk, in_flight: int) -> str:
    """What a run says, once its test has decided, of the games after the deciding pair: those
    finished already (in parallel with the pairs before it) and the ``in_flight`` ones it is still
    finishing. The report counts the same games, once stored (``summary_lines``); "" if there are none."""
    finished = len(walk.scores) - 2 * walk.pairs
    if not finished + in_flight:
        return ""
    parts = []
    if finished:
        parts.append(f"{finished:,} finished")
    if in_flight:
        parts.append(f"{in_flight:,} in flight, finishing now")
    return (f"{finished + in_flight:,} more games, after the deciding pair, do not count ({', '.join(parts)}): "
            "they are stored but do not change the verdict")


def test_of(config: dict) -> stats.SPRT:
    """The test a stored SPRT tournament's config records."""
    s = config["sprt"]
    return stats.SPRT(s["elo0"], s["elo1"], s["alpha"], s["beta"], s["model"])


def walk(games: "pd.DataFrame", config: dict) -> PairWalk:
    """The walk over a stored SPRT tournament's games (``results.load(...).games``)."""
    new = config["bots"][0]["name"]
    out = PairWalk(test_of(config), new, config["games_per_pairing"] // 2)
    for game_id, first, score in zip(games["game_id"], games["first"], games["score_first"]):
        out.add(int(game_id), first, float(score))
    return out


def summary(state: PairWalk, stored: int | None = None, base: str = "") -> dict:
    """Every number of an SPRT as plain values (see ``sprt_summary``)."""
    test, counts = state.test, tuple(state.counts)
    status = state.status
    bound = status.upper if status.llr >= 0 else status.lower
    fixed_elo, fixed_nelo = stats.elo(counts), stats.nelo(counts)
    corrected = status.verdict is not None  # a bound crossed; at max games the fixed sample stands
    if corrected:
        elo, nelo = stopped_elo(counts, test), stopped_nelo(counts, test)
    else:
        elo, nelo = fixed_elo, fixed_nelo
    losses, draws, wins = state.trinomial
    games = 2 * state.pairs
    out = {
        "new": state.new, "base": base,
        "verdict": state.verdict, "result": RESULTS[state.verdict],
        "llr": status.llr, "llr_share": status.llr / bound, "lower": status.lower, "upper": status.upper,
        "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta, "model": test.model,
        "games": games, "pairs": state.pairs, "max_games": 2 * state.max_pairs,
        "wins": wins, "draws": draws, "losses": losses,
        **dict(zip(PENTANOMIAL, counts)),
        **_prefixed("elo", elo), **_prefixed("nelo", nelo),
        "elo_corrected": corrected,
        **_prefixed("fixed_elo", fixed_elo), **_prefixed("fixed_nelo", fixed_nelo),
        "los": stats.los(counts),
        "draw_rate": draws / games if games else 0.0, "pair_draw_rate": stats.draw_rate(counts),
    }
    out["stored_games"] = games if stored is None else stored
    out["uncounted_games"] = out["stored_games"] - games
    return out


def _prefixed(name: str, interval: stats.Interval) -> dict:
    """``name``, ``name_low``, ``name_high`` and ``name_error`` of an interval."""
    return {name: interval.value, f"{name}_low": interval.low, f"{name}_high": interval.high,
            f"{name}_error": interval.error}


def sprt_summary(games: "pd.DataFrame", config: dict) -> dict:
    """The verdict and numbers of a stored SPRT tournament, as a plain dict.

    ``games`` is ``results.load(...).games``, ``config`` the tournament's stored config
    (``Tables.about`` does not hold the test; ``results.store.Store.tournament(name).config``
    does). Keys: new, base (display names); verdict ("H1", "H0", "inconclusive" or None while
    undecided) and result (in words); llr, llr_share (the LLR over the bound on its side: 1.0
    or more once crossed), lower, upper; elo0, elo1, alpha, beta, model; games, pairs (counted),
    max_games; wins, draws, losses (new's, over the counted games); LL, LD, WL+DD, WD, WW;
    elo, elo_low, elo_high, elo_error (logistic, from the pairs), nelo, nelo_low, nelo_high,
    nelo_error: once a bound is crossed (H0 or H1), corrected for the stopping rule
    (``results.sprt_stopped``), else the fixed-sample figures; elo_corrected (True when they
    are corrected); fixed_elo, fixed_elo_low, fixed_elo_high, fixed_elo_error, fixed_nelo,
    fixed_nelo_low, fixed_nelo_high, fixed_nelo_error (the fixed-sample figures, always:
    ``results.sprt.elo`` and ``nelo``); los (0 to 1); draw_rate (drawn games), pair_draw_rate
    (pairs scoring 1-1);
    stored_games, uncounted_games (stored but not counted: after the deciding pair, or waiting
    for a pair before them).
    """
    return summary(walk(games, config), len(games), config["bots"][1]["name"])


def _role(name: str, role: str) -> str:
    """``name (role)``, or the name alone where it says the role already."""
    return name if name == role else f"{name} ({role})"


def summary_lines(s: dict) -> list[str]:
    """An SPRT summary (``sprt_summary``) for people."""
    inf = math.inf
    better = {"H1": f" ({s['new']} is better)", "H0": f" ({s['new']} is not better)"}.get(s["verdict"], "")
    side = "upper" if s["llr"] >= 0 else "lower"

    def interval(value, low, high):
        if low == -inf and high == inf:
            return "- (no pairs yet)"
        value, low, high = (round(x, 1) + 0.0 for x in (value, low, high))  # no "-0.0"
        return f"{value:+.1f} +/- {(high - low) / 2:.1f} (95%: {low:+.1f} to {high:+.1f})"

    lines = [
        f"SPRT {_role(s['new'], 'new')} against {_role(s['base'], 'base')}: {s['result']}{better}",
        f"LLR {s['llr']:.2f} ({100 * s['llr_share']:.1f}% of the {side} bound); bounds {s['lower']:.2f}, {s['upper']:.2f}",
        f"Elo bounds [{s['elo0']:g}, {s['elo1']:g}] in {s['model']} Elo; alpha {s['alpha']:g}, beta {s['beta']:g}",
        f"Games {s['games']:,} ({s['pairs']:,} pairs; at most {s['max_games']:,}): "
        f"W {s['wins']} D {s['draws']} L {s['losses']} ({s['new']}'s)",
        "Pentanomial [LL, LD, WL+DD, WD, WW]: [" + ", ".join(str(s[k]) for k in PENTANOMIAL) + "]",
        *_elo_lines(s, interval),
        f"LOS {100 * s['los']:.2f}%; draw rate {100 * s['draw_rate']:.1f}% of games, "
        f"{100 * s['pair_draw_rate']:.1f}% of pairs scoring 1-1",
    ]
    if s["uncounted_games"] and s["verdict"] is None:
        lines.append(f"{s['uncounted_games']:,} more stored games wait for the pairs before them to finish")
    elif s["uncounted_games"]:
        lines.append(
            f"{s['uncounted_games']:,} more stored games, after the deciding pair, do not count: played in "
            "parallel with the pairs before it, they are stored but do not change the verdict"
        )
    return lines


def _elo_lines(s: dict, interval) -> list[str]:
    """Elo and nElo: corrected for the stopping rule once a bound is crossed, with the fixed-sample
    figures after them; the fixed-sample figures alone, so labelled, before that."""
    fixed = [f"Elo {interval(s['fixed_elo'], s['fixed_elo_low'], s['fixed_elo_high'])}",
             f"nElo {interval(s['fixed_nelo'], s['fixed_nelo_low'], s['fixed_nelo_high'])}"]
    if not s["elo_corrected"]:
        return [f"{line}, fixed-sample" for line in fixed] if s["pairs"] else fixed
    return [
        f"Elo {interval(s['elo'], s['elo_low'], s['elo_high'])}, corrected for the stopping rule",
        f"nElo {interval(s['nelo'], s['nelo_low'], s['nelo_high'])}, corrected for the stopping rule",
        *(f"{line}, fixed-sample (biased by the stop)" for line in fixed),
    ]


def game_pairs(games: "pd.DataFrame") -> tuple[list[tuple[int, int]], list[int]]:
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


def pair_table(games: "pd.DataFrame") -> "pd.DataFrame":
    """Per pairing: its games paired as ``game_pairs`` pairs them, their pentanomial counts and Elo.

    Counts and Elo are the row bot's (the one moving first in the pairing's first game);
    ``unpaired`` counts games without a partner (a tournament cut short).
    """
    import pandas as pd

    pairs, unpaired = game_pairs(games)
    ids = games["game_id"].astype(int)
    first, pairing = dict(zip(ids, games["first"])), dict(zip(ids, games["pairing"]))
    score = dict(zip(ids, games["score_first"].astype(float)))
    bots = games.sort_values("game_id").groupby("pairing", sort=True)[["first", "second"]].first()
    counts = {p: [0] * 5 for p in bots.index}
    for pair in pairs:
        p = pairing[pair[0]]
        a = bots.at[p, "first"]
        points = sum(score[g] if first[g] == a else 1.0 - score[g] for g in pair)
        counts[p][int(round(2 * points))] += 1
    left = Counter(pairing[g] for g in unpaired)
    rows = []
    for p, (a, b) in bots.iterrows():
        elo = stats.elo(counts[p])
        rows.append({
            "bot": a, "opponent": b, "pairs": sum(counts[p]), **dict(zip(PENTANOMIAL, counts[p])),
            "elo": elo.value, "elo_low": elo.low, "elo_high": elo.high, "unpaired": left[p],
        })
    columns = ["bot", "opponent", "pairs", *PENTANOMIAL, "elo", "elo_low", "elo_high", "unpaired"]
    table = pd.DataFrame(rows, columns=columns).set_index("bot")
    return table.replace([math.inf, -math.inf], math.nan)
