"""What the ``uci`` bot writes to and reads from a UCI engine, line by line (no engine needed):
positions, the new-game line, ``info`` lines, scores, and which games it takes."""

import math
from types import SimpleNamespace

import pytest

from arena import get_registry
from arena.scores import LICHESS_K

pytest.importorskip("chess", reason="the chess game needs python-chess")

REGISTRY = get_registry(entry_points=False)
FEN = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"


def uci(game=None):
    bot = REGISTRY.bot("uci:cmd=stockfish")
    bot._game = game or REGISTRY.game("chess")
    bot._moves = []
    return bot


def test_the_position_is_the_start_or_the_games_fen_then_the_moves():
    bot = uci()
    bot.set_game(None, REGISTRY.game("chess"))
    assert bot.position_line() == "position startpos"
    bot._moves = ["e2e4", "e7e5"]
    assert bot.position_line() == "position startpos moves e2e4 e7e5"
    bot.set_game(None, REGISTRY.game(f"chess:fen={FEN}"))
    assert bot.position_line() == f"position fen {FEN} moves e2e4 e7e5"
    bot._moves = []
    assert bot.position_line() == f"position fen {FEN}"
    assert bot.newgame_line(0) == bot.newgame_line(1) == "ucinewgame"


def test_info_lines_give_depth_nodes_score_and_the_principal_variation():
    bot = uci()
    info = {}
    bot.read_info("info depth 12 seldepth 17 multipv 1 score cp 31 nodes 12345 nps 1000 pv e2e4 e7e5 g1f3", info)
    assert info == {"depth": 12, "score": bot.score("cp", 31), "nodes": 12345, "pv": ["e2e4", "e7e5", "g1f3"]}
    info = {}
    bot.read_info("info depth 3 score mate -2 pv", info)
    assert info == {"depth": 3, "score": -1, "pv": []}
    # a word at the end without its value is left out; nothing after pv is read as a field
    info = {}
    bot.read_info("info nodes 40 pv a2a3 depth 9 score cp", info)
    assert info == {"nodes": 40, "pv": ["a2a3", "depth", "9", "score", "cp"]}
    # a field's value as the last word is read
    info = {}
    bot.read_info("info depth 5 nodes 40", info)
    bot.read_info("info score cp 12", info)
    assert info == {"depth": 5, "nodes": 40, "score": bot.score("cp", 12)}
    info = {}
    bot.read_info("info string depth", info)
    bot.read_info("info score cp", info)
    assert info == {}


def test_scores_map_into_the_games_bounds_and_only_a_mate_reaches_one():
    bot = uci()
    assert bot.score("mate", 1) == 1 and bot.score("mate", -1) == bot.score("mate", 0) == -1
    assert bot.score("cp", 200) == pytest.approx(2 / (1 + math.exp(-LICHESS_K * 200)) - 1)
    assert bot.score("cp", 10**6) == pytest.approx(0.999) and bot.score("cp", -10**6) == pytest.approx(-0.999)
    with pytest.raises(ValueError, match="^lowerbound$"):
        bot.score("lowerbound", 3)
    # other bounds: the middle at 0 cp, the curve scaled to half the width
    wide = uci(SimpleNamespace(bounds=(0, 10)))
    assert wide.score("cp", 0) == 5 and wide.score("mate", 4) == 10 and wide.score("mate", -4) == 0
    assert wide.score("cp", 200) == pytest.approx(5 + 5 * (2 / (1 + math.exp(-LICHESS_K * 200)) - 1))
    assert wide.score("cp", 10**6) == pytest.approx(5 + 5 * 0.999)


def test_only_info_strings_go_to_the_log():
    logged = []
    engine = SimpleNamespace(log_line=logged.append)
    bot = uci()
    for line in ("info string NNUE evaluation using nn.nnue", "info depth 3", "option name Hash type spin"):
        bot.other_line(engine, line, line.split()[0])
    assert logged == ["info string NNUE evaluation using nn.nnue"]


@pytest.mark.processes
def test_a_uci_engine_is_refused_for_other_games_before_it_starts():
    bot = REGISTRY.bot("uci:cmd=/nonexistent/engine")
    assert bot.suitable(REGISTRY.game("tictactoe")) == "UCI engines play chess only, not 'tictactoe'"
    # for chess, the engine is started to check it: a missing program says so
    assert bot.suitable(REGISTRY.game("chess")).startswith("cannot start")
