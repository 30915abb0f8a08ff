"""Engines in any language: the ``engine`` bot, its process, its faults, and its records."""

import shlex
import sqlite3
import sys
import time
from pathlib import Path

import pytest

import results
from arena import Budget, get_registry
from arena.limits import Limits
from arena.budget import Counter, counted, uncounted
from arena.errors import ParameterError
from bots.engine.engine import full_spec
from bots.engine.options import check_options, parse_option
from arena.front.cli import main
from arena.records import Termination
from arena.referee import play_game
from results.store import SCHEMA
from tests.helpers import process_gone

ENGINES = Path(__file__).parent / "engines"
RANDOM = ENGINES / "random_engine.py"
FAULTY = ENGINES / "faulty.py"
REGISTRY = get_registry(entry_points=False)
TICTACTOE = REGISTRY.game("tictactoe")


def command(script: Path, *args: str) -> str:
    return shlex.join([sys.executable, str(script), *args])


def engine(*args: str, script: Path = RANDOM, limits: Limits | None = None, **params):
    extra = "".join(f",{k}={v}" for k, v in params.items())
    bot = REGISTRY.bot(f"engine:cmd={command(script, *args)}{extra}")
    if limits is not None:
        bot.limits = limits
    return bot


def group_gone(pid: int) -> bool:
    """True once no process of the group ``pid`` leads is left (zombies aside)."""
    for _ in range(50):
        alive = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[2]) == pid and fields[0] != "Z":  # process group, state
                    alive.append(entry.name)
        if not alive:
            return True
        time.sleep(0.05)
    return False


# the spec, options and set-up


def test_options_in_the_spec_round_trip_and_the_command_is_split_as_a_shell_would():
    bot = REGISTRY.bot("engine:cmd=./bot --level 3,Seed=5,Skill Level=2")
    assert bot.cmd == "./bot --level 3" and bot.options == (("Seed", "5"), ("Skill Level", "2"))
    assert bot.spec == "engine:cmd=./bot --level 3,Seed=5,Skill Level=2"
    assert REGISTRY.bot(bot.spec).options == bot.options
    assert REGISTRY.bot("engine:cmd='./my engine' -x").argv() == ["./my engine", "-x"]


def test_declared_options_are_read_and_given_values_checked():
    spin = parse_option("option name Skill Level type spin default 20 min 0 max 20")
    assert (spin.name, spin.kind, spin.default, spin.min, spin.max) == ("Skill Level", "spin", "20", 0, 20)
    combo = parse_option("option name Style type combo default Normal var Solid var Normal var Risky")
    assert combo.choices == ("Solid", "Normal", "Risky")
    button = parse_option("option name Clear Hash type button")
    declared = {o.name.lower(): o for o in (spin, combo, button)}
    sent = check_options([("skill level", "3"), ("STYLE", "risky"), ("Clear Hash", "")], declared, "")
    assert sent == [("Skill Level", "3"), ("Style", "Risky"), ("Clear Hash", None)]
    with pytest.raises(ParameterError, match=r"allowed: 0 to 20"):
        check_options([("Skill Level", "21")], declared, "")
    with pytest.raises(ParameterError, match=r"no option 'Hash'; its options: Skill Level, Style, Clear Hash"):
        check_options([("Hash", "1")], declared, "")


@pytest.mark.parametrize(
    "spec, message",
    [
        pytest.param("engine:cmd=./nope", "engine 'engine:cmd=./nope' cannot start: no such file './nope'",
                     marks=pytest.mark.processes),  # the launch is tried
        ("engine:cmd=no-such-engine-anywhere", "cannot start: no program 'no-such-engine-anywhere' on PATH, /usr/games"),
        ("engine:cmd=", "needs the engine's command: engine:cmd=PATH"),
    ],
)
def test_an_engine_that_cannot_start_fails_at_set_up_in_one_line(spec, message):
    with pytest.raises(ParameterError) as caught:
        REGISTRY.bot(spec).check_game(TICTACTOE)
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.processes
def test_a_file_that_is_not_executable_fails_at_set_up(tmp_path):
    script = tmp_path / "engine.py"
    script.write_text(RANDOM.read_text())
    with pytest.raises(ParameterError, match=r"cannot start: '.*engine.py' is not executable"):
        REGISTRY.bot(f"engine:cmd={script}").check_game(TICTACTOE)


