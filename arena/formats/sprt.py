"""SPRT: is the new bot better than the base? Pairs of games until a sequential test decides.

An SPRT is a tournament of two bots, new first, playing pairs of games (one opening,
colours swapped), run by ``arena sprt``. ``TestWatcher`` hands the executor games in pair
order and stops handing them once the test has decided; the games then in flight are
finished and stored, but count in neither the verdict nor the counts
(``results.sprt_report.PairWalk``). The statistics are ``results.sprt``'s.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Iterable, Iterator

from arena.errors import ParameterError
from arena.formats.base import Format, Setting, Watcher, number
from arena.records import points
from results.sprt import MODELS, SPRT
from results.sprt_report import PENTANOMIAL, RESULTS, PairWalk, past_verdict, sprt_summary, summary_lines

if TYPE_CHECKING:
    import pandas as pd

_TEST = ("elo0", "elo1", "alpha", "beta", "model")


@dataclass(frozen=True)
class Sprt(Format):
    """A sequential probability ratio test between the first bot (new) and the second (base)."""

    test: SPRT
    """The hypotheses and error rates."""

    name = "sprt"
    command = "sprt"
    open_ended = True  # it stops when the test decides
    settings = (
        Setting("elo0", "float", 0.0, "Elo difference under H0 (default {default})", commands=("sprt",), stored=("sprt",)),
        Setting("elo1", "float", 5.0, "Elo difference under H1, more than elo0 (default {default})", commands=("sprt",),
                stored=("sprt",)),
        Setting("alpha", "float", 0.05, "chance of accepting H1 when H0 holds (default {default})", commands=("sprt",),
                stored=("sprt",)),
        Setting("beta", "float", 0.05, "chance of accepting H0 when H1 holds (default {default})", commands=("sprt",),
                stored=("sprt",)),
        Setting("model", "choice", "normalized", "the Elo of elo0 and elo1 (default {default})", commands=("sprt",),
                stored=("sprt",), choices=MODELS),
        Setting("max_games", "int", 2000, "stop undecided after N games, even (default {default})", metavar="N",
                commands=("sprt",), stored=("games_per_pairing",), grows=True),
    )

    @classmethod
    def misplaced(cls, keys: list[str]) -> str:
        return "the sprt format is run by 'arena sprt', which sets the test's bounds"

    @classmethod
    def build(cls, values: dict) -> "Sprt":
        test = values.get("sprt")
        if test is None:
            raise ParameterError(cls.misplaced([]))
        return cls(test if isinstance(test, SPRT) else SPRT(**test))

    @classmethod
    def from_stored(cls, stored: dict) -> "Sprt":
        s = stored["sprt"]
        return cls(SPRT(s["elo0"], s["elo1"], s["alpha"], s["beta"], s["model"]))

    def stored(self) -> dict:
        return {"sprt": asdict(self.test)}

    def check(self, config) -> None:
        if len(config.bots) != 2:
            raise ParameterError(f"an SPRT plays two bots, new and base; got {len(config.bots)}")

    def pairings(self, bots, challengers):
        return [(0, 1)]

    def watcher(self, config, stored, scheduled):
        return TestWatcher(config, stored, scheduled)

    def describe(self, config: dict) -> str:
        return f"at most {config.get('games_per_pairing')} games per pairing"

    def flag(self, stored_key: str) -> str | None:
        return "--max-games" if stored_key == "games_per_pairing" else None

    def report(self, tables, config: dict, fmt: str, view=None):
        """Its verdict and numbers (``sprt``: one row for csv and json, item and value
        otherwise; in text, lines that lead the report) and how its games ended."""
        import pandas as pd

        from results.report import terminations

        summary = sprt_summary(tables.games, config)
        out = {"terminations": terminations(tables.games)}
        if fmt == "text":
            return summary_lines(summary), out
        numbers = {k: _finite(v) for k, v in summary.items()}
        if fmt in ("csv", "json"):
            table = pd.DataFrame([numbers]).set_index("new")
        else:
            table = pd.DataFrame({"value": [("-" if v is None else v) for v in numbers.values()]}, index=list(numbers))
            table.index.name = "item"
        return [], {"sprt": table, **out}

    def page(self, games, config: dict, standings) -> dict:
        return {"verdict": sprt_box(games, config)}


def build_test(values: dict) -> SPRT:
    """The test of merged ``arena sprt`` settings; ParameterError for bounds that cannot be tested."""
    return SPRT(model=values["model"], **{k: number(values, k) for k in _TEST[:-1]})


class TestWatcher(Watcher):
    """Follows an SPRT: the progress bar counts pairs and shows the LLR; games stop once it decides."""

    unit = "pair"

    def __init__(self, config, stored: list[dict], scheduled: int):
        self.walk = PairWalk(config.format.test, config.bots[0].name, scheduled // 2)
        for row in stored:
            self.walk.add(row["game_id"], row["first"], points(row["result"]))
        self.total, self.initial = scheduled // 2, self.walk.pairs
        self.told = self.walk.over  # decided before this run: nothing to announce
        self.in_flight = 0

    def tasks(self, todo) -> Iterable:
        for task in todo:  # in game order, so pairs finish roughly in pair order
            if self.walk.over:
                return
            self.in_flight += 1
            yield task

    def add(self, game) -> int:
        self.in_flight -= 1
        return self.walk.add(game.game_id, game.first, game.score_first)

    def failed(self, index: int) -> None:
        self.in_flight -= 1

    def postfix(self) -> str:
        s = self.walk.status
        return f"LLR {s.llr:.2f} in ({s.lower:.2f}, {s.upper:.2f})"

    def news(self) -> Iterator[str]:
        if self.walk.over and not self.told:
            self.told = True
            past = past_verdict(self.walk, self.in_flight)
            yield (f"arena: SPRT {RESULTS[self.walk.verdict]} after {self.walk.pairs} pairs (LLR {self.walk.status.llr:.2f})"
                   + (f"; {past}" if past else ""))


def _finite(value):
    """A number for csv and json: None for an infinite one."""
    return None if isinstance(value, float) and value in (float("inf"), float("-inf")) else value


def sprt_box(games: pd.DataFrame, config: dict | None) -> dict | None:
    """The HTML report's verdict box of an SPRT run, None for other formats.

    The numbers are ``sprt_summary``'s, so the page, ``arena sprt`` and
    ``arena report`` count the same pairs (in pair order, up to the pair that decided) and
    agree on the verdict.
    """
    if not config or config.get("format") != Sprt.name:
        return None
    s = sprt_summary(games, config)
    state = {"H1": "accepted", "H0": "rejected", "inconclusive": "inconclusive", None: "running"}[s["verdict"]]
    counts = tuple(s[k] for k in PENTANOMIAL)
    return {
        "state": state, "candidate": s["new"], "llr": f"{s['llr']:.2f}",
        "lower": f"{s['lower']:.2f}", "upper": f"{s['upper']:.2f}", "counts": counts,
        "pairs": s["pairs"], "unpaired": s["uncounted_games"],
        "hypotheses": f"H0: {s['elo0']:g} against H1: {s['elo1']:g} ({s['model']} Elo), "
        f"alpha {s['alpha']:g}, beta {s['beta']:g}",
    }
