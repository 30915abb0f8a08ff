"""Chess opening books in EPD and PGN: read, played from their positions with both colours, errors by file and line."""

import sys

import pytest

import results
from arena import get_registry
from arena.front.cli import main
from arena.front.openings import OpeningBook
from arena.opening import OpeningsError, split_text

chess = pytest.importorskip("chess", reason="the chess game and its books need python-chess")

RUN = ["run", "--game", "chess", "--bot", "a=random", "--bot", "b=random", "--budget", "nodes=10",
       "--jobs", "1", "--no-progress", "--no-isolation"]
# endgames, so that random bots finish quickly: king and pawn, king and queen against a king
KP, KQ = "4k3/8/8/8/8/8/4P3/4K3 w - -", "3k4/8/8/8/8/8/8/3QK3 b - -"
EPD = f'{KP} hmvc 3; fmvn 20; id "kp; a pawn"; c0 "x";\n\n{KQ} 0 1\n'
PGN = """[Event "one"]
[Result "*"]

1. e4 e5 2. Nf3 {a comment
over two lines} Nc6 (2... d6 3. d4) 3. Bb5 *

[Event "two"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 40"]

1. Kd2 Kd7 2. Ke3 *
"""


def book(tmp_path, text, name):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def replay_games(db):
    """Each stored game's opening column and whether python-chess accepts its moves from the opening's position."""
    tables = results.load(db)
    out = []
    for row in tables.games.sort_values("game_id").itertuples():
        opening = split_text(row.opening)
        board = chess.Board(dict(opening.params).get("fen", chess.STARTING_FEN))
        for move in opening.moves:
            board.push_uci(move)
        moves = tables.moves[tables.moves.game_id == row.game_id].sort_values("ply").move
        for move in moves:
            board.push_uci(move)  # ValueError if not legal where it is played
        out.append((row.opening, row.first, len(moves)))
    return out


def test_epd_positions_are_played_with_both_colours(tmp_path, capsys):
    path = book(tmp_path, EPD, "book.EPD")  # the extension in any case
    db = tmp_path / "e.db"
    assert main([*RUN, "--openings", path, "--games", "4", "--db", str(db)]) == 0, capsys.readouterr().err
    games = replay_games(db)
    # hmvc and fmvn from the operations; a line without ';' is a FEN with its clocks, as fastchess reads
    # it (isFen in fastchess's app/src/matchmaking/match/match.cpp)
    kp, kq = f"[fen={KP} 3 20]", f"[fen={KQ} 0 1]"
    assert [g[0] for g in games] == [kp, kp, kq, kq]
    assert {g[1] for g in games[:2]} == {g[1] for g in games[2:]} == {"a", "b"}
    assert all(g[2] > 0 for g in games)
    capsys.readouterr()
    assert main(["show", str(db), "3"]) == 0
    assert f"opening: {kq}" in capsys.readouterr().out


def test_pgn_games_are_cut_at_plies_and_start_from_their_fen_tag(tmp_path, capsys):
    path = book(tmp_path, PGN, "book.pgn")
    db = tmp_path / "p.db"
    args = [*RUN, "--openings", path, "--plies", "3", "--games", "4", "--db", str(db)]
    assert main(args) == 0, capsys.readouterr().err
    games = replay_games(db)
    # the main line only (the variation and the comment skipped), in UCI; game two has fewer plies than
    # asked and gives what it has, as fastchess's PGNVisitor does (app/src/game/book/pgn_reader.cpp)
    one, two = "e2e4 e7e5 g1f3", f"[fen={KP} 0 40] e1d2 e8d7 d2e3"
    assert [g[0] for g in games] == [one, one, two, two]
    assert {g[1] for g in games[:2]} == {g[1] for g in games[2:]} == {"a", "b"}


