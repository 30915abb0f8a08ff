"""One self-contained HTML page of a tournament: tables, charts, every game, and replays.

The page works offline: its style, script, charts (inline SVG) and boards are all in the one
file. It is built with Jinja2 (``pip install 'botarena[html]'``) from
``results/templates/report.html.j2`` and the style and script in ``results/static/``.
Charts need matplotlib (``botarena[plots]``); without it the page says so. Every game is
listed (the page's script draws the list from columns of numbers, a page of it at a time, so
that 100,000 games load in seconds); a sample of them and the games lost by a fault have
replays, whose boards are drawn by the game (``Game.svg``, else its text ``render``) for every
ply (see ``results.replay``), and the page says how to show any other; with no game given,
the games are listed without replays. The replay of a game with hidden information can also
be shown as one seat saw it: its observation after each ply and the others' plies as every
seat saw them. A game of more than two seats has sections of its own (``results.html_seats``):
Plackett-Luce standings, who finished ahead of whom, points by seat, endings, and the games
with their bots in seat order.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from arena.errors import ArenaError, ParameterError
from arena.formats import stored_format
from arena.game import Game
from results.html_parts import (
    FAULT_REPLAYS, SAMPLE, SCALE, charts, colour, listing, packed_replays, replayed, replays_note, script_json,
    superiority_cells, table,
)
from results.html_seats import seat_sections
from results.render import _number, directory
from results.ratings import Fit, View, fit, origin
from results.cycles import intransitivity
from results.report import by_colour, standings, terminations
from results.sprt_report import game_pairs

STANDINGS = {
    "games": "Games", "wins": "Wins", "draws": "Draws", "losses": "Losses", "score": "Points",
    "score_rate": "Score rate", "win_rate": "Win rate", "utility_per_game": "Utility per game",
    "utility_low": "Utility, 95% low", "utility_high": "Utility, 95% high", "elo": "Elo", "±": "Elo ± (95%)",
    "nodes_per_move": "Nodes per move", "nodes_per_second": "Nodes per second", "depth": "Mean depth",
    "seconds_per_move": "Seconds per move",
}
LADDER = {"rank": "Rank", "elo": "Elo", "±": "Elo ± (95%)", "games": "Games", "joined": "Joined (UTC)",
          "left": "Left (UTC)", "status": "Status"}
FAULTS = {
    "normal": "Ended normally", "timeout": "Timeouts", "crash": "Crashes", "illegal_move": "Illegal moves",
    "memory": "Over memory", "output": "Over output", "protocol": "Protocol errors", "cpu_ceiling": "Over CPU time",
    "clock": "Lost on time", "forfeits": "Own faults in all", "wins_by_forfeit": "Won by the opponent's fault",
}


def check_jinja() -> None:
    """ArenaError saying how to install Jinja2, when it cannot be imported."""
    try:
        import jinja2  # noqa: F401
    except ImportError:
        raise ArenaError("the HTML report needs Jinja2: pip install 'botarena[html]'") from None


def _crosstable(games: pd.DataFrame, order: list[str]) -> list[dict]:
    """Per row bot: its cells against each column bot (None on the diagonal or without games)."""
    score = games["score_first"].astype(float)
    sides = pd.concat([
        pd.DataFrame({"bot": games["first"], "opponent": games["second"], "score": score}),
        pd.DataFrame({"bot": games["second"], "opponent": games["first"], "score": 1 - score}),
    ])
    grouped = sides.groupby(["bot", "opponent"])["score"]
    stats = pd.DataFrame({
        "wins": grouped.apply(lambda s: int((s == 1).sum())), "draws": grouped.apply(lambda s: int((s == 0.5).sum())),
        "losses": grouped.apply(lambda s: int((s == 0).sum())), "points": grouped.sum(), "games": grouped.size(),
    })
    rows = []
    for bot in order:
        cells = []
        for other in order:
            if bot == other or (bot, other) not in stats.index:
                cells.append(None)
                continue
            s = stats.loc[(bot, other)]
            rate = s["points"] / s["games"]
            cells.append({
                "wdl": f"{int(s['wins'])}-{int(s['draws'])}-{int(s['losses'])}", "games": int(s["games"]),
                "rate": f"{100 * rate:.0f}%", "colour": colour(rate), "dark": abs(rate - 0.5) > 0.3,
                "points": _number("score", s["points"]),
            })
        rows.append({"bot": bot, "cells": cells})
    return rows


def _groups(games: pd.DataFrame) -> list[list[int]]:
    """The games' ids in pairs (one opening, colours swapped; a game whose partner is missing alone)."""
    pairs, unpaired = game_pairs(games)
    return sorted([list(p) for p in pairs] + [[g] for g in unpaired])


def _faults(ended: pd.DataFrame) -> dict:
    """The faults table: every reason a game ended, one this page has no name for (e.g. an
    adjudication) in words of its own, before the totals."""
    totals = ("forfeits", "wins_by_forfeit")
    extra = {c: c.replace("_", " ").capitalize() for c in ended.columns if c not in FAULTS}
    return table(ended, {**{c: h for c, h in FAULTS.items() if c not in totals}, **extra,
                         **{c: FAULTS[c] for c in totals}})


