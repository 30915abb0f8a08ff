"""The bots that say their strategy: uniform, regret (regret matching), cfr (the project's CFR) and
policy (a stored strategy).

Known answers: Kuhn poker is worth -1/18 to seat 0 (H. W. Kuhn, "A simplified two-person poker",
Contributions to the Theory of Games I, 1950); OpenSpiel's CFR solvers
(open_spiel/python/algorithms/cfr.py) compute the same iterates as ours.
"""

import json
import time

import pytest

from arena import Bot, Budget, View, play_game
from arena import strategy
from arena.errors import ParameterError
from bots.cfr import solve
from bots.regret import RegretBot

KUHN_VALUE = -1 / 18  # Kuhn 1950


class Rock(Bot):
    name = "rock"
    handles = frozenset({"simultaneous"})

    def choose(self, game, view, budget):
        return "R"


def _moves(record, seat):
    return [m.move for m in record.moves if m.player == seat]


def test_uniform_plays_every_kind_of_game(registry):
    assert "uniform" in registry.bots_for(registry.game("kuhn_poker"))
    assert registry.bot_class("uniform").handles == {"chance", "players", "nonzero-sum", "simultaneous", "hidden"}
    specs = ("tictactoe", "pig", "rolit:players=3,size=4", "kuhn_poker", "leduc_poker", "rps:throws=5", "goofspiel:cards=4")
    for spec in specs:
        game = registry.game(spec)
        bots = [registry.bot("uniform") for _ in range(game.model.players)]
        record = play_game(game, bots, seed=1, trusted=True)
        assert record.termination.name == "NORMAL", (spec, record.message)


def test_uniform_throws_each_sign_a_third_of_the_time(registry):
    record = play_game(registry.game("rps:throws=1000"), [registry.bot("uniform"), Rock()], seed=5, trusted=True)
    thrown = _moves(record, 0)
    for sign in "RPS":  # 1000 draws: one standard deviation is 0.015
        assert abs(thrown.count(sign) / 1000 - 1 / 3) < 0.05
    view = View(0, "", "", ("R", "P", "S"), ())
    assert registry.bot("uniform").policy(None, view) == [("R", 1 / 3), ("P", 1 / 3), ("S", 1 / 3)]


def test_regret_matching_beats_a_fixed_throw_at_once(registry):
    for seed in range(3):
        record = play_game(registry.game("rps:throws=200"), [registry.bot("regret"), Rock()], seed=seed, trusted=True)
        later = _moves(record, 0)[10:]
        assert later.count("P") >= 0.95 * len(later)  # 190 of 190 in these seeds


def test_regret_matching_in_self_play_mixes_evenly(registry):
    record = play_game(registry.game("rps:throws=1000"), [registry.bot("regret"), registry.bot("regret")], seed=1,
                       trusted=True)
    for seat in (0, 1):
        thrown = _moves(record, seat)
        for sign in "RPS":  # within 0.05 of 1/3; the worst of 20 seeds is 0.034
            assert abs(thrown.count(sign) / 1000 - 1 / 3) < 0.05
    game = registry.game("rps:throws=100")
    first, again, other = (play_game(game, [registry.bot("regret"), registry.bot("regret")], seed=seed, trusted=True)
                           for seed in (1, 1, 2))
    assert _moves(again, 0) == _moves(first, 0) and _moves(other, 0) != _moves(first, 0)  # deterministic given the seed


def test_regret_matching_plays_by_its_positive_regrets(registry):
    game, bot = registry.game("rps"), RegretBot()
    # seat 0 threw R against P (lost 1): R would have lost 1 as well (regret 0), P drawn (1), S won (2)
    assert bot.policy(game, View(0, "", "", ("R", "P", "S"), ("R", "P"))) == [("R", 0.0), ("P", 1 / 3), ("S", 2 / 3)]
    assert bot.policy(game, View(1, "", "", ("R", "P", "S"), ("R", "P"))) == [(m, 1 / 3) for m in "RPS"]  # seat 1 won
    record = play_game(registry.game("rps:throws=3"), [bot, Rock()], budgets=[Budget(nodes=5)] * 2, trusted=True)
    assert record.termination.name == "NORMAL"  # too few nodes to read the stage game: a uniform throw
    assert "repeated matrix games" in bot.suitable(registry.game("goofspiel:order=descending"))


