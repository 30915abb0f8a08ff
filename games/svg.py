"""Board pictures as SVG for ``Game.svg``: a grid of cells, one shape per piece.

Every cell's shape carries ``data-piece``, the letter the game's text ``render`` draws there
("." for an empty cell), so a page or a test can read the position back from the picture.
Units are cells: the viewBox is the board plus a margin for the coordinates.
"""

from __future__ import annotations

from typing import Callable, Sequence

MARGIN = 0.6
"""Room for the coordinates, in cells."""


def grid(
    cells: Sequence[str],
    columns: int,
    piece: Callable[[float, float, str], str],
    *,
    board: str,
    lines: str | None = None,
    column_labels: Sequence[str] = (),
    row_labels: Sequence[str] = (),
    labels_below: bool = False,
    title: str = "",
) -> str:
    """An ``<svg>`` of a board of ``len(cells) // columns`` rows, top row first.

    ``piece(x, y, letter)`` draws one cell's content centred at (x, y) ("" for nothing);
    ``lines`` colours the grid lines (None: none); labels go above (or below) and left.
    """
    rows = len(cells) // columns
    left = MARGIN if row_labels else 0.0
    top = MARGIN if column_labels and not labels_below else 0.0
    bottom = MARGIN if column_labels and labels_below else 0.0
    width, height = left + columns, top + rows + bottom
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" role="img"'
        f' aria-label="{title or "board"}" font-family="sans-serif" font-size="0.4">',
        f'<rect x="{left:g}" y="{top:g}" width="{columns}" height="{rows}" fill="{board}"/>',
    ]
    if lines:
        path = "".join(f"M{left + c:g} {top:g}v{rows}" for c in range(1, columns))
        path += "".join(f"M{left:g} {top + r:g}h{columns}" for r in range(1, rows))
        out.append(f'<path d="{path}" stroke="{lines}" stroke-width="0.03"/>')
    label_y = top + rows + bottom / 2 if labels_below else top / 2
    for c, text in enumerate(column_labels):
        out.append(f'<text x="{left + c + 0.5:g}" y="{label_y:g}" text-anchor="middle" dy="0.35em">{text}</text>')
    for r, text in enumerate(row_labels):
        out.append(f'<text x="{left / 2:g}" y="{top + r + 0.5:g}" text-anchor="middle" dy="0.35em">{text}</text>')
    for i, letter in enumerate(cells):
        r, c = divmod(i, columns)
        out.append(piece(left + c + 0.5, top + r + 0.5, letter))
    out.append("</svg>")
    return "".join(out)


def disc(fills: dict[str, str | None], stroke: str = "none", radius: float = 0.42) -> Callable[[float, float, str], str]:
    """Cells drawn as discs filled by piece (None: nothing drawn), for ``grid``."""

    def draw(x: float, y: float, letter: str) -> str:
        if fills[letter] is None:
            return ""
        return (f'<circle cx="{x:g}" cy="{y:g}" r="{radius:g}" fill="{fills[letter]}" stroke="{stroke}"'
                f' stroke-width="0.03" data-piece="{letter}"/>')

    return draw
