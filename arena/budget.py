"""Per-move budgets, the counter of a move's nodes, and the counted game a bot is handed."""

from __future__ import annotations

import math
import pickle
import sys
import time
import weakref
from types import MethodType
from dataclasses import dataclass

from arena.clock import Clock, TimeControl
from arena.errors import ParameterError
from arena.limits import DEFAULT_LIMITS

#: How many nodes pass between two looks at the clock under a time budget.
TIME_CHECK_INTERVAL = 32
#: A budget's fields, in the order its text gives them.
KEYS = ("nodes", "time", "depth", "cpu", "tc")


@dataclass(frozen=True)
class Budget:
    """What one move may spend. Every field is optional; None means no limit."""

    nodes: int | None = None
    """Most positions the search may examine (the root and every position made by apply)."""
    time: float | None = None
    """Most wall-clock seconds the move may take."""
    depth: int | None = None
    """Deepest search, in plies, a bot may start."""
    cpu: float | None = None
    """Most CPU seconds the move may use, measured outside the bot: its process tree's, as the
    kernel counts them (for a bot in the referee's process, its thread's). Unlike ``time``, a
    busy machine does not use it up: the fair budget for untrusted bots on shared machines."""
    tc: TimeControl | None = None
    """A chess clock for the whole game (``10+0.1``): each move takes its time off the bot's
    clock, and a clock run out loses on time. Given as text, it is parsed."""
    clock: Clock | None = None
    """The clocks as this move starts: set by the referee on the budget a bot is handed under
    ``tc``, never parsed. A search under it stops at ``clock.share()`` (see ``Counter``)."""

    def __post_init__(self):
        for key in ("nodes", "depth"):
            value = getattr(self, key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ParameterError(f"bad budget {key}={value!r}; expected a whole number of at least 1")
        for key in ("time", "cpu"):
            t = getattr(self, key)
            if t is not None:
                if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
                    raise ParameterError(f"bad budget {key}={t!r}; expected seconds greater than 0")
                object.__setattr__(self, key, float(t))
        if isinstance(self.tc, str):
            object.__setattr__(self, "tc", TimeControl.parse(self.tc))
        if self.tc is not None:
            if not isinstance(self.tc, TimeControl):
                raise ParameterError(f"bad budget tc={self.tc!r}; expected a time control such as 10+0.1")
            if self.time is not None:
                raise ParameterError(f"give a move's time (time={self.time:g}) or a clock (tc={self.tc}), not both")

    def at(self, clock: Clock) -> "Budget":
        """This budget for one move under its clock: the same, with ``clock`` set."""
        out = object.__new__(Budget)  # checked already: a move's copy skips __post_init__
        out.__dict__.update(self.__dict__)
        out.__dict__["clock"] = clock
        out.__dict__.pop("_text", None)
        return out

    @classmethod
    def parse(cls, text: str) -> "Budget":
        """Parse ``"nodes=1000"``, ``"time=0.5,depth=6"``, ``"cpu=0.2"``, ``"tc=10+0.1"`` or ``"none"``."""
        if not isinstance(text, str):
            raise TypeError(f"Budget.parse takes text such as 'nodes=1000', got {text!r}")
        text = text.strip()
        if not text:
            raise ParameterError(
                "empty budget; expected nodes=N, time=SECONDS, depth=D, cpu=SECONDS or tc=CLOCK, comma-separated, or 'none'"
            )
        if text.lower() in ("none", "unlimited"):
            return cls()
        values: dict = {}
        for piece in text.split(","):
            key, sep, value = piece.partition("=")
            key = key.strip()
            if not sep or key not in KEYS:
                raise ParameterError(
                    f"bad budget {text!r}; expected nodes=N, time=SECONDS or depth=D, comma-separated, "
                    "cpu=SECONDS for CPU time and tc=[MOVES/]SECONDS[+INCREMENT] for a clock"
                )
            if key in values:
                raise ParameterError(f"bad budget {text!r}: {key} given twice")
            if key == "tc":
                values[key] = TimeControl.parse(value)
                continue
            try:
                values[key] = float(value) if key in ("time", "cpu") else _whole(value)
            except ValueError:
                kind = "seconds" if key in ("time", "cpu") else "a whole number"
                raise ParameterError(f"bad budget {key}={value.strip()!r}; expected {kind}") from None
        return cls(**values)

    def __str__(self):
        try:
            return self.__dict__["_text"]  # the referee writes it into every game record
        except KeyError:
            parts = [f"{k}={getattr(self, k):g}" for k in KEYS[:-1] if getattr(self, k) is not None]
            if self.tc is not None:
                parts.append(f"tc={self.tc}")
            text = ",".join(parts) or "none"
            object.__setattr__(self, "_text", text)
            return text

    @property
    def unlimited(self) -> bool:
        return self.nodes is None and self.time is None and self.depth is None and self.cpu is None and self.tc is None


class BudgetExhausted(Exception):
    """Raised by Counter.tick when the node or time limit is reached; searches catch it."""


class Counter:
    """Counts the nodes of one move's search and stops it at the budget's limits.

    The arena starts one per move (a new one, or ``reset()`` of the last) and reads
    ``nodes`` afterwards: the count belongs to the arena, not the bot. ``tick()`` counts
    one position; once the node limit or the deadline is reached it raises
    BudgetExhausted instead (and keeps doing so).

    Under a clock (``budget.clock``) the deadline is the move's share of it (``Clock.share``),
    so every search that ticks manages its clock; a bot that plans its own time reads
    ``clock`` and moves the deadline with ``allot``.
    """

    __slots__ = ("budget", "nodes", "depth", "started", "deadline", "cpu_deadline", "margin", "_node_limit", "_stop_at",
                 "_clock")

    def __init__(self, budget: Budget | None = None, clock=time.perf_counter, margin: float = DEFAULT_LIMITS.time_margin):
        budget = budget or Budget()
        self.budget = budget
        self.margin = margin
        """Seconds past a time or cpu budget (or a clock) before the referee takes the move as lost:
        its ``time_margin``. A bot that waits on a process of its own (an engine, an isolated bot)
        waits as long, and no longer."""
        self.nodes = 0
        """Positions examined so far."""
        self.depth = budget.depth
        """The budget's depth limit (None: unlimited)."""
        self._clock = clock
        self.started = clock()
        self.deadline = self.started + budget.time if budget.time is not None else None
        if budget.clock is not None:
            self.deadline = self.started + budget.clock.share()
        self.cpu_deadline = time.thread_time() + budget.cpu if budget.cpu is not None else None
        """When this thread's CPU clock (``time.thread_time``) ends the move, under a cpu budget."""
        self._node_limit = budget.nodes if budget.nodes is not None else sys.maxsize
        self._stop_at = self._next_stop()

    def reset(self) -> float:
        """Start a new move under the same budget: zero the count, restart the clock.

        Returns the start time. Cheaper than a new Counter, and every limit is taken
        afresh from ``budget``.
        """
        budget = self.budget
        self.nodes = 0
        self.depth = budget.depth
        self.started = started = self._clock()
        limit = budget.nodes
        self._node_limit = sys.maxsize if limit is None else limit
        self.deadline = None if budget.time is None else started + budget.time
        if budget.clock is not None:
            self.deadline = started + budget.clock.share()
        self.cpu_deadline = None if budget.cpu is None else time.thread_time() + budget.cpu
        if self.deadline is None and self.cpu_deadline is None:
            self._stop_at = self._node_limit
        else:
            self._stop_at = min(self._node_limit, TIME_CHECK_INTERVAL)
        return started

    def _next_stop(self) -> int:
        if self.deadline is None and self.cpu_deadline is None:
            return self._node_limit
        return min(self._node_limit, self.nodes + TIME_CHECK_INTERVAL)

    def tick(self) -> None:
        """Count one examined position, or raise BudgetExhausted if none may be examined."""
        self.nodes += 1
        if self.nodes > self._stop_at:
            self._check()

    def _check(self) -> None:
        if self.nodes > self._node_limit or self._past_a_deadline():
            self.nodes -= 1
            self._stop_at = self.nodes  # every later tick comes back here and raises again
            raise BudgetExhausted
        self._stop_at = self._next_stop()

    def _past_a_deadline(self) -> bool:
        if self.deadline is not None and self._clock() >= self.deadline:
            return True
        return self.cpu_deadline is not None and time.thread_time() >= self.cpu_deadline

    @property
    def exhausted(self) -> bool:
        """True when the next tick would raise."""
        if self.nodes >= self._node_limit:
            return True
        return self._past_a_deadline()

    def elapsed(self) -> float:
        """Seconds since the move started."""
        return self._clock() - self.started

    def out_of_budget(self) -> str:
        """Why a move that let BudgetExhausted escape has no answer, in words."""
        return f"ran out of its budget ({self.budget}) after {self.nodes:,} nodes without choosing a move"

    @property
    def clock(self):
        """The clocks as this move started (an ``arena.Clock``), or None without a time control."""
        return self.budget.clock

    def allot(self, seconds: float) -> None:
        """Under a clock, let this move's search run ``seconds`` from its start (at most the
        clock's remaining time) in place of the clock's share."""
        clock = self.budget.clock
        if clock is None:
            raise ValueError("allot: this move has no clock (its budget has no tc)")
        self.deadline = self.started + max(0.0, min(float(seconds), clock.left))
        self._stop_at = self._next_stop()

    def time_left(self) -> float | None:
        """Seconds until the deadline, or None without a time limit."""
        return None if self.deadline is None else self.deadline - self._clock()


# The game a bot is handed: the referee's game, but its ``apply`` ticks the move's counter.

_COUNTED_CLASSES: dict[type, type] = {}
_LIVE: "weakref.WeakValueDictionary[int, object]" = weakref.WeakValueDictionary()


def counted(game, counter: Counter):
    """``game`` as a bot sees it: every position its ``apply`` makes ticks ``counter``.

    Past the counter's node or time limit, ``apply`` raises BudgetExhausted, whether or not
    the bot ticks. The view is an instance of a subclass of the game's class made for the
    purpose, so the class's own method counts too (``type(view).apply``); a copy counts for
    the same counter, and a pickle round trip in the same process gives the view back. A
    rule book of the game's class that a bot builds for itself is outside what a referee
    can see.
    """
    base = getattr(type(game), "_counted_base", type(game))
    view = object.__new__(_counted_class(base))
    fields = view.__dict__
    fields.update(game.__dict__)
    # the rule book's own apply: a view's (of a view), one set on the instance (a wrapper),
    # or the class's
    own = fields.pop("apply", None)
    inner = fields.get("_arena_apply") or own or MethodType(base.apply, view)
    fields["_arena_apply"] = inner
    fields["apply"] = _counting(counter, inner)  # what ``view.apply`` finds first
    if game.model.simultaneous:  # a joint move makes a position too
        fields["apply_joint"] = _counting(counter, MethodType(base.apply_joint, view))
    _LIVE[id(view)] = view
    return view


def uncounted(game):
    """The rule book behind a counted view (``game`` itself if it is none): its ``apply`` counts nothing.

    For bots whose search runs elsewhere (engines) and that only follow the game.
    """
    base = getattr(type(game), "_counted_base", None)
    if base is None:
        return game
    plain = object.__new__(base)
    fields = plain.__dict__
    fields.update(game.__dict__)
    inner = fields.pop("_arena_apply")
    fields.pop("apply_joint", None)
    if getattr(inner, "__self__", None) is game:  # the class's apply, bound to the view
        del fields["apply"]
    else:  # a wrapper set on the instance
        fields["apply"] = inner
    return plain


def _counting(counter: Counter, inner):
    """``apply`` for one view: ``inner`` (the rule book's), counted on ``counter``."""

    def apply(state, move):
        # Counter.tick written out, the counter and the rule book's apply held in the
        # closure: this runs once per node of every search
        counter.nodes += 1
        if counter.nodes > counter._stop_at:
            counter._check()
        return inner(state, move)

    return apply


def _counted_class(base: type) -> type:
    """The subclass of ``base`` whose ``apply`` counts, made once per class."""
    try:
        return _COUNTED_CLASSES[base]
    except KeyError:
        pass

    def apply(self, state, move):  # the class's, for ``type(view).apply(view, ...)``: the view's own
        return self.__dict__["apply"](state, move)

    def apply_joint(self, state, moves):  # likewise, where the view counts joint moves
        own = self.__dict__.get("apply_joint")
        return own(state, moves) if own is not None else base.apply_joint(self, state, moves)

    apply.__doc__ = base.apply.__doc__
    namespace = {
        "apply": apply,
        "apply_joint": apply_joint,
        "_counted_base": base,
        "__copy__": _copy_view,
        "__deepcopy__": lambda self, memo: _copy_view(self),
        "__reduce__": _reduce_view,
        "__module__": base.__module__,
        "__qualname__": base.__qualname__,
        "__doc__": base.__doc__,
    }
    cls = _COUNTED_CLASSES[base] = type(base.__name__, (base,), namespace)
    return cls


def _copy_view(view):
    twin = object.__new__(type(view))
    twin.__dict__.update(view.__dict__)
    _LIVE[id(twin)] = twin
    return twin


def _reduce_view(view):
    return (_live_view, (id(view),))


def _live_view(key: int):
    """The counted view a pickle of it names; a view cannot leave the process that made it."""
    try:
        return _LIVE[key]
    except KeyError:
        raise pickle.UnpicklingError("a game handed to a bot counts its moves and cannot leave its process") from None


def _whole(text: str) -> int:
    """A whole number, also as ``str(Budget)`` writes a large one (``1e+06``)."""
    try:
        return int(text)
    except ValueError:
        number = float(text)
        if not number.is_integer():
            raise
        return int(number)
