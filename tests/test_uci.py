"""The ``uci`` bot: UCI scores, and real Stockfish games through the arena (skipped without Stockfish)."""

import math
import os
import shutil

import pytest

import results
from arena import Budget, get_registry
from arena.errors import ParameterError
from arena.limits import Limits
from bots.engine.launch import GAME_FOLDERS
from arena.front.cli import main
from arena.records import Termination
from arena.referee import play_game

pytest.importorskip("chess", reason="the chess game needs python-chess")

REGISTRY = get_registry(entry_points=False)
CHESS = REGISTRY.game("chess")
STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path=os.pathsep.join(GAME_FOLDERS))
needs_stockfish = pytest.mark.skipif(
    STOCKFISH is None, reason=f"Stockfish not found on PATH or in {', '.join(GAME_FOLDERS)} (Debian: apt install stockfish)"
)


def test_uci_scores_become_chess_utilities():
    bot = REGISTRY.bot("uci:cmd=stockfish")
    bot._game = CHESS
    assert bot.score("mate", 3) == 1 and bot.score("mate", -2) == -1 and bot.score("mate", 0) == -1
    assert bot.score("cp", 0) == 0
    # Lichess's curve: 2 / (1 + exp(-0.00368208 * cp)) - 1 (https://lichess.org/page/accuracy)
    assert bot.score("cp", 300) == pytest.approx(2 / (1 + math.exp(-0.00368208 * 300)) - 1)
    assert bot.score("cp", -300) == pytest.approx(-bot.score("cp", 300))
    assert -1 < bot.score("cp", -100000) < bot.score("cp", 100000) < 1  # only a mate reaches a bound


def test_uci_plays_chess_only():
    with pytest.raises(ParameterError, match=r"^uci 'uci:cmd=stockfish' UCI engines play chess only, not 'tictactoe'$"):
        REGISTRY.bot("uci:cmd=stockfish").check_game(REGISTRY.game("tictactoe"))


@needs_stockfish
def test_stockfish_is_found_outside_path(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert REGISTRY.bot("uci:cmd=stockfish").argv() == [shutil.which("stockfish", path=os.pathsep.join(["/nonexistent", *GAME_FOLDERS]))]
    with pytest.raises(ParameterError, match=r"cannot start: no program 'stockfush' on PATH, /usr/games, /usr/local/games"):
        REGISTRY.bot("uci:cmd=stockfush").check_game(CHESS)


@pytest.mark.processes
@needs_stockfish
def test_stockfish_options_are_checked_at_set_up():
    with pytest.raises(ParameterError, match=r"has no option 'Hsh'; its options: .*Threads, Hash"):
        REGISTRY.bot("uci:cmd=stockfish,Hsh=64").check_game(CHESS)
    with pytest.raises(ParameterError, match=r"bad value '0' for option 'Hash'; allowed: 1 to"):
        REGISTRY.bot("uci:cmd=stockfish,Hash=0").check_game(CHESS)


@pytest.mark.processes
@needs_stockfish
def test_stockfish_from_a_fen_with_an_opening():
    game = REGISTRY.game("chess:fen=6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")  # back-rank mate in one: a1a8
    bot = REGISTRY.bot("uci:cmd=stockfish")
    record = play_game(game, [bot, REGISTRY.bot("random")], budgets=[Budget(depth=5)] * 2, opening=["g1f1", "g8f8", "f1g1", "f8g8"])
    bot.close()
    assert record.termination is Termination.NORMAL and record.moves[0].move == "a1a8" and record.winner == 0
    assert record.moves[0].score == 1 and record.moves[0].reported


@pytest.mark.processes
@needs_stockfish
def test_stockfish_gauntlet_at_1000_nodes_through_arena_run(tmp_path):
    log = tmp_path / "sf.log"  # Stockfish writes what it is sent to its Debug Log File
    db = tmp_path / "sf.db"
    argv = [
        "run", "--game", "chess", "--format", "gauntlet", "--challenger", "sf",
        "--bot", f"sf=uci:cmd=stockfish,Debug Log File={log},Hash=32,Threads=1",
        "--bot", "sf2=uci:cmd=stockfish", "--bot", "random", "--bot", "greedy",
        "--budget", "nodes=1000", "--games", "2", "--openings", "2", "--jobs", "2", "--no-progress", "--db", str(db),
    ]
    assert main(argv) == 0
    games, moves = results.load(db)
    assert len(games) == 6 and (games.termination == "normal").all(), games.message.tolist()
    sf = moves[moves.bot.isin(["sf", "sf2"])]
    assert (sf.reported == 1).all() and (sf.nodes > 0).all() and sf.depth.notna().all()
    assert (moves[~moves.bot.isin(["sf", "sf2"])].reported == 1).all()  # isolated: counted in their own processes
    # Stockfish counts nodes in batches and may stop a few past the limit: flagged, never forfeited
    assert (sf.over_budget == (sf.nodes > 1000)).all() and (sf.nodes < 1100).all()
    against_random = games[(games["first"] == "random") | (games.second == "random")]
    assert set(against_random.result) <= {"1-0", "0-1"}
    assert all((row.first == "sf") == (row.result == "1-0") for row in against_random.itertuples())
    text = log.read_text()
    assert "setoption name Hash value 32" in text and "setoption name Threads value 1" in text
    assert "go nodes 1000" in text


@pytest.mark.processes
@needs_stockfish
def test_stockfish_beyond_the_memory_limit_says_so_at_set_up():
    with pytest.raises(ParameterError, match=r"ran out of memory: over its limit of 1024 MiB \(Failed to allocate 2048MB"):
        REGISTRY.bot("uci:cmd=stockfish,Hash=2048").check_game(CHESS)  # the default limit: 1024 MiB


@pytest.mark.processes
@needs_stockfish
def test_stockfish_at_multipv_8_never_loses_by_output():
    # A healthy engine's info lines are not output: at MultiPV=8 Stockfish sends several KiB per
    # move, far beyond an output limit of 8 KiB a game, and plays whole games all the same.
    limits = Limits(output_limit=8)
    bots = [REGISTRY.bot(f"uci:cmd=stockfish,Threads=1,Hash=16,MultiPV=8,Skill Level={level}") for level in (3, 20)]
    for bot in bots:
        bot.limits = limits
    try:
        for seed in (1, 2):
            record = play_game(CHESS, bots[:: 1 if seed == 1 else -1], budgets=[Budget(time=0.03)] * 2, seed=seed,
                               time_margin=0.5)
            assert record.termination is Termination.NORMAL, record.message
            assert len(record.moves) >= 20
    finally:
        for bot in bots:
            bot.close()
