"""A tournament's configuration and schedule on their own (tests/test_tournament.py plays them):
the keywords of earlier versions, the stored form and back, the checks and their messages, the
order of games, their seeds and openings, growth, and short names."""

import json
import random
from dataclasses import replace

import pytest

from arena import Budget, get_registry
from arena.adjudication import Adjudication, DrawRule, ResignRule
from arena.clock import TimeControl
from arena.errors import ParameterError
from arena.formats.gauntlet import Gauntlet
from arena.formats.roundrobin import RoundRobin
from arena.formats.swiss import Swiss
from arena.front.openings import _random_opening
from arena.front.entrants import absolute_files, short_names, with_short_names
from arena.front.tournament import (
    SCHEDULE, Entrant, Stage, TournamentConfig, _legacy_seed, from_stored, game_seed,
    make_openings, make_schedule, round_count, stored_form, validate,
)
from arena.front.openings import OpeningBook
from arena.opening import OpeningsError
from arena.limits import DEFAULT_LIMITS, Limits

REGISTRY = get_registry(entry_points=False)


def config(*names, **kw):
    bots = tuple(Entrant(n, "random") for n in (names or ("a", "b", "c")))
    return TournamentConfig(game=kw.pop("game", "tictactoe"), bots=bots, **kw)


def test_the_keywords_of_earlier_versions_fold_into_the_format_and_the_limits():
    c = config(format="gauntlet", challengers=("a",))
    assert c.format == Gauntlet(("a",))
    assert config(format="swiss", rounds=3).format == Swiss(3)
    assert config(format=Swiss(2), rounds=5).format == Swiss(5)  # a keyword given wins over the value's
    assert config(challengers=()).format == RoundRobin() and config(rounds=None).format == RoundRobin()
    with pytest.raises(ParameterError, match=r"^rounds are for the swiss format, which needs them: --format swiss --rounds R$"):
        config(rounds=3)
    limits = config(time_margin=0.5, watchdog=9.0, memory_limit=None, output_limit=7, sandbox=True).limits
    assert limits == Limits(0.5, 9.0, None, 7, True)
    assert config(watchdog=5.0).limits == replace(DEFAULT_LIMITS, watchdog=5.0)
    assert config().limits is DEFAULT_LIMITS


def test_the_stored_form_holds_every_setting_and_reads_back_to_the_same_config():
    c = TournamentConfig(
        game="tictactoe", bots=(Entrant("a", "random", Budget(nodes=5)), Entrant("b", "greedy")),
        budget=Budget(nodes=100), games_per_pairing=4, opening_plies=2, seed=9, format=Gauntlet(("a",)),
        limits=Limits(0.25, 30.0, 2048, 64, False), isolate=False, name="t")
    stored = stored_form(c)
    assert stored == {
        "game": "tictactoe", "budget": "nodes=100", "games_per_pairing": 4, "opening_plies": 2, "seed": 9,
        "format": "gauntlet", "challengers": ["a"], "time_margin": 0.25, "watchdog": 30.0, "memory_limit": 2048,
        "output_limit": 64, "isolate": False, "name": "t", "schedule": SCHEDULE,
        "bots": [{"name": "a", "spec": "random", "budget": "nodes=5"}, {"name": "b", "spec": "greedy", "budget": "nodes=100"}],
    }
    assert c.identity() == stored and c.to_json().startswith('{"bots": [{"budget": "nodes=5"')
    back = from_stored(stored)
    assert stored_form(back) == stored
    assert back.bots[1].budget == Budget(nodes=100)  # stored with the tournament's: the same games
    sandboxed = stored_form(replace(c, limits=replace(c.limits, sandbox=True)))
    assert sandboxed["sandbox"] is True and "sandbox" not in stored and "opening_book" not in stored
    assert from_stored(sandboxed).limits.sandbox


