"""OpenSpiel's games as arena games: discovery, conformance, bots, and differential checks."""

import json
import pickle
import re
import random
import subprocess
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'botarena[openspiel]')")

from arena import Budget, IllegalMoveError, ParameterError, get_registry  # noqa: E402
from arena.front.cli import main  # noqa: E402
from arena.referee import ask  # noqa: E402
from arena.testing import check_game, random_playout  # noqa: E402
from bots.alphabeta import AlphaBetaBot  # noqa: E402
from bots.minimax import MinimaxBot  # noqa: E402
from games import openspiel  # noqa: E402

REGISTRY = get_registry(entry_points=False)
# Its games of perfect information without simultaneous moves (the others: test_openspiel_hidden.py).
NAMES = sorted(n for n, e in REGISTRY.games.items() if e.plugin == "games.openspiel" and not e.cls.model.imperfect)
# The two-player, sequential, deterministic, perfect-information, zero-sum games of
# open-spiel 2.0.2 (pyspiel.registered_games() and each game's GameType).
EXPECTED = {
    "amazons", "antichess", "breakthrough", "checkers", "chess", "chinese_checkers", "clobber", "connect_four",
    "crazyhouse", "cursor_go", "dots_and_boxes", "go", "gomoku", "havannah", "hex", "hive", "lines_of_action",
    "mancala", "mnk", "nim", "nine_mens_morris", "othello", "oware", "pentago", "quoridor", "shogi",
    "tic_tac_toe", "twixt", "ultimate_tic_tac_toe", "xiangqi", "y",
}
# Its two-player, sequential, perfect-information, zero-sum games with chance nodes that list
# their outcomes' probabilities (explicit stochastic).
CHANCE_GAMES = {"backgammon", "banqi", "einstein_wurfelt_nicht", "maedn", "pig", "yacht"}
# Games whose random playouts run to hundreds of plies, or whose plies are slow: fewer playouts.
LONG = {"chess", "antichess", "crazyhouse", "shogi", "xiangqi", "hive", "chinese_checkers", "go", "mnk",
        "lines_of_action", "amazons", "quoridor", "gomoku", "y", "havannah", "checkers", "oware", "cursor_go",
        "yacht"}  # yacht: not long, but each roll of five dice is a chance node of 7,776 outcomes, each checked
SLOWEST = {"hive", "yacht"}  # one playout each (hive: 2.5 s a playout; yacht: 9 s, its rolls 7,776 outcomes each)
# chance games of a few hundred plies (0.2 s a playout): 2 playouts, each hundreds of chance nodes
CHANCE_LONG = {"backgammon", "banqi", "maedn"}
BOTS = ["random", "greedy", "minimax", "alphabeta", "iterative", "solver", "mcts", "expectimax", "star1", "star2"]


def short(name):
    return name.removeprefix(openspiel.PREFIX)


def test_every_suitable_game_is_found_from_its_type():
    assert len(NAMES) == 37
    assert {short(n) for n in NAMES} == EXPECTED | CHANCE_GAMES
    found = {t.short_name for t in pyspiel.registered_games() if openspiel.suitable(t) and not openspiel.imperfect(t)}
    assert found == EXPECTED | CHANCE_GAMES
    assert "openspiel.kuhn_poker" in REGISTRY.games and "kuhn_poker" not in found  # imperfect information
    assert {short(n) for n in NAMES if REGISTRY.game(n).model.chance} == CHANCE_GAMES


def test_names_work_in_specs_and_never_clash_with_the_built_ins():
    builtin = {n for n, e in REGISTRY.games.items() if e.plugin == "games.builtin"}
    assert "nim" in builtin and "openspiel.nim" in NAMES
    game = REGISTRY.game("openspiel.nim:pile_sizes=2;3,is_misere=false")
    assert game.params == {"is_misere": False, "pile_sizes": "2;3"}
    assert game.spec == "openspiel.nim:is_misere=false,pile_sizes=2;3"
    assert REGISTRY.game(game.spec).params == game.params


def test_parameters_are_typed_and_defaulted_from_openspiel(capsys):
    assert main(["games", "--json"]) == 0
    listed = {g["name"]: g for g in json.loads(capsys.readouterr().out)}
    go = {p["name"]: p for p in listed["openspiel.go"]["parameters"]}
    assert go["board_size"]["type"] == "int" and go["board_size"]["default"] == 19
    assert go["komi"]["type"] == "float" and go["komi"]["default"] == 7.5
    assert listed["openspiel.chess"]["parameters"][0]["type"] == "bool"
    assert "players" not in {p["name"] for p in listed["openspiel.hex"]["parameters"]}  # two seats only
    seats = {p["name"]: p for p in listed["openspiel.quoridor"]["parameters"]}["players"]  # 2 or 4
    assert seats["type"] == "int" and seats["default"] == 2
    game = REGISTRY.game("openspiel.breakthrough:rows=6,columns=5")
    assert len(game.spiel.new_initial_state().observation_string(0).splitlines()) >= 6
    assert game.spiel.get_parameters()["rows"] == 6


