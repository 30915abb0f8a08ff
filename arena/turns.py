"""The referee's turns beyond a seat's move in a perfect-information game: chance plies, and the
loop of games where bots are handed views, not the state (hidden information, simultaneous moves).

In those games only the referee holds the state. Each seat asked to move gets an
``arena.View``; at a ``JOINT`` state every acting seat's view is made before any is asked, so
no seat's choice can show in another's, and the moves are applied together.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from arena.bot import Decision
from arena.budget import BudgetExhausted
from arena.checks import _checked_decision, _describe, _shown, legal_index
from arena.dice import Dice
from arena.errors import BotFault
from arena.game import CHANCE, JOINT, Game, State
from arena.records import MoveRecord, Termination
from arena.view import make_view

_new_move = tuple.__new__  # MoveRecord from a tuple, without its __new__ written in Python


class Forfeit(Exception):
    """A seat loses the game: the termination and the record's message."""

    def __init__(self, seat: int, termination: Termination, message: str):
        super().__init__(message)
        self.seat, self.termination, self.message = seat, termination, message


class Adjudicated(Exception):
    """The referee ended the game (``arena.adjudication``): ``verdict`` is (termination, utilities, message)."""

    def __init__(self, verdict):
        super().__init__(verdict[2])
        self.verdict = verdict


@dataclass
class Seats:
    """What the referee keeps per seat for a game (tuples in seat order)."""

    game: Game
    bots: Sequence
    names: tuple[str, ...]
    budgets: tuple
    counters: tuple
    views: tuple  # the counted game each bot is handed
    longest: tuple  # the longest a move may take, margin included (None: no time budget)
    most_cpu: tuple  # the most CPU seconds a move may use, margin included (None: none)
    cpu_clocks: tuple
    reports: tuple  # whether a bot's nodes are counted in its own process
    time_margin: float
    clocks: object = None  # the game's arena.clock.Clocks, None without time controls
    judge: object = None  # the game's arena.adjudication.Judge, None without adjudication


def chance_ply(game: Game, state: State, dice: Dice, ply: int, last: int, drawn: list[int]):
    """Draw a chance node's outcome from its seat's stream: the ply's record and the state after it."""
    player = game.to_move(state)
    if player != CHANCE:
        raise ValueError(f"{game.name}: to_move returned {player!r} at ply {ply}: a seat from 0, or CHANCE (-1)")
    seat = game.chance_seat(state, last)
    if type(seat) is not int or not 0 <= seat < len(drawn):
        raise ValueError(f"{game.name}: chance_seat returned {seat!r} at ply {ply}: a seat, 0 to {len(drawn) - 1}")
    outcome = dice.pick(game.chance_outcomes(state), seat, drawn[seat])
    drawn[seat] += 1
    text = game.move_text(state, outcome)
    record = _new_move(MoveRecord, (ply, CHANCE, text, 0, 0.0, None, None, (), False, False, None, None))
    return record, outcome, game.apply(state, outcome)


def last_seat(game: Game, opening: Sequence) -> int:
    """The seat of the opening's latest decision (0 if none): the default owner of a chance event."""
    last = 0
    for state, seat, _ in plies(game, opening):
        if seat >= 0:
            last = seat
    return last


def plies(game: Game, line: Sequence):
    """Each ply of ``line`` (as ``Game.play`` reads it): ``(state, seat, move)``, the state
    before it; the parts of a joint move share their state (``Game.turns``)."""
    for state, parts, _ in game.turns(line):
        for seat, move in parts:
            yield state, seat, move


