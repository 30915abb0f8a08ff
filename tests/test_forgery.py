"""Nothing a bot sends is trusted: forged answers and out-of-range decisions lose their own
game in every mode (in the runner's process, isolated, sandboxed, on Dask), no payload runs
in the runner, and every other game is played as in a run without the forgers."""

import sqlite3
import sys
import time

import numpy as np

import pytest

import results
from arena import Budget, Decision, Termination, get_registry, play_game
from arena.front.cli import main
from arena.referee import MAX_DEPTH
from tests.helpers import RUN_MODES, sandbox_unavailable
from tests.plugins import forgers

REGISTRY = get_registry(entry_points=False, plugins=[forgers])

# bot -> (spec, termination, words its games' messages hold)
PAYLOADS = {
    "reduce": ("payload:kind=reduce", Termination.ILLEGAL_MOVE, ["illegal move <tests.plugins.forgers.Payload object"]),
    "hugemove": ("payload:kind=hugemove", Termination.ILLEGAL_MOVE, ["illegal move 'xxxx", "…"]),
    "deepmove": ("payload:kind=deepmove", Termination.ILLEGAL_MOVE, ["illegal move "]),
}
RAW = {  # frames written to the host's socket: isolated modes only
    "rawpickle": ("payload:kind=rawpickle", Termination.PROTOCOL, ["broke the protocol", "not JSON"]),
    "hugeframe": ("payload:kind=hugeframe", Termination.PROTOCOL, ["answer of 4,294,967,280 bytes"]),
    "deepjson": ("payload:kind=deepjson", Termination.PROTOCOL, ["not JSON"]),
    "nontext": ("payload:kind=nontext", Termination.PROTOCOL, ["malformed answer: move is not text"]),
    "garbage": ("payload:kind=garbage", Termination.PROTOCOL, ["broke the protocol", "not JSON"]),
}
DECISIONS = {
    f"{field}-{value}": (f"decision:field={field},value={value}", Termination.PROTOCOL, ["broke the protocol", words])
    for field, value, words in [
        ("score", "text", "score"), ("score", "inf", "score"), ("score", "nan", "score"), ("score", "big", "score"),
        ("depth", "text", "depth"), ("depth", "big", "depth"), ("depth", "negative", "depth"),
        ("nodes", "text", "nodes"), ("nodes", "big", "nodes"), ("nodes", "negative", "nodes"),
        ("pv", "long", "principal variation"), ("pv", "unwritable", "principal variation"),
    ]
}


def attackers(mode: str) -> dict:
    out = {**PAYLOADS, **DECISIONS}
    if "--no-isolation" not in RUN_MODES[mode]:  # bots in processes of their own
        out.update(RAW)
    return out


def run(tmp_path, mode: str, bots: dict, marker) -> "results.Tables":
    db = tmp_path / f"{mode}.db"
    argv = ["run", "--game", "tictactoe", "--games", "2", "--openings", "0", "--format", "gauntlet", "--budget",
            "nodes=200", "--bot", "random", "--bot", "greedy", "--challenger", "greedy", "--watchdog", "20",
            "--no-progress", "--db", str(db), "--plugin", "tests.plugins.forgers", *RUN_MODES[mode]]
    for name, (spec, _, _) in bots.items():
        spec = spec.replace("kind=reduce", f"kind=reduce,path={marker}").replace("kind=rawpickle", f"kind=rawpickle,path={marker}")
        argv += ["--bot", f"{name}={spec}", "--challenger", name]
    assert main(argv) == 0
    return results.load(db)


def mode_param(mode: str):
    if mode == "in-process":
        return mode
    marks = [pytest.mark.processes]
    if mode == "sandboxed":
        marks.append(pytest.mark.slow(reason="a sandbox started afresh for each of the 38 games a forger loses"))
    if mode == "dask":
        marks.append(pytest.mark.slow(reason="a Dask cluster's workers start the bots' processes of the 38 games a "
                                             "forger loses: 11 s alone, 22 s beside another worker"))
    return pytest.param(mode, marks=marks)


