"""Luck and cycles: the payoff matrix and the 3-cycles Elo cannot show (results.cycles), the
reports' word on how far the bots of a game with hidden information were kept from it, and a
pair's games dealt the same cards seat by seat.

The cycle test's power and false positives are measured on simulated tournaments (seeded;
``python tests/test_cycles.py`` prints them over more simulations): rock-paper-scissors-like
bots that each beat the next with probability 0.7, Bradley-Terry strengths (transitive), and
the least favourable transitive null (two edges certain, the third a coin flip).
"""

import json
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest

import results
from arena import Bot, Model, View, param, play_game
from arena.front.cli import main
from arena.dice import seed_key
from games.rps import RockPaperScissors
from results.about import About
from results.cycles import ALPHA, edges, cycles, intransitivity
from results.report import render, report
from results.sprt_report import game_pairs
from results.store import Store
from test_report import make_games, make_moves

TOLERANCE = 0.02
"""Rates over 1,000 simulations: a binomial's sd at 5% is 0.0069, so 0.02 is about 3 sd."""


# ---- simulated tournaments ----------------------------------------------------------------------

def simulate(rng, mean, pairs=100, draws=0.0, agree=None):
    """Games among ``len(mean)`` bots, ``pairs`` colour-swapped pairs per two bots: bot i's
    score against j has mean ``mean[i][j]``, a ``draws`` share of its games drawn; ``agree``:
    instead, at a mean of 1/2, the share of pairs whose two games one bot wins both (half
    each way; the rest split). Returns first, second, score and unit arrays."""
    first, second, score, unit = [], [], [], []
    size = len(mean)
    for i in range(size):
        for j in range(i + 1, size):
            if agree is not None:
                kind = rng.choice(3, size=pairs, p=[agree / 2, agree / 2, 1 - agree])  # i both, j both, split
                x = np.stack([np.where(kind == 0, 1.0, np.where(kind == 1, 0.0, 1.0)),
                              np.where(kind == 0, 1.0, np.where(kind == 1, 0.0, 0.0))], axis=1)
            else:
                win = mean[i][j] - draws / 2
                u = rng.random((pairs, 2))
                x = np.where(u < win, 1.0, np.where(u < win + draws, 0.5, 0.0))  # bot i's scores
            base = sum(len(ids) for ids in unit)
            first.append(np.tile([i, j], pairs))
            second.append(np.tile([j, i], pairs))
            score.append(np.stack([x[:, 0], 1.0 - x[:, 1]], axis=1).ravel())  # the first mover's
            unit.append(base + np.arange(2 * pairs) // 2)
    return tuple(np.concatenate(parts) for parts in (first, second, score, unit))


def flag_rate(mean, runs, seed, **options) -> float:
    """The share of ``runs`` simulated tournaments in which some cycle is flagged significant."""
    rng = np.random.default_rng(seed)
    flagged = 0
    for _ in range(runs):
        first, second, score, unit = simulate(rng, mean, **options)
        found, _ = cycles(edges(first, second, score, unit, len(mean)))
        flagged += any(c[5] for c in found)
    return flagged / runs


def cyclic(p: float):
    """Three bots, each scoring ``p`` against the next: 0 beats 1, 1 beats 2, 2 beats 0."""
    return [[0.5, p, 1 - p], [1 - p, 0.5, p], [p, 1 - p, 0.5]]


def bradley_terry(elo):
    return [[1 / (1 + 10 ** ((b - a) / 400)) for b in elo] for a in elo]


LEAST_FAVOURABLE = [[0.5, 0.9, 0.5], [0.1, 0.5, 0.9], [0.5, 0.1, 0.5]]
"""Transitive at the boundary: 0 beats 1 and 1 beats 2 nine times in ten, 2 against 0 a coin flip."""


def test_a_three_cycle_of_07_is_flagged_with_power_near_1_at_200_games_a_pair():
    assert flag_rate(cyclic(0.7), runs=300, seed=1) >= 0.98


@pytest.mark.parametrize("elo, draws", [([0, 0, 0], 0.0), ([0, 0, 0], 0.3), ([0, 40, 80], 0.2), ([0, 0, 0, 0, 0], 0.0)],
                         ids=["equal", "equal, draws", "close, draws", "five equal"])
def test_transitive_strengths_are_flagged_at_most_alpha_of_the_time(elo, draws):
    runs = 1000 if len(elo) == 3 else 300
    assert flag_rate(bradley_terry(elo), runs=runs, seed=2, draws=draws) <= ALPHA + TOLERANCE


def test_at_the_least_favourable_null_holm_holds_the_rate_near_alpha_over_the_two_orientations():
    # a false flag needs the coin-flip edge 2 > 0 significant at alpha / 2 (Holm over the two
    # orientations of the one trio): about 2.5%; without the correction it would be 5%
    rate = flag_rate(LEAST_FAVOURABLE, runs=1000, seed=3)
    assert ALPHA / 2 - 0.015 <= rate <= ALPHA / 2 + 0.015


def edge_levels(runs, seed, agree=0.8) -> tuple[float, float]:
    """How often an edge between equal bots is found above 1/2 at ``ALPHA``, one-sided, when
    ``agree`` of the pairs go one bot's way twice: by the pair test, and counting games as
    independent coin flips."""
    rng = np.random.default_rng(seed)
    ours = naive = 0
    for _ in range(runs):
        first, second, score, unit = simulate(rng, [[0.5, 0.5], [0.5, 0.5]], agree=agree)
        ours += edges(first, second, score, unit, 2).p[0, 1] <= ALPHA
        mine = np.where(first == 0, score, 1 - score)
        z = (mine.sum() - len(mine) / 2) / math.sqrt(len(mine) / 4)
        naive += 0.5 * math.erfc(z / math.sqrt(2)) <= ALPHA
    return ours / runs, naive / runs


def test_pairs_are_the_units_so_correlated_pairs_keep_the_level_where_counting_games_would_not():
    ours, naive = edge_levels(1000, seed=4)
    assert abs(ours - ALPHA) <= TOLERANCE and naive >= ALPHA + 0.025


# ---- the tables, on games checked by hand -------------------------------------------------------

def test_edges_and_cycles_on_hand_checked_games():
    # A-B two pairs: A scores 1+1 and 1+0.5 (residuals 1 and 0.5); B-C one pair, B 1+1; C-A one pair, C 1+0.5
    rows = [("A", "B", "1-0"), ("B", "A", "0-1"), ("A", "B", "1-0"), ("B", "A", "1/2-1/2"),
            ("B", "C", "1-0"), ("C", "B", "0-1"), ("C", "A", "1-0"), ("A", "C", "1/2-1/2")]
    found = intransitivity(make_games(rows), ["A", "B", "C"])
    payoff = found.payoff.reset_index().set_index(["bot", "opponent"])
    assert payoff.loc[("A", "B"), "games"] == 4 and payoff.loc[("A", "B"), "score_rate"] == 0.875
    z = 1.5 / math.sqrt(1 + 0.25)
    assert payoff.loc[("A", "B"), "p"] == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)))
    assert payoff.loc[("B", "A"), "p"] == pytest.approx(1 - payoff.loc[("A", "B"), "p"])
    assert payoff.loc[("B", "C"), "p"] == pytest.approx(0.5 * math.erfc(1 / math.sqrt(2)))  # one pair: z = 1
    assert payoff.loc[("C", "A"), "score_rate"] == 0.75
    (text, row), = found.cycles.iterrows()
    assert text == "A > B > C > A" and found.family == 2
    assert row.p == pytest.approx(max(row.p_ab, row.p_bc, row.p_ca)) and row.p_holm == pytest.approx(2 * row.p)
    assert not row.significant and found.line() is None
    assert found.matrix(["A", "B", "C"]).loc["C", "A"] == 0.75