@pytest.mark.processes
def test_set_up_names_unknown_options_and_engines_that_refuse_the_game():
    with pytest.raises(ParameterError, match=r"has no option 'Depth'; its options: Seed, Nodes$"):
        engine(Depth=3).check_game(TICTACTOE)
    with pytest.raises(ParameterError, match=r"bad value 'x' for option 'Seed'; expected a whole number"):
        engine(Seed="x").check_game(TICTACTOE)
    # the engine cannot build this game: it answers isready with an error
    rogue = REGISTRY.game("nim")
    rogue.name = "no-such-game"
    with pytest.raises(ParameterError, match=r"crashed: cannot play no-such-game: unknown game 'no-such-game'"):
        engine().check_game(rogue)
    assert engine().suitable(TICTACTOE) is None


@pytest.mark.processes
def test_a_handshake_that_never_ends_times_out_at_start_up():
    bot = engine("handshake", script=FAULTY, startup=0.5)
    started = time.perf_counter()
    assert "timed out: did not finish its handshake within 0.5s (startup)" in bot.suitable(TICTACTOE)
    assert time.perf_counter() - started < 5
    record = play_game(TICTACTOE, [bot, REGISTRY.bot("random")])
    assert record.termination is Termination.TIMEOUT and record.loser == 0
    assert "failed to start a game" in record.message


def test_the_game_line_carries_every_parameter():
    assert full_spec(TICTACTOE) == "tictactoe:rows=3,columns=3,k=3"


def test_uncounted_gives_the_rule_book_behind_a_view():
    counter = Counter(Budget(nodes=2))
    view = counted(TICTACTOE, counter)
    plain = uncounted(view)
    state = TICTACTOE.initial_state()
    for move in plain.legal_moves(state):
        plain.apply(state, move)
    assert counter.nodes == 0 and type(plain) is type(TICTACTOE)
    view.apply(state, 0)
    assert counter.nodes == 1 and uncounted(TICTACTOE) is TICTACTOE


# games


@pytest.mark.processes
@pytest.mark.parametrize("game", ["tictactoe", "connect4", "nim"])
def test_the_engine_plays_whole_games_with_reported_nodes(game):
    bot = engine()
    record = play_game(REGISTRY.game(game), [bot, REGISTRY.bot("random")], budgets=[Budget(nodes=50)] * 2, seed=3)
    bot.close()
    assert record.termination is Termination.NORMAL
    ours = [m for m in record.moves if m.player == 0]
    theirs = [m for m in record.moves if m.player == 1]
    assert all(m.reported and not m.over_budget and m.depth == 1 and m.pv == (m.move,) for m in ours)
    assert not any(m.reported for m in theirs)


@pytest.mark.processes
def test_an_opening_reaches_the_engine_and_its_game_continues():
    bot = engine()
    opening = ["b2", "a1", "c3"]
    record = play_game(TICTACTOE, [REGISTRY.bot("random"), bot], seed=4, opening=opening, budgets=[Budget(nodes=9)] * 2)
    bot.close()
    assert record.termination is Termination.NORMAL and record.opening == tuple(opening)


@pytest.mark.processes
def test_reporting_more_nodes_than_the_budget_is_flagged_and_forfeits_only_when_strict():
    bot = engine(Nodes=500)
    record = play_game(TICTACTOE, [bot, REGISTRY.bot("random")], budgets=[Budget(nodes=100)] * 2, seed=1)
    bot.close()
    assert record.termination is Termination.NORMAL
    ours = [m for m in record.moves if m.player == 0]
    assert all(m.nodes == 500 and m.over_budget for m in ours)
    strict = engine(Nodes=500, strict="true")
    record = play_game(TICTACTOE, [strict, REGISTRY.bot("random")], budgets=[Budget(nodes=100)] * 2, seed=1)
    assert record.termination is Termination.PROTOCOL and record.loser == 0
    assert "reported 500 nodes for a budget of 100 (strict)" in record.message
    assert group_gone(strict.engine.pid)


