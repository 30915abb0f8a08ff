"""Bots in processes of their own, supervised: a hung, greedy or crashing bot loses only its game.

``RemoteBot`` looks like a bot to the referee but forwards every call to a host process
(``arena.execution.host``) and waits for the answer no longer than the call's deadline; past it, the
host is killed. Hosts are kept per bot spec and reused from game to game, so a bot's code
never shares a process with another bot's.
"""

from __future__ import annotations

import typing

from arena.bot import Decision
from arena.budget import Counter, uncounted
from arena.errors import BotFault
from arena.execution import ceiling, channel
from arena.execution.hosts import (  # noqa: F401 (imported from here too)
    HOST_START_TIMEOUT, HostPool, HostProcess, host_pool, output_file, output_tail,
)
from arena.game import Game, texts_need_state
from arena.limits import DEFAULT_LIMITS, Limits
from arena.records import Termination
from arena.view import View, view_texts

class Shown:
    """What a host showed of a move that is not a legal one: its text, never equal to a move."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text


class RemoteBot:
    """A bot that runs in a host process; the referee uses it like any bot.

    Its nodes are counted in its own process, so the referee records them as reported, and a
    node budget also caps the CPU time its process tree may use (``arena.execution.ceiling``).
    """

    interactive = False
    reports_nodes = True
    remote = True  # not in the referee's process: it may play games of hidden information

    def __init__(self, spec: str, plugins: tuple[str, ...] = (), limits: Limits = DEFAULT_LIMITS, pool: HostPool | None = None):
        self.spec = spec
        self.plugins = plugins
        self.limits = limits
        self.pool = pool or host_pool()
        self.host: HostProcess | None = None
        self._budget = None  # the budget the host holds for this game
        self._per_node = 0.0  # CPU seconds a node may cost in this game (the probe's)
        self._cpu_base = 0.0  # its tree's CPU seconds when the game started
        self._cpu_allowed = 0.0  # CPU seconds its node budgets allow it so far this game
        self._cpu_start = None  # the tree's CPU seconds the referee read before this move
        self._cpu_read = None  # the tree's CPU seconds choose read after the move, for the referee

    def suitable(self, game: Game) -> str | None:
        return None  # checked by the tournament at set-up, with a local instance

    def cpu_seconds(self) -> float | None:
        """CPU seconds its host's process tree has used (the kernel's count), or None without a host.

        The referee reads it right before and right after each move, and so does ``choose``:
        the reading before is kept for ``choose``, and ``choose``'s last one is given back as
        the one after (a read of the tree's count is a system call)."""
        if self._cpu_read is not None:
            value, self._cpu_read = self._cpu_read, None
            return value
        if self.host is None:
            return None
        self._cpu_start = value = self.host.tree.cpu_seconds()
        return value

    def new_game(self, game: Game, player: int, seed: int) -> None:
        self.release()
        # a game of hidden information gets a fresh process and scratch folder: nothing carries over
        # and in one of simultaneous moves a confined one: no bot reads another's choice of a turn
        self.host = self.pool.acquire(self.spec, self.plugins, self.limits, fresh=game.model.hidden,
                                      confined=game.model.imperfect)
        self.host.new_game()
        self._budget = None
        self._game = uncounted(game)  # reading the host's answers counts no node
        self._per_node = ceiling.per_node(game)  # measured once per game in this process, outside any move
        # the game's CPU time counts from the end of the host's last game (or from now): what
        # the bot does in its new-game hook, or while it waits in the pool, counts too
        mark = self.host.cpu_mark
        self._cpu_base = mark if mark is not None else self.host.tree.cpu_seconds()
        self._cpu_allowed = ceiling.SLACK
        request = ("start", self.spec, game.spec, player, seed)  # one round trip: build the bot, start the game
        answer = self.host.call(request, self.limits.watchdog, "start a game")
        self.host.check_memory()
        if "ok" not in answer:
            self._fault(answer)
        self._cpu_start = self._cpu_read = None

    def choose(self, game: Game, state, budget: Counter):
        limits = budget.budget
        timeout = self.limits.watchdog if limits.time is None else limits.time + budget.margin
        if limits.clock is not None:  # its clock run out, the move is lost on time: no use waiting longer
            timeout = limits.clock.left + budget.margin
        sent = None if limits is self._budget else limits  # the host keeps the budget of the last move
        self._budget = limits
        tree = self.host.tree
        if limits.nodes is not None and self._per_node:
            self._cpu_allowed += ceiling.allowance(limits.nodes, self._per_node)
        guard, start, self._cpu_start = None, self._cpu_start, None
        if limits.cpu is not None or (limits.nodes is not None and self._per_node):
            if start is None:
                start = tree.cpu_seconds()
            guard = self._cpu_guard(limits, start, budget.margin)
        try:
            if isinstance(state, View):  # the seat's view, as text: the host never sees the state
                texts = view_texts(self._game, state)
                self._legal_texts = texts[3]  # to read the answer back by
                answer = self.host.call(("view", texts, sent), timeout, "move", guard)
            else:
                answer = self.host.call(("choose", state, sent), timeout, "move", guard)
        except BotFault as fault:
            # the wait for the answer ran out (not the cpu budget, whose fault says what it used)
            if limits.clock is not None and fault.termination is Termination.TIMEOUT and fault.detail.startswith("took longer"):
                raise BotFault(Termination.CLOCK, "lost on time", f"{fault.detail} (its clock had {limits.clock.left:.3f}s)") from None
            raise
        if guard is not None:
            self._cpu_read = now = tree.cpu_seconds()
            self._check_cpu(limits, start, now, budget.margin)
        self.host.check_memory()
        budget.nodes = answer.get("nodes", 0)
        if "move" in answer:
            return self._decision(state, answer)
        if "illegal" in answer:
            return Shown(channel.plain(answer["illegal"]))
        self._fault(answer)

    def _cpu_guard(self, limits, start: float, margin: float):
        """What stops the move once its tree has used more CPU than a cpu budget and the margin,
        or than the game's node budgets allow (the kernel's count, polled while the runner
        waits): a bot that ignores its budget, or searches far past the nodes it counts, is
        killed, not waited for."""
        tree = self.host.tree

        def guard():
            self._check_cpu(limits, start, tree.cpu_seconds(), margin, killed=True)

        return guard

    def _check_cpu(self, limits, start: float, now: float, margin: float, killed: bool = False) -> None:
        """Raise BotFault past a cpu budget (TIMEOUT) or the CPU ceiling of the node budgets
        (CPU_CEILING: the game's CPU time so far, from its start, pondering included), killing
        the host unless the caller does (``killed``)."""
        end = "; its process was killed"
        if limits.cpu is not None and now - start > limits.cpu + margin:
            fault = BotFault(
                Termination.TIMEOUT, "timed out",
                f"used {now - start:.3f}s of CPU; budget cpu={limits.cpu:g}s + margin {margin:g}s{end}",
            )
        elif limits.nodes is not None and self._per_node and now - self._cpu_base > self._cpu_allowed:
            fault = BotFault(
                Termination.CPU_CEILING, "went over its CPU ceiling",
                f"used {now - self._cpu_base:.3f}s of CPU in this game, where its node budgets allow "
                f"{self._cpu_allowed:.3f}s (a move of {limits.nodes:,} nodes: {ceiling.FACTOR} x {self._per_node * 1e6:.1f} µs "
                f"a node, measured here, + {ceiling.PER_MOVE:g}s; + {ceiling.SLACK:g}s a game){end}",
            )
        else:
            return
        if not killed:
            self.host.kill()
        raise fault

    def _decision(self, state, answer: dict):
        """The move (or Decision) an answer names, read with the game's ``parse_move_in``; what
        the fields mean (a legal move, a score within bounds) the referee checks."""
        game, text = self._game, answer["move"]
        if isinstance(state, View):  # one of the seat's legal moves, or only shown
            texts = self._legal_texts
            if text not in texts:
                return Shown(channel.plain(text))
            move = state.legal[texts.index(text)]
        else:
            try:
                move = game.parse_move_in(state, text)
            except Exception:
                return Shown(channel.plain(text))
        if len(answer) == 2:  # a bare move and its nodes
            return move
        if "badpv" in answer:
            raise BotFault(Termination.PROTOCOL, "broke the protocol", f"unwritable principal variation ({channel.plain(answer['badpv'])})")
        pv = () if isinstance(state, View) else self._pv(state, answer.get("pv", ()))
        return Decision(move, answer.get("score"), answer.get("depth"), pv, answer.get("reported"))

    def _pv(self, state, texts: list) -> tuple:
        """The principal variation's moves, each read as the game reads a move's text (in its
        position, for games that write moves by position); one that does not read loses the game."""
        game, pv = self._game, []
        by_position = texts_need_state(game)  # else no position needs to be made
        for ply, text in enumerate(texts):
            try:
                move = game.parse_move_in(state, text)
                if by_position:
                    state = game.apply(state, move)
            except Exception:
                raise BotFault(
                    Termination.PROTOCOL, "broke the protocol",
                    f"principal variation move {channel.plain(text, 40)!r} at its ply {ply} does not read as a move",
                ) from None
            pv.append(move)
        return tuple(pv)

    def _fault(self, answer: dict) -> typing.NoReturn:
        """Raise the BotFault a host's answer names (one of the wrong kind: a protocol fault)."""
        kind, text = answer.get("fault"), channel.plain(answer.get("text", ""))
        if kind == "memory":
            raise BotFault(Termination.MEMORY, "ran out of memory", f"over its limit of {self.limits.memory_limit} MiB")
        if kind == "output":
            raise BotFault(Termination.OUTPUT, "wrote too much", text)
        if kind is None:
            fields = channel.plain(", ".join(sorted(answer)), 80)
            raise BotFault(Termination.PROTOCOL, "broke the protocol", f"sent an answer of the wrong kind ({fields})")
        raise BotFault(Termination.CRASH, "crashed", text)

    def release(self) -> None:
        """Hand the host back for the next game (or drop it if it died)."""
        if self.host is not None:
            self.pool.release(self.host)
            self.host = None