def test_adjudication_and_a_clock_are_stored_as_text_and_read_back_to_the_same_rules():
    rules = Adjudication(DrawRule(40, 8, 10), ResignRule(3, 600, True), 100)
    c = TournamentConfig(
        game="chess", bots=(Entrant("a", "random", Budget(tc="5+0.05")), Entrant("b", "greedy")),
        budget=Budget(nodes=500, tc="40/60+0.6"), adjudication=rules)
    stored = stored_form(c)
    assert stored["budget"] == "nodes=500,tc=40/60+0.6"
    assert stored["bots"] == [{"name": "a", "spec": "random", "budget": "tc=5+0.05"},
                              {"name": "b", "spec": "greedy", "budget": "nodes=500,tc=40/60+0.6"}]
    assert stored["adjudication"] == {"draw": "movenumber=40 movecount=8 score=10",
                                      "resign": "movecount=3 score=600 twosided=true", "maxmoves": 100}
    back = from_stored(json.loads(json.dumps(stored)))  # as the database gives it back
    assert back.adjudication == rules and stored_form(back) == stored
    assert back.budget == c.budget and back.budget.tc == TimeControl(60.0, 0.6, 40)
    assert back.bots[0].budget.tc == TimeControl(5.0, 0.05) and back.bots[0].budget.nodes is None
    games = make_schedule(replace(c, game="tictactoe", games_per_pairing=2), REGISTRY).games
    assert [g.adjudication for g in games] == [rules] * 2
    assert {g.budgets for g in games} == {(Budget(tc="5+0.05"), c.budget), (c.budget, Budget(tc="5+0.05"))}


@pytest.mark.parametrize("rules, stored", [
    (Adjudication(maxmoves=7), {"draw": None, "resign": None, "maxmoves": 7}),
    (Adjudication(draw=DrawRule()), {"draw": "movenumber=0 movecount=1 score=0", "resign": None, "maxmoves": None}),
    (Adjudication(resign=ResignRule(2, 300)), {"draw": None, "resign": "movecount=2 score=300", "maxmoves": None}),
])
def test_each_adjudication_alone_is_stored_and_read_back(rules, stored):
    c = TournamentConfig("tictactoe", bots=(Entrant("a", "random"), Entrant("b", "greedy")), adjudication=rules)
    assert stored_form(c)["adjudication"] == stored
    assert from_stored(stored_form(c)).adjudication == rules


def test_no_adjudication_is_not_stored_and_reads_back_as_none():
    for rules in (None, Adjudication()):  # no rule set is none
        c = TournamentConfig("tictactoe", bots=(Entrant("a", "random"), Entrant("b", "greedy")), adjudication=rules)
        assert "adjudication" not in stored_form(c)
        assert from_stored(stored_form(c)).adjudication is None
    assert from_stored({"game": "nim", "budget": "nodes=10", "adjudication": None}).adjudication is None


def test_a_stored_form_of_an_early_version_reads_with_the_defaults():
    back = from_stored({"game": "nim", "budget": "nodes=10",
                        "bots": [{"name": "a", "spec": "random"}, {"name": "b", "spec": "greedy", "budget": ""}]})
    assert (back.games_per_pairing, back.opening_plies, back.seed, back.isolate, back.name) == (2, 0, 0, True, None)
    assert back.limits == DEFAULT_LIMITS and back.bots[0].budget is None and back.bots[1].budget is None
    assert back.format == RoundRobin() and back.opening_book is None
    assert from_stored({"game": "nim", "budget": "nodes=10"}).bots == ()


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"bots": (Entrant("a", "random"),)}, r"^a tournament needs at least two bots, got 1$"),
        ({"bots": (Entrant("a", "random"), Entrant("a", "greedy"))},
         r"^bot name 'a' is used twice \('random' and 'greedy'\); give each its own display name: NAME=SPEC$"),
        ({"games_per_pairing": 3}, r"^games per pairing must be an even number of at least 2 \(colours are swapped\), got 3$"),
        ({"games_per_pairing": 0}, r"got 0$"),
        ({"opening_plies": -1}, r"^opening plies must be 0 or more, got -1$"),
    ],
)
def test_a_config_that_cannot_be_played_is_refused_with_its_reason(changes, message):
    with pytest.raises(ParameterError, match=message):
        validate(replace(config(), **changes), REGISTRY)


def test_a_playable_config_gives_its_game():
    assert validate(config(games_per_pairing=2, opening_plies=0), REGISTRY).name == "tictactoe"
    validate(replace(config("a", "b"), format=Gauntlet(("a",))), REGISTRY)
    with pytest.raises(ParameterError, match="challengers among the bots"):
        validate(replace(config("a", "b"), format=Gauntlet(("z",))), REGISTRY)


def test_games_are_laid_out_round_by_round_every_pairing_each_bot_first_once():
    c = config(games_per_pairing=4)
    schedule = make_schedule(c, REGISTRY)
    games = [(g.index, g.names, g.pairing) for g in schedule.games]
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    expected = []
    for r in range(2):
        for p, (x, y) in enumerate(pairs):
            expected += [(x, y, p), (y, x, p)]
    assert [(n, p) for _, n, p in games] == [((x, y), p) for x, y, p in expected]
    assert [i for i, _, _ in games] == list(range(12)) and schedule.pairings == [(0, 1), (0, 2), (1, 2)]
    assert schedule.size == 12 and schedule.planned == 0  # laid out: its size is its games
    first = schedule.games[0]
    assert first.seed == game_seed(0, "a", "b", 0) and first.specs == ("random", "random")
    assert first.budgets == (c.budget, c.budget) and first.limits is c.limits and first.isolate is True
    assert first.game == "tictactoe" and first.hosts is None


