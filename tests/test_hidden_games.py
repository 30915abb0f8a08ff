"""The native games of simultaneous moves and hidden information (rps, goofspiel, kuhn_poker,
leduc_poker): their rules, cross-checks against OpenSpiel's, check_game's checks of such games,
and games through the referee, in process (trusted) and isolated."""

import random
import sqlite3
from collections import Counter
from fractions import Fraction

import pytest

from arena import CHANCE, JOINT, Bot, IllegalMoveError, ParameterError, Termination, View, get_registry, play_game
from arena.dice import Dice, seed_key
from arena.front.cli import main
from arena.testing import check_game
from arena.view import make_view
from games.goofspiel import Goofspiel
from games.kuhn import KuhnPoker
from games.leduc import LeducPoker
from games.rps import RockPaperScissors

REGISTRY = get_registry(entry_points=False)
GAMES = ("rps", "goofspiel", "kuhn_poker", "leduc_poker")
NO_OPENSPIEL = "OpenSpiel (pyspiel) is not installed: the cross-checks against its games need it"


class FirstLegal(Bot):
    """Plays the first of its legal moves, and checks what it is handed."""

    name = "first-legal"
    handles = frozenset({"chance", "simultaneous", "hidden"})

    def choose(self, game, view, budget):
        assert isinstance(view, View) and view.legal
        assert (view.state is None) == game.model.hidden  # the state only where nothing is hidden
        return view.legal[0]


class Drawn(FirstLegal):
    """Plays a seeded random legal move."""

    name = "drawn"

    def choose(self, game, view, budget):
        return view.legal[self.rng.randrange(len(view.legal))]


# -- rules -------------------------------------------------------------------------------------


def test_rps_scores_the_match_by_throws_won_and_the_margin():
    game = RockPaperScissors(throws=3)
    assert game.model.simultaneous and not game.model.hidden and game.to_move("") == JOINT
    assert game.acting("") == (0, 1) and game.legal_moves_for("", 1) == ("R", "P", "S")
    beats = {("R", "S"), ("P", "R"), ("S", "P")}
    for a in "RPS":
        for b in "RPS":
            one = RockPaperScissors(throws=1)
            assert one.utility(one.play([a, b]), 0) == (1 if (a, b) in beats else -1 if (b, a) in beats else 0)
    level = game.play(["R", "S", "P", "P", "S", "R"])  # won, drawn, lost
    assert game.is_terminal(level) and game.utilities(level) == (0, 0) and game.legal_moves_for(level, 0) == ()
    ahead = game.play(["R", "S", "R", "S", "P", "P"])
    assert game.utilities(ahead) == (1, -1) and game.result_text(ahead) == "first wins, 2-0 in throws (1 drawn)"
    assert game.render(ahead).endswith("first  RRP\nsecond SSP")
    narrow = RockPaperScissors(throws=3, margin=3)
    assert narrow.utilities(ahead) == (0, 0) and "below the margin of 3" in narrow.result_text(ahead)
    assert game.parse_move("rock") == "R" and game.parse_move("s") == "S"
    with pytest.raises(IllegalMoveError, match="R, P or S"):
        game.parse_move("lizard")
    with pytest.raises(ParameterError, match="margin"):
        RockPaperScissors(throws=3, margin=4)


def test_goofspiel_awards_each_prize_to_the_higher_bid_and_plays_the_forced_last_turn():
    game = Goofspiel(cards=3, order="descending")
    assert not game.model.chance and game.to_move(game.initial_state()) == JOINT
    # prize 3: 3 beats 1; prize 2: 2 beats 1; the last turn is forced: prize 1, 2 against 3
    end = game.play(["3", "1", "1", "2"])
    assert game.is_terminal(end) and end[4:] == (3, 3) and game.utilities(end) == (0, 0)
    tie = game.play(["2", "2"])  # equal bids discard the prize
    assert tie[4:] == (0, 0) and game.legal_moves_for(tie, 0) == (1, 3)
    drawn = Goofspiel(cards=4)
    start = drawn.initial_state()
    assert drawn.to_move(start) == CHANCE and drawn.chance_outcomes(start) == [(v, 0.25) for v in (1, 2, 3, 4)]
    assert drawn.chance_seat(start, 1) == 0  # the prizes from seat 0's stream, whoever bid last
    assert drawn.play([4, 4, 1]) == (0, 0b01110, 0b11100, 0b01110, 4, 0)  # hands and prizes left as bit sets
    # 4 to first (4 against 1), 3 to first (3 against 2), 2 to second (1 against 3), forced: 1 to second (2 against 4)
    assert drawn.result_text(drawn.play([4, 4, 1, 3, 3, 2, 2, 1, 3])) == "first wins, 7-3 in points"


