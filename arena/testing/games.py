"""Conformance checks of a game: playouts, states, terminals, transpositions, its search hooks,
in a game with chance the referee's draws (``arena.testing.sampling``), and in a game of hidden
information or simultaneous moves what the seats are handed (views, their text forms, ``sample_state``)."""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass

import math

from arena.game import CHANCE, JOINT, Game, texts_need_state
from arena.testing.hooks import HookReport, check_search_hooks
from arena.testing.sampling import SamplingReport, check_sampling
from arena.testing.playout import (
    OneSeatAtATime, _Place, _joint_transposed, _line, _reporting, _require, _transposed, random_playout,
)
from arena.view import MAX_OBSERVATION, make_view, view_from_texts, view_texts

#: States ``sample_state`` draws for each view ``check_game`` makes.
SAMPLES = 2


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
    views: int = 0
    """In a game of hidden information or simultaneous moves: the seats' views made as the referee
    makes them and checked (observation, key, legal moves, their text forms)."""
    samples: int = 0
    """States ``sample_state`` drew and that the seat could not tell from the true one (0: not offered)."""


def check_game(game: Game, *, playouts: int = 20, seed: int = 0, max_plies: int = 10_000) -> GameReport:
    """Play seeded random games and check every rule-book promise along the way: at a ``JOINT``
    state a random move for each acting seat, applied at once; in a game of hidden information or
    simultaneous moves also what each seat is handed (its view, in text form too, and the states
    ``sample_state`` draws for it)."""
    _require("check_game", game=(game, Game), playouts=(playouts, int), seed=(seed, int), max_plies=(max_plies, int))
    rng = random.Random(seed)
    low, high = game.bounds
    if _zero_sum_pair(game):
        assert low < 0 < high and low == -high, f"{game.name}: bounds {game.bounds} must be symmetric around 0"
    else:
        assert low < high, f"{game.name}: bounds {game.bounds} must be (lowest, highest) utility"
    if game.model.hidden:
        assert not texts_need_state(game), (
            f"{game.name}: hides information but writes moves by position (move_text); a bot's host rebuilds "
            "its legal moves from their texts with parse_move alone")
    seen = _Seen(game, random.Random(f"{seed} samples")) if game.model.imperfect else None
    simultaneous = game.model.simultaneous
    positions = transpositions = 0
    place = _Place(game.name, game)
    for _ in range(playouts):
        with _reporting(place):
            moves = random_playout(game, rng, max_plies, place)
            state, ply, history = game.initial_state(), 0, []
            states, steps = [state], []
            while ply < len(moves):
                place.at(moves, ply)
                positions += 1
                _check_state(game, state, moves[:ply])
                if seen is not None:
                    seen.check(state, tuple(history), place)
                before = pickle.dumps(state)
                mover = game.to_move(state)
                if simultaneous and mover == JOINT:
                    move = parts = tuple(moves[ply:ply + len(game.acting(state))])
                    child = game.apply_joint(state, move)
                else:
                    move, parts = moves[ply], (moves[ply],)
                    child = game.apply(state, move)
                assert pickle.dumps(state) == before, f"{place}: apply changed its input"
                if seen is not None:
                    history.extend(seen.public(state, part, place) for part in parts)
                steps.append((ply, state, mover, move))
                states.append(child)
                state, ply = child, ply + len(parts)
            place.at(moves)
            _check_terminal(game, state, moves)
            if seen is not None:
                seen.check(state, tuple(history), place)
            if simultaneous:
                transpositions += _check_joint_transpositions(game, moves, steps + [(state,)])
            else:
                transpositions += _check_transpositions(game, moves, states)
    hooks = check_search_hooks(game, playouts=playouts, seed=seed, max_plies=max_plies)
    sampling = None
    if game.model.chance:
        sampling = check_sampling(OneSeatAtATime(game) if simultaneous else game, seed=seed)
    views, samples = (seen.views, seen.samples) if seen is not None else (0, 0)
    return GameReport(playouts, positions, transpositions, hooks, sampling, views, samples)


def _check_state(game: Game, state, path) -> None:
    where = _Place(game.name, game, path)
    _check_hashable(state, where)
    assert pickle.loads(pickle.dumps(state)) == state, f"{where}: state does not survive pickling"
    player = game.to_move(state)
    if game.model.chance and player == CHANCE:
        _check_chance(game, state, where)
        choices = [[outcome for outcome, _ in game.chance_outcomes(state)]]
    elif game.model.simultaneous and player == JOINT:
        choices = [list(game.legal_moves_for(state, seat)) for seat in game.acting(state)]
        assert all(choices), f"{where}: a seat acting at a joint move has no legal moves: {choices!r}"
    else:
        seats = game.model.players
        assert type(player) is int and 0 <= player < seats, f"{where}: to_move returned {player!r}: a seat, 0 to {seats - 1}"
        choices = [list(game.legal_moves(state))]
        if game.model.imperfect:  # what the seat is handed, and what a replay reads
            own = list(game.legal_moves_for(state, player))
            assert own == choices[0], f"{where}: legal_moves_for(state, {player}) gives {own!r}, legal_moves {choices[0]!r}"
    for legal in choices:
        _check_moves(game, state, legal, where)
    if player >= 0:  # a seat to move (not the dice, not a joint move)
        _check_legal_move(game, state, choices[0], path, where)
    low, high = game.bounds
    estimates = [game.heuristic(state, seat) for seat in range(game.model.players)]
    for seat, h in enumerate(estimates):
        assert low < h < high, f"{where}: heuristic {h} for seat {seat} not strictly inside {game.bounds}"
    if _zero_sum_pair(game):
        h0, h1 = estimates
        assert abs(h0 + h1) < 1e-9, f"{where}: heuristic not zero-sum ({h0} for 0, {h1} for 1)"
    assert isinstance(game.render(state), str)


