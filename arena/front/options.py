"""Every setting of a tournament, declared once: the table the flags of each command, the TOML
keys, the defaults, the help, growth's and the ladder's checks are all read from.

A row is an ``arena.formats.Setting``. The formats declare their own rows
(``Format.settings``); they are listed here after ``format``. The order is the order of
``--help`` and of the settings a message lists.
"""

from __future__ import annotations

import argparse
from typing import Any

from arena.formats import formats
from arena.formats.base import Setting
from arena.limits import DEFAULT_LIMITS
from arena.params import format_value

DEFAULT_DATABASE = "arena-results.db"
RUNS = ("run", "sprt", "ladder")  # the commands that run games into a database

_COMMON = (
    Setting("name", "text", None, "tournament name in the database (default: {default})", commands=("run", "sprt"),
            none="GAME-BUDGET-HASH of the settings that are not grown"),
    Setting("game", "text", "connect4", "game spec (default {default})", commands=RUNS, stored=("game",), fixed=True),
    Setting("bots", "texts", ["random", "greedy", "minimax:depth=3", "alphabeta:depth=5", "iterative"],
            "a bot (repeat); replaces the file's bots (default {default})", flag="--bot", metavar="[NAME=]SPEC[@BUDGET]",
            stored=("bots",), grows=True),
    Setting("budget", "text", "nodes=2000", "default per-move budget: nodes=N, time=SECONDS, depth=D, cpu=SECONDS, tc=CLOCK "
            "(default {default})", commands=(*RUNS, "play"), stored=("budget",), fixed=True),
    Setting("tc", "text", None, "a chess clock for every bot: [MOVES/]SECONDS[+INCREMENT] as fastchess and cutechess "
            "write it (40/60+0.6, 10+0.1, 60); added to the budget (a bot's own: @tc=...), which is then the clock "
            "alone unless --budget is given (default: {default})", metavar="CLOCK", commands=(*RUNS, "play"),
            stored=("budget",), fixed=True, none="no clock"),
    Setting("games", "int", 40, "games per pairing, even: colours are swapped (default {default})",
            stored=("games_per_pairing",), grows=True),
    Setting("openings", "text", 4, "random opening plies per game pair, or an openings file: one opening per line, "
            "or a chess book in EPD (.epd) or PGN (.pgn); each played twice with colours swapped (default {default})", metavar="PLIES|FILE", commands=RUNS,
            stored=("opening_plies", "opening_book"), fixed=True),
    Setting("shuffle", "on", False, "play the openings file's lines in an order shuffled by --seed, not the file's "
            "(fastchess's and cutechess's order=random) (default {default})", commands=RUNS, stored=("opening_book",), fixed=True),
    Setting("plies", "int", None, "with a PGN openings file: the first N plies of each game (default: {default})",
            metavar="N", commands=RUNS, stored=("opening_book",), fixed=True, none="all"),
    Setting("seed", "int", 1, "master seed (default {default})", commands=RUNS, stored=("seed",), fixed=True),
    Setting("draw", "text", None, "draw adjudication, as fastchess's -draw: 'movenumber=M movecount=N score=S' "
            "(defaults 0, 1, 0): from move M, N moves a side with both scores within S centipawns (default: {default})",
            metavar="RULES", commands=RUNS, stored=("adjudication",), fixed=True, none="none"),
    Setting("resign", "text", None, "resign adjudication, as fastchess's -resign: 'movecount=N score=S [twosided=true]' "
            "(defaults 1, 0): a bot whose own score is S centipawns down for N moves loses; twosided: the winner's "
            "score agrees (default: {default})", metavar="RULES", commands=RUNS, stored=("adjudication",), fixed=True,
            none="none"),
    Setting("maxmoves", "int", None, "draw a game once each side has made N moves, as fastchess's -maxmoves "
            "(default: {default})", metavar="N", commands=RUNS, stored=("adjudication",), fixed=True, none="no limit"),
    Setting("format", "choice", "round-robin", "tournament format (default {default})", stored=("format",)),
)
_LIMITS = (
    Setting("time_margin", "float", DEFAULT_LIMITS.time_margin, "grace past a time budget (default {default})",
            metavar="SECONDS", commands=(*RUNS, "play"), stored=("time_margin",), fixed=True),
    Setting("isolate", "off", True, "run bots in the arena's own processes, not each in a supervised process of its "
            "own: faster, but a hung or crashing bot is not contained (default: {default})", flag="--no-isolation",
            commands=(*RUNS, "play"), stored=("isolate",), fixed=True, words=("isolated", "not isolated")),
    Setting("sandbox", "on", False, "run every bot process under bubblewrap: no network, no files but its own and a "
            "scratch folder (default: {default})", commands=(*RUNS, "play"), stored=("sandbox",), fixed=True,
            words=("sandboxed", "not sandboxed")),
    Setting("trusted", "on", False, "let bots play a game of hidden information or simultaneous moves in the "
            "arena's own process (with --no-isolation), where they could read what is hidden: only for bots you "
            "trust (default: {default})", commands=(*RUNS, "play"), stored=("trusted",), fixed=True,
            words=("trusted", "not trusted")),
    Setting("independent_chance", "on", False, "in a game with chance, give every game dice of its own; by default "
            "a pair's two games draw the same outcomes seat by seat, so the luck cancels (default: {default})",
            commands=RUNS, stored=("independent_chance",), fixed=True, words=("independent chance", "duplicate chance")),
    Setting("watchdog", "float", DEFAULT_LIMITS.watchdog, "limit on a move without a time budget, and on start-up "
            "(default {default})", metavar="SECONDS", commands=(*RUNS, "play"), stored=("watchdog",),
            fixed=True),
    Setting("memory_limit", "int", DEFAULT_LIMITS.memory_limit, "memory limit per bot process (default {default}; "
            "0: none)", metavar="MIB", commands=RUNS, stored=("memory_limit",), fixed=True),
    Setting("output_limit", "int", DEFAULT_LIMITS.output_limit, "stdout+stderr limit per bot and game (default "
            "{default})", metavar="KIB", commands=RUNS, stored=("output_limit",), fixed=True),
)
_RUN = (
    Setting("database", "text", DEFAULT_DATABASE, "results database, SQLite (default {default})", flag="--db",
            commands=("run", "sprt")),
    Setting("jobs", "int", None, "worker processes (default: {default})", commands=RUNS, none="the number of CPUs"),
    Setting("dask", "text", None, "run on a Dask cluster: tcp://HOST:PORT, or 'local' (default: this machine's "
            "processes)", metavar="ADDRESS", commands=RUNS, flag_only=True),
    Setting("affinity", "on", False, "run each worker process, with the bots and engines it starts, on one CPU of "
            "its own (as fastchess's -use-affinity): fewer wake-ups across CPUs, for a machine the run has to "
            "itself; not with --dask (default: any CPU)", commands=RUNS, flag_only=True),
    Setting("progress", "off", True, "no progress bar (default: a bar on stderr)", flag="--no-progress", commands=RUNS,
            flag_only=True),
)
_SPRT_BOTS = (
    Setting("new", "text", None, "the bot under test", flag=None, commands=("sprt",)),
    Setting("base", "text", None, "the bot it is tested against", flag=None, commands=("sprt",)),
)


