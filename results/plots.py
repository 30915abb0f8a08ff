"""Charts of one tournament: Elo with intervals, a crosstable heatmap, nodes per move by depth.

``plot_all`` writes them as PNG files, ``svg_charts`` gives the Elo and depth charts as SVG
text for the HTML report. Given the ``seats`` table of a game of more than two seats, the Elo
is the Plackett-Luce fit's (``results.seat_report``) and the heatmap the versus table's: the
share of games together in which the row's bot finished ahead. matplotlib is optional
(``pip install 'botarena[plots]'``) and imported only when plotting. Figures are drawn with
the Agg canvas directly, so pyplot's global state is never touched. Bots' lines take the
Okabe-Ito colours, which colour-blind readers tell apart, and a marker each.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from arena.budget import Budget
from arena.errors import ArenaError
from results.about import About, Entry
from results.render import directory
from results.ratings import View, origin
from results.report import crosstable, standings

_COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"]
"""Okabe and Ito's palette for colour-blind readers (https://jfly.uni-koeln.de/color/)."""
_MARKERS = "osD^vP*X"


def check_matplotlib() -> None:
    """ArenaError saying how to install it, when matplotlib cannot be imported."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        raise ArenaError("plots need matplotlib: pip install 'botarena[plots]'") from None


def _figure(width: float, height: float):
    check_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _elo(table: pd.DataFrame, title: str = "Elo ratings"):
    """Horizontal error bars, best bot on top."""
    figure = _figure(7, 1.9 + 0.45 * len(table))
    ax = figure.add_subplot()
    y = np.arange(len(table))[::-1]
    errors = np.array([table["elo"] - table["elo_low"], table["elo_high"] - table["elo"]], dtype=float)
    finite = errors[np.isfinite(errors)]
    reach = 2 * finite.max(initial=100.0)
    open_end = ~np.isfinite(errors)  # a perfect score: drawn to the edge, with an arrow
    errors[open_end] = reach
    ax.errorbar(table["elo"], y, xerr=errors, fmt="o", color="tab:blue", ecolor="tab:gray", capsize=4)
    for side, sign, marker in ((0, -1, "<"), (1, 1, ">")):
        for yy, value in zip(y[open_end[side]], table["elo"].to_numpy()[open_end[side]]):
            ax.plot(value + sign * reach, yy, marker=marker, color="tab:gray")
    ax.axvline(0, color="black", linewidth=0.8, linestyle=":")
    for yy, value in zip(y, table["elo"]):
        ax.annotate(f"{value:+.0f}", (value, yy), xytext=(0, 6), textcoords="offset points", ha="center", fontsize=8)
    ax.set_yticks(y, [str(b) for b in table.index])
    ax.set_ylim(-0.7, len(table) - 0.3)
    ax.set_xlabel(f"Elo ({origin(table.attrs.get('anchors') or {})}) with 95% interval")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return figure


def _heatmap(rates: pd.DataFrame, title: str = "Score rate of row against column", label: str = "score rate"):
    """Score rate of the row bot against the column bot, red (lost) to green (won)."""
    size = 2.5 + 0.7 * len(rates)
    figure = _figure(size + 1.2, size + 1.2)
    ax = figure.add_subplot()
    ax.set_facecolor("0.9")  # the diagonal (no games) shows as grey
    image = ax.imshow(rates.to_numpy(float), cmap="RdYlGn", vmin=0, vmax=1)
    labels = [str(b) for b in rates.index]
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for (i, j), value in np.ndenumerate(rates.to_numpy(float)):
        if not np.isnan(value):
            ax.text(j, i, f"{100 * value:.0f}%", ha="center", va="center", fontsize=9,
                    color="white" if abs(value - 0.5) > 0.35 else "black")
    ax.set_xlabel("opponent")
    ax.set_ylabel("bot")
    ax.set_title(title)
    figure.colorbar(image, ax=ax, label=label, shrink=0.8)
    return figure


def _node_budgets(about: About) -> dict[str, int]:
    """Each bot's node budget, where it had one (one, not several)."""
    out = {}
    for entry in about.bots:
        try:
            nodes = Budget.parse(entry.budget).nodes if entry.budget else None
        except ArenaError:  # several budgets (" / "), or text from another version
            nodes = None
        if nodes is not None:
            out[entry.name] = nodes
    return out


