"""Games on Dask go in chunks: every game once, a failing game loses only itself, and
bench/scale.py's Dask path runs a small Swiss that stores the games a local run stores."""

import importlib.util
import sys
from pathlib import Path

import pytest

import results
from arena.budget import Budget
from arena.execution.executors import DaskExecutor
from arena.execution.pool import Failure
from arena.front.tournament import Entrant, TournamentConfig, make_schedule
from arena import get_registry

pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
pytest.importorskip("networkx", reason="the swiss format needs networkx")

BENCH = Path(__file__).resolve().parent.parent / "bench" / "scale.py"


def _result_unless_seven(index, pairing, record):
    """A ``prepare`` that fails on game 7 (it runs on the Dask worker, as game_rows does)."""
    if index == 7:
        raise ValueError("no rows for game 7")
    return record.result


@pytest.mark.processes
def test_a_dask_run_sends_chunks_and_a_failure_loses_only_its_game():
    executor = DaskExecutor("local", 2, (), _result_unless_seven)
    chunks_and_failures(executor)


def test_on_a_cluster_of_threads_in_this_process_too():
    import distributed

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    try:
        chunks_and_failures(DaskExecutor(cluster.scheduler_address, 2, (), _result_unless_seven))
    finally:
        cluster.close()


def chunks_and_failures(executor):
    """Every game of a round-robin of 11 bots comes back once, game 7 as a failure of its own."""
    bots = tuple(Entrant(f"r{k}", "random") for k in range(11))
    config = TournamentConfig(game="bachet:matches=3", bots=bots, budget=Budget(nodes=10), seed=2, isolate=False)
    tasks = make_schedule(config, get_registry(entry_points=False)).games
    try:
        outcomes = list(executor.run(tasks))
        chunk = executor.size
    finally:
        executor.close()
    failed = [o for o in outcomes if isinstance(o, Failure)]
    assert sorted(o.index if isinstance(o, Failure) else o[0] for o in outcomes) == list(range(len(tasks)))
    assert [f.index for f in failed] == [7] and "no rows for game 7" in failed[0].message
    assert all(o[1] in ("1-0", "0-1") for o in outcomes if not isinstance(o, Failure))
    assert len(tasks) >= 100 and chunk > 1  # instant games: chunks grew past one game


@pytest.mark.processes
def test_the_scale_benchs_dask_path_stores_the_games_of_a_local_run(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_scale", BENCH)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    try:
        spec.loader.exec_module(bench)
        runs = {}
        for ex in ("local", "dask"):
            (tmp_path / ex).mkdir()
            runs[ex] = bench.one(20, 2, 2, ex, tmp_path / ex)
    finally:
        del sys.modules[spec.name]
    for r in runs.values():
        assert r["games"] == 40 and r["games_per_second"] > 0 and r["peak_rss_mib"] > 0
        assert r["parent_ms_per_game"] > 0 and r["main_ms_per_game"] > 0 and r["seconds"] > 0
    local, dask = (results.load(tmp_path / ex / "scale-20.db").games for ex in ("local", "dask"))
    columns = ["game_id", "first", "second", "result", "plies"]
    assert dask[columns].sort_values("game_id").reset_index(drop=True).equals(
        local[columns].sort_values("game_id").reset_index(drop=True))
