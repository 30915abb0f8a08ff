"""Test plugin: bots that try to lift the limits their process runs under, then break them.

Each raises its limit as far as it can (the soft limit to the hard one, then both to
infinity), then goes past the limit it had. If it lifted the limit, the bot raises
("lifted ..."), losing by a crash; if the limit held, it loses by the limit's own
termination (memory, output).
"""

import os
import resource

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


@hookimpl
def register_bots(register):
    register(MemoryLifter)
    register(FileLifter)
