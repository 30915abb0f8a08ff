"""Conformance checks for games and bots, for the arena's tests and for plugin authors.

One call checks a game or a bot; a failure raises AssertionError naming what broke::

    from arena.testing import check_game, check_bot
    check_game(MyGame())
    check_bot(MyBot(), MyGame())

``check_game`` also checks the search hooks the game offers (``check_search_hooks``).

or, for everything a plugin registers, ``check_plugin(my_plugin_module)``.
"""

from __future__ import annotations

import pickle
import random
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from math import inf
from numbers import Real

from arena.bot import Bot, Decision
from arena.budget import Budget, BudgetExhausted, Counter
from arena.game import Game, SearchHooks, texts_need_state
from arena.limits import DEFAULT_LIMITS
from arena.referee import _find, ask

#: Budgets every bot must respect in ``check_bot``.
DEFAULT_BUDGETS = (Budget(nodes=200), Budget(time=0.05))
#: How often ``check_bot`` asks for a move that overran its time budget before it fails.
TIME_ATTEMPTS = 3


@dataclass
class GameReport:
    """What ``check_game`` looked at."""

    playouts: int
    positions: int
    transpositions: int
    """Pairs of transposed move orders found to reach the same position (and checked)."""
    hooks: HookReport | None = None
    """What ``check_search_hooks`` looked at."""


@dataclass
class HookReport:
    """What ``check_search_hooks`` looked at: positions checked per hook."""

    offered: tuple[str, ...]
    """The hooks the game offers."""
    checked: dict[str, int] = field(default_factory=dict)
    """Positions each offered hook was checked on."""
    solved: int = 0
    """Positions solved exactly for ``value_bounds`` (those within the node cap)."""


class _Place:
    """Where a check is: the game or bot, and the moves that led there (read only on failure)."""

    def __init__(self, what: str, game: Game):
        self.what, self.game = what, game
        self.moves, self.ply = (), 0

    def at(self, moves, ply: int | None = None) -> None:
        self.moves, self.ply = moves, len(moves) if ply is None else ply

    def __str__(self):
        return f"{self.what} after {_line(self.game, self.moves[: self.ply])}"


@contextmanager
def _reporting(place: _Place):
    """Turn an error raised inside a check (by the game, the bot or a hook) into an
    AssertionError naming the place, as every failed check is."""
    try:
        yield
    except AssertionError:
        raise
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise AssertionError(f"{place}: raised {detail}") from exc


def random_playout(game: Game, rng: random.Random, max_plies: int = 10_000, place: _Place | None = None) -> list:
    """Moves of one random game, start to end; fails if it does not end within ``max_plies``."""
    state = game.initial_state()
    moves = []
    if place is not None:
        place.at(moves)  # the list grows: the place follows the playout
    while not game.is_terminal(state):
        if place is not None:
            place.ply = len(moves)
        assert len(moves) < max_plies, f"{game.name}: random playout still going after {max_plies} plies"
        legal = game.legal_moves(state)
        assert legal, f"{game.name}: non-terminal state without legal moves after {_line(game, moves)}"
        move = rng.choice(list(legal))
        moves.append(move)
        state = game.apply(state, move)
    return moves


def check_game(game: Game, *, playouts: int = 20, seed: int = 0, max_plies: int = 10_000) -> GameReport:
    """Play seeded random games and check every rule-book promise along the way."""
    _require("check_game", game=(game, Game), playouts=(playouts, int), seed=(seed, int), max_plies=(max_plies, int))
    rng = random.Random(seed)
    low, high = game.bounds
    assert low < 0 < high and low == -high, f"{game.name}: bounds {game.bounds} must be symmetric around 0"
    positions = transpositions = 0
    place = _Place(game.name, game)
    for _ in range(playouts):
        with _reporting(place):
            moves = random_playout(game, rng, max_plies, place)
            states = [game.initial_state()]
            for ply, move in enumerate(moves):
                place.at(moves, ply)
                state = states[-1]
                positions += 1
                _check_state(game, state, moves[:ply])
                before = pickle.dumps(state)
                child = game.apply(state, move)
                assert pickle.dumps(state) == before, f"{place}: apply changed its input"
                states.append(child)
            place.at(moves)
            _check_terminal(game, states[-1], moves)
            transpositions += _check_transpositions(game, moves, states)
    hooks = check_search_hooks(game, playouts=playouts, seed=seed, max_plies=max_plies)
    return GameReport(playouts, positions, transpositions, hooks)


