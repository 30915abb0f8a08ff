"""Connect Four's symmetry: one table key for a position and its mirror image."""

from __future__ import annotations

from games.connect4_board import Board


class MirrorKey:
    """``key(state)``: the smaller of a position's code and its mirror image's (columns reversed)."""

    def __init__(self, board: Board):
        h, span = board.height, 1
        while span < board.columns:
            span *= 2
        self._stages, self._drop = self._stages_for(h, span), (span - board.columns) * h

    @staticmethod
    def _stages_for(h: int, span: int) -> tuple:
        """Swaps that reverse the order of ``span`` columns of ``h`` bits.

        With the columns padded to a power of two, span, reversing them is swapping halves,
        then quarters, and so on: log2(span) stages of (shift, mask of the lower columns of
        each swapped pair). The padding columns then drop off the bottom. Padded to three
        stages (a shift of 0 with a full mask is a no-op) so ``key`` can be unrolled.
        """
        stages, step = [], span // 2
        while step:
            mask = sum(((1 << h) - 1) << (col * h) for col in range(span) if not col & step)
            stages.append((step * h, mask))
            step //= 2
        stages += [(0, (1 << (span * h)) - 1)] * (3 - len(stages))
        return tuple(stages)

    def key(self, state):
        """One key for a position and its mirror image (columns reversed)."""
        code = state[0] + state[1]  # with the spare top bit, this encodes the whole position
        stages = self._stages
        if len(stages) == 3:  # up to 8 columns: unrolled
            (a, ma), (b, mb), (c, mc) = stages
            x = ((code & ma) << a) | ((code >> a) & ma)
            x = ((x & mb) << b) | ((x >> b) & mb)
            x = ((x & mc) << c) | ((x >> c) & mc)
        else:
            x = code
            for s, m in stages:
                x = ((x & m) << s) | ((x >> s) & m)
        x >>= self._drop
        return code if code < x else x
