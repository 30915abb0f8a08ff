"""``arena report`` and ``arena list``: a stored tournament's report and its games
(``arena show``, one game replayed, is ``arena.front.show``)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from arena.formats import stored_format
from arena.front.settings import UsageError
from arena.errors import ArenaError
from arena.plugins import Registry, get_registry
from arena.records import Termination, points

REPORT_FORMATS = ("text", "csv", "markdown", "json", "html")
SUFFIXES = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".csv": "csv", ".json": "json",
            ".html": "html", ".htm": "html"}
"""The format a report file's extension implies."""
IMAGE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
#: What ``finish`` imports for the report (pandas with them): a run loads them while its workers play.
REPORT_MODULES = ("results.tables", "results.render", "results.report")
RESULTS = ("1-0", "0-1", "1/2-1/2", "draw", "win", "loss")
TERMINATIONS = tuple(t.value for t in Termination)


def report_text(db: str, tournament: str | None, pairs: bool = False, view=None) -> str:
    import results

    tables = results.load(db, tournament)
    return render_report(tables, _config(db, tables.about.name), "text", pairs, view)


def _config(db: str, name: str) -> dict:
    from results.store import Store

    with Store(db, create=False) as store:
        return store.tournament(name).config


def report_tables(tables, config: dict, fmt: str, pairs: bool = False, view=None) -> dict:
    """The tables of a stored tournament's report: the format's (``Format.report``), and with
    ``pairs`` the pentanomial counts of each pairing; ``view`` (``results.ratings.View``)
    anchors the ratings and sizes the likelihood-of-superiority table."""
    return _report(tables, config, fmt, pairs, view)[1]


def _report(tables, config: dict, fmt: str, pairs: bool, view=None) -> tuple[list[str], dict]:
    from results.sprt_report import pair_table

    lead, out = stored_format(config).report(tables, config, fmt, view)
    if pairs:
        out["pairs"] = pair_table(tables.games)
    return lead, out


def render_report(tables, config: dict, fmt: str, pairs: bool = False, view=None) -> str:
    """The report of a stored tournament in ``fmt``; in text, the lines the format leads with first."""
    from results.render import render

    lead, out = _report(tables, config, fmt, pairs, view)
    about = tables.about
    if stored_format(config).open_ended:  # a format that stops when it decides: its games are not "partial"
        about = replace(about, scheduled=None)
    if not lead:
        return render(out, fmt, about)
    return "\n".join(about.lines()) + "\n\n" + "\n".join(lead) + "\n\n" + render(out, "text")


def html_page(db: str, tournament: str | None = None, registry: Registry | None = None, view=None) -> str:
    """The one-file HTML report of a stored tournament (default: the latest), as text.

    The page replays every game with the tournament's game from ``registry`` (default: the
    installed plugins); if that game is not installed, the games are listed without replays.
    """
    import results
    from results.html_report import check_jinja

    check_jinja()  # before the work, and in one line
    tables = results.load(db, tournament)
    return _stored_page(db, tables, _config(db, tables.about.name), registry, view)


def _stored_page(db: str, tables, config: dict, registry: Registry | None, view=None) -> str:
    """``_page`` of a stored tournament's tables; UsageError when no game is finished yet."""
    if tables.games.empty:
        raise UsageError(f"tournament in {db!r} has no finished game yet")
    return _page(tables, config, registry, view, db)


def _page(tables, config: dict, registry: Registry | None, view=None, database: str | None = None) -> str:
    """``html_page`` of tables already loaded, with the tournament's stored config; ``database``:
    the path the page names in its ``arena show`` command."""
    from results.html_report import html
    from results.ratings import View

    registry = registry or get_registry()
    try:
        game = registry.game(tables.about.game)
    except ArenaError:  # a plugin that is not installed here: list the games all the same
        game = None
    return html(tables, game, config, view or View(), database=database)


