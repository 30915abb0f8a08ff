"""The example engines (examples/engines/) speak the protocol of docs/protocol.md and play legally.

Each engine is driven over raw pipes, line by line, as the referee would; every move it
answers is checked by replaying the position with the arena's own game.
"""

import ast
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.params import format_value

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "examples" / "engines"
PY_ENGINE = ENGINES / "python" / "engine.py"
NIM_ENGINE = ENGINES / "python" / "nim_multi.py"
C_SOURCE = ENGINES / "c" / "engine.c"
WAIT = 30  # seconds: generous, the machine is shared
INFO = re.compile(r"info( depth \d+)?( nodes \d+)?( time \d+)?( score -?\d+(\.\d+)?)?( pv( \S+)+)?")
HANDSHAKE = re.compile(r"id (name|author) .+|option name \S+ type (spin|check|string|combo)( .*)?|arenaok")


@pytest.fixture(scope="module")
def c_binary(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH to build examples/engines/c/engine.c")
    binary = tmp_path_factory.mktemp("engine") / "engine"
    subprocess.run([compiler, "-std=c99", "-O2", "-o", str(binary), str(C_SOURCE)], check=True, timeout=120)
    return str(binary)


@pytest.fixture(params=["python", "c"])
def command(request):
    if request.param == "python":
        return [sys.executable, str(PY_ENGINE)]
    return [request.getfixturevalue("c_binary")]


class Engine:
    """One engine process behind pipes; a thread collects its stdout lines."""

    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.seen = []  # every stdout line, to check that nothing but protocol was written
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines):
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix, wait=WAIT):
        """The lines up to and including the first that starts with ``prefix``."""
        out, end = [], time.monotonic() + wait
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} within {wait} s; got {out}") from None
            assert line is not None, f"the engine exited before {prefix!r}; got {out}"
            out.append(line)
            self.seen.append(line)
            if line.startswith(prefix):
                return out

    def start(self, spec):
        self.send("arena 1")
        handshake = self.until("arenaok")
        self.send(f"game {spec}", "isready")
        assert self.until("readyok") == ["readyok"]
        self.send("newgame 0")
        return handshake

    def search(self, game, moves, go):
        """``go`` from the start plus ``moves`` (arena moves): the move chosen and the info lines."""
        texts = " ".join(game.format_move(m) for m in moves)
        self.send("position start" + (f" moves {texts}" if texts else ""), go)
        *infos, best = self.until("bestmove")
        assert all(INFO.fullmatch(i) for i in infos), infos
        return game.parse_move(best.split(" ", 1)[1]), infos

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


@pytest.fixture
def engine(command):
    e = Engine(command)
    yield e
    e.close()


def full_spec(game):
    """The game's spec with every parameter, as the referee sends it."""
    return game.name + ":" + ",".join(f"{k}={format_value(v)}" for k, v in game.params.items())


def fields(info):
    """An info line as a dict of its fields, pv as a list."""
    head, _, pv = info.partition(" pv ")
    words = head.split()[1:]
    out = dict(zip(words[::2], words[1::2]))
    out["pv"] = pv.split()
    return out


def state_after(game, moves):
    state = game.initial_state()
    for m in moves:
        state = game.apply(state, m)
    return state


@pytest.mark.processes
def test_handshake_declares_options_and_ends_with_arenaok(engine):
    lines = engine.start("connect4")
    assert all(HANDSHAKE.fullmatch(line) for line in lines), lines
    assert lines[0].startswith("id name ") and lines[-1] == "arenaok"
    assert "option name MaxDepth type spin default 64 min 1 max 64" in lines


@pytest.mark.processes
@pytest.mark.parametrize("spec", ["chess:fen=4k3/8/8/8/8/8/8/R3K3 w - - 0 1,draws=claim", "nim:heaps=3,4,5,misere=false",
                                  "connect4:columns=7,rows=6,connect=4,scoring=bonus"])
def test_a_game_it_cannot_play_is_answered_with_error(engine, spec, registry):
    engine.send("arena 1")
    engine.until("arenaok")
    engine.send(f"game {spec}", "isready")
    [answer] = engine.until("")
    assert answer.startswith("error ") and len(answer) > len("error ")
    assert spec.split(":")[0] in answer or "bonus" in answer
    engine.send(f"game {full_spec(registry.game('connect4'))}", "isready")  # and it recovers
    assert engine.until("readyok") == ["readyok"]