@pytest.mark.parametrize(
    "spec, message",
    [
        ("openspiel.go:komi=lots", "bad value 'lots' for parameter 'komi'"),
        ("openspiel.hex:size=3", "unknown parameter 'size'"),
        ("openspiel.nim:pile_sizes=a;b", "bad parameters pile_sizes=a;b for game 'openspiel.nim'; OpenSpiel says"),
        ("openspiel.hex:board_size=0", "bad parameters board_size=0 for game 'openspiel.hex'; OpenSpiel says"),
        ("openspiel.chess:chess960=true", "chess960=true make 'openspiel.chess' start with a chance move"),
    ],
)
def test_bad_parameters_are_one_line_errors(spec, message, capfd):
    with pytest.raises(ParameterError, match=message) as info:
        REGISTRY.game(spec)
    assert "\n" not in str(info.value)
    assert capfd.readouterr() == ("", "")  # OpenSpiel's own message is not printed as well


def conformance_param(name):
    if short(name) == "yacht":
        return pytest.param(name, marks=pytest.mark.slow(reason="yacht's every roll is a chance node of 7,776 outcomes, each checked"))
    if short(name) in LONG:  # and each position's pickle replays the game to it
        return pytest.param(name, marks=pytest.mark.slow(reason="random playouts of hundreds of plies"))
    return name


@pytest.mark.parametrize("name", [conformance_param(n) for n in NAMES])
def test_conformance(name):
    # Long games: 2 random playouts of at most 5,000 plies each (the slowest 1); others 8.
    game = REGISTRY.game(name)
    playouts = 1 if short(name) in SLOWEST else 2 if short(name) in LONG | CHANCE_LONG else 8
    report = check_game(game, playouts=playouts, max_plies=5_000)
    assert report.positions > 0
    state = game.initial_state()
    assert pickle.loads(pickle.dumps(game)).spec == game.spec
    assert pickle.loads(pickle.dumps(state)) == state


@pytest.mark.parametrize("name", NAMES)
def test_every_bot_moves_legally_within_a_small_budget(name):
    game = REGISTRY.game(name)
    rng = random.Random(5)
    moves = random_playout(game, rng, max_plies=5_000)
    cut = min(10, len(moves) - 1)
    while game.to_move(game.play(moves[:cut])) < 0:  # a chance node: back to a player's move
        cut -= 1
    state = game.play(moves[:cut])
    for spec in BOTS:
        bot = REGISTRY.bot(spec)
        if bot.suitable(game):  # a search for games without chance, in a chance game: refused
            assert game.model.chance and "plays games without chance" in bot.suitable(game)
            continue
        bot.new_game(game, game.to_move(state), 7)
        answer, counter = ask(bot, game, state, Budget(nodes=60))  # counted as the arena counts
        move = getattr(answer, "move", answer)
        assert move in game.legal_moves(state), f"{spec} in {name}"
        assert counter.nodes <= 60


def random_walk(game, rng, plies):
    """Moves of a random game, cut after ``plies``."""
    state, moves = game.initial_state(), []
    while not game.is_terminal(state) and len(moves) < plies:
        moves.append(rng.choice(game.legal_moves(state)))
        state = game.apply(state, moves[-1])
    return moves


