"""Results: durable storage of tournaments and pandas tables of their games and moves.

``load(path)`` returns ``Tables(games, moves)`` for one tournament (``games, moves =
load(path)``), and ``Tables.about``: what they describe (``results.about.About``: name, game,
bots and budgets, format, games per pairing, openings, seed, start, version, and how many
games of the schedule are finished). ``frames(records)`` gives the same from game records in
memory, its ``about`` holding what the records tell.

Columns of ``games`` (one row per finished game): tournament, game_id (index in the
schedule), pairing, first, second (display names; first moved first), opening
(space-separated moves), seed, result ("1-0", "0-1", "1/2-1/2"), score_first (1, 0.5, 0),
utility_first, termination (why the game ended: {terminations}; see
``arena.Termination``), loser (0, 1 or <NA>: who forfeited), message, plies (opening
included), moves_first, moves_second, nodes_first, nodes_second, seconds_first,
seconds_second (per-side totals). Columns of ``moves`` (one row per bot move): tournament,
game_id, ply (from 0, opening included), player (0 or 1), bot, move, nodes, seconds, depth
(<NA> if not reported), score (NaN if not reported; the mover's own view), reported and
over_budget (1 when the nodes are the bot's own report, and when they exceed the budget),
cpu (CPU seconds of the move, measured outside the bot: NaN where it is not measured, see
``arena.MoveRecord.cpu``).

``search_nodes(recording)``: the nodes of a recorded search (``arena.searchtree``), one
row each; ``results.treeview`` draws them.

Reports: ``results.report`` (tables), ``results.ratings`` (the Elo fit), ``results.render`` (formats),
``results.plots`` (charts).
"""

from arena.records import Termination as _Termination

# the list of terminations follows the enum, so it is never out of date
__doc__ = __doc__.replace("{terminations}", ", ".join(f'"{t.value}"' for t in _Termination))

__all__ = ["Tables", "frames", "load", "search_nodes"]


def __getattr__(name: str):
    # pandas is imported on first use, not by ``import results.store`` or ``results.writer``:
    # worker processes import those, and pandas would add ~0.4 s to each start
    if name in ("Tables", "load"):
        from results import tables

        return getattr(tables, name)
    if name == "search_nodes":
        from results.frames import search_nodes

        return search_nodes
    if name == "frames":
        from results.frames import frames

        globals()["frames"] = frames  # over the submodule of the same name
        return frames
    raise AttributeError(f"module 'results' has no attribute {name!r}")