def test_seeds_are_those_stored_tournaments_were_played_with():
    # A resumed or grown run gives the games it has not played the seeds earlier versions gave
    # them, so a game's seed must not change between versions: these are theirs.
    assert game_seed(7, "a", "b", 0) == 6855707462965412453
    assert game_seed(7, "b", "a", 0) == 3203270122295339666
    assert game_seed(7, "a", "b", 1) == 6162824056590853002
    assert _legacy_seed(7, 3) == 5238124488027550480
    c = config("a", "b", seed=7)
    legacy = make_schedule(c, REGISTRY, legacy=True)
    assert [g.seed for g in legacy.games] == [_legacy_seed(7, i) for i in range(2)]
    with pytest.raises(ValueError, match="a legacy schedule cannot grow"):
        make_schedule(c, REGISTRY, legacy=True, grown_from=[Stage.of(c)])


def test_a_grown_tournament_keeps_its_games_and_adds_the_new_ones_after_them():
    small = config("a", "b", games_per_pairing=2)
    grown = config("a", "b", "c", games_per_pairing=4)
    before = make_schedule(small, REGISTRY)
    after = make_schedule(grown, REGISTRY, grown_from=[Stage.of(small)])
    old = [(g.names, g.seed, g.opening) for g in before.games]
    assert [(g.names, g.seed, g.opening) for g in after.games[:2]] == old
    assert len(after.games) == 12 and len({(g.names, g.seed) for g in after.games}) == 12
    assert [g.index for g in after.games] == list(range(12))


def test_a_stage_is_what_grows_and_reads_back_from_json():
    stage = Stage.of(replace(config("a", "b", "c", games_per_pairing=4), format=Gauntlet(("b",))))
    assert stage == Stage(4, ("a", "b", "c"), ("b",))
    assert stage.to_json() == {"games": 4, "bots": ["a", "b", "c"], "challengers": ["b"]}
    assert Stage.from_json(stage.to_json()) == stage
    assert stage.games(Gauntlet(("b",))) == [
        (0, "b", "a"), (0, "a", "b"), (0, "b", "c"), (0, "c", "b"),
        (1, "b", "a"), (1, "a", "b"), (1, "b", "c"), (1, "c", "b"),
    ]
    assert round_count(config(games_per_pairing=6)) == 3
    assert round_count(config(games_per_pairing=2), [Stage(8, ("a", "b"))]) == 4


def test_a_format_paired_as_results_come_lays_out_nothing_in_advance():
    schedule = make_schedule(replace(config("a", "b", "c", "d"), format=Swiss(3)), REGISTRY)
    assert schedule.games == [] and schedule.planned == 3 * 2 * 2 and schedule.size == 12
    assert len(schedule.openings) == 3
    task = schedule.task(5, 1, 2, "c", "a")
    assert (task.index, task.pairing, task.names, task.seed) == (5, 1, ("c", "a"), game_seed(0, "c", "a", 2))
    assert schedule.task(0, 0, 0, "a", "b", seed=11).seed == 11


def test_openings_are_legal_distinct_while_possible_and_from_the_seed():
    game = REGISTRY.game("tictactoe")
    assert make_openings(game, 3, 0, 1) == [(), (), ()]
    openings = make_openings(game, 20, 2, 5)
    assert len(set(openings)) == 20 and all(len(o) == 2 for o in openings)
    assert make_openings(game, 20, 2, 5) == openings != make_openings(game, 20, 2, 6)
    # openings stored tournaments were played with (as make_schedule lays them out)
    assert make_openings(game, 3, 2, 5) == [("a2", "c2"), ("c2", "c1"), ("c1", "c3")]
    nim = REGISTRY.game("nim:heaps=1")  # one heap of one: every move ends the game
    with pytest.raises(ParameterError, match=r"^cannot find 1 opening plies in nim that do not end the game; use fewer$"):
        make_openings(nim, 1, 1, 0)
    # more openings than there are: repeats once fresh ones run out
    assert len(make_openings(REGISTRY.game("nim:heaps=3"), 5, 1, 0)) == 5


