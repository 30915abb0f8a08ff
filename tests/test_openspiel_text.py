"""OpenSpiel's games: moves written as OpenSpiel's action strings, read back, typed and stored."""

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'botarena[openspiel]')")

from arena import Budget, IllegalMoveError, get_registry, play_game  # noqa: E402
from arena.front.cli import main  # noqa: E402
from arena.front.tournament import make_openings  # noqa: E402
from arena.game import texts_need_state  # noqa: E402
from games import openspiel  # noqa: E402
from games.openspiel_text import compact, legal_texts  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = get_registry(entry_points=False)
# Its games of perfect information without simultaneous moves (the others: test_openspiel_hidden.py).
NAMES = sorted(n for n, e in REGISTRY.games.items() if e.plugin == "games.openspiel" and not e.cls.model.imperfect)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow(reason="yacht's every roll is a chance node of 7,776 outcomes")) if n == "openspiel.yacht" else n for n in NAMES])
def test_every_move_of_random_playouts_reads_back_from_its_text(name):
    # Two seeded random playouts of at most 200 plies. In every position: each legal move's
    # text is one word, no other legal move's, and parse_move_in gives the move back; where
    # texts depend on the position it is OpenSpiel's string for the player to move, which
    # also reads back as OpenSpiel writes it (spaces and all). The texts replay the game.
    # The player to move is OpenSpiel's (the turns ALTERNATING takes from the parent).
    game = REGISTRY.game(name)
    by_position = texts_need_state(game)
    assert by_position == (name.removeprefix(openspiel.PREFIX) not in openspiel.STATE_FREE_TEXTS)
    rng = random.Random(3)
    for _ in range(2):
        state, moves, texts = game.initial_state(), [], []
        while not game.is_terminal(state) and len(moves) < 200:
            player = game.to_move(state)
            assert player == state.state.current_player()
            legal = game.choices(state)  # a chance node's outcomes have texts too
            shown = [game.move_text(state, m) for m in legal]
            assert len(set(shown)) == len(shown), shown
            for move, text in zip(legal, shown):
                assert text and not any(c.isspace() for c in text)
                assert game.parse_move_in(state, text) == move
                if by_position:
                    spiel_text = state.state.action_to_string(player, move)
                    assert text == compact(spiel_text)  # no two shared a string: no '@' needed
                    assert game.parse_move_in(state, spiel_text) == move
            move = rng.choice(legal)
            moves.append(move)
            texts.append(game.move_text(state, move))
            state = game.apply(state, move)
        assert game.play(texts) == state
        assert game.line_text(game.initial_state(), moves) == texts


class SharedStrings:
    """A pyspiel state stand-in whose legal actions 3 and 5 share a string, and 7 has none."""

    def legal_actions(self):
        return [3, 5, 7]

    def action_to_string(self, player, action):
        return {3: "a 1", 5: "a 1", 7: ""}[action]


def test_moves_that_share_a_string_are_told_apart_by_their_number():
    chess = REGISTRY.game("openspiel.chess")
    state = openspiel.HistoryState(SharedStrings(), 0)
    assert legal_texts(state) == ({3: "a1@3", 5: "a1@5", 7: "7"}, {"a1@3": 3, "a1@5": 5, "7": 7})
    assert [chess.move_text(state, m) for m in (3, 5, 7)] == ["a1@3", "a1@5", "7"]
    assert chess.parse_move_in(state, "a1@5") == 5 and chess.parse_move_in(state, "a 1 @ 3") == 3


def test_chess_is_written_in_san_and_numbers_still_read():
    chess = REGISTRY.game("openspiel.chess")
    start = chess.initial_state()
    assert chess.line_text(start, [chess.parse_move_in(start, "e4")]) == ["e4"]
    state = chess.play(["e4", "e5", "Nf3", "Nc6", "Bb5"])
    assert {"a6", "Nf6", "Bc5", "Qe7"} <= {chess.move_text(state, m) for m in chess.legal_moves(state)}
    move = chess.parse_move_in(state, "a6")
    assert chess.parse_move_in(state, str(move)) == move and chess.format_move(move) == str(move)
    with pytest.raises(IllegalMoveError, match=r"cannot read 'Ke9' as a move in openspiel.chess; expected a legal"):
        chess.parse_move_in(state, "Ke9")
    assert 0 not in chess.legal_moves(state)  # an action that is not a move here: written as its number
    with pytest.raises(IllegalMoveError, match=r"illegal move '0' in openspiel.chess at ply 5; legal: .*Nf6"):
        chess.play(["e4", "e5", "Nf3", "Nc6", "Bb5", "0"])
    assert "moves: e4 e5 Nf3 Nc6 Bb5" in chess.render(state)