@pytest.mark.processes
@pytest.mark.parametrize("spec", ["connect4", "connect4:columns=9,rows=7", "connect4:columns=5,rows=4,scoring=moves",
                                  "connect4:columns=6,rows=6,connect=3", "tictactoe", "tictactoe:rows=4,columns=4,k=3",
                                  "tictactoe:rows=3,columns=5,k=3", "connect4:columns=16,rows=16,connect=5",
                                  "connect4:columns=3,rows=2,connect=1", "tictactoe:rows=8,columns=8,k=5",
                                  "tictactoe:rows=64,columns=1,k=2"])
def test_self_play_is_legal_to_the_end_and_infos_are_sound(engine, spec, registry):
    game = registry.game(spec)
    engine.start(full_spec(game))
    state, moves, budget = game.initial_state(), [], 300
    while not game.is_terminal(state):
        move, infos = engine.search(game, moves, f"go nodes {budget}")
        assert move in game.legal_moves(state), (spec, moves, move)
        last = fields(infos[-1])
        assert int(last["nodes"]) <= budget
        low, high = game.bounds
        assert low <= float(last["score"]) <= high
        line = state
        for text in last["pv"]:  # the principal variation is legal from the position
            assert not game.is_terminal(line)
            step = game.parse_move(text)
            assert step in game.legal_moves(line), (spec, moves, last["pv"])
            line = game.apply(line, step)
        assert last["pv"][0] == game.format_move(move)
        moves.append(move)
        state = game.apply(state, move)


# Connect Four columns and tic-tac-toe squares as the games write them; each position has
# exactly one right answer, checked below with the arena's game rather than taken on trust.
WINS = [("connect4", "1 1 2 2 3 3"), ("connect4", "4 1 4 1 4 2"), ("tictactoe", "a1 a2 b1 b2")]
BLOCKS = [("connect4", "1 7 2 7 3"), ("connect4", "4 1 4 1 4"), ("tictactoe", "a1 a2 b1"), ("tictactoe", "b2 a1 c2")]


@pytest.mark.processes
@pytest.mark.parametrize("go", ["go depth 4", "go nodes 300", "go movetime 300"])
@pytest.mark.parametrize("spec,texts", WINS)
def test_a_win_at_once_is_taken(engine, spec, texts, go, registry):
    game = registry.game(spec)
    moves = [game.parse_move(t) for t in texts.split()]
    engine.start(full_spec(game))
    move, infos = engine.search(game, moves, go)
    state = game.apply(state_after(game, moves), move)
    assert game.is_terminal(state) and game.utility(state, len(moves) % 2) == 1
    assert float(fields(infos[-1])["score"]) == 1


def wins_at_once(game, state):
    """The moves that win the game for the player to move at once."""
    mover = game.to_move(state)
    return [m for m in game.legal_moves(state)
            if game.is_terminal(after := game.apply(state, m)) and game.utility(after, mover) > 0]


@pytest.mark.processes
@pytest.mark.parametrize("go", ["go depth 4", "go nodes 300"])
@pytest.mark.parametrize("spec,texts", BLOCKS)
def test_a_threat_is_blocked(engine, spec, texts, go, registry):
    game = registry.game(spec)
    moves = [game.parse_move(t) for t in texts.split()]
    before = state_after(game, moves)
    assert not wins_at_once(game, before)
    careless = [m for m in game.legal_moves(before) if wins_at_once(game, game.apply(before, m))]
    assert careless, "the position must hold a threat for the test to mean anything"
    engine.start(full_spec(game))
    move, _ = engine.search(game, moves, go)
    assert move not in careless and not wins_at_once(game, game.apply(before, move)), (texts, move)


@pytest.mark.processes
@pytest.mark.parametrize("budget", [1, 2, 10, 100, 1000, 5000])
def test_go_nodes_reports_at_most_the_budget(engine, budget, registry):
    game = registry.game("connect4")
    engine.start(full_spec(game))
    for moves in ([], [3, 3, 2], [0, 6, 0, 6, 3]):
        move, infos = engine.search(game, moves, f"go nodes {budget}")
        assert move in game.legal_moves(state_after(game, moves))
        assert infos and all(int(fields(i)["nodes"]) <= budget for i in infos)
    assert int(fields(infos[-1])["nodes"]) == budget or budget >= 5000  # it uses what it is given


