"""Chess games of a stored tournament as PGN, written as engine-testing tools write them.

Each game has the Seven Tag Roster: Event (the tournament's name), Site ("?"), Date (when the
game finished, UTC), Round (the game id + 1: ``arena show DB N`` shows Round N+1), White and
Black (the bots of seats 0 and 1), Result. Then SetUp "1" and FEN where the game did not start
from the standard position (the tournament's ``fen`` or its opening's), PlyCount,
Termination in the PGN standard's words (``TERMINATIONS``), and under a clock TimeControl
(WhiteTimeControl and BlackTimeControl when the two differ), as fastchess writes them.

Opening moves are moves of the game, with the comment ``{book}`` (as fastchess and cutechess
write them). Every bot move has fastchess's comment: ``{+0.25/12 0.105s}``, the mover's
score in pawns (from the game's utility units through the Lichess curve of
``arena.scores``), "/" and the depth it reported, and the seconds it took, then under a time
control fastchess's ``tl=9.870s``, the time left on the mover's clock; the parts a bot did
not report are left out. A score at the game's bound is a mate: ``+M5`` (in plies, as
fastchess counts them) when the move's principal variation ends in checkmate, else ``+M``
(distance unknown). The last move's comment ends with how the game ended.

Games are read one at a time (``stored_games``), so a tournament of any size exports in
little memory. Needs python-chess, the chess game's extra.
"""

from __future__ import annotations

import math
import sqlite3
from typing import Iterator, TextIO

from arena.errors import ArenaError
from arena.opening import OpeningsError, split_text
from arena.params import parse_spec
from arena.scores import to_centipawns
from results.sqlite import read_error

NEEDS = "PGN export needs python-chess: pip install 'botarena[chess]'"
#: Games written as PGN: the name and how their moves are stored.
PGN_GAMES = {"chess": "uci", "openspiel.chess": "san"}
#: Each termination in the words of the PGN standard (section 9.8.1).
TERMINATIONS = {
    "normal": "normal",
    "illegal_move": "rules infraction",
    "timeout": "time forfeit",
    "clock": "time forfeit",
    "crash": "abandoned",
    "memory": "rules infraction",
    "output": "rules infraction",
    "protocol": "rules infraction",
    "cpu_ceiling": "rules infraction",
    "draw_adjudication": "adjudication",
    "resign_adjudication": "adjudication",
    "max_moves": "adjudication",
}
_WIDTH = 80  # PGN export format: lines of at most 80 characters

_GAME_COLUMNS = ("game_id", "first", "second", "opening", "result", "termination", "loser", "message", "plies",
                 "finished")
_MOVE_COLUMNS = ("game_id", "ply", "player", "move", "seconds", "depth", "score", "pv", "clock")