@pytest.mark.processes
def test_a_healthy_engine_is_kept_between_games_and_quits_when_closed():
    bot = engine()
    pids = set()
    for seed in range(3):
        record = play_game(TICTACTOE, [bot, REGISTRY.bot("random")], seed=seed)
        assert record.termination is Termination.NORMAL
        pids.add(bot.engine.pid)
    assert len(pids) == 1
    (pid,) = pids
    bot.close()
    assert group_gone(pid)


@pytest.mark.processes
def test_games_replay_exactly_under_node_budgets():
    def moves(seed):
        bot = engine(Seed=7)
        record = play_game(REGISTRY.game("connect4"), [bot, REGISTRY.bot("random")], budgets=[Budget(nodes=10)] * 2, seed=seed)
        bot.close()
        return [(m.move, m.nodes) for m in record.moves]

    assert moves(11) == moves(11)


# faults: each a misbehaving engine; the engine and its children are gone after it

FAST = Limits(watchdog=1.0, time_margin=0.1)
FAULTS = [
    ("crash", None, Termination.CRASH, "crashed at ply 2: exited with code 3 (last stderr: thinking about move 1 | thinking about move 2 | fatal: the engine gave up)"),
    ("hang", Budget(nodes=100), Termination.TIMEOUT, "timed out at ply 0: no bestmove within 1s (the watchdog); killed"),
    ("late", Budget(time=0.2), Termination.TIMEOUT, "no bestmove within 0.3s (its time budget + margin); killed"),
    ("ignore_stop", Budget(time=0.2), Termination.TIMEOUT, "(its time budget + margin); killed (last stderr: thinking about move 1 | info string waiting for stop)"),
    ("illegal", None, Termination.ILLEGAL_MOVE, "played an illegal move at ply 2: 'a1' in tictactoe; legal: "),
    ("unreadable", None, Termination.ILLEGAL_MOVE, "sent an unreadable move at ply 0: 'nonsense': cannot read 'nonsense'"),
    ("garbage", None, Termination.PROTOCOL, "broke the protocol at ply 0: unexpected line 'hello from the engine'"),
    ("noise", None, Termination.OUTPUT, "bytes on stdout and stderr in one game; the limit is 1,048,576"),
    ("endless", None, Termination.OUTPUT, "bytes on stdout and stderr in one game; the limit is 1,048,576"),
    ("flood", None, Termination.OUTPUT, "bytes on stdout and stderr in one game; the limit is 1,048,576"),  # at whichever ply the flood is seen
    ("memory", None, Termination.MEMORY, "ran out of memory at ply 0: over its limit of 256 MiB"),
    ("fork", Budget(depth=3), Termination.TIMEOUT, "timed out at ply 0: no bestmove within 1s (the watchdog)"),
]


@pytest.mark.processes
@pytest.mark.parametrize("mode, budget, termination, message", FAULTS, ids=[f[0] for f in FAULTS])
def test_a_misbehaving_engine_loses_and_leaves_no_process(mode, budget, termination, message):
    limits = Limits(watchdog=1.0, time_margin=0.1, memory_limit=256 if mode == "memory" else None)
    bot = engine(mode, script=FAULTY, limits=limits)
    budgets = [budget or Budget(nodes=100), Budget(nodes=100)]
    record = play_game(TICTACTOE, [bot, REGISTRY.bot("random")], budgets=budgets, seed=2, time_margin=0.1)
    assert record.termination is termination and record.loser == 0, record.message
    assert message in record.message, record.message
    assert "\n" not in record.message
    pid = bot.engine.pid
    assert group_gone(pid), f"processes of engine {pid} survived"
    if mode == "fork":
        child = int(record.message.rsplit("child ", 1)[1].split()[0].rstrip(")"))
        assert process_gone(child), f"the engine's child {child} survived"
    # the next game starts a fresh engine
    play_game(TICTACTOE, [bot, REGISTRY.bot("random")], budgets=budgets, seed=2, time_margin=0.1)
    assert bot.engine.pid != pid
    bot.close()