@pytest.mark.processes
def test_go_depth_searches_to_that_depth_and_maxdepth_caps_go(engine, registry):
    game = registry.game("connect4")
    engine.start(full_spec(game))
    _, infos = engine.search(game, [], "go depth 5")
    assert [fields(i)["depth"] for i in infos] == ["1", "2", "3", "4", "5", "5"]
    engine.send("setoption name MaxDepth value 3")
    _, infos = engine.search(game, [], "go")
    assert fields(infos[-1])["depth"] == "3"


@pytest.mark.processes
def test_movetime_is_kept(engine, registry):
    game = registry.game("connect4:columns=9,rows=8")
    engine.start(full_spec(game))
    start = time.monotonic()
    move, infos = engine.search(game, [], "go movetime 300")
    assert time.monotonic() - start < 2.0  # 0.3 s and a generous margin for a shared machine
    assert move in game.legal_moves(game.initial_state()) and int(fields(infos[-1])["depth"]) >= 1
    engine.send("position start", "go time0 1000 time1 1000 inc0 0 inc1 0")  # a clock: a share of it
    start = time.monotonic()
    engine.until("bestmove")
    assert time.monotonic() - start < 1.5


@pytest.mark.processes
@pytest.mark.parametrize("pause", [0.0, 0.3])
def test_stop_answers_bestmove_at_once(engine, pause, registry):
    game = registry.game("connect4:columns=12,rows=10")
    engine.start(full_spec(game))
    engine.send("position start", "go")
    time.sleep(pause)
    start = time.monotonic()
    engine.send("stop")
    *_, best = engine.until("bestmove", wait=5)
    assert time.monotonic() - start < 2.0
    assert game.parse_move(best.split()[1]) in game.legal_moves(game.initial_state())
    engine.send("isready")  # still alive and listening
    assert engine.until("readyok") == ["readyok"]


@pytest.mark.processes
def test_isready_and_newgame_between_games(engine, registry):
    game = registry.game("tictactoe")
    engine.start(full_spec(game))
    for player in (0, 1, 0):
        engine.send(f"newgame {player}", "isready")
        assert engine.until("readyok") == ["readyok"]
        move, _ = engine.search(game, [4] if player else [], "go depth 9")
        assert move in (0, 2, 6, 8) if player else move in range(9)  # a corner against the centre
    assert all(INFO.fullmatch(s) or HANDSHAKE.fullmatch(s) or s.startswith(("bestmove ", "readyok"))
               for s in engine.seen)


@pytest.mark.processes
@pytest.mark.parametrize("how", ["quit", "close", "quit mid-search"])
def test_exits_on_quit_and_when_stdin_closes(engine, how, registry):
    engine.start(full_spec(registry.game("connect4:columns=12,rows=10")))
    if how == "close":
        engine.proc.stdin.close()
    else:
        if how == "quit mid-search":
            engine.send("position start", "go")
            time.sleep(0.2)
        engine.send("quit")
    assert engine.proc.wait(timeout=5) == 0
    rest = list(iter(engine.lines.get, None))
    assert not any(line.startswith("bestmove") for line in rest)  # quit owes no bestmove


@pytest.mark.processes
def test_play_is_deterministic(command, registry):
    game = registry.game("connect4")
    runs = []
    for _ in range(2):
        e = Engine(command)
        try:
            e.start(full_spec(game))
            state, moves, answers = game.initial_state(), [], []
            for _ in range(12):
                move, infos = e.search(game, moves, "go nodes 3000")
                answers.append([re.sub(r" time \d+", "", i) for i in infos])
                moves.append(move)
                state = game.apply(state, move)
            runs.append((moves, answers))
        finally:
            e.close()
    assert runs[0] == runs[1]


@pytest.mark.processes
def test_the_two_engines_run_the_same_search(c_binary, registry):
    """The C engine is the Python one translated: the same nodes, scores' signs and lines."""
    game = registry.game("connect4")
    moves = [3, 3, 2, 4]
    found = []
    for command in ([sys.executable, str(PY_ENGINE)], [c_binary]):
        e = Engine(command)
        try:
            e.start(full_spec(game))
            _, infos = e.search(game, moves, "go depth 7")
            found.append([(f["depth"], f["nodes"], f["pv"]) for f in map(fields, infos)])
        finally:
            e.close()
    assert found[0] == found[1]