def _check_state(game: Game, state, path) -> None:
    where = f"{game.name} after {_line(game, path)}"
    _check_hashable(state, where)
    assert pickle.loads(pickle.dumps(state)) == state, f"{where}: state does not survive pickling"
    player = game.to_move(state)
    assert player in (0, 1), f"{where}: to_move returned {player!r}"
    legal = list(game.legal_moves(state))
    assert legal, f"{where}: non-terminal state has no legal moves"
    assert len(set(legal)) == len(legal), f"{where}: legal moves repeat: {legal!r}"
    for move in legal:
        text = game.format_move(move)
        assert game.parse_move(text) == move, f"{where}: parse_move({text!r}) does not give back {move!r}"
    texts = [game.move_text(state, move) for move in legal] if texts_need_state(game) else []
    assert len(set(texts)) == len(texts), f"{where}: legal moves share a text: {texts!r}"
    for move, text in zip(legal, texts):
        assert isinstance(text, str) and text and not any(c.isspace() for c in text), (
            f"{where}: move_text gave {text!r} for {move!r}; a move's text is one word"
        )
        back = game.parse_move_in(state, text)
        assert back == move, f"{where}: parse_move_in({text!r}) gives {back!r}, not {move!r}"
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
    _check_hashable(state, where)
    assert isinstance(game.render(state), str)


def _check_hashable(state, where: str) -> None:
    try:
        hash(state)
    except TypeError as exc:
        raise AssertionError(f"{where}: state {state!r} is not hashable ({exc})") from None


def _transposed(game: Game, moves, states):
    """Swap moves i and i+2 of a playout: ``(i, state, original)`` where both orders show the
    same picture with the same player to move."""
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
            if game.render(state) == game.render(original) and game.to_move(state) == game.to_move(original):
                yield i, state, original


def _check_transpositions(game: Game, moves, states) -> int:
    """Where both orders of a swap reach the same picture, the states must be equal."""
    found = 0
    for i, state, original in _transposed(game, moves, states):
        assert state == original and hash(state) == hash(original), (
            f"{game.name}: {_line(game, moves[: i + 3])} and the same with moves {i} and {i + 2} "
            f"swapped show the same position but give unequal states"
        )
        found += 1
    return found


#: Node cap of one exact solve in ``check_search_hooks`` (positions needing more are skipped).
SOLVE_NODES = 20_000


def check_search_hooks(
    game: Game, *, playouts: int = 20, seed: int = 0, max_plies: int = 10_000, solve_nodes: int = SOLVE_NODES
) -> HookReport:
    """Check the search hooks ``game.search_hooks()`` offers, on the positions of seeded
    random playouts (the contracts are on ``arena.Game``).

    ``key``: hashable, and equal for equal states reached by transposed move orders.
    ``move_priorities``: one real number per move. ``tactics`` (both ``rank`` values): its
    moves are legal and distinct, the depth-2 negamax value over them equals the value over
    all moves, and [floor, ceiling] holds that value. ``value_bounds``: within ``bounds``,
    holding the exact value, which is solved only where cheap: walking back from the end
    of each playout, until a position needs more than ``solve_nodes`` nodes.
    """
    hooks = game.search_hooks()
    assert isinstance(hooks, SearchHooks), f"{game.name}: search_hooks() returned {hooks!r}, not SearchHooks"
    for name, hook in zip(hooks._fields, hooks):
        assert hook is None or callable(hook), f"{game.name}: search hook {name} is {hook!r}, neither callable nor None"
    report = HookReport(tuple(name for name, hook in zip(hooks._fields, hooks) if hook is not None))
    if not report.offered:
        return report
    report.checked = dict.fromkeys(report.offered, 0)
    rng = random.Random(seed)
    place = _Place(game.name, game)
    for _ in range(playouts):
        with _reporting(place):
            _check_hooks_on_a_playout(game, hooks, report, rng, max_plies, solve_nodes, place)
    return report


