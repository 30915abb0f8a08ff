"""Plackett-Luce ratings: one fit of every game's ranking of its seats (two or more, ties
allowed), on the Elo scale of ``results.ratings`` and returned as its ``Fit``.

``fit(seats)`` takes a seats table, one row per game and seat: ``game_id``, ``seat``, ``bot``,
``rank`` (1 = best; equal ranks are a tie) and, if present, ``tournament`` (a game is its
tournament and game_id); more columns are ignored. ``ratings(seats)`` is its table with the
scalars in ``attrs``, as ``results.ratings.ratings``.

- **Model** (Luce 1959; Plackett 1975). A bot of Elo ``r`` has weight ``10**(r / 400)``; the
  best of a set S is bot i with probability ``w_i / sum_{j in S} w_j``, and a ranking is
  chosen from the top: each place goes to one of the seats not yet placed. Two seats ``d``
  apart: ``1 / (1 + 10**(-d / 400))``, the curve of ``results.ratings``. A bot in two seats of
  a game is two entries of the sum; a game whose seats are all one bot says nothing and is
  left out (as a game against oneself there).
- **Ties.** A tie group contributes the mean of the log-likelihood over the orderings of its
  members. For two seats a draw gives ``0.5 log p + 0.5 log(1 - p)``: half a win and half a
  loss (Elo's half point, A. Elo 1978, "The rating of chessplayers"), the Bernoulli
  quasi-likelihood ``results.ratings`` maximises; so on two-seat games the point estimate is
  that fit's (the same prior too). Its score is the mean of the scores of the orderings the
  tie allows, so the fit is unbiased when, given the tie, each of them is as likely
  (McCullagh and Nelder 1989, ch. 9: an unbiased estimating equation is all a
  quasi-likelihood needs). It is computed exactly: in an ordering of a tie of g seats, the
  first k members are a random k-subset A of the group (each as likely), so place k + 1 is
  chosen from R - A (R: the seats not placed before the tie), and the mean is a sum over the
  2^g - 1 proper subsets A of -log(sum_{R - A} w) / C(g, |A|) (plus the members' log w);
  ties of up to ``MAX_TIE`` seats. Efron (1977, "The efficiency of Cox's likelihood function
  for censored data", JASA 72; Cox's partial likelihood is this one) puts the mean inside the
  log instead, an approximation that for a two-seat draw gives log p + log(1 - p) + log 2, a
  draw weighing as much as two games, so it does not reduce to the half point.
- **Prior.** ``prior`` (``PRIOR``) virtual drawn two-seat games of each bot against the
  field's mean, as ``results.ratings``; ``prior=0`` is the maximum likelihood, refused where
  Hunter's (2004, Assumption 1) condition fails: every bot must reach every other along
  "placed ahead of or tied with" links.
- **Fit.** Newton's method with the analytic Hessian and step halving (the solver of
  ``results.bradley_terry.Model``); the log-likelihood is concave (Hunter 2004, "MM
  algorithms for generalized Bradley-Terry models", Ann. Statist. 32, whose MM algorithm
  finds the same maximum more slowly).
- **Intervals.** The covariance is the inverse observed information times a dispersion
  estimated from the data (McCullagh and Nelder 1989, "Generalized Linear Models", ch. 9:
  a quasi-likelihood's dispersion from its Pearson residuals), as ``results.ratings`` does,
  each game a cluster: with u a game's score vector (its log-likelihood's gradient), H its
  information and M the inverse information, to first order at the fit E sum |u|^2 =
  phi (V - T) and E sum tr H = V - phi T (T = sum tr H M H, the fit's share; V the
  information at the true strengths), and phi is the root of the two. In simulations of
  tables of 3 and 4 seats its 95% intervals hold 94-96% of true ratings, with or without
  ties (tests/test_plackett_luce.py). A tie varies less than the orders it stands
  for, so ties bring phi below 1. It is pulled toward 1 by ``bradley_terry.PRIOR_DF``
  degrees of freedom and the quantile is Student's t below ``SMALL_DF`` of them (sum over
  games of their bots less 1, less the leverage sum tr M H), as there.
  ``dispersion=False`` gives the plain inverse information (a dispersion of 1).

On two-seat games (draws: equal ranks) the point estimate is ``results.ratings.fit(games,
first_move=False)``'s, and with ``dispersion=False`` so are the covariance, intervals,
``draw_rate``, ``draw_nu`` and ``clusters`` of its ``pairs=False`` (to rounding). With the
dispersion estimated, the intervals differ, for two reasons: seats carry no pairing or opening,
so each game is a cluster of its own (there, colour-swapped pairs); and
``bradley_terry.dispersion`` takes T off the denominator evaluated at the fit, which has
already lost about T, so its estimate runs high by about (fitted parameters) / (clusters): over
300 tournaments of 60 decisive two-seat games among 8 bots (sd 150 Elo), each game its own
pairing, it averaged 1.11 where the truth is 1 (this one: 0.98). Other
differences from that ``Fit``: no seat advantage is fitted (``first_move`` and
``first_move_se`` are 0); ``clusters`` counts games; ``draw_rate`` is the share of games with a
tie; ``draw_nu`` is Davidson's parameter over every two seats of a game. A bot alone on top of
every game it played has no upper end (``elo_high`` inf), one alone at the bottom of every
game no lower end, as there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arena.errors import ParameterError
from results import bradley_terry as bt
from results.ratings import COLUMNS, K, PRIOR, Fit, _anchors, interval_quantile

MAX_TIE = 10
"""The most seats one tie may hold: its exact mean costs 2^g - 1 choice sets (1,023 at 10)."""
REQUIRED = ("game_id", "seat", "bot", "rank")
CHUNK = 1 << 21
"""Entries of the outer products built at once (memory, not results)."""
NO_MLE = ("no finite maximum-likelihood Elo: some bots were never placed behind (or tied with) the others; "
          "use prior > 0")

__all__ = ["MAX_TIE", "fit", "ratings"]


def ratings(seats: pd.DataFrame, *, anchors: Mapping[str, float] | Sequence | None = None, prior: float = PRIOR,
            dispersion: bool = True) -> pd.DataFrame:
    """Elo by bot from a seats table: ``fit``'s table with its scalars in ``attrs``."""
    result = fit(seats, anchors=anchors, prior=prior, dispersion=dispersion)
    table = result.table.copy()
    table.attrs = result.attrs()
    return table


