"""The engine bot's side of the arena protocol, line by line (bots.engine.engine): its spec and
options, the command line, the handshake and set-up (``_start``, ``_await``), a new game, the
move exchange (``choose``: deadlines, ``stop``, ``info`` and ``bestmove``), following a game the
referee does not tell it, and the helpers ``movetime``, ``_path`` and ``full_spec``.

Almost every test drives the bot against a fake engine process (``FakeEngine``: it records the
lines sent and answers each from a script) so the exchange, the deadlines and the faults are
exact and fast; one test plays a whole game against the Python example engine
(examples/engines/python/engine.py). What an engine sends is not trusted: garbled ``info``
lines, unreadable and illegal moves, node counts over the budget, huge numbers and lines are
each pinned to the fault they give (tests/test_engines.py has the faults of real processes).
"""

import random
import shutil
import sys
from collections import deque
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.bot import Decision
from arena.budget import Budget, Counter, counted
from arena.errors import BotFault, IllegalMoveError, ParameterError
from arena.game import Game
from arena.limits import Limits
from arena.records import Termination
from bots.engine import engine as engine_module
from bots.engine.engine import ArenaEngine, EngineBot, _path, full_spec
from bots.engine.golines import movetime
from games.nim import Nim
from games.tictactoe import TicTacToe

PYTHON = sys.executable
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "engines" / "python" / "engine.py"
TTT = TicTacToe()
SPEC = "tictactoe:rows=3,columns=3,k=3"


class FakeEngine:
    """An engine process: the lines sent to it, and scripted answers, by the first word of a line sent."""

    def __init__(self, replies=None, alive=True, tree=None):
        self.replies = {"isready": ["readyok"], **(replies or {})}
        self.queue = deque()
        self.sent, self.deadlines, self.events = [], [], []
        self._alive = alive
        self.waits = 0
        self.tree = tree

    def send(self, *lines):
        for line in lines:
            self.sent.append(line)
            answer = self.replies.get(line.split(" ", 1)[0], [])
            self.queue.extend(answer(line) if callable(answer) else answer)

    def read_line(self, deadline):
        """The next scripted line; None (the deadline passed) when there is none, a few times at most."""
        self.deadlines.append(deadline)
        if not self.queue:
            self.waits += 1
            assert self.waits <= 3, "read on and on past every deadline"
        line = self.queue.popleft() if self.queue else None
        if isinstance(line, BaseException):
            raise line
        return line

    def read_lines(self, deadline):
        """The next scripted line, alone: a bot reads lines one by one or in batches alike."""
        line = self.read_line(deadline)
        return None if line is None else [line]

    def unread(self, lines):
        self.queue.extendleft(reversed(lines))

    def fault(self, termination, verb, detail):
        self.events.append("killed")
        return BotFault(termination, verb, detail)

    def log_line(self, text):
        self.events.append(("log", text))

    def new_game(self):
        self.events.append("new_game")

    def new_move(self):
        self.events.append("new_move")

    def check_memory(self):
        self.events.append("check_memory")

    def alive(self):
        return self._alive

    def quit(self):
        self.events.append("quit")
        self._alive = False

    def close(self):
        self.events.append("close")


HELLO = {"arena": ["id name fake", "arenaok"], "isready": ["readyok"]}


class Launcher:
    """Stands in for EngineProcess: each start makes the next FakeEngine (or raises)."""

    def __init__(self, monkeypatch, *engines):
        self.engines = list(engines)
        self.started = []  # (argv, keywords) of each start
        monkeypatch.setattr(engine_module, "EngineProcess", self)

    def __call__(self, argv, **kwargs):
        self.started.append((argv, kwargs))
        made = self.engines.pop(0)
        if isinstance(made, BaseException):
            raise made
        return made


def bot(cmd=f"{PYTHON} engine.py", limits=None, options=(), **params):
    out = ArenaEngine(options=options, cmd=cmd, **params)
    if limits is not None:
        out.limits = limits
    return out


def playing(fake, game=TTT, player=0, **params):
    """A bot in a game against ``fake`` (already running, healthy and set up for ``game``)."""
    b = bot(**params)
    b.engine = fake
    b._spec = full_spec(game)
    b.new_game(game, player, 1)
    fake.sent.clear()
    fake.deadlines.clear()
    fake.events.clear()
    return b


def budget(started=100.0, margin=0.1, **limits):
    """What ``choose`` reads of a Counter: its budget, when the move started, and the referee's margin."""
    return SimpleNamespace(budget=Budget(**limits), started=started, margin=margin)


class Cells(Game):
    """Four cells taken in turn; a move is written by its place among the free cells ("c0" is the
    first free one), so its text depends on the position; "#N" reads as cell N, free or not, and
    any other text is unreadable."""

    name = "cells"
    description = "a test game whose move text depends on the position"

    def initial_state(self):
        return ()

    def to_move(self, state):
        return len(state) % 2

    def legal_moves(self, state):
        return [c for c in range(4) if c not in state]

    def apply(self, state, move):
        return state + (move,)

    def is_terminal(self, state):
        return len(state) == 4

    def utility(self, state, player):
        return 0

    def format_move(self, move):
        return f"#{move}"

    def move_text(self, state, move):
        return f"c{self.legal_moves(state).index(move)}"

    def parse_move_in(self, state, text):
        if text.startswith("#"):
            return int(text[1:])
        if not text.startswith("c"):
            raise ValueError(f"not a cell: {text}")
        return self.legal_moves(state)[int(text[1:])]


class Branches(Game):
    """Moves 0, 1, 2 from every state; a state whose first move was 0 is over, though it lists moves."""

    name = "branches"
    description = "a test game whose over states still list moves"

    def initial_state(self):
        return ()

    def to_move(self, state):
        return len(state) % 2

    def legal_moves(self, state):
        return [0, 1, 2]

    def apply(self, state, move):
        return state + (move,)

    def is_terminal(self, state):
        return state[:1] == (0,)

    def utility(self, state, player):
        return 0


# helpers of the module


def test_a_moves_seconds_are_its_time_budget_else_its_cpu_budget_else_none():
    assert movetime(Budget(time=0.5)) == 0.5
    assert movetime(Budget(cpu=0.25)) == 0.25
    assert movetime(Budget(time=0.5, cpu=0.25)) == 0.5
    assert movetime(Budget(nodes=3, depth=2)) is None and movetime(Budget()) is None