def test_kuhn_poker_deals_from_the_receiving_seat_and_shows_each_seat_its_own_card():
    game = KuhnPoker()
    assert game.chance_seat("", 1) == 0 and game.chance_seat("K", 0) == 1
    state = game.play(["K", "Q", "p", "b"])
    assert game.to_move(state) == 0 and game.legal_moves(state) == ("p", "b")
    assert game.information_key(state, 0) == ("K", "pb") and game.information_key(state, 1) == ("Q", "pb")
    mine = game.observation(state, 0)
    assert "hold K" in mine and "Q" not in mine and "first checks, second bets" in mine
    assert [game.public_text(s, m) for s, m in (("", "K"), ("K", "Q"), ("KQ", "p"))] == ["?", "?", "p"]
    assert game.utilities(game.apply(state, "p")) == (-1, 1) and game.utilities(game.apply(state, "b")) == (2, -2)
    called = game.apply(state, "b")
    assert "Showdown: first holds K" in game.observation(called, 1) and game.information_key(called, 1) == ("Q", "pbb", "K")
    assert game.result_text(called) == "first wins 2: second shows Q against K"
    assert game.parse_move("bet") == "b" and game.parse_move("j") == "J"


def test_kuhn_poker_is_worth_minus_one_eighteenth_to_the_first_seat_at_an_equilibrium():
    # Kuhn (1950): with seat 0's bluffing parameter alpha = 0 seat 0 always checks first, calls a
    # bet with Q a third of the time; seat 1 bets J a third of the time after a check, calls with
    # Q a third of the time; K always bets or calls, J never calls. The value is -1/18.
    third = Fraction(1, 3)
    bet = {("J", ""): 0, ("Q", ""): 0, ("K", ""): 0, ("J", "pb"): 0, ("Q", "pb"): third, ("K", "pb"): 1,
           ("J", "b"): 0, ("Q", "b"): third, ("K", "b"): 1, ("J", "p"): third, ("Q", "p"): 0, ("K", "p"): 1}
    game = KuhnPoker()

    def value(state):
        if game.is_terminal(state):
            return Fraction(game.utility(state, 0))
        if game.to_move(state) == CHANCE:
            return sum(Fraction(p).limit_denominator(6) * value(game.apply(state, c)) for c, p in game.chance_outcomes(state))
        b = bet[game.information_key(state, game.to_move(state))]
        return b * value(game.apply(state, "b")) + (1 - b) * value(game.apply(state, "p"))

    assert value(game.initial_state()) == Fraction(-1, 18)


def test_leduc_poker_pays_pairs_raises_and_folds_as_the_rules_say():
    game = LeducPoker()
    assert game.legal_moves(((0, 5), "", "")) == ("c", "r")
    assert game.legal_moves(((0, 5), "r", "")) == ("f", "c", "r") and game.legal_moves(((0, 5), "rr", "")) == ("f", "c")
    assert game.to_move(((0, 5), "cc", "")) == CHANCE and game.to_move(((0, 5, 1), "cc", "c")) == 1
    assert game.utilities(((0, 5, 1), "cc", "cc")) == (1, -1)  # Js pairs the public Jh: it beats Kh
    assert game.utilities(((2, 5, 0), "rrc", "rrc")) == (-13, 13)  # 1 + 2 raises of 2 + 2 of 4: the most at stake
    assert game.utilities(((2, 3, 0), "cc", "cc")) == (0, 0)  # equal ranks split the pot
    assert game.utilities(((4, 0), "rf", "")) == (1, -1) and game.utilities(((4, 0, 1), "cc", "crf")) == (-1, 1)
    assert game.utilities(((4, 0, 1), "cc", "rf")) == (1, -1)
    assert game.utilities(((4, 0, 1), "rc", "rrf")) == (-7, 7)  # seat 0 folds having put in 7: 3 in the first round, 4 more
    seen = ((4, 1, 3), "rc", "c")
    assert game.information_key(seen, 1) == ("Jh", "Qh", "rc", "c")
    assert game.public_text(((4,), "", ""), 1) == "?" and game.public_text(((4, 1), "rc", ""), 3) == "Qh"
    assert game.observation(seen, 1).splitlines()[:3] == [
        "You are second and hold Jh.", "Public card: Qh.", "Round 1: first bets, second calls."]
    assert game.parse_move("Kh") == 5 and game.format_move(5) == "Kh" and game.parse_move("check") == "c"


