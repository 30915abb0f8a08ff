"""``arena.front.growth`` called directly, on TournamentConfigs and stored ``Tournament`` rows built in
memory: derived names (what they leave out, the suffixes ``-2``, ``-3``...), how a run's settings
compare with a stored tournament's (changed, fewer, more, missing), which stored tournament a
run continues or grows (``plan``), the stages it grew from, what is stored, and the exact text of
every refusal. No database is opened and no game is played.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from arena.adjudication import Adjudication, DrawRule, ResignRule
from arena.budget import Budget
from arena.formats.gauntlet import Gauntlet
from arena.formats.sprt import Sprt
from arena.formats.swiss import Swiss
from arena.front import growth
from arena.front.growth import FLAGS, GROWING, Plan, Verdict, compare, derived_name, plan
from arena.front.tournament import Entrant, Stage, TournamentConfig
from results.sprt import SPRT
from results.store import ConfigMismatch, Tournament

DB = Path("/data/r.db")
A, B, C, D = Entrant("a", "random"), Entrant("b", "greedy"), Entrant("c", "alphabeta:depth=3"), Entrant("d", "iterative")
CONFIG = TournamentConfig(game="connect4", bots=(A, B, C), budget=Budget(nodes=300), games_per_pairing=4,
                          opening_plies=2, seed=11, isolate=False)
# what `arena run` plays with no file and no flag; its name was derived at commit 0874b7d and must
# not change, so that a rerun of the same command finds the tournament it stored then
DEFAULT_RUN = TournamentConfig(
    game="connect4", bots=tuple(Entrant(s, s) for s in ("random", "greedy", "minimax:depth=3", "alphabeta:depth=5",
                                                           "iterative")),
    budget=Budget(nodes=2000), games_per_pairing=40, opening_plies=4, seed=1,
)


def as_read_back(config: TournamentConfig) -> dict:
    """A config's identity as the database gives it back."""
    return json.loads(json.dumps(config.identity(), sort_keys=True))


def stored(config: TournamentConfig, name: str, legacy=False, id=1, **extra) -> Tournament:
    """A stored tournament row of ``config`` under ``name`` (``legacy``: stored before schedules could grow)."""
    data = {**as_read_back(replace(config, name=name)), **extra}
    if legacy:
        del data["schedule"]
    return Tournament(id, name, config.game, data, config.seed, 0, "0.0", "2026-01-01T00:00:00")


def refusal(tournaments, config) -> str:
    with pytest.raises(ConfigMismatch) as info:
        plan(tournaments, config, DB)
    return str(info.value)


# ---- derived names -----------------------------------------------------------------------------------


def test_the_default_run_keeps_the_name_earlier_versions_derived():
    assert derived_name(DEFAULT_RUN) == "connect4-nodes=2000-e49775"


def test_a_derived_name_is_game_budget_and_six_hex_digits():
    assert re.fullmatch(r"connect4-nodes=300-[0-9a-f]{6}", derived_name(CONFIG))
    assert derived_name(replace(CONFIG, game="nim", budget=Budget(depth=2))).startswith("nim-depth=2-")
    assert derived_name(replace(CONFIG, budget=Budget(nodes=300, tc="10+0.1"))).startswith("connect4-nodes=300,tc=10+0.1-")


def test_a_derived_name_leaves_out_the_name_the_games_and_the_bots():
    name = derived_name(CONFIG)
    assert derived_name(replace(CONFIG, name="given")) == name
    assert derived_name(replace(CONFIG, games_per_pairing=8, bots=(D, A))) == name


def test_a_derived_name_leaves_out_a_gauntlets_challengers_but_not_its_format():
    gauntlet = replace(CONFIG, format=Gauntlet(("a",)))
    assert derived_name(replace(CONFIG, format=Gauntlet(("a", "b")))) == derived_name(gauntlet)
    assert derived_name(gauntlet) != derived_name(CONFIG)