def test_the_full_spec_carries_every_parameter_as_spec_text():
    assert full_spec(TTT) == SPEC
    assert full_spec(TicTacToe(rows=4, k=4)) == "tictactoe:rows=4,columns=3,k=4"
    assert full_spec(Nim(heaps=(1, 2), misere=True)).startswith("nim:heaps=1,2,misere=true")
    assert full_spec(SimpleNamespace(name="bare", params={})) == "bare"


def test_a_path_of_one_or_two_plies_is_found_and_a_longer_one_is_not():
    start = TTT.initial_state()
    one = TTT.apply(start, 4)
    two = TTT.apply(one, 0)
    three = TTT.apply(two, 8)
    assert _path(TTT, start, one, 2) == [4] and _path(TTT, start, one, 1) == [4]
    assert _path(TTT, start, two, 2) == [4, 0]
    assert _path(TTT, start, two, 1) is None
    assert _path(TTT, start, three, 2) is None
    assert _path(TTT, start, three, 3) == [4, 0, 8]
    assert _path(TTT, one, one, 2) is None  # no move leads to where it starts


def test_a_path_takes_the_first_move_in_order_and_one_ply_before_two():
    game = Branches()
    assert _path(game, (), (1,), 2) == [1]
    assert _path(game, (), (2, 1), 2) == [2, 1]
    assert _path(game, (1,), (1, 2), 2) == [2]


def test_a_path_never_goes_on_from_a_position_that_is_over():
    game = Branches()
    assert _path(game, (), (0, 1), 2) is None  # (0,) is over, though it lists moves
    assert _path(game, (), (1, 0), 2) == [1, 0]
    assert _path(game, (), (0,), 2) == [0]  # reaching it is fine


# the spec, options and the command line


def test_keys_that_are_not_parameters_are_engine_options_in_the_order_given():
    values = ArenaEngine.parse_params({"cmd": "./e", "Hash": "64", "strict": "true", "Skill Level": "3"})
    assert values == {"cmd": "./e", "strict": True, "options": (("Hash", "64"), ("Skill Level", "3"))}
    assert ArenaEngine.parse_params({"cmd": "./e", "startup": "2"}) == {"cmd": "./e", "startup": 2.0}
    assert ArenaEngine.parse_params({}) == {}
    with pytest.raises(ParameterError, match="startup"):
        ArenaEngine.parse_params({"startup": "0"})


def test_the_spec_adds_the_options_after_the_parameters():
    assert bot("./e", options=[("Hash", "64"), ("Skill Level", "3")]).spec == "engine:cmd=./e,Hash=64,Skill Level=3"
    assert ArenaEngine(options=[("Hash", "1")]).spec == "engine:Hash=1"
    assert bot("./e").spec == "engine:cmd=./e" and ArenaEngine().spec == "engine"
    assert bot("./e").options == ()


def test_the_description_says_other_keys_are_options():
    out = ArenaEngine.describe()
    assert out["description"] == (
        "an engine in any language speaking the arena protocol: engine:cmd=./bot --level 3; "
        "other keys set the engine's options (NAME=VALUE)")
    assert out["name"] == "engine" and [p["name"] for p in out["parameters"]] == ["cmd", "startup", "strict"]


def test_the_arena_engine_speaks_the_arena_protocol():
    assert (ArenaEngine.name, ArenaEngine.hello, ArenaEngine.hello_ok) == ("engine", "arena 1", "arenaok")
    assert ArenaEngine.external is True and ArenaEngine.follows_moves is True
    assert issubclass(ArenaEngine, EngineBot) and EngineBot.hello == "" and EngineBot.hello_ok == ""
    b = bot()
    assert b.engine is None and b._spec is None and b.startup == 60.0 and b.strict is False


@pytest.mark.parametrize("cmd, short", [
    ("stockfish", "stockfish"),
    ("/usr/games/stockfish --uci", "stockfish"),
    ("./engine --fast", "engine"),
    ("python3 -u bots/my_bot.py --level 3", "my_bot.py"),
    ("python3.11 engine.py", "engine.py"),
    ("python.exe C:engine.py", "C:engine.py"),
    ("/usr/bin/node dist/main.js", "main.js"),
    ("java -jar build/Engine.jar", "Engine.jar"),
    ("bash -x run.sh", "run.sh"),
    ("sh", "sh"),
    ("python3 -u", "python3"),  # no script: the interpreter
    ("pythonista script.py", "pythonista"),  # not an interpreter the pattern knows
    ("mypython script.py", "mypython"),
    ("'my engine' -x", "my engine"),
    ("", None),
    ("   ", None),
    ("'unclosed", None),
    ("/usr/games/", None),
])
def test_an_engine_is_shown_by_its_program_or_the_script_an_interpreter_runs(cmd, short):
    assert ArenaEngine.short_name({"cmd": cmd}) == short


def test_an_engine_without_a_command_has_no_short_name():
    assert ArenaEngine.short_name({}) is None and ArenaEngine.short_name({"Hash": "1"}) is None


def test_the_command_line_is_split_as_a_shell_would_and_its_program_found():
    assert bot(f"{PYTHON} 'my engine.py' -x").argv() == [PYTHON, "my engine.py", "-x"]
    assert bot("sh -c 'exit 0'").argv() == [shutil.which("sh"), "-c", "exit 0"]


def test_a_command_that_does_not_split_or_is_empty_is_a_parameter_error():
    with pytest.raises(ParameterError) as caught:
        bot("./e 'x").argv()
    assert str(caught.value) == "bad cmd \"./e 'x\" for bot 'engine': No closing quotation"
    with pytest.raises(ParameterError) as caught:
        bot("  ").argv()
    assert str(caught.value) == "bot 'engine' needs the engine's command: engine:cmd=PATH"
    with pytest.raises(ParameterError, match="^bot 'engine' needs the engine's command: engine:cmd=PATH$"):
        ArenaEngine().argv()


# set-up: the handshake, options and the game


