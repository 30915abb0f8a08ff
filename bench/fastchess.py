"""botarena against fastchess on identical work: wall time, engine start-ups, referee time per ply.

Stockfish self-play from the start position, Threads=1 and Hash=16 on both sides, 2 games
at a time, ``--games`` games at each ``--nodes`` budget, no adjudication (fastchess) and
``draws=claim`` (botarena's chess: threefold repetition and the fifty-move rule end the game,
as fastchess ends it). Each run is a whole command timed from start to exit (start-up,
engines, games, results), in a fresh folder:

    arena run --game chess --bot a=uci:cmd=ENGINE,Threads=1,Hash=16 --bot b=... --budget nodes=N
        --games G --openings 0 --jobs 2 --no-progress --db DB
    fastchess -engine cmd=ENGINE name=a -engine cmd=ENGINE name=b
        -each tc=inf nodes=N option.Threads=1 option.Hash=16 -rounds G/2 -games 2 -concurrency 2
        [-pgnout file=PGN notation=uci]

The engine is started through a small shell script that records each start and, when the
engine exits, its CPU time (``times``), so each tool's engine start-ups and its own CPU (its
total less the engines') can be told apart. Rounds alternate the tools (arena, fastchess,
fastchess with PGN, ...); figures are medians of ``--runs`` rounds. Every run's games are
checked to be the same games (results and moves) as the first arena run's. fastchess waits
for its games in steps of one second, so its wall time ends about a whole second after its
start-up: compare on hundreds of games.

``--affinity`` pins each game slot to a CPU in both tools (``--affinity``; fastchess's
``-use-affinity``), where by default the kernel places every process.

``--floor`` adds a third way, bench/uci_floor.py: the same games played by the least a Python
program can do (engine I/O only: no move checked, nothing recorded), to tell what any Python
referee costs from what botarena's checks and records cost.

fastchess is not built here: give its binary with ``--fastchess PATH`` or put it on PATH.
``--compile`` writes the botarena tree's bytecode first (``python -m compileall``), as an
installed package has it: where PYTHONDONTWRITEBYTECODE is set and the tree has none, every
botarena process (the runner and each worker) compiles its modules again, about 0.3 s of CPU.

    python bench/fastchess.py --fastchess /tmp/fastchess-src/fastchess --games 400 --nodes 100,1000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

BUILD = """no fastchess binary: give one with --fastchess PATH or put 'fastchess' on PATH. To build one
from its public source (https://github.com/Disservin/fastchess; a C++17 compiler and make):
    git clone --depth 1 https://github.com/Disservin/fastchess /tmp/fastchess-src
    cd /tmp/fastchess-src && make -j2        # the binary: /tmp/fastchess-src/fastchess"""

#: The engine as both tools start it: records the start, runs the engine, records its CPU time.
WRAPPER = """#!/bin/sh
: > "{logs}/$$.start"
"{engine}" "$@"
code=$?
times > "{logs}/$$.cpu"
exit $code
"""

_TIMES = re.compile(r"(\d+)m([\d.]+)s")
_COMMENT = re.compile(r"\{[^}]*\}|;[^\n]*")
_TAG = re.compile(r'^\[(\w+) "(.*)"\]$')
_MOVE = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")


def find_fastchess(given: str | None) -> str:
    path = given or shutil.which("fastchess")
    if not path or not os.access(path, os.X_OK):
        sys.exit((f"no fastchess at {given!r}: " if given else "") + BUILD)
    return path


def find_engine(given: str) -> str:
    path = given if os.sep in given else shutil.which(given) or shutil.which(given, path="/usr/games")
    if not path or not os.access(path, os.X_OK):
        sys.exit(f"no engine {given!r}: install Stockfish (apt-get install stockfish) or give --engine PATH")
    return path


def arena_command(args, wrapper: str, nodes: int, folder: Path) -> list[str]:
    bot = f"uci:cmd={wrapper},Threads=1,Hash=16"
    return [sys.executable, "-m", "arena", "run", "--game", "chess", "--bot", f"a={bot}", "--bot", f"b={bot}",
            "--budget", f"nodes={nodes}", "--games", str(args.games), "--openings", "0", "--jobs", "2",
            "--no-progress", "--db", str(folder / "arena.db")] + (["--affinity"] if args.affinity else [])


def fastchess_command(args, wrapper: str, nodes: int, folder: Path, pgn: bool) -> list[str]:
    out = [args.fastchess, "-engine", f"cmd={wrapper}", "name=a", "-engine", f"cmd={wrapper}", "name=b",
           "-each", "tc=inf", f"nodes={nodes}", "option.Threads=1", "option.Hash=16",
           "-rounds", str(args.games // 2), "-games", "2", "-concurrency", "2"] + (["-use-affinity"] if args.affinity else [])
    return out + (["-pgnout", f"file={folder / 'games.pgn'}", "notation=uci"] if pgn else [])


def steal_seconds() -> float | None:
    """CPU seconds the hypervisor has taken from this machine's CPUs since boot (``steal`` in
    /proc/stat), or None where it is not told: time the runs waited for a CPU that was not there."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def timed(command: list[str], folder: Path, env: dict) -> dict:
    """Run ``command`` in ``folder``: its wall seconds, CPU seconds (itself and every process it
    waited for), the load average before it and the CPU time stolen while it ran."""
    load = os.getloadavg()[0]
    stolen = steal_seconds()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        tail = done.stdout.decode(errors="replace").strip().splitlines()[-5:]
        sys.exit(f"{command[0]} failed (exit {done.returncode}): " + " | ".join(tail))
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    now = steal_seconds()
    return {"wall": wall, "cpu": cpu, "load": load, "steal": None if stolen is None or now is None else now - stolen}


def engine_figures(logs: Path) -> tuple[int, float, int]:
    """Engines started, their CPU seconds, and how many of them reported it (those that exited)."""
    starts = len(list(logs.glob("*.start")))
    cpu, reported = 0.0, 0
    for path in logs.glob("*.cpu"):
        found = _TIMES.findall(path.read_text())
        if len(found) == 4:  # the shell's user and system time, then its children's: the engine's
            cpu += sum(int(m) * 60 + float(s) for m, s in found[2:])
            reported += 1
    return starts, cpu, reported


def arena_games(db: Path) -> Counter:
    """The games in a botarena database, as ``(result, moves)`` counted."""
    with sqlite3.connect(db) as con:
        moves: dict[int, list[str]] = {}
        for game_id, move in con.execute("SELECT game_id, move FROM moves ORDER BY game_id, ply"):
            moves.setdefault(game_id, []).append(move)
        results = dict(con.execute("SELECT game_id, result FROM games"))
    return Counter((results[g], tuple(moves.get(g, ()))) for g in results)


def pgn_games(path: Path) -> Counter:
    """The games in a PGN file written with ``notation=uci``, as ``(result, moves)`` counted."""
    games: Counter = Counter()
    tags: dict = {}
    text: list[str] = []

    def flush():
        if tags:
            words = _COMMENT.sub(" ", " ".join(text)).split()
            games[(tags.get("Result"), tuple(w for w in words if _MOVE.match(w)))] += 1

    for line in path.read_text().splitlines():
        m = _TAG.match(line.strip())
        if m:
            if text:
                flush()
                tags, text = {}, []
            tags[m.group(1)] = m.group(2)
        else:
            text.append(line)
    flush()
    return games


def floor_command(args, wrapper: str, nodes: int, plies: int) -> list[str]:
    return [sys.executable, str(Path(__file__).with_name("uci_floor.py")), "--engine", wrapper, "--nodes", str(nodes),
            "--games", str(args.games), "--plies", str(plies), "--jobs", "2"]


def one_run(args, way: str, nodes: int, env: dict, plies: int = 0) -> dict:
    """One whole command of ``way`` (arena, fastchess, fastchess+pgn, floor) in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix=f"bench-fastchess-{way}-") as tmp:
        folder = Path(tmp)
        logs = folder / "engines"
        logs.mkdir()
        wrapper = folder / "engine.sh"
        wrapper.write_text(WRAPPER.format(logs=logs, engine=args.engine))
        wrapper.chmod(0o755)
        if way == "arena":
            command = arena_command(args, str(wrapper), nodes, folder)
        elif way == "floor":
            command = floor_command(args, str(wrapper), nodes, plies)
        else:
            command = fastchess_command(args, str(wrapper), nodes, folder, pgn=way == "fastchess+pgn")
        out = timed(command, folder, env)
        out["starts"], out["engine_cpu"], out["engine_reported"] = engine_figures(logs)
        out["games"] = arena_games(folder / "arena.db") if way == "arena" else (
            pgn_games(folder / "games.pgn") if way == "fastchess+pgn" else None)
        return out


def summary(games: Counter) -> str:
    by_result = Counter()
    for (result, moves), n in games.items():
        by_result[result] += n
    lengths = sorted({len(moves) for result, moves in games})
    shown = ", ".join(f"{r} {n}" for r, n in sorted(by_result.items()))
    return f"{sum(games.values())} games ({shown}; {len(games)} distinct, plies {lengths[0]}-{lengths[-1]})"


def compile_tree(env: dict) -> None:
    """Write the bytecode of the botarena tree that ``env`` imports (its packages' __pycache__)."""
    where = subprocess.run([sys.executable, "-c", "import arena, pathlib; print(pathlib.Path(arena.__file__).parent.parent)"],
                           env=env, cwd="/", capture_output=True, text=True, check=True).stdout.strip()
    packages = [str(Path(where) / p) for p in ("arena", "bots", "games", "results") if (Path(where) / p).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], env=env, stdout=subprocess.DEVNULL, check=True)
    print(f"compiled {', '.join(packages)}")


def start_cost(engine: str, runs: int = 5) -> float:
    """Median seconds to start the engine, handshake (uci, Hash=16, isready) and quit it."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([engine], input=b"uci\nsetoption name Hash value 16\nisready\nquit\n", stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report(args, nodes: int, runs: dict[str, list[dict]], start_seconds: float) -> None:
    median = lambda way, key: statistics.median(r[key] for r in runs[way])  # noqa: E731
    reference = next(r["games"] for r in runs["arena"] if r["games"] is not None)
    plies = sum(len(moves) * n for (_, moves), n in reference.items())
    print(f"\nnodes={nodes}: {summary(reference)}; {plies:,} plies")
    for way, made in runs.items():
        for i, run in enumerate(made):
            if run["games"] is not None and run["games"] != reference:
                print(f"  WARNING: {way} run {i + 1} played other games: {summary(run['games'])}")
    if "fastchess+pgn" in runs:
        print("  fastchess's PGN has the same games (results and moves) as botarena's database"
              if all(r["games"] == reference for r in runs["fastchess+pgn"]) else "  fastchess's PGN differs")
    print(f"  {'way':<14} {'wall s (runs)':<26} {'median':>7} {'ratio':>6} {'starts':>6} {'/game':>6} "
          f"{'engine cpu':>10} {'own cpu':>8} {'own us/ply':>10} {'slot us/ply':>11}")
    base = median("fastchess", "wall")
    for way, made in runs.items():
        wall = median(way, "wall")
        engine = median(way, "engine_cpu")
        own = median(way, "cpu") - engine
        starts = median(way, "starts")
        # what each of the 2 game slots spent per ply outside the engines: wall x 2 less engine CPU
        slot = (2 * wall - engine) / plies * 1e6
        walls = ", ".join(f"{r['wall']:.2f}" for r in made)
        print(f"  {way:<14} {walls:<26} {wall:7.2f} {wall / base:6.3f} {starts:6.0f} {starts / args.games:6.3f} "
              f"{engine:10.2f} {own:8.2f} {own / plies * 1e6:10.1f} {slot:11.1f}")
    arena, fast = runs["arena"], runs["fastchess"]
    extra_starts = median("arena", "starts") - median("fastchess", "starts")
    own_gap = (median("arena", "cpu") - median("arena", "engine_cpu")) - (median("fastchess", "cpu") - median("fastchess", "engine_cpu"))
    gap = median("arena", "wall") - base
    print(f"  difference {gap:+.2f} s wall: engine start-ups {extra_starts:+.0f} x {start_seconds:.3f} s = "
          f"{extra_starts * start_seconds:+.2f} s; tools' own CPU {own_gap:+.2f} s "
          f"({own_gap / plies * 1e6:+.1f} us a ply, about {own_gap / 2:+.2f} s of wall on 2 slots)")
    # each round runs the tools one after the other: a round's ratio is free of the machine's drift between rounds
    paired = sorted(a["wall"] / f["wall"] for a, f in zip(arena, fast))
    print(f"  ratio round by round: {', '.join(f'{r:.3f}' for r in paired)}; median {statistics.median(paired):.3f}")
    if "floor" in runs:
        floor = sorted(a["wall"] / f["wall"] for a, f in zip(runs["floor"], fast))
        print(f"  the Python floor (bench/uci_floor.py) round by round: {', '.join(f'{r:.3f}' for r in floor)}; "
              f"median {statistics.median(floor):.3f}")
    if all(r["steal"] is not None for made in runs.values() for r in made):
        # on a shared host a run the hypervisor took CPU from is slower for it: its wall time says little
        shown = "; ".join(f"{way} " + ", ".join(f"{r['steal']:.1f}" for r in made) for way, made in runs.items())
        print(f"  CPU seconds stolen by the hypervisor during each run: {shown}")
    loads = [r["load"] for made in runs.values() for r in made]
    print(f"  load average before the runs: {min(loads):.2f}-{max(loads):.2f}; "
          f"engines reporting CPU: arena {min(r['engine_reported'] for r in arena)}/{min(r['starts'] for r in arena)}, "
          f"fastchess {min(r['engine_reported'] for r in fast)}/{min(r['starts'] for r in fast)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fastchess", help="the fastchess binary (default: 'fastchess' on PATH)")
    parser.add_argument("--engine", default="stockfish", help="the UCI engine (default: stockfish, on PATH or in /usr/games)")
    parser.add_argument("--games", type=int, default=400, help="games per run, even (default 400)")
    parser.add_argument("--nodes", default="100,1000", help="node budgets per move, comma-separated (default 100,1000)")
    parser.add_argument("--runs", type=int, default=3, help="rounds, each running every way once (default 3)")
    parser.add_argument("--no-pgn", action="store_true", help="leave out the fastchess runs that write PGN")
    parser.add_argument("--compile", action="store_true",
                        help="write the botarena tree's bytecode (__pycache__) before the runs, as an installed package has it")
    parser.add_argument("--floor", action="store_true",
                        help="also time bench/uci_floor.py, the least a Python program does to play the same games")
    parser.add_argument("--affinity", action="store_true",
                        help="pin each game slot to a CPU in both tools (arena --affinity, fastchess -use-affinity)")
    parser.add_argument("--source", help="a botarena source tree to run (put first on PYTHONPATH; default: the installed one)")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        sys.exit(f"--games must be even and at least 2, got {args.games}")
    args.fastchess = find_fastchess(args.fastchess)
    args.engine = find_engine(args.engine)
    budgets = [int(n) for n in args.nodes.split(",")]
    env = dict(os.environ)
    if args.source:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(args.source).resolve()), env.get("PYTHONPATH")]))
    if args.compile:
        compile_tree(env)
    ways = ["arena", "fastchess"] + ([] if args.no_pgn else ["fastchess+pgn"]) + (["floor"] if args.floor else [])
    print(f"botarena ({args.source or 'installed'}) against {args.fastchess}; engine {args.engine}; "
          f"{args.games} games a run, 2 at a time; {os.cpu_count()} CPUs" + ("; slots pinned to CPUs" if args.affinity else ""))
    start_seconds = start_cost(args.engine)
    print(f"an engine's start, handshake and quit: {start_seconds:.3f} s (median of 5)")
    for nodes in budgets:
        runs: dict[str, list[dict]] = {way: [] for way in ways}
        for i in range(args.runs):
            for way in ways:
                plies = max(len(moves) for _, moves in runs["arena"][0]["games"]) if way == "floor" else 0
                runs[way].append(one_run(args, way, nodes, env, plies))
                print(f"  nodes={nodes} round {i + 1} {way}: {runs[way][-1]['wall']:.2f} s", file=sys.stderr)
        report(args, nodes, runs, start_seconds)
    print("\nrerun: python bench/fastchess.py " + " ".join(
        a for a in [f"--fastchess {args.fastchess}", f"--engine {args.engine}", f"--games {args.games}",
                    f"--nodes {args.nodes}", f"--runs {args.runs}", "--no-pgn" if args.no_pgn else "",
                    "--floor" if args.floor else "", "--affinity" if args.affinity else "",
                    "--compile" if args.compile else "",
                    f"--source {args.source}" if args.source else ""] if a))


if __name__ == "__main__":
    main()