@pytest.mark.processes
def test_an_engine_waits_for_a_late_move_as_long_as_the_referees_margin_not_its_own():
    # "late" answers 0.5 s after its movetime: lost under a margin of 0.1 s (FAULTS), played when
    # play_game is given 2 s, although the engine's own limits say 0.1 s
    bot = engine("late", script=FAULTY, limits=FAST)
    try:
        record = play_game(TICTACTOE, [bot, REGISTRY.bot("random")], budgets=[Budget(time=0.05)] * 2, time_margin=2.0)
    finally:
        bot.close()
    assert record.termination is Termination.NORMAL, record.message
    assert all(m.seconds > 0.5 for m in record.moves if m.player == 0)


@pytest.mark.alone
@pytest.mark.processes
def test_an_engine_that_obeys_stop_plays_under_a_time_budget():
    bot = engine("obey_stop", script=FAULTY, limits=FAST)
    record = play_game(TICTACTOE, [bot, REGISTRY.bot("random")], budgets=[Budget(time=0.1)] * 2, time_margin=0.1)
    assert "info string waiting for stop" in bot.engine.tail()  # kept with its stderr
    bot.close()
    assert record.termination is Termination.NORMAL, record.message
    assert all(0.09 < m.seconds < 0.2 for m in record.moves if m.player == 0)


# tournaments


def engine_processes(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.processes
@pytest.mark.parametrize("jobs, extra", [(2, []), (1, ["--no-isolation"]), (2, ["--dask", "local"])], ids=["2-jobs", "no-isolation", "dask"])
def test_tournaments_record_reported_nodes_replay_exactly_and_leave_no_engine(tmp_path, jobs, extra, capsys):
    if "--dask" in extra:
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    script = tmp_path / "marked_engine.py"  # a name of its own, to count its processes
    script.write_text(f"import runpy\nrunpy.run_path({str(RANDOM)!r}, run_name='__main__')\n")
    argv = [
        "run", "--game", "tictactoe", "--bot", f"eng=engine:cmd={command(script)},Seed=3", "--bot", "random",
        "--bot", "greedy", "--budget", "nodes=50", "--games", "2", "--openings", "2", "--jobs", str(jobs),
        "--no-progress", *extra,
    ]
    for db in ("a.db", "b.db"):
        assert main([*argv, "--db", str(tmp_path / db)]) == 0
    games, moves = results.load(tmp_path / "a.db")
    assert (games.termination == "normal").all() and len(games) == 6
    ours = moves[moves.bot == "eng"]
    assert len(ours) > 0 and (ours.reported == 1).all() and (ours.over_budget == 0).all()
    # the Python bots' nodes are reported too when counted in processes of their own
    assert (moves[moves.bot != "eng"].reported == int("--no-isolation" not in extra)).all()
    again = results.load(tmp_path / "b.db").moves
    assert list(moves.move) == list(again.move) and list(moves.nodes) == list(again.nodes)
    assert "eng" in capsys.readouterr().out
    assert engine_processes("marked_engine.py") == []


# the results database


@pytest.mark.processes
def test_a_database_of_the_previous_schema_opens_with_the_new_columns(tmp_path):
    db = tmp_path / "old.db"
    assert main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--games", "2",
                 "--jobs", "1", "--no-progress", "--db", str(db)]) == 0
    # make it what the first version wrote: no reported, over_budget, cpu or clock columns, schema 1
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE moves DROP COLUMN clock")
    con.execute("ALTER TABLE moves DROP COLUMN cpu")
    con.execute("ALTER TABLE moves DROP COLUMN reported")
    con.execute("ALTER TABLE moves DROP COLUMN over_budget")
    con.execute("UPDATE meta SET value='botarena-results/1' WHERE key='schema'")
    con.commit()
    assert "reported" not in [r[1] for r in con.execute("PRAGMA table_info(moves)")]
    con.close()
    games, moves = results.load(db)
    assert len(games) == 2 and len(moves) > 0 and (moves.reported == 0).all() and (moves.over_budget == 0).all()
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == SCHEMA
    con.close()
    # and it grows: new games are stored with the new columns
    assert main(["run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--games", "4",
                 "--jobs", "1", "--no-progress", "--db", str(db)]) == 0
    assert len(results.load(db).games) == 4


