"""PGN and SGF export of stored games: `arena export`, and `--pgn` on `arena run` and `arena sprt`."""

import math
import re
from pathlib import Path

import pytest

chess = pytest.importorskip("chess", reason="PGN export needs python-chess (pip install 'botarena[chess]')")
import chess.pgn  # noqa: E402

from arena import Termination  # noqa: E402
from arena.front.cli import main  # noqa: E402
from arena.opening import split_text  # noqa: E402
from arena.scores import from_centipawns  # noqa: E402
from results.pgn import TERMINATIONS  # noqa: E402
from results.store import Store  # noqa: E402

FAST = ["--jobs", "1", "--no-progress", "--no-isolation"]
STOCKFISH = "/usr/games/stockfish"
# The PGN standard's Termination values (PGN specification, section 9.8.1)
PGN_TERMINATIONS = {"abandoned", "adjudication", "death", "emergency", "normal", "rules infraction", "time forfeit",
                    "unterminated"}
COMMENT = re.compile(r"^(?:(?P<score>[+-]?\d+\.\d\d|[+-]M\d*))?(?:/(?P<depth>\d+))?(?: ?(?P<time>\d+\.\d{3})s)?"
                     r"(?:, tl=(?P<tl>\d+\.\d{3})s)?(?:, (?P<message>.*))?$")


def _run(tmp_path, name, *args):
    db = tmp_path / f"{name}.db"
    assert main(["run", *args, "--db", str(db), "--name", name, *FAST]) == 0
    return db


def _book(tmp_path, text):
    path = tmp_path / "book.txt"
    path.write_text(text)
    return str(path)


def _read_pgn(path):
    games = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors, game.errors
            games.append(game)
    return games


def _stored(db, name=None):
    """(game row, its opening, its move rows in ply order) of every stored game, by game id."""
    with Store(db, create=False) as store:
        tournament = store.tournament(name)
        rows = [store.game(tournament, game_id) for game_id in sorted(store.finished(tournament))]
    return [(row, split_text(row["opening"]), moves) for row, moves in rows]


def _check_read_back(pgn, db, name=None):
    """Every game of ``pgn`` read back by python-chess: the stored moves, opening first, from the
    stored start; tags as stored; each move's comment as its row of the moves table."""
    games, stored = _read_pgn(pgn), _stored(db, name)
    assert len(games) == len(stored) > 0
    for game, (row, opening, moves) in zip(games, stored):
        headers = game.headers
        assert (headers["White"], headers["Black"], headers["Result"]) == (row["first"], row["second"], row["result"])
        assert headers["Round"] == str(row["game_id"] + 1)
        assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", headers["Date"])
        assert headers["Termination"] in PGN_TERMINATIONS
        assert [m.uci() for m in game.mainline_moves()] == list(opening.moves) + [m["move"] for m in moves]
        nodes = list(game.mainline())
        assert [n.comment.partition(",")[0] for n in nodes[: len(opening.moves)]] == ["book"] * len(opening.moves)
        for node, move in zip(nodes[len(opening.moves):], moves):
            _check_comment(node, move)
    return games


