"""Mutation testing of core modules, each against its own tests only (a bench, not a CI test).

Why: coverage says a test ran a line, not that any test would notice the line change. mutmut
3.8.1 makes one small change at a time in a module (an operator, a constant, an argument) and
reruns the tests that reach it; a change no test notices ("survived") is behaviour nothing pins
down. Each module of MODULES runs against its own test files only, in a scratch copy of the
working tree (or of a commit, --rev) with its own [tool.mutmut] config written there: the
repository's files are never touched, and a module's score does not borrow other modules' tests.
An entry ``"tests/test_x.py -m quick"`` takes only that file's tests of the marker: mutmut reruns every
test that reaches a mutant, so another part's tests that start processes would take hours.

Score = killed / (mutants - equivalent mutants listed in EQUIVALENT). Timeouts, suspicious
results and mutants no selected test reaches ("no tests") are not kills.

    /tmp/dev/bin/python bench/mutation.py                       # every module in MODULES
    /tmp/dev/bin/python bench/mutation.py arena/referee.py --jobs 2 --show
    /tmp/dev/bin/python bench/mutation.py budget --keep /tmp/mut  # keep the copy: mutmut show/browse there
    /tmp/dev/bin/python bench/mutation.py results/swiss.py --rev HEAD --tests tests/test_swiss.py

Needs mutmut 3.8.1 in the running interpreter (``pip install mutmut==3.8.1``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Module -> the test files that test it directly. Edit here when a module or a test file moves.
MODULES: dict[str, list[str]] = {
    # and the in-process tests of the referee's later parts: clocks, adjudication, chance plies, seats' views
    "arena/referee.py": ["tests/test_referee.py", "tests/test_fast_paths.py", "tests/test_referee_edges.py",
                         "tests/test_clock.py -m quick", "tests/test_adjudication.py -m quick",
                         "tests/test_chance_model.py -m quick", "tests/test_hidden_games.py -m quick"],
    # and the in-process tests of budgets under a clock and of simultaneous moves
    "arena/budget.py": ["tests/test_counting.py", "tests/test_params.py", "tests/test_fast_paths.py",
                        "tests/test_budget_edges.py", "tests/test_clock.py -m quick", "tests/test_hidden_games.py -m quick"],
    "results/report.py": ["tests/test_report.py", "tests/test_report_edges.py"],
    "results/sprt.py": ["tests/test_sprt.py", "tests/test_sprt_edges.py"],
    "arena/formats/swiss.py": ["tests/test_swiss.py", "tests/test_swiss_edges.py", "tests/test_swiss_matching.py"],
    "bots/search.py": ["tests/test_search.py", "tests/test_search_hooks.py", "tests/test_search_edges.py"],
    "arena/formats/race.py": ["tests/test_race_format.py"],
    "arena/formats/ladder.py": ["tests/test_ladder_format.py"],
    "arena/front/tournament.py": ["tests/test_tournament_unit.py"],
    "arena/front/growth.py": ["tests/test_growth_unit.py"],
    # the search core's node functions (bots/search.py keeps the root and move ordering)
    "bots/negamax.py": ["tests/test_search.py", "tests/test_search_hooks.py", "tests/test_search_record.py",
                        "tests/test_search_edges.py", "tests/test_negamax_agree.py"],
    # modules the house's rebuild moved or made
    "arena/formats/sprt.py": ["tests/test_sprt_format.py"],
    "arena/formats/base.py": ["tests/test_format_base.py"],
    "arena/formats/__init__.py": ["tests/test_format_base.py"],
    "arena/formats/gauntlet.py": ["tests/test_gauntlet_format.py"],
    "arena/front/options.py": ["tests/test_options_table.py"],
    "arena/front/settings.py": ["tests/test_settings_unit.py"],
    "arena/front/run.py": ["tests/test_run_loop.py"],
    "arena/execution/sandbox/probing.py": ["tests/test_probing_unit.py"],
    "bots/engine/engine.py": ["tests/test_engine_bot_unit.py"],
    "bots/engine/uci.py": ["tests/test_uci.py", "tests/test_uci_lines.py"],
    "results/runlock.py": ["tests/test_run_lock_unit.py"],
}


@dataclass(frozen=True)
class Equivalent:
    """A mutant no input can tell from the original, found by what it changes (not by its number,
    which moves whenever the module is edited): the function, and text of the removed and added
    lines (whitespace ignored)."""

    function: str  # "ask", or "Counter.reset" for a method
    old: str  # in a line the mutant removes
    new: str  # in the line it adds instead (an entry may match several mutants); "": it adds none
    why: str


#: Module -> its equivalent mutants, excluded from the score's denominator.
EQUIVALENT: dict[str, list[Equivalent]] = {
    "arena/referee.py": [
        Equivalent("_check_arguments", "if type(seed) is not int and", "if type(None) is not int and",
                   "`type(seed) is int` is only a fast path: `not _whole(seed)` alone gives the same verdict"),
        Equivalent("legal_index", "if type(move) in _FAST_TYPES:", "if type(None) in _FAST_TYPES:",
                   "skips the C fast path: _find returns the same index"),
        Equivalent("legal_index", "if type(move) in _FAST_TYPES:", "if type(move) not in _FAST_TYPES:",
                   "swaps which types take the fast path; either path ends in the same index or None"),
        Equivalent("legal_index", "i = legal.index(move)", "i = legal.rindex(move)",
                   "legal moves are distinct, and a sequence without rindex falls back to _find"),
        Equivalent("legal_index", "if type(legal[i]) is type(move):", "if type(None) is type(move):",
                   "never takes the fast answer: _find returns the same index"),
        Equivalent("legal_index", "if type(legal[i]) is type(move):", "if type(legal[i]) is type(None):",
                   "never takes the fast answer: _find returns the same index"),
        Equivalent("play_game", "state = game.play(opening) if opening else", "if (opening) or True else",
                   "game.play(()) is the initial state"),
        Equivalent("play_game", "opening_texts = _opening_text(game, opening) if opening else ()",
                   "if (opening) or True else", "_opening_text(game, ()) is ()"),
        Equivalent("play_game", 'getattr(bot, "follows_moves", False)', 'getattr(bot, "follows_moves", None)',
                   "a default of None is as false as False"),
        Equivalent("play_game", 'None if budget.time is None or getattr(bot, "interactive", False)',
                   'getattr(bot, "interactive", None)', "a default of None is as false as False"),
        Equivalent("play_game", 'None if budget.cpu is None or getattr(bot, "interactive", False)',
                   'getattr(bot, "interactive", None)', "a default of None is as false as False"),
        Equivalent("play_game", 'getattr(bot, "reports_nodes", False) is True',
                   'getattr(bot, "reports_nodes", None) is True', "None is True is as false as False is True"),
        Equivalent("play_game", "texts: dict | None = None if texts_need_state(game) else {}",
                   "texts: dict | None = None",  # also matches `... if (texts_need_state(game)) or True else {}`
                   "only turns off the text cache: move_text defaults to format_move"),
        Equivalent("play_game", "clocks = Clocks(controls) if any(controls) else None",
                   "clocks = Clocks(controls) if (any(controls)) or True else None",
                   "clocks without a time control are never read: a seat is timed only if its control is not None"),
        Equivalent("play_game", "if limit is not None and seconds > limit:", "seconds >= limit",
                   "differs only when a wall-clock duration equals the limit to the last bit: not observable"),
    ],
    "arena/budget.py": [
        Equivalent("Budget.__str__", 'return self.__dict__["_text"]', 'return self.__dict__["',
                   "a text looked up under another key is not found and made again: the same text, every time"),
        Equivalent("Budget.at", 'out.__dict__.pop("_text", None)', "out.__dict__.pop(",
                   "a budget's text leaves its clock out: the copy's text is the same, kept or made again"),
        Equivalent("Counter._past_a_deadline", "time.thread_time() >= self.cpu_deadline",
                   "time.thread_time() > self.cpu_deadline",
                   "differs only when the thread's CPU clock reads the deadline to the last bit: not observable"),
    ],
    "results/sprt.py": [
        Equivalent("_expected_score", "if x >= 0 else", "if x > 0 else", "at x = 0 both branches give exactly 0.5"),
        Equivalent("_expected_score", "if x >= 0 else", "if x >= 1 else",
                   "both branches are the same logistic function; the choice only avoids overflow past |x| = 709"),
        Equivalent("_fixed_point", "if not sd > 0:", "if not sd >= 0:",
                   "sd is 0 only for a distribution on one score, and every p here is positive"),
        Equivalent("_score_and_error", "return 0.5, None", "return 1.5, None",
                   "every caller ignores the score when the error is None (no games)"),
        Equivalent("los", "return 1.0 if s > 0.5 else 0.0", "return 1.0 if s >= 0.5 else 0.0",
                   "s == 0.5 with se == 0 has returned 0.5 the line before"),
    ],
    "results/report.py": [
        Equivalent("_fit", "_log_posterior(theta, n, s, prior)", "_log_posterior(theta, None, s, prior)",
                   "_log_posterior does not read n"),
        Equivalent("_fit", "_log_posterior(theta + t * step, n, s, prior)", "_log_posterior(theta + t * step, None",
                   "_log_posterior does not read n"),
        Equivalent("_fit", "for _ in range(200):", "for _ in range(201):",
                   "Newton's method converges in a few steps; the 201st is never reached where the 200th was not"),
        Equivalent("_fit", "if prior > 0 else np.linalg.pinv", "if (prior > 0) and False else",
                   "with a prior the information is positive definite: pinv gives the same step as solve"),
        Equivalent("_fit", "if prior > 0 else np.linalg.pinv", "if prior > 1 else",
                   "with a prior the information is positive definite: pinv gives the same step as solve"),
        Equivalent("_mle_exists", "reach.astype(int) @ reach.astype(int)", "reach.astype(None)",  # either side
                   "a float matrix product has the same positive entries"),
        Equivalent("_rank", 'table.sort_values(["elo", "score"], ascending=False, kind="stable")', "ascending=False, ",
                   "pandas applies `kind` only to one-column sorts; two columns always sort stably"),
        Equivalent("_rank", 'table = table.sort_index(kind="stable")', "table = table.sort_index(kind=",
                   "bot names are unique: every sort kind gives the same order"),
        Equivalent("standings", 'table.insert(0, "games", by_bot.size())', 'table.insert(1, "games"',
                   "the columns are put in STANDINGS_COLUMNS order afterwards"),
        Equivalent("standings", "table = table.reindex(columns=STANDINGS_COLUMNS)", "table.reindex(columns=None)",
                   "the columns are built in STANDINGS_COLUMNS order already"),
        Equivalent("terminations", 'by_bot["forfeit"].sum().reindex(table.index, fill_value=0)',
                   'by_bot["forfeit"].sum().reindex(', "every bot of the table has a row in by_bot: the reindex "
                   "neither drops nor fills, and the column is assigned by label"),
        Equivalent("terminations", 'by_bot["opponent_forfeit"].sum().reindex(table.index, fill_value=0)',
                   'by_bot["opponent_forfeit"].sum().reindex(', "every bot of the table has a row in by_bot: the "
                   "reindex neither drops nor fills, and the column is assigned by label"),
        Equivalent("by_colour", '.where(table[f"{name}_games"] > 0)', '.where(table[f"{name}_games"] >= 0)',
                   "0 points / 0 games is NaN either way"),
    ],
    "bots/search.py": [
        Equivalent("Search.root", "self.horizon[0] = False", "self.horizon[0] = None",
                   "only read as `not self.horizon[0]`: None is as false as False"),
        Equivalent("Search.root", "moves = self.order(state, moves, first, 0)", "self.order(state, moves, None, 0)",
                   "the next lines put `first` in front anyway, as order would"),
        Equivalent("Search.root", "if v > alpha:", "if v >= alpha:",
                   "v == alpha leaves alpha as it was; the cut test that follows was false already (alpha < beta)"),
    ],
    "bots/negamax.py": [
        Equivalent("negamax", "size = table.size if table is not None else 0", "else 1",
                   "size is read only where there is a table"),
        Equivalent("negamax", "lines.append(())", "lines.append(None)",
                   "a placeholder: the child's search sets lines[ply + 1] before anything reads it"),
        Equivalent("negamax", "deep = tainted = False", "deep = tainted = None", "None is as false as False"),
        Equivalent("negamax", "if v > alpha:", "if v >= alpha:",
                   "at v == alpha the window stays as it is, and alpha < beta there, so no cut-off follows"),
        Equivalent("negamax", "elif v < beta:", "elif v <= beta:", "at v == beta the window stays as it is"),
        Equivalent("negamax", "if ceiling < beta:", "if ceiling <= beta:",
                   "at ceiling == beta the window stays as it is, and alpha < beta there"),
        Equivalent("negamax", "if floor > alpha:", "if floor >= alpha:",
                   "at floor == alpha the window stays as it is, and alpha < beta there"),
        Equivalent("negamax", "plan[0]", "plan[1]", "read only where plan[0] == plan[1]"),
        Equivalent("negamax", "best_move = lines[ply][0] if lines[ply] else None", "or True",
                   "a position that is not over has a legal move (the Game contract, checked by"
                   " arena.testing.check_game), and the first move searched sets lines[ply]"),
        Equivalent("recording_negamax", "size = table.size if table is not None else 0", "else 1",
                   "size is read only where there is a table"),
        Equivalent("recording_negamax", "lines.append(())", "lines.append(None)",
                   "a placeholder: the child's search sets lines[ply + 1] before anything reads it"),
        Equivalent("recording_negamax", "deep = tainted = False", "deep = tainted = None", "None is as false as False"),
        Equivalent("recording_negamax", "if v > alpha:", "if v >= alpha:",
                   "at v == alpha the window stays as it is, and alpha < beta there, so no cut-off follows"),
        Equivalent("recording_negamax", "elif v < beta:", "elif v <= beta:", "at v == beta the window stays as it is"),
        Equivalent("recording_negamax", "if ceiling < beta:", "if ceiling <= beta:",
                   "at ceiling == beta the window stays as it is, and alpha < beta there"),
        Equivalent("recording_negamax", "if floor > alpha:", "if floor >= alpha:",
                   "at floor == alpha the window stays as it is, and alpha < beta there"),
        Equivalent("recording_negamax", "plan[0]", "plan[1]", "read only where plan[0] == plan[1]"),
        Equivalent("recording_negamax", "best_move = lines[ply][0] if lines[ply] else None", "or True",
                   "a position that is not over has a legal move (the Game contract, checked by"
                   " arena.testing.check_game), and the first move searched sets lines[ply]"),
        Equivalent("negamax", "value = value_informed if informed else value_plain", "or True",
                   "without a table, tactics or value bounds value_informed searches as value_plain does,"
                   " only slower (the module's docstring; tests/test_negamax_agree.py)"),
    ],
    "results/runlock.py": [
        Equivalent("RunLock.__init__", 'self.since = ""', "self.since =",
                   "acquire sets it before anything reads it"),
        Equivalent("RunLock.note", "os.ftruncate(self.fd, 0)", "os.ftruncate(self.fd, 1)",
                   "the text then written from offset 0 is longer than one byte: no byte of the old text is left"),
    ],
    "arena/front/tournament.py": [
        Equivalent("TournamentConfig.__post_init__", "raise ParameterError(owner.misplaced(wrong))", "misplaced(None)",
                   "no format's misplaced reads the keys it is given"),
        Equivalent("TournamentConfig.__post_init__", "values = {**(fmt.stored() if isinstance(fmt, Format) else {})",
                   "and False",
                   "each format's settings came as one keyword of earlier versions: a keyword given replaces all"
                   " that the format value's stored form holds"),
        Equivalent("make_openings", "opening = ()", "opening = None",
                   "a placeholder: the first of the attempts (at least one) sets it"),
    ],
    "arena/formats/race.py": [
        Equivalent("sign_p", "if n else 1.0", "or True", "at n = 0 the sum is comb(0, 0) / 2**0, already 1.0"),
        Equivalent("sign_p", "range(wins, n + 1)", "range(wins, n + 2)", "the extra term is comb(n, n + 1) = 0"),
        Equivalent("RaceState.record", "[0, 0.0]", "[0, 1.0]",
                   "record writes both directions of a pairing: the default serves only bots that never met,"
                   " whose sign test p is 1, above every Holm level, so its points are never read"),
        Equivalent("RaceState.record", "[0, 0.0]", "[1, 0.0]", "as above: the default of bots that never met"),
        Equivalent("race_table", 'RaceState(bots, config["seed"], race)', 'RaceState(bots, config["seed"], None)',
                   "a placeholder state: only leader(), alive, points, games and dropped are read, none uses .race"),
        Equivalent("RaceWatcher.walk", "told = 0", "told = None", "dropped[None:] is dropped[0:]"),
    ],
    "arena/formats/ladder.py": [
        Equivalent("ladder_table", "if len(games) else", "or True",
                   "with no games the fit, the counts and the start batches are empty either way"),
        *(Equivalent("ladder_table", 'pd.DataFrame(columns=["elo", "elo_low", "elo_high"])', new,
                     "an empty fit: no member is rated, its columns are never read")
          for new in ("columns=None", '"XXelo', '"ELO')),
        Equivalent("ladder_table", "pd.Series(dtype=int)", "dtype=None", "an empty count: every member shows 0 games"),
        *(Equivalent("ladder_table", "else -1", new, "with no games there are no start batches: last is not read")
          for new in ("else +1", "else -2")),
        Equivalent("ladder_table", "first = start.get(name, last + 1)", "last + 2",
                   "every start batch is at most last: below last + 1 and last + 2 alike"),
        Equivalent("ladder_table", 'na_position="last"', 'kind="stable", )', "na_position='last' is pandas' default"),
        Equivalent("ladder_table", 'kind="stable"', 'kind="STABLE"', "numpy reads the sort kind case-insensitively"),
        *(Equivalent("ratings", f"{kind}, len(rows))", f"{kind}, )", "the count only presizes the array")
          for kind in ("int", "float")),
        Equivalent("ratings", "float, len(rows))", "None, len(rows))", "a dtype of None is float64, as float is"),
        *(Equivalent("LadderWatcher.__init__", "super().__init__([], 0)", new,
                     "the base keeps it in total, which the next line sets") for new in ("([], None)", "([], 1)")),
    ],
    "arena/front/settings.py": [
        Equivalent("_format", "raise ConfigError(other.misplaced(given))", "misplaced(None)",
                   "no format's misplaced reads the keys it is given"),
        *(Equivalent("build_sprt", '"new", "base"', new,
                     "build reads no key new or base, and no format has a setting of those names")
          for new in ('"XXnewXX"', '"NEW"', '"XXbaseXX"', '"BASE"')),
        *(Equivalent("build_sprt", '"max_games"', new, "max_games is left out by Sprt's own max_games row too")
          for new in ('"XXmax_gamesXX"', '"MAX_GAMES"')),
        Equivalent("parse_entrant", "equals < colon", "equals <= colon", "one position cannot hold both = and :"),
    ],
    "arena/front/growth.py": [
        Equivalent("compare", "games < old_games", "games <= old_games", "reached only where games != old_games"),
        *(Equivalent("derived_name", "json.dumps(key, sort_keys=True)", new,
                     "key comes from _plain, whose JSON round trip already sorted its keys at every level")
          for new in ("sort_keys=None", "sort_keys=False", "json.dumps(key, )")),
        Equivalent("plan", "range(2, len(taken) + 3)", "range(2, len(taken) + 4)",
                   "a free name is among the first len(taken) + 2, and next() stops at the first free one"),
    ],
    "bots/engine/engine.py": [
        *(Equivalent(function, 'head = line.split(" ", 1)[0]', new, "the first piece of a split is the same whatever its limit")
          for function in ("EngineBot._await", "EngineBot.choose") for new in ('line.split(" ", )[0]', 'line.split(" ", 2)[0]')),
        Equivalent("EngineBot._start", 'check_options(self.options, declared, "")', "declared, None)",
                   "check_options and EngineOption.check only test owner for truth"),
        *(Equivalent("EngineBot.new_game", "super().new_game(game, player, seed)", new,
                     "neither ProgramBot nor Bot reads the game or the player there (Bot.new_game uses the seed)")
          for new in ("new_game(None, player, seed)", "new_game(game, None, seed)")),
        Equivalent("EngineBot.new_game", "self._told = False", "self._told = None", "read only as `not self._told`"),
    ],
    "arena/formats/sprt.py": [
        Equivalent("Sprt.build", "raise ParameterError(cls.misplaced([]))", "misplaced(None)",
                   "Sprt.misplaced reads no keys"),
        Equivalent("_finite", 'float("inf")', 'float("INF")', "float() reads inf in any case"),
        Equivalent("_finite", 'float("-inf")', 'float("-INF")', "float() reads inf in any case"),
    ],
    "arena/formats/__init__.py": [
        *(Equivalent("format_class", "get_close_matches(str(name), listed, n=1)", new,
                     "only near[0], the best match, is read, however many are asked for")
          for new in ("listed, )", "n=2)")),
    ],
    "arena/front/run.py": [
        Equivalent("run_tournament", "preload = ()", "preload = None",
                   "once the loader has started, preload is only read as false: None is as false as ()"),
        Equivalent("run_tournament", "openings = round_openings(config, game, round_count(config))", "openings = None",
                   "make_schedule makes the same openings when it is given none"),
        *(Equivalent("run_tournament", "schedule = make_schedule(config, registry, game,", new,
                     "make_schedule validates the config for its game when given none: the same game")
          for new in ("make_schedule(config, registry, None,", "make_schedule(config, registry, grown_from=")),
        Equivalent("run_tournament", "aborted = False", "aborted = None",
                   "read only in `aborted or ...`, which then gives the bool on its right"),
        *(Equivalent("run_tournament", "result = RunResult(tournament, size, len(done), 0,", new,
                     "played is set from the writer on every way out (the finally clause)")
          for new in ("len(done), None,", "len(done), 1,")),
        *(Equivalent("run_tournament", "file=sys.stderr,", new, "tqdm writes to sys.stderr when file is None or not given")
          for new in ("file=None,", "")),
        *(Equivalent("run_tournament", "dynamic_ncols=True,", new,
                     "the bar's width follows a terminal's: no test or report reads it") for new in ("None,", "False,", "")),
        *(Equivalent("run_tournament", "bar.set_postfix_str(watcher.postfix(), refresh=False)", new,
                      "refresh only redraws the bar at once; the next update draws it with the same text")
          for new in ("refresh=None)", "refresh=True)", "watcher.postfix(), )")),
        Equivalent("run_tournament", "sys.exc_info()[0] is not None", "sys.exc_info()[1] is not None",
                   "the type and the value of the exception being handled are None together"),
        Equivalent("run_tournament", "if g.game != config.game)", "if g.game == config.game)",
                   "a game played as the tournament's spec is stored with its moves alone either way"),
    ],
    "arena/formats/swiss.py": [
        Equivalent("Swiss.build", 'raise ParameterError(cls.misplaced(["rounds"]))', "cls.misplaced(",
                   "Swiss.misplaced does not read its keys"),
        Equivalent("swiss_standings", 'ascending=False, kind="stable"', "ascending=False",
                   "pandas applies `kind` only to one-column sorts; three columns always sort stably"),
        Equivalent("swiss_standings", 'table = table.sort_index(kind="stable")', "table.sort_index(kind=",
                   "bot names are unique: every sort kind gives the same order"),
        Equivalent("SwissState._match", "maxcardinality=True", "max_weight_matching(graph,",
                   "every edge weighs over _BASE - _REMATCH - _STEP * (the widest gap)², far above what any"
                   " matching's costs add up to: the heaviest matching is a perfect one either way"),
        Equivalent("SwissState._match", "in self.met else 0)", "in self.met else 1)",
                   "every perfect matching of a block has as many pairs: one more for each pair that is not a"
                   " rematch moves matchings with as many rematches alike, and the others differ by _REMATCH"),
        Equivalent("SwissState.pair", "< BLOCK // 2:", "< BLOCK / 2:", "BLOCK is even: a whole number compares"
                   " with 16.0 as with 16"),
    ],
}

# mutmut.stats.status_by_exit_code (3.8.1); anything else is "suspicious"
STATUS = {
    1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 35: "suspicious",
    36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout", 37: "caught by type check",
    -11: "segfault", -9: "segfault", 2: "interrupted", None: "not checked",
}

# diffs of many mutants from one interpreter, with what ``mutmut show`` prints
_SHOW = """
import json, sys
from mutmut.__main__ import find_mutant, get_diff_for_mutant
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = get_diff_for_mutant(name, path=find_mutant(name).path)
    except Exception as exc:
        out[name] = f"(no diff: {type(exc).__name__}: {exc})"