def test_plies_read_and_identity(tmp_path):
    path = book(tmp_path, PGN, "book.pgn")
    every, three, none = (OpeningBook.read(path, plies=p) for p in (None, 3, 0))
    # no plies: all of each game's moves, as fastchess with plies unset (-1 in app/src/types/opening.hpp)
    assert [len(o.moves) for o in every.openings] == [5, 3]
    assert [len(o.moves) for o in three.openings] == [3, 3]
    assert [o.moves for o in none.openings] == [(), ()] and [o.line for o in none.openings] == [1, 7]
    # the format and plies are part of the stored identity: a changed plies is another tournament
    assert three.identity() == {"file": path, "sha256": three.digest, "shuffle": False, "lines": 2, "format": "pgn",
                                "plies": 3}
    assert every.identity() != three.identity() and every.digest == three.digest
    assert OpeningBook.read(book(tmp_path, EPD, "b.epd")).identity()["format"] == "epd"
    assert "format" not in OpeningBook.read(book(tmp_path, "e2e4\n", "b.txt")).identity()


def test_a_changed_plies_is_another_tournament(tmp_path, capsys):
    path = book(tmp_path, PGN, "book.pgn")
    args = [*RUN, "--openings", path, "--games", "2", "--name", "t", "--db", str(tmp_path / "t.db")]
    assert main([*args, "--plies", "2"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main([*args, "--plies", "3"]) == 2
    err = capsys.readouterr().err
    assert "--openings" in err and err.count("\n") == 1, err


def test_shuffled_order_is_reproducible_by_seed(tmp_path):
    board = chess.Board()
    lines = []
    for move in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5"):
        board.push_uci(move)
        lines.append(board.epd())
    path = book(tmp_path, "\n".join(lines) + "\n", "b.epd")
    read = [OpeningBook.read(path, shuffle=True).rounds(12, seed) for seed in (1, 1, 2)]
    one, again, other = ([dict(o.params)["fen"] for o in r] for r in read)
    in_file = [dict(o.params)["fen"] for o in OpeningBook.read(path).rounds(12, 1)]
    assert in_file == [line + " 0 1" for line in lines]
    assert one == again and one != other and one != in_file and sorted(one) == sorted(in_file)


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("b.epd", f"{KP}\n{KQ}\n4k3/8/8 w\n", "line 3: expected the four FEN fields"),
        ("b.epd", f"{KP}\n\n{KQ} hmvc x;\n", "line 3: operation hmvc needs a whole number of 0 or more, got 'x'"),
        ("b.epd", f"{KP}\n{KQ} id \"open;\n", "line 2: cannot read the operations"),
        ("b.epd", f"{KP}\n4k3/8/8/8/8/8/4P3/4K3/8 w - -\n", 
         "line 2: bad value '4k3/8/8/8/8/8/4P3/4K3/8 w - - 0 1' for parameter 'fen' of game 'chess'; expected 8 rows"),
        ("b.epd", f"{KP}\n4k3/8/8/8/8/8/8/4K3 w - -\n",
         "line 2: the opening '[fen=4k3/8/8/8/8/8/8/4K3 w - - 0 1]' ends the game (draw by insufficient material)"),
        ("b.pgn", PGN.replace("3. Bb5", "3. Bb6"), "line 5: illegal san: 'Bb6'"),  # the move's line
        ("b.pgn", PGN.replace("Kd7", "Qd7"),
         "line 11: illegal san: 'Qd7' in 4k3/8/8/8/8/8/3KP3/8 b - - 1 40 (in the game from line 7)"),
        ("b.pgn", PGN.replace("8/8/8/4P3", "8/8/4P3"), "line 9: expected 8 rows in position part of fen"),
        ("b.pgn", PGN + "\n[Variant \"Atomic\"]\n\n1. e4 *\n", "line 13: a game of atomic: only standard chess"),
        ("b.pgn", "1. f3 e5 2. g4 Qh4# 0-1\n",
         "line 1: the opening 'f2f3 e7e5 g2g4 d8h4' ends the game (checkmate: black wins)"),
        ("b.pgn", "", "holds no game"),
    ],
)
def test_malformed_lines_are_named_by_file_and_line(tmp_path, capsys, name, text, message):
    path = book(tmp_path, text, name)
    assert main([*RUN, "--openings", path, "--db", str(tmp_path / "e.db")]) == 2
    err = capsys.readouterr().err
    assert f"openings file '{path}'" in err and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "e.db").exists()