def test_set_up_starts_the_engine_under_the_limits_shakes_hands_sets_options_and_the_game(monkeypatch):
    options = ["option name Seed type spin default 0 min 0 max 99",
               "option name Clear Hash type button",
               "option name Style type combo default Normal var Solid var Normal"]
    fake = FakeEngine({"arena": ["id name fake", "", *options, "info string hello", "arenaok"], "isready": ["readyok"]})
    launched = Launcher(monkeypatch, fake)
    limits = Limits(memory_limit=256, output_limit=7, watchdog=3.5, sandbox=True, time_margin=0.2)
    b = bot(limits=limits, options=[("seed", " 07 "), ("CLEAR HASH", ""), ("style", "solid")], startup=2.5)
    before = engine_module.time.perf_counter()
    assert b.suitable(TTT) is None
    after = engine_module.time.perf_counter()
    assert launched.started == [([PYTHON, "engine.py"], {"memory_bytes": 256 << 20, "output_bytes": 7 << 10,
                                                         "write_timeout": 3.5, "sandbox": True})]
    assert fake.sent == ["arena 1", "setoption name Seed value 7", "setoption name Clear Hash",
                         "setoption name Style value Solid", f"game {SPEC}", "isready"]
    assert fake.events == [("log", "info string hello"), "quit"]  # quit, once checked
    assert len(fake.deadlines) == 8 and len(set(fake.deadlines)) == 1  # one deadline for the whole start
    assert before + 2.5 <= fake.deadlines[0] <= after + 2.5
    assert b._playing == "tictactoe"


def test_an_engine_without_a_memory_limit_is_started_without_one(monkeypatch):
    launched = Launcher(monkeypatch, FakeEngine(HELLO))
    assert bot(limits=Limits(memory_limit=None)).suitable(TTT) is None
    assert launched.started[0][1] == {"memory_bytes": None, "output_bytes": 1 << 20, "write_timeout": 60.0,
                                      "sandbox": False}


def test_options_may_also_be_declared_while_answering_isready(monkeypatch):
    fake = FakeEngine({"arena": ["arenaok"], "isready": ["option name Late type check default false", "readyok"]})
    Launcher(monkeypatch, fake)
    assert bot().suitable(TTT) is None and "killed" not in fake.events


def test_an_option_the_engine_did_not_declare_is_refused_and_the_engine_closed(monkeypatch):
    fake = FakeEngine({"arena": ["option name Seed type spin default 0 min 0 max 9", "arenaok"]})
    Launcher(monkeypatch, fake)
    b = bot(options=[("Depth", "3")])
    assert b.suitable(TTT) == "has no option 'Depth'; its options: Seed"
    assert fake.events == ["close"] and fake.sent == ["arena 1"]
    Launcher(monkeypatch, FakeEngine({"arena": ["arenaok"]}))
    with pytest.raises(ParameterError) as caught:
        b.check_game(TTT)
    assert str(caught.value) == f"engine 'engine:cmd={PYTHON} engine.py,Depth=3' has no option 'Depth'; its options: none"


def test_an_engine_that_cannot_play_the_game_says_error_and_crashes_at_set_up(monkeypatch):
    fake = FakeEngine({"arena": ["arenaok"], "isready": ["info string thinking", "error I play connect4 only"]})
    Launcher(monkeypatch, fake)
    b = bot()
    assert b.suitable(Nim()) == "crashed: cannot play nim: I play connect4 only"
    assert fake.events == [("log", "info string thinking"), "killed", "close"]
    Launcher(monkeypatch, FakeEngine({"arena": ["arenaok"], "isready": ["error"]}))
    assert b.suitable(TTT) == "crashed: cannot play tictactoe: "
    Launcher(monkeypatch, FakeEngine({"arena": ["arenaok"], "isready": ["error no"]}))
    with pytest.raises(ParameterError) as caught:
        b.check_game(TTT)
    assert str(caught.value) == f"engine 'engine:cmd={PYTHON} engine.py' crashed: cannot play tictactoe: no"


def test_an_error_during_the_handshake_breaks_the_protocol(monkeypatch):
    Launcher(monkeypatch, FakeEngine({"arena": ["error nope"]}))
    assert bot().suitable(TTT) == "broke the protocol: unexpected line 'error nope'"


@pytest.mark.parametrize("line", ["option name", "option type spin", "option name X type colour",
                                  "readyok now", "arenaok!", "bestmove a1", "idle", "info depth 1"])
def test_any_other_line_during_set_up_breaks_the_protocol(monkeypatch, line):
    fake = FakeEngine({"arena": [line, "arenaok"], "isready": ["readyok"]})
    Launcher(monkeypatch, fake)
    assert bot().suitable(TTT) == f"broke the protocol: unexpected line {line!r}"
    assert fake.events == ["killed", "close"]


def test_an_engine_that_does_not_finish_its_handshake_or_answer_isready_times_out(monkeypatch):
    Launcher(monkeypatch, FakeEngine({"arena": ["id name slow"]}))
    assert bot(startup=0.5).suitable(TTT) == "timed out: did not finish its handshake within 0.5s (startup); killed"
    Launcher(monkeypatch, FakeEngine({"arena": ["arenaok"], "isready": []}))
    assert bot().suitable(TTT) == "timed out: did not answer isready within 60s (startup); killed"


def test_an_engine_that_fails_to_start_or_faults_otherwise_is_one_line(monkeypatch):
    Launcher(monkeypatch, BotFault(Termination.CRASH, "failed to start", "no such file './e'"))
    assert bot("./e").suitable(TTT) == "cannot start: no such file './e'"
    Launcher(monkeypatch, BotFault(Termination.OUTPUT, "wrote too much", "9 bytes"))
    assert bot("./e").suitable(TTT) == "wrote too much: 9 bytes"
    Launcher(monkeypatch)
    assert bot("").suitable(TTT) == "bot 'engine' needs the engine's command: engine:cmd=PATH"


def test_a_healthy_engine_passes_the_game_check(monkeypatch):
    fake = FakeEngine(HELLO)
    Launcher(monkeypatch, fake)
    assert bot().check_game(TTT) is None and fake.events == ["quit"]


def test_an_interrupted_start_closes_the_engine_and_goes_on(monkeypatch):
    fake = FakeEngine({"arena": [KeyboardInterrupt()]})
    Launcher(monkeypatch, fake)
    with pytest.raises(KeyboardInterrupt):
        bot().suitable(TTT)
    assert fake.events == ["close"]


# a new game


