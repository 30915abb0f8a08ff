"""Report tables as text, markdown, csv, json or html, headed by what they describe (``About``).

text, markdown and html are for people: rounded numbers, short headers, Elo as ``elo`` and
``±``, rates as percentages; text fits a terminal of ``WIDTH`` columns, splitting a table
that is wider. csv and json keep the raw numbers and column names.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from arena.errors import ArenaError, ParameterError
from results.about import About

FORMATS = {"text": "txt", "csv": "csv", "markdown": "md", "json": "json", "html": "html"}
"""Output formats and the file extension each is written with."""
WIDTH = 100
"""Columns the text report fits in."""
SHORT = {
    "score_rate": "score%", "win_rate": "win%", "nodes_per_move": "nodes/move", "nodes_per_second": "nodes/s",
    "seconds_per_move": "s/move", "first_games": "1st_games", "first_score": "1st_score", "first_rate": "1st%",
    "second_games": "2nd_games", "second_score": "2nd_score", "second_rate": "2nd%", "illegal_move": "illegal",
    "wins_by_forfeit": "opp_faults", "others_forfeited": "others_faults", "mean_rank": "rank", "reported_moves": "reported", "over_budget": "over",
    "utility_per_game": "utility/game", "utility_±": "±",
}
"""Headers people read, for the column names of the report tables."""
NOTES = {
    "standings": "Elo with its 95% interval (±); nodes, depth and seconds are per move",
    "rating_model": "the Elo fit's other parameters (docs/ratings.md)",
    "ladder": "every bot that joined, best first; the Elo intervals are fixed-sample: they hold for this one look "
    "at a ladder that plays on, not for stopping the moment one clears",
    "superiority": "chance in % that the row's bot is stronger than the column's, from the ratings' joint "
    "covariance (best-rated bots first)",
    "crosstable": "points of the row's bot against the column's bot",
    "colours": "games, points and score rate as first mover (1st) and as second mover (2nd)",
    "terminations": "how each bot's games ended: normally, or by the bot's own fault (it lost those); "
    "opp_faults: games it won by its opponent's fault",
    "reported": "nodes counted in the bot's own process, an engine's or an isolated bot's (the arena cannot check "
    "them): its moves with reported nodes, and those over the node budget",
    "payoff_matrix": "mean score in % of the row's bot against the column's bot (a draw counts half)",
    "payoff": "every ordered pair: games, mean score (0 to 1, a draw half) and the one-sided p-value of a score "
    "above half, its colour-swapped pairs the units",
    "cycles": "3-cycles of bots each scoring above half against the next: each edge's p-value, the largest (p) "
    "and Holm's (p_holm); significant at 0.05 (results.cycles)",
}
SEAT_NOTES = {
    "by_seat": "mean points of each bot in each seat (seat_1 moves first); all: every bot's together, what "
    "each seat is worth",
    "versus": "share of the games the row's bot and the column's played together in which the row's finished "
    "ahead (a tie counts half)",
    "endings": "how each bot's games ended: normally, or by the bot's own fault (it lost those); others_faults: "
    "games another seat forfeited",
}
NOTES.update(SEAT_NOTES)
PERCENT = {"superiority", "payoff_matrix"}
"""Tables of probabilities, shown to people in percent."""
BREAK_BEFORE = {"nodes_per_move": "search per move"}
"""Where a text table too wide for the terminal is split first, and what the part after says."""


def _missing(value) -> bool:
    """A cell with nothing in it: None, pandas' NA or NaN."""
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _number(column: str, value) -> str:
    """One cell for people: Elo as signed integers, rates as percentages, counts with commas."""
    if _missing(value):
        return "-"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return str(value)
    if isinstance(value, (float, np.floating)) and math.isinf(value):
        return "∞" if value > 0 else "-∞"  # an interval open on that side
    if column == "elo":
        return f"{value:+.0f}"
    if column in ("±", "elo_low", "elo_high", "se"):
        return f"{value:.0f}"
    if column == "utility_per_game":  # in a game's own unit (a poker game's chips): signed, aligned
        return f"{value:+.3f}"
    if column in ("utility_±", "utility_low", "utility_high"):
        return f"{value:.3f}"
    if column.endswith("rate"):
        return f"{100 * value:.1f}%"
    if float(value).is_integer():
        return f"{value:,.0f}"
    if float(2 * value).is_integer():  # half points
        return f"{value:,.1f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    text = f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def _note(name: str, table: pd.DataFrame) -> str | None:
    """What a table shows: its own note (``attrs["note"]``, where a table of that name differs
    by game, as the standings of more seats do), else its name's."""
    return table.attrs.get("note") or NOTES.get(name)