def stored_games(store, tournament) -> Iterator[tuple[dict, list[dict]]]:
    """Every stored game of ``tournament`` in ``store`` (``results.store.Store``) by game id: its
    row (a dict of game columns) and its move rows in ply order, read one game at a time."""
    tid = tournament.id
    try:
        games = store.db.execute(
            f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE tournament_id=? ORDER BY game_id", (tid,))
        moves = store.db.execute(
            f"SELECT {', '.join(_MOVE_COLUMNS)} FROM moves WHERE tournament_id=? ORDER BY game_id, ply", (tid,))
        pending = moves.fetchone()
        for values in games:
            row = dict(zip(_GAME_COLUMNS, values))
            game_id, mine = row["game_id"], []
            # a game stored between the two queries may have moves and no row here: skipped
            while pending is not None and pending[0] <= game_id:
                if pending[0] == game_id:
                    mine.append(dict(zip(_MOVE_COLUMNS, pending)))
                pending = moves.fetchone()
            yield row, mine
    except sqlite3.Error as exc:
        raise read_error(exc, store.path, store.lock_timeout, "read") from None


def count_games(store, tournament) -> int:
    """How many games of ``tournament`` are stored."""
    try:
        return store.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id=?", (tournament.id,)).fetchone()[0]
    except sqlite3.Error as exc:
        raise read_error(exc, store.path, store.lock_timeout, "read") from None


def progress_bar(total: int, show: bool, what: str):
    """A tqdm bar on stderr counting games, shown only when ``show``."""
    import sys

    from tqdm import tqdm

    return tqdm(total=total, unit="game", file=sys.stderr, disable=not show, dynamic_ncols=True, desc=what)


def date_of(finished: str | None, sep: str = ".") -> str:
    """The date of a stored game's ``finished`` time (``2026-11-27T...``) as ``2026.11.27``;
    PGN's unknown date without one."""
    if not finished or len(finished) < 10:
        return "????.??.??" if sep == "." else ""
    return finished[:10].replace("-", sep)


def check_chess() -> None:
    """ArenaError, in one line, when python-chess is not installed."""
    try:
        import chess.pgn  # noqa: F401
    except ImportError:
        raise ArenaError(NEEDS) from None


def write_pgn(store, tournament, game, out: TextIO, *, progress: bool = False) -> int:
    """Write every stored game of ``tournament`` into ``out`` as PGN; the number written.

    ``game`` is the tournament's game (``arena.Game``): its ``fen`` is the start where an opening
    does not set another, and its bounds scale the scores. ``progress``: a bar on stderr.
    """
    check_chess()
    import chess

    name = parse_spec(tournament.game)[0]
    kind = PGN_GAMES.get(name)
    if kind is None:
        raise ArenaError(f"tournament {tournament.name!r} plays {name!r}, which PGN does not record; "
                         f"PGN records {', '.join(PGN_GAMES)}")
    if kind == "san" and str(game.params.get("chess960", False)).lower() == "true":
        raise ArenaError(f"tournament {tournament.name!r} plays {tournament.game!r}: PGN export does not write "
                         "Chess960 games")
    low, high = game.bounds
    clocks = _time_controls(tournament.config)
    default_fen = game.params.get("fen") or chess.STARTING_FEN
    boards: dict[str, chess.Board] = {}
    written = 0
    with progress_bar(count_games(store, tournament), progress, "PGN") as bar:
        for row, moves in stored_games(store, tournament):
            try:
                opening = split_text(row["opening"] or "")
            except OpeningsError as exc:
                raise ArenaError(f"game {row['game_id']} of tournament {tournament.name!r}: its opening "
                                 f"{row['opening']!r} cannot be read: {exc}") from None
            fen = dict(opening.params).get("fen", default_fen) if kind == "uci" else chess.STARTING_FEN
            start = boards.get(fen)
            if start is None:
                start = boards[fen] = chess.Board(fen)
            out.write(game_text(tournament.name, row, opening.moves, moves, start.copy(stack=False), kind,
                                (low, high), clocks))
            written += 1
            bar.update(1)
    return written


def game_text(event: str, row: dict, book, moves: list[dict], board, kind: str, bounds, clocks=None) -> str:
    """One game as PGN: tags, then the move text (``board`` is its start, played on in place);
    ``clocks``: each bot's time control, by name, where it has one."""
    import chess

    standard = board.fen() == chess.STARTING_FEN
    tags = [("Event", event), ("Site", "?"), ("Date", date_of(row["finished"])), ("Round", str(row["game_id"] + 1)),
            ("White", row["first"]), ("Black", row["second"]), ("Result", row["result"])]
    if not standard:
        tags += [("SetUp", "1"), ("FEN", board.fen())]
    termination = TERMINATIONS.get(row["termination"]) or ("normal" if row["loser"] is None else "rules infraction")
    tags += [("PlyCount", str(row["plies"])), ("Termination", termination)]
    white, black = (clocks or {}).get(row["first"]), (clocks or {}).get(row["second"])
    if white is not None and white == black:
        tags.append(("TimeControl", white))
    else:
        tags += [(f"{side}TimeControl", tc) for side, tc in (("White", white), ("Black", black)) if tc is not None]
    head = "".join(f'[{key} "{_tag_value(value)}"]\n' for key, value in tags)
    words: list[str] = []
    after_comment = True  # the first move shows its number, as after a comment
    last = len(book) + len(moves) - 1
    ply = 0
    for text, record in [(t, None) for t in book] + [(m["move"], m) for m in moves]:
        move = _parse(board, text, kind, row, ply)
        if board.turn:
            words.append(f"{board.fullmove_number}.")
        elif after_comment:
            words.append(f"{board.fullmove_number}...")
        comment = "book" if record is None else _comment(board, record, bounds, kind)
        words.append(board.san_and_push(move))
        if ply == last and row["message"]:
            comment = f"{comment}, {row['message']}" if comment else row["message"]
        if comment:
            words += _comment_words(comment)
        after_comment = bool(comment)
        ply += 1
    if last < 0 and row["message"]:  # no move at all: how it ended, before the result
        words += _comment_words(row["message"])
    words.append(row["result"] if row["result"] in ("1-0", "0-1", "1/2-1/2") else "*")
    return head + "\n" + _wrapped(words) + "\n\n"


def _time_controls(config: dict) -> dict[str, str]:
    """The time control of each bot of a tournament's stored ``config`` that plays under one, by name."""
    from arena.budget import Budget

    out = {}
    for bot in config.get("bots", ()):
        try:
            tc = Budget.parse(bot.get("budget") or config.get("budget") or "none").tc
        except (ArenaError, ValueError):
            continue
        if tc is not None:
            out[bot.get("name")] = str(tc)
    return out


def _parse(board, text: str, kind: str, row: dict, ply: int):
    """The stored move ``text`` as a legal chess.Move of ``board``; ArenaError if it is none."""
    import chess

    try:
        move = chess.Move.from_uci(text) if kind == "uci" else board.parse_san(text)
    except ValueError:
        move = None
    if move is None or not board.is_legal(move):
        raise ArenaError(f"game {row['game_id']}: the stored move {text!r} at ply {ply} is not a legal move "
                         f"in {board.fen()!r}; the game cannot be written as PGN")
    return move


def _comment(board, record: dict, bounds, kind: str) -> str:
    """fastchess's comment of a move: score/depth and time (``+0.25/12 0.105s``), before it is played."""
    score, depth, seconds = record["score"], record["depth"], record["seconds"]
    text = ""
    if score is not None and not math.isnan(score):
        cp = to_centipawns(score, *bounds)
        if math.isinf(cp):
            plies = _mate_plies(board, record["pv"] or record["move"], kind, cp > 0)
            text = ("+M" if cp > 0 else "-M") + ("" if plies is None else str(plies))
        else:
            pawns = round(cp) / 100
            text = f"{'+' if pawns > 0 else '-' if pawns < 0 else ''}{abs(pawns):.2f}"
    if depth is not None:
        text += f"/{int(depth)}"
    if seconds is not None and not math.isnan(seconds):
        text = f"{text} {seconds:.3f}s" if text else f"{seconds:.3f}s"
    clock = record["clock"]
    if clock is not None and not math.isnan(clock):
        text = f"{text}, tl={clock:.3f}s" if text else f"tl={clock:.3f}s"
    return text


def _mate_plies(board, pv: str, kind: str, winning: bool) -> int | None:
    """The plies to mate along ``pv`` (the move itself where a bot gave no line) when it ends in
    checkmate of the side ``winning`` says (the mover's opponent if true); None when it does not
    show one."""
    import chess

    line = pv.split()
    probe = board.copy(stack=False)
    try:
        for text in line:
            move = chess.Move.from_uci(text) if kind == "uci" else probe.parse_san(text)
            if not probe.is_legal(move):
                return None
            probe.push(move)
    except ValueError:
        return None
    mover_mated = probe.turn == board.turn
    if probe.is_checkmate() and mover_mated != winning:
        return len(line)
    return None


def _tag_value(value) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _comment_words(text: str) -> list[str]:
    """``text`` as a PGN comment (no brace inside): one word, kept on one line, unless it is too
    long for one; then in words, so that lines break between them."""
    text = " ".join(text.replace("}", ")").replace("{", "(").split())
    if len(text) + 2 <= _WIDTH:
        return ["{" + text + "}"]
    words = text.split()
    words[0] = "{" + words[0]
    words[-1] += "}"
    return words


def _wrapped(words: list[str]) -> str:
    """``words`` joined by spaces into lines of at most 80 characters (a longer word alone)."""
    lines, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > _WIDTH:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)
