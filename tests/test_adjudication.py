"""Adjudication: the referee ends a dead draw, a lost game its bot will not resign and a game too
long, by fastchess's rules (app/src/matchmaking/match/match.hpp: DrawTracker, ResignTracker,
MaxMovesTracker; defaults in app/src/types/*_adjudication.hpp), each as its own termination."""

from __future__ import annotations

import shutil

import pytest

import results
from arena import Adjudication, Bot, Budget, Decision, DrawRule, ResignRule, Termination, get_registry, play_game
from arena.errors import ParameterError
from arena.front.cli import main
from arena.scores import from_centipawns, to_centipawns

STOCKFISH = shutil.which("stockfish") or ("/usr/games/stockfish" if shutil.os.path.exists("/usr/games/stockfish") else None)


class Scorer(Bot):
    """Plays the first legal move with a score from a list, in centipawns (None: no score)."""

    name = "scorer"

    def __init__(self, centipawns, **params):
        super().__init__(**params)
        self.centipawns = list(centipawns)

    def choose(self, game, state, budget):
        cp = self.centipawns.pop(0) if self.centipawns else None
        move = game.legal_moves(state)[0]
        if cp is None:
            return move
        low, high = game.bounds
        score = high if cp == "mate" else low if cp == "-mate" else from_centipawns(cp, low, high)
        return Decision(move, score=score)


def test_the_rules_read_fastchess_s_options_with_its_defaults():
    assert DrawRule.parse("movenumber=40 movecount=8 score=10") == DrawRule(40, 8, 10)
    assert DrawRule.parse("") == DrawRule(0, 1, 0)  # fastchess's DrawAdjudication defaults
    assert ResignRule.parse("movecount=3,score=600,twosided=true") == ResignRule(3, 600, True)
    assert ResignRule.parse({"score": 500}) == ResignRule(1, 500, False)  # a TOML table
    assert DrawRule.parse(str(DrawRule(4, 2, 9))) == DrawRule(4, 2, 9)
    for bad, words in (("moves=3", "unknown draw option 'moves'"), ("score=-1", "0 or more"), ("score", "KEY=VALUE")):
        with pytest.raises(ParameterError, match=words):
            DrawRule.parse(bad)
    with pytest.raises(ParameterError, match="true or false"):
        ResignRule.parse("twosided=maybe")
    with pytest.raises(ParameterError, match="at least 1"):
        Adjudication(maxmoves=0)


def test_scores_read_back_as_centipawns_through_the_uci_bot_s_curve():
    for cp in (-900, -35, 0, 12, 400):
        assert to_centipawns(from_centipawns(cp, -1, 1), -1, 1) == pytest.approx(cp, abs=1e-6)
    assert to_centipawns(1.0, -1, 1) == float("inf") and to_centipawns(-1.0, -1, 1) == float("-inf")


def play(white, black, rules, game="nim:heaps=30"):
    registry = get_registry()
    return play_game(registry.game(game), [Scorer(white), Scorer(black)], adjudication=rules, seed=1)


def test_a_draw_is_adjudicated_after_movecount_moves_a_side_within_the_score_from_movenumber():
    rules = Adjudication(draw=DrawRule(movenumber=3, movecount=2, score=20))
    # scores within 20 cp from ply 0; the count reaches 2 x 2 plies at ply 3, but move 3 comes at ply 6
    record = play([5, -5, 10, 0, 3, 2], [-5, 5, -10, 0, 1, 1], rules)
    assert record.termination is Termination.DRAW_ADJUDICATION and record.utilities == (0.0, 0.0)
    assert len(record.moves) == 6 and record.loser is None
    # a score beyond it starts the count again; so does a move without a score
    record = play([5, 50, 5, 5, 5], [5, None, 5, 5, 5], rules)
    assert record.termination is Termination.DRAW_ADJUDICATION and len(record.moves) == 8


def test_a_bot_whose_own_score_stays_lost_loses_by_resign_adjudication():
    rules = Adjudication(resign=ResignRule(movecount=3, score=500))
    # black's own score is -600 on its 3rd consecutive move (ply 5); a -400 between starts again
    record = play([0] * 9, [-600, -400, -600, -600, -600], rules)
    assert record.termination is Termination.RESIGN_ADJUDICATION and record.winner == 0
    assert len(record.moves) == 10 and record.moves[-1].player == 1 and "second loses by adjudication" in record.message
    assert record.utilities[1] < record.utilities[0] and record.loser is None
    # a mate against it counts too; the winner's score does not matter one-sided
    record = play([None] * 5, [-600, "-mate", -600], rules)
    assert record.termination is Termination.RESIGN_ADJUDICATION and len(record.moves) == 6


def test_two_sided_resign_needs_the_winner_to_agree():
    rules = Adjudication(resign=ResignRule(movecount=2, score=500, twosided=True))
    # the winner says only +100: no 4 consecutive plies beyond 500, no adjudication
    assert play([100] * 6, [-900] * 6, rules).termination is not Termination.RESIGN_ADJUDICATION
    # both agree for 2 x 2 plies: the side below zero loses when it moves
    record = play([700] * 6, [-700] * 6, rules)
    assert record.termination is Termination.RESIGN_ADJUDICATION and record.winner == 0 and len(record.moves) == 4


