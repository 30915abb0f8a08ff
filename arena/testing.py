"""Conformance checks for games and bots, for the arena's tests and for plugin authors.

One call checks a game or a bot; a failure raises AssertionError naming what broke::

    from arena.testing import check_game, check_bot
    check_game(MyGame())
    check_bot(MyBot(), MyGame())

or, for everything a plugin registers, ``check_plugin(my_plugin_module)``.
"""

from __future__ import annotations

import pickle
import random
import time
from dataclasses import dataclass

from arena.bot import Bot, Decision
from arena.budget import Budget, BudgetExhausted, Counter
from arena.game import Game
from arena.limits import DEFAULT_LIMITS
from arena.referee import _find

#: Budgets every bot must respect in ``check_bot``.
DEFAULT_BUDGETS = (Budget(nodes=200), Budget(time=0.05))


@dataclass
class GameReport:
    """What ``check_game`` looked at."""

    playouts: int
    positions: int
    transpositions: int
    """Pairs of transposed move orders found to reach the same position (and checked)."""


def random_playout(game: Game, rng: random.Random, max_plies: int = 10_000) -> list:
    """Moves of one random game, start to end; fails if it does not end within ``max_plies``."""
    state = game.initial_state()
    moves = []
    while not game.is_terminal(state):
        assert len(moves) < max_plies, f"{game.name}: random playout still going after {max_plies} plies"
        legal = game.legal_moves(state)
        assert legal, f"{game.name}: non-terminal state without legal moves after {_line(game, moves)}"
        move = rng.choice(list(legal))
        moves.append(move)
        state = game.apply(state, move)
    return moves


def check_game(game: Game, *, playouts: int = 20, seed: int = 0, max_plies: int = 10_000) -> GameReport:
    """Play seeded random games and check every rule-book promise along the way."""
    rng = random.Random(seed)
    low, high = game.bounds
    assert low < 0 < high and low == -high, f"{game.name}: bounds {game.bounds} must be symmetric around 0"
    positions = transpositions = 0
    for _ in range(playouts):
        moves = random_playout(game, rng, max_plies)
        states = [game.initial_state()]
        for ply, move in enumerate(moves):
            state = states[-1]
            positions += 1
            _check_state(game, state, moves[:ply])
            before = pickle.dumps(state)
            child = game.apply(state, move)
            assert pickle.dumps(state) == before, f"{game.name}: apply changed its input at {_line(game, moves[:ply])}"
            states.append(child)
        _check_terminal(game, states[-1], moves)
        transpositions += _check_transpositions(game, moves, states)
    return GameReport(playouts, positions, transpositions)


def _check_state(game: Game, state, path) -> None:
    where = f"{game.name} after {_line(game, path)}"
    hash(state)
    assert pickle.loads(pickle.dumps(state)) == state, f"{where}: state does not survive pickling"
    player = game.to_move(state)
    assert player in (0, 1), f"{where}: to_move returned {player!r}"
    legal = list(game.legal_moves(state))
    assert legal, f"{where}: non-terminal state has no legal moves"
    assert len(set(legal)) == len(legal), f"{where}: legal moves repeat: {legal!r}"
    for move in legal:
        text = game.format_move(move)
        assert game.parse_move(text) == move, f"{where}: parse_move({text!r}) does not give back {move!r}"
    low, high = game.bounds
    h0, h1 = game.heuristic(state, 0), game.heuristic(state, 1)
    assert low < h0 < high, f"{where}: heuristic {h0} not strictly inside {game.bounds}"
    assert abs(h0 + h1) < 1e-9, f"{where}: heuristic not zero-sum ({h0} for 0, {h1} for 1)"
    assert isinstance(game.render(state), str)


def _check_terminal(game: Game, state, moves) -> None:
    where = f"{game.name} after {_line(game, moves)}"
    assert game.is_terminal(state)
    assert not list(game.legal_moves(state)), f"{where}: terminal state has legal moves"
    u0, u1 = game.utility(state, 0), game.utility(state, 1)
    assert u0 == -u1, f"{where}: utilities {u0} and {u1} do not sum to zero"
    low, high = game.bounds
    assert low <= u0 <= high, f"{where}: utility {u0} outside {game.bounds}"
    hash(state)
    assert isinstance(game.render(state), str)


def _check_transpositions(game: Game, moves, states) -> int:
    """Swap moves i and i+2 of a playout; where both orders reach the same picture, states must be equal."""
    found = 0
    for i in range(len(moves) - 2):
        start = states[i]
        if game.to_move(start) != game.to_move(states[i + 2]):
            continue
        state = start
        for move in (moves[i + 2], moves[i + 1], moves[i]):
            if game.is_terminal(state) or move not in game.legal_moves(state):
                break
            state = game.apply(state, move)
        else:
            original = states[i + 3]
            same_picture = game.render(state) == game.render(original)
            if same_picture and game.to_move(state) == game.to_move(original):
                assert state == original and hash(state) == hash(original), (
                    f"{game.name}: {_line(game, moves[: i + 3])} and the same with moves {i} and {i + 2} "
                    f"swapped show the same position but give unequal states"
                )
                found += 1
    return found


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
    rng = random.Random(seed)
    checked = 0
    for budget in budgets:
        for _ in range(positions):
            moves = random_playout(game, rng)
            moves = moves[: rng.randrange(len(moves))]
            state = game.play(moves)
            where = f"bot {bot.spec!r} in {game.name} after {_line(game, moves)} with budget {budget}"
            bot.new_game(game, game.to_move(state), rng.getrandbits(32))
            counter = Counter(budget)
            start = time.perf_counter()
            try:
                answer = bot.choose(game, state, counter)
            except BudgetExhausted:
                raise AssertionError(f"{where}: BudgetExhausted escaped from choose") from None
            seconds = time.perf_counter() - start
            move = answer.move if isinstance(answer, Decision) else answer
            legal = game.legal_moves(state)
            assert _find(legal, move) is not None, f"{where}: illegal move {move!r}; legal: {legal!r}"
            if budget.nodes is not None:
                assert counter.nodes <= budget.nodes, f"{where}: searched {counter.nodes} nodes"
            if budget.time is not None:
                assert seconds <= budget.time + time_margin, f"{where}: took {seconds:.3f}s"
            checked += 1
    return checked


def check_plugin(plugin, *, playouts: int = 10, positions: int = 3) -> None:
    """Check every game and bot a plugin registers, each bot on each of its games and the built-ins."""
    from arena.plugins import DEFAULT_PLUGINS, get_registry

    registry = get_registry(entry_points=False, plugins=[plugin])
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


def _line(game: Game, moves) -> str:
    if not moves:
        return "no moves"
    try:
        return "moves " + " ".join(game.format_move(m) for m in moves)
    except Exception:
        return f"moves {list(moves)!r}"