def test_a_random_opening_starts_again_after_a_dead_end():
    game = REGISTRY.game("tictactoe")
    rng = random.Random(3)
    opening = _random_opening(game, 8, rng)
    assert len(opening) == 8  # 8 plies that end nothing: found, however many dead ends before


def test_bots_entered_without_a_name_take_their_short_name_where_it_is_unique():
    entrants = (Entrant("uci:cmd=stockfish", "uci:cmd=stockfish"), Entrant("random", "random"),
                Entrant("x", "uci:cmd=/usr/games/crafty"), Entrant("greedy:x=", "greedy:x="))
    named = short_names(entrants, REGISTRY)
    assert [e.name for e in named] == ["stockfish", "random", "x", "greedy:x="]
    twice = (Entrant("uci:cmd=stockfish", "uci:cmd=stockfish"), Entrant("uci:cmd=stockfish,Hash=8", "uci:cmd=stockfish,Hash=8"))
    assert [e.name for e in short_names(twice, REGISTRY)] == [e.name for e in twice]  # not unique: kept
    clash = (Entrant("uci:cmd=stockfish", "uci:cmd=stockfish"), Entrant("stockfish", "random"))
    assert [e.name for e in short_names(clash, REGISTRY)] == ["uci:cmd=stockfish", "stockfish"]
    c = TournamentConfig("chess", bots=entrants[:2], format=Gauntlet(("uci:cmd=stockfish",)))
    assert with_short_names(c, REGISTRY).format == Gauntlet(("stockfish",))
    assert with_short_names(replace(c, format=RoundRobin()), REGISTRY).bots[0].name == "stockfish"


