"""The referee alone holds the true state: bots that try to learn what it hides, in every mode
the arena runs bots in (tests/plugins/snoop).

- ``snooper`` looks for the card dealt to the other seat of ``secret`` in everything it is
  handed, the garbage collector, its frames, its modules, /proc (its own, its parent's,
  every process of the test it can list) and the files it can reach, and guesses the card
  it found;
- ``memory`` notes the deal it held in every place it can write, and reads its notes when
  it guesses the same deal, seats swapped, in the pair's next game;
- ``sneak`` looks for the other seat's throw of the turn (``duel``, ``rps``) and beats it;
- ``peeker`` looks for the other seat's card in Kuhn poker.

Each says by its move whether it found what it looked for (a right guess, a winning throw)
and by the move's depth where (bits of ``reach.CHANNELS``, or of ``bots.PLACES``). In the
referee's own process, allowed only with --trusted, they find everything: that is why it is
refused without. Isolated, sandboxed and on Dask they must do no better than chance. A
guess is right by chance once in 256 (the deck), a throw of ``duel`` wins once in 256 (its signs).

Where the machine lets them (root, or no Yama), the out-of-process bots also try to read the
referee's and the other seat's processes through ``/proc/PID/mem``: both are kept out by
``arena.execution.confine`` (no capabilities, not dumpable). A gap still open is marked GAP
(strict xfail, with the fix it points to): it fails once fixed, and must then lose its mark.
"""

from __future__ import annotations

import ctypes
import glob
import math
import os
import secrets
import sys
import tempfile

import pytest

import results
from arena import ParameterError, get_registry, play_game
from arena.front.cli import main
from arena.front.reports import report_text
from tests.helpers import sandbox_unavailable
from tests.plugins import snoop
from tests.plugins.snoop import reach
from tests.plugins.snoop.bots import PLACES

PLUGIN = "tests.plugins.snoop"
GUESSES = 2  # the snooper's (and memory's) guesses in a run of secret: 4 games, two pairs
THROWS, SIGNS = 4, 256  # the sneak's throws as the second seat asked in a run of duel (2 games), and its signs
RPS_THROWS = 6
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4
SNOOP_ENGINE = f"engine:cmd={sys.executable} {os.path.join(os.path.dirname(snoop.__file__), 'engine.py')}"
ENGINE_NOTES = 3 << len(reach.CHANNELS)  # the engine's depth bits for a note of an earlier game (process, folder)
# what each mode plays: secret everywhere; the others where they show something more: Kuhn poker
# and rps what the bots would see in the referee's process, Kuhn poker the reports' note and the
# holes of an isolated run on a real game (rps has no text to find out of process); engine, an
# engine that snoops (tests/plugins/snoop/engine.py) in both seats
GAMES = {
    "in-process": ("secret", "duel", "kuhn", "rps"),
    "isolated": ("secret", "duel", "kuhn", "engine"),
    "sandboxed": ("secret", "duel", "engine"),
    "dask": ("secret", "duel"),
    "dask-sandboxed": ("secret",),
}
OUT = tuple(GAMES)[1:]  # the modes where bots run out of the referee's process
NOT_SHARED = sum(1 << PLACES.index(p) for p in ("cwd", "home", "tmpdir", "process"))  # a fresh host's own
SHARED = sum(1 << PLACES.index(p) for p in ("tmp", "shm"))  # the machine's: an unsandboxed bot writes there

REPORT = (
    "GAP: the report's NOT SANDBOXED note needs the game's model, which results/about.py game_model() looks up "
    "among installed plugins only: a game from a --plugin module gets no note; fix: arena/front/tournament.py "
    "stores the model's hidden and simultaneous in the tournament's config, and About.from_store reads them there"
)


SHOWS = {REPORT: True}


def mode_param(mode, hole=None):
    marks = [] if mode == "in-process" else [pytest.mark.processes]
    if "sandboxed" in mode:
        why = sandbox_unavailable()
        marks.append(pytest.mark.skipif(bool(why), reason=why or "bwrap works"))
    if hole:
        marks.append(pytest.mark.xfail(SHOWS[hole], strict=True, reason=hole))
    return pytest.param(mode, marks=marks, id=mode)


def modes(game: str, holes=(), hole=None, among=OUT):
    return [mode_param(m, hole if m in holes else None) for m in among if game in GAMES[m]]


def chance_at_most(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): how often a bot with no leak does as well as k of n."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def dumpable(value: int | None = None) -> int:
    """Whether this process is dumpable (1) or not (0), after making it ``value`` if given."""
    libc = ctypes.CDLL(None, use_errno=True)
    if value is not None:
        libc.prctl(PR_SET_DUMPABLE, value, 0, 0, 0)
    return libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    # one worker: a pair's games one after the other there too
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