def test_a_game_is_drawn_after_maxmoves_moves_a_side_the_opening_not_counted():
    registry = get_registry()
    # Connect Four: no game ends before its 7th ply, so 3 moves a side (6 plies) after the opening's 2
    record = play_game(registry.game("connect4"), [registry.bot("random"), registry.bot("random")],
                       opening=["3", "3"], adjudication=Adjudication(maxmoves=3), seed=2)
    assert record.termination is Termination.MAX_MOVES and len(record.moves) == 6 and record.utilities == (0.0, 0.0)


def test_a_game_that_ends_by_its_rules_first_ends_normally():
    record = play([0] * 20, [0] * 20, Adjudication(maxmoves=50), game="nim:heaps=3")
    assert record.termination is Termination.NORMAL


def test_draw_and_resign_need_two_seats_of_a_zero_sum_game():
    with pytest.raises(ParameterError, match="two bots' scores"):
        Adjudication(draw=DrawRule()).check(get_registry().game("nim:players=3"))
    Adjudication(maxmoves=5).check(get_registry().game("nim:players=3"))


@pytest.mark.processes
def test_arena_run_adjudicates_with_fastchess_s_flags_and_reports_the_terminations(tmp_path, capsys):
    db = tmp_path / "t.db"
    argv = ["run", "--game", "connect4", "--bot", "random", "--bot", "r2=random", "--games", "4", "--openings", "0",
            "--maxmoves", "3", "--no-progress", "--db", str(db), "--no-isolation"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "max_moves" in out
    games = results.load(db).games
    assert (games.termination == "max_moves").all() and (games.plies == 6).all()
    assert main(["run", "--game", "nim:players=3", "--bot", "random", "--bot", "r2=random", "--bot", "r3=random",
                 "--draw", "movecount=2", "--db", str(tmp_path / "u.db"), "--no-progress"]) != 0
    assert "two bots' scores" in capsys.readouterr().err


@pytest.mark.processes
@pytest.mark.skipif(STOCKFISH is None, reason="Stockfish is not installed (apt-get install stockfish)")
def test_stockfish_a_queen_down_is_resigned_and_a_knight_ending_is_drawn(tmp_path, capsys):
    book = tmp_path / "book.txt"
    book.write_text("[fen=4k3/8/8/8/8/8/8/3QK3 w - - 0 1]\n[fen=4k3/8/8/3n4/8/8/3N4/4K3 w - - 0 1]\n")
    db = tmp_path / "t.db"
    engine = f"uci:cmd={STOCKFISH},Threads=1,Hash=16"
    argv = ["run", "--game", "chess", "--bot", f"a={engine}", "--bot", f"b={engine}", "--budget", "nodes=2000",
            "--games", "4", "--openings", str(book), "--resign", "movecount=3 score=600", "--draw",
            "movenumber=0 movecount=4 score=20", "--no-progress", "--db", str(db), "--jobs", "2"]
    assert main(argv) == 0, capsys.readouterr().err
    games = results.load(db).games.sort_values("game_id")
    queen, knights = games[games.opening.str.contains("3QK3")], games[games.opening.str.contains("3N4")]
    # the side a queen down (black) resigns: White's engine wins whichever bot it is
    assert (queen.termination == "resign_adjudication").all() and (queen.result == "1-0").all(), queen.message.tolist()
    # Stockfish scores two lone knights 0.00: 4 moves a side within 20 cp from the first
    assert (knights.termination == "draw_adjudication").all(), knights.message.tolist()
    assert (knights.result == "1/2-1/2").all() and (knights.plies == 8).all()


@pytest.mark.processes
def test_a_ladder_keeps_its_adjudication_and_a_zero_movecount_never_resigns_a_winner(tmp_path, capsys):
    db = str(tmp_path / "l.db")
    assert main(["ladder", db, "--add", "random", "greedy", "--game", "connect4", "--maxmoves", "3", "--games", "0",
                 "--no-isolation"]) == 0
    assert main(["ladder", db, "--games", "2", "--no-progress"]) == 0
    games = results.load(db).games
    assert len(games) == 2 and (games.termination == "max_moves").all(), games.message.tolist()
    capsys.readouterr()
    # movecount=0: still only a bot whose own score is below zero loses (fastchess's match.cpp checks it too)
    record = play([800, 800, 800], [None, 100, -700], Adjudication(resign=ResignRule(movecount=0, score=600)))
    assert record.termination is Termination.RESIGN_ADJUDICATION and record.winner == 0 and len(record.moves) == 6


def test_a_game_of_hidden_information_is_drawn_at_maxmoves_too():
    registry = get_registry()
    # goofspiel: 13 simultaneous turns; 3 moves a side end it at the 3rd turn
    record = play_game(registry.game("goofspiel"), [registry.bot("uniform"), registry.bot("uniform")], trusted=True,
                       adjudication=Adjudication(maxmoves=3), seed=3)
    assert record.termination is Termination.MAX_MOVES, record.message
    assert sum(1 for m in record.moves if m.player >= 0) == 6
