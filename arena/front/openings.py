"""Openings files: one opening per line, played twice with colours swapped.

A line holds the game's move texts separated by spaces (``3 3 4 2`` in Connect Four,
``e2e4 e7e5`` in chess). A game with a position parameter starts the line with it in
brackets, ``[fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1] e7e5``: the
parameters (``key=value``, comma-separated, as in a game spec) replace the tournament
game's for that opening, and the moves follow from there. Blank lines and lines starting
with ``#`` are skipped. Every line is checked before any game is played: a move that is
not legal, or an opening that ends the game, is an error naming the file and the line.

Chess books in EPD and PGN (``.epd``, ``.pgn``, in any case) are read as engine testers
write them (see ``arena.front.books``); any other file is in the format above.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from arena.errors import ParameterError
from arena.front.books import book_format, read_epd, read_pgn
from arena.game import CHANCE, JOINT, Game
from arena.opening import Opening, OpeningsError, split_text
from arena.params import parse_spec
from arena.plugins import Registry

_CUT = "; a smaller --plies cuts the games before their end"


@dataclass(frozen=True)
class OpeningBook:
    """An openings file's lines, and what identifies it in a stored tournament."""

    path: str
    openings: tuple[Opening, ...]
    digest: str
    """SHA-256 of the file's bytes, first 16 hex digits: a changed file is another tournament."""
    shuffle: bool = False
    format: str = "lines"
    """``lines`` (the format above), ``epd`` or ``pgn``: by the file's extension."""
    plies: int | None = None
    """With a PGN book, the plies kept of each game (None: all)."""

    @classmethod
    def read(cls, path: str, shuffle: bool = False, plies: int | None = None) -> "OpeningBook":
        """The lines of ``path`` (not yet checked against a game); OpeningsError if unreadable or empty."""
        kind = book_format(path)
        if plies is not None and kind != "pgn":
            raise OpeningsError(f"plies is for a PGN openings file (.pgn), not {path!r}")
        if plies is not None and (not isinstance(plies, int) or isinstance(plies, bool) or plies < 0):
            raise OpeningsError(f"plies must be a whole number, 0 or more, got {plies!r}")
        try:
            with open(path, "rb") as f:
                data = f.read()
            text = data.decode("utf-8" if kind == "lines" else "utf-8-sig")
        except FileNotFoundError:
            raise OpeningsError(f"openings file {path!r} not found") from None
        except UnicodeDecodeError as exc:
            if kind != "pgn":
                raise OpeningsError(f"cannot read openings file {path!r}: {exc}") from None
            text = data.decode("latin-1")  # older PGN files: tags in ISO 8859-1, as the PGN standard says
        except OSError as exc:
            raise OpeningsError(f"cannot read openings file {path!r}: {exc}") from None
        if kind == "epd":
            openings = read_epd(path, text)
        elif kind == "pgn":
            openings = read_pgn(path, text, plies)
        else:
            openings = _read_lines(path, text)
        if not openings:
            what = {"lines": "no opening (blank lines and '#' comments are skipped)", "epd": "no position",
                    "pgn": "no game"}[kind]
            raise OpeningsError(f"openings file {path!r} holds {what}")
        return cls(path, tuple(openings), hashlib.sha256(data).hexdigest()[:16], shuffle, kind, plies)

    def identity(self) -> dict:
        out = {"file": self.path, "sha256": self.digest, "shuffle": self.shuffle, "lines": len(self.openings)}
        if self.format != "lines":  # absent for the own format, so tournaments stored before keep their identity
            out["format"] = self.format
        if self.format == "pgn":
            out["plies"] = self.plies
        return out

    def check(self, registry: Registry, game: str) -> None:
        """Every line's parameters and moves are legal in ``game`` and leave it unfinished; else
        OpeningsError naming the first such line. Lines are played in sorted order, each from the
        longest start it shares with the line before (books repeat their first moves)."""
        if self.format != "lines":
            self._check_chess(game)
        first: tuple[int, str] | None = None
        params, rules, line, states = None, None, (), []  # states: (ply, state) along ``line``, from its start
        for opening in sorted(self.openings, key=lambda o: (o.params, o.moves)):
            try:
                if rules is None or opening.params != params:
                    params, rules = opening.params, None
                    rules = registry.game(opening.game_spec(game))
                    states = [(0, rules.initial_state())]
                shared = _shared(line, opening.moves)
                while states[-1][0] > shared:
                    states.pop()
                line = opening.moves
                problem = self._play_on(rules, line, states) or self._unfinished(rules, states[-1][1], opening)
            except (ParameterError, ValueError, KeyError) as exc:
                problem = _message(exc) if rules is None else self._replayed(rules, opening)
                line = ()
            if problem and (first is None or opening.line < first[0]):
                first = (opening.line, problem)
        if first is not None:
            raise OpeningsError(f"openings file {self.path!r}, line {first[0]}: {first[1]}")

    def _play_on(self, rules: Game, moves: tuple[str, ...], states: list) -> str:
        """Play ``moves`` on from the last of ``states`` ((ply, state) pairs), adding a pair
        per turn; what stops them before their end, or ""."""
        ply, state = states[-1]
        if self.format != "pgn":
            for _, parts, state in rules.turns(moves[ply:], state):
                ply += len(parts)
                states.append((ply, state))
            return ""
        # read_pgn had python-chess parse each move on its board: legal in chess while the game is on
        for text in moves[ply:]:
            if rules.is_terminal(state):
                return (f"the game ends at ply {ply} of the opening ({rules.result_text(state)}), before its move "
                        f"{text!r}{_CUT}")
            state = rules.apply(state, rules.parse_move_in(state, text))
            ply += 1
            states.append((ply, state))
        return ""

    def _unfinished(self, rules: Game, state, opening: Opening) -> str:
        """What is wrong with ``state`` as where an opening leaves the game: "" if unfinished."""
        if not rules.is_terminal(state):
            return ""
        return (f"the opening {opening.text()!r} ends the game ({rules.result_text(state)}); "
                f"an opening must leave the bots something to play{_CUT if self.format == 'pgn' else ''}")

    def _replayed(self, rules: Game, opening: Opening) -> str:
        """The error of ``opening``'s moves played from the start (its message names their plies)."""
        try:
            return self._unfinished(rules, rules.play(opening.moves), opening)
        except (ParameterError, ValueError, KeyError) as exc:
            return _message(exc)

    def _check_chess(self, game: str) -> None:
        """An EPD or PGN book opens chess, and sets each game's position: the game spec sets none."""
        try:
            name, values = parse_spec(game)
        except ParameterError as exc:
            raise OpeningsError(str(exc)) from None
        if name != "chess":
            raise OpeningsError(f"openings file {self.path!r} is a chess book ({self.format.upper()}); "
                                f"the game is {name!r}: EPD and PGN books are for chess only")
        if "fen" in values:
            raise OpeningsError(f"openings file {self.path!r} sets each game's position: drop fen= from the "
                                f"game {game!r}")

    def rounds(self, count: int, seed: int) -> list[Opening]:
        """The openings of rounds 0 to ``count - 1``: the file's order (shuffled by ``seed`` if asked), repeated as needed."""
        order = list(self.openings)
        if self.shuffle:
            random.Random(f"book/{seed}").shuffle(order)
        return [order[r % len(order)] for r in range(count)]


