"""``arena export``: a stored tournament's games in their game's standard record format, PGN
for chess (``results.pgn``) and SGF for go, othello, gomoku and hex (``results.sgf``); and
the ``--pgn`` file of ``arena run`` and ``arena sprt``, written when the run ends."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arena.front.settings import UsageError
from arena.params import parse_spec
from arena.plugins import Registry
from results.pgn import PGN_GAMES
from results.sgf import SGF_GAMES

#: Each record format and the games it records.
FORMATS = {"pgn": tuple(PGN_GAMES), "sgf": tuple(SGF_GAMES)}


def cmd_export(registry: Registry, args) -> int:
    """Write the games of a stored tournament (default: the latest) as PGN or SGF."""
    from results.store import Store

    fmt, given = ("pgn", args.pgn) if args.pgn else ("sgf", args.sgf)
    path = None if given == "-" else check_target(given, fmt)
    with Store(args.db, create=False) as store:
        tournament = store.tournament(args.tournament)
        check_game(tournament.game, fmt, f"tournament {tournament.name!r}")
        game = registry.game(tournament.game)
        if path is None:
            count = _write(store, tournament, game, fmt, sys.stdout, args.progress)
        else:
            count = _write_file(store, tournament, game, fmt, path, args.progress)
    where = "stdout" if path is None else repr(str(path))
    print(f"{count} games of tournament {tournament.name!r} written to {where} as {fmt.upper()}",
          file=sys.stderr if path is None else sys.stdout)
    return 0


def export_file(db: str, name: str, path: Path, fmt: str, registry: Registry, progress: bool = False) -> int:
    """Write the games of the tournament ``name`` in the results database ``db`` into ``path`` as
    ``fmt`` ("pgn" or "sgf"); the number written. What ``--pgn`` does at the end of a run."""
    from results.store import Store

    with Store(db, create=False) as store:
        tournament = store.tournament(name)
        check_game(tournament.game, fmt, f"tournament {tournament.name!r}")
        return _write_file(store, tournament, registry.game(tournament.game), fmt, path, progress)


def record_format(game: str) -> str | None:
    """The standard record format of the game ``game`` (a spec): "pgn", "sgf", or None."""
    name = parse_spec(game)[0]
    return next((fmt for fmt, names in FORMATS.items() if name in names), None)


def check_game(game: str, fmt: str, what: str = "the run") -> None:
    """UsageError, in one line, unless ``fmt`` is the standard record format of ``game`` (a spec)."""
    has = record_format(game)
    if has == fmt:
        return
    name = parse_spec(game)[0]
    if has is not None:
        raise UsageError(f"{what} plays {name}, whose games are recorded as {has.upper()}, not {fmt.upper()}: "
                         f"give --{has} FILE")
    listed = "; ".join(f"{f.upper()}: {', '.join(names)}" for f, names in FORMATS.items())
    raise UsageError(f"{what} plays {name}, for which no standard record format exists; games that have one: {listed}")


def check_target(path: str, fmt: str, game: str | None = None) -> Path:
    """``--pgn`` or ``--sgf`` as a file to write, checked before any work: UsageError if it is a
    directory, under a file or in a directory that cannot be written, or if ``game`` (a spec)
    is not recorded in ``fmt``. PGN needs python-chess."""
    flag, target = f"--{fmt}", Path(path)
    blocker = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise UsageError(f"cannot write {flag} {path!r}: {str(blocker)!r} is a file, not a directory")
    if target.is_dir() or path.endswith(("/", os.sep)):
        raise UsageError(f"{flag} takes a file name (e.g. games.{fmt}), not the directory {path!r}")
    existing = next((p for p in (target, *target.parents) if p.exists()), Path("."))
    if not os.access(existing if existing.is_dir() else existing.parent, os.W_OK):  # written as FILE.part, renamed
        raise UsageError(f"cannot write {flag} {path!r}: {str(existing)!r} is not writable")
    if game is not None:
        check_game(game, fmt)
    if fmt == "pgn":
        from results.pgn import check_chess

        check_chess()
    return target


def _write_file(store, tournament, game, fmt: str, path: Path, progress: bool) -> int:
    """``_write`` into ``path`` (its directory made), through a ``.part`` file renamed at the end,
    so a file of that name is always whole."""
    from arena.errors import ArenaError
    from results.render import directory

    directory(path.parent, f"the {fmt.upper()} file {path.name!r}")
    part = path.with_name(path.name + ".part")
    try:
        with open(part, "w", encoding="utf-8", newline="\n") as out:
            count = _write(store, tournament, game, fmt, out, progress)
        os.replace(part, path)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise ArenaError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return count


def _write(store, tournament, game, fmt: str, out, progress: bool) -> int:
    if fmt == "pgn":
        from results.pgn import write_pgn

        return write_pgn(store, tournament, game, out, progress=progress)
    from results.sgf import write_sgf

    return write_sgf(store, tournament, game, out, progress=progress)