@pytest.mark.parametrize("mode", [mode_param(m) for m in RUN_MODES])
def test_every_forgery_loses_its_game_and_runs_nothing(tmp_path, mode, capsys):
    if mode == "sandboxed" and sandbox_unavailable():
        pytest.skip(sandbox_unavailable())
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    marker = tmp_path / "payload-ran"
    bots = attackers(mode)
    games = run(tmp_path, mode, bots, marker).games
    assert not marker.exists(), "a bot's payload ran in the runner"
    assert len(games) == 2 * (len(bots) + 1)
    for row in games.itertuples():
        name = row.first if row.first != "random" else row.second
        if name == "greedy":
            continue
        _, termination, words = bots[name]
        side = 0 if row.first == name else 1
        assert (row.termination, row.loser) == (termination.value, side), (name, row.message)
        assert row.message.count("\n") == 0 and len(row.message) < 1000, (name, row.message)
        for w in words:
            assert w in row.message, (name, row.message)
    # the honest games are those of a run without the attackers
    (tmp_path / "clean").mkdir()
    clean = run(tmp_path / "clean", mode, {}, marker).games
    keep = ["first", "second", "termination", "result", "plies", "seed"]
    honest = games[(games.first == "greedy") | (games.second == "greedy")][keep].reset_index(drop=True)
    assert honest.equals(clean[keep].reset_index(drop=True))


@pytest.mark.parametrize(
    "decision, words",
    [
        (dict(score="x"), "score 'x' is not a number"),
        (dict(score=float("inf")), "score inf"),
        (dict(score=2.0), "within the game's bounds [-1, 1]"),
        (dict(depth="deep"), "depth 'deep'"),
        (dict(depth=10**30), f"from 0 to {MAX_DEPTH:,}"),
        (dict(depth=True), "depth True"),
        (dict(nodes=-5), "reported nodes -5"),
        (dict(pv=(None,)), "principal variation cannot be written: TypeError"),
        (dict(pv=[0] * 1001), "at most 1,000 moves"),
    ],
)
def test_the_referee_checks_every_field_of_a_decision_before_it_is_stored(decision, words):
    class Forger(forgers.DecisionBot):
        def choose(self, game, state, budget):
            return Decision(game.legal_moves(state)[0], **decision)

    game = REGISTRY.game("tictactoe")
    record = play_game(game, [Forger(), REGISTRY.bot("random")], budgets=[Budget(nodes=50)] * 2)
    assert (record.termination, record.loser, record.moves) == (Termination.PROTOCOL, 0, ())
    assert "'decision' broke the protocol at ply 0: " in record.message and words in record.message


def test_a_fit_decision_is_stored_as_given():
    class Honest(forgers.DecisionBot):
        def choose(self, game, state, budget):
            first = game.legal_moves(state)[0]
            after = game.apply(state, first)
            line = (first,) if game.is_terminal(after) else (first, game.legal_moves(after)[0])
            return Decision(first, score=-1, depth=0, pv=line, nodes=7)

    game = REGISTRY.game("tictactoe")
    record = play_game(game, [Honest(), Honest()])
    assert record.termination == Termination.NORMAL
    first = record.moves[0]
    assert (first.score, first.depth, first.nodes, first.reported, len(first.pv)) == (-1, 0, 7, True, 2)


@pytest.mark.processes
def test_reports_and_ladders_survive_rows_an_earlier_version_stored(tmp_path, capsys):
    db = tmp_path / "old.db"
    assert main(["ladder", str(db), "--game", "tictactoe", "--add", "random", "--add", "greedy",
                 "--games", "4", "--no-progress"]) == 0
    with sqlite3.connect(db) as con:  # what the referee used to let through, in the first game's moves
        first = con.execute("SELECT game_id, ply FROM moves ORDER BY game_id, ply LIMIT 3").fetchall()
        where = " WHERE game_id = ? AND ply = ?"
        con.execute("UPDATE moves SET score='x', depth='deep'" + where, first[0])
        con.execute("UPDATE moves SET score=9e999, depth=1e30" + where, first[1])
        con.execute("UPDATE moves SET nodes='many'" + where, first[2])
    capsys.readouterr()
    for argv in (["report", str(db)], ["report", str(db), "--format", "json"], ["report", str(db), "--html", str(tmp_path / "r.html")],
                 ["ladder", str(db), "--remove", "greedy"], ["ladder", str(db), "--games", "2", "--no-progress"]):
        assert main(argv) == 0, argv
        assert "Traceback" not in capsys.readouterr().err
    moves = results.load(db).moves.sort_values(["game_id", "ply"])
    assert moves.score.iloc[:2].isna().all() and moves.depth.iloc[:2].isna().all() and moves.nodes.iloc[2] == 0