class Runs:
    """Each mode's run of each game, made once for the tests that read it."""

    def __init__(self, folder):
        self.folder, self.done = folder, {}

    def get(self, mode: str, game: str, request) -> "Played":
        if (mode, game) not in self.done:
            self.done[mode, game] = self.play(mode, game, request)
        return self.done[mode, game]

    def play(self, mode, game, request) -> "Played":
        scope, tag = f"scope={os.getpid()}", f"arena-notes-{secrets.token_hex(6)}"
        specific = {  # a pair's games of secret deal alike: memory holds the card in the first, guesses it in the second
            "secret": ["--game", "secret", "--bot", f"memory=memory:tag={tag}", "--bot", f"snoop=snooper:{scope}",
                       "--games", str(2 * GUESSES)],
            # every game its own number: no throw of another game reads as this game's
            "duel": ["--game", f"duel:signs={SIGNS},throws={THROWS}", "--bot", f"sneak=sneak:{scope}", "--bot", "plain",
                     "--games", "2", "--independent-chance"],
            "kuhn": ["--game", "kuhn_poker", "--bot", f"peek=peeker:{scope}", "--bot", "plain", "--games", "2"],
            "rps": ["--game", f"rps:throws={RPS_THROWS}", "--bot", f"sneak=sneak:{scope}", "--bot", "plain",
                    "--games", "2"],
            "engine": ["--game", "secret", "--bot", f"e1={SNOOP_ENGINE} {os.getpid()}",
                       "--bot", f"e2={SNOOP_ENGINE} {os.getpid()}", "--games", "2"],
        }[game]
        flags = {"in-process": ["--no-isolation", "--trusted", "--jobs", "1"], "isolated": ["--jobs", "1"],
                 "sandboxed": ["--sandbox", "--jobs", "1"]}.get(mode, [])
        client = request.getfixturevalue("dask_client") if mode.startswith("dask") else None
        if client is not None:
            flags = ["--dask", client.cluster.scheduler_address] + (["--sandbox"] if "sandboxed" in mode else [])
        db = self.folder / f"{mode}-{game}.db"
        argv = ["run", *specific, "--openings", "0", "--budget", "time=30", "--no-progress", "--db", str(db),
                "--plugin", PLUGIN, *flags]
        own = self.folder / f"{mode}-{game}-own"  # the in-process bots' working folder, home and temporary folder
        own.mkdir(exist_ok=True)
        # the referee dumpable again (this process, or the Dask worker), to see the run make it not
        dumpable(1)
        if client is not None:
            client.run(dumpable, 1)
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(own)
            patch.setenv("HOME", str(own))
            patch.setenv("TMPDIR", str(own))
            try:
                code = main(argv)
            finally:
                left = [p for p in (f"/tmp/{tag}", f"/dev/shm/{tag}") if os.path.exists(p)]
                for path in left:
                    os.remove(path)
        assert code == 0
        referee = dumpable() if client is None else min(client.run(dumpable).values())
        return Played(db, left, glob.glob(os.path.join(tempfile.gettempdir(), "arena-scratch-*", tag)), referee)


class Played:
    """What a run stored, read for the tests; what it left in /tmp and /dev/shm (removed) and in
    scratch folders; whether the referee was dumpable after it."""

    def __init__(self, db, left, scratch, referee):
        tables = results.load(db)
        self.db, self.left, self.scratch, self.referee = str(db), left, scratch, referee
        self.games = tables.games.sort_values("game_id")
        self.moves = tables.moves.sort_values(["game_id", "ply"])

    def guesses(self, bot: str | None = None) -> list[tuple[bool, int]]:
        """(right, depth) of each card ``bot`` (default: any) guessed in secret, in game order."""
        out = []
        for _, plies in self.moves.groupby("game_id"):
            card = next(m for m in plies.move if m.startswith("c"))[1:]
            guess = plies[plies.player == 1]
            if bot is None or guess.bot.iloc[0] == bot:
                out.append((guess.move.iloc[0][1:] == card, int(guess.depth.iloc[0])))
        return out

    def throws(self, bot: str) -> list[tuple[bool, int]]:
        """(won, depth) of each throw ``bot`` made as the second seat asked, in order."""
        out = []
        for _, plies in self.moves.groupby("game_id"):
            seats = plies[plies.player >= 0]
            for first, second in zip(seats.iloc[::2].itertuples(), seats.iloc[1::2].itertuples()):
                if second.bot == bot:
                    if first.move in ("R", "P", "S"):
                        won = (first.move + second.move) in ("RP", "PS", "SR")
                    else:
                        won = (int(first.move[1:3], 16) + 1) % SIGNS == int(second.move[1:3], 16)
                    out.append((won, int(second.depth)))
        return out

    def peeks(self, bot: str) -> list[tuple[bool, int]]:
        """(the other's card named, depth) of each move ``bot`` made in Kuhn poker."""
        out = []
        for _, plies in self.moves.groupby("game_id"):
            cards = list(plies.move.iloc[:2])  # the deals, seat 0's first
            for move in plies[(plies.player >= 0) & (plies.bot == bot)].itertuples():
                named = None if move.score != move.score else "JQK"[int(move.score)]  # NaN: none named
                out.append((named == cards[1 - move.player], int(move.depth)))
        return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return Runs(tmp_path_factory.mktemp("hidden-hostile"))