def fit(seats: pd.DataFrame, *, anchors: Mapping[str, float] | Sequence | None = None, prior: float = PRIOR,
        dispersion: bool = True) -> Fit:
    """The Plackett-Luce fit of a seats table (``game_id``, ``seat``, ``bot``, ``rank``; and
    ``tournament``): ``elo``, ``elo_low``, ``elo_high`` (95%), ``se`` by bot, the covariance,
    and the scalars of ``results.ratings.Fit`` (see the module's docstring for what they are
    here). Ratings have mean 0, or equal the ``anchors`` (bot -> Elo) where given;
    ``prior`` sets the virtual games; ``dispersion=False`` leaves the information's
    covariance as it is (a dispersion of 1). ParameterError names a table it cannot use.
    """
    anchors = _anchors(anchors)
    try:
        number = float(prior) if not isinstance(prior, (str, bool)) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number >= 0):
        raise ParameterError(f"prior must be a number of virtual games, 0 or more, not {prior!r}")
    data = _Seats.of(seats)
    bots = data.bots
    unknown = sorted(set(anchors) - set(bots))
    if unknown:
        raise ParameterError(f"anchor {', '.join(unknown)} played no game here; bots: {', '.join(bots) or 'none'}")
    if not bots:
        empty = pd.DataFrame(columns=COLUMNS, index=pd.Index([], name="bot"), dtype=float)
        return Fit(empty, np.zeros((0, 0)), anchors=anchors)
    size = len(bots)
    first, second, tie = data.pairs()
    if prior <= 0:
        ahead = np.zeros((size, size))
        ahead[first, second] = 1.0
        ahead[second[tie], first[tie]] = 1.0
        if not bt.mle_exists(ahead):
            raise ParameterError(NO_MLE)
    index = {b: k for k, b in enumerate(bots)}
    offset = float(np.mean(list(anchors.values()))) * K if anchors else 0.0  # as results.ratings.fit
    fixed = {index[b]: value * K - offset for b, value in anchors.items()}
    model = _Model(size, data, prior, fixed)
    start = None
    if fixed:  # from the free fit moved onto the anchors
        free, _ = _Model(size, data, prior, {}).solve()
        start = free + np.mean([v - free[k] for k, v in fixed.items()])
    theta, _ = model.solve(start)
    inverse = model.inverse(theta, 0.0)
    phi, df, clusters = _dispersion(model, theta, inverse) if dispersion else (1.0, 0, data.games)
    covariance = phi * inverse / K**2
    rating = (theta + offset if fixed else theta - theta.mean()) / K
    se = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    q = interval_quantile(df)
    table = pd.DataFrame({"elo": rating, "elo_low": rating - q * se, "elo_high": rating + q * se, "se": se},
                         index=pd.Index(bots, name="bot"))
    if prior > 0:  # alone on top (bottom) of every game: the data bound no upper (lower) end
        played = np.bincount(data.bot, minlength=size)
        held = np.isin(np.arange(size), list(fixed))
        for column, alone, value in (("elo_high", data.top, math.inf), ("elo_low", data.bottom, -math.inf)):
            table.loc[(played > 0) & (np.bincount(data.bot, alone, size) == played) & ~held, column] = value
    return Fit(
        table, covariance, draw_rate=float(data.tied.mean()) if data.games else 0.0,
        draw_nu=bt.davidson(theta[first] - theta[second], tie), dispersion=phi, dispersion_df=df,
        clusters=clusters, anchors=anchors,
    )


