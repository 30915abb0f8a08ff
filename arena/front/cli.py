"""The ``arena`` command line."""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from difflib import get_close_matches

import arena
from arena.errors import ArenaError
from arena.front import interrupt
from arena.front.play import cmd_play
from arena.front.reports import (
    REPORT_FORMATS, REPORT_MODULES, RESULTS, TERMINATIONS, check_html_target, check_pgn_target, check_run_anchors, cmd_list, cmd_report,
    finish, rating_view,
)
from arena.front.options import add_flags, overrides
from arena.front.show import cmd_show
from arena.front.settings import DEFAULT_SETTINGS, SPRT_SETTINGS, UsageError
from arena.front.exploit import add_parser as add_exploit_parser, cmd_exploit
from arena.front.tree import add_parser as add_tree_parser, cmd_tree
from arena.params import format_value
from arena.plugins import Registry
from results.sqlite import damaged


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit code 2, like every other user error
        raise UsageError(f"{message} (see '{self.prog} --help')")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but arguments no parser knows are reported by the parser they were
        given to, the subcommand's or this one (before the subcommand), naming the nearest flags."""
        args = sys.argv[1:] if args is None else [str(a) for a in args]
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            parser, at = self._subcommand(args, namespace)
            if any(_is_flag(a) for a in args[:at]):  # a flag before the subcommand: this parser's
                parser, extras = self, [a for a in args[:at] if _is_flag(a)]
            parser.error(parser._unrecognized(extras))
        return namespace

    def _subcommand(self, args: list[str], namespace) -> tuple["_Parser", int]:
        """The chosen subcommand's parser and where its name stands in ``args``; else this parser and len(args)."""
        for action in self._actions:
            name = getattr(namespace, action.dest, None) if action.nargs == argparse.PARSER else None
            if name in (action.choices or {}) and name in args:
                return action.choices[name], args.index(name)
        return self, len(args)

    def _unrecognized(self, extras: list[str]) -> str:
        """What is wrong with ``extras``: the unknown flags among them, each with the nearest flag of this parser."""
        flags = [a.partition("=")[0] for a in extras if _is_flag(a)]
        if not flags:
            return f"unrecognized arguments: {' '.join(extras)}"
        options = list(self._option_string_actions)
        if len(flags) == 1:
            near = _nearest_flag(flags[0], options)
            return f"unknown flag {flags[0]!r} for {self.prog!r}" + (f"; did you mean {near!r}?" if near else "")
        named = [f"{f!r} (did you mean {n!r}?)" if (n := _nearest_flag(f, options)) else repr(f) for f in flags]
        return f"unknown flags for {self.prog!r}: {', '.join(named)}"

    def _check_value(self, action, value):
        """An unknown subcommand or choice, with the nearest valid one where one is close."""
        if action.choices is None or value in action.choices:
            return
        choices = [str(c) for c in action.choices]
        near = get_close_matches(str(value), choices, n=1)
        if action.nargs == argparse.PARSER:
            hint = f"did you mean {near[0]!r}?" if near else f"commands: {', '.join(choices)}"
            raise argparse.ArgumentError(None, f"unknown command {value!r}; {hint}")
        if near:
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}; did you mean {near[0]!r}?")
        super()._check_value(action, value)


def _is_flag(arg: str) -> bool:
    """Whether a command-line word is written as a flag (``-x``, ``--name``), not a value such as ``-3``."""
    return arg.startswith("-") and len(arg) > 1 and not re.fullmatch(r"-\d+|-\d*\.\d+", arg)