@pytest.mark.processes
def test_in_process_play_of_a_hidden_or_simultaneous_game_is_refused_unless_trusted(tmp_path, capsys):
    registry = get_registry(entry_points=False, plugins=[snoop])
    for spec, words in (("secret", "hides information"), ("duel", "has simultaneous moves")):
        game = registry.game(spec)
        with pytest.raises(ParameterError, match=f"{words}, and the bot in seat 0 would run in the referee's process") as info:
            play_game(game, [registry.bot("plain"), registry.bot("plain")])
        assert "\n" not in str(info.value) and "--trusted" in str(info.value)
        assert play_game(game, [registry.bot("plain"), registry.bot("plain")], trusted=True).termination.name == "NORMAL"
    for spec, words in (("secret", "hides information"), ("duel", "has simultaneous moves"),
                        ("kuhn_poker", "hides information"), ("rps", "has simultaneous moves")):
        db = tmp_path / f"{spec}.db"
        argv = ["run", "--game", spec, "--bot", "plain", "--bot", "p2=plain", "--games", "2", "--no-progress",
                "--db", str(db), "--plugin", PLUGIN, "--no-isolation"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and "--trusted" in err, err
        assert not db.exists()


def mode_and_game():
    """Each mode's runs, a test each: the first test to ask for a run plays it."""
    for mode, games in GAMES.items():
        marks = mode_param(mode).marks
        for game in games:
            yield pytest.param(mode, game, marks=marks, id=f"{mode}-{game}")


@pytest.mark.parametrize("mode, game", list(mode_and_game()))
def test_every_game_of_an_attacked_run_is_complete_and_normal(runs, request, mode, game):
    """No attacker faulted and no game was touched: every game ended normally, every ply recorded."""
    played = runs.get(mode, game, request)
    games = played.games
    assert list(games.termination) == ["normal"] * len(games), (game, list(games.message))
    assert list(played.moves.groupby("game_id").size()) == list(games.plies)
    chance = played.moves[played.moves.player < 0].groupby("game_id").size()
    dealt = {"secret": 3, "engine": 3, "duel": 2, "kuhn": 2, "rps": 0}[game]
    assert list(chance.reindex(games.game_id, fill_value=0)) == [dealt] * len(games)
    if game != "kuhn":
        assert set(games.plies) == {{"duel": 2 + 2 * THROWS, "rps": 2 * RPS_THROWS}.get(game, 5)}


def test_in_process_and_trusted_the_bots_find_everything(runs, request):
    """What a bot sees in the referee's process: the card, notes of the deal, the other's throw."""
    found = reach.BIT["frames"] | reach.BIT["gc"]  # the referee's state a frame above; its records
    guesses = runs.get("in-process", "secret", request).guesses("snoop")
    assert len(guesses) == GUESSES and all(right and depth & found for right, depth in guesses), guesses
    notes = runs.get("in-process", "secret", request).guesses("memory")
    assert notes == [(True, (1 << len(PLACES)) - 1)] * GUESSES  # every place it wrote, its process's memory too
    for game, count in (("duel", THROWS), ("rps", RPS_THROWS)):
        throws = runs.get("in-process", game, request).throws("sneak")
        assert len(throws) == count and all(won and depth & found for won, depth in throws), (game, throws)
    peeks = runs.get("in-process", "kuhn", request).peeks("peek")
    assert len(peeks) >= 2 and all(right and depth & found for right, depth in peeks), peeks


@pytest.mark.parametrize("mode", modes("secret"))
def test_out_of_process_the_snooper_finds_no_card(runs, request, mode):
    guesses = runs.get(mode, "secret", request).guesses("snoop")
    assert len(guesses) == GUESSES
    where = [depth for _, depth in guesses]
    assert where == [0] * GUESSES, [[c for c in reach.CHANNELS if d & reach.BIT[c]] for d in where]
    right = sum(r for r, _ in guesses)
    # a guess is right by chance once in 256: both 1.5e-5 of the time; a snooper that finds the card, both
    assert right <= 1, f"{right} of {GUESSES} right; by chance that often: {chance_at_most(right, GUESSES, 1 / 256):.1e}"


@pytest.mark.parametrize("mode", modes("engine"))
def test_an_engine_of_a_hidden_information_game_is_fresh_and_handed_nothing(runs, request, mode):
    """A fresh engine process every game, in an empty folder: no note of the pair's first game
    reaches its second; what it is told holds no card. Outside the sandbox an engine runs as the
    user, like the other seat's engine, whose memory it can read (below): against accidents only."""
    guesses = runs.get(mode, "engine", request).guesses()
    assert len(guesses) == 2 and all(depth & ENGINE_NOTES == 0 for _, depth in guesses), guesses
    outside = reach.BIT["parent"] | reach.BIT["others"]
    assert all(depth & ~outside == 0 for _, depth in guesses), guesses
    if mode == "sandboxed":
        assert [depth for _, depth in guesses] == [0, 0] and sum(r for r, _ in guesses) <= 1, guesses


@pytest.mark.parametrize("mode", modes("engine"))
def test_an_engine_of_a_hidden_information_game_cannot_read_the_referee(runs, request, mode):
    guesses = runs.get(mode, "engine", request).guesses()
    assert not any(depth & reach.BIT["parent"] for _, depth in guesses), guesses


@pytest.mark.parametrize("mode", modes("kuhn"))
def test_out_of_process_the_peeker_finds_no_card_in_kuhn_poker(runs, request, mode):
    peeks = runs.get(mode, "kuhn", request).peeks("peek")
    assert len(peeks) >= 2 and [depth for _, depth in peeks] == [0] * len(peeks), peeks


@pytest.mark.parametrize("mode", modes("secret", among=("isolated", "dask")))
def test_isolated_the_referee_is_out_of_reach(runs, request, mode):
    """The referee is made not dumpable and its bots' hosts lose their capabilities: nothing the
    snooper finds comes from the referee (its parent), from what it is handed or from its own
    process; only from a sibling (above)."""
    played = runs.get(mode, "secret", request)
    assert all(depth & ~reach.BIT["others"] == 0 for _, depth in played.guesses("snoop")), played.guesses("snoop")
    assert played.referee == 0, "the referee of a hidden-information game was dumpable"


@pytest.mark.parametrize("mode", modes("secret"))
def test_out_of_process_nothing_carries_over_to_the_next_game_but_files_outside_the_sandbox(runs, request, mode):
    played = runs.get(mode, "secret", request)
    notes = played.guesses("memory")
    assert len(notes) == GUESSES
    assert not played.scratch, "a scratch folder outlived its game"
    assert all(depth & NOT_SHARED == 0 for _, depth in notes), notes  # a fresh process, an empty scratch folder
    if "sandboxed" in mode:
        assert [depth for _, depth in notes] == [0] * GUESSES and sum(r for r, _ in notes) <= 1, notes
        assert played.left == [] and "NOT SANDBOXED" not in report_text(played.db, None)
    else:  # the machine's /tmp and /dev/shm are the bot's too: against accidents, not attacks
        assert all(depth & ~SHARED == 0 for _, depth in notes), notes
        if mode == "isolated":  # one game at a time: the pair's first game is over before its second starts
            assert notes == [(True, SHARED)] * GUESSES


@pytest.mark.processes
@pytest.mark.parametrize("game", [pytest.param("kuhn", id="kuhn_poker"),
                                  pytest.param("secret", marks=pytest.mark.xfail(SHOWS[REPORT], strict=True, reason=REPORT))])
def test_an_isolated_run_of_a_hidden_information_game_reports_it_was_not_sandboxed(runs, request, game):
    text = report_text(runs.get("isolated", game, request).db, None)
    assert "NOT SANDBOXED" in text and "against accidents, not attacks" in text


@pytest.mark.parametrize("mode", modes("duel"))
def test_out_of_process_no_throw_depends_on_the_others_of_its_turn(runs, request, mode):
    throws = runs.get(mode, "duel", request).throws("sneak")
    assert len(throws) == THROWS
    where = [depth for _, depth in throws]
    assert where == [0] * THROWS, [[c for c in reach.CHANNELS if d & reach.BIT[c]] for d in where]
    won = sum(w for w, _ in throws)
    # a throw wins by chance once in 256: two of four 9e-5 of the time; a sneak that sees the other's throw, four
    assert won <= 1, f"won {won} of {THROWS}; by chance that often: {chance_at_most(won, THROWS, 1 / SIGNS):.1e}"