def ask(seats: Seats, seat: int, asked, legal: Sequence, state: State, ply: int):
    """Ask the bot of ``seat`` for its move (handed ``asked``: the state, or its view) and check
    the answer as the referee does every move: the move, the ply's record; raises Forfeit.

    The same checks as ``arena.referee.play_game``'s loop, which keeps them written out inline:
    a call and an exception per move would cost the fastest games a measurable share of their
    time. A check changed in one is changed in the other."""
    names, game = seats.names, seats.game
    counter = seats.counters[seat]
    clocks = seats.clocks
    timed = clocks is not None and clocks.controls[seat] is not None
    if timed:  # the budget handed shows the clocks; the counter stops the search at its share
        counter.budget = seats.budgets[seat].at(clocks.clock(seat))
    cpu_clock = seats.cpu_clocks[seat]
    cpu_start = None if cpu_clock is None else cpu_clock()
    start = counter.reset()
    counter.tick()  # the root: the arena counts it, not the bot
    try:
        answer = seats.bots[seat].choose(seats.views[seat], asked, counter)
    except BotFault as fault:
        raise Forfeit(seat, fault.termination, f"{names[seat]!r} {fault.verb} at ply {ply}: {fault.detail}") from None
    except BudgetExhausted:
        raise Forfeit(seat, Termination.CRASH, f"{names[seat]!r} crashed at ply {ply}: {counter.out_of_budget()}") from None
    except Exception as exc:
        raise Forfeit(seat, Termination.CRASH, f"{names[seat]!r} crashed at ply {ply}: {_describe(exc)}") from None
    seconds = time.perf_counter() - start
    cpu = None
    if cpu_start is not None:
        cpu_end = cpu_clock()
        cpu = None if cpu_end is None else cpu_end - cpu_start
    nodes, reported, over = counter.nodes, seats.reports[seat], False
    decision = answer if isinstance(answer, Decision) else None
    move, depth, score, pv = (answer.move, answer.depth, answer.score, answer.pv) if decision else (answer, None, None, ())
    index = legal_index(legal, move)
    if index is None:
        shown = ", ".join(game.move_text(state, m) for m in legal)
        raise Forfeit(seat, Termination.ILLEGAL_MOVE,
                      f"illegal move {_shown(move, 200)} by {names[seat]!r} in {game.name} at ply {ply}; legal: {shown}")
    move = legal[index]  # the game's own value, whatever equal-comparing object came back
    budget = seats.budgets[seat]
    if seats.longest[seat] is not None and seconds > seats.longest[seat]:
        raise Forfeit(seat, Termination.TIMEOUT, f"{names[seat]!r} took {seconds:.3f}s at ply {ply}; "
                      f"budget {budget.time:g}s + margin {seats.time_margin:g}s")
    if seats.most_cpu[seat] is not None and (cpu if cpu is not None else seconds) > seats.most_cpu[seat]:
        used = f"used {cpu:.3f}s of CPU" if cpu is not None else f"took {seconds:.3f}s (its CPU time cannot be read here)"
        raise Forfeit(seat, Termination.TIMEOUT,
                      f"{names[seat]!r} {used} at ply {ply}; budget cpu={budget.cpu:g}s + margin {seats.time_margin:g}s")
    left = None
    if timed:
        left = clocks.charge(seat, seconds, seats.time_margin)
        if left is None:
            raise Forfeit(seat, Termination.CLOCK,
                          f"{names[seat]!r} {clocks.flag(seat, seconds, seats.time_margin)} at ply {ply}")
    if decision is not None:
        try:
            # a line of play needs the state, which the bot never saw: the fields only, as in a host
            _checked_decision(game, state, replace(decision, pv=()))
            pv = ()
        except ValueError as exc:
            raise Forfeit(seat, Termination.PROTOCOL, f"{names[seat]!r} broke the protocol at ply {ply}: {exc}") from None
        if decision.nodes is not None:  # an engine's own count: the arena could not count it
            nodes, reported = decision.nodes, True
            over = budget.nodes is not None and nodes > budget.nodes
    text = game.move_text(state, move)
    return move, _new_move(MoveRecord, (ply, seat, text, nodes, seconds, depth, score, pv, reported, over, cpu, left))


def play_views(seats: Seats, state: State, moves: list, ply: int, dice: Dice, history: list[str], last: int,
               followers: Sequence[Callable], observer) -> State:
    """Play on from ``state`` until the game ends, each bot handed its seat's view: the final
    state. Appends every ply's record to ``moves`` and its public text to ``history``; raises Forfeit."""
    game = seats.game
    drawn = [0] * len(seats.bots)
    while not game.is_terminal(state):
        player = game.to_move(state)
        if player == CHANCE:
            record, outcome, after = chance_ply(game, state, dice, ply, last, drawn)
            done = [(record, game.public_text(state, outcome))]
        elif player == JOINT:
            acting = game.acting(state)
            last = acting[0]
            shown = tuple(history)
            # every view before any choice: none can show another seat's move of this turn
            asked = [(seat, make_view(game, state, seat, shown)) for seat in acting]
            chosen = [ask(seats, seat, view, view.legal, state, ply + i) for i, (seat, view) in enumerate(asked)]
            after = game.apply_joint(state, tuple(move for move, _ in chosen))
            done = [(record, game.public_text(state, move)) for move, record in chosen]
        else:
            view = make_view(game, state, player, tuple(history))
            move, record = ask(seats, player, view, view.legal, state, ply)
            after = game.apply(state, move)
            done = [(record, game.public_text(state, move))]
            last = player
        state = after
        for record, public in done:
            moves.append(record)
            history.append(public)
            ply += 1
            for tell in followers:
                tell(public)
            if observer is not None:
                observer(state, record)
        judge = seats.judge
        if judge is not None and player != CHANCE and not game.is_terminal(state):
            for record, _ in done:
                verdict = judge.after(record.player, record.score, state)
                if verdict is not None:
                    raise Adjudicated(verdict)
    return state