def write_html_report(db: str, path: str | Path, tournament: str | None = None, registry: Registry | None = None,
                      view=None) -> Path:
    """Write ``html_page`` into the file ``path`` (its directory created); returns the path.

    What ``arena report --html`` and ``arena run --html`` do, for any command to call.
    """
    from results.html_report import save

    return save(path, html_page(db, tournament, registry, view))


def check_html_target(path: str) -> Path:
    """``--html`` as a file to write; UsageError if it is a directory or under a file. Needs Jinja2."""
    from results.html_report import check_jinja

    target = Path(path)
    blocker = _blocked(target)
    if blocker is not None:
        raise UsageError(f"cannot write the HTML report to {path!r}: {str(blocker)!r} is a file, not a directory")
    if target.is_dir() or path.endswith(("/", os.sep)):
        raise UsageError(f"--html takes a file name (e.g. report.html), not the directory {path!r}")
    check_jinja()
    return target


def check_pgn_target(path: str, game: str | None = None) -> Path:
    """``--pgn`` as a file to write; UsageError if it cannot be one, or if ``game`` (a spec) is not
    chess. Needs python-chess. Checked before any game is played."""
    from arena.front.export import check_target

    return check_target(path, "pgn", game)


def _blocked(path: Path) -> Path | None:
    """The first existing non-directory above ``path``, if one is in the way."""
    for place in path.parents:
        if place.exists():
            return None if place.is_dir() else place
    return None


def report_target(out: str | None, fmt: str | None) -> tuple[str, Path | None, bool]:
    """(format, path, is a single file) for ``--out`` and ``--format``; UsageError if they cannot be.

    ``--out`` is a file if it is one, or does not exist and has an extension (whose format
    ``--format`` defaults to); else a directory, one file per table.
    """
    if out is None:
        return fmt or "text", None, False
    path = Path(out)
    blocker = _blocked(path)
    if blocker is not None:
        raise UsageError(f"cannot write the report to {out!r}: {str(blocker)!r} is a file, not a directory")
    as_directory = path.is_dir() or out.endswith(("/", os.sep)) or (not path.exists() and not path.suffix)
    if as_directory:
        return fmt or "text", path, False
    implied = SUFFIXES.get(path.suffix.lower())
    if fmt and implied and implied != fmt:
        raise UsageError(
            f"--out {out!r} ends in {path.suffix!r} (format {implied}) but --format is {fmt}; "
            f"give --format {implied}, another file name, or a directory"
        )
    return fmt or implied or "text", path, True


def check_plots_target(plots: str) -> Path:
    """``--plots`` as a directory for the charts; UsageError if it cannot be one. Needs matplotlib."""
    from results.plots import check_matplotlib

    path = Path(plots)
    blocker = path if path.exists() and not path.is_dir() else _blocked(path)
    if blocker is not None or (not path.exists() and path.suffix.lower() in IMAGE_SUFFIXES):
        why = f"{str(blocker)!r} is a file" if blocker is not None else f"{plots!r} looks like a file name"
        raise UsageError(
            f"--plots takes a directory to write elo.png, crosstable.png and nodes_by_depth.png into; {why}"
        )
    check_matplotlib()
    return path


def rating_view(args, tables=None):
    """``--anchor`` and ``--los`` as a ``results.ratings.View``; UsageError names a malformed
    anchor, or one that played none of the games of ``tables`` (``results.load``'s)."""
    from results.ratingview import View

    view = View.parse(getattr(args, "anchor", None) or (), getattr(args, "los", View.top))
    if tables is not None:
        check_anchors(view, tables)
    return view


def check_anchors(view, tables) -> None:
    """UsageError if an anchor of ``view`` played none of the games of ``tables``."""
    games, seats = tables.games, tables.seats
    _known_anchors(view, set(seats["bot"]) | set(games["first"]) | set(games["second"]))