# ---- the seats, as choice sets ---------------------------------------------------------------------

@dataclass(frozen=True)
class _Seats:
    """The informative games' seats in a canonical order (game, rank, seat), whatever the
    table's order, and the sets each place is chosen from."""

    bots: list
    """Every bot of the table, sorted."""
    bot: np.ndarray
    """Each seat's bot (index into ``bots``)."""
    game: np.ndarray
    """Each seat's game, 0 to ``games`` - 1."""
    position: np.ndarray
    """Each seat's place in its game's order, 0 first."""
    rank: np.ndarray
    start: np.ndarray
    """Each game's first seat."""
    count: np.ndarray
    """Each game's seats."""
    distinct: np.ndarray
    """Each game's distinct bots."""
    top: np.ndarray
    """Whether a seat is alone in first place (as float)."""
    bottom: np.ndarray
    tied: np.ndarray
    """Whether a game holds a tie."""
    blocks: list
    """Choice sets of ``width`` seats: (seat indices (sets, width), their weights)."""

    @property
    def games(self) -> int:
        return len(self.start)

    @classmethod
    def of(cls, seats) -> "_Seats":
        """The table checked and ordered; ParameterError names the first fault."""
        if not isinstance(seats, pd.DataFrame):
            raise ParameterError(f"a seats table is a pandas DataFrame, not {type(seats).__name__}")
        missing = [c for c in REQUIRED if c not in seats.columns]
        if missing:
            raise ParameterError(f"the seats table has no column {', '.join(map(repr, missing))}; it needs one row "
                                 "per game and seat with game_id, seat, bot and rank (1 = best), tournament optional")
        keys = ["tournament", "game_id"] if "tournament" in seats.columns else ["game_id"]
        frame = seats[[*keys, "seat", "bot"]].assign(rank=pd.to_numeric(seats["rank"], errors="coerce"))

        def where(row) -> str:
            plain = {k: _plain(v) for k, v in row.items()}
            name = f"game {plain['game_id']!r}" + (f" of tournament {plain['tournament']!r}" if len(keys) == 2 else "")
            return f"{name}, seat {plain['seat']!r}"

        for column in (*keys, "seat", "bot"):
            if frame[column].isna().any():
                row = _plain(frame.index[frame[column].isna()][0])
                raise ParameterError(f"{column} is missing in row {row!r} of the seats table")
        bad = ~np.isfinite(frame["rank"].to_numpy(float, na_value=np.nan))
        if bad.any():
            row = seats.iloc[int(np.nonzero(bad)[0][0])]
            raise ParameterError(f"rank must be a finite number (1 = best), not {_plain(row['rank'])!r}, "
                                 f"in {where(row)}")
        try:
            frame = frame.sort_values([*keys, "rank", "seat"], kind="mergesort", ignore_index=True)
            bots = sorted(set(frame["bot"]))
        except TypeError:
            raise ParameterError("tournament, game_id, seat and bot must each hold values of one type") from None
        twice = frame.duplicated([*keys, "seat"])
        if twice.any():
            raise ParameterError(f"{where(frame[twice].iloc[0])} appears twice in the seats table")
        game = frame.groupby(keys, sort=False).ngroup().to_numpy()
        count = np.bincount(game)
        if (count < 2).any():
            raise ParameterError(f"{where(frame[count[game] < 2].iloc[0]).rpartition(', ')[0]} has one seat; "
                                 "a ranking needs two or more")
        distinct = frame.groupby(game)["bot"].nunique().to_numpy()
        frame = frame[distinct[game] > 1].reset_index(drop=True)  # one bot in every seat: says nothing
        game = np.unique(frame.groupby(keys, sort=False).ngroup().to_numpy(), return_inverse=True)[1]
        count, distinct = np.bincount(game), distinct[distinct > 1]
        start = np.cumsum(count) - count
        position = np.arange(len(frame)) - start[game]
        rank = frame["rank"].to_numpy(float)
        new = (position == 0) | (rank != np.roll(rank, 1))  # a tie group starts
        group = np.cumsum(new) - 1
        size = np.bincount(group)
        if len(size) and size.max() > MAX_TIE:
            at = int(np.argmax(size[group] > MAX_TIE))
            raise ParameterError(f"{where(frame.iloc[at]).rpartition(', ')[0]} has a tie of {size[group[at]]} seats; "
                                 f"at most {MAX_TIE} may tie")
        last = position == count[game] - 1
        return cls(
            bots, pd.Index(bots).get_indexer(frame["bot"]), game, position, rank, start, count, distinct,
            ((position == 0) & (size[group] == 1)).astype(float), (last & (size[group] == 1)).astype(float),
            np.bincount(game, (size[group] > 1).astype(float), len(count)) > 0,
            _choice_sets(np.nonzero(new)[0], (start + count)[game[new]], size),
        )

    def pairs(self):
        """Every two seats of a game with different bots: the one placed first, the other,
        and whether they tied."""
        i, j = np.triu_indices(self.count.max(initial=0), 1)
        first = self.start[:, None] + i[None, :]
        inside = j[None, :] < self.count[:, None]
        first, second = first[inside], (self.start[:, None] + j[None, :])[inside]
        keep = self.bot[first] != self.bot[second]
        first, second = first[keep], second[keep]
        return self.bot[first], self.bot[second], self.rank[first] == self.rank[second]