def test_a_game_that_ends_inside_the_cut_names_its_ply(tmp_path):
    # Qh4# at ply 4 ends the game: a move after it is not legal in chess, and python-chess says so
    path = book(tmp_path, "1. f3 e5 2. g4 Qh4# 3. a3 *\n", "b.pgn")
    with pytest.raises(OpeningsError, match=r"line 1: illegal san: 'a3'"):
        OpeningBook.read(path)
    # a threefold repetition is a legal line in python-chess but ends a game of chess (claimed at once)
    path = book(tmp_path, "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 *\n", "r.pgn")
    found = OpeningBook.read(path)
    with pytest.raises(OpeningsError, match=r"line 1: the game ends at ply 8 of the opening \(draw by threefold "
                                            r"repetition\), before its move 'e2e4'; a smaller --plies"):
        found.check(get_registry(), "chess")
    OpeningBook.read(path, plies=7).check(get_registry(), "chess")
    OpeningBook.read(path, plies=9).check(get_registry(), "chess:draws=automatic")


@pytest.mark.processes
def test_books_are_for_chess_and_plies_for_pgn(tmp_path, capsys):
    epd = book(tmp_path, EPD, "b.epd")
    connect4 = ["run", "--game", "connect4", "--bot", "random", "--bot", "greedy", "--no-progress",
                "--db", str(tmp_path / "c.db")]
    assert main([*connect4, "--openings", epd]) == 2
    assert f"openings file '{epd}' is a chess book (EPD); the game is 'connect4'" in capsys.readouterr().err
    assert main([*RUN, "--game", f"chess:fen={KQ} 0 1", "--openings", epd, "--db", str(tmp_path / "c.db")]) == 2
    assert "drop fen= from the game" in capsys.readouterr().err
    for openings in ("4", epd, book(tmp_path, "e2e4\n", "b.txt")):
        assert main([*RUN, "--openings", openings, "--plies", "2", "--db", str(tmp_path / "c.db")]) == 2
        err = capsys.readouterr().err
        assert "plies is for a PGN openings file" in err and err.count("\n") == 1, err
    pgn = book(tmp_path, PGN, "b.pgn")
    assert main([*RUN, "--openings", pgn, "--plies", "-1", "--db", str(tmp_path / "c.db")]) == 2
    assert "plies must be a whole number, 0 or more, got -1" in capsys.readouterr().err
    assert not (tmp_path / "c.db").exists()


def test_pgn_without_python_chess_is_one_line(tmp_path, monkeypatch):
    path = book(tmp_path, PGN, "b.pgn")
    monkeypatch.setitem(sys.modules, "chess", None)  # import chess raises ImportError
    with pytest.raises(OpeningsError, match=r"needs python-chess: pip install 'botarena\[chess\]'"):
        OpeningBook.read(path)


def test_a_ladder_reads_its_pgn_book_again_with_its_plies(tmp_path, capsys):
    path = book(tmp_path, PGN, "book.pgn")
    args = ["ladder", str(tmp_path / "l.db"), "--game", "chess", "--openings", path, "--plies", "2", "--games", "2",
            "--budget", "nodes=10", "--no-progress", "--no-isolation", "--jobs", "1"]
    assert main([*args, "--add", "a=random", "b=random"]) == 0, capsys.readouterr().err
    assert set(results.load(tmp_path / "l.db").games.opening) == {"e2e4 e7e5"}
