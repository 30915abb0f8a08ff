"""The socket between the referee and a bot's host process: requests as pickles, answers as plain data.

Requests go from the runner to the host (``arena.execution.host``) as length-prefixed
pickles: the host trusts the runner. Answers come back as length-prefixed JSON objects of
at most ``ANSWER_BYTES``, and nothing of them is unpickled: whatever a bot's process
sends, the runner reads at most that many bytes before its deadline, parses them as JSON
and checks every field before use (see ``read_answer``). The answers:

    {"ready": true}                                   the host has started
    {"ok": true}                                      a game has started
    {"move": TEXT, "nodes": N, ...}                   a move, in the game's move text (``move_text``),
        optional "score" (number), "depth" (integer), "pv" (list of move texts),
        "reported" (integer: the bot's own node count), "badpv" (TEXT: a line that could not be written)
    {"illegal": TEXT, "nodes": N}                     the bot's move is not legal; TEXT shows it
    {"fault": "crash" | "memory" | "output" | "budget", "text": TEXT, "nodes": N}
"""

from __future__ import annotations

import json
import math
import os
import pickle
import select
import struct
import time

from arena.errors import BotFault
from arena.records import Termination
from arena.referee import MAX_NODES, MAX_PV

#: The longest answer a host may send, in bytes (a move, its principal variation and numbers).
ANSWER_BYTES = 256 * 1024
#: The longest text kept from a bot's answer (a move, an error message).
TEXT_CHARS = 400

#: Seconds between two looks of a guard (a CPU budget's) while waiting for an answer.
GUARD_INTERVAL = 0.005

_HEADER = struct.Struct("!I")
_FAULTS = {"crash", "memory", "output", "budget"}
_KEYS = {
    "ready": {"ready"},
    "ok": {"ok"},
    "move": {"move", "nodes", "score", "depth", "pv", "reported", "badpv"},
    "illegal": {"illegal", "nodes"},
    "fault": {"fault", "text", "nodes"},
}


def frame(payload: bytes) -> bytes:
    return _HEADER.pack(len(payload)) + payload


def request(message) -> bytes:
    """A request, framed, as the runner sends it."""
    return frame(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def answer(message: dict) -> bytes:
    """An answer, framed, as a host sends it."""
    return frame(json.dumps(message, separators=(",", ":")).encode())


def read_frame(sock) -> bytes | None:
    """The next frame's payload from a blocking socket (the host's side), or None at its end."""
    header = _read_exact(sock, _HEADER.size)
    if header is None:
        return None
    return _read_exact(sock, _HEADER.unpack(header)[0])


def _read_exact(sock, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


class AnswerReader:
    """The runner's side: reads one answer at a time from a host's socket against a deadline."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = b""
        self.poll = select.poll()  # not select.select: a runner with many hosts has fds above 1024
        self.poll.register(fd, select.POLLIN)

    def read(self, timeout: float, what: str, guard=None) -> dict | None:
        """The next answer, checked (see ``check``); None when the host closed its end.

        Raises BotFault(TIMEOUT) past ``timeout`` seconds and BotFault(PROTOCOL) for an
        answer that is too long, not JSON, or not one of the answers above. ``guard``, if
        given, is called every ``GUARD_INTERVAL`` seconds while waiting, and may raise.
        """
        deadline = time.monotonic() + timeout
        if not self._fill(_HEADER.size, deadline, timeout, what, guard):
            return None
        (size,) = _HEADER.unpack_from(self.buffer)
        if size > ANSWER_BYTES:
            raise BotFault(Termination.PROTOCOL, "broke the protocol", f"sent an answer of {size:,} bytes; the most is {ANSWER_BYTES:,}")
        if not self._fill(_HEADER.size + size, deadline, timeout, what, guard):
            return None
        payload = self.buffer[_HEADER.size : _HEADER.size + size]
        self.buffer = self.buffer[_HEADER.size + size :]
        try:
            message = json.loads(payload)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
            raise BotFault(Termination.PROTOCOL, "broke the protocol", "sent an answer that is not JSON") from None
        why = check(message)
        if why:
            raise BotFault(Termination.PROTOCOL, "broke the protocol", f"sent a malformed answer: {why}")
        return message

    def _fill(self, size: int, deadline: float, timeout: float, what: str, guard) -> bool:
        while len(self.buffer) < size:
            left = deadline - time.monotonic()
            wait = left if guard is None else min(left, GUARD_INTERVAL)
            if left <= 0 or not self.poll.poll(math.ceil(wait * 1000)):
                if guard is not None and left > 0:
                    guard()
                    continue
                raise BotFault(
                    Termination.TIMEOUT, "timed out", f"took longer than {timeout:g}s to {what}; its process was killed"
                )
            try:
                data = os.read(self.fd, max(65536, size - len(self.buffer)))
            except OSError:
                data = b""
            if not data:
                return False
            self.buffer += data
        return True


def check(message) -> str | None:
    """Why ``message`` is not an answer a host may send, or None. Types and sizes only: the
    referee checks what the values mean (a legal move, a score within the game's bounds)."""
    if not isinstance(message, dict) or not message:
        return "not an object"
    kind = next((k for k in _KEYS if k in message), None)
    if kind is None:
        return f"no known field among {_shown(sorted(message)[:5])}"
    extra = set(message) - _KEYS[kind]
    if extra:
        return f"unknown fields {_shown(sorted(extra)[:5])}"
    if kind in ("ready", "ok"):
        return None if message[kind] is True else f"{kind} is not true"
    if not _count(message.get("nodes")):
        return "nodes is not a count"
    if kind == "fault":
        if message["fault"] not in _FAULTS or not isinstance(message.get("text"), str):
            return "not a fault and its text"
        return None
    if not isinstance(message[kind], str):
        return f"{kind} is not text"
    if kind == "illegal":
        return None
    for key in ("reported", "depth"):
        value = message.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{key} is not an integer"
    if "score" in message and (isinstance(message["score"], bool) or not isinstance(message["score"], (int, float))):
        return "score is not a number"
    if "pv" in message:
        pv = message["pv"]
        if not isinstance(pv, list) or len(pv) > MAX_PV or not all(isinstance(m, str) for m in pv):
            return f"pv is not a list of at most {MAX_PV:,} move texts"
    if "badpv" in message and not isinstance(message["badpv"], str):
        return "badpv is not text"
    return None


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_NODES


def plain(text: str, limit: int = TEXT_CHARS) -> str:
    """``text`` as a bot's answer may put it into a record: printable, one line, at most ``limit`` characters."""
    text = "".join(c if c.isprintable() else " " for c in text[: limit + 1])
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(names) -> str:
    return ", ".join(repr(plain(str(n), 40)) for n in names)