def _shared(one: tuple, other: tuple) -> int:
    """How many first moves ``one`` and ``other`` have in common."""
    return next((i for i, (a, b) in enumerate(zip(one, other)) if a != b), min(len(one), len(other)))


def _message(exc: Exception) -> str:
    return str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)


def _read_lines(path: str, text: str) -> list[Opening]:
    """The openings of a file in the format above."""
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            opening = split_text(line)
        except OpeningsError as exc:
            raise OpeningsError(f"openings file {path!r}, line {number}: {exc}") from None
        openings.append(Opening(opening.moves, opening.params, number))
    return openings


def make_openings(game: Game, count: int, plies: int, seed: int, attempts: int = 50) -> list[tuple[str, ...]]:
    """``count`` openings of ``plies`` random legal moves that never end the game.

    Openings are kept distinct while fresh ones can be found in a few attempts.
    """
    if plies == 0:
        return [()] * count
    rng = random.Random(f"openings/{seed}")
    out: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for _ in range(count):
        opening = ()
        for _ in range(attempts):
            opening = _random_opening(game, plies, rng)
            if opening not in seen:
                break
        seen.add(opening)
        out.append(opening)
    return out


def _random_opening(game: Game, plies: int, rng: random.Random, tries: int = 100) -> tuple[str, ...]:
    model = getattr(game, "model", None)  # stand-ins for games in tests have no model
    chance, hidden = getattr(model, "chance", False), getattr(model, "hidden", False)
    joint = getattr(model, "simultaneous", False)
    for _ in range(tries):
        state, moves = game.initial_state(), []
        while len(moves) < plies:
            mover = game.to_move(state) if chance or joint else 0
            if hidden and mover == CHANCE:
                return tuple(moves)  # a deal comes from the run's secret dice, never from the seed
            if joint and mover == JOINT:  # a random move for each acting seat
                choice = tuple(rng.choice(list(game.legal_moves_for(state, s))) for s in game.acting(state))
                after = game.apply_joint(state, choice)
                if game.is_terminal(after):
                    break
                moves.extend(game.move_text(state, m) for m in choice)
                state = after
                continue
            if chance and mover == CHANCE:  # outcomes drawn by their probabilities
                drawn = [(o, float(p)) for o, p in game.chance_outcomes(state) if not game.is_terminal(game.apply(state, o))]
                options, weights = [o for o, _ in drawn], [p for _, p in drawn]
            else:
                options = [m for m in game.legal_moves(state) if not game.is_terminal(game.apply(state, m))]
                weights = None
            if not options:
                break  # a dead end: every move ends the game; start again
            move = rng.choices(options, weights)[0] if weights else rng.choice(options)
            moves.append(game.move_text(state, move))
            state = game.apply(state, move)
        else:
            return tuple(moves)
    raise ParameterError(f"cannot find {plies} opening plies in {game.name} that do not end the game; use fewer")