def _check_comment(node, move):
    found = COMMENT.match(" ".join(node.comment.split()))
    assert found, node.comment
    assert float(found["time"]) == pytest.approx(move["seconds"], abs=0.0005)
    if _missing(move["depth"]):
        assert found["depth"] is None
    else:
        assert int(found["depth"]) == move["depth"]
    if _missing(move["score"]):
        assert found["score"] is None
    elif found["score"].lstrip("+-").startswith("M"):
        assert abs(move["score"]) == 1 and found["score"][0] == ("+" if move["score"] > 0 else "-")
        if found["score"][2:]:  # a mate in so many plies: the position after them is checkmate
            board = node.parent.board()
            for text in (move["pv"] or move["move"]).split()[: int(found["score"][2:])]:
                board.push_uci(text)
            assert board.is_checkmate()
    else:  # pawns back through the curve the engines' scores take (arena.scores)
        assert from_centipawns(float(found["score"]) * 100, -1, 1) == pytest.approx(move["score"], abs=0.002)
    if _missing(move["clock"]):
        assert found["tl"] is None
    else:
        assert float(found["tl"]) == pytest.approx(move["clock"], abs=0.0005)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def test_run_pgn_reads_back_with_the_stored_moves_tags_and_comments(tmp_path, capsys):
    pgn = tmp_path / "out" / "games.pgn"
    db = tmp_path / "c.db"
    args = ["run", "--game", "chess", "--bot", "alphabeta:depth=1", "--bot", "greedy", "--bot", "random",
            "--games", "2", "--openings", "4", "--budget", "nodes=300", "--db", str(db), "--name", "c", *FAST]
    assert main([*args, "--pgn", str(pgn)]) == 0
    out = capsys.readouterr().out
    assert f"PGN: 6 games in '{pgn}'" in out
    games = _check_read_back(pgn, db)
    assert {g.headers["Event"] for g in games} == {"c"}
    assert all("FEN" not in g.headers and "SetUp" not in g.headers for g in games)
    scored = [n.comment for g in games for n in g.mainline() if n.comment[:1] in "+-"]
    assert scored  # alphabeta's and greedy's scores are written
    # the export command writes the same file
    again = tmp_path / "again.pgn"
    assert main(["export", str(db), "--pgn", str(again)]) == 0
    assert again.read_text() == pgn.read_text()
    assert "6 games of tournament 'c' written to" in capsys.readouterr().out


def test_games_from_fen_positions_carry_fen_and_setup(tmp_path):
    # black to move, and a book move first: 1... Kf8 from the position, then the bots
    black = "6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1"
    white = "r5k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1"
    path = _book(tmp_path, f"[fen={black}] g8f8\n[fen={white}]\n")
    db = _run(tmp_path, "fen", "--game", "chess", "--bot", "alphabeta:depth=1", "--bot", "greedy",
              "--games", "4", "--openings", path, "--budget", "nodes=300")
    assert main(["export", str(db), "--pgn", str(tmp_path / "fen.pgn")]) == 0
    games = _check_read_back(tmp_path / "fen.pgn", db)
    assert sorted({(g.headers["SetUp"], g.headers["FEN"]) for g in games}) == [("1", black), ("1", white)]
    for game in games:
        assert game.board().fen() == game.headers["FEN"]
    # a tournament of a position (the game's own fen): the same tags, no opening
    db = _run(tmp_path, "spec", "--game", f"chess:fen={white}", "--bot", "alphabeta:depth=1", "--bot", "greedy",
              "--games", "2", "--openings", "0", "--budget", "nodes=300")
    assert main(["export", str(db), "--pgn", str(tmp_path / "spec.pgn")]) == 0
    games = _check_read_back(tmp_path / "spec.pgn", db)
    assert {g.headers["FEN"] for g in games} == {white}


def test_a_mate_in_one_is_written_as_one_ply_to_mate(tmp_path):
    # white mates at once with a1a8 (a back-rank mate); alphabeta sees it at depth 1
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    db = _run(tmp_path, "mate", "--game", f"chess:fen={fen}", "--bot", "alphabeta:depth=1", "--bot", "random",
              "--games", "2", "--openings", "0", "--budget", "nodes=300")
    assert main(["export", str(db), "--pgn", str(tmp_path / "m.pgn")]) == 0
    game = next(g for g in _check_read_back(tmp_path / "m.pgn", db) if g.headers["White"] == "alphabeta:depth=1")
    first = game.next()
    assert first.move.uci() == "a1a8" and first.comment.startswith("+M1/1 ")
    assert first.comment.endswith(", checkmate: white wins")
    assert (game.headers["Result"], game.headers["Termination"]) == ("1-0", "normal")


def test_a_forfeit_is_a_rules_infraction(tmp_path):
    db = _run(tmp_path, "forfeit", "--game", "chess", "--bot", "illegal", "--bot", "random", "--games", "2",
              "--openings", "2", "--budget", "nodes=100", "--plugin", "tests.plugins.misbehaving")
    assert main(["export", str(db), "--pgn", str(tmp_path / "f.pgn")]) == 0
    games = _check_read_back(tmp_path / "f.pgn", db)
    for game, (row, _, _) in zip(games, _stored(db)):
        assert row["termination"] == "illegal_move"
        assert game.headers["Termination"] == "rules infraction"
        assert game.headers["Result"] == ("0-1" if row["first"] == "illegal" else "1-0")
        said = " ".join(" ".join(n.comment for n in game.mainline()).split() + game.comment.split())
        assert said.endswith(" ".join(row["message"].split()))


