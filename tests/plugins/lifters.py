"""Test plugin: bots that try to lift the limits their process runs under, then break them.

Each raises its limit as far as it can (the soft limit to the hard one, then both to
infinity), then goes past the limit it had. If it lifted the limit, the bot raises
("lifted ..."), losing by a crash; if the limit held, it loses by the limit's own
termination (memory, output).
"""

import os
import resource
import time

from arena import Bot, hookimpl, param


def lift(kind) -> bool:
    """Try to raise limit ``kind``; True if it is now higher than it was."""
    before = resource.getrlimit(kind)
    for wanted in ((before[1], before[1]), (resource.RLIM_INFINITY, resource.RLIM_INFINITY)):
        try:
            resource.setrlimit(kind, wanted)
        except (ValueError, OSError):
            pass
    return resource.getrlimit(kind)[0] != before[0]


class MemoryLifter(Bot):
    name = "lift-memory"
    description = "raises its address-space limit, then allocates twice what it had"

    def choose(self, game, state, budget):
        had = resource.getrlimit(resource.RLIMIT_AS)[0]
        lifted = lift(resource.RLIMIT_AS)
        block = bytearray(2 * had if had != resource.RLIM_INFINITY else 1)  # MemoryError while the limit holds
        block[::4096] = b"x" * len(block[::4096])
        raise RuntimeError(f"lifted the memory limit: {lifted}, {len(block):,} bytes touched")


class FileLifter(Bot):
    name = "lift-file"
    description = "raises its file size limit, then writes a file larger than it had"
    size: int = param(4 << 20, "bytes to write", min=1)

    def choose(self, game, state, budget):
        lifted = lift(resource.RLIMIT_FSIZE)
        with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "lift-file.bin"), "wb") as f:
            f.write(b"x" * self.size)  # EFBIG past the limit
        raise RuntimeError(f"lifted the file size limit: {lifted}")


class ForkMemory(Bot):
    name = "fork-memory"
    description = "forks children that each take memory within the per-process limit, more than it in all"
    children: int = param(4, "children to fork", min=1)
    mib: int = param(200, "MiB each child touches", min=1)

    def choose(self, game, state, budget):
        pids = []
        for _ in range(self.children):
            pid = os.fork()
            if pid == 0:
                try:
                    block = bytearray(self.mib << 20)
                    block[::4096] = b"x" * len(block[::4096])  # every page touched: resident
                    time.sleep(30)
                finally:
                    os._exit(0)
            pids.append(pid)
        time.sleep(3)  # they all hold their blocks now
        alive = [p for p in pids if os.waitpid(p, os.WNOHANG) == (0, 0)]
        raise RuntimeError(f"{len(alive)} children hold {len(alive) * self.mib} MiB in all")


class ForkBomb(Bot):
    name = "fork-bomb"
    description = "forks as many sleeping children as it can (300 at most), noting their pids in a file"
    path: str = param("", "the file to note the children's pids in (none: not noted)")

    def choose(self, game, state, budget):
        made = []
        notes = open(self.path, "a", buffering=1) if self.path else None  # a line each: noted even if killed midway
        for _ in range(300):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(120)
                os._exit(0)
            made.append(pid)
            if notes is not None:
                notes.write(f"{pid}\n")
        raise RuntimeError(f"forked {len(made)} children")


class Daemon(Bot):
    name = "daemon"
    description = "leaves a double-forked, setsid grandchild behind, noting its pid in a file, then plays"
    path: str = param("", "the file to note the grandchild's pid in")

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        child = os.fork()
        if child == 0:
            os.setsid()
            grandchild = os.fork()
            if grandchild == 0:
                time.sleep(120)
                os._exit(0)
            with open(self.path, "a") as notes:  # noted before the move starts
                notes.write(f"{grandchild}\n")
            os._exit(0)
        os.waitpid(child, 0)  # not os.wait(): a grandchild of an earlier game, reparented here, may be the first to end

    def choose(self, game, state, budget):
        return self.rng.choice(game.legal_moves(state))


class Burner(Bot):
    name = "burn"
    description = "burns a fixed CPU time per move (its process's CPU clock), then plays the first legal move"
    ms: float = param(50.0, "milliseconds of CPU per move", min=0)

    def choose(self, game, state, budget):
        end = time.process_time() + self.ms / 1000
        while time.process_time() < end:
            pass
        return game.legal_moves(state)[0]


class CountLifter(Bot):
    """The forger of a node count: its counter lives in its own process, so it searches
    ``times`` its budget with the arena's own iterative deepening on a game that counts
    nothing, and reports the one node the referee counted."""

    name = "lift-count"
    description = "searches many times its node budget on an uncounted game and reports almost nothing"
    times: int = param(100, "how many times its node budget it searches", min=1)

    def choose(self, game, state, budget):
        from arena.budget import Budget, Counter, uncounted
        from bots.iterative import IterativeBot

        searcher = IterativeBot()
        searcher.new_game(game, game.to_move(state), 0)
        own = Counter(Budget(nodes=self.times * (budget.budget.nodes or 1000)))
        free = uncounted(game)
        return searcher.choose(_Ticking(free, own), state, own)


class Precomputer(Bot):
    """Does its searching before the game: burns CPU in its new-game hook, where no move's
    budget applies, then plays at random."""

    name = "precompute"
    description = "burns CPU in its new-game hook, then plays at random"
    ms: float = param(1000.0, "milliseconds of CPU its new-game hook burns", min=0)

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        end = time.process_time() + self.ms / 1000
        while time.process_time() < end:
            pass

    def choose(self, game, state, budget):
        return self.rng.choice(game.legal_moves(state))


class IdleBurner(Bot):
    """Searches while it waits: a thread of its own burns CPU once no move has been asked of it
    for ``idle`` seconds (between games, in a host kept for the next one), ``ms`` at a time."""

    name = "idle-burn"
    description = "a thread that burns CPU whenever no move is asked of it, then plays at random"
    idle: float = param(0.3, "seconds without a move before the thread burns", min=0)
    ms: float = param(1000.0, "milliseconds of CPU each time", min=0)

    _last = [0.0]
    _thread: list = []

    def choose(self, game, state, budget):
        IdleBurner._last[0] = time.monotonic()
        if not IdleBurner._thread:
            import threading

            thread = threading.Thread(target=self._burn, daemon=True)
            IdleBurner._thread.append(thread)
            thread.start()
        return self.rng.choice(game.legal_moves(state))

    def _burn(self):
        while True:
            time.sleep(0.05)
            if time.monotonic() - IdleBurner._last[0] > self.idle:
                end = time.process_time() + self.ms / 1000
                while time.process_time() < end:
                    pass
                IdleBurner._last[0] = time.monotonic()


class _Ticking:
    """A game whose ``apply`` ticks a counter of the bot's own (not the referee's)."""

    def __init__(self, game, counter):
        self._game, self._counter = game, counter

    def apply(self, state, move):
        self._counter.tick()
        return self._game.apply(state, move)

    def __getattr__(self, name):
        return getattr(self._game, name)


class Napper(Bot):
    name = "nap"
    description = "sleeps a fixed time per move, using no CPU, then plays the first legal move"
    ms: float = param(50.0, "milliseconds of sleep per move", min=0)

    def choose(self, game, state, budget):
        time.sleep(self.ms / 1000)
        return game.legal_moves(state)[0]


@hookimpl
def register_bots(register):
    for cls in (MemoryLifter, FileLifter, ForkMemory, ForkBomb, Daemon, Burner, Napper, CountLifter, Precomputer, IdleBurner):
        register(cls)