def _plain(value):
    """A value as Python prints it in a message: 2, not np.int64(2)."""
    return value.item() if isinstance(value, np.generic) else value


def _choice_sets(start: np.ndarray, end: np.ndarray, size: np.ndarray) -> list:
    """The sets every place of every tie group (seats ``start`` to ``start + size``, the
    game's seats ending at ``end``) is chosen from, with their weights: for each proper subset
    A of the group (k members, weight 1 / C(g, k)), the seats from ``start`` on less A.
    Returned as blocks of one width: (seat indices (sets, width), weights)."""
    blocks: dict[int, list] = {}
    for g in np.unique(size):
        sel = size == g
        masks = np.arange(2**g - 1)
        bits = ((masks[:, None] >> np.arange(g)) & 1).astype(bool)
        weight = 1.0 / np.array([math.comb(int(g), int(k)) for k in bits.sum(axis=1)])
        length = end[sel] - start[sel]
        columns = np.arange(length.max())
        out = np.zeros((len(masks), len(columns)), bool)
        out[:, :g] = bits
        valid = ((columns[None, None, :] < length[:, None, None]) & ~out[None]).reshape(-1, len(columns))
        first = np.repeat(start[sel], len(masks))
        weights = np.tile(weight, int(sel.sum()))
        width = valid.sum(axis=1)
        for w in np.unique(width):
            rows = np.nonzero(width == w)[0]
            seats = first[rows, None] + np.nonzero(valid[rows])[1].reshape(-1, w)
            blocks.setdefault(int(w), []).append((seats, weights[rows]))
    return [(np.concatenate([s for s, _ in parts]), np.concatenate([c for _, c in parts]))
            for _, parts in sorted(blocks.items())]