def table() -> tuple[Setting, ...]:
    """Every row, in order: the common ones, each format's after ``format``, the limits, how a run runs."""
    own = tuple(row for cls in formats().values() for row in cls.settings)
    return (*_COMMON, *own, *_LIMITS, *_RUN, *_SPRT_BOTS)


def rows(command: str) -> list[Setting]:
    """The rows ``command`` takes, each key once."""
    seen, out = set(), []
    for row in table():
        if command in row.commands and row.key not in seen:
            seen.add(row.key)
            out.append(row)
    return out


def defaults(command: str = "run") -> dict[str, Any]:
    """What ``command`` plays with no file and no flag: every TOML key it takes, with its default."""
    return {row.key: row.default for row in rows(command) if not row.flag_only}


def shown(value, row: Setting | None = None) -> str:
    """A default as a user would type it (``row``: how its help shows None, True and False)."""
    if value is None:
        return row.none if row is not None else "none"
    if isinstance(value, bool) and row is not None and row.words:
        return row.words[0] if value else row.words[1]
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return " ".join(map(shown, value)) or "none"
    if isinstance(value, dict):  # a bot or budget given as a TOML table
        return ",".join(f"{k}={format_value(v)}" for k, v in value.items())
    return format_value(value)


def add_flags(parser: argparse.ArgumentParser, command: str, values: dict[str, Any], skip=()) -> None:
    """The flags of ``command``'s settings (all None when not given), each with its help and the
    default in ``values`` (the command's defaults, read when the parser is built)."""
    creates = any(cls.command == command and cls.fixed_at_creation for cls in formats().values())
    for row in rows(command):
        if row.flag is None or row.key in skip:
            continue
        text = row.help.replace("{default}", shown(values.get(row.key, row.default), row))
        if creates and row.fixed:
            text += ", set at creation"
        options = {"dest": row.key, "help": text, "default": None}
        if row.kind in ("on", "off"):
            parser.add_argument(row.option, action="store_true" if row.kind == "on" else "store_false", **options)
            continue
        if row.metavar:
            options["metavar"] = row.metavar
        if row.kind == "texts":
            options["action"] = "append"
        elif row.kind == "choice":
            options["choices"] = row.choices or tuple(n for n, cls in formats().items() if cls.command == command)
        elif row.kind in ("int", "float"):
            options["type"] = int if row.kind == "int" else float
        parser.add_argument(row.option, **options)


def overrides(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """The settings given as flags (None: not given), by key."""
    return {row.key: getattr(args, row.key, None) for row in rows(command) if row.flag is not None}


def stored_flags() -> dict[str, str]:
    """The flag(s) that set each stored key, in the table's order, for messages: ``arena run``'s
    where it has one, else every command's (``--elo0/--elo1/--alpha/--beta/--model``)."""
    by_key: dict[str, list[Setting]] = {}
    for row in table():
        for key in row.stored:
            by_key.setdefault(key, []).append(row)
    out = {}
    for key, found in by_key.items():
        chosen = [row for row in found if "run" in row.commands] or found
        out[key] = "/".join(dict.fromkeys(row.option for row in chosen if row.flag is not None))
    return out