def test_clocks_and_adjudication_are_written_as_fastchess_writes_them(tmp_path):
    db = _run(tmp_path, "tc", "--game", "chess", "--bot", "alphabeta:depth=1", "--bot", "greedy", "--games", "2",
              "--tc", "5+0.05", "--maxmoves", "6")
    assert main(["export", str(db), "--pgn", str(tmp_path / "tc.pgn")]) == 0
    games = _check_read_back(tmp_path / "tc.pgn", db)  # each move's tl= is its clock column
    for game, (row, _, moves) in zip(games, _stored(db)):
        assert game.headers["TimeControl"] == "5+0.05"
        assert game.headers["Termination"] == TERMINATIONS[row["termination"]]
        assert all(not _missing(m["clock"]) for m in moves)
    assert "adjudication" in {g.headers["Termination"] for g in games}


def test_openspiel_chess_moves_read_back_in_san(tmp_path):
    pytest.importorskip("pyspiel", reason="OpenSpiel's chess needs open-spiel")
    db = _run(tmp_path, "os", "--game", "openspiel.chess", "--bot", "greedy", "--bot", "random", "--games", "2",
              "--budget", "nodes=100")
    assert main(["export", str(db), "--pgn", str(tmp_path / "os.pgn")]) == 0
    games = _read_pgn(tmp_path / "os.pgn")
    for game, (row, opening, moves) in zip(games, _stored(db), strict=True):
        board, played = game.board(), []
        for move in game.mainline_moves():
            played.append(board.san(move))
            board.push(move)
        assert played == list(opening.moves) + [m["move"] for m in moves]  # OpenSpiel writes SAN
        assert game.headers["Result"] == row["result"]


def test_every_termination_has_its_pgn_word():
    # a new way for a game to end needs its word in results.pgn.TERMINATIONS
    assert {t.value for t in Termination} <= set(TERMINATIONS)
    assert set(TERMINATIONS.values()) <= PGN_TERMINATIONS