@pytest.mark.parametrize("change", [
    {"seed": 12}, {"opening_plies": 3}, {"time_margin": 0.5}, {"watchdog": 5.0}, {"isolate": True},
    {"memory_limit": None}, {"output_limit": 7}, {"sandbox": True}, {"format": Swiss(3)},
    {"adjudication": Adjudication(maxmoves=80)}, {"adjudication": Adjudication(draw=DrawRule(40, 8, 10))},
    {"adjudication": Adjudication(resign=ResignRule(3, 600))},
])
def test_every_other_setting_makes_another_name(change):
    assert derived_name(replace(CONFIG, **change)) != derived_name(CONFIG)


def test_the_settings_that_grow_are_the_bots_the_games_and_the_challengers():
    assert GROWING == ("bots", "games_per_pairing", "challengers")


# ---- compare -----------------------------------------------------------------------------------------


def verdict_of(old: TournamentConfig, new: TournamentConfig, **extra) -> Verdict:
    return compare(stored(old, "t", **extra).config, new)


def test_the_same_settings_are_the_same():
    got = verdict_of(CONFIG, CONFIG)
    assert got == Verdict([], [], [], [])
    assert got.same and not got.grows


def test_each_changed_setting_names_its_flag_in_the_tables_order():
    new = replace(CONFIG, seed=1, game="nim", budget=Budget(nodes=5), time_margin=0.5, isolate=True, opening_plies=0,
                  output_limit=9, adjudication=Adjudication(maxmoves=60))
    got = verdict_of(CONFIG, new)
    assert got.changed == ["--game", "--budget/--tc", "--openings", "--seed", "--draw/--resign/--maxmoves",
                           "--time-margin", "--no-isolation", "--output-limit"]
    assert (got.fewer, got.more, got.missing) == ([], [], [])


def test_a_format_change_is_named_with_each_of_its_settings():
    got = verdict_of(replace(CONFIG, format=Swiss(3)), replace(CONFIG, format=Swiss(4)))
    assert got.changed == ["--rounds"]
    assert verdict_of(CONFIG, replace(CONFIG, format=Swiss(3))).changed == ["--format", "--rounds"]


def test_a_changed_tournament_budget_is_not_a_changed_bot():
    assert verdict_of(CONFIG, replace(CONFIG, budget=Budget(nodes=5))).changed == ["--budget/--tc"]
    clock = replace(CONFIG, budget=Budget(nodes=300, tc="10+0.1"))
    assert verdict_of(CONFIG, clock).changed == ["--budget/--tc"]  # a clock added to the same budget
    assert verdict_of(clock, replace(CONFIG, budget=Budget(nodes=300, tc="10+0.2"))).changed == ["--budget/--tc"]
    assert verdict_of(clock, clock).same


def test_the_same_adjudication_read_back_is_the_same_and_another_is_a_change():
    rules = Adjudication(DrawRule(40, 8, 10), ResignRule(3, 600, True), 100)
    judged = replace(CONFIG, adjudication=rules)
    assert verdict_of(judged, judged).same
    for other in (None, replace(rules, maxmoves=101), replace(rules, resign=ResignRule(3, 600)),
                  replace(rules, draw=None)):
        assert verdict_of(judged, replace(CONFIG, adjudication=other)).changed == ["--draw/--resign/--maxmoves"]
    assert verdict_of(CONFIG, judged).changed == ["--draw/--resign/--maxmoves"]


def test_a_bot_with_another_spec_or_budget_is_a_change_of_bot():
    other_spec = replace(CONFIG, bots=(A, B, Entrant("c", "alphabeta:depth=4")))
    assert verdict_of(CONFIG, other_spec).changed == ["--bot"]
    own_budget = replace(CONFIG, bots=(A, B, Entrant("c", "alphabeta:depth=3", Budget(nodes=9))))
    assert verdict_of(CONFIG, own_budget).changed == ["--bot"]
    assert verdict_of(own_budget, own_budget).same


def test_a_bot_given_the_tournaments_budget_as_its_own_is_the_same_bot():
    same = replace(CONFIG, bots=(A, B, Entrant("c", "alphabeta:depth=3", Budget(nodes=300))))
    assert verdict_of(CONFIG, same).same


def test_fewer_bots_are_fewer_naming_the_bots_left_out():
    got = verdict_of(CONFIG, replace(CONFIG, bots=(B,)))
    assert got == Verdict(changed=[], fewer=["--bot"], more=[], missing=["a", "c"])
    assert not got.same and not got.grows