@pytest.mark.processes
def test_the_test_engine_passes_the_bot_conformance_checks():
    from arena.testing import check_bot

    bot = engine()
    checked = check_bot(bot, REGISTRY.game("connect4"), budgets=(Budget(nodes=150), Budget(time=0.05)), positions=3)
    bot.close()
    assert checked == 6


@pytest.mark.processes
def test_the_report_shows_engine_reported_nodes_and_moves_over_budget(tmp_path, capsys):
    db = tmp_path / "r.db"
    argv = ["run", "--game", "tictactoe", "--bot", f"eng=engine:cmd={command(RANDOM)},Nodes=60", "--bot", "random",
            "--budget", "nodes=50", "--games", "2", "--jobs", "1", "--no-progress", "--db", str(db)]
    assert main(argv) == 0
    games, moves = results.load(db)
    ours, its = int((moves.bot == "eng").sum()), int((moves.bot == "random").sum())
    table = results.report.reported(games, moves)
    # the engine's own counts, over budget on every move; the isolated random's, counted in its own process
    assert table.to_dict("index") == {
        "eng": {"moves": ours, "reported_moves": ours, "over_budget": ours},
        "random": {"moves": its, "reported_moves": its, "over_budget": 0},
    }
    out = capsys.readouterr().out
    assert "nodes counted in the bot's own process" in out and f"eng     {ours:>5}  {ours:>8}  {ours:>4}" in out
    # nodes the arena counted itself (in-process bots) need no such table
    plain = results.load(tmp_path / "r.db")
    assert "reported" not in results.report.report(plain.games, plain.moves.assign(reported=0))


