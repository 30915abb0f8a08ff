"""``arena tree``: search one position with one bot and draw the tree it searched.

The bot is asked as the referee asks (the counted game, the root counted), in this
process, with its search recorded (``arena.searchtree``); the drawing comes from
``results.treeview``: an outline for the terminal, or an SVG figure or HTML page.
"""

from __future__ import annotations

import argparse

import sys
from pathlib import Path

from arena.budget import Budget
from arena.errors import ArenaError, ParameterError
from arena.plugins import Registry
from arena.searchtree import record_search, recording_bots
from results import treeview

FORMATS = ("text", "svg", "html")
#: Nodes recorded at most unless --max-nodes says otherwise: a figure of more is hard to read.
DEFAULT_MAX_NODES = 2000


def add_parser(sub) -> None:
    """The ``tree`` subcommand's arguments."""
    p = sub.add_parser(
        "tree",
        help="search one position with one bot and draw the tree it searched",
        description="Search one position with one search bot, recording every node it visits, and draw "
        "the tree as lecture notes do: values backed up from the leaves, the window [alpha, beta] of "
        "every node, cut-offs and what they pruned. Iterative deepening draws one tree per depth, the "
        "solver one per null-window search.",
    )
    p.add_argument("game", help="game spec: NAME or NAME:param=value,... (e.g. tree:example=bois)")
    p.add_argument("--moves", nargs="*", default=[], metavar="MOVE", help="moves from the start to the position to search")
    p.add_argument("--bot", required=True, metavar="SPEC", help="a search bot spec, e.g. alphabeta:depth=3,ordering=false")
    p.add_argument("--budget", default="none", help="budget of the move: nodes=N, time=SECONDS, depth=D (default none)")
    p.add_argument(
        "--max-nodes", type=int, default=DEFAULT_MAX_NODES, metavar="N",
        help=f"record at most N nodes in all; the search goes on past them (default {DEFAULT_MAX_NODES})",
    )
    p.add_argument("--as", dest="format", choices=FORMATS, metavar="FORMAT",
                   help="text (default; or the extension of --out), svg or html")
    p.add_argument("--format", dest="format", choices=FORMATS, help=argparse.SUPPRESS)  # the earlier spelling
    p.add_argument("--negamax", action="store_true", help="values and windows for the player to move at each node")
    p.add_argument("--out", metavar="FILE", help="write into FILE instead of printing")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE", help="extra plugin module to load (default: none)")


def cmd_tree(registry: Registry, args) -> int:
    fmt = args.format or _format_of(args.out)
    if args.max_nodes < 1:
        raise ParameterError(f"bad --max-nodes {args.max_nodes}; expected a whole number of at least 1")
    game = registry.game(args.game)
    state = game.play(args.moves)
    bot = registry.bot(args.bot)
    if not hasattr(bot, "recorder"):
        able = recording_bots(registry)
        seated = [name for name in able if "players" in registry.bots[name].cls.handles]  # max^n, paranoid, ...
        text = ", ".join(name for name in able if name not in seated) or "none"
        if seated:
            text += f"; for any number of seats: {', '.join(seated)}"
        raise ParameterError(f"bot {bot.name!r} cannot record its search; bots that can: {text}")
    bot.check_game(game)
    if game.is_terminal(state):
        raise ParameterError(f"the position after {' '.join(args.moves)!r} is a finished game: nothing to search")
    if game.to_move(state) < 0:
        outcomes = [o for o, _ in game.chance_outcomes(state)]
        outcomes = ", ".join(game.move_text(state, o) for o in outcomes[:6]) + (", ..." if len(outcomes) > 6 else "")
        raise ParameterError(f"the position after {' '.join(args.moves)!r} is a chance node: no bot moves there; "
                             f"add an outcome to --moves ({outcomes})")
    bot.new_game(game, game.to_move(state), 0)
    recording = record_search(bot, game, state, Budget.parse(args.budget), args.max_nodes)
    if not recording.trees:
        raise ParameterError(f"bot {args.bot!r} made no search tree for this position of {game.name!r}: nothing to "
                             "draw (a bot answers a position with one legal move without searching, and the solver "
                             "solves a game with chance by value iteration)")
    if fmt == "svg":
        text = treeview.svg(recording, args.negamax)
    elif fmt == "html":
        text = treeview.html(recording, args.negamax)
    else:
        text = treeview.outline(recording, args.negamax)
    if args.out is None:
        print(text)
    else:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise ArenaError(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
        print(f"{_lines(recording)}; written to {args.out}", file=sys.stderr)
    if recording.truncated:
        print(f"arena: warning: the node limit ({args.max_nodes}, --max-nodes) was reached: "
              "the drawing shows the first nodes only", file=sys.stderr)
    return 0


def _format_of(out: str | None) -> str:
    suffix = Path(out).suffix.lower() if out else ""
    return {".svg": "svg", ".html": "html", ".htm": "html"}.get(suffix, "text")


def _lines(recording) -> str:
    kept = sum(len(t.nodes) for t in recording.trees)
    searches = len(recording.trees)
    return f"{kept} nodes drawn in {searches} tree{'s' if searches != 1 else ''}"