@pytest.mark.processes
def test_a_person_types_san_in_arena_play():
    # OpenSpiel's white is its player 1, who moves first: the person is the second bot.
    # 1. e4 (after a try at 'e5', not white's to play), any reply, 2. Nf3 (legal whatever
    # black played: nothing black can do in one move blocks f3 or gives check), then resign.
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "play", "openspiel.chess", "--bot", "random", "--bot", "human", "--seed", "1"],
        input="e5\ne4\nN f3\nresign\n", capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"legal: (?=.*\bNf3\b)(?=.*\be4\b)", out)  # the prompt lists SAN
    assert "cannot read 'e5' as a move in openspiel.chess; expected a legal move's text" in out
    assert "move 1: second (human) plays e4" in out and "move 3: second (human) plays Nf3" in out
    assert "'human' resigned at ply 4" in out and "Traceback" not in proc.stderr + out


def test_records_openings_and_principal_variations_are_written_by_position():
    chess = REGISTRY.game("openspiel.chess")
    first = chess.initial_state()
    opening = [chess.parse_move_in(first, "d4")]  # an action: the record writes it as text
    bots = [REGISTRY.bot("iterative:max_depth=2"), REGISTRY.bot("random")]
    record = play_game(chess, bots, budgets=(Budget(nodes=120), Budget()), seed=2, opening=opening)
    assert record.opening == ("d4",)
    state, pvs = chess.play(["d4"]), 0
    for m in record.moves:  # the record replays, each principal variation a legal line in SAN
        if len(m.pv) > 1:
            assert m.pv[0] == m.move
            chess.play(m.pv, state)
            pvs += 1
        state = chess.play([m.move], state)
    assert pvs and chess.is_terminal(state) == (record.termination.name == "NORMAL")
    openings = make_openings(chess, 3, 4, seed=5)
    assert all(chess.play(line) for line in openings)
    assert any(not text.isdigit() for line in openings for text in line)


@pytest.mark.processes
def test_arena_show_replays_a_stored_game_in_position_texts(tmp_path, capsys):
    db = str(tmp_path / "uttt.db")
    argv = ["run", "--game", "openspiel.ultimate_tic_tac_toe", "--bot", "random", "--bot", "mcts", "--budget",
            "nodes=100", "--games", "2", "--openings", "2", "--jobs", "1", "--no-progress", "--db", db]
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["show", db, "1"]) == 0
    out = capsys.readouterr().out
    plays = re.findall(r"\((?:random|mcts)\) plays (\S+)", out)
    # OpenSpiel's strings: 'Choose local board 4', 'Local board 4: x(1,1)', without spaces
    assert plays and all(re.fullmatch(r"Chooselocalboard\d|Localboard\d:[xo]\(\d,\d\)", t) for t in plays), plays
    assert re.search(r"opening: (Chooselocalboard\d|Localboard\d:[xo]\(\d,\d\)) ", out)


def test_the_conformance_kit_tells_a_bot_its_opening_in_the_texts_of_their_positions():
    from arena import Bot
    from arena.testing import check_bot

    class Opened(Bot):
        name = "opened"
        openings: list = []

        def opening(self, moves):
            self.openings.append(moves)

        def choose(self, game, state, budget):
            return game.legal_moves(state)[0]

    chess = REGISTRY.game("openspiel.chess")
    check_bot(Opened(), chess, budgets=(Budget(nodes=10),), positions=3, seed=4)
    texts = [t for opening in Opened.openings for t in opening]
    assert texts and not any(t.isdigit() for t in texts), texts  # chess's own notation, not action numbers


def test_arena_tree_writes_the_moves_in_their_positions(capsys):
    # after 1. e4 e5 the knight's move from g1 is written Nf3, not as an action number
    assert main(["tree", "openspiel.chess", "--moves", "e4", "e5", "--bot", "minimax:depth=1"]) == 0
    out = capsys.readouterr().out
    moves = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert "Nf3" in moves and len(moves) == 29 and not any(m.isdigit() for m in moves), moves


def test_the_html_report_replays_moves_written_in_their_positions():
    from results.replay import replay
    from results.rows import game_row, move_rows

    chess = REGISTRY.game("openspiel.chess")
    bots = [REGISTRY.bot("random"), REGISTRY.bot("random")]
    record = play_game(chess, bots, budgets=(Budget(nodes=1),) * 2, seed=3, opening=("e4", "e5"))
    moves = move_rows(record, 0)
    assert any(not m["move"].isdigit() for m in moves)  # stored as chess notation
    data = replay(chess, game_row(record, 0, 0), moves)
    assert data["error"] is None and len(data["boards"]) == 1 + record.plies
