"""Openings files: lines played in order or shuffled, twice each with colours swapped, and errors by line."""

import pytest

import results
from arena.front.cli import main
from arena.front.openings import OpeningBook
from arena.opening import OpeningsError, split_text, stored_text

RUN = ["run", "--game", "connect4", "--bot", "greedy", "--bot", "random", "--budget", "nodes=200",
       "--jobs", "1", "--no-progress"]
BOOK = "# centre openings\n4 4\n\n  3 4 5   \n# one more\n1\n"


def book(tmp_path, text=BOOK, name="book.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.processes
def test_lines_are_played_in_order_twice_each_with_colours_swapped(tmp_path, capsys):
    db = tmp_path / "b.db"
    assert main([*RUN, "--openings", book(tmp_path), "--games", "8", "--db", str(db)]) == 0, capsys.readouterr().err
    games = results.load(db).games
    # 4 rounds over 3 lines: the file's order, then from its start again
    by_round = [games[games.game_id.isin((2 * r, 2 * r + 1))] for r in range(4)]
    assert [g.opening.iloc[0] for g in by_round] == ["4 4", "3 4 5", "1", "4 4"]
    for g in by_round:
        assert g.opening.nunique() == 1 and set(g["first"]) == {"greedy", "random"}
    assert (games["plies"] > games["opening"].str.split().str.len()).all()
    out = "".join(capsys.readouterr().out.split())  # the heading wraps long paths
    assert "".join(f"openings from {book(tmp_path)}".split()) in out


def test_shuffled_by_the_seed(tmp_path):
    lines = [f"{a} {b}" for a in range(1, 8) for b in range(1, 8)]
    path = book(tmp_path, "\n".join(lines))
    one, again, other = (OpeningBook.read(path, shuffle=True).rounds(49, seed) for seed in (1, 1, 2))
    texts = [o.text() for o in one]
    assert texts == [o.text() for o in again] and texts != [o.text() for o in other]
    assert sorted(texts) == sorted(lines) and texts != lines
    assert [o.text() for o in OpeningBook.read(path).rounds(3, 1)] == lines[:3]


@pytest.mark.parametrize(
    "text, message",
    [
        ("4 4\n\n4 9\n", "openings file '{path}', line 3: cannot read '9' as a move in connect4; expected a column number 1-7"),
        ("# full column\n1 1 1 1 1 1 1\n", "openings file '{path}', line 2: illegal move '1' in connect4 at ply 6"),
        ("4\n1 2 1 2 1 2 1\n", "openings file '{path}', line 2: the opening '1 2 1 2 1 2 1' ends the game (X wins)"),
        ("[rows=5 4\n", "openings file '{path}', line 1: no ']' closes the '['"),
        ("[depth=3] 4\n", "openings file '{path}', line 1: unknown parameter 'depth'"),
        ("# nothing\n\n", "openings file '{path}' holds no opening"),
    ],
)
def test_bad_lines_are_one_error_naming_the_file_and_line(tmp_path, capsys, text, message):
    path = book(tmp_path, text)
    assert main([*RUN, "--openings", path, "--db", str(tmp_path / "e.db")]) == 2
    err = capsys.readouterr().err
    assert message.format(path=path) in err and err.count("\n") == 1, err
    assert not (tmp_path / "e.db").exists()


def test_a_missing_file_and_shuffle_without_a_file(tmp_path, capsys):
    assert main([*RUN, "--openings", str(tmp_path / "none.txt"), "--db", str(tmp_path / "e.db")]) == 2
    assert "openings file" in capsys.readouterr().err
    assert main([*RUN, "--openings", "3", "--shuffle", "--db", str(tmp_path / "e.db")]) == 2
    assert "shuffle is for an openings file" in capsys.readouterr().err


@pytest.mark.processes
def test_position_parameters_per_line(tmp_path, capsys):
    opening = split_text("[rows=5,columns=6] 3 3")
    assert opening.game_spec("connect4:connect=4") == "connect4:connect=4,rows=5,columns=6"
    assert opening.text() == "[rows=5,columns=6] 3 3"
    assert stored_text("connect4:rows=5", "connect4:rows=5,columns=6", "3 3") == "[columns=6] 3 3"
    db = tmp_path / "p.db"
    path = book(tmp_path, "[columns=5] 5 5\n4\n")
    assert main([*RUN, "--openings", path, "--games", "4", "--db", str(db)]) == 0, capsys.readouterr().err
    games = results.load(db).games
    assert list(games.opening) == ["[columns=5] 5 5", "[columns=5] 5 5", "4", "4"]
    capsys.readouterr()
    assert main(["show", str(db), "0"]) == 0  # replayed on the 5-column board
    out = capsys.readouterr().out
    assert "opening: [columns=5] 5 5" in out
    assert main(["sprt", "greedy", "random", "--game", "connect4", "--openings", path, "--max-games", "2",
                 "--db", str(tmp_path / "s.db"), "--no-progress", "--jobs", "1"]) == 0
    assert set(results.load(tmp_path / "s.db").games.opening) == {"[columns=5] 5 5"}


@pytest.mark.processes
def test_chess_positions_by_fen(tmp_path, capsys):
    pytest.importorskip("chess", reason="the chess game needs python-chess")
    # two kings and a white rook: black to move after 1. Ra1-a7
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    path = book(tmp_path, f"[fen={fen}] a1a7\n[fen={fen}] a1a7 e8e7\n")
    db = tmp_path / "c.db"
    args = ["run", "--game", "chess", "--bot", "greedy", "--bot", "random", "--budget", "nodes=50",
            "--games", "2", "--openings", path, "--jobs", "1", "--no-progress", "--db", str(db)]
    assert main(args) == 2
    assert f"openings file '{path}', line 2: illegal move 'e8e7' in chess at ply 1; legal: e8f8, e8d8" in capsys.readouterr().err
    path = book(tmp_path, f"[fen={fen}] a1a7\n")
    assert main(args) == 0, capsys.readouterr().err
    games = results.load(db).games
    assert set(games.opening) == {f"[fen={fen}] a1a7"}
    capsys.readouterr()
    assert main(["show", str(db), "1"]) == 0
    assert f"opening: [fen={fen}] a1a7" in capsys.readouterr().out
    # the HTML report replays it from that position, to its last ply
    from arena import get_registry
    from results.replay import replay

    tables = results.load(db)
    row = tables.games.iloc[0].to_dict()
    moves = tables.moves[tables.moves.game_id == row["game_id"]].sort_values("ply").to_dict("records")
    data = replay(get_registry().game("chess"), row, moves)
    assert data["error"] is None and data["opening"] == 1
    assert len(data["boards"]) == 1 + 1 + len(moves)  # the start, the opening move, every bot's move


def test_books_checked_before_they_are_read_by_a_game(tmp_path):
    with pytest.raises(OpeningsError, match="line 1"):
        OpeningBook.read(book(tmp_path, "[a=1"))
