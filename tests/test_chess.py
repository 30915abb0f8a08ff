"""Chess on python-chess: move generation (perft), results and draw rules, states, keys, bots."""

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

chess = pytest.importorskip("chess", reason="the chess game needs python-chess (pip install 'botarena[chess]')")

from arena import Bot, Budget, IllegalMoveError, ParameterError, Termination, get_registry, play_game  # noqa: E402
from arena.referee import ask  # noqa: E402
from arena.testing import check_game  # noqa: E402
from games.chess_game import Chess  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# Position 2 of the Chess Programming Wiki's "Perft Results" (https://www.chessprogramming.org/Perft_Results)
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -"
BACK_RANK = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # a1a8 mates
REGISTRY = get_registry(entry_points=False)


def perft(game, state, depth):
    """Leaf nodes at ``depth`` plies, counted through the game's own legal_moves and apply."""
    if depth == 0:
        return 1
    return sum(perft(game, game.apply(state, m), depth - 1) for m in game.legal_moves(state))


# Node counts from the Chess Programming Wiki, "Perft Results"
# (https://www.chessprogramming.org/Perft_Results): initial position and position 2 ("Kiwipete").
@pytest.mark.parametrize(
    "fen, depth, nodes",
    [(None, 1, 20), (None, 2, 400), (None, 3, 8_902), (KIWIPETE, 1, 48), (KIWIPETE, 2, 2_039)],
)
def test_perft(fen, depth, nodes):
    game = Chess(fen=fen) if fen else Chess()
    assert perft(game, game.initial_state(), depth) == nodes


@pytest.mark.slow(reason="published perft counts of 100,000 to 200,000 positions")
@pytest.mark.parametrize("fen, depth, nodes", [(None, 4, 197_281), (KIWIPETE, 3, 97_862)])
def test_perft_deep(fen, depth, nodes):
    game = Chess(fen=fen) if fen else Chess()
    assert perft(game, game.initial_state(), depth) == nodes


@pytest.mark.parametrize("spec", ["chess:draws=automatic", f"chess:fen={KIWIPETE}"])
def test_conformance(spec):
    # Three random games each (the default rules get fifteen in test_conformance.py): a
    # random game of chess lasts a few hundred plies.
    report = check_game(REGISTRY.game(spec), playouts=3, seed=1)
    assert report.positions > 100 and report.transpositions > 0


@pytest.mark.parametrize(
    "moves, text, u0",
    [
        ("f2f3 e7e5 g2g4 d8h4", "checkmate: black wins", -1),  # fool's mate
        ("e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7", "checkmate: white wins", 1),  # scholar's mate
    ],
)
def test_checkmate(moves, text, u0):
    game = Chess()
    state = game.play(moves.split())
    assert game.is_terminal(state) and game.legal_moves(state) == []
    assert game.result_text(state) == text and game.ending(state) == "checkmate"
    assert (game.utility(state, 0), game.utility(state, 1)) == (u0, -u0)
    assert text in game.render(state)


@pytest.mark.parametrize(
    "fen, move, text",
    [
        ("k7/2Q5/8/8/8/8/8/7K w - - 0 1", "c7b6", "draw by stalemate"),
        ("k7/8/8/8/8/8/1r6/KB6 w - - 0 1", "a1b2", "draw by insufficient material"),  # K+B v K
    ],
)
def test_draws_on_the_board(fen, move, text):
    game = Chess(fen=fen)
    state = game.play([move])
    assert game.is_terminal(state) and game.result_text(state) == text
    assert game.utility(state, 0) == game.utility(state, 1) == 0


SHUFFLE = "g1f3 g8f6 f3g1 f6g8".split()  # back to the start position


def test_threefold_repetition_ends_a_claim_game():
    game = Chess()
    state = game.play(SHUFFLE)
    assert not game.is_terminal(state) and state != game.initial_state()  # the start, seen twice
    state = game.play(SHUFFLE[:3], state)
    assert not game.is_terminal(state)  # after f3g1: that position for the second time
    state = game.play(SHUFFLE[3:], state)  # the start position for the third time
    assert game.is_terminal(state) and game.result_text(state) == "draw by threefold repetition"
    assert game.utility(state, 0) == 0 and game.legal_moves(state) == []