def _outer(a, b, q, p, length) -> np.ndarray:
    """Sum over sets s of q[s, c] * p[s, c'] at index a[s, c] + b[s, c'] (in chunks)."""
    out = np.zeros(length)
    step = max(1, CHUNK // a.shape[1] ** 2)
    for lo in range(0, len(a), step):
        s = slice(lo, lo + step)
        keys = a[s, :, None] + b[s, None, :]
        out += np.bincount(keys.ravel(), (q[s, :, None] * p[s, None, :]).ravel(), length)
    return out


class _Model(bt.Model):
    """The Plackett-Luce log-posterior of the strengths (natural units, Elo * K) with the
    prior of ``results.bradley_terry.Model``, whose Newton solver and inverse it uses (no
    first-move term)."""

    def __init__(self, size, data: _Seats, prior, fixed):
        self.size, self.prior, self.first_move, self.fixed, self.data = size, prior, False, fixed, data
        self.free = np.array([k not in fixed for k in range(size)], dtype=bool)
        self.points = np.bincount(data.bot, minlength=size).astype(float)  # each seat is placed once
        self.blocks = [(data.bot[seats], weight) for seats, weight in data.blocks]

    def choices(self, theta):
        """Per block: each set's log of its weights' sum, and each member's chance to be chosen."""
        for bots, _ in self.blocks:
            x = theta[bots]
            top = x.max(axis=1)
            log_sum = top + np.log(np.exp(x - top[:, None]).sum(axis=1))
            yield log_sum, np.exp(x - log_sum[:, None])

    def log_posterior(self, params) -> float:
        theta = params[: self.size]
        value = self.points @ theta - sum(c @ s for (_, c), (s, _) in zip(self.blocks, self.choices(theta)))
        u = theta - theta.mean()
        return float(value + self.prior * 0.5 * (bt._log_sigmoid(u) + bt._log_sigmoid(-u)).sum())

    def derivatives(self, params):
        """Gradient and information (minus the Hessian) of the log-posterior."""
        theta, size = params[: self.size], self.size
        expected, diagonal, outer = np.zeros(size), np.zeros(size), np.zeros(size * size)
        for (bots, c), (_, p) in zip(self.blocks, self.choices(theta)):
            q = c[:, None] * p
            chosen = np.bincount(bots.ravel(), q.ravel(), size)
            expected += chosen
            if bots.shape[1] > 1:  # a set of one seat: chosen for sure, no information
                diagonal += chosen
                outer += _outer(bots * size, bots, q, p, size * size)
        s = bt._sigmoid(theta - theta.mean())
        pull = self.prior * (0.5 - s)
        information = np.diag(diagonal) - outer.reshape(size, size) + bt.centred_diagonal(self.prior * s * (1 - s))
        return self.points - expected + pull - pull.mean(), information


def _dispersion(model: _Model, theta, inverse) -> tuple[float, int, int]:
    """The dispersion from each game's score vector u (in the bots' coordinates) and
    information H, M the inverse information: the phi that makes sum |u|^2 and sum tr H what
    it predicts (module docstring), with sum (distinct bots - 1 - tr M H) degrees of freedom,
    then pulled toward 1 as ``results.bradley_terry.dispersion`` does. Returns it, its degrees
    of freedom and the games (each its own cluster)."""
    data, size = model.data, model.size
    games, width = data.games, int(data.count.max(initial=0))
    if games == 0:
        return 1.0, bt.PRIOR_DF, 0
    score = np.ones(len(data.bot))  # by seat; seats of one bot in a game add up below
    h = np.zeros(games * width * width)
    for (seats, c), (_, p) in zip(data.blocks, model.choices(theta)):
        q = c[:, None] * p
        score -= np.bincount(seats.ravel(), q.ravel(), len(score))
        corner = data.game[seats] * width * width + data.position[seats] * width
        h += np.bincount((corner + data.position[seats]).ravel(), q.ravel(), len(h))
        h -= _outer(corner, data.position[seats], q, p, len(h))
    h = h.reshape(games, width, width)
    seat_bot = np.full((games, width), size)  # padding: a bot of its own, outside M
    seat_bot[data.game, data.position] = data.bot
    u = np.zeros((games, width))
    u[data.game, data.position] = score
    wide = np.zeros((size + 1, size + 1))
    wide[:size, :size] = inverse[:size, :size]
    m = wide[seat_bot[:, :, None], seat_bot[:, None, :]]
    same = ((seat_bot[:, :, None] == seat_bot[:, None, :]) & (seat_bot[:, :, None] < size)).astype(float)
    squares = np.einsum("gi,gij,gj->g", u, same, u)  # |u|^2 with a bot's seats added up
    trace = (h * same).sum(axis=(1, 2))
    taken = (h @ m @ h * same).sum(axis=(1, 2))
    leverage = float(np.clip((h * m).sum(axis=(1, 2)), 0.0, data.distinct - 1).sum())
    df = max(float((data.distinct - 1).sum()) - leverage, 0.0)
    squares, trace, taken = float(squares.sum()), float(trace.sum()), float(taken.sum())
    if df <= 0 or trace <= 0:
        return 1.0, bt.PRIOR_DF, games
    # E squares = phi (V - taken) and E trace = V - phi taken, V the information at the true
    # strengths: the root of phi^2 taken + phi (trace - taken) = squares, written without cancellation
    root = (trace - taken) + math.sqrt((trace - taken) ** 2 + 4 * max(taken, 0.0) * squares)
    if root <= 0:
        return 1.0, bt.PRIOR_DF, games
    estimate = 2 * squares / root
    return (df * estimate + bt.PRIOR_DF) / (df + bt.PRIOR_DF), int(round(df)) + bt.PRIOR_DF, games