def _warning(table: pd.DataFrame) -> str | None:
    """What people must not miss under a table (``attrs["warning"]``: e.g. results that are not transitive)."""
    return table.attrs.get("warning")


def _shown(tables: dict[str, pd.DataFrame], fmt: str) -> dict[str, pd.DataFrame]:
    """The tables meant for ``fmt``'s readers: ``attrs["audience"]`` "data" only in json and csv,
    "people" only in text, markdown and html (no mark: everywhere)."""
    skip = "people" if fmt in ("json", "csv") else "data"
    return {name: t for name, t in tables.items() if t.attrs.get("audience") != skip}


def _percent(value) -> str:
    """A probability in percent: one decimal, so that 99.9 and 100 stay apart."""
    if _missing(value):
        return "-"
    return f"{100 * value:.1f}"


def _square(table: pd.DataFrame) -> bool:
    """A crosstable: its columns are its rows."""
    return len(table.index) > 0 and list(map(str, table.columns)) == list(map(str, table.index))


def _cells(table: pd.DataFrame, numbered: bool = False, percent: bool = False):
    """Column keys, header, rows of cell strings, and which columns are numeric (right-aligned).

    An Elo interval (``elo_low``, ``elo_high``) becomes one ``±`` column: its half-width, as
    the utility's (``utility_low``, ``utility_high``) does after ``utility_per_game``.
    ``numbered``: the columns of a crosstable are numbered, its rows named with their number.
    ``percent``: every cell is a probability, shown in percent.
    """
    table = table.copy()
    if {"elo", "elo_low", "elo_high"} <= set(table.columns):
        half = (table["elo_high"] - table["elo_low"]) / 2
        table.insert(table.columns.get_loc("elo") + 1, "±", half)
        table = table.drop(columns=["elo_low", "elo_high"])
    if {"utility_per_game", "utility_low", "utility_high"} <= set(table.columns):
        half = (table["utility_high"] - table["utility_low"]) / 2
        table.insert(table.columns.get_loc("utility_per_game") + 1, "utility_±", half)
        table = table.drop(columns=["utility_low", "utility_high"])
    keys = [str(c) for c in table.columns]
    labels = [str(label) for label in table.index]
    if numbered:
        digits = len(str(len(labels)))
        header = [str(table.index.name or "")] + [str(k + 1) for k in range(len(keys))]
        labels = [f"{k + 1:>{digits}} {label}" for k, label in enumerate(labels)]
    else:
        header = [str(table.index.name or "")] + [SHORT.get(c, c) for c in keys]
    rows = [
        [label] + [_percent(v) if percent else _number(c, v) for c, v in zip(keys, values)]
        for label, values in zip(labels, table.itertuples(index=False))
    ]
    numeric = [False] + [pd.api.types.is_numeric_dtype(t) for t in table.dtypes]
    return [""] + keys, header, rows, numeric