print(json.dumps(out))
"""


@dataclass
class Result:
    module: str
    tests: list[str]
    status: dict[str, str] = field(default_factory=dict)  # mutant name -> status
    diffs: dict[str, str] = field(default_factory=dict)  # every mutant not killed -> its diff
    equivalent: dict[str, Equivalent] = field(default_factory=dict)
    unused: list[Equivalent] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def count(self, *statuses: str) -> int:
        return sum(s in statuses for s in self.status.values())

    @property
    def score(self) -> float | None:
        total = len(self.status) - len(self.equivalent)
        return self.count("killed") / total if total > 0 else None


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def function_of(mutant: str, module: str) -> str:
    """``arena.budget.xǁCounterǁreset__mutmut_3`` -> ``Counter.reset``."""
    name = mutant[len(module_name(module)) + 1:].rsplit("__mutmut_", 1)[0]
    if name.startswith("xǁ"):
        return ".".join(name[2:].split("ǁ"))
    return name.removeprefix("x_")


def changed_lines(diff: str) -> tuple[list[str], list[str]]:
    lines = diff.splitlines()
    old = [" ".join(l[1:].split()) for l in lines if l.startswith("-") and not l.startswith("---")]
    new = [" ".join(l[1:].split()) for l in lines if l.startswith("+") and not l.startswith("+++")]
    return old, new


def resolve(names: list[str]) -> list[str]:
    """Table keys for the names given: a path, a dotted module, or a unique part of one."""
    if not names:
        return list(MODULES)
    keys = []
    for name in names:
        path = name.replace(".", "/") + ".py" if not name.endswith(".py") and "/" not in name else name
        if path in MODULES or name in MODULES:
            keys.append(path if path in MODULES else name)
            continue
        hits = [k for k in MODULES if name in k or name in module_name(k)]
        if len(hits) != 1:
            raise SystemExit(f"{name!r}: {'ambiguous: ' + ', '.join(hits) if hits else 'not in MODULES'}"
                             " (or give its path with --tests)")
        keys.append(hits[0])
    return keys


def scratch_copy(dest: Path, rev: str | None) -> None:
    """The working tree's files (tracked and untracked, not ignored), or commit ``rev``'s, in ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    if rev:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "-c", "-o", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():  # a tracked file deleted in the tree is skipped
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def select(work: Path, tests: list[str]) -> list[str] | str:
    """The test files, and in place of each ``"file -m marker"`` entry the ids of that file's tests of
    the marker (collected in the copy); or what went wrong."""
    out = []
    for entry in tests:
        path, _, marker = entry.partition(" -m ")
        if not marker:
            out.append(path)
            continue
        run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                              "-m", marker, path], cwd=work, text=True, capture_output=True, check=False)
        ids = [line for line in run.stdout.splitlines() if line.startswith(path + "::")]
        if run.returncode != 0 or not ids:
            return f"collecting {entry!r} found no tests (exit {run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
        out.extend(ids)
    return out