@pytest.mark.parametrize("name", sorted(openspiel.POSITION_KEYED))
def test_equal_states_have_the_same_future(name):
    # The position key's claim: where swapped move orders give equal states, the same
    # continuation gives the same legal moves, end and result from both.
    game = REGISTRY.game(openspiel.PREFIX + name)
    rng = random.Random(11)
    compared = 0
    for _ in range(3):
        moves = random_walk(game, rng, 300)
        for i in range(0, len(moves) - 3, max(1, len(moves) // 12)):
            a = game.play(moves[: i + 3])
            try:
                b = game.play(moves[:i] + [moves[i + 2], moves[i + 1], moves[i]])
            except IllegalMoveError:
                continue
            if a != b:
                continue
            compared += 1
            for move in moves[i + 3 :]:
                assert game.legal_moves(a) == game.legal_moves(b)
                a, b = game.apply(a, move), game.apply(b, move)
                assert a == b
            assert game.utility(a, 0) == game.utility(b, 0)
    assert compared > 0


def test_go_keeps_the_history_two_passes_end_it():
    # Same stones, same player to move, same move number: only the order of the passes
    # differs, and with two passes in a row the game is over. A picture cannot tell them apart.
    game = REGISTRY.game("openspiel.go:board_size=5")
    going = game.play(["PASS", "d4", "d5", "PASS"])
    over = game.play(["d5", "d4", "PASS", "PASS"])
    assert str(going.state).splitlines()[1:] == str(over.state).splitlines()[1:]
    assert game.to_move(going) == game.to_move(over)
    assert not game.is_terminal(going) and game.is_terminal(over)
    assert going != over and game.render(going) != game.render(over)


def test_a_swap_rule_turns_the_placement_key_into_the_picture():
    assert REGISTRY.game("openspiel.hex").state_class is openspiel.PlacementState
    assert REGISTRY.game("openspiel.hex:swap=true").state_class is openspiel.PositionState
    assert REGISTRY.game("openspiel.havannah:swap=true").state_class is openspiel.MarkedState
    game = REGISTRY.game("openspiel.hex:swap=true,board_size=5")
    assert game.play(["a1", "b2", "c3"]) == game.play(["c3", "b2", "a1"])
    restored = pickle.loads(pickle.dumps(REGISTRY.game("openspiel.hex").play(["a1", "b2", "c3"])))
    assert restored == REGISTRY.game("openspiel.hex").play(["c3", "b2", "a1"])


def test_tictactoe_positions_are_counted_once_whatever_the_move_order():
    # 5,478 reachable positions, the empty board and 958 terminal ones included (rotations
    # and reflections counted apart): Mark Dominus's exhaustive count, Mathematics Stack
    # Exchange, "TicTacToe State Space Choose Calculation" (question 469371).
    game = REGISTRY.game("openspiel.tic_tac_toe")
    seen = {game.initial_state()}
    frontier = list(seen)
    while frontier:
        state = frontier.pop()
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    assert len(seen) == 5_478
    assert sum(game.is_terminal(s) for s in seen) == 958


@pytest.mark.slow(reason="the whole game tree of tic-tac-toe (549,946 nodes) searched through OpenSpiel")
def test_tictactoe_search_visits_exactly_the_built_in_games_nodes():
    # 549,946 nodes in the complete game tree (Henry Bottomley,
    # http://www.se16.info/hgb/tictactoe.htm); 18,297 for plain alpha-beta, full window,
    # moves 0..8 (OpenSpiel's python alpha_beta_search, as in tests/test_search.py).
    game = REGISTRY.game("openspiel.tic_tac_toe")
    for bot, expected in (
        (MinimaxBot(depth=None), 549_946),
        (AlphaBetaBot(depth=None, ordering=False, table=False, window="infinite"), 18_297),
    ):
        decision, counter = ask(bot, game, game.initial_state())  # the root and every apply
        assert decision.score == 0
        assert counter.nodes == expected


def mirror(ours, theirs, seed, games, to_theirs):
    """Random games played in both implementations: the same legal moves, turns and results."""
    rng = random.Random(seed)
    for _ in range(games):
        a, b = ours.initial_state(), theirs.initial_state()
        while not ours.is_terminal(a):
            assert not theirs.is_terminal(b)
            legal = ours.legal_moves(a)
            assert sorted(to_theirs(m) for m in legal) == sorted(theirs.legal_moves(b))
            assert ours.to_move(a) == theirs.to_move(b)
            move = rng.choice(legal)
            a, b = ours.apply(a, move), theirs.apply(b, to_theirs(move))
        assert theirs.is_terminal(b)
        assert ours.utility(a, 0) == theirs.utility(b, 0) and ours.utility(a, 1) == theirs.utility(b, 1)


def test_connect_four_and_tictactoe_agree_with_the_built_ins():
    # both number columns (Connect Four) and cells (row-major from the top-left) alike
    mirror(REGISTRY.game("openspiel.connect_four"), REGISTRY.game("connect4"), 1, 200, int)
    mirror(REGISTRY.game("openspiel.tic_tac_toe"), REGISTRY.game("tictactoe"), 2, 300, int)


def test_othello_agrees_with_the_built_in():
    ours, theirs = REGISTRY.game("openspiel.othello"), REGISTRY.game("othello")
    # the same coordinates: a column letter and a row number from the top; a pass is 'pass'
    mirror(ours, theirs, 3, 60, lambda m: theirs.parse_move(ours.format_move(m)))


@pytest.mark.parametrize("name", sorted(openspiel.STATE_FREE_TEXTS))
def test_openspiel_move_strings_read_back(name):
    # The claim behind the text table: a move's string depends on the action and the player
    # only, so parse_move reads the mover's string (and the number) without a position.
    game = REGISTRY.game(openspiel.PREFIX + name)
    rng = random.Random(4)
    for _ in range(2):
        state = game.initial_state()
        while not game.is_terminal(state) and state.state.move_number() < 150:
            player = game.to_move(state)
            for move in game.legal_moves(state):
                text = game.format_move(move)
                assert text and not any(c.isspace() for c in text)
                assert game.parse_move(state.state.action_to_string(player, move)) == move
                assert game.parse_move(str(move)) == move == game.parse_move(text)
            state = game.apply(state, rng.choice(game.legal_moves(state)))


def test_readable_texts():
    ttt, go = REGISTRY.game("openspiel.tic_tac_toe"), REGISTRY.game("openspiel.go:board_size=9")
    assert [ttt.format_move(m) for m in (0, 4, 8)] == ["(0,0)", "(1,1)", "(2,2)"]
    assert ttt.parse_move("x(1,1)") == ttt.parse_move("o(1,1)") == ttt.parse_move(" 4 ") == 4
    assert go.format_move(go.parse_move("d4")) == "d4" and go.format_move(81) == "PASS"
    assert REGISTRY.game("openspiel.hex").format_move(0) == "a1"
    chess = REGISTRY.game("openspiel.chess")
    assert chess.format_move(1234) == "1234"  # SAN depends on the position
    for bad in ("x(9,9)", "9", "-1", "", "d4 d5"):
        with pytest.raises(IllegalMoveError, match="openspiel.tic_tac_toe"):
            ttt.parse_move(bad)


def test_bounds_and_heuristic():
    margin = REGISTRY.game("openspiel.dots_and_boxes:utility_margin=true")
    assert margin.bounds == (-4, 4)
    assert REGISTRY.game("openspiel.chess").bounds == (-1, 1)
    state = margin.play([0, 1])
    assert margin.heuristic(state, 0) == margin.heuristic(state, 1) == 0


def test_states_are_never_changed_by_apply():
    game = REGISTRY.game("openspiel.connect_four")
    state = game.play([3, 3, 4])
    before = str(state.state)
    children = [game.apply(state, m) for m in game.legal_moves(state)]
    assert str(state.state) == before and len(set(children)) == 7
    assert game.legal_moves(state) == list(range(7))


@pytest.mark.processes
def test_a_tournament_with_isolated_bots_stores_readable_moves(tmp_path, capsys):
    db = str(tmp_path / "os.db")
    argv = ["run", "--game", "openspiel.hex:board_size=4", "--bot", "random", "--bot", "mcts", "--budget",
            "nodes=300", "--games", "2", "--openings", "1", "--jobs", "1", "--no-progress", "--db", db]
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["show", db, "1"]) == 0
    out = capsys.readouterr().out
    plays = re.findall(r"\((?:random|mcts)\) plays (\S+)", out)  # "first (random) plays c3"
    assert plays and all(re.fullmatch(r"[a-d][1-4]", text) for text in plays)  # hex's own cell names
    assert re.search(r"result .* (first|second) wins", out)


@pytest.mark.processes
def test_without_open_spiel_nothing_changes_and_nothing_is_printed():
    code = (
        "import sys; sys.modules['pyspiel'] = None\n"
        "from arena.front.cli import main\n"
        "sys.exit(main(['games']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
    assert "connect4" in proc.stdout and "openspiel" not in proc.stdout


def test_native_pig_and_openspiels_pig_agree_on_the_same_outcomes():
    """Differential: the same decisions and the same faces in both rule books (OpenSpiel's
    'roll' is action 0, 'stop' 1, and the face f chance action f - 1) give the same player to
    move, legal moves, scores, end and result, ply by ply."""
    from games.pig import HOLD, ROLL, Pig

    rng = random.Random(3)
    for goal in (20, 100):
        native, spiel = Pig(goal=goal), REGISTRY.game(f"openspiel.pig:winscore={goal}")
        for _ in range(40):
            a, b = native.initial_state(), spiel.initial_state()
            while not native.is_terminal(a):
                assert not spiel.is_terminal(b)
                mover = native.to_move(a)
                assert spiel.to_move(b) == mover
                if mover < 0:
                    face = rng.randint(1, 6)
                    assert [p for _, p in spiel.chance_outcomes(b)] == pytest.approx([p for _, p in native.chance_outcomes(a)])
                    a, b = native.apply(a, face), spiel.apply(b, face - 1)
                    continue
                legal = native.legal_moves(a)
                assert [spiel.move_text(b, m) for m in spiel.legal_moves(b)] == ["roll" if m == ROLL else "stop" for m in legal]
                player, own, other, turn, _ = a
                scores = (own, other) if player == 0 else (other, own)
                assert f"Scores: {scores[0]} {scores[1]}, Turn total: {turn}" in str(b.state)
                move = rng.choice(legal) if len(legal) > 1 else HOLD
                a, b = native.apply(a, move), spiel.apply(b, 0 if move == ROLL else 1)
            assert spiel.is_terminal(b)
            assert native.utility(a, 0) == spiel.utility(b, 0)