@pytest.mark.parametrize("game, view_state, seat, history, cards", [
    (KuhnPoker(), "JQp", 1, ("?", "?", "p"), {"JQp", "KQp"}),
    (LeducPoker(), ((4, 1, 3), "rc", "c"), 0, ("?", "?", "r", "c", "Qh", "c"),
     {((4, c, 3), "rc", "c") for c in (0, 1, 2, 5)}),
], ids=["kuhn_poker", "leduc_poker"])
def test_sample_state_draws_the_hidden_card_uniformly_among_those_left(game, view_state, seat, history, cards):
    view = make_view(game, view_state, seat, history)
    rng = random.Random(7)
    drawn = Counter(game.sample_state(view, rng) for _ in range(4000))
    assert set(drawn) == cards
    expected = 4000 / len(cards)
    spread = (4000 * (1 / len(cards)) * (1 - 1 / len(cards))) ** 0.5
    assert all(abs(n - expected) < 4 * spread for n in drawn.values()), drawn  # 4 standard deviations


# -- against OpenSpiel ---------------------------------------------------------------------------

def _lockstep(game, theirs, state, outcome, move, found):
    """Walk OpenSpiel's tree and ours together: the same nodes, moves and returns everywhere;
    ``found`` counts terminals and decisions and collects (seat, our information key, OpenSpiel's
    information state) at decisions."""
    if theirs.is_terminal():
        assert game.is_terminal(state) and game.utilities(state) == tuple(theirs.returns()), state
        found["terminals"] += 1
        return
    assert not game.is_terminal(state)
    if theirs.is_chance_node():
        ours = game.chance_outcomes(state)
        assert [(outcome(a), p) for a, p in theirs.chance_outcomes()] == [(o, pytest.approx(p)) for o, p in ours]
        for a, _ in theirs.chance_outcomes():
            _lockstep(game, theirs.child(a), game.apply(state, outcome(a)), outcome, move, found)
        return
    seat = theirs.current_player()
    assert game.to_move(state) == seat and tuple(move(a) for a in theirs.legal_actions()) == game.legal_moves(state)
    found["pairs"].add((seat, game.information_key(state, seat), theirs.information_state_string(seat)))
    found["decisions"] += 1
    for a in theirs.legal_actions():
        _lockstep(game, theirs.child(a), game.apply(state, move(a)), outcome, move, found)


@pytest.mark.parametrize("game, outcome, move, decisions, terminals, infosets", [
    # OpenSpiel's kuhn_poker: cards 0-2 J-K, actions 0 pass 1 bet; leduc_poker: cards 0-5, actions 0 fold 1 call 2 raise.
    # The counts are OpenSpiel 2.0.2's, walked here: 12 information states in Kuhn, 936 in Leduc (468 a seat).
    (KuhnPoker(), "JQK".__getitem__, "pb".__getitem__, 24, 30, 12),
    (LeducPoker(), int, "fcr".__getitem__, 3780, 5520, 936),
], ids=["kuhn_poker", "leduc_poker"])
def test_every_deal_and_line_of_the_poker_games_pays_as_in_openspiel(game, outcome, move, decisions, terminals, infosets):
    pyspiel = pytest.importorskip("pyspiel", reason=NO_OPENSPIEL)
    found = {"pairs": set(), "terminals": 0, "decisions": 0}
    _lockstep(game, pyspiel.load_game(game.name).new_initial_state(), game.initial_state(), outcome, move, found)
    pairs = found["pairs"]
    assert found["terminals"] == terminals and found["decisions"] == decisions
    # our keys and OpenSpiel's information states name the same sets of states: one to one
    assert len(pairs) == len({(s, k) for s, k, _ in pairs}) == len({(s, i) for s, _, i in pairs}) == infosets
    assert sum(1 for s, _, _ in pairs if s == 0) == infosets // 2


