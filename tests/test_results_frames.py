"""Game records as DataFrames."""

from arena import Budget, get_registry, play_game
from results import frames


def test_frames_hold_every_game_and_move():
    reg = get_registry(entry_points=False)
    game = reg.game("tictactoe")
    records = [
        play_game(game, [reg.bot("alphabeta:depth=9"), reg.bot("random")], seed=s, budgets=[Budget(nodes=500)] * 2)
        for s in range(3)
    ]
    games, moves = frames(records, tournament="t")
    assert list(games.game_id) == [0, 1, 2]
    assert (games.first == "alphabeta:depth=9").all()
    assert (games.utility_first >= 0).all()  # X with a perfect search never loses
    assert len(moves) == sum(len(r.moves) for r in records)
    assert moves.groupby("game_id").size().tolist() == [len(r.moves) for r in records]
    assert (moves.nodes <= 500).all()
    first = moves[moves.player == 0]
    assert (first.bot == "alphabeta:depth=9").all()
    assert first.depth.notna().any()
    assert moves[moves.bot == "random"].score.isna().all()
    assert (games.tournament == "t").all() and (games.pairing == 0).all()
    assert list(games.score_first) == [1.0 if r.result == "1-0" else 0.5 for r in records]
    assert list(games.nodes_first) == [sum(m.nodes for m in r.moves if m.player == 0) for r in records]