def test_a_cycle_is_listed_once_and_holm_counts_every_trio_that_met():
    # four bots, all met: 0 > 1 > 2 > 0 strongly, 3 loses to all
    rng = np.random.default_rng(5)
    mean = [[0.5, 0.9, 0.1, 0.9], [0.1, 0.5, 0.9, 0.9], [0.9, 0.1, 0.5, 0.9], [0.1, 0.1, 0.1, 0.5]]
    found, family = cycles(edges(*simulate(rng, mean, pairs=20), 4))
    assert family == 8 and [c[:3] for c in found] == [(0, 1, 2)] and found[0][5]
    assert found[0][4] == pytest.approx(min(1.0, 8 * found[0][3]))


# ---- the report --------------------------------------------------------------------------------

class Leaning(Bot):
    """Throws its sign ``lean`` of the time, the other two equally often."""

    name = "leaning"
    description = "a Rock-Paper-Scissors bot with a favourite sign"
    handles = frozenset({"simultaneous"})
    sign: str = param("R", "its favourite sign")
    lean: float = param(0.7, "how often it throws it")

    def choose(self, game, view: View, budget):
        others = [s for s in view.legal if s != self.sign]
        return self.sign if self.rng.random() < self.lean else self.rng.choice(others)


@pytest.fixture(scope="module")
def rps_games():
    """Matches of 15 throws between bots leaning to rock, paper and scissors: 40 a pair."""
    game = RockPaperScissors(throws=15)
    records = []
    names = {"rock": "R", "paper": "P", "scissors": "S"}
    for a, b in (("rock", "paper"), ("paper", "scissors"), ("scissors", "rock")):
        for k in range(40):
            seated = (a, b) if k % 2 == 0 else (b, a)
            bots = [Leaning(sign=names[n]) for n in seated]
            records.append(play_game(game, bots, names=seated, seed=k // 2, trusted=True))
    return results.frames(records, tournament="rps")


def test_the_text_report_says_beside_the_elo_that_results_are_not_transitive(rps_games):
    tables = report(rps_games.games, rps_games.moves)
    text = render(tables, "text", rps_games.about)
    standings, rest = text.split("Results are not transitive: ", 1)
    assert "Standings" in standings and "Rating model" not in standings  # right under the Elo table
    assert re.match(r"(paper > rock > scissors > paper|rock > scissors > paper > rock|scissors > paper > rock > "
                    r"scissors) \(scores \d+%, \d+%, \d+%; p = ", rest), rest
    assert "Elo, a transitive model, cannot represent a cycle" in " ".join(rest.split())
    assert "Payoff matrix: mean score in %" in text and "40 games a pair" in " ".join(text.split())
    assert all(len(line) <= 100 for line in text.splitlines())
    document = json.loads(render(tables, "json", rps_games.about))
    (cycle,) = document["cycles"]
    assert cycle["significant"] is True and cycle["p_holm"] <= ALPHA and cycle["p"] == max(cycle[f"p_{e}"] for e in ("ab", "bc", "ca"))
    assert len(document["payoff"]) == 6 and "payoff_matrix" not in document
    assert "Payoff:" not in text and "Cycles:" not in text  # the tables for scripts


def test_transitive_results_say_nothing_in_text_and_give_the_payoff_in_json():
    games = make_games([("A", "B", "1-0"), ("B", "A", "0-1"), ("B", "C", "1-0"), ("C", "B", "0-1"),
                        ("A", "C", "1-0"), ("C", "A", "0-1")])
    tables = report(games, make_moves([]))
    text = render(tables, "text")
    assert "transitive" not in text and "Payoff" not in text and "Cycles" not in text
    document = json.loads(render(tables, "json"))
    assert document["cycles"] == [] and {r["opponent"] for r in document["payoff"] if r["bot"] == "A"} == {"B", "C"}


# ---- how far the bots were kept from what the game hides -----------------------------------------

def _about(game: str, model: Model | None, **config) -> About:
    row = SimpleNamespace(name="t", game=game, config={"isolate": True, **config}, scheduled=2, seed=0,
                          started=None, version=None)
    return About.from_store(row, 2, keyed=True, model=model)


def test_reports_say_what_an_unsandboxed_or_trusted_run_guarantees_of_hidden_information():
    cards = Model(chance=True, hidden=True)
    isolated = _about("cards", cards)
    assert isolated.isolation == "isolated" and isolated.notes()[0].startswith("NOT SANDBOXED: ")
    note = " ".join(" ".join(isolated.lines()).split())
    assert "could read and write files (the results database, notes of earlier games)" in note
    assert "against accidents, not attacks; run with --sandbox" in note
    assert isolated.fields()["notes"] == isolated.notes()
    assert _about("cards", cards, sandbox=True).notes() == []
    trusted = _about("cards", cards, isolate=False, trusted=True)
    assert trusted.notes()[0].startswith("TRUSTED: the bots ran in the referee's own process")
    assert "could read everything" in trusted.notes()[0]
    throws = _about("rps", Model(simultaneous=True), isolate=False, trusted=True)
    assert "the other seats' choices of a turn" in throws.notes()[0] and throws.chance is None
    assert _about("rps", Model(simultaneous=True)).notes() == []  # isolated: a throw reaches no other bot
    assert _about("dice", Model(chance=True)).notes() == [] and "notes" not in _about("dice", Model(chance=True)).fields()
    assert _about("unknown", None).notes() == []  # a game not installed here: nothing claimed


def test_a_stored_kuhn_tournament_is_looked_up_in_the_registry_and_its_report_headed(tmp_path):
    db = tmp_path / "k.db"
    with Store(db) as store:
        t = store.open_tournament("k", "kuhn_poker", {"game": "kuhn_poker", "isolate": True}, 0, 2, "0")
        store.chance_key(t)
    about = results.load(db).about
    assert about.hidden is True and about.chance == "duplicate" and about.isolation == "isolated"
    head = render({}, "text", about).splitlines()
    assert head[1].startswith("PARTIAL") and head[3].startswith("NOT SANDBOXED: each bot ran in a process of its own")


# ---- a pair's games get the same cards seat by seat ------------------------------------------

def _deals(db):
    """The pairs of game ids, each game's chance plies (its deal), and the games by id."""
    tables = results.load(db)
    chance = tables.moves[tables.moves["player"] == -1]
    deals = chance.groupby("game_id")["move"].apply(tuple).to_dict()
    pairs, unpaired = game_pairs(tables.games)
    assert not unpaired
    return pairs, deals, tables.games.set_index("game_id")


@pytest.mark.parametrize("independent", [False, True], ids=["duplicate", "independent"])
def test_the_two_games_of_a_kuhn_pair_deal_the_same_cards_to_the_same_seats(tmp_path, capsys, monkeypatch, independent):
    monkeypatch.setattr("results.store.new_key", lambda: seed_key(29))  # a run's secret is random; fixed here
    db = tmp_path / "kuhn.db"
    argv = ["run", "--game", "kuhn_poker", "--bot", "a=uniform", "--bot", "b=uniform", "--games", "12",
            "--openings", "0", "--no-isolation", "--trusted", "--jobs", "1", "--no-progress", "--db", str(db)]
    assert main(argv + (["--independent-chance"] if independent else [])) == 0
    capsys.readouterr()
    pairs, deals, games = _deals(db)
    assert len(pairs) == 6
    for x, y in pairs:
        assert (games.at[x, "first"], games.at[x, "second"]) == (games.at[y, "second"], games.at[y, "first"])
        assert len(deals[x]) == len(deals[y]) == 2  # the deal: seat 0's card, then seat 1's
    same = [deals[x] == deals[y] for x, y in pairs]
    if independent:
        assert not all(same)  # the control: every game its own deal
    else:
        assert all(same) and len({deals[x] for x, _ in pairs}) > 1


if __name__ == "__main__":
    runs = 5000
    print(f"power, 3-cycle of 0.7, 200 games a pair: {flag_rate(cyclic(0.7), runs, 11):.4f}")
    for games in (40, 60, 100):
        print(f"power, 3-cycle of 0.7, {games} games a pair: {flag_rate(cyclic(0.7), runs, 12, pairs=games // 2):.4f}")
    for elo, draws in (([0, 0, 0], 0.0), ([0, 0, 0], 0.3), ([0, 40, 80], 0.2)):
        print(f"false positives, Bradley-Terry {elo}, draws {draws}: {flag_rate(bradley_terry(elo), runs, 13, draws=draws):.4f}")
    print(f"false positives, least favourable null: {flag_rate(LEAST_FAVOURABLE, runs, 14):.4f}")
    print(f"false positives, Bradley-Terry five equal bots: {flag_rate(bradley_terry([0] * 5), runs, 15):.4f}")
    ours, naive = edge_levels(runs, 16)
    print(f"one edge at 1/2, 80% of pairs won twice by one bot: pair test {ours:.4f}, games as coin flips {naive:.4f}")


def test_the_html_page_flags_the_cycle_under_its_standings(rps_games):
    from results.html_report import check_jinja, html

    try:
        check_jinja()
    except Exception as exc:
        pytest.skip(str(exc))
    page = html(rps_games, RockPaperScissors(throws=15))
    standings = page.split('<section id="standings">', 1)[1].split("</section>", 1)[0]
    assert "Results are not transitive: " in standings and "cannot represent a cycle" in standings
