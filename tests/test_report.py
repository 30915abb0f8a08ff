"""Report tables, Elo, rendering and plots, on small tournaments built by hand."""

import io
import json
import math
import sys

import numpy as np
import pandas as pd
import pytest

from arena import ArenaError, ParameterError, Termination
from results.report import by_colour, crosstable, elo, render, report, standings, terminations, write

SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def make_games(rows):
    """A games frame (the results contract) from (first, second, result[, termination, loser, utility])."""
    records = []
    for k, (first, second, result, *rest) in enumerate(rows):
        termination = rest[0] if len(rest) > 0 else "normal"
        loser = rest[1] if len(rest) > 1 else None
        utility = rest[2] if len(rest) > 2 else 2 * SCORES[result] - 1
        records.append({
            "tournament": "t", "game_id": k, "pairing": 0, "first": first, "second": second,
            "opening": "", "seed": k, "result": result, "score_first": SCORES[result],
            "utility_first": float(utility), "termination": termination, "loser": loser,
            "message": "", "plies": 0,
        })
    return pd.DataFrame(records).astype({"loser": "Int64"})


def make_moves(rows):
    """A moves frame from (game_id, bot, nodes, seconds, depth or None)."""
    columns = ["tournament", "game_id", "ply", "player", "bot", "move", "nodes", "seconds", "depth", "score"]
    frame = pd.DataFrame(
        [("t", g, k, 0, b, "m", n, s, d, math.nan) for k, (g, b, n, s, d) in enumerate(rows)], columns=columns
    )
    return frame.astype({"depth": "Int64"})


def rounds(first, second, wins, draws=0, losses=0):
    """Results of ``first`` against ``second``, alternating who moves first."""
    results = ["1-0"] * wins + ["1/2-1/2"] * draws + ["0-1"] * losses
    return [(first, second, r) if k % 2 == 0 else (second, first, {"1-0": "0-1", "0-1": "1-0"}.get(r, r))
            for k, r in enumerate(results)]


# Three bots, six games (two per pairing, one with each colour):
#   g0 A-B 1-0 (a double win: utility 2)   g1 B-A draw   g2 A-C 1-0, C (second) timed out
#   g3 C-A 0-1                             g4 B-C 0-1, B (first) made an illegal move
#   g5 C-B draw
# A: W D W W = 3 wins, 1 draw, 0 losses, 3.5 points; B: L D L D = 0/2/2, 1 point;
# C: L L W D = 1/1/2, 1.5 points. Each played 4 games.
SMALL = [
    ("A", "B", "1-0", "normal", None, 2), ("B", "A", "1/2-1/2"), ("A", "C", "1-0", "timeout", 1),
    ("C", "A", "0-1"), ("B", "C", "0-1", "illegal_move", 0), ("C", "B", "1/2-1/2"),
]
# Moves: A 100 + 300 + 200 nodes in 0.5 + 0.5 + 1.0 s at depths 2, 4, 3;
# B 10 + 30 nodes in 0.1 + 0.2 s, no depth; C 4 + 6 nodes in 0.02 + 0.03 s at depth 1.
# Game 99 is not among the finished games: its move is ignored.
SMALL_MOVES = [
    (0, "A", 100, 0.5, 2), (0, "B", 10, 0.1, None), (0, "A", 300, 0.5, 4), (1, "B", 30, 0.2, None),
    (1, "A", 200, 1.0, 3), (3, "C", 4, 0.02, 1), (5, "C", 6, 0.03, 1), (99, "A", 10**6, 1.0, 9),
]


@pytest.fixture
def small():
    return make_games(SMALL), make_moves(SMALL_MOVES)