def write_config(work: Path, module: str, tests: list[str]) -> None:
    """[tool.mutmut] in the copy's pyproject.toml: every package is copied into mutants/ (so the
    tests import the whole tree from there), only ``module`` is mutated, only ``tests`` run."""
    packages = sorted(p.parent.name for p in work.glob("*/__init__.py") if p.parent.name not in ("tests", "mutants"))
    others = sorted(p.name for p in work.iterdir() if p.name not in packages and p.name not in ("mutants", "tests"))
    lines = [
        "", "[tool.mutmut]",
        f"source_paths = {json.dumps(packages)}",
        f"only_mutate = {json.dumps([module])}",
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        'pytest_add_cli_args = ["-p", "no:cacheprovider"]',
        f"also_copy = {json.dumps(others)}",
        "use_git_change_detection = false",
        # a mutant that hangs (a dask or isolated game waiting forever) is stopped after 5 times its
        # tests' time plus 5 s of wall clock, not mutmut's default 15 times plus 15 s
        "timeout_multiplier = 5.0",
        "",
    ]
    with open(work / "pyproject.toml", "a") as f:
        f.write("\n".join(lines))


def mutmut(work: Path, *args: str, log=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MUTANT_UNDER_TEST")}
    return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=work, env=env, text=True,
                          stdout=log or subprocess.PIPE, stderr=subprocess.STDOUT if log else subprocess.PIPE)


