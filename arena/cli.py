"""The ``arena`` command line."""

from __future__ import annotations

import argparse
import json
import random
import sys

from arena.budget import Budget
from arena.errors import ArenaError
from arena.plugins import Registry, get_registry
from arena.records import GameRecord, MoveRecord
from arena.referee import play_game


class UsageError(ArenaError):
    """A command line that cannot be run as given."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit code 2, like every other user error
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena", description="Game-playing bots, a referee, and tournaments.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    for kind in ("games", "bots"):
        p = sub.add_parser(kind, help=f"list the registered {kind} and their parameters")
        p.add_argument("--json", action="store_true", help="print JSON for scripts")

    p = sub.add_parser("play", help="play one game and show the board after each move")
    p.add_argument("game", help="game spec: NAME or NAME:param=value,... (e.g. connect4:columns=8)")
    p.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="SPEC",
        help="bot spec, given twice (first moves first): NAME or NAME:param=value,...; 'human' is you",
    )
    p.add_argument("--budget", default="none", help="per-move budget: nodes=N, time=SECONDS, depth=D (comma-separated)")
    p.add_argument("--seed", type=int, default=None, help="seed for the bots' randomness (default: a random one)")
    p.add_argument("--quiet", action="store_true", help="show only the final board and result")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return 2
        registry = get_registry()
        for line in registry.errors:
            print(f"arena: warning: {line}", file=sys.stderr)
        return COMMANDS[args.command](registry, args)
    except ArenaError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
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
            default = json.dumps(p["default"])
            extra = f"; one of {', '.join(map(str, p['choices']))}" if "choices" in p else ""
            print(f"{'':<{width}}    {p['name']}={default} ({p['type']}{extra}): {p['help']}")
    return 0


def cmd_play(registry: Registry, args) -> int:
    game = registry.game(args.game)
    if len(args.bot) != 2:
        raise UsageError(f"play needs exactly two --bot options, got {len(args.bot)}; bots: {', '.join(registry.bots)}")
    bots = [registry.bot(spec) for spec in args.bot]
    for bot in bots:
        bot.check_game(game)
    budget = Budget.parse(args.budget)
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    names = tuple(f"{game.player_name(i)}: {bot.spec}" for i, bot in enumerate(bots))
    print(f"{game.spec}: {names[0]}  vs  {names[1]}  (budget {budget}, seed {seed})")

    def show(state, record: MoveRecord):
        if not args.quiet:
            print(f"\n{_move_line(record, bots[record.player].spec)}")
            print(game.render(state))

    state = game.initial_state()
    if not args.quiet:
        print(game.render(state))
    record = play_game(game, bots, budgets=(budget, budget), seed=seed, observer=show, names=[b.spec for b in bots])
    if args.quiet:
        print(game.render(game.play([m.move for m in record.moves])))
    print(f"\n{_result_line(record)}")
    return 0


def _move_line(record: MoveRecord, who: str) -> str:
    parts = [f"{record.nodes:,} nodes", f"{record.seconds:.3f}s"]
    if record.depth is not None:
        parts.append(f"depth {record.depth}")
    if record.score is not None:
        parts.append(f"score {record.score:+.3g}")
    if len(record.pv) > 1:
        parts.append("pv " + " ".join(record.pv))
    return f"move {record.ply + 1}: {who} plays {record.move}  ({', '.join(parts)})"


def _result_line(record: GameRecord) -> str:
    line = f"result {record.result} ({record.termination}): {record.message}"
    if record.winner is not None:
        line += f"; winner: {record.players[record.winner]}"
    return line


COMMANDS = {
    "games": lambda registry, args: _listing(registry, "games", args),
    "bots": lambda registry, args: _listing(registry, "bots", args),
    "play": cmd_play,
}