def _title(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _clip(text: str, width: int) -> str:
    """``text`` cut in the middle to ``width`` characters."""
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: (keep + 1) // 2] + "…" + text[len(text) - keep // 2:]


def _groups(keys: list[str], widths: list[int], limit: int) -> list[list[int]]:
    """Columns (after the label) in groups that fit ``limit`` beside the label column."""
    fits = sum(widths) + 2 * (len(widths) - 1) <= limit
    groups, current, used = [], [], widths[0]
    for k in range(1, len(widths)):
        if current and (used + 2 + widths[k] > limit or (not fits and keys[k] in BREAK_BEFORE)):
            groups.append(current)
            current, used = [], widths[0]
        current.append(k)
        used += 2 + widths[k]
    return groups + [current] if current or not groups else groups


def _text(name: str, table: pd.DataFrame, width: int) -> str:
    keys, header, rows, numeric = _cells(table, numbered=_square(table), percent=name in PERCENT)
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    widest = max(widths[1:], default=0)
    if widths[0] + 2 + widest > width:  # very long names give way; the numbers never do
        room = max(width - 2 - widest, 12)
        header, *rows = [[_clip(r[0], room), *(_clip(c, width - 2 - room) for c in r[1:])] for r in [header, *rows]]
        widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    wrap = textwrap.TextWrapper(width=width, subsequent_indent="  ")
    out = []
    for part, columns in enumerate(_groups(keys, widths, width)):
        chosen = [0, *columns]

        def line(cells):
            return "  ".join(
                cells[k].rjust(widths[k]) if numeric[k] else cells[k].ljust(widths[k]) for k in chosen
            ).rstrip()

        if part == 0:
            title = f"{_title(name)}: {_note(name, table)}" if _note(name, table) else _title(name)
        else:
            what = BREAK_BEFORE.get(keys[columns[0]])
            title = f"{_title(name)}, continued" + (f": {what}" if what else "")
        out += wrap.wrap(title)
        out += [line(header), "  ".join("-" * widths[k] for k in chosen), *map(line, rows), ""]
    if _warning(table):
        out[-1:] = ["", *textwrap.wrap(_warning(table), width=width, break_on_hyphens=False), ""]
    return "\n".join(out[:-1]) + "\n"


def _markdown(name: str, table: pd.DataFrame) -> str:
    _, header, rows, numeric = _cells(table, percent=name in PERCENT)

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if right else ":---" for right in numeric) + "|"
    note = [_note(name, table), ""] if _note(name, table) else []
    warning = ["", f"**{_warning(table)}**"] if _warning(table) else []
    return "\n".join([f"## {_title(name)}", "", *note, line(header), rule, *map(line, rows), *warning]) + "\n"


def _html(name: str, table: pd.DataFrame) -> str:
    _, header, rows, numeric = _cells(table, percent=name in PERCENT)

    def cells(tag, values):
        return "".join(
            f'<{tag}{" class=num" if right else ""}>{html.escape(v)}</{tag}>' for v, right in zip(values, numeric)
        )

    body = "\n".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    note = f"<p>{html.escape(_note(name, table))}</p>\n" if _note(name, table) else ""
    warning = f"<p><strong>{html.escape(_warning(table))}</strong></p>\n" if _warning(table) else ""
    return (f"<h2>{html.escape(_title(name))}</h2>\n{note}<table>\n<thead><tr>{cells('th', header)}</tr></thead>\n"
            f"<tbody>\n{body}\n</tbody>\n</table>\n{warning}")


def about_table(about: About) -> pd.DataFrame:
    """The description as a two-column table (item, value), for csv."""
    fields = about.fields()
    fields["bots"] = "; ".join(str(b) for b in about.bots)
    fields["challengers"] = ", ".join(about.challengers)
    if "notes" in fields:
        fields["notes"] = " / ".join(fields["notes"])
    frame = pd.DataFrame({"value": ["" if v is None else v for v in fields.values()]}, index=list(fields))
    frame.index.name = "item"
    return frame


def _records(table: pd.DataFrame) -> list[dict]:
    return json.loads(table.reset_index().to_json(orient="records"))


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ParameterError(f"unknown report format {fmt!r}; choose from {', '.join(FORMATS)}")


def _csv(table: pd.DataFrame) -> str:
    out = io.StringIO()
    table.to_csv(out, quoting=csv.QUOTE_MINIMAL)
    return out.getvalue()


