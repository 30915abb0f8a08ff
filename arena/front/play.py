"""``arena play``: one game on the terminal, a person or bots on either side.

Bots are named, given budgets and supervised as in ``arena run``: the same bot syntax
(``[NAME=]SPEC[@BUDGET]``), the same default budget and the same watchdog.

The terminal shows the whole game, ply by ply, except where a person plays a game of hidden
information: then it shows every ply as all seats saw it, the person's own moves in full and
before each of them the person's observation, never the position, until the game is over;
then the whole game (every ply, deals included, and the final position), as at a showdown.
Two people at one terminal see each other's observations: the terminal is shared.
"""

from __future__ import annotations

import random
import sys

from arena.budget import Budget
from arena.execution.isolation import RemoteBot, host_pool
from arena.front.options import overrides
from arena.front.settings import UsageError, parse_entrant, settings, with_clock
from arena.execution.sandbox.probing import check_sandbox
from arena.front.entrants import short_names
from arena.game import JOINT, Game
from arena.limits import Limits
from arena.plugins import Registry
from arena.records import GameRecord, MoveRecord
from arena.referee import play_game
from arena.view import check_in_process

#: Bot parameters that bound a bot's own search; with none of them set and no budget, a move may never end.
OWN_LIMITS = ("depth", "max_depth", "playouts")


def cmd_play(registry: Registry | None, args) -> int:
    """Play one game; ``registry`` None: load the plugins here (in a sandboxed game, probe them)."""
    values = settings(None, overrides(args, "play"))
    args.isolate, args.sandbox = values["isolate"], values["sandbox"]
    default = with_clock(values)
    limits = Limits(time_margin=float(values["time_margin"]), watchdog=float(values["watchdog"]), sandbox=args.sandbox)
    if args.sandbox:
        check_sandbox(args.isolate)
    given = [parse_entrant(text) for text in args.bot]
    if registry is None:
        from arena.front.run import command_registry

        registry = command_registry(args.plugin, sandboxed=args.sandbox, isolate=args.isolate, game=args.game,
                                    specs=[e.spec for e in given], limits=limits)
    game = registry.game(args.game)
    seats = game.model.players
    if len(args.bot) != seats:
        want = "exactly two --bot options" if seats == 2 else f"{seats} --bot options, one per seat of {game.name}"
        raise UsageError(f"play needs {want}, got {len(args.bot)}; bots: {', '.join(registry.bots)}")
    entrants = short_names(given, registry)
    bots = [registry.bot(e.spec) for e in entrants]
    for bot in bots:
        if bot.external:
            bot.limits = limits  # engines run in processes of their own, under these limits (and started to check them)
        bot.check_game(game)
    budgets = tuple(e.budget if e.budget is not None else default for e in entrants)
    names = tuple(e.name for e in entrants)  # in play output always beside the game's player name
    for player, bot in enumerate(bots):
        if unbounded(bot, budgets[player]):
            if args.isolate:
                risk = f"a move that runs past the watchdog ({limits.watchdog:g} s, --watchdog) loses on time"
            else:
                risk = "with --no-isolation, no watchdog stops its moves"
            print(f"arena: warning: {names[player]!r} has no budget and no depth limit: {risk}", file=sys.stderr)
    # 63 bits: in a game with chance the dice come from the seed (a game replays with --seed), so
    # a bot must not be able to search the seeds its own could come from
    seed = args.seed if args.seed is not None else random.randrange(1 << 63)

    # search bots play in supervised processes, as in tournaments; a person plays here
    plugins = tuple(args.plugin)  # the bot processes load them too
    players = [RemoteBot(b.spec, registry.hosts(b.spec) or (registry.plugins if registry.sandboxed else plugins), limits) if args.isolate and not (b.interactive or b.external) else b for b in bots]
    check_in_process(game, players, bool(values["trusted"]))  # before anything is printed: one line
    print(header(game, names, bots, budgets, seed))

    people = [bot.interactive for bot in bots]
    for bot in bots:
        if bot.interactive and args.quiet:
            bot.show_board = True  # a person needs the board before each move
    # a person at a game of hidden information sees only their own observations (their bot shows
    # them) and every ply as all seats see it, until the game ends
    private = game.model.hidden and any(people)
    show, last = _display(game, names, people, args.quiet, private)
    if not args.quiet and not private:
        print(game.render(last[0]))
    try:
        record = play_game(
            game, players, budgets=budgets, seed=seed, observer=show, names=names, time_margin=limits.time_margin,
            trusted=bool(values["trusted"]),
        )
    finally:
        host_pool().close()
        for bot in bots:
            if bot.external:
                bot.close()
    if private:  # the game is over: the whole of it, as at a showdown
        print("\nthe whole game: " + " ".join(m.move for m in record.moves))
    if args.quiet or private:
        print(game.render(last[0]))
    print(f"\n{result_line(game, record)}")
    return 0