def test_cfr_solves_kuhn_poker(registry):
    game = registry.game("kuhn_poker")
    started = time.perf_counter()
    plus = solve(game, 150).exploitability()  # CFR+ first passes 1e-3 at 68 iterations, for good at 137
    assert plus.exploitability < 1e-3 and time.perf_counter() - started < 2
    assert plus.selfplay[0] == pytest.approx(KUHN_VALUE, abs=1e-3)
    assert plus.guaranteed[0] == pytest.approx(KUHN_VALUE, abs=1e-3)
    vanilla = solve(game, 1200, "cfr").exploitability()  # vanilla CFR first at 647, for good at 1109
    assert vanilla.exploitability < 1e-3 and vanilla.selfplay[0] == pytest.approx(KUHN_VALUE, abs=1e-3)
    assert solve(game, 30).exploitability().exploitability > 1e-3  # the bound is not met from the start
    with pytest.raises(ParameterError, match="unknown CFR variant 'cfr-'; choose one of: cfr\\+, cfr"):
        solve(game, 1, "cfr-")


def test_cfr_follows_openspiels_iterates(registry):
    pytest.importorskip("pyspiel", reason="OpenSpiel (pip install open-spiel) runs the reference solver")
    import pyspiel
    from open_spiel.python.algorithms import cfr as os_cfr
    from open_spiel.python.algorithms import exploitability as os_exploitability

    os_game = pyspiel.load_game("kuhn_poker")
    for variant, solver in (("cfr+", os_cfr.CFRPlusSolver(os_game)), ("cfr", os_cfr.CFRSolver(os_game))):
        for _ in range(50):
            solver.evaluate_and_update_policy()
        theirs = os_exploitability.exploitability(os_game, solver.average_policy())
        ours = solve(registry.game("kuhn_poker"), 50, variant).exploitability().exploitability
        assert ours == pytest.approx(theirs, abs=1e-12), variant


def test_cfr_converges_in_leduc_within_a_second(registry):
    game = registry.game("leduc_poker")
    tree = strategy.build_tree(game)
    seen = {}
    started = time.perf_counter()
    solve(game, 100, tree=tree, progress=lambda t, table: seen.update(
        {t: strategy.exploitability(tree, table).exploitability} if t in (10, 30, 100) else {}))
    assert time.perf_counter() - started < 3  # 0.4 s here, exploitability computed three times included
    assert seen[10] > seen[30] > seen[100] and seen[100] < 0.02  # 0.61, 0.093, 0.0134


def test_a_cfr_strategy_file_round_trips_through_the_policy_bot(registry, tmp_path):
    game = registry.game("kuhn_poker")
    solution = solve(game, 200)
    king = solution.table[solution.tree.index[(0, ("K", ""))]]
    assert solution.strategy[(0, ("K", ""))] == [("p", king[0]), ("b", king[1])]
    path = tmp_path / "kuhn.json"
    solution.save(path)
    data = json.loads(path.read_text())
    assert (data["game"], data["iterations"], data["source"]) == ("kuhn_poker", 200, "cfr+ 200 iterations")
    assert data["exploitability"] == pytest.approx(solution.exploitability().exploitability, abs=1e-15)
    bot = registry.bot(f"policy:file={path}")
    tree = solution.tree
    played = strategy.tabulate(tree, lambda view: bot.policy(game, view))
    assert all(a == pytest.approx(b, abs=1e-15) for row, stored in zip(played, solution.table) for a, b in zip(row, stored))
    record = play_game(game, [bot, registry.bot("cfr:iterations=50")], seed=3, trusted=True)
    assert record.termination.name == "NORMAL"


