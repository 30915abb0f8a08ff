"""The HTML report at the scale of engine testing: 100,000 games, built, weighed and opened.

Five bots play tic-tac-toe, a round-robin of ten pairings, bots in the arena's own processes
(``arena run --no-isolation --jobs 2``): ``random``, ``greedy``, alpha-beta and minimax at
depth 1, and ``flaky`` (this module's plugin), which plays at random but, on a small share of
its moves, raises or answers an illegal move, so that a few hundred games are lost by a fault
as in a real run. The database is kept at ``--db`` and reused when it holds the games.

Then ``arena report DB --html PAGE`` is timed as a command (start-up included; wall and CPU
time, medians of ``--runs``), the page is weighed, and headless Chromium (selenium) opens it
``--runs`` times: the load event's time from navigation start (``loadEventEnd``: the page
parsed, its script run and the first page of the games list drawn), the time until the frame
after it is painted, and how long filtering the games list by one bot takes. ``--compare
TREE`` measures another source tree of botarena side by side (each tree plays the same games
into a database of its own, since their schemas may differ). Targets: under 30 s, under
10 MB, under 5 s.

    PYTHONPATH=. python bench/html_scale.py [--games 100000] [--db /tmp/html_scale.db] [--runs 3]
        [--compare TREE]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":  # as a plugin, it imports from whichever tree runs the arena
    sys.path.insert(0, str(ROOT))
from arena import hookimpl, param  # noqa: E402
from bots.random_bot import RandomBot  # noqa: E402

BOTS = ("random", "greedy", "ab=alphabeta:depth=1", "mm=minimax:depth=1", "flaky:p=0.002")
PLUGIN = "bench.html_scale"


class FlakyBot(RandomBot):
    """A random mover that, on a share ``p`` of its moves, raises or answers an illegal move."""

    name = "flaky"
    description = "random moves; on a share p of them it raises or plays an illegal move"
    p: float = param(0.002, "share of moves that fault", min=0.0, max=1.0)

    def choose(self, game, state, budget):
        move = super().choose(game, state, budget)
        draw = self.rng.random()
        if draw < self.p / 2:
            raise RuntimeError("flaky: a fault on purpose")
        if draw < self.p:
            return "z9"
        return move


@hookimpl
def register_bots(register):
    register(FlakyBot)


def arena(*args: str, tree: Path = ROOT) -> tuple[float, float]:
    """(wall, CPU) seconds that ``python -m arena ARGS`` takes, its worker processes' CPU
    included, run from the source tree ``tree`` (this one's ``bench`` on the path for the plugin)."""
    path = [str(tree), str(ROOT), os.environ.get("PYTHONPATH")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(p for p in path if p))}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "arena", *args], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def stored_games(db: Path) -> int:
    """Finished games in ``db`` (0 when there is no database yet)."""
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute("select count(*) from games").fetchone()[0]