def test_the_first_game_starts_the_engine_then_says_newgame_and_waits_for_readyok(monkeypatch):
    fake = FakeEngine(HELLO)
    launched = Launcher(monkeypatch, fake)
    b = bot(startup=4.0)
    before = engine_module.time.perf_counter()
    b.new_game(TTT, 1, 7)
    after = engine_module.time.perf_counter()
    assert b.engine is fake and len(launched.started) == 1 and b._spec == SPEC
    assert fake.sent == ["arena 1", f"game {SPEC}", "isready", "newgame 1", "isready"]
    assert fake.events == ["new_game"] and b.reusable() is True
    assert before + 4.0 <= fake.deadlines[-1] <= after + 4.0
    assert b.position_line() == "position start" and b._state == TTT.initial_state()
    assert b.rng.random() == random.Random(7).random()  # the game's seed


def test_a_healthy_engine_plays_the_next_game_of_the_same_spec(monkeypatch):
    fake = FakeEngine(HELLO)
    launched = Launcher(monkeypatch, fake)
    b = bot()
    b.new_game(TTT, 0, 1)
    b.moved("b2")
    b.new_game(TTT, 1, 2)
    assert len(launched.started) == 1 and fake.sent[-4:] == ["newgame 0", "isready", "newgame 1", "isready"]
    assert b.position_line() == "position start" and fake.events == ["new_game", "new_game"]


def test_a_move_text_is_read_once_in_every_game_of_a_spec_and_again_for_another_spec(monkeypatch):
    read = []

    class Counted(TicTacToe):  # counts the texts read as moves
        def parse_move(self, text):
            read.append(text)
            return super().parse_move(text)

    answers = {**HELLO, "go": ["info depth 2 pv b2 a1", "bestmove b2"]}
    Launcher(monkeypatch, FakeEngine(answers), FakeEngine(answers))
    b, game = bot(), Counted()
    for seed in (1, 2, 3):  # one engine plays the three games
        b.new_game(game, 0, seed)
        assert b.choose(game, game.initial_state(), budget(nodes=5)) == Decision(4, None, 2, (4, 0), 0)
    assert read == ["b2", "a1"]  # the bestmove, then the pv's new move; never again
    wider = Counted(rows=4)  # another spec (a fresh engine): its texts could name other moves
    b.new_game(wider, 0, 4)
    assert b.choose(wider, wider.initial_state(), budget(nodes=5)).move == wider.parse_move("b2")
    assert read == ["b2", "a1", "b2", "a1", "b2"]


@pytest.mark.parametrize("change", ["spec", "dead", "sandbox"])
def test_a_fresh_engine_is_started_for_another_spec_after_a_death_and_for_every_sandboxed_game(monkeypatch, change):
    first, second = FakeEngine(HELLO), FakeEngine(HELLO)
    launched = Launcher(monkeypatch, first, second)
    b = bot(limits=Limits(sandbox=change == "sandbox"))
    b.new_game(TTT, 0, 1)
    game = TicTacToe(rows=4) if change == "spec" else TTT
    if change == "dead":
        first._alive = False
        assert b.reusable() is False
    b.new_game(game, 0, 2)
    assert b.engine is second and len(launched.started) == 2 and b._spec == full_spec(game)
    assert first.events[-1] == "quit" and second.sent == ["arena 1", f"game {full_spec(game)}", "isready", "newgame 0",
                                                          "isready"]


def test_a_new_game_must_be_answered_with_readyok_and_no_option(monkeypatch):
    fake = FakeEngine({"arena": ["arenaok"]})
    Launcher(monkeypatch, fake)
    b = bot()
    b.new_game(TTT, 0, 1)
    fake.replies["isready"] = ["option name Seed type spin default 0 min 0 max 9"]
    with pytest.raises(BotFault) as caught:
        b.new_game(TTT, 0, 2)
    assert caught.value.termination is Termination.PROTOCOL
    assert caught.value.detail == "unexpected line 'option name Seed type spin default 0 min 0 max 9'"
    fake.replies["isready"] = []
    with pytest.raises(BotFault) as caught:
        b.new_game(TTT, 0, 3)
    assert caught.value.termination is Termination.TIMEOUT
    assert str(caught.value) == "timed out: did not answer isready within 60s (startup); killed"
    fake.replies["isready"] = ["error cannot"]
    with pytest.raises(BotFault) as caught:
        b.new_game(TTT, 0, 4)
    assert caught.value.termination is Termination.CRASH and caught.value.detail == "cannot play tictactoe: cannot"


# the moves: position lines


def test_the_position_is_the_start_and_every_move_since():
    fake = FakeEngine(HELLO)
    b = playing(fake)
    assert b.position_line() == "position start"
    b.moved("b2")
    b.moved("a1")
    assert b.position_line() == "position start moves b2 a1"


def test_an_opening_is_the_start_of_the_history_and_the_moves_told_follow_it():
    b = playing(FakeEngine(HELLO))
    b.opening(("b2", "a1"))
    assert b.position_line() == "position start moves b2 a1" and b._state == TTT.play(["b2", "a1"])
    b.moved("c3")
    b.moved("a3")
    assert b.position_line() == "position start moves b2 a1 c3 a3"


def test_the_dialect_lines_of_the_arena_protocol():
    b = bot()
    fake = FakeEngine()
    b.set_game(fake, TicTacToe(columns=4))
    assert fake.sent == ["game tictactoe:rows=3,columns=4,k=3"]
    assert b.newgame_line(0) == "newgame 0" and b.newgame_line(1) == "newgame 1"


@pytest.mark.parametrize("limits, line", [
    (Budget(), "go"),
    (Budget(nodes=5), "go nodes 5"),
    (Budget(depth=3), "go depth 3"),
    (Budget(time=0.5), "go movetime 500"),
    (Budget(time=1.0), "go movetime 1000"),
    (Budget(time=2.25), "go movetime 2250"),
    (Budget(time=0.001), "go movetime 1"),
    (Budget(time=0.002), "go movetime 2"),
    (Budget(time=0.0004), "go movetime 1"),  # never 0: that is no limit to some engines
    (Budget(time=0.0019), "go movetime 1"),
    (Budget(cpu=0.25), "go movetime 250"),
    (Budget(time=0.5, cpu=2.0), "go movetime 500"),
    (Budget(nodes=5000, depth=7, time=1.0), "go nodes 5000 depth 7 movetime 1000"),
])
def test_the_go_line_carries_every_limit_of_the_budget(limits, line):
    assert bot().go_line(limits) == line


# the moves: info lines