def test_export_streams_with_a_progress_bar_and_picks_the_tournament(tmp_path, capsys):
    db = _run(tmp_path, "one", "--game", "chess", "--bot", "greedy", "--bot", "random", "--games", "2",
              "--budget", "nodes=100")
    assert main(["run", "--game", "tictactoe", "--bot", "greedy", "--bot", "random", "--games", "2",
                 "--db", str(db), "--name", "two", *FAST]) == 0
    capsys.readouterr()
    assert main(["export", str(db), "--pgn", str(tmp_path / "one.pgn"), "--tournament", "one", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert "2/2" in err and "2 games of tournament 'one'" in out
    _check_read_back(tmp_path / "one.pgn", db, "one")
    # stdout: the games, and the count on stderr
    assert main(["export", str(db), "--pgn", "-", "--tournament", "one"]) == 0
    out, err = capsys.readouterr()
    assert out == (tmp_path / "one.pgn").read_text() and "written to stdout" in err


def test_errors_are_one_line(tmp_path, capsys):
    db = _run(tmp_path, "ttt", "--game", "tictactoe", "--bot", "greedy", "--bot", "random", "--games", "2")
    capsys.readouterr()

    def error(*args):
        assert main(list(args)) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        return err

    err = error("export", str(db), "--pgn", str(tmp_path / "t.pgn"))
    assert "plays tictactoe, for which no standard record format exists" in err
    assert "PGN: chess" in err and "SGF: " in err and "openspiel.go" in err
    assert "no standard record format" in error("export", str(db), "--sgf", str(tmp_path / "t.sgf"))
    assert "no tournament 'nope'" in error("export", str(db), "--pgn", str(tmp_path / "t.pgn"), "--tournament", "nope")
    assert not (tmp_path / "t.pgn").exists() and not (tmp_path / "t.sgf").exists()
    assert "--pgn takes a file name" in error("export", str(db), "--pgn", str(tmp_path))
    # run --pgn: a bad path, or a game without PGN, fails before any game
    fresh = tmp_path / "fresh.db"
    run = ["run", "--game", "chess", "--bot", "greedy", "--bot", "random", "--games", "2", "--db", str(fresh), *FAST]
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert "'file' is a file, not a directory" in error(*run, "--pgn", str(blocked / "x.pgn")).replace(str(tmp_path) + "/", "")
    err = error("run", "--game", "othello", "--bot", "greedy", "--bot", "random", "--games", "2", "--db", str(fresh),
                "--pgn", str(tmp_path / "o.pgn"), *FAST)
    assert "plays othello, whose games are recorded as SGF, not PGN" in err
    assert not fresh.exists()


@pytest.mark.processes
def test_sprt_writes_pgn_at_the_end(tmp_path, capsys):
    pgn = tmp_path / "s.pgn"
    db = tmp_path / "s.db"
    assert main(["sprt", "greedy", "random", "--game", "chess", "--max-games", "2", "--budget", "nodes=100",
                 "--db", str(db), "--pgn", str(pgn), "--jobs", "1", "--no-progress"]) == 0
    assert "PGN: 2 games" in capsys.readouterr().out
    _check_read_back(pgn, db)


@pytest.mark.processes
@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason=f"Stockfish is not installed at {STOCKFISH}")
def test_stockfish_games_read_back(tmp_path):
    engine = f"uci:cmd={STOCKFISH}@nodes=200"
    db = tmp_path / "sf.db"
    assert main(["run", "--game", "chess", "--bot", f"a={engine}", "--bot", f"b={engine}", "--games", "2",
                 "--openings", "4", "--db", str(db), "--jobs", "2", "--no-progress", "--pgn", str(tmp_path / "sf.pgn")]) == 0
    games = _check_read_back(tmp_path / "sf.pgn", db)
    assert len(games) == 2
    depths = [n.comment for g in games for n in list(g.mainline())[4:]]
    assert all(re.match(r"[+-]?(\d+\.\d\d|M\d*)/\d+ ", c) for c in depths), depths[:5]


def _parse_sgf(text):
    """The game trees of an SGF collection without variations: each a list of nodes, a node a
    dict of property -> its values (escapes undone)."""
    trees, node, key, i, after_value = [], None, "", 0, True
    while i < len(text):
        c = text[i]
        if c == "[":
            j, value = i + 1, []
            while text[j] != "]":
                j += text[j] == "\\"
                value.append(text[j])
                j += 1
            node.setdefault(key, []).append("".join(value))
            i, after_value = j + 1, True
            continue
        if c == "(":
            trees.append([])
        elif c == ";":
            node, key = {}, ""
            trees[-1].append(node)
        elif c.isupper():
            key, after_value = (c if after_value else key + c), False
        i += 1
    return trees


def _sgf_moves(tree):
    return [(colour, node[colour][0]) for node in tree[1:] for colour in "BW" if colour in node]


def _spiel_points(game):
    """Each of OpenSpiel's action strings of ``game`` (an arena OpenSpiel game) and its SGF point,
    from the action's number: go numbers cells from a1 at the bottom left (GTP), othello and
    gomoku from the top left, row by row; SGF's points count columns, then rows from the top
    (https://www.red-bean.com/sgf/go.html), hex's are column letter and row number
    (https://www.red-bean.com/sgf/hex.html)."""
    if game is None:
        return None
    spiel, letters = game.spiel, "abcdefghijklmnopqrstuvwxyz"
    params, state = spiel.get_parameters(), spiel.new_initial_state()
    name, out = spiel.get_type().short_name, {}
    for action in range(spiel.num_distinct_actions()):
        text = state.action_to_string(0, action).split()[-1]
        if name == "go":
            size = params["board_size"]
            row, column = divmod(action, size)
            out[text] = "" if action == size * size else letters[column] + letters[size - 1 - row]
        elif name in ("othello", "gomoku"):
            size = params.get("size", 8)
            row, column = divmod(action, size)
            out[text] = "" if action == size * size else letters[column] + letters[row]
        else:
            out[text] = text
    return out


def _openspiel_othello():
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return None
    from arena import get_registry

    return get_registry().game("openspiel.othello")


def _hex_joined(stones, columns, rows, black):
    """Whether ``stones`` ((column, row) from 0) join the top and bottom rows (``black``), or the
    left and right columns: hex's six neighbours (https://www.red-bean.com/sgf/hex.html)."""
    todo = [s for s in stones if (s[1] if black else s[0]) == 0]
    seen = set(todo)
    while todo:
        c, r = todo.pop()
        if (r if black else c) == (rows if black else columns) - 1:
            return True
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
            if (c + dc, r + dr) in stones and (c + dc, r + dr) not in seen:
                seen.add((c + dc, r + dr))
                todo.append((c + dc, r + dr))
    return False


@pytest.mark.parametrize("spec, number", [
    ("openspiel.go:board_size=5", 1), ("openspiel.othello", 2), ("othello", 2),
    ("openspiel.gomoku:size=7,connect=4", 4), ("openspiel.hex:board_size=5", 11),
])
def test_sgf_reads_back_as_the_stored_games(tmp_path, capsys, spec, number):
    if spec.startswith("openspiel."):
        pytest.importorskip("pyspiel", reason="OpenSpiel's games need open-spiel")
    from arena import get_registry

    db = _run(tmp_path, "s", "--game", spec, "--bot", "greedy", "--bot", "random", "--games", "2", "--openings", "2",
              "--budget", "nodes=100")
    assert main(["export", str(db), "--sgf", str(tmp_path / "s.sgf")]) == 0
    trees = _parse_sgf((tmp_path / "s.sgf").read_text())
    game = get_registry().game(spec)
    # the arena's othello writes its moves as OpenSpiel's does
    points = _spiel_points(game if spec.startswith("openspiel.") else _openspiel_othello())
    stored = _stored(db)
    assert len(trees) == len(stored) == 2
    for tree, (row, opening, moves) in zip(trees, stored):
        root = tree[0]
        assert root["FF"] == ["4"] and root["GM"] == [str(number)] and root["EV"] == ["s"]
        assert (root["PB"], root["PW"]) == ([row["first"]], [row["second"]])
        assert root["RE"] == [{"1-0": "B+", "0-1": "W+", "1/2-1/2": "0"}[row["result"]]]
        assert root["RO"] == [str(row["game_id"] + 1)]
        played = _sgf_moves(tree)
        texts = list(opening.moves) + [m["move"] for m in moves]
        assert [c for c, _ in played] == ["BW"[k % 2] for k in range(len(opening.moves))] + [
            "BW"[m["player"]] for m in moves]
        assert [n.get("C") for n in tree[1:len(opening.moves) + 1]] == [["book"]] * len(opening.moves)
        if points is not None:
            assert [p for _, p in played] == [points[t] for t in texts]
        if spec.startswith("openspiel.hex"):  # the winner's stones join its sides, Black's top and bottom
            winner = root["RE"][0][0]
            stones = {("abcde".index(p[0]), int(p[1:]) - 1) for c, p in played if c == winner}
            assert _hex_joined(stones, 5, 5, winner == "B")
    if spec == "othello":  # Black's first moves on the standard board: d3, c4, f5, e6, rows from the top
        assert {_sgf_moves(t)[0][1] for t in trees} <= {"dc", "cd", "fe", "ef"}
    if spec.startswith("openspiel.go:"):
        assert trees[0][0]["SZ"] == ["5"] and trees[0][0]["KM"] == ["7.5"]


def test_sgf_is_refused_for_games_without_it(tmp_path, capsys):
    db = _run(tmp_path, "c4", "--game", "connect4", "--bot", "greedy", "--bot", "random", "--games", "2")
    capsys.readouterr()
    assert main(["export", str(db), "--sgf", str(tmp_path / "c.sgf")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: tournament 'c4' plays connect4, for which no standard record format exists")
    assert err.count("\n") == 1 and not (tmp_path / "c.sgf").exists()