@pytest.mark.parametrize("cards, order, playouts", [(13, "random", 200), (4, "random", 200), (6, "descending", 50),
                                                     (5, "ascending", 50)])
def test_goofspiel_plays_as_openspiels_on_random_playouts(cards, order, playouts):
    pyspiel = pytest.importorskip("pyspiel", reason=NO_OPENSPIEL)
    theirs_game = pyspiel.load_game("goofspiel", {"num_cards": cards, "points_order": order})
    game = Goofspiel(cards=cards, order=order)
    rng = random.Random(cards)
    for _ in range(playouts):
        theirs, state = theirs_game.new_initial_state(), game.initial_state()
        while not theirs.is_terminal():
            if theirs.is_chance_node():  # OpenSpiel's card a is worth a + 1
                assert [(a + 1, p) for a, p in theirs.chance_outcomes()] == game.chance_outcomes(state)
                a = rng.choice(theirs.chance_outcomes())[0]
                theirs.apply_action(a)
                state = game.apply(state, a + 1)
            else:
                assert game.to_move(state) == JOINT
                legal = [theirs.legal_actions(seat) for seat in (0, 1)]
                assert [[a + 1 for a in moves] for moves in legal] == [list(game.legal_moves_for(state, s)) for s in (0, 1)]
                joint = [rng.choice(moves) for moves in legal]
                theirs.apply_actions(joint)
                state = game.apply_joint(state, tuple(a + 1 for a in joint))
        assert game.is_terminal(state) and game.utilities(state) == tuple(theirs.returns())
        assert f"Points: {state[4]} {state[5]} " in str(theirs)


# -- check_game ----------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", [*GAMES, "goofspiel:order=ascending,cards=5", "rps:throws=7,margin=2"])
def test_check_game_passes_on_the_games_and_looks_at_what_seats_are_handed(spec):
    game = REGISTRY.game(spec)
    report = check_game(game, playouts=8)
    assert report.positions > 0 and report.views > 0 and report.samples == 2 * report.views
    assert (report.sampling is not None) == game.model.chance
    if game.model.simultaneous:  # bids or throws of one seat swapped between turns
        assert report.transpositions > 0


class PeekingSampler(KuhnPoker):
    def sample_state(self, view, rng):  # deals the seat a card of its own choosing
        state = super().sample_state(view, rng)
        return "K" + state[1:] if view.seat == 0 else state


class Stuck(RockPaperScissors):
    def legal_moves_for(self, state, seat):
        return () if seat == 1 and len(state) == 4 else super().legal_moves_for(state, seat)


class Positional(KuhnPoker):
    def move_text(self, state, move):
        return move


class Wordy(LeducPoker):
    def observation(self, state, seat):
        return "x" * 70_000


class Lists(KuhnPoker):
    def information_key(self, state, seat):
        return list(super().information_key(state, seat))


class Bidders(Goofspiel):
    """Keeps the last bids in the state, though its picture does not show them."""

    def apply_joint(self, state, moves):
        return super().apply_joint(state[:6], moves)[:6] + (moves,)

    def apply(self, state, move):
        return super().apply(state[:6], move) + state[6:]

    def render(self, state):
        return super().render(state[:6])


