"""Small helpers for games kept in bitboards (Python ints)."""


def squares(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def open_lines(first: int, second: int, windows: tuple[int, ...], length: int) -> float:
    """Stones in lines still open to their owner, first's minus second's, scaled into (-0.9, 0.9).

    ``windows`` are the bitmasks of every line of ``length`` cells; the value is for ``first``.
    """
    score = 0
    for w in windows:
        a, b = first & w, second & w
        if not b:
            score += a.bit_count()
        elif not a:
            score -= b.bit_count()
    return 0.9 * score / (len(windows) * length)