def make_database(db: Path, games: int, jobs: int, tree: Path = ROOT) -> tuple[float, float] | None:
    """Play the games into ``db`` (with the arena of ``tree``) unless it holds them already; the
    (wall, CPU) seconds it took, or None."""
    per_pairing = 2 * max(1, round(games / (len(BOTS) * (len(BOTS) - 1) // 2) / 2))
    wanted = per_pairing * len(BOTS) * (len(BOTS) - 1) // 2
    if stored_games(db) >= wanted:
        return None
    bots = [a for b in BOTS for a in ("--bot", b)]
    return arena("run", "--game", "tictactoe", *bots, "--games", str(per_pairing), "--openings", "2",
                 "--no-isolation", "--no-progress", "--jobs", str(jobs), "--plugin", PLUGIN, "--db", str(db),
                 tree=tree)


def faults(db: Path) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("select count(*) from games where loser is not null").fetchone()[0]


def browser():
    """Headless Chromium through selenium, or None (with the reason printed) when either is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("selenium is not installed: the page is not opened")
        return None
    if not (chromium and driver):
        print("Chromium or chromedriver is not installed: the page is not opened")
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


PAINTED = """const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())));"""

FILTER = """const done = arguments[arguments.length - 1];
const select = document.querySelector('#filters select[name=bot]');
const started = performance.now();
select.value = arguments[0];
select.dispatchEvent(new Event('change', {bubbles: true}));
requestAnimationFrame(() => requestAnimationFrame(() =>
  done([performance.now() - started, document.getElementById('shown').textContent])));"""


def open_page(driver, page: Path, bot: str) -> tuple[float, float, float, str]:
    """(load event ms, painted ms, filter ms, the games shown after filtering) of one fresh load."""
    driver.get("about:blank")
    driver.get(page.as_uri())  # returns after the load event
    loaded = driver.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd")
    painted = driver.execute_async_script(PAINTED)
    filtered, shown = driver.execute_async_script(FILTER, bot)
    return loaded, painted, filtered, shown


def measure(trees: list[tuple[str, Path, Path, Path]], runs: int) -> dict[str, list]:
    """Per tree (name, source tree, database, page): its ``runs`` builds (wall, CPU) and, where
    Chromium runs, its loads (``open_page``); the trees take turns, run by run."""
    out: dict[str, list] = {name: [[], []] for name, *_ in trees}
    for _ in range(runs):
        for name, tree, db, page in trees:
            out[name][0].append(arena("report", str(db), "--html", str(page), tree=tree))
    driver = browser()
    if driver is not None:
        try:
            for _ in range(runs):
                for name, _, _, page in trees:
                    out[name][1].append(open_page(driver, page, "greedy"))
        finally:
            driver.quit()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games to play (default 100000)")
    parser.add_argument("--db", type=Path, help="the database, kept and reused (default: html_scale-GAMES.db "
                                                "in the temporary directory)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes playing the games (default 2)")
    parser.add_argument("--compare", type=Path, metavar="TREE",
                        help="another botarena source tree (e.g. `git worktree add /tmp/before HEAD~1`) measured "
                             "side by side; it plays the same games into a database of its own, DB-compare.db")
    args = parser.parse_args(argv)
    db = args.db or Path(tempfile.gettempdir()) / f"html_scale-{args.games}.db"
    trees = [("this tree", ROOT, db, db.with_suffix(".html"))]
    if args.compare:
        other = db.with_name(f"{db.stem}-compare.db")
        trees.append((str(args.compare), args.compare.resolve(), other, other.with_suffix(".html")))

    load = os.getloadavg()[0]
    for name, tree, path, _ in trees:
        played = make_database(path, args.games, args.jobs, tree)
        said = (f"played in {played[0]:.1f} s, {played[1]:.1f} s of CPU "
                f"({stored_games(path) / played[0]:,.0f} games a second)" if played else "reused")
        print(f"{name}: {path}, {stored_games(path):,} tic-tac-toe games, {faults(path):,} lost by a fault; {said}")
    found = measure(trees, args.runs)
    print(f"\nMedians of {args.runs} runs, the trees in turn. Build: `arena report DB --html PAGE` as a command, "
          "start-up included; load: Chromium's navigation start to the load event; painted: to the frame after it; "
          "filter: choosing one bot in the games list, to the frame after.\n")
    print("| tree | build s | build CPU s | page MB | load s | painted s | filter ms |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, _, _, page in trees:
        builds, opens = found[name]
        wall, cpu = (statistics.median(b[k] for b in builds) for k in range(2))
        shown = [f"{statistics.median(o[k] for o in opens) / scale:.2f}" if opens else "-"
                 for k, scale in ((0, 1000), (1, 1000), (2, 1))]
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {page.stat().st_size / 2**20:.2f} | {' | '.join(shown)} |")
    for name, _, _, _ in trees:
        builds, opens = found[name]
        print(f"\n{name}: builds {', '.join(f'{w:.2f}' for w, _ in builds)} s"
              + (f"; loads {', '.join(f'{o[0] / 1000:.2f}' for o in opens)} s; after filtering: {opens[-1][3]}"
                 if opens else ""))
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after (a 1-minute mean; {os.cpu_count()} CPUs)")
    compare = f" --compare {args.compare}" if args.compare else ""
    print(f"\n    PYTHONPATH=. python bench/html_scale.py --games {args.games} --db {db} --runs {args.runs}{compare}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