def test_fivefold_repetition_ends_an_automatic_game():
    game = Chess(draws="automatic")
    state = game.play(SHUFFLE * 3)
    assert not game.is_terminal(state) and "this position 4 times" in game.render(state)
    state = game.play(SHUFFLE, state)
    assert game.is_terminal(state) and game.result_text(state) == "draw by fivefold repetition"


def test_states_forget_positions_that_cannot_recur():
    game = Chess()
    # nothing before a pawn move can recur: the shuffle before e2e4 is forgotten
    assert game.play(SHUFFLE + ["e2e4"]) == game.play(["e2e4"])
    assert game.key(game.play(SHUFFLE + ["e2e4"])) == game.key(game.play(["e2e4"]))


@pytest.mark.parametrize(
    "draws, clock, text",
    [("claim", 99, "draw by the fifty-move rule"), ("automatic", 149, "draw by the seventy-five-move rule")],
)
def test_move_rules(draws, clock, text):
    fen = f"4k3/8/8/8/8/8/8/R3K3 w - - {clock} 80"
    game = Chess(fen=fen, draws=draws)
    state = game.play(["a1a2"])
    assert game.is_terminal(state) and game.result_text(state) == text
    earlier = Chess(fen=fen.replace(f" {clock} ", f" {clock - 1} "), draws=draws)
    assert not earlier.is_terminal(earlier.play(["a1a2"]))
    if draws == "claim":  # the 75-move rule is further off
        assert not Chess(fen=fen, draws="automatic").is_terminal(state)


def test_checkmate_on_the_hundredth_ply_wins():
    game = Chess(fen=BACK_RANK.replace(" 0 1", " 99 80"))
    state = game.play(["a1a8"])
    assert game.result_text(state) == "checkmate: white wins" and game.utility(state, 0) == 1


