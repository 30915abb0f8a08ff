"""The ``arena`` command line."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys

import arena
from arena.errors import ArenaError
from arena.front import interrupt
from arena.front.play import cmd_play
from arena.front.probing import command_registry, config_registry
from arena.front.reports import (
    REPORT_FORMATS, RESULTS, TERMINATIONS, check_html_target, cmd_list, cmd_report, cmd_show, report_text,
    write_html_report,
)
from arena.front.settings import DEFAULT_SETTINGS, RACE_CONFIDENCE, RACE_GAMES, UsageError
from arena.front.tree import add_parser as add_tree_parser, cmd_tree
from arena.params import format_value
from arena.plugins import Registry
from results.sqlite import damaged


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit code 2, like every other user error
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena", description="Game-playing bots, a referee, and tournaments.")
    parser.add_argument("--version", action="version", version=f"arena {arena.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    d = DEFAULT_SETTINGS  # every default shown below comes from here

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
    p.add_argument("--budget", help=f"per-move budget: nodes=N, time=SECONDS, depth=D, cpu=SECONDS (CPU time), or none (default {d['budget']})")
    p.add_argument("--seed", type=int, default=None, help="seed for the bots' randomness (default: a random one)")
    p.add_argument(
        "--quiet", action="store_true", help="show only the final board and result (and a person's board before each move)"
    )
    _limit_flags(p, ("time_margin", "watchdog"))
    p.add_argument(
        "--no-isolation", dest="isolate", action="store_false",
        help="run the bots in this process, with no watchdog (trusted bots only)",
    )
    _sandbox_flag(p, False)
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE", help="extra plugin module to load (default: none)")

    p = sub.add_parser(
        "run",
        help="run a tournament, store every game, print the report",
        description="Run a tournament. Settings come from the built-in default (Connect Four, the five "
        "search bots), then CONFIG (a TOML file), then these flags. Running the same command again "
        "resumes: finished games are kept and the rest are played. More --games or --bot grow the "
        "stored tournament: only the new games are played.",
    )
    p.add_argument("config", nargs="?", help="tournament file (TOML)")
    p.add_argument("--game", help=f"game spec (default {d['game']})")
    p.add_argument(
        "--bot", action="append", metavar="[NAME=]SPEC[@BUDGET]",
        help=f"a bot (repeat); replaces the file's bots (default {' '.join(map(_setting_text, d['bots']))})",
    )
    p.add_argument("--budget", help=f"default per-move budget: nodes=N, time=SECONDS, depth=D, cpu=SECONDS (default {_setting_text(d['budget'])})")
    p.add_argument("--games", type=int, help=f"games per pairing, even: colours are swapped (default {d['games']})")
    _opening_flags(p, d)
    p.add_argument(
        "--format", choices=("round-robin", "gauntlet", "swiss", "race"), help=f"tournament format (default {d['format']})"
    )
    rounds = "none: give it with --format swiss" if d["rounds"] is None else d["rounds"]
    confidence = RACE_CONFIDENCE if d["confidence"] is None else d["confidence"]
    most = RACE_GAMES if d["max_games"] is None else d["max_games"]
    p.add_argument("--rounds", type=int, metavar="R", help=f"rounds of a swiss, each pairing one opening with both colours (default {rounds})")
    p.add_argument("--confidence", type=float, help=f"a race drops a bot worse than the leader at this confidence (default {confidence:g})")
    p.add_argument("--max-games", type=int, metavar="N", help=f"a race's games budget (default {most})")
    p.add_argument(
        "--challenger", action="append", metavar="NAME",
        help=f"gauntlet challenger (repeat; default {', '.join(d['challengers']) or 'none'})",
    )
    _limit_flags(p, ("time_margin", "watchdog", "memory_limit", "output_limit"))
    p.add_argument(
        "--no-isolation", dest="isolate", action="store_false", default=None,
        help="run bots inside the worker processes: faster, but a hung or crashing bot is not contained "
        f"(default: {'isolated' if d['isolate'] else 'not isolated'})",
    )
    _sandbox_flag(p)
    derived = "GAME-BUDGET-HASH of the settings that are not grown"
    p.add_argument("--name", help=f"tournament name in the database (default: {d['name'] or derived})")
    p.add_argument("--db", help=f"results database, SQLite (default {d['database']})")
    jobs = "the number of CPUs" if d["jobs"] is None else d["jobs"]
    p.add_argument("--jobs", type=int, help=f"worker processes (default: {jobs})")
    p.add_argument(
        "--dask", metavar="ADDRESS", help="run on a Dask cluster: tcp://HOST:PORT, or 'local' (default: this machine's processes)"
    )
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE", help="extra plugin module to load (default: none)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")
    p.add_argument("--html", metavar="FILE", help="at the end, write the HTML report into FILE (as 'arena report --html')")

    _sprt_parser(sub)
    _ladder_parser(sub, d)

    p = sub.add_parser("report", help="print or write the report of a stored tournament")
    p.add_argument("db", help="results database")
    p.add_argument("--tournament", help="tournament name (default: the latest)")
    p.add_argument(
        "--format", choices=REPORT_FORMATS, help="text (the default), csv, markdown, json or html (the one-file "
        "page --html writes); with --out FILE, the default is the file's extension's (.txt .md .csv .json .html)",
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

    add_tree_parser(sub)
    return parser


def _opening_flags(p: argparse.ArgumentParser, d: dict) -> None:
    p.add_argument(
        "--openings", metavar="PLIES|FILE",
        help=f"random opening plies per game pair, or an openings file: one opening per line, "
        f"each played twice with colours swapped (default {d['openings']})",
    )
    p.add_argument(
        "--shuffle", action="store_true", default=None,
        help="play the openings file's lines in an order shuffled by --seed, not the file's "
        f"(default {format_value(d['shuffle'])})",
    )
    p.add_argument("--seed", type=int, help=f"master seed (default {d['seed']})")


def _sprt_parser(sub) -> None:
    from arena.front.settings import SPRT_SETTINGS as s

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
    p.add_argument("--game", help=f"game spec (default {s['game']})")
    p.add_argument("--budget", help=f"default per-move budget (default {_setting_text(s['budget'])})")
    p.add_argument("--elo0", type=float, help=f"Elo difference under H0 (default {s['elo0']:g})")
    p.add_argument("--elo1", type=float, help=f"Elo difference under H1, more than elo0 (default {s['elo1']:g})")
    p.add_argument("--alpha", type=float, help=f"chance of accepting H1 when H0 holds (default {s['alpha']:g})")
    p.add_argument("--beta", type=float, help=f"chance of accepting H0 when H1 holds (default {s['beta']:g})")
    p.add_argument("--model", choices=("normalized", "logistic"), help=f"the Elo of elo0 and elo1 (default {s['model']})")
    p.add_argument("--max-games", type=int, metavar="N", help=f"stop undecided after N games, even (default {s['max_games']})")
    _opening_flags(p, s)
    _limit_flags(p, ("time_margin", "watchdog", "memory_limit", "output_limit"))
    p.add_argument("--no-isolation", dest="isolate", action="store_false", default=None, help="run bots inside the worker processes")
    _sandbox_flag(p)
    p.add_argument("--name", help="tournament name in the database (default: GAME-BUDGET-HASH of the settings)")
    p.add_argument("--db", help=f"results database, SQLite (default {s['database']})")
    p.add_argument("--jobs", type=int, help="worker processes (default: the number of CPUs)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster: tcp://HOST:PORT, or 'local'")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE", help="extra plugin module to load (default: none)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")
    p.add_argument("--html", metavar="FILE", help="at the end, write the HTML report into FILE (as 'arena report --html')")


def _ladder_parser(sub, d: dict) -> None:
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
    p.add_argument("--game", help=f"game spec, set at creation (default {d['game']})")
    p.add_argument("--budget", help=f"default per-move budget, set at creation (default {_setting_text(d['budget'])})")
    _opening_flags(p, d)
    p.add_argument("--placement", type=int, metavar="K",
                   help="pairings of a new bot's placement gauntlet, two games each, set at creation (default 4)")
    p.add_argument("--batch", type=int, metavar="P",
                   help="most rating pairings per batch (ratings are refit between batches), set at creation "
                   "(default: every placed bot once a batch)")
    _limit_flags(p, ("time_margin", "watchdog", "memory_limit", "output_limit"))
    p.add_argument("--no-isolation", dest="isolate", action="store_false", default=None,
                   help="run bots inside the worker processes, set at creation")
    _sandbox_flag(p)
    p.add_argument("--jobs", type=int, help="worker processes (default: the number of CPUs)")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE", help="extra plugin module to load (default: none)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")


_LIMIT_HELP = {
    "time_margin": ("SECONDS", float, "grace past a time budget (default {})"),
    "watchdog": ("SECONDS", float, "limit on a move without a time budget, and on start-up (default {})"),
    "memory_limit": ("MIB", int, "memory limit per bot process (default {}; 0: none)"),
    "output_limit": ("KIB", int, "stdout+stderr limit per bot and game (default {})"),
}


def _limit_flags(p: argparse.ArgumentParser, keys) -> None:
    """The flags of the limits in ``keys``, their defaults taken from DEFAULT_SETTINGS."""
    for key in keys:
        metavar, kind, text = _LIMIT_HELP[key]
        default = DEFAULT_SETTINGS[key]
        shown = "none" if default is None else f"{default:g}"
        p.add_argument("--" + key.replace("_", "-"), type=kind, metavar=metavar, help=text.format(shown))


def _sandbox_flag(p: argparse.ArgumentParser, default=None) -> None:
    p.add_argument(
        "--sandbox", action="store_true", default=default,
        help="run every bot process under bubblewrap: no network, no files but its own and a scratch folder "
        f"(default: {'sandboxed' if DEFAULT_SETTINGS['sandbox'] else 'not sandboxed'})",
    )


def _setting_text(value) -> str:
    """A default setting as a user would type it."""
    if isinstance(value, dict):  # a bot or budget given as a TOML table
        return ",".join(f"{k}={format_value(v)}" for k, v in value.items())
    return format_value(value)


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return 2
        # run, sprt and play load plugins once they know whether the run is sandboxed
        registry = None if args.command in LATE_PLUGINS else command_registry(getattr(args, "plugin", []))
        with interrupt.handled():
            return COMMANDS[args.command](registry, args)
    except ArenaError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:  # read past the checks at opening: a damaged page
        print(f"arena: error: {damaged(getattr(args, 'db', None) or 'the results database', exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\narena: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        sys.stderr.close()  # output piped into e.g. `head`: nothing left to say
        return 0


def _listing(registry: Registry, kind: str, args) -> int:
    table = registry.games if kind == "games" else registry.bots
    entries = [{**entry.cls.describe(), "plugin": entry.plugin} for entry in table.values()]
    if args.json:
        print(json.dumps(entries, indent=2))
        return 0
    width = max(len(e["name"]) for e in entries)
    for e in entries:
        print(f"{e['name']:<{width}}  {e['description']}")
        for p in e["parameters"]:
            default = format_value(tuple(p["default"]) if isinstance(p["default"], list) else p["default"])
            extra = f"; one of {', '.join(map(str, p['choices']))}" if "choices" in p else ""
            print(f"{'':<{width}}    {p['name']}={default} ({p['type']}{extra}): {p['help']}")
    return 0


def cmd_run(registry: Registry, args) -> int:
    from arena.front.run import run_tournament
    from arena.front.settings import build, settings

    overrides = {
        "game": args.game,
        "bots": args.bot,
        "budget": args.budget,
        "games": args.games,
        "openings": args.openings,
        "shuffle": args.shuffle,
        "seed": args.seed,
        "format": args.format,
        "challengers": args.challenger,
        "rounds": args.rounds, "confidence": args.confidence, "max_games": args.max_games,
        "time_margin": args.time_margin,
        "watchdog": args.watchdog,
        "memory_limit": args.memory_limit,
        "output_limit": args.output_limit,
        "isolate": args.isolate,
        "sandbox": args.sandbox,
        "name": args.name,
        "database": args.db,
        "jobs": args.jobs,
    }
    html = check_html_target(args.html) if args.html else None  # a bad path fails before any game
    values = settings(args.config, overrides)
    values.update(dask=args.dask, progress=not args.no_progress)
    config, run = build(values)
    registry = config_registry(args.plugin, config)
    result = run_tournament(config, run, plugins=args.plugin, registry=registry)
    db = str(run.database)
    if result.interrupted:
        stored = result.already + result.played
        print(
            f"arena: interrupted: {stored} of {result.scheduled} games are stored in {db!r}; "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    name = result.tournament.name
    print(report_text(db, name))
    print(f"\n{result.already + result.played} of {result.scheduled} games in {db!r} (tournament {name!r}; {result.played} played now)")
    if html is not None:
        print(f"HTML report: {write_html_report(db, html, name, registry)}")
    if result.failed:
        print(
            f"arena: {len(result.failed)} games could not be played (see the warnings above); "
            "run the same command again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


def _sprt(registry: Registry, args) -> int:
    from arena.front.sprt import cmd_sprt

    return cmd_sprt(registry, args)


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
}