def _check_hooks_on_a_playout(game, hooks, report, rng, max_plies, solve_nodes, place) -> None:
    moves = random_playout(game, rng, max_plies, place)
    states = [game.initial_state()]
    for move in moves:
        states.append(game.apply(states[-1], move))
    for ply, state in enumerate(states[:-1]):
        place.at(moves, ply)  # read as the message's place only when a check fails
        for name in report.offered:
            _HOOK_CHECKS[name](game, getattr(hooks, name), state, place)
            report.checked[name] += 1
    if hooks.key is not None:
        for i, state, original in _transposed(game, moves, states):
            if state == original and not game.is_terminal(state):
                assert hooks.key(state) == hooks.key(original), (
                    f"{game.name}: search hook key differs for equal states reached by "
                    f"{_line(game, moves[: i + 3])} and the same with moves {i} and {i + 2} swapped"
                )
    if hooks.value_bounds is not None:
        report.solved += _check_value_bounds(game, hooks.value_bounds, moves, states, solve_nodes)


def _check_key(game: Game, key, state, where: str) -> None:
    k = key(state)
    try:
        hash(k)
    except TypeError:
        raise AssertionError(f"{where}: search hook key returned unhashable {k!r}") from None
    again = key(pickle.loads(pickle.dumps(state)))
    assert again == k, f"{where}: search hook key gave {k!r} and {again!r} for equal states"


def _check_priorities(game: Game, priorities, state, where: str) -> None:
    legal = list(game.legal_moves(state))
    out = list(priorities(state, legal))
    assert len(out) == len(legal), f"{where}: move_priorities gave {len(out)} numbers for {len(legal)} moves"
    for move, p in zip(legal, out):
        assert isinstance(p, Real) and p == p, f"{where}: move_priorities gave {p!r} for {game.format_move(move)!r}"


def _check_tactics(game: Game, tactics, state, where: str) -> None:
    legal = list(game.legal_moves(state))
    whole = _negamax(game, state, 2, legal)
    for rank in (True, False):
        floor, ceiling, moves = tactics(state, rank)
        said = f"{where}: tactics(rank={rank}) gave [{floor}, {ceiling}]"
        assert floor <= whole <= ceiling, f"{said}, which does not hold the depth-2 value {whole}"
        if moves is None:
            assert floor == ceiling, f"{said} and no moves: only a settled position may give none"
            continue
        moves = list(moves)
        assert moves, f"{said} and an empty move list"
        assert len(set(moves)) == len(moves) and all(m in legal for m in moves), (
            f"{said} and moves {moves!r}, not distinct legal moves; legal: {legal!r}"
        )
        kept = _negamax(game, state, 2, moves)
        assert kept == whole, f"{said} and moves whose depth-2 value {kept} is not that over all moves, {whole}"


def _check_bounds(game: Game, value_bounds, state, where: str) -> None:
    low, high = game.bounds
    floor, ceiling = value_bounds(state, game.to_move(state))
    assert low <= floor <= ceiling <= high, (
        f"{where}: value_bounds gave [{floor}, {ceiling}], not an interval within {game.bounds}"
    )


def _check_value_bounds(game: Game, value_bounds, moves, states, solve_nodes: int) -> int:
    """Walk back from the end of a playout, solving each position exactly while that is cheap."""
    memo, solved = {}, 0
    for ply in range(len(moves) - 1, -1, -1):
        state, where = states[ply], f"{game.name} after {_line(game, moves[:ply])}"
        floor, ceiling = value_bounds(state, game.to_move(state))
        try:
            exact = _solve(game, state, memo, [solve_nodes])
        except _TooDear:
            break
        solved += 1
        assert floor <= exact <= ceiling, f"{where}: value_bounds gave [{floor}, {ceiling}], but the exact value is {exact}"
    return solved


