"""Tournaments that grow: derived names, more games or bots, refusals that name the flags."""

import re
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import results
from arena import Budget, get_registry
from arena.front.cli import main
from arena.front.growth import derived_name
from arena.front.run import run_tournament
from arena.front.settings import RunSettings
from arena.front.tournament import Entrant, Stage, TournamentConfig, make_schedule
from results.store import ConfigMismatch

REGISTRY = get_registry(entry_points=False)
ARENA = [sys.executable, "-m", "arena"]
FIELD = (
    Entrant("random", "random"),
    Entrant("greedy", "greedy"),
    Entrant("ab", "alphabeta:depth=3"),
    Entrant("iterative", "iterative"),
)
# node budgets keep every game deterministic, whoever plays it and whenever
CONNECT4 = TournamentConfig(
    game="connect4", bots=FIELD[:3], budget=Budget(nodes=300), games_per_pairing=2, opening_plies=2, seed=11,
    isolate=False,
)
SMALL = ["--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--budget", "nodes=200", "--openings", "1",
         "--jobs", "1", "--no-progress"]


def run(config, db, jobs=1):
    return run_tournament(config, RunSettings(db, jobs, progress=False), registry=REGISTRY)


def played(db, name=None) -> dict:
    """Every stored game, keyed by who moved first, who second, the opening and the seed."""
    games, moves = results.load(db, name)
    by_game = {g: list(zip(m.ply, m.move, m.nodes)) for g, m in moves.groupby("game_id")}
    return {
        (g.first, g.second, g.opening, g.seed): (g.result, g.termination, g.plies, by_game[g.game_id])
        for g in games.itertuples()
    }


def tournaments(db) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT name, scheduled FROM tournaments ORDER BY id").fetchall()


def test_a_grown_tournament_equals_one_played_at_full_size_from_the_start(tmp_path):
    grown, full = tmp_path / "grown.db", tmp_path / "full.db"
    steps = [
        CONNECT4,  # 3 bots, 2 games per pairing: 6 games
        replace(CONNECT4, games_per_pairing=4),  # 6 more
        replace(CONNECT4, games_per_pairing=4, bots=(FIELD[3], *FIELD[:3])),  # a 4th bot, listed first: 12 more
        replace(CONNECT4, games_per_pairing=6, bots=(FIELD[3], *FIELD[:3])),  # 12 more
    ]
    done = [run(config, grown) for config in steps]
    assert [(r.already, r.played, r.scheduled) for r in done] == [(0, 6, 6), (6, 6, 12), (12, 12, 24), (24, 12, 36)]
    assert len({r.tournament.name for r in done}) == 1 and len(tournaments(grown)) == 1
    at_once = run(steps[-1], full)
    assert at_once.played == 36 and at_once.tournament.name == done[0].tournament.name
    assert played(grown) == played(full)  # same players, colours, openings, seeds, moves and results
    games, _ = results.load(grown)
    assert sorted(games.game_id) == list(range(36))
    assert len(set(games.seed)) == 36 and len(set(games.opening)) == 3


def test_games_keep_their_number_seed_opening_and_colours_when_the_schedule_grows():
    small = make_schedule(CONNECT4, REGISTRY).games
    config = replace(CONNECT4, games_per_pairing=4, bots=(FIELD[3], *FIELD[:3]))
    grown = make_schedule(config, REGISTRY, grown_from=[Stage.of(CONNECT4)]).games
    fresh = make_schedule(config, REGISTRY).games

    def key(task):
        return task.names, task.seed, task.opening

    assert [key(t) for t in grown[: len(small)]] == [key(t) for t in small]
    assert [t.index for t in grown] == list(range(24))
    assert sorted(map(key, grown)) == sorted(map(key, fresh))
    # a fresh schedule plays round by round, each pair twice per round with colours swapped
    assert [t.names for t in small] == [
        ("random", "greedy"), ("greedy", "random"), ("random", "ab"), ("ab", "random"), ("greedy", "ab"), ("ab", "greedy")
    ]