def _model(fitted: Fit) -> str:
    """The fit's other parameters in a sentence."""
    text = (f"The first mover gains {fitted.first_move:+.0f} ± {fitted.quantile * fitted.first_move_se:.0f} Elo; "
            f"{100 * fitted.draw_rate:.1f}% of games are drawn ({100 * fitted.draw_equal:.0f}% between equal bots, "
            f"by Davidson's model).")
    if fitted.dispersion_df:
        text += (f" Intervals count colour-swapped pairs, not games: the scores vary {fitted.dispersion:.2f} times "
                 f"as much as coin flips would.")
    return text


def html(tables, game: Game | None = None, config: dict | None = None, view: View = View(),
         database: str | None = None, sample: tuple[int, int] = SAMPLE, faults: tuple[int, int] = FAULT_REPLAYS) -> str:
    """The page of ``tables`` (``results.load``'s games, moves, about and seats), as text.

    ``game`` (the tournament's game) draws the boards of the replays; ``config`` (the
    stored tournament's settings) gives the sections only its format has (``Format.page``:
    an SPRT run's verdict, a ladder's table); ``view`` anchors the ratings and sizes the
    likelihood-of-superiority table. A game of more than two seats reads its ``seats`` table.
    The page replays a sample of the games and those lost by a fault (``sample`` and
    ``faults``: at most so many games and plies each, see ``results.html_parts.SAMPLE``) and
    tells how to show any other from ``database`` (the results database's path).
    """
    check_jinja()
    import jinja2

    games, moves, about = tables.games, tables.moves, tables.about
    if games.empty:
        raise ParameterError(f"tournament {about.name!r} has no finished game yet: nothing to report")
    moves = moves[moves["game_id"].isin(games["game_id"])]
    seated = getattr(tables, "players", 2) > 2
    if seated:
        parts = seat_sections(games, moves, tables.seats, game, view)
        bots = tables.seats.pivot(index="game_id", columns="seat", values="bot")
    else:
        parts = _two_seats(games, moves, game, config, view, tables.seats)
        bots = games.set_index("game_id")[["first", "second"]]
    groups = parts.pop("groups")
    chosen = replayed(games, groups, sample, faults)
    replays = {} if game is None else packed_replays(game, games, moves, chosen.ids, bots if seated else None)
    note = None if game is None else replays_note(chosen, len(games), "rounds" if seated else "colour-swapped pairs",
                                                  database, about.name, game.name == "chess")
    drawn, charts_missing = charts(games, moves, about, view, seats=tables.seats if seated else None)
    files = resources.files("results")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.from_string(files.joinpath("templates/report.html.j2").read_text(encoding="utf-8"))
    return template.render(
        about=about, lines=about.lines(width=10**6), charts=drawn, charts_missing=charts_missing, **parts,
        replay_missing=None if game is not None else f"the game {about.game!r} is not available here",
        results=sorted(set(games["result"])), terminations=sorted(set(games["termination"])),
        scale=[(f"{100 * at:.0f}%", colour(at)) for at, _ in SCALE], replays_note=note,
        listing=script_json(listing(games, groups, bots)), replays=script_json({str(k): v for k, v in replays.items()}),
        style=files.joinpath("static/report.css").read_text(encoding="utf-8"),
        script=files.joinpath("static/report.js").read_text(encoding="utf-8"),
    )


def _two_seats(games: pd.DataFrame, moves: pd.DataFrame, game: Game | None, config: dict | None, view: View,
               seats: pd.DataFrame | None = None) -> dict:
    """The template's variables for a game of two seats: standings (with the utility per game in
    a game of chips), a significant cycle, the crosstable, colours, faults, the format's own
    sections, and the games in pairs."""
    fitted = fit(games, anchors=view.anchors)
    ranked = standings(games, moves, view, fitted, seats=seats)
    sections = stored_format(config).page(games, config, ranked) if config else {}  # an SPRT's verdict, a ladder's table
    order = [str(b) for b in ranked.index]
    names = (game.player_name(0), game.player_name(1)) if game is not None else ("first", "second")
    colours = {f"{seat}_{what}": f"{label} as {names[k]}" for k, seat in enumerate(("first", "second"))
               for what, label in (("games", "Games"), ("score", "Points"), ("rate", "Score rate"))}
    return {
        "seated": False, "standings": table(ranked, STANDINGS), "origin": origin(view.anchors),
        "cycles": intransitivity(games, order).line(),
        "model": _model(fitted), "superiority": superiority_cells(fitted, view.top),
        "crosstable": _crosstable(games, order), "order": order, "colours": table(by_colour(games, order), colours),
        "faults": _faults(terminations(games, order)), "verdict": sections.get("verdict"),
        "ladder": None if sections.get("ladder") is None else table(sections["ladder"], LADDER),
        "groups": _groups(games), "bots": order,
    }


def save(path: str | Path, page: str) -> Path:
    """Write ``page`` into the file ``path``, its directory created; returns the path."""
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"cannot write the HTML report into {str(path)!r}: it is a directory; give a file name")
    directory(path.parent, f"the report {path.name!r}")
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    return path


def write_html(path: str | Path, tables, game: Game | None = None, config: dict | None = None) -> Path:
    """Write the page (see ``html``) into the file ``path``, its directory created; returns the path."""
    return save(path, html(tables, game, config))