@pytest.mark.processes
def test_a_missing_engine_is_one_line_from_the_command_line_and_a_crash_in_a_game(tmp_path, capsys):
    argv = ["run", "--game", "tictactoe", "--bot", "engine:cmd=./nope", "--bot", "random", "--db", str(tmp_path / "x.db")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == "arena: error: engine 'engine:cmd=./nope' cannot start: no such file './nope'\n"
    record = play_game(TICTACTOE, [REGISTRY.bot("random"), REGISTRY.bot("engine:cmd=./nope")])
    assert record.termination is Termination.CRASH and record.loser == 1
    assert record.message == "'engine:cmd=./nope' failed to start a game: no such file './nope'"


@pytest.mark.processes
def test_arena_play_runs_an_engine_in_its_own_process_and_leaves_none(tmp_path, capsys):
    script = tmp_path / "played_engine.py"
    script.write_text(f"import runpy\nrunpy.run_path({str(RANDOM)!r}, run_name='__main__')\n")
    argv = ["play", "connect4", "--bot", f"engine:cmd={command(script)}", "--bot", "random", "--budget", "nodes=20",
            "--seed", "1", "--quiet"]
    assert main(argv) == 0
    assert "result " in capsys.readouterr().out
    assert engine_processes("played_engine.py") == []


@pytest.mark.processes
def test_an_engine_that_stops_reading_its_input_times_out_instead_of_blocking_the_referee():
    from arena.errors import BotFault
    from bots.engine.process import EngineProcess

    deaf = EngineProcess([sys.executable, "-c", "import time; time.sleep(60)"], write_timeout=0.5)
    started = time.perf_counter()
    with pytest.raises(BotFault) as caught:
        deaf.send("position start moves " + "a1 " * 100_000)  # more than a pipe holds
    assert caught.value.termination is Termination.TIMEOUT
    assert "stopped reading its input for 0.5s; killed" in caught.value.detail
    assert time.perf_counter() - started < 5 and group_gone(deaf.pid)
    deaf.close()


@pytest.mark.processes
def test_a_repeated_info_string_is_kept_once_unless_stderr_came_between():
    from bots.engine.process import EngineProcess

    # writes a line to stderr when told "err", and reads on until its input closes
    script = "import sys\nfor line in sys.stdin:\n    print(line.strip(), file=sys.stderr, flush=True)"
    proc = EngineProcess([sys.executable, "-c", script], write_timeout=5)
    net = "info string NNUE evaluation using nn-ad9b42354671.nnue enabled"  # Stockfish's, at every go
    for _ in range(3):
        proc.log_line(net)
    assert proc.tail() == net
    proc.send("err")  # the engine's stderr goes to the same log: the line is kept again after it
    deadline = time.perf_counter() + 5
    while "err" not in proc.tail() and time.perf_counter() < deadline:
        time.sleep(0.01)
    proc.log_line(net)
    proc.log_line(net)
    assert proc.tail() == f"{net} | err | {net}"
    proc.new_game()  # a new game starts an empty log
    proc.log_line(net)
    assert proc.tail() == net
    proc.close()


@pytest.mark.processes
def test_a_search_wakes_the_reader_once_with_its_answer_and_lines_after_it_are_read_next():
    from bots.engine.process import EngineProcess

    # on "go": a note and progress lines one write at a time, then an answer with more lines behind it in one write
    script = (
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('go'):\n"
        "        sys.stdout.write('info string net loaded\\n'); sys.stdout.flush(); time.sleep(0.05)\n"
        "        for d in (1, 2, 3):\n"
        "            sys.stdout.write(f'info depth {d} pv a{d}\\n'); sys.stdout.flush(); time.sleep(0.05)\n"
        "        sys.stdout.write('bestmove a3\\ninfo depth 9\\nbestmove b1\\n'); sys.stdout.flush()\n"
        "    elif line.startswith('slow'):\n"
        "        sys.stdout.write('info depth 1\\n'); sys.stdout.flush()\n"
    )
    proc = EngineProcess([sys.executable, "-c", script], write_timeout=5)
    proc.send("go")
    lines = proc.read_lines(time.perf_counter() + 10)
    assert lines == ["info string net loaded", "info depth 1 pv a1", "info depth 2 pv a2", "info depth 3 pv a3", "bestmove a3", "info depth 9", "bestmove b1"]
    proc.unread(lines[5:])  # what followed the answer: read first next time, once
    assert proc.read_lines(time.perf_counter() + 1) == ["info depth 9", "bestmove b1"]
    # progress lines alone do not end the wait: at the deadline None, and the lines stay to be read
    proc.send("slow")
    assert proc.read_lines(time.perf_counter() + 0.3) is None
    assert proc.read_line(time.perf_counter() + 1) == "info depth 1"
    assert proc.read_line(time.perf_counter() + 0.05) is None
    proc.close()


@pytest.mark.processes
def test_a_faulted_engine_s_notes_not_yet_handed_out_are_in_its_last_words():
    from bots.engine.process import EngineProcess

    # a note and a progress line, then silence: the wait ends at its deadline with both unread
    script = "import sys, time\nsys.stdout.write('info string about to hang\\ninfo depth 1\\n'); sys.stdout.flush(); time.sleep(30)\n"
    proc = EngineProcess([sys.executable, "-c", script], write_timeout=5)
    assert proc.read_lines(time.perf_counter() + 0.5) is None
    fault = proc.fault(Termination.TIMEOUT, "timed out", "no bestmove")
    assert fault.detail == "no bestmove (last stderr: info string about to hang)"
    proc.close()


# display names


@pytest.mark.parametrize("cmd, short", [
    ("stockfish", "stockfish"),
    ("/usr/games/stockfish", "stockfish"),
    ("python3 examples/engines/python/engine.py --level 3", "engine.py"),
    ("python3.11 -u bots/my_bot.py", "my_bot.py"),
    ("java -jar build/Engine.jar", "Engine.jar"),
    ("./engine --fast", "engine"),
])
def test_an_engine_entered_without_a_name_is_shown_by_its_program(cmd, short):
    from arena.front.settings import parse_entrant
    from arena.front.entrants import short_names

    named, alone = parse_entrant(f"mine=engine:cmd={cmd}"), parse_entrant(f"engine:cmd={cmd}")
    assert [e.name for e in short_names([named, alone, parse_entrant("random")], REGISTRY)] == ["mine", short, "random"]
    twice = short_names([alone, parse_entrant(f"engine:cmd={cmd},Seed=2")], REGISTRY)
    assert [e.name for e in twice] == [alone.spec, f"engine:cmd={cmd},Seed=2"]  # not unique: the specs stay


@pytest.mark.processes
def test_a_tournament_shows_an_unnamed_engine_by_its_script(tmp_path, capsys):
    argv = ["run", "--game", "tictactoe", "--bot", f"engine:cmd={command(RANDOM)}", "--bot", "random",
            "--budget", "nodes=50", "--games", "2", "--jobs", "1", "--no-progress", "--db", str(tmp_path / "t.db")]
    assert main(argv) == 0
    games, _ = results.load(tmp_path / "t.db")
    assert set(games["first"]) | set(games["second"]) == {"random_engine.py", "random"}
    assert "random_engine.py" in capsys.readouterr().out


@pytest.mark.processes
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_healthy_engine_plays_its_processs_next_games_and_is_closed_at_the_end(tmp_path, jobs, capsys):
    starts = tmp_path / "starts.txt"
    script = tmp_path / "counted_engine.py"  # notes each start of an engine process
    script.write_text(
        f"import os, runpy\nwith open({str(starts)!r}, 'a') as f:\n    f.write(f'{{os.getpid()}}\\n')\n"
        f"runpy.run_path({str(RANDOM)!r}, run_name='__main__')\n"
    )
    argv = ["run", "--game", "tictactoe", "--bot", f"eng=engine:cmd={command(script)}", "--bot", "random",
            "--bot", "greedy", "--budget", "nodes=50", "--games", "4", "--jobs", str(jobs), "--no-progress",
            "--db", str(tmp_path / "t.db")]
    assert main(argv) == 0, capsys.readouterr().err
    games, _ = results.load(tmp_path / "t.db")
    assert (games.termination == "normal").all() and (games["first"] == "eng").sum() + (games["second"] == "eng").sum() == 8
    pids = starts.read_text().split()
    # one engine per worker process (the set-up check starts one more), not one per game
    assert 1 < len(pids) <= 1 + jobs, pids
    assert all(process_gone(int(pid)) for pid in pids), "an engine outlived the run"


# output: a healthy engine's protocol lines are not charged; what is charged stays bounded on disk


@pytest.mark.processes
def test_protocol_lines_are_not_charged_against_the_output_limit():
    limits = Limits(watchdog=5.0, output_limit=16)  # each move sends about 50 KiB of info lines
    bot = engine("chatter", script=FAULTY, limits=limits)
    record = play_game(TICTACTOE, [bot, REGISTRY.bot("random")], budgets=[Budget(nodes=100)] * 2, seed=2)
    bot.close()
    assert record.termination is Termination.NORMAL, record.message
    assert sum(m.player == 0 for m in record.moves) >= 3  # about 150 KiB of info lines in all


@pytest.mark.processes
def test_a_child_writing_to_stderr_between_moves_is_stopped_at_the_output_limit():
    limits = Limits(watchdog=5.0, output_limit=64)
    bot = engine("babble", script=FAULTY, limits=limits)
    slow = REGISTRY.bot("random")
    slow.choose = lambda game, state, budget: (time.sleep(0.5), game.legal_moves(state)[0])[1]  # its child writes meanwhile
    record = play_game(TICTACTOE, [bot, slow], budgets=[Budget(nodes=100)] * 2, seed=2)
    assert record.termination is Termination.OUTPUT and record.loser == 0, record.message
    written = int(record.message.split(" bytes on stdout and stderr")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert written <= 64 * 1024 + 4096, record.message  # the file size limit held while nobody read it
    assert group_gone(bot.engine.pid)
    bot.close()