@pytest.mark.parametrize("line, info", [
    ("info", {}),
    ("info depth 3", {"depth": 3}),
    ("info depth 3 nodes 10 time 5 score -0.25 pv b2 a1",
     {"depth": 3, "nodes": 10, "time": 5, "score": -0.25, "pv": ["b2", "a1"]}),
    ("info  nodes   7  depth 2", {"nodes": 7, "depth": 2}),
    ("info score 1 depth -1", {"score": 1.0, "depth": -1}),  # the referee judges the ranges
    ("info pv", {"pv": []}),
    ("info pv depth 3 x", {"pv": ["depth", "3", "x"]}),  # pv takes the rest of the line
    ("info nodes 2 nodes 3", {"nodes": 3}),
    ("info nodes " + "9" * 40, {"nodes": int("9" * 40)}),
    ("info score 1e308", {"score": 1e308}),
])
def test_an_info_line_is_read_into_its_fields(line, info):
    out = {}
    assert bot().read_info(line, out) is None
    assert out == info
    assert all(type(out[k]) is int for k in ("depth", "nodes", "time") if k in out)
    assert "score" not in out or type(out["score"]) is float


def test_info_lines_add_up_the_later_value_winning():
    out = {}
    b = bot()
    b.read_info("info depth 1 nodes 5 score 0.5 pv a1 b2", out)
    b.read_info("info depth 2 nodes 9", out)
    assert out == {"depth": 2, "nodes": 9, "score": 0.5, "pv": ["a1", "b2"]}


@pytest.mark.parametrize("line, error", [
    ("info depth", IndexError),
    ("info nodes x", ValueError),
    ("info nodes 1.5", ValueError),
    ("info nodes " + "9" * 5000, ValueError),  # more digits than int() reads
    ("info score nan", ValueError),
    ("info score inf", ValueError),
    ("info score -inf", ValueError),
    ("info score 1e999", ValueError),
    ("info score high", ValueError),
    ("info seldepth 3", ValueError),
    ("info 3 depth", ValueError),
    ("info depth 3 score", IndexError),
])
def test_a_garbled_info_line_is_an_error(line, error):
    with pytest.raises(error):
        bot().read_info(line, {})


@pytest.mark.parametrize("line, says", [("info seldepth 3", "seldepth"), ("info 3 depth", "3"),
                                        ("info score nan", "nan"), ("info score -1e999", "-inf")])
def test_the_error_of_a_garbled_info_line_names_the_word_or_the_score(line, says):
    with pytest.raises(ValueError) as caught:
        bot().read_info(line, {})
    assert str(caught.value) == says


# the moves: the exchange


def test_a_move_is_asked_with_the_position_and_the_budget_and_its_info_kept():
    fake = FakeEngine({"go": ["info depth 1 nodes 3", "info string at depth 1", "id name again", "",
                              "info depth 2 nodes 40 score 0.5 pv b2 a1 zz c3", "bestmove b2"]})
    b = playing(fake)
    decision = b.choose(TTT, TTT.initial_state(), budget(nodes=50))
    assert decision == Decision(4, 0.5, 2, (4, 0), 40)
    assert fake.sent == ["position start", "go nodes 50"]
    assert fake.events == ["new_move", ("log", "info string at depth 1"), "check_memory"]


def test_a_bestmove_without_any_info_reports_zero_nodes_and_nothing_else():
    fake = FakeEngine({"go": ["bestmove b2 ponder a1"]})
    decision = playing(fake).choose(TTT, TTT.initial_state(), budget(depth=2))
    assert decision == Decision(4, None, None, (), 0)
    assert type(decision.nodes) is int and fake.sent[-1] == "go depth 2"


def test_a_huge_node_count_is_passed_on_for_the_referee_to_judge():
    fake = FakeEngine({"go": ["info nodes " + "9" * 30, "bestmove a1"]})
    assert playing(fake).choose(TTT, TTT.initial_state(), budget(nodes=10)).nodes == int("9" * 30)


def test_under_a_node_budget_the_watchdog_is_the_deadline():
    fake = FakeEngine({"go": ["info depth 1", "bestmove a1"]})
    b = playing(fake)
    b.limits = Limits(watchdog=2.5)
    b.choose(TTT, TTT.initial_state(), budget(started=100.0, nodes=5))
    assert fake.deadlines == [102.5, 102.5]
    assert "stop" not in fake.sent


def test_no_bestmove_within_the_watchdog_times_out():
    fake = FakeEngine({"go": ["info depth 1"]})
    b = playing(fake)
    b.limits = Limits(watchdog=2.5)
    with pytest.raises(BotFault) as caught:
        b.choose(TTT, TTT.initial_state(), budget(started=100.0, depth=3))
    assert caught.value.termination is Termination.TIMEOUT and caught.value.verb == "timed out"
    assert caught.value.detail == "no bestmove within 2.5s (the watchdog); killed"
    assert fake.deadlines == [102.5, 102.5] and "stop" not in fake.sent and fake.events[-1] == "killed"


def test_under_a_time_budget_stop_is_sent_at_the_budget_and_bestmove_is_due_within_the_margin():
    fake = FakeEngine({"go": [None], "stop": ["info depth 4", "bestmove c3"]})
    b = playing(fake)
    b.limits = Limits(time_margin=3.0)  # the bot's own limits: the referee's margin is the counter's
    decision = b.choose(TTT, TTT.initial_state(), budget(started=100.0, time=0.5, margin=0.25))
    assert decision.move == 8 and decision.depth == 4
    assert fake.sent == ["position start", "go movetime 500", "stop"]
    assert fake.deadlines == [100.5, 100.5 + 0.25, 100.5 + 0.25]


def test_a_bestmove_before_the_budget_is_spent_needs_no_stop():
    fake = FakeEngine({"go": ["bestmove c3"]})
    b = playing(fake)
    assert b.choose(TTT, TTT.initial_state(), budget(started=100.0, time=0.5)).move == 8
    assert fake.sent == ["position start", "go movetime 500"] and fake.deadlines == [100.5]


def test_no_bestmove_within_the_time_budget_and_margin_times_out():
    fake = FakeEngine({"go": [None]})
    b = playing(fake)
    b.limits = Limits(time_margin=3.0)
    with pytest.raises(BotFault) as caught:
        b.choose(TTT, TTT.initial_state(), budget(started=100.0, time=0.5, margin=0.25))
    assert caught.value.termination is Termination.TIMEOUT
    assert caught.value.detail == "no bestmove within 0.75s (its time budget + margin); killed"
    assert fake.sent[-1] == "stop" and fake.sent.count("stop") == 1