def _write(path, strategy_rows, game="kuhn_poker"):
    path.write_text(json.dumps({"format": strategy.FORMAT, "game": game, "strategy": strategy_rows}))
    return str(path)


def test_the_policy_bot_refuses_a_file_it_cannot_play_in_one_line(registry, tmp_path):
    kuhn = registry.game("kuhn_poker")
    with pytest.raises(ParameterError, match="^bot 'policy' cannot play 'kuhn_poker': it needs its strategy file: "
                       "policy:file=PATH \\(written by arena exploit ... --save\\)$"):
        registry.bot("policy").check_game(kuhn)  # every bot builds from its defaults; this one refuses at set-up
    cases = [
        ("policy:file=kuhn.json", "needs the strategy file as an absolute path, not 'kuhn.json'"),
        (f"policy:file={tmp_path / 'none.json'}", "none.json' does not exist"),
        (f"policy:file={_write(tmp_path / 'a.json', {'2': {}})}", "'strategy' has the entry '2'"),
        (f"policy:file={_write(tmp_path / 'b.json', {'0': {'x': {'p': 0.5}}})}", "needs move -> probability"),
    ]
    for spec, said in cases:
        with pytest.raises(ParameterError) as caught:
            registry.bot(spec)
        assert said in str(caught.value) and "\n" not in str(caught.value), spec
    bot = registry.bot(f"policy:file={_write(tmp_path / 'c.json', {}, game='leduc_poker')}")
    assert bot.suitable(kuhn) == f"the strategy file '{tmp_path / 'c.json'}' is for leduc_poker, not kuhn_poker"
    assert "without simultaneous moves" not in (bot.suitable(registry.game("rps")) or "")


def test_the_policy_bot_loses_where_its_file_lacks_a_state(registry, tmp_path):
    game = registry.game("kuhn_poker")
    only_kings = {"0": {'["K",""]': {"p": 0, "b": 1}}, "1": {}}
    bot = registry.bot(f"policy:file={_write(tmp_path / 'k.json', only_kings)}")
    assert bot.policy(game, View(0, "", ("K", ""), ("p", "b"), ("?", "?"))) == (("p", 0), ("b", 1))
    lacking = "has no information state '\\[\"J\",\"\"\\]' of seat 0, which kuhn_poker reaches"
    with pytest.raises(ParameterError, match=lacking):
        bot.policy(game, View(0, "", ("J", ""), ("p", "b"), ("?", "?")))
    losses = [play_game(game, [bot, registry.bot("uniform")], seed=s, trusted=True) for s in range(6)]
    assert any(r.termination.name == "CRASH" and "has no information state" in r.message for r in losses)
    assert all(r.termination.name == "NORMAL" for r in losses if "K" in r.moves[0].move)  # with a king it has its move
    wrong = {"0": {'["K",""]': {"p": 0.5, "x": 0.5}}}
    bot = registry.bot(f"policy:file={_write(tmp_path / 'w.json', wrong)}")
    with pytest.raises(ParameterError, match="gives seat 0 at '\\[\"K\",\"\"\\]' the moves p, x; legal there: p, b"):
        bot.policy(game, View(0, "", ("K", ""), ("p", "b"), ("?", "?")))


@pytest.mark.processes
def test_the_policy_bot_plays_isolated_from_an_absolute_path(registry, tmp_path):
    from arena.execution.isolation import HostPool, RemoteBot

    always_bet = {seat: {f'["{c}",{json.dumps(h)}]': {"p": 0, "b": 1} for c in "JQK" for h in ("", "p", "b", "pb")}
                  for seat in ("0", "1")}
    path = _write(tmp_path / "bet.json", always_bet)
    pool = HostPool()
    isolated = RemoteBot(f"policy:file={path}", pool=pool)
    try:  # trusted: the other bot plays in this process
        record = play_game(registry.game("kuhn_poker"), [isolated, registry.bot("uniform")], seed=2, trusted=True)
    finally:
        isolated.release()
        pool.close()
    assert record.termination.name == "NORMAL" and _moves(record, 0) and set(_moves(record, 0)) == {"b"}