def test_more_bots_or_games_are_more():
    got = verdict_of(CONFIG, replace(CONFIG, bots=(D, A, B, C), games_per_pairing=6))
    assert got == Verdict(changed=[], fewer=[], more=["--bot", "--games"], missing=[])
    assert got.grows and not got.same


def test_fewer_games_are_fewer():
    got = verdict_of(CONFIG, replace(CONFIG, games_per_pairing=2))
    assert got == Verdict(changed=[], fewer=["--games"], more=[], missing=[])


def test_other_bots_in_place_of_some_are_fewer_and_more():
    got = verdict_of(CONFIG, replace(CONFIG, bots=(A, B, D)))
    assert got == Verdict(changed=[], fewer=["--bot"], more=["--bot"], missing=["c"])


def test_a_stored_config_without_games_or_bots_compares_what_it_has():
    data = stored(CONFIG, "t").config
    del data["games_per_pairing"], data["bots"]
    got = compare(data, CONFIG)
    assert got == Verdict(changed=[], fewer=[], more=["--bot"], missing=[])


def test_a_kept_bot_that_changes_role_is_a_change_of_challengers():
    old = replace(CONFIG, format=Gauntlet(("a",)))
    assert verdict_of(old, old).same
    got = verdict_of(old, replace(CONFIG, format=Gauntlet(("b",))))
    assert got.changed == ["--challenger"] and got.more == [] and got.fewer == []


def test_a_new_challenger_among_new_bots_grows_a_gauntlet():
    old = replace(CONFIG, format=Gauntlet(("a",)))
    got = verdict_of(old, replace(CONFIG, bots=(A, B, C, D), format=Gauntlet(("a", "d"))))
    assert got == Verdict(changed=[], fewer=[], more=["--bot"], missing=[])
    assert got.grows


def test_a_stored_config_without_challengers_had_none():
    data = stored(CONFIG, "t").config
    del data["challengers"]
    assert compare(data, CONFIG).same
    got = compare(data, replace(CONFIG, format=Gauntlet(("a",))))
    assert got.changed == ["--format", "--challenger"]


def test_a_format_that_cannot_grow_calls_more_a_change():
    swiss = replace(CONFIG, format=Swiss(3), games_per_pairing=2)
    got = verdict_of(swiss, replace(swiss, bots=(A, B, C, D), seed=2))
    assert got == Verdict(changed=["--seed", "--bot"], fewer=[], more=[], missing=[])
    assert not got.grows and not got.same


def test_a_flag_already_changed_is_named_once_when_more_becomes_a_change():
    swiss = replace(CONFIG, format=Swiss(3), games_per_pairing=2)
    changed_and_more = replace(swiss, bots=(A, B, Entrant("c", "minimax"), D))
    got = verdict_of(swiss, changed_and_more)
    assert got == Verdict(changed=["--bot"], fewer=[], more=[], missing=[])


def test_a_format_that_cannot_grow_keeps_fewer_as_fewer():
    swiss = replace(CONFIG, format=Swiss(3), games_per_pairing=2)
    got = verdict_of(swiss, replace(swiss, bots=(A, B)))
    assert got == Verdict(changed=[], fewer=["--bot"], more=[], missing=["c"])


def test_flags_are_named_from_the_settings_table():
    assert FLAGS["games_per_pairing"] == "--games" and FLAGS["sprt"] == "--elo0/--elo1/--alpha/--beta/--model"
    assert FLAGS["budget"] == "--budget/--tc" and FLAGS["adjudication"] == "--draw/--resign/--maxmoves"


# ---- plan: a named run -------------------------------------------------------------------------------


def test_a_named_run_not_stored_yet_is_a_new_tournament_of_that_name():
    config = replace(CONFIG, name="c4")
    got = plan([stored(CONFIG, "other")], config, DB)
    assert got == Plan(config, None, [], False, False)


def test_a_named_run_with_the_same_settings_resumes_its_tournament():
    config = replace(CONFIG, name="c4")
    mine = stored(CONFIG, "c4", id=2)
    got = plan([stored(replace(CONFIG, seed=5), "other"), mine], config, DB)
    assert got == Plan(config, mine, [], False, False)
    assert got.stored is mine