def test_an_openings_file_is_stored_read_back_checked_and_played_round_by_round(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text("# two lines\n[heaps=5] 1:2\n1:1 1:1\n")
    c = TournamentConfig("nim", bots=(Entrant("a", "random"), Entrant("b", "greedy")), seed=3, games_per_pairing=4,
                         opening_book=OpeningBook.read(str(path)))
    stored = stored_form(c)
    assert stored["opening_book"] == {"file": str(path), "sha256": c.opening_book.digest, "shuffle": False, "lines": 2}
    back = from_stored(stored)
    assert back.opening_book == c.opening_book and stored_form(back) == stored
    shuffled = from_stored({**stored, "opening_book": {**stored["opening_book"], "shuffle": True}})
    assert shuffled.opening_book.shuffle and shuffled.opening_book.openings == c.opening_book.openings
    schedule = make_schedule(c, REGISTRY)
    # round 0: the first line, which sets a parameter of the game; round 1: the second
    assert [(g.game, g.opening) for g in schedule.games] == [("nim:heaps=5", ("1:2",))] * 2 + [("nim", ("1:1", "1:1"))] * 2
    assert schedule.openings == list(c.opening_book.openings)
    assert [o.moves for o in from_stored(stored).opening_book.rounds(3, 3)] == [("1:2",), ("1:1", "1:1"), ("1:2",)]
    with pytest.raises(ParameterError, match=r"^openings come from a file or from random plies, not both$"):
        validate(replace(c, opening_plies=2), REGISTRY)
    path.write_text("9:9\n")
    with pytest.raises(OpeningsError, match=r"book.txt', line 1: illegal move '9:9' in nim at ply 0"):
        validate(replace(c, opening_book=OpeningBook.read(str(path))), REGISTRY)


def test_openings_given_are_used_when_there_are_enough_and_made_when_not():
    c = config("a", "b", games_per_pairing=4)
    given = [("b2",), ("a1",)]
    assert [g.opening for g in make_schedule(c, REGISTRY, openings=given).games] == [("b2",)] * 2 + [("a1",)] * 2
    made = make_schedule(replace(c, opening_plies=1), REGISTRY, openings=given[:1])
    assert [g.opening for g in made.games] == [o for o in make_openings(REGISTRY.game("tictactoe"), 2, 1, 0) for _ in "xy"]
    # a stage grown from one with more rounds: openings for every round of both
    grown = make_schedule(replace(c, opening_plies=1), REGISTRY, grown_from=[Stage(8, ("a", "b"))])
    assert len(grown.openings) == 4 and len(grown.games) == 8


def test_a_sandboxed_schedule_hands_each_game_its_bots_hosts():
    class Sandboxed:
        def __getattr__(self, name):
            return getattr(REGISTRY, name)

        def host_table(self, entrants):
            return {e.spec: ("host of " + e.spec,) for e in entrants}

    schedule = make_schedule(config("a", "b"), Sandboxed(), REGISTRY.game("tictactoe"))
    assert schedule.hosts == {"random": ("host of random",)}
    assert schedule.games[0].hosts == (("host of random",), ("host of random",))
    assert make_schedule(config("a", "b"), REGISTRY).games[0].hosts is None


def test_a_sandbox_needs_isolated_bots_and_each_bot_is_checked_against_the_game():
    sandboxed = replace(config(), limits=replace(DEFAULT_LIMITS, sandbox=True), isolate=False)
    with pytest.raises(ParameterError, match=r"^--sandbox needs isolation: "):
        validate(sandboxed, REGISTRY)
    engine = replace(config(), bots=(Entrant("a", "random"), Entrant("u", "uci:cmd=stockfish")))
    with pytest.raises(ParameterError, match=r"UCI engines play chess only, not 'tictactoe'"):
        validate(engine, REGISTRY)


class DeadEnds:
    """A game where every move ends it: no opening can be found; counts its fresh starts."""

    name = "dead"

    def __init__(self):
        self.starts = 0

    def initial_state(self):
        self.starts += 1
        return 0

    def legal_moves(self, state):
        return [1]

    def apply(self, state, move):
        return state + move

    def is_terminal(self, state):
        return state > 0


class OneLine(DeadEnds):
    """One opening only, of one ply, whose text names the position it was played in."""

    def is_terminal(self, state):
        return state > 1

    def move_text(self, state, move):
        return f"{move}@{state}"


def test_an_opening_is_tried_a_hundred_times_and_a_fresh_one_fifty():
    game = DeadEnds()
    with pytest.raises(ParameterError, match=r"^cannot find 1 opening plies in dead"):
        _random_opening(game, 1, random.Random(0))
    assert game.starts == 100
    one = OneLine()
    assert make_openings(one, 2, 1, 0) == [("1@0",), ("1@0",)]  # the only one, twice
    assert one.starts == 1 + 50  # the second round tried 50 times for another


def test_a_race_given_as_the_race_keyword_is_the_format():
    from arena.formats.race import Race

    race = Race.build({"race": True})
    assert config(format="race", race=race).format == race
    with pytest.raises(ParameterError, match=r"^confidence and max-games are for the race format \(--format race\)$"):
        config(race=race)


def test_bots_named_by_their_short_names_rename_their_challengers_and_keep_others():
    bots = (Entrant("uci:cmd=stockfish", "uci:cmd=stockfish"), Entrant("b", "random"), Entrant("nosuchbot", "nosuchbot"))
    assert [e.name for e in short_names(bots, REGISTRY)] == ["stockfish", "b", "nosuchbot"]
    c = TournamentConfig("chess", bots=bots, format=Gauntlet(("uci:cmd=stockfish", "b")))
    renamed = with_short_names(c, REGISTRY)
    assert renamed.format == Gauntlet(("stockfish", "b")) and [e.name for e in renamed.bots] == ["stockfish", "b", "nosuchbot"]


def test_an_sprt_given_as_the_sprt_keyword_is_the_format_and_its_games_are_no_keyword():
    from arena.formats.sprt import Sprt
    from arena.front.tournament import _legacy_keys
    from results.sprt import SPRT

    test = SPRT(0.0, 5.0, 0.05, 0.05, "normalized")
    bounds = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
    assert config(format="sprt", sprt=bounds).format == config(format="sprt", sprt=test).format == Sprt(test)
    assert _legacy_keys(Sprt) == ("sprt",) and _legacy_keys(Gauntlet) == ("challengers",)
    assert _legacy_keys(Swiss) == ("rounds",)


def test_a_file_a_bot_reads_is_made_absolute_and_its_display_name_kept(tmp_path, monkeypatch):
    # a bot of a game with hidden information works in a scratch folder of its own: a relative path would miss
    monkeypatch.chdir(tmp_path)
    assert absolute_files("policy:file=kuhn.json", REGISTRY) == f"policy:file={tmp_path / 'kuhn.json'}"
    assert absolute_files("policy:file=/x/k.json", REGISTRY) == "policy:file=/x/k.json"
    assert absolute_files("uniform", REGISTRY) == "uniform"
    assert absolute_files("nosuchbot:file=a", REGISTRY) == "nosuchbot:file=a"  # reported where it is built
    [entrant] = short_names([Entrant("policy:file=kuhn.json", "policy:file=kuhn.json")], REGISTRY)
    assert entrant.name == "policy:file=kuhn.json" and entrant.spec == f"policy:file={tmp_path / 'kuhn.json'}"
