"""Small tools shared by the tests, independent of the project's bots."""

import math
import re
import shutil
import sqlite3


def solve(game, state=None, memo=None):
    """Exact value of ``state`` (default: the start) for the player to move: a memoised negamax.

    Assumes the players alternate, as in every built-in game.
    """
    memo = {} if memo is None else memo
    state = game.initial_state() if state is None else state

    def value(s):
        if s in memo:
            return memo[s]
        if game.is_terminal(s):
            v = game.utility(s, game.to_move(s))
        else:
            v, high = -float("inf"), game.bounds[1]
            for m in game.legal_moves(s):
                v = max(v, -value(game.apply(s, m)))
                if v >= high:  # nothing beats the best possible result
                    break
        memo[s] = v
        return v

    return value(state)


def random_states(game, rng, games=30):
    """Every state of some random games from the start, the terminal ones included."""
    out = []
    for _ in range(games):
        state = game.initial_state()
        out.append(state)
        while not game.is_terminal(state):
            state = game.apply(state, rng.choice(game.legal_moves(state)))
            out.append(state)
    return out


def stored(db) -> int:
    """Games in a results database (0 before its tables exist): what a running tournament has written."""
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def sandbox_unavailable() -> str:
    """Why bubblewrap cannot sandbox bots here ("" if it can): the reason a sandbox test skips with."""
    from arena.errors import ArenaError
    from arena.execution.sandbox import bubblewrap as sandbox

    try:
        sandbox.check()
    except ArenaError as exc:
        return str(exc)
    return ""


def needs_bwrap(test):
    """Skip ``test``, naming the reason, where bubblewrap cannot start a sandbox."""
    import pytest

    why = sandbox_unavailable()
    return pytest.mark.skipif(bool(why), reason=why or "bwrap works")(test)


def accepted(server) -> int:
    """How many connections ``server`` (a listening socket with a timeout) has waiting: each accepted and closed."""
    import socket

    count = 0
    while True:
        try:
            server.accept()[0].close()
            count += 1
        except (socket.timeout, BlockingIOError):
            return count


def process_gone(pid: int, seconds: float = 2.5) -> bool:
    """True once ``pid`` is no process, or a zombie (waiting up to ``seconds``)."""
    import time
    from pathlib import Path

    deadline = time.monotonic() + seconds
    while True:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except OSError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


#: Chromium and its driver, for the tests that open pages in a browser (None: absent, the tests skip).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")


def headless_chromium(webdriver, offline: bool = True):
    """A headless Chromium driven by selenium's ``webdriver``; ``offline``: cut off from the
    network, as a report page must work."""
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    if offline:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions",  # nothing may come from the network
                               {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    return driver


#: A number as reports print it: a sign, digits, a fraction, an exponent.
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
#: How far a float printed in full may stray from what an earlier version printed: the last digits
#: of its shortest text move with the versions of numpy and pandas and with the CPU's vector unit
#: (565.1802744028307 and 565.1802744028308 are one number, printed by two installs).
PRINTED_TOLERANCE = 1e-9
#: Significant digits from which a number is a float printed in full (repr gives 15 to 17); one
#: with fewer was rounded by the report and must be printed exactly as before.
FULL_PRECISION = 12


def printed_differences(actual: str, expected: str, rel: float = PRINTED_TOLERANCE) -> list[str]:
    """Where ``actual`` differs from ``expected``, an earlier version's printout: its text must be
    the same byte for byte, and so must every number, but a float printed in full precision in
    both (``FULL_PRECISION``), which may differ by ``rel`` of itself. Empty when they agree."""
    got, want = _NUMBER.split(actual), _NUMBER.split(expected)
    if got != want:  # the words, spaces and punctuation between the numbers
        for line, (a, b) in enumerate(zip(actual.splitlines(), expected.splitlines()), 1):
            if _NUMBER.split(a) != _NUMBER.split(b):
                return [f"line {line}: text differs:\n  got  {a!r}\n  want {b!r}"]
        return [f"the printouts have {actual.count(chr(10))} and {expected.count(chr(10))} lines"]
    out = []
    for a, b in zip(_NUMBER.findall(actual), _NUMBER.findall(expected)):
        if a == b:
            continue
        signs = a[0] in "+-" and a[0] == b[0] or a[0] not in "+-" and b[0] not in "+-"
        full = signs and min(_significant(a), _significant(b)) >= FULL_PRECISION
        if not (full and math.isclose(float(a), float(b), rel_tol=rel, abs_tol=0.0)):
            out.append(f"{a} where {b} was printed")
    return out


def _significant(number: str) -> int:
    """The significant digits of a number's text: ``565.1802744028307`` has 16, ``0.0012`` 2."""
    digits = number.lstrip("+-").split("e")[0].split("E")[0].replace(".", "")
    return len(digits.lstrip("0"))


#: Every mode the referee runs bots in, as ``arena run`` flags: its own process (one job, or two
#: worker processes whose records come back pickled), isolated, sandboxed, on a Dask cluster.
RUN_MODES = {
    "in-process": ["--no-isolation", "--jobs", "1"],
    "no-isolation-2-jobs": ["--no-isolation", "--jobs", "2"],
    "isolated": ["--jobs", "2"],
    "sandboxed": ["--sandbox", "--jobs", "2"],
    "dask": ["--dask", "local", "--jobs", "2"],
}
