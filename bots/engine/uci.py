"""``uci``: a UCI chess engine (Stockfish) as a bot, for the ``chess`` game."""

from __future__ import annotations

from arena.game import Game
from arena.scores import from_centipawns
from bots.engine.engine import EngineBot
from bots.engine.golines import uci_clock
from bots.engine.process import EngineProcess


class UciBot(EngineBot):
    """A UCI chess engine for the ``chess`` game: uci:cmd=stockfish,Hash=64,Threads=1."""

    name = "uci"
    description = "a UCI chess engine (Stockfish) for chess: uci:cmd=stockfish,Hash=64"
    hello, hello_ok = "uci", "uciok"

    def suitable(self, game: Game) -> str | None:
        if game.name != "chess":
            return f"UCI engines play chess only, not {game.name!r}"
        return super().suitable(game)

    def set_game(self, engine: EngineProcess, game: Game) -> None:
        self._fen = None if game.fen == game.parameters["fen"].default else game.fen

    def newgame_line(self, player: int, players: int = 2) -> str:
        return "ucinewgame"  # chess: two seats, the side to move read from the position

    def position_line(self) -> str:
        start = "position startpos" if self._fen is None else f"position fen {self._fen}"
        return start + (" moves " + " ".join(self._moves) if self._moves else "")

    clock_words = staticmethod(uci_clock)

    def other_line(self, engine: EngineProcess, line: str, head: str) -> None:
        """UCI asks a GUI to ignore what it does not know; ``info string`` goes to the log."""
        if line.startswith("info string"):
            engine.log_line(line)

    def read_info(self, line: str, info: dict) -> None:
        words = line.split()
        end = len(words)
        if "pv" in words:  # the moves after it are no fields
            end = words.index("pv")
            info["pv"] = words[end + 1 :]
        # each field by list.index (a scan in C: a line is read at every move of a fast engine)
        for key in ("depth", "nodes"):
            if key in words:
                at = words.index(key)
                if at < end and at + 1 < len(words):
                    info[key] = int(words[at + 1])
        if "score" in words:
            at = words.index("score")
            if at < end and at + 2 < len(words):
                info["score"] = self.score(words[at + 1], int(words[at + 2]))

    def score(self, kind: str, value: int) -> float:
        """A UCI score in the game's utility units: a mate is the bound; centipawns go through
        Lichess's win-probability curve, scaled to the bounds (strictly inside them)."""
        low, high = self._game.bounds
        if kind == "mate":
            return high if value > 0 else low
        if kind != "cp":
            raise ValueError(kind)
        return from_centipawns(value, low, high)
