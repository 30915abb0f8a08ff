"""The referee: plays one game between bots, one per seat, and trusts none of them."""

from __future__ import annotations

import time
from typing import Callable, Sequence

from arena.bot import Bot, Decision
from arena.checks import (  # noqa: F401 (MAX_* and legal_index are imported from here too)
    MAX_DEPTH, MAX_NODES, MAX_PV, _checked_decision, _checked_utilities, _describe, _find, _real, _shown, _whole,
    forfeit_utilities, legal_index,
)
from arena.adjudication import Adjudication
from arena.budget import Budget, BudgetExhausted, Counter, counted
from arena.clock import Clocks
from arena.dice import Dice, seed_key
from arena.errors import BotFault, ParameterError
from arena.game import Game, State, bounds_problem, texts_need_state
from arena.limits import DEFAULT_LIMITS
from arena.records import GameRecord, MoveRecord, Termination
from arena.turns import Adjudicated, Forfeit, Seats, chance_ply, last_seat, play_views, plies
from arena.view import check_in_process

Observer = Callable[[State, MoveRecord], None]

_UNLIMITED = Budget()
_MASK = (1 << 64) - 1
_new_move = tuple.__new__  # MoveRecord from a tuple, without its __new__ written in Python


def bot_seed(seed: int, player: int) -> int:
    """The seed a player's bot gets for a game played with ``seed``: 63 well-mixed bits.

    SplitMix64's finalizer (a bijection on 64 bits) of the seed offset by the player:
    a few integer operations, where seeding a random.Random costs microseconds.
    """
    z = (seed + (player + 1) * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return (z ^ (z >> 31)) >> 1


def play_game(
    game: Game,
    bots: Sequence[Bot],
    *,
    names: Sequence[str] | None = None,
    budgets: Sequence[Budget] | None = None,
    seed: int = 0,
    opening: Sequence = (),
    observer: Observer | None = None,
    time_margin: float = DEFAULT_LIMITS.time_margin,
    dice: Dice | None = None,
    trusted: bool = False,
    adjudication: Adjudication | None = None,
) -> GameRecord:
    """Play one game, a bot per seat of ``game`` (``game.model.players``); ``bots[0]`` moves
    first. Returns the full record.

    Each bot is handed the game as ``counted`` makes it: every position its ``apply``
    makes counts against the move's budget, and the arena counts the root. Every move is
    checked with ``legal_move`` (by default, against ``legal_moves``). A bot that raises, returns an illegal
    move or overruns its time budget by more than ``time_margin`` loses the game at once
    with the game's lowest utility (``forfeit_utilities``), and the record says why.

    At a chance node the referee draws the outcome from ``dice`` (``arena.dice``; default:
    streams from ``seed``, as foreseeable as it is) and records it as a ply of seat
    ``CHANCE``; in a game with chance the bots' seeds come from the dice, one way.

    In a game of hidden information or simultaneous moves (``Model.imperfect``) each bot is
    handed its seat's ``arena.View``, never the state; bots of this process are refused
    there unless ``trusted`` (``arena.view.check_in_process``).

    A budget with a time control (``Budget.tc``) gives its seat a clock (``arena.clock``): each
    move is handed the budget with the clocks as they stand (``Budget.clock``), its time is
    taken off, and a clock run out past ``time_margin`` loses on time (``Termination.CLOCK``).
    ``adjudication`` ends a game early by its rules (``arena.adjudication``).
    """
    _check_arguments(game, bots, names, budgets, seed, time_margin)
    if adjudication:
        adjudication.check(game)
    model = game.model
    check_in_process(game, bots, trusted)
    chance = model.secret  # games whose bots' seeds come from the dice, one way
    if dice is None and chance:
        dice = Dice(seed_key(seed))
    names = tuple(names) if names else tuple(b.spec for b in bots)
    seats = len(bots)
    budgets = tuple(budgets) if budgets else (_UNLIMITED,) * seats
    state = game.play(opening) if opening else game.initial_state()
    moves: list[MoveRecord] = []
    opening_texts = _opening_text(game, opening) if opening else ()

    def forfeit(player: int, why: Termination, message: str) -> GameRecord:
        utilities = forfeit_utilities(game, player, seats)
        return _record(game, names, budgets, seed, opening_texts, moves, utilities, why, player, message)

    controls = tuple(budget.tc for budget in budgets)
    clocks = Clocks(controls) if any(controls) else None
    judge = adjudication.judge(game, len(opening)) if adjudication else None
    counters = tuple(Counter(budget, margin=time_margin) for budget in budgets)  # one per seat, reset every move
    # what each bot is handed: the game, counting every position its apply makes
    views = tuple(counted(game, counter) for counter in counters)
    for player, bot in enumerate(bots):
        try:
            bot.new_game(views[player], player, dice.bot_seed(seed, player) if chance else bot_seed(seed, player))
            if opening_texts and hasattr(bot, "opening"):
                bot.opening(opening_texts)
        except BotFault as fault:
            return forfeit(player, fault.termination, f"{names[player]!r} failed to start a game: {fault.detail}")
        except Exception as exc:
            return forfeit(player, Termination.CRASH, f"{names[player]!r} failed to start a game: {_describe(exc)}")

    followers = [bot.moved for bot in bots if getattr(bot, "follows_moves", False)]  # told every move
    # the longest a move may take, margin included (None: no time budget, or a person)
    longest = tuple(
        None if budget.time is None or getattr(bot, "interactive", False) else budget.time + time_margin
        for budget, bot in zip(budgets, bots)
    )
    # the most CPU seconds a move may use, margin included (None: no cpu budget, or a person)
    most_cpu = tuple(
        None if budget.cpu is None or getattr(bot, "interactive", False) else budget.cpu + time_margin
        for budget, bot in zip(budgets, bots)
    )
    # move -> its text, for games that write a move the same in every position (None: ask each time)
    texts: dict | None = None if texts_need_state(game) else {}
    clock = time.perf_counter
    # each bot's CPU clock, read around its moves: its process tree's (isolated bots and engines,
    # None where it cannot be read), else this thread's, which runs it; a system call each time,
    # so for a bot in this process only under a cpu budget
    cpu_clocks = tuple(
        getattr(bot, "cpu_seconds", None) or (time.thread_time if budget.cpu is not None else None)
        for bot, budget in zip(bots, budgets)
    )
    # bots whose nodes are counted in their own process (isolated ones): recorded as reported
    reports = tuple(getattr(bot, "reports_nodes", False) is True for bot in bots)
    ply = len(opening)
    opening_seat = last_seat(game, opening) if chance else 0  # the seat of the opening's latest decision
    if model.imperfect:
        table = Seats(game, bots, names, budgets, counters, views, longest, most_cpu, cpu_clocks, reports, time_margin,
                      clocks, judge)
        history = [game.public_text(before, move) for before, _, move in plies(game, opening)]
        try:
            state = play_views(table, state, moves, ply, dice, history, opening_seat, followers, observer)
        except Forfeit as out:
            return forfeit(out.seat, out.termination, out.message)
        except Adjudicated as out:
            termination, utilities, message = out.verdict
            return _record(game, names, budgets, seed, opening_texts, moves, utilities, termination, None, message)
        utilities = _checked_utilities(game, state, seats)
        return _record(game, names, budgets, seed, opening_texts, moves, utilities, Termination.NORMAL, None,
                       game.result_text(state))
    drawn = [0] * seats  # draws made from each seat's stream
    while not game.is_terminal(state):
        player = game.to_move(state)
        if player < 0:  # a chance node: the referee draws, no bot is asked
            if dice is None:
                dice = Dice(seed_key(seed))
            # the seat of the latest decision, looked up here so that a ply of a player costs nothing more
            last = next((m.player for m in reversed(moves) if m.player >= 0), opening_seat)
            record, _, state = chance_ply(game, state, dice, ply, last, drawn)
            moves.append(record)
            ply += 1
            for tell in followers:
                tell(record.move)
            if observer is not None:
                observer(state, record)
            continue
        # a move asked and checked as arena.turns.ask does for games of views, written out
        # here: this loop is the fastest games' whole cost
        counter = counters[player]
        timed = clocks is not None and controls[player] is not None
        if timed:  # the budget handed shows the clocks; the counter stops the search at its share
            counter.budget = budgets[player].at(clocks.clock(player))
        cpu_clock = cpu_clocks[player]
        cpu_start = None if cpu_clock is None else cpu_clock()
        start = counter.reset()
        counter.tick()  # the root: the arena counts it, not the bot
        try:
            answer = bots[player].choose(views[player], state, counter)
        except BotFault as fault:
            return forfeit(player, fault.termination, f"{names[player]!r} {fault.verb} at ply {ply}: {fault.detail}")
        except BudgetExhausted:
            return forfeit(
                player,
                Termination.CRASH,
                f"{names[player]!r} crashed at ply {ply}: {counter.out_of_budget()}",
            )
        except Exception as exc:
            return forfeit(player, Termination.CRASH, f"{names[player]!r} crashed at ply {ply}: {_describe(exc)}")
        seconds = clock() - start
        cpu = None
        if cpu_start is not None:
            cpu_end = cpu_clock()
            if cpu_end is not None:
                cpu = cpu_end - cpu_start
        nodes = counter.nodes
        reported, over = reports[player], False
        decision = answer if isinstance(answer, Decision) else None
        if decision is not None:
            move, depth, score, pv = answer.move, answer.depth, answer.score, answer.pv
        else:
            move, depth, score, pv = answer, None, None, ()
        try:  # the game's own value, whatever equal-comparing object came back
            found = game.legal_move(state, move)
        except Exception:  # a move object whose comparison raises
            found = None
        if found is None:
            shown = ", ".join(game.move_text(state, m) for m in game.legal_moves(state))
            return forfeit(
                player,
                Termination.ILLEGAL_MOVE,
                f"illegal move {_shown(move, 200)} by {names[player]!r} in {game.name} at ply {ply}; legal: {shown}",
            )
        move = found
        limit = longest[player]
        if limit is not None and seconds > limit:
            return forfeit(
                player,
                Termination.TIMEOUT,
                f"{names[player]!r} took {seconds:.3f}s at ply {ply}; "
                f"budget {budgets[player].time:g}s + margin {time_margin:g}s",
            )
        limit = most_cpu[player]
        if limit is not None and (cpu if cpu is not None else seconds) > limit:
            used = f"used {cpu:.3f}s of CPU" if cpu is not None else f"took {seconds:.3f}s (its CPU time cannot be read here)"
            return forfeit(
                player,
                Termination.TIMEOUT,
                f"{names[player]!r} {used} at ply {ply}; budget cpu={budgets[player].cpu:g}s + margin {time_margin:g}s",
            )
        left = None
        if timed:
            left = clocks.charge(player, seconds, time_margin)
            if left is None:
                return forfeit(player, Termination.CLOCK,
                               f"{names[player]!r} {clocks.flag(player, seconds, time_margin)} at ply {ply}")
        if texts is None:
            text = game.move_text(state, move)
        else:
            try:
                text = texts[move]
            except KeyError:
                text = texts[move] = game.format_move(move)
            except TypeError:  # an unhashable move
                text = game.format_move(move)
        if decision is not None:
            try:
                pv = _checked_decision(game, state, decision)
            except ValueError as exc:
                return forfeit(player, Termination.PROTOCOL, f"{names[player]!r} broke the protocol at ply {ply}: {exc}")
            if decision.nodes is not None:  # an engine's own count: the arena could not count it
                nodes, reported = decision.nodes, True
                over = budgets[player].nodes is not None and nodes > budgets[player].nodes
        record = _new_move(MoveRecord, (ply, player, text, nodes, seconds, depth, score, pv, reported, over, cpu, left))
        moves.append(record)
        state = game.apply(state, move)
        ply += 1
        for tell in followers:
            tell(text)
        if observer is not None:
            observer(state, record)
        if judge is not None and not game.is_terminal(state):
            verdict = judge.after(player, score, state)
            if verdict is not None:
                return _record(game, names, budgets, seed, opening_texts, moves, verdict[1], verdict[0], None, verdict[2])

    if seats == 2 and game.model.total == 0.0:
        utilities = (game.utility(state, 0), game.utility(state, 1))
    else:
        utilities = _checked_utilities(game, state, seats)
    return _record(
        game, names, budgets, seed, opening_texts, moves, utilities, Termination.NORMAL, None, game.result_text(state)
    )


def _check_arguments(game, bots, names, budgets, seed, time_margin) -> None:
    """Refuse what would make a game fail oddly, or unfairly, before it starts: one clear error
    naming the argument. Once per game: the common case is a few type checks."""
    if not isinstance(game, Game):
        raise TypeError(f"play_game: game must be an arena.Game, got {type(game).__name__}")
    bounds = game.bounds
    if bounds is not _FINE_BOUNDS.get(type(game)):
        why = bounds_problem(bounds)
        if why:
            raise ParameterError(f"play_game: game {game.name!r} has bounds {bounds!r}: {why}")
        _FINE_BOUNDS[type(game)] = bounds
    try:
        count = len(bots)
    except TypeError:
        count = type(bots).__name__
    seats = game.model.players
    if count != seats:
        what = "two bots" if seats == 2 else f"{seats} bots, one per seat of {game.name}"
        raise ParameterError(f"play_game: bots must be {what}, the first to move first; got {count}")
    for i, bot in enumerate(bots):
        if not callable(getattr(bot, "choose", None)) or not callable(getattr(bot, "new_game", None)):
            raise TypeError(f"play_game: bots[{i}] is not a bot (it has no choose and new_game): {type(bot).__name__}")
    if names and (len(names) != seats or not all(isinstance(n, str) for n in names)):
        raise ParameterError(f"play_game: names must be {_number(seats)} strings, got {names!r}")
    if budgets:
        if len(budgets) != seats:
            raise ParameterError(f"play_game: budgets must be {_number(seats)} Budgets, one per bot; got {len(budgets)}")
        for i, budget in enumerate(budgets):
            if not isinstance(budget, Budget):
                raise TypeError(f"play_game: budgets[{i}] must be an arena.Budget (Budget.parse reads text), got {budget!r}")
    if type(seed) is not int and not _whole(seed):
        raise TypeError(f"play_game: seed must be an integer, got {seed!r}")
    if not _real(time_margin) or time_margin < 0:
        raise ParameterError(f"play_game: time_margin must be 0 or more seconds, got {time_margin!r}")


def _number(count: int) -> str:
    return "two" if count == 2 else str(count)


#: Per game class, the bounds last found fine (a game's bounds are almost always one tuple).
_FINE_BOUNDS: dict[type, object] = {}


def _record(game, names, budgets, seed, opening, moves, utilities, termination, loser, message) -> GameRecord:
    return GameRecord(
        game=game.spec,
        players=tuple(names),
        budgets=tuple(map(str, budgets)),
        seed=seed,
        opening=opening,
        moves=tuple(moves),
        utilities=utilities,
        termination=termination,
        loser=loser,
        message=message,
    )


def _opening_text(game: Game, opening: Sequence) -> tuple[str, ...]:
    """The opening as text: text as given, moves written in their positions."""
    if all(isinstance(m, str) for m in opening):
        return tuple(opening)
    if not texts_need_state(game):
        return tuple(m if isinstance(m, str) else game.format_move(m) for m in opening)
    state, out = game.initial_state(), []
    for m in opening:
        move = game.parse_move_in(state, m) if isinstance(m, str) else m
        out.append(m if isinstance(m, str) else game.move_text(state, m))
        state = game.apply(state, move)
    return tuple(out)


def ask(bot: Bot, game: Game, state: State, budget: Budget | Counter | None = None):
    """Ask ``bot`` for one move in ``state`` as the referee does; returns ``(answer, counter)``.

    For tests and tools outside a game: the bot is handed the counted game and the root
    is counted, so ``counter.nodes`` is what a game record would show. A BudgetExhausted
    that escapes the bot propagates.
    """
    counter = budget if isinstance(budget, Counter) else Counter(budget)
    counter.reset()
    counter.tick()  # the root
    return bot.choose(counted(game, counter), state, counter), counter