def render(tables: dict[str, pd.DataFrame], fmt: str = "text", about: About | None = None, width: int = WIDTH) -> str:
    """The tables as one document in ``fmt``: text, csv, markdown, json or html, headed by ``about``.

    csv: an ``about`` section (item, value) and then each table, each after a ``# name`` line
    and separated by a blank line; json: ``{"about": {...}, name: [record, ...], ...}``. A
    table marked for one audience (``attrs["audience"]``) is left out of the other's formats.
    """
    _check(fmt)
    tables = _shown(tables, fmt)
    if fmt == "json":
        head = {"about": about.fields()} if about else {}
        return json.dumps({**head, **{name: _records(t) for name, t in tables.items()}}, indent=2) + "\n"
    if fmt == "csv":
        head = {"about": about_table(about)} if about else {}
        return "\n".join(f"# {name}\n{_csv(t)}" for name, t in {**head, **tables}.items())
    if fmt == "html":
        parts = "\n".join(_html(name, t) for name, t in tables.items())
        title, head = "botarena report", ""
        if about:
            lines = about.lines(width=10**6)
            title = f"botarena report: {about.title}"
            items = "".join(f"<li>{html.escape(line)}</li>\n" for line in lines[1:])
            head = f"<h1>{html.escape(lines[0])}</h1>\n<ul>\n{items}</ul>\n"
        return ("<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\">"
                f"<title>{html.escape(title)}</title>\n"
                "<style>table{border-collapse:collapse}td,th{padding:2px 8px}.num{text-align:right}</style>\n"
                f"</head>\n<body>\n{head}{parts}</body>\n</html>\n")
    if fmt == "text":
        head = ["\n".join(about.lines(width)) + "\n"] if about else []
        return "\n".join(head + [_text(name, t, width) for name, t in tables.items()])
    head = []
    if about:
        first, *rest = about.lines(width=10**6)
        head = [f"# {first}\n\n" + "".join(f"- {line}\n" for line in rest)]
    return "\n".join(head + [_markdown(name, t) for name, t in tables.items()])


def directory(path: str | Path, what: str = "the report") -> Path:
    """``path`` as a directory to write files into, created if need be; ParameterError if it cannot be."""
    out = Path(path)
    for place in (out, *out.parents):
        if place.exists() and not place.is_dir():
            which = "it is a file" if place == out else f"{str(place)!r} is a file"
            raise ParameterError(f"cannot write {what} into the directory {str(out)!r}: {which}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArenaError(f"cannot make the directory {str(out)!r} for {what}: {exc.strerror or exc}") from None
    return out


def _save(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None


def write(tables: dict[str, pd.DataFrame], fmt: str, out_dir: str | Path, about: About | None = None) -> list[Path]:
    """Write the tables into ``out_dir`` (created): one file per table, or report.json; returns the paths.

    Each file is headed by ``about``; csv files are plain tables, with ``about.csv`` beside them.
    """
    _check(fmt)
    tables = _shown(tables, fmt)
    out = directory(out_dir)
    if fmt == "json":
        items = [(out / "report.json", render(tables, fmt, about))]
    elif fmt == "csv":  # plain CSV files, without the ``# name`` line
        head = {"about": about_table(about)} if about else {}
        items = [(out / f"{name}.csv", _csv(t)) for name, t in {**head, **tables}.items()]
    else:
        items = [(out / f"{name}.{FORMATS[fmt]}", render({name: t}, fmt, about)) for name, t in tables.items()]
    for path, text in items:
        _save(path, text)
    return [path for path, _ in items]


def write_file(tables: dict[str, pd.DataFrame], fmt: str, path: str | Path, about: About | None = None) -> Path:
    """Write the whole report, as ``render`` gives it, into the file ``path`` (its directory is created)."""
    _check(fmt)
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"cannot write the report into the file {str(path)!r}: it is a directory")
    directory(path.parent, f"the report {path.name!r}")
    _save(path, render(tables, fmt, about))
    return path