def test_standings_on_a_small_hand_checked_tournament(small):
    table = standings(*small)
    assert list(table.index) == ["A", "C", "B"]  # a balanced round robin: Elo follows the score
    assert list(table.columns) == [
        "games", "wins", "draws", "losses", "score", "score_rate", "win_rate", "elo", "elo_low",
        "elo_high", "nodes_per_move", "nodes_per_second", "depth", "seconds_per_move",
    ]
    assert table.loc["A", ["games", "wins", "draws", "losses"]].tolist() == [4, 3, 1, 0]
    assert table.loc["C", ["games", "wins", "draws", "losses"]].tolist() == [4, 1, 1, 2]
    assert table.loc["B", ["games", "wins", "draws", "losses"]].tolist() == [4, 0, 2, 2]
    assert table["score"].tolist() == [3.5, 1.5, 1.0]
    assert table["score_rate"].tolist() == [3.5 / 4, 1.5 / 4, 1.0 / 4]
    assert table["win_rate"].tolist() == [3 / 4, 1 / 4, 0.0]
    # nodes per move: A (100+300+200)/3 = 200, C (4+6)/2 = 5, B (10+30)/2 = 20
    assert table["nodes_per_move"].tolist() == pytest.approx([200, 5, 20])
    # nodes per second: A 600/2.0 = 300, C 10/0.05 = 200, B 40/0.3 = 133.3
    assert table["nodes_per_second"].tolist() == pytest.approx([300, 200, 40 / 0.3])
    # depth: A (2+4+3)/3 = 3, C 1, B reports none
    assert table.loc["A", "depth"] == 3 and table.loc["C", "depth"] == 1 and np.isnan(table.loc["B", "depth"])
    assert table["seconds_per_move"].tolist() == pytest.approx([2.0 / 3, 0.025, 0.15])
    assert (table["elo_low"] < table["elo"]).all() and (table["elo"] < table["elo_high"]).all()
    assert table["elo"].sum() == pytest.approx(0, abs=1e-9)


def test_crosstable_on_the_small_tournament(small):
    games, _ = small
    points = crosstable(games)
    # A-B: 1 + 1/2; A-C: 1 + 1; C-B: 1 (B's illegal move) + 1/2
    expected = pd.DataFrame(
        [[np.nan, 2.0, 1.5], [0.0, np.nan, 1.5], [0.5, 0.5, np.nan]],
        index=pd.Index(["A", "C", "B"], name="bot"), columns=["A", "C", "B"],
    )
    pd.testing.assert_frame_equal(points, expected)
    pd.testing.assert_frame_equal(crosstable(games, normalize=True), expected / 2)


def test_colours_on_the_small_tournament(small):
    table = by_colour(small[0])
    # A first: g0 1, g2 1; A second: g1 1/2, g3 1. C first: g3 0, g5 1/2; C second: g2 0, g4 1.
    # B first: g1 1/2, g4 0; B second: g0 0, g5 1/2.
    assert list(table.index) == ["A", "C", "B"]
    assert table.to_dict("index") == {
        "A": dict(first_games=2, first_score=2.0, first_rate=1.0, second_games=2, second_score=1.5, second_rate=0.75),
        "C": dict(first_games=2, first_score=0.5, first_rate=0.25, second_games=2, second_score=1.0, second_rate=0.5),
        "B": dict(first_games=2, first_score=0.5, first_rate=0.25, second_games=2, second_score=0.5, second_rate=0.25),
    }


def test_terminations_on_the_small_tournament(small):
    table = terminations(small[0])
    # every termination the arena records is a column, in the order of arena.Termination, but the clock's and
    # the adjudications', which show only where they occur
    assert list(table.columns) == [
        "normal", "illegal_move", "timeout", "crash", "memory", "output", "protocol", "cpu_ceiling", "forfeits",
        "wins_by_forfeit",
    ]
    assert list(table.columns[:-2]) == [t.value for t in Termination if t.value not in (
        "clock", "draw_adjudication", "resign_adjudication", "max_moves")]
    # g2: C (second) timed out against A; g4: B (first) moved illegally against C.
    # A bot's reason columns count its own faults only; the opponent's count as wins by forfeit.
    assert table.to_dict("index") == {
        "A": dict(normal=3, illegal_move=0, timeout=0, crash=0, memory=0, output=0, protocol=0, cpu_ceiling=0, forfeits=0, wins_by_forfeit=1),
        "C": dict(normal=2, illegal_move=0, timeout=1, crash=0, memory=0, output=0, protocol=0, cpu_ceiling=0, forfeits=1, wins_by_forfeit=1),
        "B": dict(normal=3, illegal_move=1, timeout=0, crash=0, memory=0, output=0, protocol=0, cpu_ceiling=0, forfeits=1, wins_by_forfeit=0),
    }
    reasons = table.drop(columns=["forfeits", "wins_by_forfeit"])
    assert (reasons.sum(axis=1) + table["wins_by_forfeit"]).tolist() == [4, 4, 4]  # every game counted once


