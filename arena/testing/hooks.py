"""Conformance checks of a game's optional search hooks (``arena.SearchHooks``)."""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass, field
from math import inf
from numbers import Real

from arena.game import Game, SearchHooks
from arena.testing.playout import _Place, _line, _reporting, _transposed, random_playout


@dataclass
class HookReport:
    """What ``check_search_hooks`` looked at: positions checked per hook."""

    offered: tuple[str, ...]
    """The hooks the game offers."""
    checked: dict[str, int] = field(default_factory=dict)
    """Positions each offered hook was checked on."""
    solved: int = 0
    """Positions solved exactly for ``value_bounds`` (those within the node cap)."""




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
    if game.model.players != 2 or game.model.total != 0.0:  # tactics and value_bounds serve the negamax searches
        hooks = hooks._replace(tactics=None, value_bounds=None)
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
                    f"{_line(game, moves[: i + game.model.players + 1])} and the same with moves {i} and {i + game.model.players} swapped"
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
        state, where = states[ply], _Place(game.name, game, moves[:ply])
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