def _display(game: Game, names, people, quiet: bool, private: bool):
    """The referee's observer for ``arena play`` and the last state it saw (a one-item list).

    Each ply gets a line; the position is drawn after each turn (after the whole of a joint
    move, whose plies come one by one). ``private``: a person plays a game of hidden
    information, so a ply shows as every seat saw it (``Game.public_text``), a person's own in
    full, and no position is drawn."""
    last = [game.initial_state()]
    turn = [game.initial_state(), []]  # the state before the turn under way, and its plies' lines so far

    def show(state, record: MoveRecord):
        before, lines = turn
        last[0] = state
        who = names[record.player] if record.player >= 0 else "chance"
        if private and not (record.player >= 0 and people[record.player]):
            public = game.public_text(before, game.parse_move(record.move))
            lines.append(f"move {record.ply + 1}: chance gives {public}" if record.player < 0
                         else f"move {record.ply + 1}: {game.player_name(record.player)} ({who}) plays {public}")
        else:
            lines.append(move_line(record, who, game))
        if game.to_move(before) == JOINT and len(lines) < len(game.acting(before)):
            return  # the joint move's other plies are still to come
        turn[:] = [state, []]
        mover = None if game.is_terminal(state) else game.to_move(state)
        upcoming = () if mover is None else game.acting(state) if mover == JOINT else (mover,)
        if not quiet or private or any(s >= 0 and people[s] for s in upcoming):
            for line in lines:
                print(f"\n{line}")
        if not quiet and not private:
            print(game.render(state))

    return show, last


def unbounded(bot, budget: Budget) -> bool:
    """True for a bot whose moves nothing bounds: no budget, and none of its own limits set.

    Bots without parameters (random, greedy) do a fixed, small amount of work per move.
    """
    if bot.interactive or not budget.unlimited or not bot.parameters:
        return False
    return all(bot.params.get(name) is None for name in OWN_LIMITS)


def header(game: Game, names, bots, budgets, seed: int) -> str:
    sides = [f"{game.player_name(i)}: {names[i]}" for i in range(len(names))]
    shown = [str(b) for b, bot in zip(budgets, bots) if not bot.interactive]
    if len(set(shown)) > 1:  # budgets differ: each after its bot
        sides = [s if bot.interactive else f"{s} (budget {b})" for s, b, bot in zip(sides, budgets, bots)]
        extra = ""
    else:
        extra = f"budget {shown[0]}, " if shown else ""
    return f"{game.spec}: {'  vs  '.join(sides)}  ({extra}seed {seed})"


def move_line(record: MoveRecord, who: str, game: Game | None = None) -> str:
    """One move with what the search reported; with ``game``, the player named as the game names it."""
    if record.player < 0:
        return f"move {record.ply + 1}: chance gives {record.move}"
    nodes = record.nodes
    parts = [f"{nodes:,} node{'' if nodes == 1 else 's'}", f"{record.seconds:.3f}s"]
    if record.depth is not None:
        parts.append(f"depth {record.depth}")
    if record.score is not None:
        parts.append(f"score {_signed(record.score)}")
    if len(record.pv) > 1:
        parts.append("pv " + " ".join(record.pv))
    if game is not None:
        who = f"{game.player_name(record.player)} ({who})"
    return f"move {record.ply + 1}: {who} plays {record.move}  ({', '.join(parts)})"


def _signed(score: float) -> str:
    """``+0.5``, ``-1``, and ``0`` for zero of either sign."""
    text = f"{score:+.3g}"
    return "0" if text in ("+0", "-0") else text


def result_line(game: Game, record: GameRecord) -> str:
    line = f"result {record.result} ({record.termination}): {record.message}"
    if record.winner is not None:
        line += f"; winner: {game.player_name(record.winner)} ({record.players[record.winner]})"
    return line
