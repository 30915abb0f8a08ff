"""``arena play``: one game on the terminal, a person or bots on either side."""

from __future__ import annotations

import random

from arena.budget import Budget
from arena.execution.isolation import RemoteBot, host_pool
from arena.front.settings import UsageError
from arena.plugins import Registry
from arena.records import GameRecord, MoveRecord
from arena.referee import play_game


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
            print(f"\n{move_line(record, bots[record.player].spec)}")
            print(game.render(state))

    if not args.quiet:
        print(game.render(game.initial_state()))
    # search bots play in supervised processes, as in tournaments; a person plays here
    players = [RemoteBot(b.spec) if args.isolate and not b.interactive else b for b in bots]
    try:
        record = play_game(game, players, budgets=(budget, budget), seed=seed, observer=show, names=[b.spec for b in bots])
    finally:
        host_pool().close()
    if args.quiet:
        print(game.render(game.play([m.move for m in record.moves])))
    print(f"\n{result_line(record)}")
    return 0


def move_line(record: MoveRecord, who: str) -> str:
    parts = [f"{record.nodes:,} nodes", f"{record.seconds:.3f}s"]
    if record.depth is not None:
        parts.append(f"depth {record.depth}")
    if record.score is not None:
        parts.append(f"score {record.score:+.3g}")
    if len(record.pv) > 1:
        parts.append("pv " + " ".join(record.pv))
    return f"move {record.ply + 1}: {who} plays {record.move}  ({', '.join(parts)})"


def result_line(record: GameRecord) -> str:
    line = f"result {record.result} ({record.termination}): {record.message}"
    if record.winner is not None:
        line += f"; winner: {record.players[record.winner]}"
    return line