def test_a_gauntlet_grows_by_challengers_and_by_field():
    small = replace(CONNECT4, format="gauntlet", challengers=("ab",))
    bigger = replace(small, bots=(*FIELD, Entrant("mm", "minimax:depth=2")), challengers=("ab", "iterative"))
    old = make_schedule(small, REGISTRY).games
    grown = make_schedule(bigger, REGISTRY, grown_from=[Stage.of(small)]).games
    fresh = make_schedule(bigger, REGISTRY).games
    assert [(t.names, t.seed) for t in grown[: len(old)]] == [(t.names, t.seed) for t in old]
    assert sorted((t.names, t.seed, t.opening) for t in grown) == sorted((t.names, t.seed, t.opening) for t in fresh)
    assert len(old) == 2 * 2 and len(grown) == 2 * 3 * 2  # 2 challengers x 3 others, both colours


@pytest.mark.processes
def test_a_run_without_a_name_gets_one_from_its_settings_and_finds_it_again(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the default database, in the working folder
    assert main(["run", *SMALL, "--games", "2"]) == 0
    assert main(["run", *SMALL, "--games", "2", "--seed", "9"]) == 0  # other settings: another tournament
    out = capsys.readouterr().out
    names = [name for name, _ in tournaments("arena-results.db")]
    assert len(names) == 2 and names[0] != names[1]
    assert all(re.fullmatch(r"tictactoe-nodes=200-[0-9a-f]{6}", n) for n in names), names
    assert f"(tournament '{names[1]}'; 2 played now)" in out
    assert main(["run", *SMALL, "--games", "2"]) == 0  # the first command resumes its own
    assert f"2 of 2 games in 'arena-results.db' (tournament '{names[0]}'; 0 played now)" in capsys.readouterr().out
    assert main(["run", *SMALL, "--games", "4", "--bot", "ab=alphabeta:depth=2"]) == 0  # grows it
    assert f"12 of 12 games in 'arena-results.db' (tournament '{names[0]}'; 10 played now)" in capsys.readouterr().out
    assert len(tournaments("arena-results.db")) == 2


def test_derived_names_leave_out_only_what_grows():
    name = derived_name(CONNECT4)
    assert re.fullmatch(r"connect4-nodes=300-[0-9a-f]{6}", name)
    assert derived_name(replace(CONNECT4, games_per_pairing=8, bots=FIELD)) == name
    for change in ({"seed": 12}, {"opening_plies": 3}, {"budget": Budget(nodes=301)}, {"time_margin": 0.5},
                   {"watchdog": 5.0}, {"isolate": True}, {"game": "connect4:columns=8"}):
        assert derived_name(replace(CONNECT4, **change)) != name, change


def test_another_field_of_bots_under_a_derived_name_is_a_tournament_of_its_own(tmp_path):
    db = tmp_path / "t.db"
    first = run(CONNECT4, db)
    other = run(replace(CONNECT4, bots=(FIELD[3], Entrant("mm", "minimax:depth=2"))), db)
    assert other.tournament.name == first.tournament.name + "-2" and other.played == 2
    both = run(replace(CONNECT4, bots=FIELD), db)  # grows the first that it contains
    assert both.tournament.name == first.tournament.name and both.played == 6
    again = run(replace(CONNECT4, bots=(FIELD[3], Entrant("mm", "minimax:depth=2"))), db)
    assert again.tournament.name == other.tournament.name and again.played == 0


def test_a_changed_game_budget_or_limit_is_refused_naming_the_flags(tmp_path):
    db = tmp_path / "t.db"
    run(replace(CONNECT4, name="c4"), db)
    with pytest.raises(ConfigMismatch) as info:
        run(replace(CONNECT4, name="c4", budget=Budget(nodes=400), time_margin=0.5, games_per_pairing=4), db)
    assert str(info.value) == (
        f"tournament 'c4' in '{db}' was started with other settings (--budget/--tc, --time-margin, --games differ); "
        "give a new name with --name, or use another database"
    )
    changed = (FIELD[0], FIELD[1], Entrant("ab", "alphabeta:depth=4"))
    with pytest.raises(ConfigMismatch, match=r"\(--bot differ\)"):
        run(replace(CONNECT4, name="c4", bots=changed), db)


@pytest.mark.parametrize("change, message", [
    ({"games_per_pairing": 2}, "--games asks for fewer than its 4 per pairing"),
    ({"bots": FIELD[:2]}, "--bot leaves out 'ab'"),
])
@pytest.mark.parametrize("name", ["c4", None])
def test_fewer_games_or_bots_are_refused_naming_the_flag(tmp_path, change, message, name):
    db = tmp_path / "t.db"
    stored = run(replace(CONNECT4, games_per_pairing=4, name=name), db).tournament.name
    with pytest.raises(ConfigMismatch) as info:
        run(replace(CONNECT4, **{"games_per_pairing": 4, "name": name, **change}), db)
    assert str(info.value) == (
        f"tournament '{stored}' in '{db}' already holds these games ({message}): a smaller tournament plays "
        f"nothing new; see it with 'arena report {db} --tournament {stored}', or give a new name with --name"
    )
    assert len(tournaments(db)) == 1


@pytest.mark.processes
def test_the_progress_bar_counts_the_whole_grown_schedule(tmp_path):
    db = tmp_path / "p.db"
    args = [*ARENA, "run", *[a for a in SMALL if a != "--no-progress"], "--db", str(db)]
    subprocess.run([*args, "--games", "2"], check=True, capture_output=True, timeout=120)
    proc = subprocess.run([*args, "--games", "6"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert " 2/6 " in proc.stderr and " 6/6 " in proc.stderr  # starts at the stored games
    assert "6 of 6 games" in proc.stdout and "4 played now" in proc.stdout


LEGACY = Path(__file__).parent / "data" / "results-before-growth.sql"
# written by the previous version (commit 6d5ff99) with: arena run --game tictactoe --bot random --bot greedy
#   --budget nodes=100 --games 4 --openings 1 --seed 5 --jobs 1 --db legacy.db; then games 3 and up deleted.
LEGACY_ARGS = ["--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--budget", "nodes=100", "--games", "4",
               "--openings", "1", "--seed", "5", "--jobs", "1", "--no-progress"]
LEGACY_SEED_OF_GAME_3 = 7346374273225722851  # what that version stored for game 3 before it was deleted


@pytest.mark.processes
def test_a_database_of_the_previous_version_resumes_its_tournament(tmp_path, capsys):
    db = tmp_path / "legacy.db"
    with sqlite3.connect(db) as con:
        con.executescript(LEGACY.read_text())
    assert main(["run", *LEGACY_ARGS, "--db", str(db)]) == 0
    assert f"4 of 4 games in '{db}' (tournament 'default'; 1 played now)" in capsys.readouterr().out
    games, _ = results.load(db, "default")
    assert list(games.game_id) == [0, 1, 2, 3] and games.seed.iloc[3] == LEGACY_SEED_OF_GAME_3
    assert main(["run", *LEGACY_ARGS, "--db", str(db), "--games", "6", "--name", "default"]) == 2
    assert capsys.readouterr().err == (
        f"arena: error: tournament 'default' in '{db}' was started (before tournaments could grow) with other "
        "settings (--games differ); give a new name with --name, or use another database\n"
    )
    assert tournaments(db) == [("default", 4)]


@pytest.mark.parametrize("given, name", [
    ({}, "connect4-nodes=2000-e49775"),
    ({"format": "gauntlet", "challengers": ["iterative"]}, "connect4-nodes=2000-bdac0c"),
    ({"format": "swiss", "rounds": 5, "games": 2}, "connect4-nodes=2000-ecd400"),
    ({"format": "race", "max_games": 300, "games": 2}, "connect4-nodes=2000-50594d"),
    ({"sandbox": True}, "connect4-nodes=2000-e9c66d"),
    ({"watchdog": 9, "memory_limit": 0, "time_margin": 0.5}, "connect4-nodes=2000-44b087"),
])
def test_a_config_keeps_the_name_earlier_versions_derived_for_it(given, name):
    # the names botarena derived at commit 0874b7d, before formats and settings had modules of
    # their own: a rerun of the same command must find the tournament it stored then
    from arena.front.settings import build, settings

    config, _ = build(settings(None, given))
    assert derived_name(config) == name


def test_an_sprt_keeps_the_name_earlier_versions_derived_for_it():
    from arena.front.settings import SPRT_SETTINGS, build_sprt, settings

    config, _ = build_sprt(settings(None, {"new": "alphabeta", "base": "greedy"}, SPRT_SETTINGS))
    assert derived_name(config) == "connect4-nodes=2000-502c04"  # as derived at commit 0874b7d
