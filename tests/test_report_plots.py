"""The charts: each headed by its tournament; the depth chart shows search cost, not the budget."""

import math

import numpy as np
import pandas as pd
import pytest

import results
from results.about import About, Entry

pytest.importorskip("matplotlib", reason="the plots extra (matplotlib) is not installed")

from matplotlib.figure import Figure  # noqa: E402

from results.plots import plot_all  # noqa: E402


@pytest.fixture
def figures(monkeypatch):
    """Every figure saved, by file name."""
    saved = {}
    save = Figure.savefig

    def keep(self, path, *args, **kwargs):
        saved[str(path).rsplit("/", 1)[-1]] = self
        return save(self, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return saved


def _games(pairs):
    rows = [{"tournament": "t", "game_id": k, "pairing": 0, "first": a, "second": b, "opening": "", "seed": k,
             "result": "1-0", "score_first": 1.0, "utility_first": 1.0, "termination": "normal", "loser": None,
             "message": "", "plies": 4} for k, (a, b) in enumerate(pairs)]
    return pd.DataFrame(rows).astype({"loser": "Int64"})


def _moves(rows):
    columns = ["tournament", "game_id", "ply", "player", "bot", "move", "nodes", "seconds", "depth", "score"]
    frame = pd.DataFrame([("t", 0, k, 0, b, "m", n, 0.01, d, math.nan) for k, (b, n, d) in enumerate(rows)],
                         columns=columns)
    return frame.astype({"depth": "Int64"})


# deep (node budget 100): depth 1 costs 10 and 30 (median 20), depth 2 costs 50, no move completes
# depth 3, depth 4 costs 90; three moves use the whole budget (at depths 2, 4, 4) and tell only the budget.
# flat has no budget and searches depth 1 with 5 nodes; blind reports no depth.
MOVES = [("deep", 10, 1), ("deep", 30, 1), ("deep", 50, 2), ("deep", 90, 4), ("deep", 100, 2),
         ("deep", 100, 4), ("deep", 100, 4), ("flat", 5, 1), ("flat", 5, 1), ("blind", 1, None)]
ABOUT = About("cost", "tictactoe", (Entry("deep", "iterative", "nodes=100"), Entry("flat", "greedy", "none"),
                                    Entry("blind", "random", "nodes=100")), 3, 10, "round-robin", (), 2, 0, 3,
              "2026-01-02T03:04:05+00:00", "0.1.0")


def test_the_depth_chart_shows_search_cost_with_counts_gaps_and_the_budget(tmp_path, figures):
    games = _games([("deep", "flat"), ("flat", "blind"), ("blind", "deep")])
    paths = plot_all(games, _moves(MOVES), tmp_path, ABOUT)
    assert [p.name for p in paths] == ["elo.png", "crosstable.png", "nodes_by_depth.png"]
    ax = figures["nodes_by_depth.png"].axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    deep = next(line for label, line in lines.items() if label.startswith("deep"))
    assert deep.get_label() == "deep (3 of 7 moves stopped by the budget: x)"
    x, y = deep.get_xdata(), deep.get_ydata()
    assert list(x) == [1, 2, 3, 4]
    assert y[0] == 20 and y[1] == 50 and np.isnan(y[2]) and y[3] == 90  # depth 3: a gap, not a join
    assert list(lines["flat"].get_ydata()) == [5]
    assert "blind: no depth reported" in lines
    budget = [line for line in ax.get_lines() if list(line.get_ydata()) == [100, 100]]
    assert len(budget) == 1  # one horizontal line at the node budget
    notes = {t.get_text() for t in ax.texts}
    assert {"2", "1", "node budget 100"} <= notes  # sample counts: 2 moves at depth 1, the stopped ones
    stopped = [c.get_offsets().tolist() for c in ax.collections]
    assert sorted(p for group in stopped for p in group) == [[2, 100], [4, 100]]


def test_every_chart_is_headed_by_the_tournament(tmp_path, figures):
    games = _games([("deep", "flat"), ("flat", "blind"), ("blind", "deep")])
    plot_all(games, _moves(MOVES), tmp_path, ABOUT)
    assert set(figures) == {"elo.png", "crosstable.png", "nodes_by_depth.png"}
    for name, figure in figures.items():
        title = figure._suptitle.get_text().replace("\n  ", " ")
        for item in ["Tournament 'cost': tictactoe, 3 of 10 games (partial)", "round-robin, 2 games per pairing",
                     "no random openings, seed 3", "started 2026-01-02 03:04 UTC, botarena 0.1.0",
                     "deep=iterative@nodes=100, flat=greedy@none, blind=random@nodes=100"]:
            assert item in title, (name, item, title)


def test_charts_of_a_stored_tournament_name_it(tmp_path, figures):
    from report_data import config, store_tournament

    db = tmp_path / "t.db"
    store_tournament(db, config(games=2), played=4)
    tables = results.load(db)
    plot_all(*tables, tmp_path / "charts", tables.about)
    assert all("Tournament 'ttt-small': tictactoe, 4 of 6 games (partial)" in f._suptitle.get_text()
               for f in figures.values())


def test_plots_into_a_file_are_refused(tmp_path):
    from arena import ParameterError

    (tmp_path / "x.png").write_bytes(b"")
    games = _games([("deep", "flat")])
    with pytest.raises(ParameterError, match="cannot write the charts into the directory .*x.png.*: it is a file"):
        plot_all(games, _moves(MOVES[:1]), tmp_path / "x.png", ABOUT)
