"""PNG charts of one tournament: Elo with intervals, a crosstable heatmap, nodes per move by depth.

matplotlib is optional (``pip install 'botarena[plots]'``) and imported only when plotting.
Figures are drawn with the Agg canvas directly, so pyplot's global state is never touched.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from arena.budget import Budget
from arena.errors import ArenaError
from results.about import About, Entry
from results.render import directory
from results.report import crosstable, standings

_COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
            "tab:cyan", "tab:gray"]


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


def _elo(table: pd.DataFrame, about: About, path: Path) -> None:
    """Horizontal error bars, best bot on top."""
    figure = _figure(7, 1.9 + 0.45 * len(table))
    ax = figure.add_subplot()
    y = np.arange(len(table))[::-1]
    errors = [table["elo"] - table["elo_low"], table["elo_high"] - table["elo"]]
    ax.errorbar(table["elo"], y, xerr=errors, fmt="o", color="tab:blue", ecolor="tab:gray", capsize=4)
    ax.axvline(0, color="black", linewidth=0.8, linestyle=":")
    for yy, value in zip(y, table["elo"]):
        ax.annotate(f"{value:+.0f}", (value, yy), xytext=(0, 6), textcoords="offset points", ha="center", fontsize=8)
    ax.set_yticks(y, [str(b) for b in table.index])
    ax.set_ylim(-0.7, len(table) - 0.3)
    ax.set_xlabel("Elo (mean 0) with 95% interval")
    ax.set_title("Elo ratings")
    ax.grid(axis="x", alpha=0.3)
    _headline(figure, about)
    figure.savefig(path)


def _heatmap(rates: pd.DataFrame, about: About, path: Path) -> None:
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
    ax.set_title("Score rate of row against column")
    figure.colorbar(image, ax=ax, label="score rate", shrink=0.8)
    _headline(figure, about)
    figure.savefig(path)


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


def _nodes_by_depth(moves: pd.DataFrame, order: list[str], about: About, path: Path) -> bool:
    """Search cost: per bot, median nodes of the moves that completed each depth within the budget.

    A move that used its whole node budget tells the budget, not the depth's cost: such moves
    are left out of the medians and marked on the budget's line instead, with their count.
    Depths without a move leave a gap. False (no chart) if no move reports a depth.
    """
    depth = moves["depth"].astype("Float64").astype(float)
    if depth.isna().all():
        return False
    budgets = _node_budgets(about)
    moves = moves.assign(depth=depth)
    moves = moves.assign(stopped=moves["nodes"] >= moves["bot"].map(budgets).fillna(np.inf))
    figure = _figure(8, 6.5)
    ax = figure.add_subplot()
    colours = iter(_COLOURS * (1 + len(order) // len(_COLOURS)))
    measured = moves.dropna(subset=["depth"])
    for bot in [b for b in order if b in set(measured["bot"])]:
        mine, colour = measured[measured["bot"] == bot], next(colours)
        cost = mine[~mine["stopped"] & (mine["nodes"] > 0)].groupby("depth")["nodes"].agg(["median", "size"])
        stopped = mine[mine["stopped"]].groupby("depth").size()
        label = str(bot)
        if len(stopped):
            label += f" ({stopped.sum():,} of {len(mine):,} moves stopped by the budget: x)"
        if len(cost):
            span = np.arange(cost.index.min(), cost.index.max() + 1)
            line = cost["median"].reindex(span)  # NaN where no move: the line breaks there
            ax.plot(span, line.to_numpy(), marker="o", color=colour, label=label)
            for d, median, size in cost.itertuples():
                ax.annotate(f"{size:,}", (d, median), xytext=(4, 4), textcoords="offset points", fontsize=6, color=colour)
        else:
            ax.plot([], [], marker="o", color=colour, label=label)
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
    _headline(figure, about)
    figure.savefig(path)
    return True


def _headline(figure, about: About) -> None:
    """The tournament, on top of every chart."""
    lines = about.lines(width=int(figure.get_figwidth() * 15))
    figure.suptitle("\n".join(lines), fontsize=7, x=0.01, ha="left", va="top")


def _about(games: pd.DataFrame) -> About:
    """What the games tell, for tables given without a description."""
    names = sorted(set(games["first"]) | set(games["second"]))
    name = str(games["tournament"].iloc[0]) if len(games) and "tournament" in games else ""
    return About(name, None, tuple(Entry(str(b), None, None) for b in names), len(games))


def plot_all(games: pd.DataFrame, moves: pd.DataFrame, out_dir: str | Path, about: About | None = None) -> list[Path]:
    """Write elo.png, crosstable.png and nodes_by_depth.png (when moves report depths) into ``out_dir``.

    Each chart is headed by ``about`` (default: what ``games`` tells). Raises ArenaError when
    matplotlib is not installed, ParameterError when ``out_dir`` cannot be a directory.
    Returns the paths written.
    """
    check_matplotlib()  # fail early and plainly without matplotlib
    out = directory(out_dir, "the charts")
    about = about or _about(games)
    moves = moves[moves["game_id"].isin(games["game_id"])]
    paths = [out / "elo.png", out / "crosstable.png"]
    table = standings(games, moves)
    _elo(table, about, paths[0])
    _heatmap(crosstable(games, normalize=True), about, paths[1])
    if _nodes_by_depth(moves, list(table.index), about, out / "nodes_by_depth.png"):
        paths.append(out / "nodes_by_depth.png")
    return paths