def _check_legal_move(game: Game, state, legal: list, path, where: _Place) -> None:
    """``legal_move`` (the referee's check) agrees with ``legal_moves``: it finds legal moves (a
    few, spread) as the game's own values, and refuses moves of the line that are not legal here.
    Checked where a game overrides it: the default looks the move up in ``legal_moves``."""
    if type(game).legal_move is Game.legal_move:
        return
    for move in legal[:: max(1, len(legal) // 4)]:
        found = game.legal_move(state, move)
        assert found == move and type(found) is type(move), f"{where}: legal_move({move!r}) gives {found!r}"
    others = [m for m in path[-8:] if m not in legal]
    for move in others[:4]:
        assert game.legal_move(state, move) is None, f"{where}: legal_move finds {move!r}, not among the legal moves"


def _check_moves(game: Game, state, legal: list, where: _Place) -> None:
    """One seat's legal moves (or a chance node's outcomes): some, none repeated, and their texts."""
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


def _check_chance(game: Game, state, where: _Place) -> None:
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
    where = _Place(game.name, game, moves)
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


def _check_hashable(state, where: _Place | str, what: str = "state") -> None:
    try:
        hash(state)
    except TypeError as exc:
        raise AssertionError(f"{where}: {what} {state!r} is not hashable ({exc})") from None


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


def _check_joint_transpositions(game: Game, moves, steps) -> int:
    """The same for joint moves: one seat's moves in two joint turns swapped."""
    found = 0
    for first, later, end, seat, state, original in _joint_transposed(game, steps):
        assert state == original and hash(state) == hash(original), (
            f"{game.name}: {_line(game, moves[:end])} and the same with seat {seat}'s moves at plies {first} and "
            f"{later} swapped show the same position but give unequal states"
        )
        found += 1
    return found


class _Seen:
    """The checks of what seats are handed in a game of hidden information or simultaneous moves:
    observations and keys of every seat, each acting seat's view as the referee makes it (and as
    its text form rebuilds it), ``public_text``, and the states ``sample_state`` draws."""

    def __init__(self, game: Game, rng: random.Random):
        self.game, self.rng = game, rng
        self.views = self.samples = 0
        self.offered = True  # until sample_state says it is not

    def public(self, state, move, place) -> str:
        text = self.game.public_text(state, move)
        assert isinstance(text, str) and text and not any(c.isspace() for c in text), (
            f"{place}: public_text gave {text!r} for {move!r}; a ply's public text is one word")
        return text

    def check(self, state, history: tuple, place) -> None:
        game = self.game
        for seat in range(game.model.players):
            observation = game.observation(state, seat)
            size = f"{len(observation):,} characters" if isinstance(observation, str) else type(observation).__name__
            assert isinstance(observation, str) and len(observation) <= MAX_OBSERVATION, (
                f"{place}: observation of seat {seat} is {size}; text of at most {MAX_OBSERVATION:,} characters")
            key = game.information_key(state, seat)
            _check_hashable(key, f"{place}: information_key of seat {seat}", "key")
            assert pickle.loads(pickle.dumps(key)) == key, f"{place}: information_key {key!r} does not survive pickling"
        if game.is_terminal(state):
            return
        mover = game.to_move(state)
        if mover == CHANCE:
            return
        for seat in game.acting(state) if mover == JOINT else (mover,):
            view = make_view(game, state, seat, history)
            back = view_from_texts(game, view_texts(game, view))
            assert back == view, f"{place}: the view of seat {seat} comes back from its text form as {back!r}, not {view!r}"
            self.views += 1
            if self.offered:
                self._sample(view, state, place)

    def _sample(self, view, state, place) -> None:
        """States ``sample_state`` draws for ``view``: ones its seat cannot tell from ``state``."""
        game, seat = self.game, view.seat
        for _ in range(SAMPLES):
            try:
                sampled = game.sample_state(view, self.rng)
            except NotImplementedError:
                self.offered = False
                return
            said = f"{place}: sample_state for seat {seat} gave {sampled!r}"
            _check_hashable(sampled, said)
            assert not game.is_terminal(sampled) and game.to_move(sampled) == game.to_move(state), (
                f"{said}, which is over or has another seat to move")
            key = game.information_key(sampled, seat)
            assert key == view.key, f"{said}, whose information key {key!r} is not the view's {view.key!r}"
            assert game.observation(sampled, seat) == view.observation, f"{said}, whose observation is not the view's"
            legal = tuple(game.legal_moves_for(sampled, seat))
            assert legal == view.legal, f"{said}, where the seat's legal moves are {legal!r}, not {view.legal!r}"
            self.samples += 1


#: Node cap of one exact solve in ``check_search_hooks`` (positions needing more are skipped).