@pytest.mark.parametrize("game, message", [
    (PeekingSampler(), "sample_state for seat 0 gave .* whose information key"),
    (Stuck(throws=3), "seat 1 acts with no legal moves after moves [RPS] [RPS] [RPS] [RPS]$"),
    (Positional(), "hides information but writes moves by position"),
    (Wordy(), "observation of seat 0 is 70,000 characters"),
    (Lists(), "information_key of seat 0: key .* is not hashable"),
    (Bidders(cards=5), "with seat [01]'s moves at plies [0-9]+ and [0-9]+ swapped show the same position but give "
                       "unequal states"),
], ids=["sample_state", "no-legal-moves", "move_text", "observation-size", "unhashable-key", "joint-transposition"])
def test_check_game_catches_a_game_that_breaks_a_promise_of_views_or_joint_moves(game, message):
    with pytest.raises(AssertionError, match=message):
        check_game(game, playouts=8)


# -- through the referee -------------------------------------------------------------------------

@pytest.mark.parametrize("name", GAMES)
def test_a_game_played_in_process_replays_from_its_record(name):
    game = REGISTRY.game(name)
    with pytest.raises(ParameterError, match="trusted"):
        play_game(game, [FirstLegal(), Drawn()])
    record = play_game(game, [FirstLegal(), Drawn()], seed=3, trusted=True)
    assert record.termination == Termination.NORMAL
    assert [m.ply for m in record.moves] == list(range(len(record.moves)))
    if game.model.simultaneous:  # a joint move: one record per seat, seat 0's first
        seats = [m.player for m in record.moves if m.player >= 0]
        assert seats == [0, 1] * (len(seats) // 2)
    end = game.play([m.move for m in record.moves])
    assert game.is_terminal(end) and game.utilities(end) == tuple(record.utilities)


class Caller(FirstLegal):
    """Checks or calls where it can (else plays its first legal move): never folds, never raises."""

    name = "caller"

    def choose(self, game, view, budget):
        return next((m for m in ("c", "p") if m in view.legal), view.legal[0])


class Raiser(FirstLegal):
    """Raises or bets where it can (else calls, else plays its last legal move)."""

    name = "raiser"

    def choose(self, game, view, budget):
        return next((m for m in ("r", "b", "c") if m in view.legal), view.legal[-1])


@pytest.mark.parametrize("game, chance_plies", [(KuhnPoker(), 2), (LeducPoker(), 3), (Goofspiel(cards=6), 5)],
                         ids=["kuhn_poker", "leduc_poker", "goofspiel"])
def test_a_pair_of_games_with_seats_swapped_deals_the_same_cards_however_differently_it_is_played(game, chance_plies):
    for key in range(8):  # eight pairs: a card drawn from the wrong stream would match in all by luck 1 in 4^8
        dice = Dice(seed_key(key), "pair")  # one pair's streams, as a tournament shares them
        first = play_game(game, [Caller(), Raiser()], seed=1, dice=dice, trusted=True)
        second = play_game(game, [Raiser(), Caller()], seed=2, dice=dice, trusted=True)
        assert [m.move for m in first.moves] != [m.move for m in second.moves]
        deals = [[m.move for m in r.moves if m.player == CHANCE] for r in (first, second)]
        assert deals[0] == deals[1] and len(deals[0]) == chance_plies, key


@pytest.mark.processes
def test_kuhn_poker_runs_isolated_through_arena_run_and_its_stored_games_replay(tmp_path, capsys):
    db = tmp_path / "kuhn.db"
    code = main(["run", "--game", "kuhn_poker", "--bot", "uniform", "--bot", "other=uniform", "--games", "2",
                 "--openings", "0", "--jobs", "1", "--no-progress", "--db", str(db)])
    assert code == 0, capsys.readouterr().err
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT game_id, player, move FROM moves ORDER BY game_id, ply").fetchall()
        scores = dict(con.execute("SELECT game_id, score_first FROM games").fetchall())
    games = {}
    for game_id, player, move in rows:
        games.setdefault(game_id, []).append((player, move))
    assert len(games) == 2
    game = KuhnPoker()
    for game_id, plies in games.items():
        end = game.play([move for _, move in plies])
        assert game.is_terminal(end) and [p for p, _ in plies[:2]] == [CHANCE, CHANCE]
        assert scores[game_id] == (1.0 if game.utility(end, 0) > 0 else 0.0)  # Kuhn poker has no draws
    first, second = games.values()
    assert first[:2] == second[:2]  # the seats swapped, the deal the same