def test_under_a_cpu_budget_the_engine_gets_it_as_movetime_and_stop_at_its_end():
    fake = FakeEngine({"go": [None], "stop": ["bestmove a1"]})
    b = playing(fake)
    assert b.choose(TTT, TTT.initial_state(), budget(started=10.0, cpu=2.0, margin=0.5)).move == 0
    assert fake.sent[-2:] == ["go movetime 2000", "stop"] and fake.deadlines == [12.0, 12.5]


def test_no_bestmove_within_a_cpu_budget_and_margin_does_not_blame_the_watchdog():
    fake = FakeEngine({"go": [None]})
    b = playing(fake)
    b.limits = Limits(watchdog=60.0)
    with pytest.raises(BotFault) as caught:
        b.choose(TTT, TTT.initial_state(), budget(started=10.0, cpu=2.0, margin=0.5))
    assert caught.value.detail == "no bestmove within 2.5s (its cpu budget + margin); killed"


def test_without_any_limit_stop_is_sent_at_the_watchdog_and_bestmove_is_due_within_the_margin():
    fake = FakeEngine({"go": [None], "stop": [None]})
    b = playing(fake)
    b.limits = Limits(watchdog=3.0)
    with pytest.raises(BotFault) as caught:
        b.choose(TTT, TTT.initial_state(), budget(started=100.0, margin=0.5))
    assert fake.sent == ["position start", "go", "stop"] and fake.deadlines == [103.0, 103.5]
    assert caught.value.detail == "no bestmove within 3.5s (the watchdog); killed"


@pytest.mark.parametrize("line", ["info depth x", "info depth", "info score nan", "info mate 3",
                                  "info nodes 1 " + "x" * 100])
def test_a_garbled_info_line_breaks_the_protocol(line):
    fake = FakeEngine({"go": [line, "bestmove a1"]})
    with pytest.raises(BotFault) as caught:
        playing(fake).choose(TTT, TTT.initial_state(), budget(nodes=5))
    assert caught.value.termination is Termination.PROTOCOL and caught.value.verb == "broke the protocol"
    assert caught.value.detail == f"unreadable info {line[:80]!r}" and fake.events[-1] == "killed"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__ is True


@pytest.mark.parametrize("line", ["hello from the engine", "readyok", "infodepth 1", "bestmove\ta1",
                                  "x" * 100, "idx", "   info depth 1"])
def test_any_other_line_during_a_move_breaks_the_protocol(line):
    fake = FakeEngine({"go": [line, "bestmove a1"]})
    with pytest.raises(BotFault) as caught:
        playing(fake).choose(TTT, TTT.initial_state(), budget(nodes=5))
    assert caught.value.termination is Termination.PROTOCOL and caught.value.verb == "broke the protocol"
    assert caught.value.detail == f"unexpected line {line[:80]!r}"


def test_lines_that_are_fine_anywhere():
    b = bot()
    fake = FakeEngine()
    for line in ["id name x", "id", "", "  ", "\t"]:
        assert b.other_line(fake, line, line.split(" ", 1)[0]) is None
    assert fake.events == []
    b.other_line(fake, "info string a b", "info")
    b.other_line(fake, "info stringy", "info")
    assert fake.events == [("log", "info string a b"), ("log", "info stringy")]
    with pytest.raises(BotFault) as caught:
        b.other_line(fake, "info strin", "info")
    assert caught.value.detail == "unexpected line 'info strin'"


def test_an_unreadable_move_loses_the_game():
    for line, text in [("bestmove zz", "zz"), ("bestmove", ""), ("bestmove  ", "")]:
        fake = FakeEngine({"go": [line]})
        with pytest.raises(BotFault) as caught:
            playing(fake).choose(TTT, TTT.initial_state(), budget(nodes=5))
        assert caught.value.termination is Termination.ILLEGAL_MOVE and caught.value.verb == "sent an unreadable move"
        assert caught.value.detail == (f"{text!r}: cannot read {text!r} as a move in tictactoe; expected a column "
                                       "letter a-c and a row number 1-3 (e.g. 'a1' top-left), or a cell number 1-9")
        assert caught.value.__cause__ is None and "check_memory" in fake.events


def test_a_move_the_game_cannot_parse_for_any_reason_loses_the_game():
    game = Cells()
    fake = FakeEngine({"go": ["bestmove c9"]})  # an IndexError in the game's parser
    with pytest.raises(BotFault) as caught:
        playing(fake, game).choose(game, (), budget(nodes=5))
    assert caught.value.termination is Termination.ILLEGAL_MOVE
    assert caught.value.detail == "'c9': list index out of range"


def test_the_legal_moves_named_are_written_in_the_position():
    game = Cells()
    fake = FakeEngine({"go": ["bestmove #0"]})
    b = playing(fake, game)
    with pytest.raises(BotFault) as caught:
        b.choose(game, (0,), budget(nodes=5))
    assert caught.value.detail == "'#0' in cells; legal: c0, c1, c2"
    assert b._state == (0,) and b.position_line() == "position start moves c0"  # followed, though the move failed


def test_an_illegal_move_loses_the_game_naming_the_legal_ones():
    fake = FakeEngine({"go": ["bestmove b2"]})
    b = playing(fake)
    b.opening(("b2", "a1"))
    with pytest.raises(BotFault) as caught:
        b.choose(TTT, TTT.play(["b2", "a1"]), budget(nodes=5))
    assert caught.value.termination is Termination.ILLEGAL_MOVE and caught.value.verb == "played an illegal move"
    assert caught.value.detail == "'b2' in tictactoe; legal: b1, c1, a2, c2, a3, b3, c3"