# limits a bot cannot lift: soft = hard, set before any plugin code runs

LIFTERS = {
    "memory": ("lift-memory", Termination.MEMORY, "over its limit of 256 MiB"),
    "file": ("lift-file", Termination.OUTPUT, "more than its limit of 65,536 bytes"),
}


@pytest.mark.processes
@pytest.mark.parametrize("mode", ["isolated", "sandboxed", "dask"])
def test_a_bot_cannot_lift_its_memory_or_file_size_limit(tmp_path, mode, monkeypatch):
    if mode == "sandboxed" and sandbox_unavailable():
        pytest.skip(sandbox_unavailable())
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where an unsandboxed bot writes its file
    db = tmp_path / "lift.db"
    argv = ["run", "--game", "tictactoe", "--games", "2", "--openings", "0", "--format", "gauntlet", "--bot", "random",
            "--memory-limit", "256", "--output-limit", "64", "--jobs", "1", "--no-progress", "--db", str(db),
            "--plugin", "tests.plugins.lifters", *RUN_MODES[mode]]
    for name, (spec, _, _) in LIFTERS.items():
        argv += ["--bot", f"{name}={spec}", "--challenger", name]
    assert main(argv) == 0
    for row in results.load(db).games.itertuples():
        name = row.first if row.first != "random" else row.second
        spec, termination, words = LIFTERS[name]
        assert row.termination == termination.value and words in row.message, (name, row.message)


# a forged node count: the bot's counter lives in its own process, its CPU time does not


def ceiling_run(tmp_path, mode: str, bots: dict) -> "results.Tables":
    db = tmp_path / f"ceiling-{mode}.db"
    jobs = "1" if mode == "no-cgroup" else "2"  # in this process, where the test took its cgroups away
    argv = ["run", "--game", "connect4", "--games", "2", "--openings", "1", "--format", "gauntlet", "--budget",
            "nodes=500", "--bot", "random", "--bot", "honest=iterative", "--challenger", "honest", "--jobs", jobs,
            "--no-progress", "--db", str(db), "--plugin", "tests.plugins.lifters", *RUN_MODES.get(mode, [])]
    for name, spec in bots.items():
        argv += ["--bot", f"{name}={spec}", "--challenger", name]
    assert main(argv) == 0
    return results.load(db)


@pytest.mark.alone
@pytest.mark.processes
@pytest.mark.parametrize("mode", ["isolated", "sandboxed", "dask", "no-cgroup"])
def test_a_bot_that_forges_its_node_count_meets_its_cpu_ceiling(tmp_path, mode, monkeypatch):
    if mode == "sandboxed" and sandbox_unavailable():
        pytest.skip(sandbox_unavailable())
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    if mode == "no-cgroup":  # the tree's CPU time read from each process's clock (cgroup.Descendants)
        from arena.execution import cgroup

        monkeypatch.setattr(cgroup, "tree", lambda memory_bytes: None)
    # one searches 1,000 times its budget and reports one node (no slack or slow probe hides that);
    # one searches in its new-game hook
    games, moves = ceiling_run(tmp_path, mode, {"forger": "lift-count:times=1000", "early": "precompute:ms=1000"})
    for name in ("forger", "early"):
        forged = games[(games["first"] == name) | (games.second == name)]
        assert len(forged) == 2
        for row in forged.itertuples():
            side = 0 if row.first == name else 1
            assert (row.termination, row.loser) == ("cpu_ceiling", side), (name, row.message)
            assert "went over its CPU ceiling" in row.message and "a move of 500 nodes" in row.message, row.message
    # the honest iterative search stays far below its ceiling; its games are those of a run without the forger
    honest_moves = moves[moves.bot == "honest"]
    assert (honest_moves.nodes <= 500).all() and (honest_moves.reported == 1).all()
    (tmp_path / "clean").mkdir()
    clean = ceiling_run(tmp_path / "clean", mode, {}).games
    keep = ["first", "second", "termination", "result", "plies", "seed"]
    honest = games[(games["first"] == "honest") | (games.second == "honest")][keep].reset_index(drop=True)
    assert honest.equals(clean[keep].reset_index(drop=True))
    assert (clean.termination == "normal").all()


