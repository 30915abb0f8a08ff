"""Engines in games of more than two seats (docs/protocol.md, "Games of more than two seats"):
``newgame SEAT of N``, ``info ... utilities``, and the example engine that plays ``nim:players=N``.

The engines here are real processes: the example (examples/engines/python/nim_multi.py) and a
small scripted engine written by the tests (``SCRIPT``), which logs every line it is sent and
answers each ``go`` with the first legal move and the ``info`` line its mode asks for.
"""

import math
import shlex
import sys
from pathlib import Path

import pytest

import results
from arena import Budget, get_registry
from arena.checks import forfeit_utilities
from arena.front.cli import main
from arena.records import Termination
from arena.referee import play_game
from bots.engine.engine import ArenaEngine
from bots.engine.info import BadUtilities, read_info
from bots.engine.uci import UciBot

ROOT = Path(__file__).resolve().parent.parent
NIM_MULTI = ROOT / "examples" / "engines" / "python" / "nim_multi.py"
REGISTRY = get_registry(entry_points=False)
NIM3 = REGISTRY.game("nim:players=3")

# an engine for the tests: ``script MODE LOG``; the arena's own rules, the first legal move
SCRIPT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from arena import get_registry

mode, log = sys.argv[1], sys.argv[2]
registry, game, moves = get_registry(entry_points=False), None, []

def send(text):
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()

for raw in sys.stdin:
    line = raw.rstrip("\\r\\n")
    with open(log, "a") as f:
        f.write(line + "\\n")
    words = line.split()
    command = words[0] if words else ""
    if command == "quit":
        break
    if command == "arena":
        send("id name seats")
        send("arenaok")
    elif command == "game":
        game = registry.game(line[len("game "):])
    elif command == "isready":
        send("readyok")
    elif command == "position":
        moves = words[3:]
    elif command == "go":
        state = game.play(moves)
        seat, n = game.to_move(state), game.model.players
        move = game.format_move(game.legal_moves(state)[0])
        low, high = game.bounds
        fair = [f"{{(low + high) / 2:.6g}}"] * n
        own = [f"{{high if s == seat else low:.6g}}" for s in range(n)]
        fields = {{
            "plain": "score 0",
            "fair": f"score {{fair[seat]}} utilities {{' '.join(fair)}}",
            "only": f"utilities {{' '.join(own)}} depth 2",
            "few": "utilities " + " ".join(fair[:-1]),
            "many": "utilities " + " ".join(fair + ["0"]),
            "high": "utilities " + " ".join(fair[:-1] + ["1.5"]),
            "nan": "utilities " + " ".join(fair[:1] + ["nan"] + fair[2:]),
            "word": "utilities " + " ".join(fair[:1] + ["half"] + fair[2:]),
            "disagree": f"score {{low}} utilities {{' '.join(own)}}",
        }}[mode]
        send(f"info depth 1 nodes 1 {{fields}} pv {{move}}")
        send(f"bestmove {{move}}")