@pytest.mark.parametrize("strict, limit, nodes, faults", [
    (True, 100, 100, False),
    (True, 100, 101, True),
    (True, None, 10 ** 9, False),
    (False, 100, 101, False),
    (True, 1_000_000, 1_234_567, True),
])
def test_reporting_more_nodes_than_the_budget_loses_only_a_strict_engine(strict, limit, nodes, faults):
    fake = FakeEngine({"go": [f"info nodes {nodes}", "bestmove a1"]})
    b = playing(fake, strict=strict)
    limits = {"nodes": limit} if limit is not None else {"depth": 3}
    if not faults:
        assert b.choose(TTT, TTT.initial_state(), budget(**limits)).nodes == nodes
        return
    with pytest.raises(BotFault) as caught:
        b.choose(TTT, TTT.initial_state(), budget(**limits))
    assert caught.value.termination is Termination.PROTOCOL and caught.value.verb == "broke go nodes"
    assert caught.value.detail == f"reported {nodes:,} nodes for a budget of {limit:,} (strict)"
    assert caught.value.detail.startswith("reported 1") and fake.events[-1] == "killed"


def test_the_principal_variation_is_read_as_far_as_it_reads_in_the_position_it_reaches():
    game = Cells()
    fake = FakeEngine({"go": ["info pv c0 c0 c1 zz c0", "bestmove c0"]})
    decision = playing(fake, game).choose(game, (), budget(nodes=5))
    assert decision.move == 0 and decision.pv == (0, 1, 3)  # each cN counted among the cells still free
    b = bot()
    b._game = game
    assert b._pv((), ["c0", "c5"]) == (0,) and b._pv((), []) == ()
    b._game = TTT  # moves written the same everywhere: no position is made
    assert b._pv(TTT.initial_state(), ["b2", "b2", "x", "a1"]) == (4, 4)


def test_lines_after_a_bestmove_are_left_to_the_next_move_in_their_order():
    class Batches(FakeEngine):
        """Hands out every line queued at once, as the real reader does once an answer is in."""

        def read_lines(self, deadline):
            if not self.queue:
                return super().read_lines(deadline)
            lines = list(self.queue)
            self.queue.clear()
            return lines

    fake = Batches({"go": ["info depth 1 score 0.5 pv b2", "bestmove b2", "info depth 7 nodes 3", "bestmove a1"]})
    b = playing(fake, player=0)
    first = b.choose(TTT, TTT.initial_state(), budget(nodes=5))
    assert (first.move, first.depth) == (4, 1) and list(fake.queue) == ["info depth 7 nodes 3", "bestmove a1"]
    second = b.choose(TTT, TTT.play(["b2", "c3"]), budget(nodes=5))
    assert (second.move, second.depth, second.nodes) == (0, 7, 3)  # what the engine wrote first is read first


# following a game the referee does not tell


def test_asked_outside_a_game_it_follows_the_positions_it_is_given():
    fake = FakeEngine({"go": lambda line: ["bestmove " + fake.next_move]})
    b = playing(fake, player=0)
    fake.next_move = "b2"
    start = TTT.initial_state()
    assert b.choose(TTT, start, budget(nodes=5)).move == 4
    assert b._state == TTT.apply(start, 4) and b.position_line() == "position start moves b2"
    fake.next_move = "c3"
    state = TTT.play(["b2", "a1"])
    assert b.choose(TTT, state, budget(nodes=5)).move == 8
    assert fake.sent[-2] == "position start moves b2 a1"
    assert b.position_line() == "position start moves b2 a1 c3" and b._state == TTT.play(["b2", "a1", "c3"])
    fake.next_move = "a3"
    later = TTT.play(["b2", "a1", "c3", "c1", "a2"])  # two plies on
    b.choose(TTT, later, budget(nodes=5))
    assert fake.sent[-2] == "position start moves b2 a1 c3 c1 a2"


def test_moves_are_written_in_the_position_they_are_played():
    game = Cells()
    fake = FakeEngine({"go": ["bestmove c1"]})
    b = playing(fake, game)
    b.choose(game, (0,), budget(nodes=5))  # after c0 (cell 0), c1 is cell 2
    assert fake.sent[-2] == "position start moves c0" and b._state == (0, 2)
    assert b.position_line() == "position start moves c0 c1"


def test_a_position_more_than_two_plies_on_cannot_be_followed():
    fake = FakeEngine({"go": ["bestmove c3"]})
    b = playing(fake)
    with pytest.raises(IllegalMoveError) as caught:
        b.choose(TTT, TTT.play(["b2", "a1", "c1"]), budget(nodes=5))
    assert str(caught.value) == "engine cannot tell which moves led to the position it was given"
    assert fake.sent == []


def test_told_every_move_it_neither_follows_nor_adds_its_own():
    fake = FakeEngine({"go": ["bestmove a1"]})
    b = playing(fake)
    b.moved("b2")
    state = TTT.play(["b2"])
    assert b.choose(TTT, state, budget(nodes=5)).move == 0
    assert fake.sent == ["position start moves b2", "go nodes 5"]
    assert b.position_line() == "position start moves b2" and b._state == TTT.initial_state()


def test_following_uses_the_rule_book_not_the_counted_view():
    counter = Counter(Budget(nodes=1))
    view = counted(TTT, counter)
    fake = FakeEngine({"go": ["bestmove b2"]})
    b = playing(fake, view)
    assert type(b._game) is TicTacToe
    assert b.choose(view, TTT.play(["a1"]), budget(nodes=1)).move == 4
    assert counter.nodes == 0 and b._state == TTT.play(["a1", "b2"])


# the process after the game


def test_cpu_seconds_are_the_engine_trees_or_none():
    b = bot()
    assert b.cpu_seconds() is None
    b.engine = FakeEngine(tree=None)
    assert b.cpu_seconds() is None
    b.engine = FakeEngine(tree=SimpleNamespace(cpu_seconds=lambda: 1.25))
    assert b.cpu_seconds() == 1.25


def test_a_running_engine_is_reusable_and_close_quits_it():
    b = bot()
    assert b.reusable() is False
    b.close()  # nothing to close
    fake = FakeEngine()
    b.engine = fake
    assert b.reusable() is True
    b.close()
    assert fake.events == ["quit"] and b.engine is None and b.reusable() is False
    b.engine = FakeEngine(alive=False)
    assert b.reusable() is False


# an engine's text is not trusted: what it says of itself reaches messages bounded and escaped


def test_an_engines_error_text_is_cut_in_the_fault(monkeypatch):
    Launcher(monkeypatch, FakeEngine({"arena": ["arenaok"], "isready": ["error " + "x" * 100_000]}))
    assert len(bot().suitable(TTT)) < 1000


