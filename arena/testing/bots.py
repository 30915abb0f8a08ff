"""Conformance checks of a bot on a game, and of everything a plugin registers."""

from __future__ import annotations

import random
import time

from arena.bot import Bot, Decision
from arena.budget import Budget, BudgetExhausted, Counter
from arena.game import Game
from arena.limits import DEFAULT_LIMITS
from arena.referee import _find, ask
from arena.testing.games import check_game
from arena.testing.playout import _Place, _require, random_playout
from arena.view import make_view

#: Budgets every bot must respect in ``check_bot``.
DEFAULT_BUDGETS = (Budget(nodes=200), Budget(time=0.05))
#: How often ``check_bot`` asks for a move that overran its time budget before it fails.
TIME_ATTEMPTS = 3


def check_bot(
    bot: Bot,
    game: Game,
    *,
    budgets=DEFAULT_BUDGETS,
    positions: int = 6,
    seed: int = 0,
    time_margin: float = DEFAULT_LIMITS.time_margin,
) -> int:
    """Ask ``bot`` for a move in seeded random positions of ``game`` under each budget.

    Every answer must be a legal move, and the search must stay within the node
    limit and the time limit plus ``time_margin``. Returns the number of answers checked.
    """
    _require("check_bot", bot=(bot, Bot), game=(game, Game), positions=(positions, int), seed=(seed, int))
    why = bot.suitable(game)
    assert why is None, f"check_bot: bot {bot.spec!r} refuses {game.name}: {why}"
    chance, imperfect = game.model.chance, game.model.imperfect
    rng = random.Random(seed)
    checked = 0
    for budget in budgets:
        for _ in range(positions):
            moves = random_playout(game, rng)
            if imperfect:  # a seat's view at a decision, never the state
                cut, seat, asked = rng.choice(_views(game, moves))
                moves, state = moves[:cut], asked
                legal = asked.legal
            else:
                moves = moves[: rng.choice(_decisions(game, moves)) if chance else rng.randrange(len(moves))]
                state = asked = game.play(moves)
                seat = game.to_move(state)
                legal = game.legal_moves(state)
            where = _Place(f"bot {bot.spec!r} in {game.name}", game, moves, f" with budget {budget}")
            bot_seed = rng.getrandbits(32)
            answer, counter, seconds = _timed_ask(bot, game, moves, asked, seat, budget, bot_seed, where, time_margin)
            move = answer.move if isinstance(answer, Decision) else answer
            assert _find(legal, move) is not None, f"{where}: illegal move {move!r}; legal: {legal!r}"
            if budget.nodes is not None:
                assert counter.nodes <= budget.nodes, f"{where}: searched {counter.nodes} nodes"
            if budget.time is not None:
                # a busy machine can stall any process past a short deadline: the move is
                # asked again, and only a bot that overruns every time fails
                times = [seconds]
                while seconds > budget.time + time_margin and len(times) < TIME_ATTEMPTS:
                    seconds = _timed_ask(bot, game, moves, asked, seat, budget, bot_seed, where, time_margin)[2]
                    times.append(seconds)
                shown = ", ".join(f"{t:.3f}s" for t in times)
                assert seconds <= budget.time + time_margin, f"{where}: took {shown}"
            checked += 1
    return checked


def _decisions(game: Game, moves) -> list[int]:
    """The plies of a playout at which a player, not chance, is to move."""
    state, out = game.initial_state(), []
    for ply, move in enumerate(moves):
        if game.to_move(state) >= 0:
            out.append(ply)
        state = game.apply(state, move)
    return out


def _views(game: Game, moves) -> list[tuple]:
    """Where a playout asks a seat to move in a game of views: ``(plies before, seat, view)``,
    every acting seat of a joint move."""
    out, history = [], []
    for state, parts, _ in game.turns(moves):
        shown = tuple(history)  # what every acting seat of the turn has seen
        out += [(len(shown), seat, make_view(game, state, seat, shown)) for seat, _ in parts if seat >= 0]
        history += [game.public_text(state, move) for _, move in parts]
    return out


def _timed_ask(bot: Bot, game: Game, moves, state, seat: int, budget: Budget, seed: int, where: _Place, margin: float):
    """One answer of ``bot`` in ``state`` (reached by ``moves``; a view in a game of views) as
    the referee asks for it, its counter and its wall-clock seconds."""
    counter = Counter(budget, margin=margin)
    start = time.perf_counter()
    try:
        bot.new_game(game, seat, seed)
        if moves and hasattr(bot, "opening") and not game.model.imperfect:  # as the referee tells bots an opening
            bot.opening(tuple(game.line_text(game.initial_state(), moves)))
        answer, _ = ask(bot, game, state, counter)  # counted as the arena counts
    except BudgetExhausted:
        raise AssertionError(f"{where}: BudgetExhausted escaped from choose") from None
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise AssertionError(f"{where}: raised {detail}") from exc
    return answer, counter, time.perf_counter() - start


def check_plugin(plugin, *, playouts: int = 10, positions: int = 3) -> None:
    """Check every game and bot a plugin registers, each bot on each of its games and the built-ins."""
    from arena.plugins import DEFAULT_PLUGINS, get_registry

    registry = get_registry(entry_points=False, plugins=[plugin])
    assert not registry.errors, f"plugin {plugin!r}: {'; '.join(registry.errors)}"
    own_games = [e.cls for e in registry.games.values() if e.plugin not in DEFAULT_PLUGINS]
    own_bots = [e.cls for e in registry.bots.values() if e.plugin not in DEFAULT_PLUGINS]
    assert own_games or own_bots, f"plugin {plugin!r} registers no game and no bot"
    for cls in own_games:
        check_game(cls(), playouts=playouts)
    games = [cls() for cls in own_games] or [registry.game("tictactoe")]
    for cls in own_bots:
        for game in games:
            bot = cls()
            if bot.suitable(game) is None and not bot.interactive:
                check_bot(bot, game, positions=positions)