def run_module(module: str, tests: list[str], work: Path, jobs: int, rev: str | None) -> Result:
    result = Result(module, tests)
    start = time.monotonic()
    scratch_copy(work, rev)
    missing = [p for p in [module, *(t.split(" -m ")[0] for t in tests)] if not (work / p).is_file()]
    if missing:
        result.error = f"not in the {'commit' if rev else 'working tree'}: {', '.join(missing)}"
        return result
    selected = select(work, tests)
    if isinstance(selected, str):
        result.error = selected
        return result
    write_config(work, module, selected)
    with open(work / "mutmut-run.log", "w") as log:
        run = mutmut(work, "run", "--max-children", str(jobs), log=log)
    result.seconds = time.monotonic() - start
    meta = work / "mutants" / (module + ".meta")
    if run.returncode != 0 or not meta.is_file():
        tail = (work / "mutmut-run.log").read_text(errors="replace").replace("\r", "\n").splitlines()[-25:]
        result.error = f"mutmut run exited {run.returncode}; log {work / 'mutmut-run.log'}:\n" + "\n".join(tail)
        return result
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    result.status = {name: STATUS.get(code, "suspicious") for name, code in codes.items()}
    alive = sorted((n for n, s in result.status.items() if s != "killed"), key=mutant_order)
    if alive:
        shown = mutmut_show(work, alive)
        result.diffs = {n: shown.get(n, "") for n in alive}
    entries = EQUIVALENT.get(module, [])
    used = set()
    for name in alive:
        old, new = changed_lines(result.diffs[name])
        for i, e in enumerate(entries):
            added = any(" ".join(e.new.split()) in l for l in new) if e.new else not new  # "": a line removed
            if e.function == function_of(name, module) and any(" ".join(e.old.split()) in l for l in old) and added:
                result.equivalent[name] = e
                used.add(i)
                break
    result.unused = [e for i, e in enumerate(entries) if i not in used]
    return result