def test_an_engines_error_text_is_escaped_in_the_fault(monkeypatch):
    Launcher(monkeypatch, FakeEngine({"arena": ["arenaok"], "isready": ["error \x1b[2J\rall is well"]}))
    why = bot().suitable(TTT)
    assert "\x1b" not in why and "\r" not in why


def test_an_engines_unreadable_move_is_cut_in_the_fault():
    fake = FakeEngine({"go": ["bestmove " + "x" * 100_000]})
    with pytest.raises(BotFault) as caught:
        playing(fake).choose(TTT, TTT.initial_state(), budget(nodes=5))
    assert len(caught.value.detail) < 1000


# one game against a real engine


@pytest.mark.processes
def test_a_whole_game_against_the_example_engine_over_real_pipes():
    from arena.referee import play_game
    from bots.random_bot import RandomBot

    b = bot(f"{PYTHON} {EXAMPLE}", limits=Limits(watchdog=20.0), startup=20.0, options=[("MaxDepth", "2")])
    try:
        record = play_game(TTT, [b, RandomBot()], budgets=[Budget(nodes=200), Budget(nodes=200)], seed=3,
                           opening=["b2"])
        ours = [m for m in record.moves if m.player == 0]
        assert record.termination is Termination.NORMAL, record.message
        assert ours and all(m.reported and 0 < m.nodes <= 200 and m.depth <= 2 for m in ours)
        assert b.reusable() is True and b.cpu_seconds() >= 0
    finally:
        b.close()
    assert b.engine is None


# ---- a seat's view and a clock ------------------------------------------------------------------

def test_in_a_hidden_game_the_engine_starts_with_a_scratch_folder_and_is_told_its_seats_view(monkeypatch):
    from arena.view import make_view
    from games.kuhn import KuhnPoker

    kuhn = KuhnPoker()
    fake = FakeEngine({**HELLO, "go": ["info depth 2 score 0.5 nodes 7", "bestmove b"]})
    launcher = Launcher(monkeypatch, fake)
    b = bot()
    b.new_game(kuhn, 1, 1)
    kwargs = launcher.started[0][1]
    assert kwargs["scratch"] is True and "confined" not in kwargs  # a hidden game's engine keeps nothing between games
    fake.sent.clear()
    view = make_view(kuhn, "KQp", 1, ("?", "?", "p"))
    assert b.choose(kuhn, view, budget(nodes=10)) == Decision("b", 0.5, 2, (), 7)
    assert fake.sent == ["position start public ? ? p",
                         "observation You are second and hold Q.\\nPlay: first checks.\\nPot 2: first 1, second 1.",
                         "legal p b", "go nodes 10"]
    fake.replies["go"] = ["bestmove x"]
    with pytest.raises(BotFault) as caught:
        b.choose(kuhn, view, budget(nodes=10))
    assert caught.value.termination is Termination.ILLEGAL_MOVE
    assert str(caught.value) == "played an illegal move: 'x' in kuhn_poker; legal: p, b"


def test_an_engine_of_simultaneous_moves_starts_confined_and_one_of_full_information_as_it_is(monkeypatch):
    from games.rps import RockPaperScissors

    launcher = Launcher(monkeypatch, FakeEngine(HELLO), FakeEngine(HELLO))
    bot().new_game(RockPaperScissors(), 0, 1)
    bot().new_game(TTT, 0, 1)
    simultaneous, full = (kwargs for _, kwargs in launcher.started)
    assert simultaneous["confined"] is True and "scratch" not in simultaneous
    assert "confined" not in full and "scratch" not in full


def test_under_a_clock_the_engine_keeps_its_own_time_and_loses_when_it_runs_out():
    from arena.clock import Clock

    fake = FakeEngine({"go": []})
    b = playing(fake)
    clock = Clock(0, (2.0, 3.0), (0.1, 0.1))
    moving = SimpleNamespace(budget=Budget.parse("tc=60+0.1").at(clock), started=100.0, margin=0.25)
    with pytest.raises(BotFault) as caught:
        b.choose(TTT, TTT.initial_state(), moving)
    assert caught.value.termination is Termination.CLOCK
    assert str(caught.value) == "lost on time: no bestmove within the 2.000s on its clock + margin; killed"
    assert fake.deadlines == [102.25] and "stop" not in fake.sent  # its clock, and the margin
    assert fake.sent == ["position start", "go time0 2000 time1 3000 inc0 100 inc1 100"]


def test_an_engines_utilities_are_read_for_its_own_seat_of_the_game_it_plays():
    b = playing(FakeEngine(HELLO), game=Nim(players=3), player=1)
    info = {}
    b.read_info("info utilities 0 1 0", info)
    assert info == {"utilities": (0.0, 1.0, 0.0), "score": 1.0}  # seat 1's utility is its score
    with pytest.raises(ValueError) as caught:
        b.read_info("info score 0 utilities 0 1 0", {})
    assert str(caught.value) == "score 0.0 disagrees with utility 1.0 of its own seat 1 by more than 1e-9"
    with pytest.raises(ValueError) as caught:
        b.read_info("info utilities 0 1", {})
    assert str(caught.value) == "utilities '0 1': 2 numbers for the 3 seats of nim, one each"


def test_utilities_that_disagree_with_the_score_break_the_protocol():
    nim = Nim(players=3)
    fake = FakeEngine({"go": ["info score 0 utilities 0 1 0", "bestmove 1:1"]})
    with pytest.raises(BotFault) as caught:
        playing(fake, game=nim, player=1).choose(nim, nim.initial_state(), budget(nodes=5))
    assert caught.value.termination is Termination.PROTOCOL and "killed" in fake.events
    assert str(caught.value) == "broke the protocol: score 0.0 disagrees with utility 1.0 of its own seat 1 by more than 1e-9"


def test_a_new_game_of_more_seats_tells_the_engine_its_seat_of_how_many():
    nim = Nim(players=3)
    fake = FakeEngine(HELLO)
    b = bot()
    b.engine, b._spec = fake, full_spec(nim)
    b.new_game(nim, 2, 1)
    assert fake.sent == ["newgame 2 of 3", "isready"]


def test_an_empty_info_line_is_an_info_line_with_nothing_in_it():
    fake = FakeEngine({"go": ["info", "info depth 3", "info", "bestmove a1"]})
    assert playing(fake).choose(TTT, TTT.initial_state(), budget(nodes=5)) == Decision(0, None, 3, (), 0)
