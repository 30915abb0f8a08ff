"""Conformance checks of a game: playouts, states, terminals, transpositions, its search hooks,
and in a game with chance the referee's draws (``arena.testing.sampling``)."""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass

import math

from arena.game import CHANCE, Game, texts_need_state
from arena.testing.hooks import HookReport, check_search_hooks
from arena.testing.sampling import SamplingReport, check_sampling
from arena.testing.playout import _Place, _line, _reporting, _require, _transposed, random_playout


@dataclass
class GameReport:
    """What ``check_game`` looked at."""

    playouts: int
    positions: int
    transpositions: int
    """Pairs of transposed move orders found to reach the same position (and checked)."""
    hooks: HookReport | None = None
    """What ``check_search_hooks`` looked at."""
    sampling: SamplingReport | None = None
    """In a game with chance, what ``check_sampling`` tested: the referee's draws against the rule book."""




def check_game(game: Game, *, playouts: int = 20, seed: int = 0, max_plies: int = 10_000) -> GameReport:
    """Play seeded random games and check every rule-book promise along the way."""
    _require("check_game", game=(game, Game), playouts=(playouts, int), seed=(seed, int), max_plies=(max_plies, int))
    rng = random.Random(seed)
    low, high = game.bounds
    if _zero_sum_pair(game):
        assert low < 0 < high and low == -high, f"{game.name}: bounds {game.bounds} must be symmetric around 0"
    else:
        assert low < high, f"{game.name}: bounds {game.bounds} must be (lowest, highest) utility"
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
    sampling = check_sampling(game, seed=seed) if game.model.chance else None
    return GameReport(playouts, positions, transpositions, hooks, sampling)


def _check_state(game: Game, state, path) -> None:
    where = f"{game.name} after {_line(game, path)}"
    _check_hashable(state, where)
    assert pickle.loads(pickle.dumps(state)) == state, f"{where}: state does not survive pickling"
    player = game.to_move(state)
    if game.model.chance and player == CHANCE:
        _check_chance(game, state, where)
        legal = [outcome for outcome, _ in game.chance_outcomes(state)]
    else:
        seats = game.model.players
        assert type(player) is int and 0 <= player < seats, f"{where}: to_move returned {player!r}: a seat, 0 to {seats - 1}"
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
    estimates = [game.heuristic(state, seat) for seat in range(game.model.players)]
    for seat, h in enumerate(estimates):
        assert low < h < high, f"{where}: heuristic {h} for seat {seat} not strictly inside {game.bounds}"
    if _zero_sum_pair(game):
        h0, h1 = estimates
        assert abs(h0 + h1) < 1e-9, f"{where}: heuristic not zero-sum ({h0} for 0, {h1} for 1)"
    assert isinstance(game.render(state), str)


def _check_chance(game: Game, state, where: str) -> None:
    """A chance node's outcomes: each with a probability above 0, together summing to 1,
    none repeated, every one applicable, and no decision to take there (their shape, pairs
    of outcome and probability, the playout that reached the node has checked)."""
    outcomes = list(game.chance_outcomes(state))
    probabilities = [float(p) for _, p in outcomes]
    assert all(math.isfinite(p) and p > 0 for p in probabilities), f"{where}: probabilities {probabilities} must be above 0"
    assert abs(math.fsum(probabilities) - 1) < 1e-12, f"{where}: probabilities sum to {math.fsum(probabilities)!r}, not 1"
    assert not list(game.legal_moves(state)), f"{where}: a chance node has legal moves too"
    for outcome, _ in outcomes:
        game.apply(state, outcome)  # every outcome applies


def _check_terminal(game: Game, state, moves) -> None:
    where = f"{game.name} after {_line(game, moves)}"
    assert game.is_terminal(state)
    assert not list(game.legal_moves(state)), f"{where}: terminal state has legal moves"
    seats, total = game.model.players, game.model.total
    utilities = tuple(game.utilities(state))
    assert len(utilities) == seats, f"{where}: utilities {utilities!r} are not one per seat ({seats})"
    for seat, u in enumerate(utilities):
        assert u == game.utility(state, seat), f"{where}: utility(state, {seat}) is not utilities(state)[{seat}]"
    if _zero_sum_pair(game):
        u0, u1 = utilities
        assert u0 == -u1, f"{where}: utilities {u0} and {u1} do not sum to zero"
    elif total is not None:
        assert abs(math.fsum(utilities) - total) <= 1e-9 * max(1.0, abs(total)), (
            f"{where}: utilities {utilities!r} do not sum to the declared total {total}"
        )
    low, high = game.bounds
    for u in utilities:
        assert low <= u <= high, f"{where}: utility {u} outside {game.bounds}"
    _check_hashable(state, where)
    assert isinstance(game.render(state), str)


def _zero_sum_pair(game: Game) -> bool:
    """Two seats and a zero sum: the negamax searches' games, with their stricter promises."""
    return game.model.players == 2 and game.model.total == 0.0


def _check_hashable(state, where: str) -> None:
    try:
        hash(state)
    except TypeError as exc:
        raise AssertionError(f"{where}: state {state!r} is not hashable ({exc})") from None


def _check_transpositions(game: Game, moves, states) -> int:
    """Where both orders of a swap reach the same picture, the states must be equal."""
    found = 0
    for i, state, original in _transposed(game, moves, states):
        assert state == original and hash(state) == hash(original), (
            f"{game.name}: {_line(game, moves[: i + game.model.players + 1])} and the same with moves {i} and {i + game.model.players} "
            f"swapped show the same position but give unequal states"
        )
        found += 1
    return found


#: Node cap of one exact solve in ``check_search_hooks`` (positions needing more are skipped).