_HOOK_CHECKS = {
    "key": _check_key,
    "move_priorities": _check_priorities,
    "tactics": _check_tactics,
    "value_bounds": _check_bounds,  # the exact value where cheap: _check_value_bounds
}


class _TooDear(Exception):
    """An exact solve passed its node cap."""


def _negamax(game: Game, state, depth: int, moves=None) -> float:
    """The value of ``state`` for its player to move, ``depth`` plies deep (the heuristic
    below), over ``moves`` (default: all legal moves); a child whose mover is the same is not negated."""
    me = game.to_move(state)
    best = -inf
    for move in game.legal_moves(state) if moves is None else moves:
        child = game.apply(state, move)
        if game.is_terminal(child):
            v = game.utility(child, me)
        elif depth <= 1:
            v = game.heuristic(child, me)
        else:
            v = _negamax(game, child, depth - 1)
            v = v if game.to_move(child) == me else -v
        best = max(best, v)
    return best


def _solve(game: Game, state, memo: dict, budget: list) -> float:
    """The exact value of non-terminal ``state`` for its player to move; _TooDear past ``budget[0]`` nodes."""
    value = memo.get(state)
    if value is None:
        me, value = game.to_move(state), -inf
        for move in game.legal_moves(state):
            budget[0] -= 1
            if budget[0] < 0:
                raise _TooDear
            child = game.apply(state, move)
            if game.is_terminal(child):
                v = game.utility(child, me)
            else:
                v = _solve(game, child, memo, budget)
                v = v if game.to_move(child) == me else -v
            value = max(value, v)
        memo[state] = value
    return value


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
    rng = random.Random(seed)
    checked = 0
    for budget in budgets:
        for _ in range(positions):
            moves = random_playout(game, rng)
            moves = moves[: rng.randrange(len(moves))]
            state = game.play(moves)
            where = f"bot {bot.spec!r} in {game.name} after {_line(game, moves)} with budget {budget}"
            bot_seed = rng.getrandbits(32)
            answer, counter, seconds = _timed_ask(bot, game, moves, state, budget, bot_seed, where)
            move = answer.move if isinstance(answer, Decision) else answer
            legal = game.legal_moves(state)
            assert _find(legal, move) is not None, f"{where}: illegal move {move!r}; legal: {legal!r}"
            if budget.nodes is not None:
                assert counter.nodes <= budget.nodes, f"{where}: searched {counter.nodes} nodes"
            if budget.time is not None:
                # a busy machine can stall any process past a short deadline: the move is
                # asked again, and only a bot that overruns every time fails
                times = [seconds]
                while seconds > budget.time + time_margin and len(times) < TIME_ATTEMPTS:
                    seconds = _timed_ask(bot, game, moves, state, budget, bot_seed, where)[2]
                    times.append(seconds)
                shown = ", ".join(f"{t:.3f}s" for t in times)
                assert seconds <= budget.time + time_margin, f"{where}: took {shown}"
            checked += 1
    return checked


def _timed_ask(bot: Bot, game: Game, moves, state, budget: Budget, seed: int, where: str):
    """One answer of ``bot`` in ``state`` (reached by ``moves``) as the referee asks for it,
    its counter and its wall-clock seconds."""
    counter = Counter(budget)
    start = time.perf_counter()
    try:
        bot.new_game(game, game.to_move(state), seed)
        if moves and hasattr(bot, "opening"):  # as the referee tells bots an opening
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


def _line(game: Game, moves) -> str:
    if not moves:
        return "no moves"
    try:
        return "moves " + " ".join(game.line_text(game.initial_state(), moves))
    except Exception:
        return f"moves {list(moves)!r}"


def _require(function: str, **arguments) -> None:
    """TypeError naming the first argument that is not of its type, or a count below 0."""
    for name, (value, kind) in arguments.items():
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            raise TypeError(f"{function}: {name} must be {'an' if kind.__name__[0] in 'AEIOUaeiou' else 'a'} {kind.__name__}, got {value!r}")
        if kind is int and name != "seed" and value < 0:
            raise ValueError(f"{function}: {name} must be 0 or more, got {value!r}")