def test_moves_round_trip_and_bad_text_is_refused():
    game = Chess(fen="4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    moves = game.legal_moves(game.initial_state())
    assert {"b7b8q", "b7b8n", "e1e2"} <= {game.format_move(m) for m in moves}
    for m in moves:
        assert game.parse_move(game.format_move(m)) == m
    assert game.parse_move(" E2E4 ") == chess.Move.from_uci("e2e4")
    for bad in ["e2", "e2e2", "e9e4", "i2i4", "e7e8k", "0000", "e2-e4", "Nf3", ""]:
        with pytest.raises(IllegalMoveError, match="expected a move in UCI"):
            game.parse_move(bad)
    with pytest.raises(IllegalMoveError, match="illegal move 'e2e5'"):
        Chess().play(["e2e5"])


# Positions where a move's legality hangs on its king: perft positions 3, 4 and 5 of the Chess
# Programming Wiki's "Perft Results" page (pins, checks, en passant, castling, promotions); an en
# passant capture that opens the king's rank; castling kingside through an attacked square; a
# double check.
TRICKY = (
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1",
    "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",
    "4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1",
)


@pytest.mark.parametrize("fen", [None, KIWIPETE, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", BACK_RANK, *TRICKY])
def test_legal_move_tests_one_move_as_legal_moves_would(fen):
    game = Chess() if fen is None else Chess(fen=fen + " 0 1" if fen == KIWIPETE else fen)
    state = game.initial_state()
    legal = game.legal_moves(state)
    every = [chess.Move(a, b, p) for a in range(64) for b in range(64) for p in (None, *chess.PIECE_TYPES)]
    found = [m for m in every if game.legal_move(state, m) is not None]
    assert sorted(found, key=str) == sorted(legal, key=str)
    move = chess.Move(legal[0].from_square, legal[0].to_square, legal[0].promotion)
    assert game.legal_move(state, move) == move and game.legal_move(state, move) is not move  # the game's own value


def test_legal_move_agrees_with_legal_moves_along_random_games():
    # every move of a piece of the side to move, in the positions of random games (seeded)
    import random

    rng, game, checked = random.Random(7), Chess(), 0
    for _ in range(6):
        state = game.initial_state()
        while not game.is_terminal(state) and checked < 240:
            board, legal = state.board(), game.legal_moves(state)
            ours = board.occupied_co[board.turn]
            tried = [chess.Move(a, b, p) for a in chess.scan_forward(ours) for b in range(64)
                     for p in ((None, *chess.PIECE_TYPES[1:5]) if board.pawns >> a & 1 else (None,))]
            found = [m for m in tried if game.legal_move(state, m) is not None]
            assert sorted(found, key=str) == sorted(legal, key=str), board.fen()
            move = rng.choice(legal)
            after = game.apply(state, game.legal_move(state, move))
            assert after == game.apply(state, move) and after.fen() == game.apply(state, move).fen()
            state, checked = after, checked + 1
    assert checked == 240


class Sneaky(chess.Move):
    pass


def test_legal_move_refuses_what_is_no_plain_legal_move():
    game = Chess()
    state = game.initial_state()
    e2e4 = chess.Move.from_uci("e2e4")
    assert game.legal_move(state, e2e4) == e2e4
    odd = [Sneaky(12, 28), chess.Move(-52, 28), chess.Move(12, 28 - 64), chess.Move(12.0, 28), chess.Move(12, 28, 7),
           chess.Move(12, 28, drop=chess.PAWN), chess.Move.null(), "e2e4", (12, 28), None]
    for move in odd:
        assert game.legal_move(state, move) is None, move
    # the referee plays the game's own move, and forfeits the rest
    for move in odd[:3]:
        record = play_game(game, [_Returns(move), _Returns(e2e4)])
        assert record.termination is Termination.ILLEGAL_MOVE and record.plies == 0


class _Returns(Bot):
    """A bot that returns the same object every move."""

    name = "returns"

    def __init__(self, move):
        super().__init__()
        self.move = move

    def choose(self, game, state, budget):
        return self.move


@pytest.mark.parametrize(
    "fen, why",
    [
        ("not a fen", "expected 'w' or 'b' for turn part of fen"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "expected 8 rows in position part of fen"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "not a legal position: no white king, no black king, empty"),
        ("4k3/8/8/8/8/8/8/4K2R w KQ - 0 1", "not a legal position: bad castling rights"),
    ],
)
def test_a_bad_fen_is_one_clear_line(fen, why):
    with pytest.raises(ParameterError) as info:
        REGISTRY.game(f"chess:fen={fen}")
    message = str(info.value)
    assert "\n" not in message and message.startswith("bad value") and "'fen' of game 'chess'" in message
    assert message.endswith(why)


def test_states_pickle_and_keep_their_history():
    game = Chess()
    state = game.play(SHUFFLE[:3])
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state and hash(copy) == hash(state) and game.render(copy) == game.render(state)
    assert game.key(copy) == game.key(state)
    # the copy still knows the positions that can repeat
    assert game.is_terminal(game.play(SHUFFLE[3:] + SHUFFLE, copy))


def test_the_board_inside_a_state_cannot_be_changed_from_outside():
    game = Chess()
    state = game.initial_state()
    board = state.board()
    board.push_uci("e2e4")
    board.clear()
    assert len(game.legal_moves(state)) == 20 and state == game.play([])
    moves = game.legal_moves(state)
    moves.clear()  # a search may reorder or consume its list
    assert len(game.legal_moves(state)) == 20


def test_transposed_move_orders_give_equal_states_and_keys():
    game = Chess()
    a = game.play("e2e4 e7e5 g1f3 b8c6 d2d4".split())
    b = game.play("g1f3 b8c6 d2d4 e7e5 e2e4".split())
    assert a == b and hash(a) == hash(b) and game.key(a) == game.key(b)
    assert game.key(a) == chess.polyglot.zobrist_hash(a.board())
    # the same position with other earlier positions that could repeat: other states and keys
    c = game.play("g1f3 g8f6 b1c3".split())
    d = game.play("b1c3 g8f6 g1f3".split())
    assert c.board().fen() == d.board().fen() and c != d and game.key(c) != game.key(d)
    start_again = game.play(SHUFFLE)
    assert start_again != game.initial_state() and game.key(start_again) != game.key(game.initial_state())
    assert game.key(start_again)[0] == game.key(game.initial_state())


@pytest.mark.parametrize(
    "fen, moves",
    [
        (None, "e2e4 a7a6 e4e5 d7d5 e5d6 c7d6"),  # en passant
        (KIWIPETE, "e1g1 e8c8 d5e6 h3g2 e6f7 g2f1q"),  # castling both ways, captures, promotion
        ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q e8d7 b8b7"),  # promotion with capture
    ],
)
def test_keys_are_python_chess_zobrist_hashes_move_by_move(fen, moves):
    game = Chess(fen=fen) if fen else Chess()
    state = game.initial_state()
    game.key(state)  # known before each move, as in a search with a table: the next is a step on
    for text in moves.split():
        state = game.play([text], state)
        key = game.key(state)
        assert (key if isinstance(key, int) else key[0]) == chess.polyglot.zobrist_hash(state.board())


def test_heuristic_counts_material_inside_the_bounds():
    game = Chess()
    up_a_pawn = game.play("e2e4 d7d5 e4d5".split())
    h = game.heuristic(up_a_pawn, 0)
    assert 0 < h < 1 and game.heuristic(up_a_pawn, 1) == -h
    assert game.heuristic(game.initial_state(), 0) == 0
    queens = Chess(fen="QQQQ1QQQ/QQQQ1QQQ/8/8/8/8/8/k3K3 b - - 0 1")
    assert 0.5 < queens.heuristic(queens.initial_state(), 0) < 1


def test_move_priorities_put_promotions_and_the_best_captures_first():
    # a promotion; the pawn d4 and the queen e2 can take the queen e5, the queen the pawn b5
    game = Chess(fen="4k3/P7/8/1p2q3/3P4/8/4Q3/6K1 w - - 0 1")
    state = game.initial_state()
    moves = game.legal_moves(state)
    ranked = sorted(zip(game.move_priorities(state, moves), map(game.format_move, moves)), reverse=True)
    assert [m for _, m in ranked[:7]] == ["a7a8q", "d4e5", "e2e5", "a7a8r", "a7a8b", "a7a8n", "e2b5"]
    assert all(p == 0 for p, _ in ranked[7:])
    ep = Chess(fen="4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1")
    moves = ep.legal_moves(ep.initial_state())
    best = max(zip(ep.move_priorities(ep.initial_state(), moves), moves), key=lambda x: x[0])
    assert ep.format_move(best[1]) == "d5e6" and best[0] > 0


MATE_FINDERS = ["greedy", "minimax:depth=2", "alphabeta:depth=2", "iterative", "mcts"]


@pytest.mark.parametrize("spec", MATE_FINDERS)
def test_search_bots_find_mate_in_one(spec):
    game = Chess(fen=BACK_RANK)
    bot = REGISTRY.bot(spec)
    bot.new_game(game, 0, 1)
    decision, _ = ask(bot, game, game.initial_state(), Budget(nodes=3000))
    assert game.format_move(decision.move) == "a1a8"


@pytest.mark.parametrize("spec", ["random", "greedy", "minimax:depth=2", "alphabeta", "iterative", "mcts", "solver"])
def test_bots_play_whole_games_under_node_budgets(spec):
    # Rook against knight, 40 plies from the fifty-move rule: short games (a capture
    # restarts the clock, and then little is left on the board).
    game = Chess(fen="4k3/8/8/3n4/8/8/8/R3K3 w - - 60 1")
    bots = [REGISTRY.bot(spec), REGISTRY.bot("random")]
    for seed, order in ((1, bots), (2, bots[::-1])):
        record = play_game(game, order, budgets=[Budget(nodes=150)] * 2, seed=seed)
        assert record.termination is Termination.NORMAL, record.message
        assert sum(record.utilities) == 0 and all(m.nodes <= 150 for m in record.moves)
        assert record.message.startswith(("checkmate: ", "draw by "))


@pytest.mark.processes
def test_listed_without_python_chess_and_building_says_what_to_install():
    # python-chess made unimportable in a fresh interpreter: the rest of the arena works.
    code = (
        "import sys; sys.modules['chess'] = None\n"
        "from arena.front.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    def arena(*args):
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, timeout=60)

    listing = arena("games")
    assert listing.returncode == 0 and "chess" in listing.stdout and "pip install 'botarena[chess]'" in listing.stdout
    built = arena("play", "chess", "--bot", "random", "--bot", "random")
    assert built.returncode == 2
    assert built.stderr == "arena: error: the chess game needs python-chess: pip install 'botarena[chess]'\n"
    other = arena("play", "tictactoe", "--bot", "random", "--bot", "random")
    assert other.returncode == 0, other.stderr
