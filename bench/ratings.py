"""Do the Elo table's 95% intervals hold the truth? Simulated tournaments with known strengths.

Each scenario draws ``--tournaments`` tournaments of bots with known Elo, plays every game from
a model (draws at a set rate, openings that favour one side shared by the two games of a
colour-swapped pair, a first-move advantage), fits them with ``--fit`` (default
``results.ratings.ratings``) and counts how often each bot's interval holds its true rating. The
truth is what an endless balanced schedule would give: each pairing's expected score averaged
over openings and colours, fitted without noise and centred as the fit centres (mean 0).

Printed per scenario: the share of intervals that hold the truth (with its Monte Carlo standard
error, from the spread of the per-tournament shares), and the mean reported se over the real
spread of the estimates around the truth (1.00: honest; above: too wide).

    PYTHONPATH=. python bench/ratings.py [--tournaments 2000] [--seed 1] [--scenarios NAME ...]
        [--fit results.ratings:ratings] [--spread 150]
"""

from __future__ import annotations

import argparse
import importlib
import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from results.ratings import strengths as fitted

#: Gauss-Hermite nodes and weights for averaging over a normal opening bias.
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(41)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class Scenario:
    """How one scenario's tournaments are made."""

    name: str
    bots: int = 8
    pairs: int = 10
    """Colour-swapped pairs of games a pairing (each with an opening of its own)."""
    draws: float = 0.0
    """Share of games drawn where the expected score allows it (the score's mean is kept)."""
    opening_sd: float = 0.0
    """Elo that a pair's opening gives the side to move first, normal with this sd."""
    first_move: float = 0.0
    """Elo the first player gains in every game."""
    sparse: float = 1.0
    """Chance that a pairing is played at all (its pairs then as given)."""
    spread: float = 150.0
    """sd of the bots' strengths, in Elo."""
    draw_spread: float = 0.0
    """Each bot's own draw rate is uniform in ``draws`` +/- this; a game's is its two bots' mean."""


SCENARIOS = {s.name: s for s in (
    Scenario("independent"),
    Scenario("draws-40", draws=0.4),
    Scenario("draws-70", draws=0.7),
    Scenario("first-move-50-draws-40", first_move=50.0, draws=0.4),
    Scenario("openings-100", opening_sd=100.0),
    Scenario("openings-200-draws-40", opening_sd=200.0, draws=0.4),
    Scenario("openings-400-draws-40", opening_sd=400.0, draws=0.4),
    Scenario("sparse", bots=16, pairs=1, sparse=8 / 15),
    Scenario("sparse-draws-40", bots=16, pairs=1, sparse=8 / 15, draws=0.4),
    Scenario("draws-0-to-80-by-bot", draws=0.4, draw_spread=0.4),
)}


def expected(d):
    """Expected score of a side ``d`` Elo stronger."""
    return 1.0 / (1.0 + 10.0 ** (-d / 400.0))


def truth(strengths: np.ndarray, scenario: Scenario) -> np.ndarray:
    """The ratings an endless balanced schedule would give (mean 0): the fit of each ordered
    pairing's expected score, averaged over the opening's favour to the first mover."""
    k = len(strengths)
    diff = strengths[:, None] - strengths[None, :]
    bias = scenario.opening_sd * _NODES
    first = (expected(diff[..., None] + scenario.first_move + bias) * _WEIGHTS).sum(-1)
    i, j = np.nonzero(~np.eye(k, dtype=bool))
    return fitted(i, j, first[i, j], k, prior=0.0)


def tournament(strengths: np.ndarray, scenario: Scenario, rng: np.random.Generator) -> pd.DataFrame:
    """One tournament's games table as stored (game_id, pairing, first, second, opening, score_first)."""
    names = [f"b{k:02d}" for k in range(len(strengths))]
    drawish = scenario.draws + scenario.draw_spread * rng.uniform(-1.0, 1.0, len(strengths))
    rows = []
    pairing = 0
    for i in range(len(strengths)):
        for j in range(i + 1, len(strengths)):
            if scenario.sparse < 1 and rng.random() >= scenario.sparse:
                continue
            for p in range(scenario.pairs):
                bias = rng.normal(0.0, scenario.opening_sd) if scenario.opening_sd else 0.0
                for first, second in ((i, j), (j, i)):
                    e = expected(strengths[first] - strengths[second] + scenario.first_move + bias)
                    draw = min((drawish[i] + drawish[j]) / 2, 2 * e, 2 * (1 - e))  # keeps the expected score e
                    u = rng.random()
                    score = 1.0 if u < e - draw / 2 else 0.5 if u < e + draw / 2 else 0.0
                    rows.append((len(rows), pairing, names[first], names[second], f"o{p}", score))
            pairing += 1
    return pd.DataFrame(rows, columns=["game_id", "pairing", "first", "second", "opening", "score_first"])


def measure(scenario: Scenario, fit, count: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    shares, errors, ses = [], [], []
    for _ in range(count):
        strengths = rng.normal(0.0, scenario.spread, scenario.bots)
        true = pd.Series(truth(strengths, scenario), index=[f"b{k:02d}" for k in range(scenario.bots)])
        table = fit(tournament(strengths, scenario, rng))
        true = true.loc[table.index]
        if len(table) < scenario.bots:  # a sparse schedule left a bot out: its truth is another field's
            true = true - true.mean()
        held = (table["elo_low"] <= true) & (true <= table["elo_high"])
        shares.append(held.mean())
        errors.extend(table["elo"] - true)
        ses.extend(table["se"])
    shares = np.array(shares)
    return {
        "scenario": scenario.name, "tournaments": count,
        "holds": shares.mean(), "holds_mc_se": shares.std(ddof=1) / np.sqrt(count),
        "se_over_spread": np.mean(ses) / np.sqrt(np.mean(np.square(errors))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tournaments", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenarios", nargs="+", choices=sorted(SCENARIOS), default=list(SCENARIOS))
    parser.add_argument("--fit", default="results.ratings:ratings", help="module:function taking a games table")
    parser.add_argument("--spread", type=float, default=150.0, help="sd of the bots' strengths in Elo (default 150)")
    args = parser.parse_args()
    module, _, name = args.fit.partition(":")
    fit = getattr(importlib.import_module(module), name)
    print(f"fit {args.fit}, {args.tournaments} tournaments a scenario, seed {args.seed}, strengths sd {args.spread:g}")
    print(f"{'scenario':24} {'holds':>7} {'± mc se':>8} {'se / spread':>12} {'seconds':>8}")
    for key in args.scenarios:
        start = time.perf_counter()
        r = measure(replace(SCENARIOS[key], spread=args.spread), fit, args.tournaments, args.seed)
        print(f"{r['scenario']:24} {r['holds']:7.1%} {r['holds_mc_se']:8.1%} {r['se_over_spread']:12.2f} "
              f"{time.perf_counter() - start:8.1f}")
    print(f"\nrerun: PYTHONPATH=. python bench/ratings.py --tournaments {args.tournaments} --seed {args.seed}"
          f" --fit {args.fit} --spread {args.spread:g}")


if __name__ == "__main__":
    main()