@pytest.mark.alone
@pytest.mark.processes
@pytest.mark.parametrize("game", ["connect4", "othello"])
def test_no_built_in_bot_comes_near_its_cpu_ceiling(tmp_path, game):
    from arena.execution import ceiling

    cost = ceiling.per_node(REGISTRY.game(game))
    for nodes in (300, 3000):
        db = tmp_path / f"{game}-{nodes}.db"
        argv = ["run", "--game", game, "--games", "2", "--openings", "0", "--format", "gauntlet", "--budget",
                f"nodes={nodes}", "--bot", "random", "--jobs", "2", "--no-progress", "--db", str(db)]
        for name in ("greedy", "minimax", "alphabeta", "iterative", "solver", "mcts"):
            argv += ["--bot", name, "--challenger", name]
        assert main(argv) == 0
        games, moves = results.load(db)
        assert (games.termination == "normal").all(), games.message.dropna().tolist()
        # each game's CPU so far against what its moves allowed so far (the probe measured in this
        # process, not the workers': the margin asked for covers the difference)
        for (bot, _), own in moves.groupby(["bot", "game_id"]):
            allowed = ceiling.SLACK + ceiling.allowance(nodes, cost) * np.arange(1, len(own) + 1)
            peak = float((own.cpu.cumsum().to_numpy() / allowed).max())
            assert peak < 0.6, (bot, nodes, peak)


# a sandboxed plugin's probe answer is checked too: it is written by the plugin's process


@pytest.mark.parametrize(
    "answer, why",
    [
        ([], "not an object"),
        ({"failed": 5}, "failed is not text"),
        ({"games": [], "errors": 5, "bots": {}, "checks": {}}, "lists of text"),
        ({"games": [], "errors": [], "bots": {"evil": {}}, "checks": {}}, "lacks its flags"),
        ({"games": [], "errors": [], "bots": {"x": {"interactive": False, "external": False, "follows_moves": False,
                                                    "describe": {"name": 1}}}, "checks": {}}, "malformed description"),
        ({"games": [], "errors": [], "bots": {}, "checks": {"x": {"short": None, "error": ["a"]}}}, "malformed error"),
        ({"games": [], "errors": [], "bots": {}, "checks": {"x": {"short": 3}}}, "malformed field"),
    ],
)
def test_a_malformed_probe_answer_is_named(answer, why):
    from arena.execution.sandbox.probe import answer_problem

    assert why in answer_problem(answer)


def test_a_well_formed_probe_answer_passes():
    from arena.execution.sandbox.probe import answer_problem, examine

    request = {"game_plugins": [], "source": "tests.plugins.lifters", "game": "tictactoe", "specs": ["burn:ms=1", "nope"]}
    answer = examine(request)
    assert answer["bots"] and answer_problem(answer) is None


@pytest.mark.processes
def test_a_plugin_that_forges_its_probe_answer_is_refused_in_one_line(tmp_path, capsys):
    if sandbox_unavailable():
        pytest.skip(sandbox_unavailable())
    argv = ["run", "--game", "tictactoe", "--games", "2", "--bot", "random", "--bot", "evil", "--no-progress",
            "--db", str(tmp_path / "r.db"), "--plugin", "tests.plugins.probe_forger", "--sandbox"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "malformed answer (bot 'evil' lacks its flags)" in err[0], err


@pytest.mark.processes
def test_cpu_a_kept_host_uses_between_games_counts_for_its_next_game():
    from arena.execution import cgroup
    from arena.execution.isolation import HostPool, RemoteBot
    from arena.limits import Limits

    if cgroup.available() is not None:
        pytest.skip(f"no cgroups here: {cgroup.available()}")
    game, pool = REGISTRY.game("connect4"), HostPool()
    try:
        burner = RemoteBot("idle-burn:idle=0.3,ms=1000", ("tests.plugins.lifters",), Limits(), pool)
        budgets = [Budget(nodes=500)] * 2
        first = play_game(game, [burner, RemoteBot("random", (), Limits(), pool)], budgets=budgets, seed=1)
        assert first.termination is Termination.NORMAL, first.message  # its moves come fast: it never idles
        host = burner.host
        burner.release()
        time.sleep(1.6)  # idle in the pool: its thread burns a second
        second = play_game(game, [burner, RemoteBot("random", (), Limits(), pool)], budgets=budgets, seed=2)
        assert burner.host is host  # the same host, kept from the first game
        assert second.termination is Termination.CPU_CEILING, second.message
        assert "went over its CPU ceiling at ply 0" in second.message
    finally:
        pool.close()
