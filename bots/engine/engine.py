"""``engine``: an executable speaking the arena's text protocol (docs/protocol.md) as a bot,
and ``EngineBot``, what it shares with ``uci``: the process, the handshake, options and
the move loop."""

from __future__ import annotations

import time
import typing

from arena.bot import Decision, ProgramBot
from arena.budget import Counter, uncounted
from arena.errors import BotFault, IllegalMoveError, ParameterError
from arena.execution.channel import plain
from bots.engine.golines import arena_clock, go_line, movetime
from bots.engine.info import BadUtilities, read_info
from bots.engine.launch import command_line, program_name
from bots.engine.process import EngineProcess
from bots.engine.options import EngineOption, check_options, parse_option
from bots.engine.views import legal_texts, view_lines, view_move
from arena.game import Game, texts_need_state
from arena.params import format_value, param
from arena.records import Termination
from arena.view import View

class EngineBot(ProgramBot):
    """What the engine bots share: the command, start-up, options, and one move's exchange.

    Keys of the spec that are not parameters are engine options (``Hash=64``), checked
    against the options the engine declares when it starts.
    """

    cmd: str = param("", "the engine's command line, split as a shell would, no commas (on a shell quote the whole spec)")
    startup: float = param(60.0, "seconds allowed to launch the engine and for its handshake and readyok", min=0.001)
    strict: bool = param(False, "reporting more nodes than the node budget loses the game")

    hello: typing.ClassVar[str] = ""
    """The first line sent, and the answer that ends the handshake."""
    hello_ok: typing.ClassVar[str] = ""
    _parsed: dict | None = None  # move texts read in games of ``_parsed_spec`` (a fast engine's moves and pvs repeat)
    _parsed_spec: str | None = None

    def __init__(self, options=(), **params):
        super().__init__(**params)
        self.options = tuple(options)
        """Engine options as (name, text value) pairs, in the order given."""
        self.engine: EngineProcess | None = None
        self._spec = None  # the full game spec the engine was set up for

    @classmethod
    def parse_params(cls, params: dict[str, str]) -> dict:
        known = {k: v for k, v in params.items() if k in cls.parameters}
        values = super().parse_params(known)
        options = tuple((k, v) for k, v in params.items() if k not in cls.parameters)
        if options:
            values["options"] = options
        return values

    @classmethod
    def short_name(cls, params: dict[str, str]) -> str | None:
        """The engine's program (``stockfish``), or the script an interpreter runs (``engine.py``)."""
        return program_name(params.get("cmd", ""))

    @property
    def spec(self) -> str:
        text = super().spec
        if not self.options:
            return text
        return text + ("," if ":" in text else ":") + ",".join(f"{k}={v}" for k, v in self.options)

    @classmethod
    def describe(cls) -> dict:
        out = super().describe()
        out["description"] += "; other keys set the engine's options (NAME=VALUE)"
        return out

    def argv(self) -> list[str]:
        """The command line, its program found on PATH or in GAME_FOLDERS."""
        return command_line(self.cmd, self.name)

    # set-up

    def suitable(self, game: Game) -> str | None:
        why = self.unhandled(game)
        if why:
            return why
        try:
            engine = self._start(game)
        except BotFault as fault:
            return f"cannot start: {fault.detail}" if fault.verb == "failed to start" else f"{fault.verb}: {fault.detail}"
        except ParameterError as exc:
            return str(exc)
        engine.quit()
        return None

    def check_game(self, game: Game) -> None:
        why = self.suitable(game)
        if why:
            raise ParameterError(f"{self.name} {self.spec!r} {why}")

    def _start(self, game: Game) -> EngineProcess:
        """A fresh engine, handshaken, its options set and ready to play ``game``."""
        limits = self.limits
        self._playing = game.name
        # hidden: an empty folder to work in, removed after the game; simultaneous: no capabilities
        hidden = {"scratch": True} if game.model.hidden else {"confined": True} if game.model.imperfect else {}
        engine = EngineProcess(
            self.argv(),
            memory_bytes=limits.memory_bytes,
            output_bytes=limits.output_bytes,
            write_timeout=limits.watchdog,
            sandbox=limits.sandbox,
            **hidden,
        )
        try:
            deadline = time.perf_counter() + self.startup
            engine.send(self.hello)
            declared: dict[str, EngineOption] = {}
            self._await(engine, self.hello_ok, deadline, "finish its handshake", declared)
            for name, value in check_options(self.options, declared, ""):
                engine.send(f"setoption name {name}" + ("" if value is None else f" value {value}"))
            self.set_game(engine, game)
            engine.send("isready")
            self._await(engine, "readyok", deadline, "answer isready", declared)
        except BaseException:
            engine.close()
            raise
        return engine

    def _await(self, engine: EngineProcess, wanted: str, deadline: float, what: str, declared=None) -> None:
        """Read lines until ``wanted``; options go into ``declared``."""
        while True:
            line = engine.read_line(deadline)
            if line is None:
                raise engine.fault(
                    Termination.TIMEOUT, "timed out", f"did not {what} within {self.startup:g}s (startup); killed"
                )
            if line == wanted:
                return
            head = line.split(" ", 1)[0]
            if head == "option" and declared is not None:
                option = parse_option(line)
                if option is not None:
                    declared[option.name.lower()] = option
                    continue
            if head == "error" and wanted == "readyok":
                raise engine.fault(Termination.CRASH, "crashed", f"cannot play {self._playing}: {plain(line[6:])}")
            self.other_line(engine, line, head)

    def other_line(self, engine: EngineProcess, line: str, head: str) -> None:
        """A line that is not the one awaited: ``id``, ``info string`` and empty lines are fine."""
        if head == "id" or not line.strip():
            return
        if line.startswith("info string"):
            engine.log_line(line)
            return
        raise engine.fault(Termination.PROTOCOL, "broke the protocol", f"unexpected line {line[:80]!r}")

    # a game

    def new_game(self, game: Game, player: int, seed: int) -> None:
        super().new_game(game, player, seed)
        self._game = uncounted(game)
        self._seat = player
        spec = full_spec(game)
        engine = self.engine
        # a sandboxed engine, and any in a game of hidden information, lives for one game: nothing
        # it leaves (or remembers of a deal) reaches the next
        if engine is None or not engine.alive() or spec != self._spec or self.limits.sandbox or game.model.hidden:
            self.close()
            self._spec = spec
            self.engine = engine = self._start(game)
        engine.new_game()
        engine.send(self.newgame_line(player, game.model.players), "isready")
        self._await(engine, "readyok", time.perf_counter() + self.startup, "answer isready")
        self._state = self._game.initial_state()
        if texts_need_state(game):
            self._parsed = None
        elif self._parsed is None or spec != self._parsed_spec:  # else kept: the same texts name the same moves
            self._parsed, self._parsed_spec = {}, spec
        self._moves: list[str] = []
        self._opening: tuple[str, ...] = ()
        self._told = False  # True once the referee tells every move (``moved``)

    def moved(self, text: str) -> None:
        if not self._told:  # the first move of a game the referee plays: the history is the opening and it
            self._moves = list(self._opening)
            self._told = True
        self._moves.append(text)

    def opening(self, moves: tuple[str, ...]) -> None:
        self._state = self._game.play(moves)
        self._moves = list(moves)
        self._opening = tuple(moves)

    def choose(self, game: Game, state, budget: Counter):
        engine = self.engine
        engine.new_move()
        if isinstance(state, View):  # the seat's view: the public history, its observation and legal moves
            lines = view_lines(self._game, state)
        else:
            if not self._told:  # asked outside a game the referee plays (a test, a tool)
                self._follow(state)
            lines = (self.position_line(),)
        limits = budget.budget
        engine.send(*lines, self.go_line(limits))  # one write: the engine wakes once
        seconds = movetime(limits)
        if limits.clock is not None:  # the engine keeps its own time; killed once its clock is run out
            stop_at, deadline = None, budget.started + limits.clock.left + budget.margin
        elif seconds is None:
            stop_at, deadline = None, budget.started + self.limits.watchdog
            if limits.unlimited:  # ``go`` with no limit searches until ``stop``: sent at the watchdog
                stop_at, deadline = deadline, deadline + budget.margin
        else:
            stop_at = budget.started + seconds
            deadline = stop_at + budget.margin
        infos: list[str] = []  # the move's info lines, read at its bestmove
        while True:
            lines = engine.read_lines(deadline if stop_at is None else stop_at)
            if lines is None:
                if stop_at is not None:
                    engine.send("stop")
                    stop_at = None
                    continue
                if limits.clock is not None:
                    raise engine.fault(Termination.CLOCK, "lost on time",
                                       f"no bestmove within the {limits.clock.left:.3f}s on its clock + margin; killed")
                waited = ("the watchdog" if seconds is None
                          else f"its {'time' if limits.time is not None else 'cpu'} budget + margin")
                raise engine.fault(
                    Termination.TIMEOUT, "timed out", f"no bestmove within {deadline - budget.started:.3g}s ({waited}); killed"
                )
            for at, line in enumerate(lines):
                if (line.startswith("info ") or line == "info") and not line.startswith("info string"):  # "info": empty
                    infos.append(line)
                    continue
                head = line.split(" ", 1)[0]
                if head == "bestmove":
                    if at + 1 < len(lines):  # the next move's, if the engine wrote on
                        engine.unread(lines[at + 1 :])
                    engine.check_memory()
                    return self._decision(engine, state, line, self._read_infos(engine, infos), limits)
                else:
                    self.other_line(engine, line, head)

    def _read_infos(self, engine: EngineProcess, lines: list[str]) -> dict:
        """What the move's ``info`` lines say, each field from the latest line with it: read back from
        the last until a decision's fields are known (a fast engine writes several lines a move)."""
        info: dict = {}
        for line in reversed(lines):
            found: dict = {}
            try:
                self.read_info(line, found)
            except BadUtilities as exc:
                raise engine.fault(Termination.PROTOCOL, "broke the protocol", str(exc)) from None
            except (ValueError, IndexError):
                raise engine.fault(Termination.PROTOCOL, "broke the protocol", f"unreadable info {line[:80]!r}") from None
            for key, value in found.items():
                info.setdefault(key, value)
            if _DECIDING <= info.keys():
                break
        return info

    def _decision(self, engine: EngineProcess, state, line: str, info: dict, limits) -> Decision:
        game = self._game
        words = line.split()
        text = words[1] if len(words) > 1 else ""
        if isinstance(state, View):
            return self._view_decision(engine, state, text, info, limits)
        try:
            move = self._read_move(state, text)
        except Exception as exc:
            raise engine.fault(Termination.ILLEGAL_MOVE, "sent an unreadable move",
                               f"{plain(text)!r}: {plain(str(exc))}") from None
        if game.legal_move(state, move) is None:
            shown = ", ".join(game.move_text(state, m) for m in game.legal_moves(state))
            raise engine.fault(
                Termination.ILLEGAL_MOVE, "played an illegal move", f"{plain(text)!r} in {game.name}; legal: {shown}"
            )
        nodes = self._nodes(engine, info, limits)
        if not self._told:
            self._state = game.apply(state, move)
            self._moves.append(game.move_text(state, move))
        return Decision(move, info.get("score"), info.get("depth"), self._pv(state, info.get("pv", ())), nodes)

    def _view_decision(self, engine: EngineProcess, view: View, text: str, info: dict, limits) -> Decision:
        """The move of an engine told a view: one of its legal moves (no principal variation:
        the moves after it cannot be read without the state)."""
        move = view_move(self._game, view, text)
        if move is None:
            raise engine.fault(Termination.ILLEGAL_MOVE, "played an illegal move",
                               f"{plain(text)!r} in {self._game.name}; legal: {', '.join(legal_texts(self._game, view))}")
        return Decision(move, info.get("score"), info.get("depth"), (), self._nodes(engine, info, limits))

    def _nodes(self, engine: EngineProcess, info: dict, limits) -> int:
        """The nodes the engine reported; over a node budget a fault if ``strict``."""
        nodes = info.get("nodes", 0)
        if self.strict and limits.nodes is not None and nodes > limits.nodes:
            raise engine.fault(
                Termination.PROTOCOL,
                "broke go nodes",
                f"reported {nodes:,} nodes for a budget of {limits.nodes:,} (strict)",
            )
        return nodes

    def _read_move(self, state, text: str):
        """The move ``text`` names in ``state`` (``parse_move_in``), read once where texts do not depend on the position."""
        parsed = self._parsed
        if parsed is None:
            return self._game.parse_move_in(state, text)
        move = parsed.get(text)
        if move is None:
            move = self._game.parse_move_in(state, text)
            if len(parsed) < _PARSED:
                parsed[text] = move
        return move

    def _pv(self, state, texts) -> tuple:
        """The principal variation's moves from ``state``, as far as they read as moves."""
        game, pv = self._game, []
        by_position = self._parsed is None  # texts read by position: the positions are made
        for text in texts:
            try:
                move = self._read_move(state, text)
                if by_position:
                    state = game.apply(state, move)
            except Exception:
                break
            pv.append(move)
        return tuple(pv)

    def _follow(self, state) -> None:
        """Append the moves that led from the last known state to ``state`` (up to a ply per seat, two at least)."""
        if state != self._state:
            line = _path(self._game, self._state, state, max(2, self._game.model.players))
            if line is None:
                raise IllegalMoveError(f"{self.name} cannot tell which moves led to the position it was given")
            self._moves += self._game.line_text(self._state, line)
            self._state = state

    def cpu_seconds(self) -> float | None:
        """CPU seconds its engine's process tree has used (the kernel's count), or None without a tree."""
        tree = self.engine.tree if self.engine is not None else None
        return None if tree is None else tree.cpu_seconds()

    def reusable(self) -> bool:
        """True while its engine is running and healthy (a fault kills it): fit for another game."""
        return self.engine is not None and self.engine.alive()

    def close(self) -> None:
        """Ask the engine to quit (it is killed if it does not within a second)."""
        if self.engine is not None:
            self.engine.quit()
            self.engine = None

    # the dialect: overridden by UciBot

    def set_game(self, engine: EngineProcess, game: Game) -> None:
        engine.send(f"game {full_spec(game)}")

    def newgame_line(self, player: int, players: int = 2) -> str:
        """``newgame PLAYER`` in a two-seat game, as ever; ``newgame SEAT of N`` in a game of N seats."""
        return f"newgame {player}" if players == 2 else f"newgame {player} of {players}"

    def position_line(self) -> str:
        return "position start" + (" moves " + " ".join(self._moves) if self._moves else "")

    def go_line(self, limits) -> str:
        return go_line(limits, self.clock_words)

    clock_words = staticmethod(arena_clock)

    def read_info(self, line: str, info: dict) -> None:
        """Read an ``info`` line into ``info`` (bots.engine.info); ValueError if it is garbled,
        BadUtilities if its utilities break the protocol."""
        read_info(line, info, getattr(self, "_game", None), getattr(self, "_seat", 0))