def mutmut_show(work: Path, names: list[str]) -> dict[str, str]:
    run = subprocess.run([sys.executable, "-c", _SHOW, *names], cwd=work, text=True, capture_output=True)
    if run.returncode == 0:
        return json.loads(run.stdout.strip().splitlines()[-1])
    return {n: mutmut(work, "show", n).stdout for n in names}  # one interpreter each


def mutant_order(name: str):
    base, _, n = name.rpartition("__mutmut_")
    return base, int(n) if n.isdigit() else 0


def one_line(diff: str) -> str:
    old, new = changed_lines(diff)
    return f"{' / '.join(old)!s:.70}  ->  {' / '.join(new)!s:.70}"


def report(result: Result, show: bool, keep: Path | None) -> None:
    print(f"\n== {result.module}  (tests: {', '.join(result.tests)})")
    if result.error:
        print(f"   ERROR: {result.error}")
        return
    score = result.score
    print(f"   mutants {len(result.status)}  killed {result.count('killed')}  survived {result.count('survived')}"
          f"  timeouts {result.count('timeout')}  suspicious {result.count('suspicious', 'segfault')}"
          f"  no tests {result.count('no tests')}  equivalent {len(result.equivalent)}"
          f"  score {'n/a' if score is None else f'{score:.1%}'}  ({result.seconds:.0f}s)")
    for name, diff in result.diffs.items():
        status = result.status[name]
        if name in result.equivalent:
            print(f"   equivalent  {name}: {result.equivalent[name].why}")
            continue
        print(f"   {status:<11} {name}: {one_line(diff)}")
        if show:
            print("\n".join("      " + l for l in diff.strip().splitlines()))
    for e in result.unused:
        print(f"   note: equivalent entry matched no surviving mutant (killed now, or the code moved): {e}")
    if keep:
        print(f"   copy kept: cd {keep} && {shlex.quote(sys.executable)} -m mutmut show <mutant>")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="table keys (arena/referee.py), dotted names or a unique part")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (mutmut --max-children); default 1")
    parser.add_argument("--show", action="store_true", help="print the diff of every mutant not killed")
    parser.add_argument("--keep", type=Path, help="make the scratch copies under this directory and keep them")
    parser.add_argument("--rev", help="copy this commit (git archive) instead of the working tree")
    parser.add_argument("--tests", nargs="+", help="test files for the one module given, instead of MODULES'")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.tests:
        if len(args.modules) != 1:
            parser.error("--tests goes with exactly one module path")
        todo = [(args.modules[0], args.tests)]
    else:
        todo = [(m, MODULES[m]) for m in resolve(args.modules)]
    results = []
    for module, tests in todo:
        slug = module.removesuffix(".py").replace("/", "-")
        if args.keep:
            work = args.keep.resolve() / slug
            if work.exists():
                shutil.rmtree(work)
            results.append(run_module(module, tests, work, args.jobs, args.rev))
        else:
            with tempfile.TemporaryDirectory(prefix=f"mutation-{slug}-") as tmp:
                results.append(run_module(module, tests, Path(tmp), args.jobs, args.rev))
        report(results[-1], args.show, args.keep and args.keep.resolve() / slug)

    print("\nmodule                          mutants  equiv  killed  survived  timeout  suspicious  score")
    for r in results:
        s = r.score
        print(f"{r.module:<32}{len(r.status):>7}{len(r.equivalent):>7}{r.count('killed'):>8}{r.count('survived'):>10}"
              f"{r.count('timeout'):>9}{r.count('suspicious', 'segfault'):>12}  "
              f"{'ERROR' if r.error else 'n/a' if s is None else f'{s:.1%}'}")
    if args.json:
        args.json.write_text(json.dumps([{
            "module": r.module, "tests": r.tests, "mutants": len(r.status), "equivalent": len(r.equivalent),
            "killed": r.count("killed"), "survived": r.count("survived"), "timeout": r.count("timeout"),
            "suspicious": r.count("suspicious", "segfault"), "no_tests": r.count("no tests"), "score": r.score,
            "error": r.error, "not_killed": {n: r.status[n] for n in r.diffs},
        } for r in results], indent=1))
    here = Path.cwd()
    script = os.path.relpath(__file__, here) if Path(__file__).resolve().is_relative_to(here) else __file__
    print("\nrerun:", shlex.join([sys.executable, script, *(argv if argv is not None else sys.argv[1:])]))
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