def test_a_named_run_with_more_games_grows_its_tournament_from_the_stored_stage():
    config = replace(CONFIG, name="c4", games_per_pairing=6, bots=(D, A, B, C))
    mine = stored(CONFIG, "c4")
    got = plan([mine], config, DB)
    assert got == Plan(config, mine, [Stage(4, ("a", "b", "c"), ())], True, False)


def test_a_grown_tournament_grows_again_after_its_earlier_stages():
    first = Stage(2, ("a", "b"), ())
    mine = stored(CONFIG, "c4", grown_from=[first.to_json()])
    config = replace(CONFIG, name="c4", games_per_pairing=8)
    got = plan([mine], config, DB)
    assert got.grown_from == [first, Stage(4, ("a", "b", "c"), ())] and got.grows
    resumed = plan([mine], replace(CONFIG, name="c4"), DB)
    assert resumed.grown_from == [first] and not resumed.grows


def test_a_gauntlet_grows_from_a_stage_with_its_challengers():
    old = replace(CONFIG, format=Gauntlet(("a",)))
    config = replace(old, name="g", bots=(A, B, C, D), format=Gauntlet(("a", "d")))
    got = plan([stored(old, "g")], config, DB)
    assert got.grown_from == [Stage(4, ("a", "b", "c"), ("a",))]


def test_a_named_run_with_other_settings_is_refused_naming_every_flag_that_differs():
    config = replace(CONFIG, name="c4", budget=Budget(nodes=400), time_margin=0.5, games_per_pairing=6, bots=(A, B))
    assert refusal([stored(CONFIG, "c4")], config) == (
        "tournament 'c4' in '/data/r.db' was started with other settings (--budget/--tc, --time-margin, --bot, "
        "--games differ); give a new name with --name, or use another database"
    )


def test_a_changed_bot_that_is_also_more_and_fewer_is_named_once():
    config = replace(CONFIG, name="c4", bots=(A, Entrant("b", "minimax"), D))
    assert refusal([stored(CONFIG, "c4")], config) == (
        "tournament 'c4' in '/data/r.db' was started with other settings (--bot differ); give a new name with "
        "--name, or use another database"
    )


def test_fewer_games_are_refused_naming_the_stored_games():
    config = replace(CONFIG, name="c4", games_per_pairing=2)
    assert refusal([stored(CONFIG, "c4")], config) == (
        "tournament 'c4' in '/data/r.db' already holds these games (--games asks for fewer than its 4 per pairing): "
        "a smaller tournament plays nothing new; see it with 'arena report /data/r.db --tournament c4', or give a "
        "new name with --name"
    )


def test_fewer_games_and_bots_are_refused_naming_both():
    config = replace(CONFIG, name="c4", games_per_pairing=2, bots=(B,))
    assert refusal([stored(CONFIG, "c4")], config) == (
        "tournament 'c4' in '/data/r.db' already holds these games (--games asks for fewer than its 4 per pairing; "
        "--bot leaves out 'a', 'c'): a smaller tournament plays nothing new; see it with 'arena report /data/r.db "
        "--tournament c4', or give a new name with --name"
    )


def test_fewer_bots_with_more_games_are_refused_as_fewer():
    config = replace(CONFIG, name="c4", games_per_pairing=8, bots=(A, B))
    assert refusal([stored(CONFIG, "c4")], config) == (
        "tournament 'c4' in '/data/r.db' already holds these games (--bot leaves out 'c'): a smaller tournament "
        "plays nothing new; see it with 'arena report /data/r.db --tournament c4', or give a new name with --name"
    )


SPRT_CONFIG = TournamentConfig(game="connect4", bots=(A, B), budget=Budget(nodes=300), games_per_pairing=4, seed=1,
                               format=Sprt(SPRT(0.0, 5.0)), name="s")


def test_an_sprts_fewer_games_are_named_as_its_max_games():
    assert refusal([stored(SPRT_CONFIG, "s")], replace(SPRT_CONFIG, games_per_pairing=2)) == (
        "tournament 's' in '/data/r.db' already holds these games (--max-games asks for fewer than its 4 games): "
        "a smaller tournament plays nothing new; see it with 'arena report /data/r.db --tournament s', or give a "
        "new name with --name"
    )