def _nodes_by_depth(moves: pd.DataFrame, order: list[str], about: About):
    """Search cost: per bot, median nodes of the moves that completed each depth within the budget.

    A move that used its whole node budget tells the budget, not the depth's cost: such moves
    are left out of the medians and marked on the budget's line instead, with their count.
    Depths without a move leave a gap. None (no chart) if no move reports a depth.
    """
    depth = moves["depth"].astype("Float64").astype(float)
    if depth.isna().all():
        return None
    budgets = _node_budgets(about)
    moves = moves.assign(depth=depth)
    moves = moves.assign(stopped=moves["nodes"] >= moves["bot"].map(budgets).fillna(np.inf))
    figure = _figure(8, 6.5)
    ax = figure.add_subplot()
    styles = iter(list(zip(_COLOURS, _MARKERS)) * (1 + len(order) // len(_COLOURS)))
    measured = moves.dropna(subset=["depth"])
    present = set(measured["bot"].unique())  # once: a set of every move per bot costs seconds at 10^5 games
    for bot in [b for b in order if b in present]:
        mine, (colour, marker) = measured[measured["bot"] == bot], next(styles)
        cost = mine[~mine["stopped"] & (mine["nodes"] > 0)].groupby("depth")["nodes"].agg(["median", "size"])
        stopped = mine[mine["stopped"]].groupby("depth").size()
        label = str(bot)
        if len(stopped):
            label += f" ({stopped.sum():,} of {len(mine):,} moves stopped by the budget: x)"
        if len(cost):
            span = np.arange(cost.index.min(), cost.index.max() + 1)
            line = cost["median"].reindex(span)  # NaN where no move: the line breaks there
            ax.plot(span, line.to_numpy(), marker=marker, color=colour, label=label)
            for d, median, size in cost.itertuples():
                ax.annotate(f"{size:,}", (d, median), xytext=(4, 4), textcoords="offset points", fontsize=6, color=colour)
        else:
            ax.plot([], [], marker=marker, color=colour, label=label)
        for d, size in stopped.items():
            ax.scatter([d], [budgets[bot]], marker="x", color=colour)
            ax.annotate(f"{size:,}", (d, budgets[bot]), xytext=(4, -10), textcoords="offset points", fontsize=6,
                        color=colour)
    for nodes in sorted(set(budgets.values())):
        ax.axhline(nodes, color="black", linewidth=0.8, linestyle="--")
        ax.annotate(f"node budget {nodes:,}", (1, nodes), xycoords=("axes fraction", "data"), xytext=(-2, 3),
                    textcoords="offset points", fontsize=7, ha="right")
    for bot in [b for b in order if b not in set(measured["bot"])]:
        ax.plot([], [], " ", label=f"{bot}: no depth reported")
    ax.set_yscale("log")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("depth completed (small numbers: moves)")
    ax.set_ylabel("median nodes per move, within the budget")
    ax.set_title("Search cost by depth")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.1)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2, frameon=False)
    return figure


def _headline(figure, about: About) -> None:
    """The tournament, on top of every chart."""
    lines = about.lines(width=int(figure.get_figwidth() * 15))
    figure.suptitle("\n".join(lines), fontsize=7, x=0.01, ha="left", va="top")


def _about(games: pd.DataFrame) -> About:
    """What the games tell, for tables given without a description."""
    names = sorted(set(games["first"]) | set(games["second"]))
    name = str(games["tournament"].iloc[0]) if len(games) and "tournament" in games else ""
    return About(name, None, tuple(Entry(str(b), None, None) for b in names), len(games))


def _seated(seats: pd.DataFrame | None) -> bool:
    """Whether ``seats`` is the table of a game of more than two seats."""
    return seats is not None and len(seats) > 0 and int(seats["seat"].max()) > 1


def _seat_standings(games: pd.DataFrame, moves: pd.DataFrame, seats: pd.DataFrame, view: View) -> pd.DataFrame:
    """The standings of a game of more seats: Plackett-Luce Elo over each game's ranking."""
    from results.plackett_luce import fit
    from results.seat_report import seat_standings

    seats = seats[seats["game_id"].isin(games["game_id"])]
    return seat_standings(seats, moves, fit(seats, anchors=view.anchors))


def plot_all(games: pd.DataFrame, moves: pd.DataFrame, out_dir: str | Path, about: About | None = None,
             view: View = View(), seats: pd.DataFrame | None = None) -> list[Path]:
    """Write elo.png, crosstable.png and nodes_by_depth.png (when moves report depths) into ``out_dir``.

    Each chart is headed by ``about`` (default: what ``games`` tells); ``view`` anchors the Elo;
    ``seats`` (``results.load``'s, for a game of more than two seats) rates the games' rankings. Raises ArenaError when
    matplotlib is not installed, ParameterError when ``out_dir`` cannot be a directory.
    Returns the paths written.
    """
    check_matplotlib()  # fail early and plainly without matplotlib
    out = directory(out_dir, "the charts")
    about = about or _about(games)
    moves = moves[moves["game_id"].isin(games["game_id"])]
    if _seated(seats):
        from results.seat_report import versus

        table = _seat_standings(games, moves, seats, view)
        ahead = _heatmap(versus(seats[seats["game_id"].isin(games["game_id"])], list(table.index)),
                         "Share of games together in which the row finished ahead", "finished ahead")
        figures = {"elo": _elo(table, "Plackett-Luce Elo ratings"), "crosstable": ahead}
    else:
        table = standings(games, moves, view)
        rates = crosstable(games, normalize=True, order=list(table.index))
        figures = {"elo": _elo(table), "crosstable": _heatmap(rates)}
    figures["nodes_by_depth"] = _nodes_by_depth(moves, list(table.index), about)
    paths = []
    for name, figure in figures.items():
        if figure is not None:
            _headline(figure, about)
            paths.append(out / f"{name}.png")
            figure.savefig(paths[-1])
    return paths


def svg_charts(games: pd.DataFrame, moves: pd.DataFrame, about: About, view: View = View(),
               seats: pd.DataFrame | None = None) -> dict[str, str]:
    """The Elo chart and (when moves report depths) the depth chart, as ``<svg>`` text to inline
    (``seats``: as ``plot_all``).

    Text stays text (``svg.fonttype: none``) and nothing is dated, so a chart is small and
    equal tournaments give equal charts. Raises ArenaError when matplotlib is not installed.
    """
    check_matplotlib()
    from matplotlib import rc_context

    moves = moves[moves["game_id"].isin(games["game_id"])]
    if _seated(seats):
        table = _seat_standings(games, moves, seats, view)
        figures = {"elo": _elo(table, "Plackett-Luce Elo ratings")}
    else:
        table = standings(games, moves, view)
        figures = {"elo": _elo(table)}
    figures["nodes_by_depth"] = _nodes_by_depth(moves, list(table.index), about)
    out = {}
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "botarena"}):
        for name, figure in figures.items():
            if figure is not None:
                buffer = io.StringIO()
                figure.savefig(buffer, format="svg", metadata={"Date": None})
                text = buffer.getvalue()
                out[name] = re.sub(r"<metadata>.*?</metadata>\s*", "", text[text.index("<svg"):], flags=re.S)
    return out