def check_run_anchors(view, config, registry: Registry) -> None:
    """UsageError, before any game, if an anchor of ``view`` names no bot of the run ``config``
    (by its display name, or its spec); a plugin not loaded yet leaves the check to the end."""
    if not view.anchors:
        return
    from arena.front.entrants import with_short_names

    try:
        named = with_short_names(config, registry or get_registry()).bots
    except ArenaError:
        return
    aliases = {e.name for e in config.bots} | {e.spec for e in config.bots}
    _known_anchors(view, {e.name for e in named}, aliases)


def _known_anchors(view, bots: set, aliases=frozenset()) -> None:
    """UsageError naming the first anchor of ``view`` that is none of ``bots`` (listed) or ``aliases``."""
    unknown = [b for b, _ in view.anchors if b not in bots and b not in aliases]
    if unknown:
        raise UsageError(f"--anchor {unknown[0]}: no such bot in this tournament; bots: {', '.join(sorted(bots))}")


def cmd_report(registry: Registry, args) -> int:
    import results
    from results.report import write, write_file

    fmt, out, single = report_target(args.out, args.format)  # every path is checked before any output
    if fmt == "html":  # the HTML report is one self-contained page: what --html writes
        if out is not None and not single:
            raise UsageError(f"the HTML report is one file, not a directory: give --html {out / 'report.html'}")
        if out is not None and args.html:
            raise UsageError("give the HTML report's file once: --html FILE (or --out FILE.html)")
        args.html = args.html or (str(out) if out is not None else None)
    page = check_html_target(args.html) if args.html else None
    plots = check_plots_target(args.plots) if args.plots else None
    tables = results.load(args.db, args.tournament)
    if tables.games.empty:
        raise UsageError(f"tournament in {args.db!r} has no finished game yet")
    about = tables.about
    view = rating_view(args, tables)
    config = _config(args.db, about.name)
    if page is not None:
        from results.html_report import save

        print(save(page, _page(tables, config, registry, view, args.db)))
    if fmt == "html":
        if page is None:
            print(_page(tables, config, registry, view, args.db), end="")
    elif page is None or args.format or args.out:  # --html alone writes the page alone
        if out is None:
            print(render_report(tables, config, fmt, args.pairs, view))
        elif single:
            print(write_file(report_tables(tables, config, fmt, args.pairs, view), fmt, out, about))
        else:
            for path in write(report_tables(tables, config, fmt, args.pairs, view), fmt, out, about):
                print(path)
    if plots is not None:
        from results.plots import plot_all

        for path in plot_all(tables.games, tables.moves, plots, about, view, seats=tables.seats if tables.players > 2 else None):
            print(path)
    return 0


def cmd_list(registry: Registry, args) -> int:
    from results.about import About
    from results.store import Store

    with Store(args.db, create=False) as store:
        found = store.tournaments()
        counts = store.counts()
        if not (args.tournament or args.games or args.bot or args.result or args.termination):
            keyed = store.keyed()
            abouts = [About.from_store(t, counts.get(t.id, 0), t.id in keyed) for t in found]
            _print_tournaments(abouts, args.json)
            return 0
        tournament = store.tournament(args.tournament)
        rows = store.summaries(tournament)
        keyed = tournament.id in store.keyed()
    about = About.from_store(tournament, len(rows), keyed)
    rows = _filtered(rows, about, args)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{about.title[0].upper()}{about.title[1:]}; {len(rows):,} listed")
    tables = any("seats" in r for r in rows)  # a game of more seats: the bots in seat order, in one column
    table = [("game", "seats", "result", "ended", "plies") if tables else ("game", "first", "second", "result", "ended", "plies")]
    for r in rows:
        seated = _seated(r)
        ended = r["termination"] if r["loser"] is None else f"{r['termination']} ({seated[r['loser']]})"
        who = (", ".join(seated),) if tables else (r["first"], r["second"])
        table.append((str(r["game_id"]), *who, r["result"], ended, str(r["plies"])))
    _print_table(table, right=(0, len(table[0]) - 1))
    return 0


def _seated(row: dict) -> list[str]:
    """The bots of a listed game in seat order."""
    return [bot for bot, _ in row["seats"]] if "seats" in row else [row["first"], row["second"]]