def test_an_sprt_without_a_bot_names_the_bot_left_out():
    assert refusal([stored(SPRT_CONFIG, "s")], replace(SPRT_CONFIG, bots=(A,))) == (
        "tournament 's' in '/data/r.db' already holds these games (--bot leaves out 'b'): a smaller tournament plays "
        "nothing new; see it with 'arena report /data/r.db --tournament s', or give a new name with --name"
    )


# ---- plan: tournaments stored before schedules could grow ----------------------------------------------


def test_a_legacy_tournament_resumes_with_its_own_stored_config():
    mine = stored(CONFIG, "default", legacy=True)
    got = plan([mine], replace(CONFIG, name="default"), DB)
    assert got == Plan(replace(CONFIG, name="default"), mine, [], False, True)
    assert got.stored_config() is mine.config


def test_a_legacy_tournament_cannot_grow():
    config = replace(CONFIG, name="default", games_per_pairing=6)
    assert refusal([stored(CONFIG, "default", legacy=True)], config) == (
        "tournament 'default' in '/data/r.db' was started (before tournaments could grow) with other settings "
        "(--games differ); give a new name with --name, or use another database"
    )


def test_a_legacy_tournament_with_changed_settings_is_refused_as_any_other():
    config = replace(CONFIG, name="default", seed=3, games_per_pairing=2)
    assert refusal([stored(CONFIG, "default", legacy=True)], config) == (
        "tournament 'default' in '/data/r.db' was started with other settings (--seed, --games differ); give a new "
        "name with --name, or use another database"
    )


def test_an_unnamed_run_resumes_a_legacy_tournament_of_the_same_settings_under_its_name():
    mine = stored(CONFIG, "default", legacy=True)
    got = plan([stored(replace(CONFIG, seed=3), "x"), mine], CONFIG, DB)
    assert got == Plan(replace(CONFIG, name="default"), mine, [], False, True)


def test_an_unnamed_run_does_not_take_over_a_named_tournament_of_the_same_settings():
    got = plan([stored(CONFIG, "mine")], CONFIG, DB)
    assert got == Plan(replace(CONFIG, name=derived_name(CONFIG)))


def test_an_unnamed_run_does_not_resume_a_legacy_tournament_of_other_settings():
    got = plan([stored(replace(CONFIG, games_per_pairing=2), "default", legacy=True)], CONFIG, DB)
    assert got == Plan(replace(CONFIG, name=derived_name(CONFIG)))


# ---- plan: an unnamed run ------------------------------------------------------------------------------


def test_an_unnamed_run_in_an_empty_database_takes_the_derived_name():
    got = plan([], CONFIG, DB)
    assert got == Plan(replace(CONFIG, name=derived_name(CONFIG)), None, [], False, False)


def test_an_unnamed_run_resumes_the_tournament_of_its_derived_name():
    base = derived_name(CONFIG)
    mine = stored(CONFIG, base)
    got = plan([mine], CONFIG, DB)
    assert got == Plan(replace(CONFIG, name=base), mine, [], False, False)


def test_an_unnamed_run_finds_its_tournament_under_a_numbered_name():
    base = derived_name(CONFIG)
    for suffix in ("-2", "-9", "-10", "-123"):
        mine = stored(CONFIG, base + suffix)
        assert plan([mine], CONFIG, DB).stored is mine, suffix


@pytest.mark.parametrize("suffix", ["-1", "-0", "-01", "-x", "2", "-2-2"])
def test_names_that_only_look_derived_are_not_the_runs(suffix):
    base = derived_name(CONFIG)
    other = stored(CONFIG, base + suffix)
    got = plan([other], CONFIG, DB)
    assert got.stored is None and got.config.name == base


def test_an_unnamed_run_prefers_the_same_tournament_to_one_it_would_grow():
    base = derived_name(CONFIG)
    smaller = stored(replace(CONFIG, games_per_pairing=2), base)
    same = stored(CONFIG, base + "-2", id=2)
    got = plan([smaller, same], CONFIG, DB)
    assert got == Plan(replace(CONFIG, name=base + "-2"), same, [], False, False)