def test_the_python_engine_needs_only_the_standard_library():
    tree = ast.parse(PY_ENGINE.read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported and imported <= sys.stdlib_module_names, imported - sys.stdlib_module_names


@pytest.mark.processes
def test_a_tournament_with_both_engines(c_binary, tmp_path, capsys):
    pytest.importorskip("bots.engine", reason="the engine bot is not available")
    import results
    from arena.front.cli import main

    db = tmp_path / "engines.db"
    code = main(["run", "--game", "connect4", "--bot", f"py=engine:cmd={sys.executable} {PY_ENGINE}",
                 "--bot", f"c=engine:cmd={c_binary}", "--bot", "alphabeta", "--budget", "nodes=2000",
                 "--games", "2", "--openings", "1", "--jobs", "1", "--no-progress", "--db", str(db)])
    out, err = capsys.readouterr()
    assert code == 0, err
    games, moves = results.load(db)
    assert len(games) == 6
    assert (games.termination.astype(str) == "normal").all(), games[["termination", "message"]]
    assert games.loser.isna().all()  # nobody forfeited
    engine_moves = moves[moves.bot.isin(["py", "c"])]
    assert len(engine_moves) and (engine_moves.nodes <= 2000).all()
    assert (engine_moves.reported == 1).all() and (engine_moves.over_budget == 0).all()  # as the engines said


@pytest.mark.processes
def test_the_protocol_doc_shows_what_the_python_engine_answers():
    """docs/protocol.md's example exchanges, replayed: the same answers, info lines aside (the
    n-seat one by the Nim engine, with its info lines too, times aside)."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    blocks = re.findall(r"```\n(> arena 1\n.*?)```", text, re.S)
    assert len(blocks) == 3
    for block in blocks:
        lines = [line for line in block.splitlines() if line[:2] in ("> ", "< ")]
        sent = [line[2:] for line in lines if line.startswith("> ")]
        shown = [line[2:] for line in lines if line.startswith("< ") and line.split()[1] in ("readyok", "bestmove", "error")]
        script = NIM_ENGINE if "> game nim:" in block else PY_ENGINE  # the n-seat example is the Nim engine's
        e = Engine([sys.executable, str(script)])
        try:
            e.send(*sent[:-1])  # all but quit: wait for every answer first
            answers, infos = [], set()
            while len(answers) < len(shown):
                line = e.until("")[0]
                if line.split()[0] in ("readyok", "bestmove", "error"):
                    answers.append(line)
                elif line.startswith("info "):
                    infos.add(re.sub(r" time \d+", "", line))
            assert answers == shown
            if script == NIM_ENGINE:
                timeless = {re.sub(r" time \d+", "", line[2:]) for line in lines if line.startswith("< info ")}
                assert timeless and timeless <= infos, timeless - infos
        finally:
            e.close()


PIG_ENGINE = ENGINES / "python" / "pig.py"


@pytest.mark.processes
def test_the_pig_engine_learns_the_dice_from_the_position_line_and_plays_whole_games(tmp_path, capsys):
    """Pig through the protocol: the referee's outcomes come among the moves of each position
    line; the engine replays them, so every move it answers is legal, within its node budget,
    and it beats a random player."""
    import results
    from arena.front.cli import main

    db = tmp_path / "pig.db"
    code = main(["run", "--game", "pig:goal=50", "--bot", f"pig=engine:cmd={sys.executable} {PIG_ENGINE}",
                 "--bot", "random", "--budget", "nodes=1000", "--games", "12", "--openings", "0", "--jobs", "2",
                 "--no-progress", "--db", str(db)])
    out, err = capsys.readouterr()
    assert code == 0, err
    games, moves = results.load(db)
    assert len(games) == 12 and (games.termination.astype(str) == "normal").all(), games[["termination", "message"]]
    assert (moves.bot == "chance").sum() > 100  # outcomes the engine was told as moves
    engine = moves[moves.bot == "pig"]
    assert (engine.nodes <= 1000).all() and (engine.reported == 1).all() and (engine.depth >= 2).all()
    wins = ((games.first == "pig") & (games.score_first == 1)).sum() + ((games.second == "pig") & (games.score_first == 0)).sum()
    assert wins >= 9, wins


@pytest.mark.processes
def test_the_pig_engine_refuses_other_games_and_needs_only_the_standard_library():
    tree = ast.parse(PIG_ENGINE.read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert imported <= sys.stdlib_module_names
    answer = subprocess.run([sys.executable, str(PIG_ENGINE)], input="arena 1\ngame connect4\nisready\nquit\n",
                            capture_output=True, text=True, timeout=WAIT).stdout
    assert "error this engine plays pig, not 'connect4'" in answer