def _filtered(rows: list[dict], about, args) -> list[dict]:
    names = [b.name for b in about.bots]
    if args.bot is not None and args.bot not in names:
        raise UsageError(f"no bot {args.bot!r} in tournament {about.name!r}; bots: {', '.join(names)}")
    if args.result in ("win", "loss") and args.bot is None:
        raise UsageError(f"--result {args.result} needs --bot: whose {args.result}")
    if args.bot is not None:
        rows = [r for r in rows if args.bot in _seated(r)]
    if args.termination is not None:
        rows = [r for r in rows if r["termination"] == args.termination]
    if args.result in ("win", "loss"):
        points = 1.0 if args.result == "win" else 0.0
        rows = [r for r in rows if _points(r, args.bot) == points]
    elif args.result is not None:
        wanted = "1/2-1/2" if args.result == "draw" else args.result
        rows = [r for r in rows if r["result"] == wanted]
    return rows


def _points(row: dict, bot: str) -> float:
    if "seats" in row:  # a game of more seats: a win is the whole point
        return sum(p for b, p in row["seats"] if b == bot)
    first = points(row["result"])
    return first if row["first"] == bot else 1.0 - first


def _print_tournaments(abouts, as_json: bool) -> None:
    if as_json:
        print(json.dumps([a.fields() for a in abouts], indent=2))
        return
    table = [("name", "game", "games", "started", "bots")]
    for a in abouts:
        if a.scheduled is None:  # an SPRT or a race: it stops when it decides
            games = f"{a.finished:,}"
        else:
            games = f"{a.finished:,} of {a.scheduled:,}" + (" (partial)" if a.partial else "")
        table.append((a.name, a.game, games, a.started.replace("T", " ")[:16], ", ".join(b.name for b in a.bots)))
    _print_table(table)


def _print_table(rows: list[tuple[str, ...]], right: tuple[int, ...] = ()) -> None:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(row, widths))).rstrip())


def finish(result, db, html: Path | None, registry, *, after: str = "", failed: str = "", view=None,
           pgn: Path | None = None, progress: bool = False) -> int:
    """The end of a run (``arena run``, ``arena sprt``): the report and what the run did, or
    why it stopped; its exit code. ``after``: what the run got to, for an interrupted one
    (``after 12 pairs``); ``failed``: what games that could not be played cost it; ``view``:
    how the report shows ratings (``results.ratings.View``); ``pgn``: a file to write every
    game of the tournament into as PGN (``progress``: with a bar on stderr)."""
    db = str(db)
    stored = result.already + result.played
    counted = f"{stored} games" if result.config.format.open_ended else f"{stored} of {result.scheduled} games"
    if result.interrupted:
        where = f" {after};" if after else ":"
        print(f"arena: interrupted{where} {counted} are stored in {db!r}; run the same command again to resume",
              file=sys.stderr)
        return 130
    import results

    name = result.tournament.name
    tables, config = results.load(db, name), _config(db, name)  # once, for the text and the page
    if view is not None and view.anchors:
        try:
            check_anchors(view, tables)
        except UsageError as exc:  # the games are stored: report them all the same, at mean 0
            print(f"arena: {exc}; the report's Elo has mean 0", file=sys.stderr)
            view = replace(view, anchors=())
    print(render_report(tables, config, "text", view=view))
    print(f"\n{counted} in {db!r} (tournament {name!r}; {result.played} played now)")
    if html is not None:
        from results.html_report import save

        print(f"HTML report: {save(html, _stored_page(db, tables, config, registry, view))}")
    if pgn is not None:
        from arena.front.export import export_file

        count = export_file(db, name, pgn, "pgn", registry, progress)
        print(f"PGN: {count} games in {str(pgn)!r}")
    if result.failed:
        print(f"arena: {len(result.failed)} games could not be played (see the warnings above){failed}; "
              "run the same command again to retry them", file=sys.stderr)
        return 1
    return 0
