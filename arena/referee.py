"""The referee: plays one game between two bots and trusts neither."""

from __future__ import annotations

import random
import time
from typing import Callable, Sequence

from arena.bot import Bot, Decision
from arena.budget import Budget, Counter
from arena.game import Game, State
from arena.records import GameRecord, MoveRecord, Termination

#: Seconds a move may run past its time budget before it loses on time.
DEFAULT_TIME_MARGIN = 0.1

Observer = Callable[[State, MoveRecord], None]


class BotFault(Exception):
    """Raised by a supervised bot (see arena.isolation): why it loses, in words."""

    def __init__(self, termination: Termination, verb: str, detail: str):
        super().__init__(f"{verb}: {detail}")
        self.termination = termination
        self.verb = verb
        self.detail = detail


def bot_seed(seed: int, player: int) -> int:
    """The seed a player's bot gets for a game played with ``seed``."""
    return random.Random(f"{seed}/{player}").getrandbits(63)


def play_game(
    game: Game,
    bots: Sequence[Bot],
    *,
    names: Sequence[str] | None = None,
    budgets: Sequence[Budget] | None = None,
    seed: int = 0,
    opening: Sequence = (),
    observer: Observer | None = None,
    time_margin: float = DEFAULT_TIME_MARGIN,
) -> GameRecord:
    """Play one game; ``bots[0]`` moves first. Returns the full record.

    Every move is checked against ``legal_moves``. A bot that raises, returns an illegal
    move or overruns its time budget by more than ``time_margin`` loses the game at once
    with the game's lowest utility, and the record says why.
    """
    names = tuple(names or (b.spec for b in bots))
    budgets = tuple(budgets or (Budget(), Budget()))
    state = game.play(opening)
    moves: list[MoveRecord] = []

    def forfeit(player: int, why: Termination, message: str) -> GameRecord:
        low = game.bounds[0]
        utilities = (low, -low) if player == 0 else (-low, low)
        return _record(game, names, budgets, seed, opening, moves, utilities, why, player, message)

    for player, bot in enumerate(bots):
        try:
            bot.new_game(game, player, bot_seed(seed, player))
        except BotFault as fault:
            return forfeit(player, fault.termination, f"{names[player]!r} failed to start a game: {fault.detail}")
        except Exception as exc:
            return forfeit(player, Termination.CRASH, f"{names[player]!r} failed to start a game: {_describe(exc)}")

    while not game.is_terminal(state):
        ply = len(opening) + len(moves)
        player = game.to_move(state)
        legal = game.legal_moves(state)
        counter = Counter(budgets[player])
        start = time.perf_counter()
        try:
            answer = bots[player].choose(game, state, counter)
        except BotFault as fault:
            return forfeit(player, fault.termination, f"{names[player]!r} {fault.verb} at ply {ply}: {fault.detail}")
        except Exception as exc:
            return forfeit(player, Termination.CRASH, f"{names[player]!r} crashed at ply {ply}: {_describe(exc)}")
        seconds = time.perf_counter() - start
        decision = answer if isinstance(answer, Decision) else Decision(answer)
        index = _find(legal, decision.move)
        if index is None:
            shown = ", ".join(game.format_move(m) for m in legal)
            return forfeit(
                player,
                Termination.ILLEGAL_MOVE,
                f"illegal move {decision.move!r} by {names[player]!r} in {game.name} at ply {ply}; "
                f"legal: {shown}",
            )
        move = legal[index]  # the game's own value, whatever equal-comparing object came back
        limit = budgets[player].time
        if limit is not None and not bots[player].interactive and seconds > limit + time_margin:
            return forfeit(
                player,
                Termination.TIMEOUT,
                f"{names[player]!r} took {seconds:.3f}s at ply {ply}; budget {limit:g}s + margin {time_margin:g}s",
            )
        record = MoveRecord(
            ply=ply,
            player=player,
            move=game.format_move(move),
            nodes=counter.nodes,
            seconds=seconds,
            depth=decision.depth,
            score=decision.score,
            pv=_format_pv(game, decision.pv),
        )
        moves.append(record)
        state = game.apply(state, move)
        if observer is not None:
            observer(state, record)

    utilities = (game.utility(state, 0), game.utility(state, 1))
    return _record(
        game, names, budgets, seed, opening, moves, utilities, Termination.NORMAL, None, game.result_text(state)
    )


def _record(game, names, budgets, seed, opening, moves, utilities, termination, loser, message) -> GameRecord:
    return GameRecord(
        game=game.spec,
        players=(names[0], names[1]),
        budgets=(str(budgets[0]), str(budgets[1])),
        seed=seed,
        opening=tuple(m if isinstance(m, str) else game.format_move(m) for m in opening),
        moves=tuple(moves),
        utilities=utilities,
        termination=termination,
        loser=loser,
        message=message,
    )


def _find(legal: Sequence, move) -> int | None:
    """Index of ``move`` among the legal moves, matching type as well as value."""
    for i, m in enumerate(legal):
        try:
            if type(m) is type(move) and m == move:
                return i
        except Exception:
            return None
    return None


def _format_pv(game: Game, pv) -> tuple[str, ...]:
    try:
        return tuple(game.format_move(m) for m in pv)
    except Exception:
        return ()


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