def _nearest_flag(flag: str, options: list[str]) -> str | None:
    """The option string of ``options`` nearest to ``flag``, compared without their dashes; None if none is close."""
    bare = {o.lstrip("-"): o for o in options}
    near = get_close_matches(flag.lstrip("-"), list(bare), n=1)
    return bare[near[0]] if near else None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena", description="Game-playing bots, a referee, and tournaments.")
    parser.add_argument("--version", action="version", version=f"arena {arena.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    d = DEFAULT_SETTINGS  # every default shown below comes from here (or SPRT_SETTINGS), through the settings table

    for kind in ("games", "bots"):
        p = sub.add_parser(kind, help=f"list the registered {kind} and their parameters")
        p.add_argument("--json", action="store_true", help="print JSON for scripts")

    p = sub.add_parser(
        "play",
        help="play one game and show the board after each move",
        description="Play one game on the terminal. Bots are given, budgeted and supervised as in 'arena run'; "
        "a person ('human') types moves, 'help', 'resign' or 'quit'.",
    )
    p.add_argument("game", help="game spec: NAME or NAME:param=value,... (e.g. connect4:columns=8)")
    p.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="[NAME=]SPEC[@BUDGET]",
        help="a bot, given twice (the first moves first), as in 'arena run'; 'human' is you",
    )
    p.add_argument("--seed", type=int, default=None, help="seed for the bots' randomness (default: a random one)")
    p.add_argument(
        "--quiet", action="store_true", help="show only the final board and result (and a person's board before each move)"
    )
    add_flags(p, "play", d)
    _plugin_flag(p)

    p = sub.add_parser(
        "run",
        help="run a tournament, store every game, print the report",
        description="Run a tournament. Settings come from the built-in default (Connect Four, the five "
        "search bots), then CONFIG (a TOML file), then these flags. Running the same command again "
        "resumes: finished games are kept and the rest are played. More --games or --bot grow the "
        "stored tournament: only the new games are played.",
    )
    p.add_argument("config", nargs="?", help="tournament file (TOML)")
    add_flags(p, "run", d)
    _plugin_flag(p)
    _html_flag(p)
    _pgn_flag(p)
    _rating_flags(p)

    p = sub.add_parser(
        "sprt",
        help="is NEW better than BASE? play game pairs until a sequential test decides",
        description="A sequential probability ratio test: NEW and BASE play pairs of games (one opening, colours "
        "swapped), in parallel, until the log-likelihood ratio crosses a bound (H1: NEW is better by elo1; H0: "
        "by no more than elo0) or --max-games are played (inconclusive). Pairs count in pair order, so under node "
        "budgets a rerun or a resumed run gives the same verdict. Stored like a tournament; running the same "
        "command again resumes. Settings come from defaults, then CONFIG (TOML, with new and base), then flags.",
    )
    p.add_argument("positional", nargs="*", metavar="[CONFIG.toml] NEW BASE", help="bots as in 'arena run': [NAME=]SPEC[@BUDGET]")
    add_flags(p, "sprt", SPRT_SETTINGS)
    _plugin_flag(p)
    _html_flag(p)
    _pgn_flag(p)

    p = sub.add_parser(
        "ladder", help="a standing ladder: bots join and leave over days, paired by rating",
        description="A ladder that bots join (--add) and leave (--remove) over days. A new bot first plays a "
        "placement gauntlet against opponents spread over the ratings, then rating pairings (near opponents, "
        "least-played pairs first); ratings are one fit over all the ladder's games. Settings are fixed when the "
        "ladder is created; later calls use the stored ones. It runs until Ctrl-C or --games; running it again "
        "resumes. While it runs, --add or --remove from another terminal is recorded and picked up at its next batch.",
    )
    p.add_argument("db", help="results database (created with the ladder)")
    p.add_argument("--add", action="extend", nargs="+", metavar="[NAME=]SPEC[@BUDGET]", help="bots joining the ladder")
    p.add_argument("--remove", action="extend", nargs="+", metavar="NAME",
                   help="bots leaving: their games stay and count in the ratings; they play no more")
    p.add_argument("--games", type=int, metavar="N",
                   help="play N more games in this call, then stop (default: until Ctrl-C; 0: record --add/--remove only)")
    p.add_argument("--name", help="ladder name in the database (default ladder)")
    add_flags(p, "ladder", d)
    _plugin_flag(p)

    p = sub.add_parser("report", help="print or write the report of a stored tournament")
    p.add_argument("db", help="results database")
    p.add_argument("--tournament", help="tournament name (default: the latest)")
    _output_format(
        p, REPORT_FORMATS, "text (the default), csv, markdown, json or html (the one-file page --html writes); "
        "with --out FILE, the default is the file's extension's (.txt .md .csv .json .html)",
    )
    p.add_argument(
        "--out", metavar="PATH", help="write the report into a file (one with an extension, or an existing "
        "file), or into a directory, one file per table",
    )
    p.add_argument(
        "--html", metavar="FILE", help="write the report as one self-contained HTML page: sortable tables, charts, "
        "every game replayable (needs Jinja2; charts need matplotlib)",
    )
    p.add_argument("--plots", metavar="DIR", help="write PNG charts into the directory DIR (needs matplotlib)")
    p.add_argument(
        "--pairs", action="store_true",
        help="add per pairing the pentanomial counts (games paired by opening, colours swapped) and Elo with its interval",
    )
    _rating_flags(p)

    p = sub.add_parser(
        "list", help="list the tournaments in a database, or one tournament's games",
        description="List the tournaments in a results database. With --tournament, --games or a filter, "
        "list the games of one tournament (default: the latest): id, players, result, how it ended, plies.",
    )
    p.add_argument("db", help="results database")
    p.add_argument("--tournament", help="list this tournament's games")
    p.add_argument("--games", action="store_true", help="list the latest tournament's games")
    p.add_argument("--bot", metavar="NAME", help="only games this bot played")
    p.add_argument("--result", choices=RESULTS, help="only games with this result (win and loss: --bot's)")
    p.add_argument("--termination", choices=TERMINATIONS, help="only games that ended this way")
    p.add_argument("--json", action="store_true", help="print JSON for scripts")

    p = sub.add_parser("show", help="replay a stored game move by move (game ids: arena list DB --games)")
    p.add_argument("db", help="results database")
    p.add_argument("game_id", type=int, help="game number (from 0)")
    p.add_argument("--tournament", help="tournament name (default: the latest)")
    p.add_argument("--seat", metavar="SEAT", help="show only what one seat saw (hidden plies as '?'): its number "
                   "(from 0), its bot's name or the game's name for it")
    _plugin_flag(p)

    p = sub.add_parser(
        "export", help="write a stored tournament's games as PGN (chess) or SGF (go, othello, gomoku, hex)",
        description="Write every game of a stored tournament in its game's standard record format: PGN for chess "
        "(the seven tags, FEN, Termination, each move's score/depth and time as comments, as fastchess writes them), "
        "SGF for go, othello, gomoku and hex. PGN's Round and SGF's RO are the game id + 1.",
    )
    p.add_argument("db", help="results database")
    p.add_argument("--tournament", help="tournament name (default: the latest)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--pgn", metavar="FILE", help="write PGN into FILE ('-': stdout); needs python-chess")
    which.add_argument("--sgf", metavar="FILE", help="write SGF (FF[4]) into FILE ('-': stdout)")
    p.add_argument("--progress", action="store_true", help="show a progress bar on stderr")
    _plugin_flag(p)

    add_tree_parser(sub)
    add_exploit_parser(sub)
    return parser


