"""PNG charts of one tournament: Elo with intervals, a crosstable heatmap, nodes per move by depth.

matplotlib is optional (``pip install 'botarena[plots]'``) and imported only when plotting.
Figures are drawn with the Agg canvas directly, so pyplot's global state is never touched.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from arena.errors import ArenaError
from results.report import crosstable, standings


def _figure(width: float, height: float):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ArenaError("plots need matplotlib: pip install 'botarena[plots]'") from None
    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _elo(table: pd.DataFrame, path: Path) -> None:
    """Horizontal error bars, best bot on top."""
    figure = _figure(7, 1.2 + 0.45 * len(table))
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
    figure.savefig(path)


def _heatmap(rates: pd.DataFrame, path: Path) -> None:
    """Score rate of the row bot against the column bot, red (lost) to green (won)."""
    size = 2.5 + 0.7 * len(rates)
    figure = _figure(size + 1.2, size)
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
    figure.savefig(path)


def _nodes_by_depth(moves: pd.DataFrame, order: list[str], path: Path) -> bool:
    """Median nodes per move at each depth reached, one line per bot; False if no move has a depth."""
    moves = moves.assign(depth=moves["depth"].astype("Float64").astype(float)).dropna(subset=["depth"])
    medians = moves.groupby(["bot", "depth"])["nodes"].median()
    medians = medians[medians > 0]  # a log scale cannot show 0
    if medians.empty:
        return False
    figure = _figure(7, 4.5)
    ax = figure.add_subplot()
    for bot in [b for b in order if b in medians.index.get_level_values("bot")]:
        line = medians.xs(bot, level="bot")
        ax.plot(line.index, line.to_numpy(), marker="o", label=str(bot))
    ax.set_yscale("log")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("depth reached")
    ax.set_ylabel("median nodes per move")
    ax.set_title("Search effort by depth")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.1)
    ax.legend(fontsize=8)
    figure.savefig(path)
    return True


def plot_all(games: pd.DataFrame, moves: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """Write elo.png, crosstable.png and nodes_by_depth.png (when moves report depths) into ``out_dir``.

    Raises ArenaError when matplotlib is not installed. Returns the paths written.
    """
    _figure(1, 1)  # fail early and plainly without matplotlib
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    moves = moves[moves["game_id"].isin(games["game_id"])]
    paths = [out / "elo.png", out / "crosstable.png"]
    table = standings(games, moves)
    _elo(table, paths[0])
    _heatmap(crosstable(games, normalize=True), paths[1])
    if _nodes_by_depth(moves, list(table.index), out / "nodes_by_depth.png"):
        paths.append(out / "nodes_by_depth.png")
    return paths