class ArenaEngine(EngineBot):
    """An executable speaking the arena's text protocol: engine:cmd=PATH (see docs/protocol.md)."""

    name = "engine"
    description = "an engine in any language speaking the arena protocol: engine:cmd=./bot --level 3"
    hello, hello_ok = "arena 1", "arenaok"
    # outcomes come as moves of the position line; seats as ``newgame SEAT of N``; in games of hidden
    # information or simultaneous moves, the seat's view (bots.engine.views; docs/protocol.md)
    handles = frozenset({"chance", "players", "nonzero-sum", "simultaneous", "hidden"})


_DECIDING = frozenset(("depth", "nodes", "score", "pv"))  # the fields of info lines a decision takes
_PARSED = 4096  # the most move texts an engine bot keeps read


def _path(game: Game, start, goal, plies: int) -> list | None:
    """The moves that lead from ``start`` to ``goal`` in at most ``plies`` plies, or None."""
    children = [(move, game.apply(start, move)) for move in game.legal_moves(start)]
    for move, after in children:
        if after == goal:
            return [move]
    if plies > 1:
        for move, after in children:
            rest = None if game.is_terminal(after) else _path(game, after, goal, plies - 1)
            if rest is not None:
                return [move] + rest
    return None


def full_spec(game: Game) -> str:
    """The game's spec with every parameter, defaults included, as ``game SPEC`` sends it."""
    params = ",".join(f"{k}={format_value(v)}" for k, v in game.params.items())
    return game.name + (":" + params if params else "")