def _output_format(p: argparse.ArgumentParser, choices, text: str) -> None:
    """``--as``, the output format; ``--format``, its earlier spelling, still taken (not shown)."""
    p.add_argument("--as", dest="format", choices=choices, metavar="FORMAT", help=text)
    p.add_argument("--format", dest="format", choices=choices, help=argparse.SUPPRESS)


def _plugin_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE", help="extra plugin module to load (default: none)")


def _rating_flags(p: argparse.ArgumentParser) -> None:
    """How a report shows ratings: ``--anchor`` and ``--los`` (``results.ratings.View``)."""
    p.add_argument("--anchor", action="append", default=[], metavar="BOT=ELO",
                   help="hold BOT's Elo at ELO (repeatable; e.g. random=0), so ratings mean the same across "
                   "tournaments; intervals are then relative to the anchors (default: mean 0)")
    p.add_argument("--los", type=int, default=10, metavar="N",
                   help="likelihood-of-superiority table of the N best-rated bots (default 10; 0: none)")


def _html_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--html", metavar="FILE", help="at the end, write the HTML report into FILE (as 'arena report --html')")


def _pgn_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pgn", metavar="FILE", help="at the end, write every game of the tournament into FILE as PGN "
                   "(chess; as 'arena export --pgn')")


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return 2
        # run, sprt and play load plugins once they know whether the run is sandboxed
        registry = None if args.command in LATE_PLUGINS else _registry(getattr(args, "plugin", []))
        with interrupt.handled():
            return COMMANDS[args.command](registry, args)
    except ArenaError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:  # read past the checks at opening: a damaged page
        print(f"arena: error: {damaged(getattr(args, 'db', None) or getattr(args, 'database', None) or 'the results database', exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\narena: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        sys.stderr.close()  # output piped into e.g. `head`: nothing left to say
        return 0


def _registry(plugins):
    """The registry of a command that plays no game: the plugins imported here."""
    from arena.front.run import command_registry

    return command_registry(plugins)


def _listing(registry: Registry, kind: str, args) -> int:
    table = registry.games if kind == "games" else registry.bots
    entries = [{**entry.cls.describe(), "plugin": entry.plugin, **_model_of(kind, entry.cls)} for entry in table.values()]
    if args.json:
        print(json.dumps(entries, indent=2))
        return 0
    width = max(len(e["name"]) for e in entries)
    for e in entries:
        has = e.get("features") or e.get("handles")
        said = "" if not has else f" (with {', '.join(has)})" if kind == "games" else f" (plays games with {', '.join(has)})"
        print(f"{e['name']:<{width}}  {e['description']}{said}")
        for p in e["parameters"]:
            default = format_value(tuple(p["default"]) if isinstance(p["default"], list) else p["default"])
            extra = f"; one of {', '.join(map(str, p['choices']))}" if "choices" in p else ""
            print(f"{'':<{width}}    {p['name']}={default} ({p['type']}{extra}): {p['help']}")
    return 0


def _model_of(kind: str, cls) -> dict:
    """What a game has beyond a two-player, zero-sum, deterministic one (``features``), or what a
    bot plays beyond that (``handles``): model feature names, e.g. "chance"."""
    if kind == "games":
        model = getattr(cls, "model", None)
        return {"features": sorted(model.features) if model is not None else []}
    return {"handles": sorted(getattr(cls, "handles", ()))}


def cmd_run(registry: Registry, args) -> int:
    from arena.front.run import run_tournament
    from arena.front.settings import build, settings

    html = check_html_target(args.html) if args.html else None  # a bad path fails before any game
    view = rating_view(args)  # so does a malformed --anchor
    values = settings(args.config, overrides(args, "run"))
    config, run = build(values)
    check_run_anchors(view, config, registry)  # and an anchor that is no bot of the run
    pgn = check_pgn_target(args.pgn, config.game) if args.pgn else None  # and a bad --pgn, or a game without PGN
    result = run_tournament(config, run, plugins=args.plugin, preload=REPORT_MODULES)
    return finish(result, run.database, html, result.registry, view=view, pgn=pgn, progress=run.progress)


def _sprt(registry: Registry, args) -> int:
    from arena.front.sprt import cmd_sprt

    return cmd_sprt(registry, args)


def _export(registry: Registry, args) -> int:
    from arena.front.export import cmd_export

    return cmd_export(registry, args)


def _ladder(registry: Registry, args) -> int:
    from arena.front.ladder import cmd_ladder

    return cmd_ladder(args)


LATE_PLUGINS = ("run", "sprt", "play", "ladder")
COMMANDS = {
    "games": lambda registry, args: _listing(registry, "games", args),
    "bots": lambda registry, args: _listing(registry, "bots", args),
    "play": cmd_play,
    "run": cmd_run,
    "sprt": lambda registry, args: _sprt(registry, args),
    "ladder": _ladder,
    "report": cmd_report,
    "list": cmd_list,
    "show": cmd_show,
    "tree": cmd_tree,
    "exploit": cmd_exploit,
    "export": _export,
}