def test_a_bot_is_not_charged_with_its_opponents_timeouts():
    # greedy never times out; random times out in 2 games (once as each colour), and loses them
    games = make_games([
        ("greedy", "random", "1-0", "timeout", 1), ("random", "greedy", "0-1", "timeout", 0),
        ("greedy", "random", "1/2-1/2"),
    ])
    table = terminations(games)
    assert table.loc["greedy", "timeout"] == 0 and table.loc["greedy", "wins_by_forfeit"] == 2
    assert table.loc["random", "timeout"] == 2 and table.loc["random", "forfeits"] == 2
    assert table.loc["random", "wins_by_forfeit"] == 0 and table["normal"].tolist() == [1, 1]


def test_terminations_keep_unknown_reasons_as_extra_columns():
    games = make_games([("A", "B", "1/2-1/2", "adjudicated"), ("B", "A", "1-0", "crash", 1)])
    table = terminations(games)
    assert list(table.columns) == [
        "normal", "illegal_move", "timeout", "crash", "memory", "output", "protocol", "cpu_ceiling", "adjudicated",
        "forfeits", "wins_by_forfeit",
    ]
    assert table.loc["A", "adjudicated"] == 1 and table.loc["A", "forfeits"] == 1 and table.loc["B", "forfeits"] == 0
    assert table.loc["B", "adjudicated"] == 1 and table.loc["B", "crash"] == 0 and table.loc["B", "wins_by_forfeit"] == 1


def test_report_has_every_table_and_survives_an_empty_tournament(small):
    assert list(report(*small)) == ["standings", "rating_model", "superiority", "crosstable", "colours", "terminations",
                                    "payoff", "cycles"]
    empty = report(make_games(SMALL).iloc[:0], make_moves(SMALL_MOVES).iloc[:0])
    assert all(t.empty for t in empty.values())
    assert "Standings" in render(empty, "text")


# ---- Elo -------------------------------------------------------------------------------------

def test_mirror_copies_of_one_bot_are_rated_equal():
    # Two copies of a deterministic bot: whoever moves first wins, so each scores exactly 50%
    # against the other; both also score 7/10 against a third bot.
    games = make_games(rounds("copy1", "copy2", 10, 0, 10) + rounds("copy1", "other", 6, 2, 2)
                       + rounds("copy2", "other", 6, 2, 2))
    table = elo(games)
    a, b = table.loc["copy1"], table.loc["copy2"]
    assert a["elo"] - b["elo"] == pytest.approx(0, abs=1e-6)
    assert a["elo_low"] < b["elo"] < a["elo_high"] and b["elo_low"] < a["elo"] < b["elo_high"]
    two = elo(make_games(rounds("copy1", "copy2", 10, 0, 10)))
    assert two["elo"].abs().max() < 1e-6 and (two["elo_low"] < 0).all() and (two["elo_high"] > 0).all()


def test_a_bot_that_wins_every_game_ranks_first_and_clearly():
    games = make_games(
        rounds("best", "b", 10) + rounds("best", "c", 10) + rounds("best", "d", 10)
        + rounds("b", "c", 4, 2, 4) + rounds("b", "d", 6, 0, 4) + rounds("c", "d", 5, 2, 3)
    )
    games = games.assign(opening=[f"o{k}" for k in range(len(games))])  # independent games, not sorted pairs
    table = standings(games, make_moves([]))
    assert table.index[0] == "best" and np.isfinite(table.loc["best", "elo"])
    assert table.loc["best", "elo_low"] > table["elo_high"].iloc[1:].max()


