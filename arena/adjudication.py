"""Ending a game before its rules do, as fastchess and cutechess-cli adjudicate: a dead draw, a
lost position its engine will not resign, a game too long.

The rules and their defaults are fastchess's (app/src/types/*_adjudication.hpp, and the
trackers of app/src/matchmaking/match/match.hpp):

- draw (``movenumber=M movecount=N score=S``, defaults 0, 1, 0): once M full moves are
  played, N consecutive moves of each side (2N plies) with both bots' scores within S
  centipawns of zero; a capture or pawn move (chess's halfmove clock at 0) starts the
  count again, and so does a move without a score or with a mate score.
- resign (``movecount=N score=S twosided=false``, defaults 1, 0, false): a bot whose own
  score is S centipawns or more below zero (or a mate against it) on N consecutive moves of
  its own loses. ``twosided=true``: 2N consecutive plies in which the side's score is beyond
  S either way (the winner agreeing), the loser the bot whose score is below zero.
- maximum length (``--maxmoves N``): a draw after N moves of each side played by the bots.

Scores are read in centipawns through the curve the ``uci`` bot maps them by
(``arena.scores``), in every game. Draw and resign adjudication are for two-player zero-sum
games; the maximum length for all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.checks import forfeit_utilities
from arena.errors import ParameterError
from arena.records import Termination
from arena.scores import to_centipawns


def _options(text, what: str, keys: dict) -> dict:
    """``key=value`` pairs, space- or comma-separated, of the given kinds (a TOML table too)."""
    if isinstance(text, dict):
        pairs = list(text.items())
    elif isinstance(text, str):
        pairs = []
        for piece in text.replace(",", " ").split():
            key, sep, value = piece.partition("=")
            if not sep:
                raise ParameterError(f"bad {what} option {piece!r}; expected KEY=VALUE with KEY one of {', '.join(keys)}")
            pairs.append((key, value))
    else:
        raise ParameterError(f"bad {what} {text!r}; expected KEY=VALUE pairs such as {_example(what)}")
    out = {}
    for key, value in pairs:
        kind = keys.get(key)
        if kind is None:
            raise ParameterError(f"unknown {what} option {key!r}; options: {', '.join(keys)} (e.g. {_example(what)})")
        try:
            if kind is bool:
                if isinstance(value, str) and value.lower() in ("true", "false"):
                    value = value.lower() == "true"
                if not isinstance(value, bool):
                    raise ValueError
            else:
                value = int(value)
                if value < 0:
                    raise ValueError
        except (TypeError, ValueError):
            expected = "true or false" if kind is bool else "a whole number, 0 or more"
            raise ParameterError(f"bad {what} option {key}={value!r}; expected {expected}") from None
        out[key] = value
    return out


def _example(what: str) -> str:
    return "movenumber=40 movecount=8 score=10" if what == "draw" else "movecount=3 score=600"


@dataclass(frozen=True)
class DrawRule:
    """A draw after ``movecount`` moves a side within ``score`` centipawns, from move ``movenumber``."""

    movenumber: int = 0
    movecount: int = 1
    score: int = 0

    @classmethod
    def parse(cls, text) -> "DrawRule":
        return cls(**_options(text, "draw", {"movenumber": int, "movecount": int, "score": int}))

    def __str__(self):
        return f"movenumber={self.movenumber} movecount={self.movecount} score={self.score}"


@dataclass(frozen=True)
class ResignRule:
    """A loss after ``movecount`` moves with the bot's own score ``score`` centipawns down (or
    2 x ``movecount`` plies beyond it either way, ``twosided``)."""

    movecount: int = 1
    score: int = 0
    twosided: bool = False

    @classmethod
    def parse(cls, text) -> "ResignRule":
        return cls(**_options(text, "resign", {"movecount": int, "score": int, "twosided": bool}))

    def __str__(self):
        return f"movecount={self.movecount} score={self.score}" + (" twosided=true" if self.twosided else "")


@dataclass(frozen=True)
class Adjudication:
    """Which adjudications a tournament applies (None: not that one)."""

    draw: DrawRule | None = None
    resign: ResignRule | None = None
    maxmoves: int | None = None

    def __post_init__(self):
        if self.maxmoves is not None and (type(self.maxmoves) is not int or self.maxmoves < 1):
            raise ParameterError(f"bad maxmoves {self.maxmoves!r}; expected a whole number of moves, at least 1")

    def __bool__(self):
        return self.draw is not None or self.resign is not None or self.maxmoves is not None

    def check(self, game) -> None:
        """ParameterError if the game cannot be adjudicated so."""
        if (self.draw or self.resign) and (game.model.players != 2 or game.model.total != 0):
            raise ParameterError(f"draw and resign adjudication read two bots' scores of a zero-sum game; "
                                 f"{game.name} has {game.model.players} seats" + ("" if game.model.total == 0 else " and is not zero-sum"))

    def judge(self, game, opening_plies: int) -> "Judge":
        return Judge(self, game, opening_plies)


class Judge:
    """One game's adjudication: told every ply, it says when the game is over."""

    __slots__ = ("rules", "game", "plies", "bot_plies", "quiet", "down", "beyond", "low", "high")

    def __init__(self, rules: Adjudication, game, opening_plies: int):
        self.rules, self.game = rules, game
        self.plies = opening_plies  # every ply since the start position
        self.bot_plies = 0  # the bots' plies, which the maximum length counts
        self.quiet = 0  # consecutive plies with both scores within the draw score
        self.down = [0, 0]  # per seat, consecutive own moves with the resign score against it
        self.beyond = 0  # consecutive plies beyond the resign score either way (two-sided)
        self.low, self.high = game.bounds

    def after(self, seat: int, score, state):
        """The verdict after ``seat`` moved with ``score`` (utility units or None) to ``state``:
        ``(termination, utilities, message)``, or None to play on. Not called at a game's end."""
        self.plies += 1
        self.bot_plies += 1
        rules = self.rules
        cp = None if score is None else to_centipawns(score, self.low, self.high)
        if rules.resign is not None:
            verdict = self._resign(seat, cp, rules.resign)
            if verdict is not None:
                return verdict
        if rules.draw is not None:
            draw = rules.draw
            if getattr(state, "halfmove_clock", None) == 0:  # a capture or pawn move
                self.quiet = 0
            if cp is not None and math.isfinite(cp) and abs(cp) <= draw.score:
                self.quiet += 1
            else:
                self.quiet = 0
            number = getattr(state, "fullmove_number", None)
            moves = number - 1 if number is not None else self.plies // 2
            if moves >= draw.movenumber and self.quiet >= 2 * draw.movecount:
                return (Termination.DRAW_ADJUDICATION, (0.0, 0.0),
                        f"draw by adjudication: {draw.movecount} moves a side within {draw.score} centipawns ({draw})")
        if rules.maxmoves is not None and self.bot_plies >= 2 * rules.maxmoves:
            n = self.game.model.players
            return (Termination.MAX_MOVES, (self.game.model.total / n,) * n,
                    f"draw by adjudication: {rules.maxmoves} moves a side played (maxmoves)")
        return None

    def _resign(self, seat: int, cp, rule: ResignRule):
        if rule.twosided:
            self.beyond = self.beyond + 1 if cp is not None and abs(cp) >= rule.score else 0
            lost = self.beyond >= 2 * rule.movecount and cp is not None and cp < 0
        else:
            lost_now = cp is not None and cp < 0 and (cp <= -rule.score or not math.isfinite(cp))
            self.down[seat] = self.down[seat] + 1 if lost_now else 0
            lost = lost_now and self.down[seat] >= rule.movecount  # a loss needs its score below zero, as fastchess's
        if not lost:
            return None
        game = self.game
        return (Termination.RESIGN_ADJUDICATION, forfeit_utilities(game, seat, 2),
                f"{game.player_name(seat)} loses by adjudication: its score {_cp_text(cp)} ({rule})")


def _cp_text(cp: float) -> str:
    return ("-" if cp < 0 else "+") + ("mate" if not math.isfinite(cp) else f"{abs(cp):.0f}cp")