def test_an_unnamed_run_grows_the_first_tournament_it_contains():
    base = derived_name(CONFIG)
    other_field = stored(replace(CONFIG, bots=(D, Entrant("e", "minimax"))), base)
    smaller = stored(replace(CONFIG, bots=(A, B)), base + "-2", id=2)
    got = plan([other_field, smaller], CONFIG, DB)
    assert got == Plan(replace(CONFIG, name=base + "-2"), smaller, [Stage(4, ("a", "b"), ())], True, False)


def test_an_unnamed_run_with_fewer_games_than_its_tournament_is_refused():
    base = derived_name(CONFIG)
    assert refusal([stored(CONFIG, base)], replace(CONFIG, games_per_pairing=2)) == (
        f"tournament '{base}' in '/data/r.db' already holds these games (--games asks for fewer than its 4 per "
        f"pairing): a smaller tournament plays nothing new; see it with 'arena report /data/r.db --tournament "
        f"{base}', or give a new name with --name"
    )


def test_an_unnamed_run_with_another_field_gets_the_next_free_number():
    base = derived_name(CONFIG)
    other = replace(CONFIG, bots=(A, B, D))  # fewer and more: neither grows nor is refused
    assert plan([stored(CONFIG, base)], other, DB) == Plan(replace(other, name=base + "-2"))
    taken = [stored(CONFIG, base), stored(CONFIG, base + "-2"), stored(CONFIG, "x"), stored(CONFIG, base + "-4")]
    assert plan(taken, other, DB).config.name == base + "-3"
    assert plan(taken[:2], other, DB).config.name == base + "-3"


def test_a_changed_bot_with_fewer_bots_gets_a_tournament_of_its_own():
    base = derived_name(CONFIG)
    other = replace(CONFIG, bots=(A, Entrant("b", "minimax")))  # changed and fewer
    assert plan([stored(CONFIG, base)], other, DB) == Plan(replace(other, name=base + "-2"))


# ---- what is stored ----------------------------------------------------------------------------------


def test_a_new_tournament_stores_its_identity_as_the_database_reads_it_back():
    config = replace(CONFIG, name="c4", format=Gauntlet(("a",)))
    got = Plan(config).stored_config()
    assert got == as_read_back(config) and "grown_from" not in got
    assert list(got) == sorted(got)  # keys sorted, as read back
    assert got["challengers"] == ["a"] and got["bots"][0] == {"budget": "nodes=300", "name": "a", "spec": "random"}


def test_a_grown_tournament_stores_the_stages_it_grew_from():
    config = replace(CONFIG, name="c4")
    stages = [Stage(2, ("a", "b"), ()), Stage(4, ("a", "b", "c"), ("a",))]
    got = Plan(config, stored(CONFIG, "c4"), stages, True, False).stored_config()
    assert got == {**as_read_back(config), "grown_from": [
        {"games": 2, "bots": ["a", "b"], "challengers": []},
        {"games": 4, "bots": ["a", "b", "c"], "challengers": ["a"]},
    ]}


def test_a_legacy_tournament_stores_what_it_stored():
    mine = stored(CONFIG, "default", legacy=True)
    assert Plan(replace(CONFIG, name="default"), mine, [], False, True).stored_config() is mine.config


# ---- helpers -------------------------------------------------------------------------------------------


def test_bots_by_name_with_none_for_the_tournaments_budget():
    config = {"budget": "nodes=5", "bots": [{"name": "a", "spec": "x", "budget": "nodes=5"},
                                            {"name": "b", "spec": "y", "budget": "depth=2"}]}
    assert growth._bots(config) == {"a": ("x", None), "b": ("y", "depth=2")}
    assert growth._bots({}) == {}


def test_a_tournament_stored_without_a_schedule_is_legacy():
    assert growth._legacy(stored(CONFIG, "t", legacy=True)) is True
    assert growth._legacy(stored(CONFIG, "t")) is False


def test_plain_is_the_identity_as_json_gives_it_back():
    got = growth._plain({"b": (1, 2), "a": {"d": 1, "c": None}})
    assert got == {"a": {"c": None, "d": 1}, "b": [1, 2]}
    assert list(got) == ["a", "b"] and list(got["a"]) == ["c", "d"]
