"""OpenSpiel's games of more than two seats through the adapter: chinese_checkers (2-6),
quoridor (2 or 4), and the chance games pig (2-10) and maedn (2-4); and the referee's dice
shared seat by seat over a table's seatings."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'botarena[openspiel]')")

import results  # noqa: E402
from arena.front.cli import main  # noqa: E402
from arena.plugins import get_registry  # noqa: E402
from arena.testing import check_game  # noqa: E402

REGISTRY = get_registry(entry_points=False)


@pytest.mark.parametrize("spec, seats", [
    ("openspiel.chinese_checkers:players=3,max_moves=60", 3), ("openspiel.chinese_checkers:players=6,max_moves=60", 6),
    ("openspiel.pig:players=3", 3), ("openspiel.maedn:players=4", 4), ("openspiel.quoridor:players=4,wall_count=2", 4),
])
def test_games_of_more_seats_pass_the_conformance_checks(spec, seats):
    game = REGISTRY.game(spec)
    assert game.model.players == seats and "players" in game.model.features
    report = check_game(game, playouts=1, seed=1)
    assert report.positions > 0


def test_players_is_a_parameter_where_the_game_allows_several_and_two_is_the_default():
    game = REGISTRY.game("openspiel.chinese_checkers")
    assert game.model.players == 2 and not game.model.features
    assert "players" in type(game).parameters
    assert "players" not in type(REGISTRY.game("openspiel.hex")).parameters  # two seats only: left out
    with pytest.raises(Exception, match="players"):
        REGISTRY.game("openspiel.chinese_checkers:players=7")


def test_quoridors_seats_are_numbered_in_turn_order():
    """OpenSpiel's four-player quoridor moves its players 0, 2, 1, 3 (around the board); the
    arena's seats are numbered in turn order, each utility its OpenSpiel player's."""
    game = REGISTRY.game("openspiel.quoridor:players=4")
    state, rng, order = game.initial_state(), random.Random(2), []
    while not game.is_terminal(state) and len(order) < 400:
        order.append(game.to_move(state))
        state = game.apply(state, rng.choice(game.legal_moves(state)))
    assert order[:8] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert all(b == (a + 1) % 4 for a, b in zip(order, order[1:]))
    if game.is_terminal(state):
        returns = state.state.returns()
        assert game.utilities(state) == (returns[0], returns[2], returns[1], returns[3])


@pytest.mark.processes
def test_a_three_seat_chance_game_draws_each_seats_dice_alike_over_a_rounds_seatings(tmp_path, capsys):
    """A round of a table is a block of seatings (every bot in every seat once); the k-th
    draw of seat s's stream is the same in each of its games, whoever sits there."""
    db = tmp_path / "pig.db"
    assert main(["run", "--game", "openspiel.pig:players=3,winscore=20", "--bot", "random", "--bot", "greedy",
                 "--bot", "r2=random", "--games", "12", "--openings", "0", "--jobs", "1", "--no-progress",
                 "--db", str(db)]) == 0
    capsys.readouterr()
    moves = results.load(db).moves
    draws: dict[int, dict[int, list]] = {}  # game -> seat -> outcomes of its stream, in order
    for game_id, plies in moves.groupby("game_id"):
        last, mine = 0, {0: [], 1: [], 2: []}
        for ply in plies.sort_values("ply").itertuples():
            if ply.player >= 0:
                last = ply.player
            else:
                mine[last].append(ply.move)
        draws[game_id] = mine
    assert sorted(draws) == list(range(12))
    shared = 0
    for round_ in range(4):  # 12 games of one table: 4 rounds of 3 seatings
        games = [draws[g] for g in range(3 * round_, 3 * round_ + 3)]
        for seat in range(3):
            streams = [g[seat] for g in games]
            for a in streams:
                for b in streams:
                    n = min(len(a), len(b))
                    assert a[:n] == b[:n], (round_, seat)
                    shared += n
    assert shared > 100
    first = [draws[g][0][:5] for g in (0, 3, 6, 9)]
    assert len({tuple(f) for f in first}) > 1  # another round, other dice