"""


@pytest.fixture
def scripted(tmp_path):
    """``scripted(mode)``: an engine bot running SCRIPT in ``mode``, and the file its input goes to."""
    script = tmp_path / "seats_engine.py"
    script.write_text(SCRIPT)
    made = []

    def make(mode="fair", name="log"):
        log = tmp_path / f"{name}.log"
        bot = REGISTRY.bot(f"engine:cmd={shlex.join([sys.executable, str(script), mode, str(log)])}")
        made.append(bot)
        return bot, log

    yield make
    for bot in made:
        bot.close()


def example():
    return REGISTRY.bot(f"engine:cmd={shlex.join([sys.executable, str(NIM_MULTI)])}")


def sent(log: Path) -> list[str]:
    return log.read_text().splitlines()


# the lines: newgame and info


@pytest.mark.processes
@pytest.mark.parametrize("spec, seat, line", [
    ("nim:players=3", 2, "newgame 2 of 3"),
    ("nim:players=4,heaps=3,4,5,6", 0, "newgame 0 of 4"),
    ("rolit", 3, "newgame 3 of 4"),
])
def test_an_engine_is_told_its_seat_of_n_and_every_seats_moves(scripted, spec, seat, line):
    game = REGISTRY.game(spec)
    n = game.model.players
    bot, log = scripted("fair")
    bots = [REGISTRY.bot("random") for _ in range(n)]
    bots[seat] = bot
    record = play_game(game, bots, seed=5)
    assert record.termination is Termination.NORMAL, record.message
    lines = sent(log)
    assert line in lines and not any(x.startswith("newgame") and x != line for x in lines)
    positions = [x for x in lines if x.startswith("position")]
    first = " ".join(m.move for m in record.moves[:seat])
    assert positions[0] == "position start" + (f" moves {first}" if seat else "")  # every seat's moves, in order
    ours = [m for m in record.moves if m.player == seat]
    assert len(positions) == len(ours) and all(m.reported and m.score == 0.5 for m in ours)


@pytest.mark.processes
@pytest.mark.parametrize("spec", ["nim", "rolit:players=2"])
def test_an_engine_in_a_game_of_two_seats_still_gets_newgame_player(scripted, spec):
    game = REGISTRY.game(spec)
    bot, log = scripted("plain")
    for seat in (0, 1):
        bots = [REGISTRY.bot("random"), REGISTRY.bot("random")]
        bots[seat] = bot
        assert play_game(game, bots, seed=seat).termination is Termination.NORMAL
    assert [x for x in sent(log) if x.startswith("newgame")] == ["newgame 0", "newgame 1"]
    assert ArenaEngine().newgame_line(1) == "newgame 1" and ArenaEngine().newgame_line(1, 3) == "newgame 1 of 3"


@pytest.mark.processes
def test_utilities_alone_give_the_score_of_the_engines_own_seat(scripted):
    bot, _ = scripted("only")
    record = play_game(NIM3, [REGISTRY.bot("random"), bot, REGISTRY.bot("random")], seed=1)
    assert record.termination is Termination.NORMAL
    ours = [m for m in record.moves if m.player == 1]
    assert ours and all(m.score == 1.0 and m.depth == 2 for m in ours)


HOSTILE = [
    ("few", "utilities '0.5 0.5': 2 numbers for the 3 seats of nim, one each"),
    ("many", "utilities '0.5 0.5 0.5 0': 4 numbers for the 3 seats of nim, one each"),
    ("high", "utility '1.5' of seat 2 is outside the game's bounds [0, 1]"),
    ("nan", "utility 'nan' of seat 1 is not a finite number"),
    ("word", "utility 'half' of seat 1 is not a finite number"),
    ("disagree", "score 0.0 disagrees with utility 1.0 of its own seat 1 by more than 1e-9"),
]


@pytest.mark.processes
@pytest.mark.parametrize("mode, message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_bad_utilities_lose_by_protocol_fault_in_one_line(scripted, mode, message):
    bot, _ = scripted(mode)
    record = play_game(NIM3, [REGISTRY.bot("random"), bot, REGISTRY.bot("random")], names=["a", "e", "b"], seed=2)
    assert record.termination is Termination.PROTOCOL and record.loser == 1
    assert record.message == f"'e' broke the protocol at ply 1: {message}"
    assert record.utilities == forfeit_utilities(NIM3, 1, 3) == (0.5, 0.0, 0.5)
    assert len(record.moves) == 1 and not bot.reusable()  # the engine is killed


@pytest.mark.processes
def test_bad_utilities_in_four_seats_and_in_two(scripted):
    four = REGISTRY.game("rolit")
    bot, _ = scripted("high", "four")
    record = play_game(four, [REGISTRY.bot("random"), REGISTRY.bot("random"), bot, REGISTRY.bot("random")], seed=3)
    assert record.termination is Termination.PROTOCOL and record.loser == 2
    assert record.message.endswith("utility '1.5' of seat 3 is outside the game's bounds [0, 1]")
    assert record.utilities == forfeit_utilities(four, 2, 4) == (1 / 3, 1 / 3, 0.0, 1 / 3)
    two = REGISTRY.game("nim")
    bot, _ = scripted("many", "two")
    record = play_game(two, [bot, REGISTRY.bot("random")], seed=3)
    assert record.termination is Termination.PROTOCOL and record.loser == 0 and record.utilities == (-1, 1)
    assert record.message.endswith("utilities '0 0 0': 3 numbers for the 2 seats of nim, one each")


@pytest.mark.parametrize("line, seat, info", [
    ("info utilities 0.25 0.5 0.25", 1, {"utilities": (0.25, 0.5, 0.25), "score": 0.5}),
    ("info depth 3 utilities 0 1 0 nodes 9 pv 1:1 2:2", 2, {"depth": 3, "utilities": (0.0, 1.0, 0.0), "score": 0.0,
                                                           "nodes": 9, "pv": ["1:1", "2:2"]}),
    ("info score 1 utilities 1 0 0", 0, {"score": 1.0, "utilities": (1.0, 0.0, 0.0)}),
    ("info utilities 0 1 0 score 1.0000000001", 1, {"score": 1.0000000001, "utilities": (0.0, 1.0, 0.0)}),
    ("info utilities -1e-12 1 0", 0, {"score": -1e-12, "utilities": (-1e-12, 1.0, 0.0)}),  # within the bounds' slack
    ("info pv 1:1 utilities 1 0 0", 0, {"pv": ["1:1", "utilities", "1", "0", "0"]}),  # pv takes the rest
])
def test_an_info_line_with_utilities_is_read(line, seat, info):
    out = {}
    read_info(line, out, NIM3, seat)
    assert out == info


@pytest.mark.parametrize("line, error", [
    ("info utilities 0.5 0.5", "2 numbers for the 3 seats of nim"),
    ("info utilities", "0 numbers for the 3 seats of nim"),
    ("info utilities 0 0 1 1 pv 1:1", "4 numbers for the 3 seats of nim"),
    ("info utilities 0 -0.5 1", "utility '-0.5' of seat 1 is outside the game's bounds [0, 1]"),
    ("info utilities 0 0 inf", "utility 'inf' of seat 2 is not a finite number"),
    ("info score 0.5 utilities 0 0 1", "score 0.5 disagrees with utility 0.0 of its own seat 0"),
])
def test_bad_utilities_name_the_problem(line, error):
    with pytest.raises(BadUtilities, match=error.replace("[", r"\[").replace("]", r"\]")):
        read_info(line, {}, NIM3, 0)


def test_utilities_without_a_game_or_garbled_fields_around_them_are_unreadable():
    with pytest.raises(ValueError) as caught:
        read_info("info utilities 1 0", {})
    assert not isinstance(caught.value, BadUtilities)
    with pytest.raises(ValueError):
        read_info("info utilities 0 1 0 depth x", {}, NIM3, 0)


def test_the_arena_engine_handles_seats_and_general_sums_and_uci_stays_two_player():
    rolit = REGISTRY.game("rolit")
    assert {"players", "nonzero-sum", "chance"} <= ArenaEngine.handles
    assert ArenaEngine(cmd="x").unhandled(rolit) is None and ArenaEngine(cmd="x").unhandled(NIM3) is None
    assert "3 players" in UciBot(cmd="x").unhandled(NIM3)


# the example engine


@pytest.mark.processes
@pytest.mark.parametrize("spec, engines", [
    ("nim:players=3", (0,)), ("nim:players=3", (1,)), ("nim:players=3", (2,)), ("nim:players=3", (0, 1, 2)),
    ("nim:players=4,heaps=3,4,5,6", (1, 3)), ("nim:players=4,heaps=2,7,1,5", (0, 1, 2, 3)),
    ("nim:players=5,heaps=6,6,6", (4,)),
])
def test_the_example_engine_plays_whole_games_of_n_seats(spec, engines):
    game = REGISTRY.game(spec)
    n = game.model.players
    bots = [example() if seat in engines else REGISTRY.bot("random") for seat in range(n)]
    try:
        for seed in range(2):
            record = play_game(game, bots, budgets=[Budget(nodes=300)] * n, seed=seed)
            assert record.termination is Termination.NORMAL, record.message  # every move legal
            assert sorted(record.utilities) == [0.0] * (n - 1) + [1.0]
            ours = [m for m in record.moves if m.player in engines]
            assert {m.player for m in ours} == set(engines)
            for m in ours:
                assert m.reported and 1 <= m.nodes <= 300 and not m.over_budget
                assert 0 <= m.score <= 1 and m.pv[0] == m.move and m.depth >= 1
    finally:
        for bot in bots:
            if isinstance(bot, ArenaEngine):
                bot.close()


@pytest.mark.processes
def test_the_example_engine_takes_the_last_heap_and_plays_two_seats_by_bouton():
    bots = [example(), REGISTRY.bot("random"), REGISTRY.bot("random")]
    game = REGISTRY.game("nim:players=3,heaps=0,0,4")
    record = play_game(game, bots, budgets=[Budget(nodes=100)] * 3)
    assert record.moves[0].move == "3:4" and record.utilities == (1.0, 0.0, 0.0) and record.moves[0].score == 1.0
    two = REGISTRY.game("nim")  # 3 ^ 4 ^ 5 = 2: the first player wins, taking 2 from the first heap
    record = play_game(two, [bots[0], REGISTRY.bot("random")], budgets=[Budget(nodes=2000)] * 2, seed=4)
    bots[0].close()
    assert record.termination is Termination.NORMAL and record.moves[0].move == "1:2" and record.utilities == (1, -1)


@pytest.mark.processes
def test_the_example_engine_refuses_other_games():
    why = example().suitable(REGISTRY.game("rolit"))
    assert why == "crashed: cannot play rolit: this engine plays nim, not 'rolit'"


@pytest.mark.processes
def test_a_three_seat_tournament_with_the_example_engine(tmp_path, capsys):
    db = tmp_path / "seats.db"
    code = main(["run", "--game", "nim:players=3", "--bot", f"e=engine:cmd={sys.executable} {NIM_MULTI}",
                 "--bot", "random", "--bot", "greedy", "--budget", "nodes=500", "--games", "2", "--openings", "0",
                 "--jobs", "1", "--no-progress", "--db", str(db)])
    out, err = capsys.readouterr()
    assert code == 0, err
    games, moves = results.load(db)
    assert len(games) == 6 and (games.termination.astype(str) == "normal").all(), games[["termination", "message"]]
    ours = moves[moves.bot == "e"]
    assert set(ours.player) == {0, 1, 2}  # it sat in every seat
    assert (ours.reported == 1).all() and (ours.nodes <= 500).all() and (ours.over_budget == 0).all()
    assert ours.score.between(0, 1).all() and not ours.score.map(math.isnan).any()
    assert "e " in out