def test_a_75_percent_score_is_190_8_elo():
    # Elo's expected score E = 1 / (1 + 10**(-D/400)) gives D = 400 log10(E / (1 - E));
    # E = 0.75 -> 400 log10(3) = 190.85 (https://en.wikipedia.org/wiki/Elo_rating_system).
    games = make_games(rounds("A", "B", 280, 40, 80))  # 300 of 400 points
    exact = 400 * math.log10(3)
    mle = elo(games, prior=0, pairs=False)
    assert mle.loc["A", "elo"] - mle.loc["B", "elo"] == pytest.approx(exact, abs=1e-6)
    # Its standard error from the information n p (1 - p) (ln 10 / 400)**2 when games are
    # independent coin flips (pairs=False); each rating is half the gap.
    se_gap = 400 / math.log(10) / math.sqrt(400 * 0.75 * 0.25)
    assert mle["se"].tolist() == pytest.approx([se_gap / 2] * 2)
    rated = elo(games)  # the prior's pull is a fraction of an Elo point here
    assert rated.loc["A", "elo"] - rated.loc["B", "elo"] == pytest.approx(exact, abs=1.0)
    assert rated.loc["A", "elo"] == pytest.approx(-rated.loc["B", "elo"])


def test_intervals_shrink_as_games_grow():
    se = [elo(make_games(rounds("A", "B", 3 * n, 0, n)), pairs=False).loc["A", "se"] for n in (5, 20, 80)]
    assert se[0] > se[1] > se[2]
    assert se[0] / se[2] == pytest.approx(4, rel=0.1)  # 16 times the games: a quarter of the error
    table = elo(make_games(rounds("A", "B", 15, 0, 5)), pairs=False)  # no dispersion estimated: the normal quantile
    assert (table["elo_high"] - table["elo"]).tolist() == pytest.approx((1.96 * table["se"]).tolist(), rel=1e-3)


def test_the_prior_is_weak_with_20_games_per_pairing():
    games = make_games(rounds("A", "B", 12, 4, 4) + rounds("A", "C", 15, 2, 3) + rounds("B", "C", 9, 4, 7))
    mle, rated = elo(games, prior=0), elo(games)
    # The MLE's defining equations: every bot's expected score equals its actual score, the
    # first mover's expected score taking the fitted first-move advantage.
    score = standings(games, make_moves([]))["score"]
    expected = {b: 0.0 for b in mle.index}
    advantage = mle.attrs["first_move"]
    for first, second in zip(games["first"], games["second"]):
        p = 1 / (1 + 10 ** (-(mle.loc[first, "elo"] - mle.loc[second, "elo"] + advantage) / 400))
        expected[first] += p
        expected[second] += 1 - p
    assert [expected[b] for b in score.index] == pytest.approx(score.tolist(), abs=1e-6)
    assert ((rated["elo"] - mle["elo"]).abs() < 0.1 * rated["se"]).all()


def test_the_mle_is_refused_when_infinite_and_the_prior_keeps_ratings_finite():
    perfect = make_games(rounds("A", "B", 6))
    apart = make_games(rounds("A", "B", 3, 1, 2) + rounds("C", "D", 2, 1, 3))  # two groups that never meet
    for games in (perfect, apart):
        with pytest.raises(ValueError, match="prior > 0"):
            elo(games, prior=0)
        assert np.isfinite(elo(games)[["elo", "se"]].to_numpy()).all()
    # a perfect score's interval is open on the side the data cannot bound; the others' are not
    table = elo(perfect)
    assert table.loc["A", "elo_high"] == np.inf and np.isfinite(table.loc["A", "elo_low"])
    assert table.loc["B", "elo_low"] == -np.inf and np.isfinite(table.loc["B", "elo_high"])
    assert np.isfinite(elo(apart)[["elo_low", "elo_high"]].to_numpy()).all()


# ---- rendering ---------------------------------------------------------------------------------

def test_text_is_aligned_and_rounded(small):
    text = render(report(*small), "text")
    blocks = text.split("\n\n")
    assert [b.splitlines()[0].split(":")[0] for b in blocks] == [
        "Standings", "Rating model", "Superiority", "Crosstable", "Colours", "Terminations"]
    lines = blocks[0].splitlines()
    assert len({len(line) for line in lines[1:]}) == 1  # header, rule and rows line up
    assert lines[1].split()[:2] == ["bot", "games"] and "±" in lines[1].split()
    row = dict(zip(lines[1].split(), lines[3].split()))
    assert row["bot"] == "A" and row["score%"] == "87.5%" and row["elo"].startswith("+")
    assert row["nodes/s"] == "300" and row["s/move"] == "0.667" and row["score"] == "3.5"
    big = pd.DataFrame({"score": [150.5], "nodes_per_move": [12345.6]}, index=pd.Index(["A"], name="bot"))
    assert render({"big": big}, "text").splitlines()[-1].split() == ["A", "150.5", "12,346"]  # half points kept


def test_csv_parses_back(small):
    tables = report(*small)
    sections = render(tables, "csv").split("\n\n")
    assert len(sections) == 8
    for (name, table), section in zip(tables.items(), sections):
        title, body = section.split("\n", 1)
        assert title == f"# {name}"
        back = pd.read_csv(io.StringIO(body), index_col=0)
        pd.testing.assert_frame_equal(back, table, check_dtype=False, check_names=False)


def test_json_is_one_document_of_records(small):
    document = json.loads(render(report(*small), "json"))
    assert list(document) == ["standings", "rating_model", "superiority", "crosstable", "colours", "terminations",
                              "payoff", "cycles"]
    assert [r["bot"] for r in document["standings"]] == ["A", "C", "B"]
    assert document["standings"][0]["score"] == 3.5 and document["standings"][2]["depth"] is None
    assert document["crosstable"][0] == {"bot": "A", "A": None, "C": 2.0, "B": 1.5}


def test_markdown_has_a_header_and_separator(small):
    lines = render({"standings": standings(*small)}, "markdown").splitlines()
    assert lines[0] == "## Standings" and lines[2].startswith("Elo with its 95% interval")
    assert lines[4].startswith("| bot | games | wins |")
    assert lines[5] == "|:---|" + "---:|" * (lines[4].count("|") - 2)
    assert lines[6].startswith("| A | 4 | 3 | 1 | 0 | 3.5 | 87.5% |")
    assert len(lines) == 9


def test_html_has_tables_and_escapes_names():
    games = make_games([("<b>", "x & y", "1-0")])
    page = render(report(games, make_moves([])), "html")
    assert page.count("<table>") == 6 and page.startswith("<!DOCTYPE html>")
    assert "&lt;b&gt;" in page and "x &amp; y" in page and "<b>" not in page


def test_write_makes_one_file_per_table(small, tmp_path):
    tables = report(*small)
    for fmt, ext in [("text", "txt"), ("csv", "csv"), ("markdown", "md"), ("html", "html")]:
        paths = write(tables, fmt, tmp_path / fmt)
        shown = [name for name in tables if name not in ("payoff", "cycles") or fmt == "csv"]  # those two for scripts
        assert [p.name for p in paths] == [f"{name}.{ext}" for name in shown]
        assert all(p.stat().st_size > 0 for p in paths)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "csv" / "colours.csv", index_col=0), tables["colours"],
                                  check_dtype=False)
    [path] = write(tables, "json", tmp_path / "json" / "nested")
    assert path.name == "report.json" and set(json.loads(path.read_text())) == set(tables)


def test_an_unknown_format_is_a_parameter_error(small, tmp_path):
    with pytest.raises(ParameterError, match="'pdf'.*text, csv, markdown, json, html"):
        render(report(*small), "pdf")
    with pytest.raises(ParameterError):
        write(report(*small), "pdf", tmp_path)
    assert not list(tmp_path.iterdir())


# ---- plots ---------------------------------------------------------------------------------------

def test_plots_are_pngs(small, tmp_path):
    pytest.importorskip("matplotlib")
    from results.plots import plot_all

    paths = plot_all(*small, tmp_path / "plots")
    assert [p.name for p in paths] == ["elo.png", "crosstable.png", "nodes_by_depth.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for p in paths)
    games, moves = small
    no_depths = moves.assign(depth=pd.array([None] * len(moves), dtype="Int64"))
    assert [p.name for p in plot_all(games, no_depths, tmp_path / "bare")] == ["elo.png", "crosstable.png"]


def test_plots_without_matplotlib_say_how_to_get_it(small, tmp_path, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)  # makes the import fail
    from results.plots import plot_all

    with pytest.raises(ArenaError, match=r"^plots need matplotlib: pip install 'botarena\[plots\]'$"):
        plot_all(*small, tmp_path)
