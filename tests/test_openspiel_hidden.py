"""OpenSpiel's games of hidden information and of simultaneous moves through the adapter: which
load, random games through the referee against OpenSpiel's own returns, texts without a position,
what is public, Kuhn poker's information states, sampling, and a bot in a process of its own."""

import random
from collections import Counter

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'botarena[openspiel]')")

from arena import CHANCE, JOINT, Bot, Termination, View, get_registry, play_game  # noqa: E402
from arena.dice import Dice, seed_key  # noqa: E402
from arena.execution.isolation import HostPool, RemoteBot  # noqa: E402
from arena.testing import check_game  # noqa: E402
from arena.view import make_view  # noqa: E402
from games import openspiel  # noqa: E402
from games.openspiel_hidden import (  # noqa: E402
    CHANCE_BY_POSITION, EXCLUDED, MOVES_BY_POSITION, PUBLIC_ACTIONS, SAMPLED, imperfect,
)
from games.openspiel_text import _PLAYER_TAG, MOST_NAMED, compact  # noqa: E402

REGISTRY = get_registry(entry_points=False)
NAMES = sorted(n for n, e in REGISTRY.games.items() if e.plugin == "games.openspiel" and e.cls.model.imperfect)
#: OpenSpiel scores bridge with a double-dummy solver that runs in a child process.
PARAMS = [pytest.param(n, marks=pytest.mark.processes) if n == "openspiel.bridge" else n for n in NAMES]

# open-spiel 2.0.2 (pyspiel.registered_games(), each loaded at its default settings): its games of
# two players with hidden information (OpenSpiel's IMPERFECT_INFORMATION, sequential) ...
HIDDEN_TWO = {
    "bargaining", "battleship", "coin_game", "coordinated_mp", "cribbage", "dark_chess", "dark_hex", "dark_hex_ir",
    "first_sealed_auction", "gin_rummy", "go_fish", "hanabi", "kriegspiel", "kuhn_poker", "latent_ttt",
    "leduc_poker", "lewis_signaling", "liars_dice", "liars_dice_ir", "phantom_go", "phantom_ttt", "phantom_ttt_ir",
    "rbc", "repeated_leduc_poker", "sheriff", "tiny_bridge_2p", "tiny_hanabi", "trade_comm", "universal_poker",
}
# ... with simultaneous moves ...
SIMULTANEOUS_TWO = {
    "blotto", "capture_the_flag", "coop_box_pushing", "goofspiel", "laser_tag", "markov_soccer", "matrix_bos",
    "matrix_brps", "matrix_cd", "matrix_coordination", "matrix_mp", "matrix_pd", "matrix_rps", "matrix_rpsw",
    "matrix_sh", "matrix_shapleys_game", "oshi_zumo", "snake",
}
# ... and of more seats at their default settings.
MORE_SEATS = {
    "bridge": 4, "colored_trails": 3, "crazy_eights": 5, "dou_dizhu": 3, "euchre": 4, "hearts": 4,
    "matching_pennies_3p": 3, "oh_hell": 3, "skat": 3, "social_deduction": 6, "spades": 4, "tiny_bridge_4p": 4,
}
# Those left out, and why.
SAMPLED_CHANCE = {"bridge_uncontested_bidding", "negotiation", "tarok"}  # OpenSpiel draws inside a move
MEAN_FIELD = {"mfg_crowd_modelling", "mfg_crowd_modelling_2d", "mfg_dynamic_routing", "mfg_garnet"}
NEED_PARAMETERS = {
    "add_noise", "cached_tree", "coop_to_1p", "misere", "nfg_game", "normal_form_extensive_game", "repeated_game",
    "repeated_poker", "restricted_nash_response", "start_at", "turn_based_simultaneous_game", "zerosum",
}
ONE_PLAYER = {"blackjack", "crossword", "deep_sea", "solitaire"}


class Uniform(Bot):
    """Uniformly random over its view's legal moves (seeded by the referee)."""

    name = "test-uniform"
    description = "uniform over the view's legal moves"
    handles = frozenset({"chance", "players", "nonzero-sum", "simultaneous", "hidden"})

    def choose(self, game, view, budget):
        assert isinstance(view, View)
        return view.legal[self.rng.randrange(len(view.legal))]


def short(name):
    return name.removeprefix(openspiel.PREFIX).split(":")[0]


def draw(game, state, rng):
    outcomes = game.chance_outcomes(state)
    return rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]


def test_every_game_of_these_kinds_is_played_or_left_out_for_a_reason():
    assert len(NAMES) == 59 == len(HIDDEN_TWO) + len(SIMULTANEOUS_TWO) + len(MORE_SEATS)
    assert {short(n) for n in NAMES} == HIDDEN_TWO | SIMULTANEOUS_TWO | set(MORE_SEATS)
    for name in NAMES:
        model = REGISTRY.games[name].cls.model
        assert model.simultaneous == (short(name) in SIMULTANEOUS_TWO or short(name) == "matching_pennies_3p")
    sequential = pyspiel.GameType.Dynamics.SEQUENTIAL
    # not the games written in Python: registered only once imported, so never found (openspiel.suitable)
    left = {t.short_name for t in pyspiel.registered_games() if (imperfect(t) or t.dynamics != sequential)
            and not openspiel.suitable(t) and not t.short_name.startswith("python_")}
    assert left == SAMPLED_CHANCE | MEAN_FIELD | NEED_PARAMETERS | ONE_PLAYER | set(EXCLUDED)
    for game_type in pyspiel.registered_games():
        if game_type.short_name in SAMPLED_CHANCE:
            assert game_type.chance_mode == type(game_type).ChanceMode.SAMPLED_STOCHASTIC
        if game_type.short_name in NEED_PARAMETERS:
            assert not game_type.default_loadable
        if game_type.short_name in ONE_PLAYER:
            assert game_type.max_num_players == 1
    # OpenSpiel's "players" is the arena's; a default of 0 (hanabi's: two) reads as the least
    assert REGISTRY.game("openspiel.hanabi").model.players == 2
    assert REGISTRY.game("openspiel.kuhn_poker:players=3").model.players == 3


def test_names_do_not_clash_with_the_native_games():
    for native in ("kuhn_poker", "leduc_poker", "goofspiel"):
        assert REGISTRY.games[native].plugin == "games.builtin"
        assert REGISTRY.games["openspiel." + native].plugin == "games.openspiel"
    assert not [e for e in REGISTRY.errors if "openspiel" in e]


def replay_in_openspiel(game, texts):
    """The record's moves applied to a pyspiel state of its own, checked legal there: the state."""
    state, ply = pyspiel.load_game(str(game.spiel)).new_initial_state(), 0
    while ply < len(texts):
        if state.is_chance_node():
            outcome = -1 - game.parse_move(texts[ply])
            assert outcome in [a for a, _ in state.chance_outcomes()]
            state.apply_action(outcome)
            ply += 1
        elif state.is_simultaneous_node():
            actions = []
            for player in range(state.num_players()):
                legal = state.legal_actions(player)
                if legal:
                    actions.append(game.parse_move(texts[ply]))
                    assert actions[-1] in legal
                    ply += 1
                else:
                    actions.append(0)
            state.apply_actions(actions)
        else:
            action = game.parse_move(texts[ply])
            assert action in state.legal_actions()
            state.apply_action(action)
            ply += 1
    return state


@pytest.mark.parametrize("name", PARAMS)
def test_a_random_game_through_the_referee_pays_what_openspiel_pays(name):
    game = REGISTRY.game(name)
    record = play_game(game, [Uniform() for _ in range(game.model.players)], seed=7, trusted=True)
    assert record.termination is Termination.NORMAL, record.message
    texts = [m.move for m in record.moves]
    end = game.play(texts)  # the record replays in the arena...
    assert game.is_terminal(end) and game.utilities(end) == record.utilities
    theirs = replay_in_openspiel(game, texts)  # ... and in OpenSpiel, to the same returns
    assert theirs.is_terminal() and tuple(theirs.returns()) == record.utilities
    assert theirs.history() == end.state.history()
    joint = [m for m in record.moves if m.player >= 0 and game.model.simultaneous]
    assert not game.model.simultaneous or joint  # the seats' parts of joint moves are recorded


@pytest.mark.parametrize("name", PARAMS)
def test_texts_need_no_position_and_read_back(name):
    # Two seeded random playouts of at most 150 plies: every seat's legal moves have texts of one
    # word each, none shared, read back by parse_move alone. Where the module says OpenSpiel's
    # strings depend on the action alone, the string OpenSpiel gives in the position reads back too
    # (the mover's, as a person may type it), and a chance outcome is written as OpenSpiel names it.
    game = REGISTRY.game(name)
    named = short(name) not in MOVES_BY_POSITION and game.spiel.num_distinct_actions() <= MOST_NAMED
    rng = random.Random(2)
    for _ in range(2):
        state, plies = game.initial_state(), 0
        while not game.is_terminal(state) and plies < 150:
            mover, spiel = game.to_move(state), state.state
            if mover == CHANCE:
                for outcome, _ in game.chance_outcomes(state):
                    text = game.format_move(outcome)
                    assert game.parse_move(text) == outcome and outcome < 0
                    if short(name) not in CHANCE_BY_POSITION:
                        own = _PLAYER_TAG.sub("", compact(spiel.action_to_string(CHANCE, -1 - outcome)))
                        assert text in (own, "chance:" + own), (text, own)
                state = game.apply(state, draw(game, state, rng))
            else:
                seats = game.acting(state) if mover == JOINT else (mover,)
                for seat in seats:
                    legal = list(game.legal_moves_for(state, seat))
                    texts = [game.format_move(m) for m in legal]
                    assert len(set(texts)) == len(texts) and all(t and not any(c.isspace() for c in t) for t in texts)
                    for move, text in zip(legal, texts):
                        assert game.parse_move(text) == move == game.parse_move(str(move))
                        said = spiel.action_to_string(seat, move)
                        if named and not compact(said).isdigit():  # digits are action numbers (spades' bids)
                            assert game.parse_move(said) == move
                moves = tuple(rng.choice(game.legal_moves_for(state, seat)) for seat in seats)
                state = game.apply_joint(state, moves) if mover == JOINT else game.apply(state, moves[0])
            plies += 1


@pytest.mark.parametrize("name", [p for p, n in zip(PARAMS, NAMES) if REGISTRY.games[n].cls.model.hidden])
def test_what_every_seat_sees(name):
    # In the games of PUBLIC_ACTIONS every other seat's information state (or observation, where
    # OpenSpiel has none) tells every legal move apart once it is made: the move is public, and
    # its text is shown to all. Elsewhere a seat's move shows as "?"; chance outcomes always do.
    game = REGISTRY.game(name)
    public = short(name) in PUBLIC_ACTIONS
    rng = random.Random(5)
    for _ in range(2):
        state, plies = game.initial_state(), 0
        while not game.is_terminal(state) and plies < 100:
            mover = game.to_move(state)
            if mover == CHANCE:
                outcome = draw(game, state, rng)
                assert game.public_text(state, outcome) == "?"
                state = game.apply(state, outcome)
                continue
            if mover == JOINT:  # a seat's part of a joint move: all seats see it only if nothing is hidden
                moves = tuple(rng.choice(game.legal_moves_for(state, seat)) for seat in game.acting(state))
                assert all(game.public_text(state, move) == "?" for move in moves)
                state, plies = game.apply_joint(state, moves), plies + 1
                continue
            legal = game.legal_moves(state)
            if public and len(legal) > 1:
                children = [game.apply(state, m) for m in legal]
                for seat in set(range(game.model.players)) - {mover}:
                    assert len({game.information_key(child, seat) for child in children}) == len(legal)
            move = rng.choice(legal)
            assert game.public_text(state, move) == (game.format_move(move) if public else "?")
            state, plies = game.apply(state, move), plies + 1


@pytest.mark.parametrize("spec", [
    "openspiel.kuhn_poker", "openspiel.leduc_poker", "openspiel.goofspiel", "openspiel.goofspiel:imp_info=true",
    "openspiel.oshi_zumo", "openspiel.matrix_rps", "openspiel.phantom_ttt", "openspiel.sheriff",
    "openspiel.tiny_hanabi", "openspiel.kuhn_poker:players=3", "openspiel.goofspiel:players=3,num_cards=5",
])
def test_conformance(spec):
    game = REGISTRY.game(spec)
    report = check_game(game, playouts=3, seed=1)
    assert report.views > 0
    assert (report.samples > 0) == (short(spec) in SAMPLED or not game.model.hidden)


def test_kuhn_poker_keys_are_openspiels_information_states():
    # The whole tree of two-player Kuhn poker: 6 deals, 24 decision nodes; each player has 6
    # information sets (3 cards x 2 lines: Kuhn 1950, "A simplified two-person poker").
    game = REGISTRY.game("openspiel.kuhn_poker")
    keys, decisions, stack = {0: set(), 1: set()}, 0, [game.initial_state()]
    while stack:
        state = stack.pop()
        if game.is_terminal(state):
            continue
        mover = game.to_move(state)
        if mover >= 0:
            decisions += 1
            for seat in (0, 1):
                iss = state.state.information_state_string(seat)
                assert game.information_key(state, seat) == iss == game.observation(state, seat)
            keys[mover].add(game.information_key(state, mover))
        stack.extend(game.apply(state, m) for m in game.choices(state))
    assert decisions == 24 and len(keys[0]) == len(keys[1]) == 6


def test_kuhn_poker_samples_the_other_card_by_its_chance():
    # Seat 0 holds the jack (OpenSpiel's card 0) and has passed, seat 1 bet: the other card is the
    # queen or the king, 1/2 each. 2,000 draws: each within 5 standard deviations (22.4) of 1,000.
    game = REGISTRY.game("openspiel.kuhn_poker")
    state = game.play(["Deal:0", "Deal:1", "Pass", "Bet"])
    view = make_view(game, state, 0, ("?", "?", "Pass", "Bet"))
    rng = random.Random(3)
    drawn = Counter(game.sample_state(view, rng).state.history()[1] for _ in range(2_000))
    assert set(drawn) == {1, 2} and all(abs(n - 1_000) < 112 for n in drawn.values())
    before = game.play(["Deal:0", "Deal:1", "Pass"])  # the queen's view, before it bets
    theirs = [game.sample_state(make_view(game, before, 1, ("?", "?", "Pass")), rng) for _ in range(50)]
    assert {s.state.history()[0] for s in theirs} == {0, 2} and {s.state.history()[1] for s in theirs} == {1}
    assert all(game.information_key(s, 1) == game.information_key(before, 1) for s in theirs)


def test_one_stream_deals_the_same_cards_whoever_plays():
    # Every chance event draws from seat 0's stream: two games with the same dice and other bots'
    # seeds deal the same private cards, and the same public card where both reach it.
    game = REGISTRY.game("openspiel.leduc_poker")
    dice = Dice(seed_key(11))
    deals = []
    for seed in (1, 2, 3, 4):
        record = play_game(game, [Uniform(), Uniform()], seed=seed, dice=dice, trusted=True)
        deals.append([m.move for m in record.moves if m.player == CHANCE])
    assert all(d[:2] == deals[0][:2] for d in deals)
    assert len({tuple(d[2:]) for d in deals if len(d) == 3}) <= 1


def test_joint_moves_and_the_seats_that_act():
    game = REGISTRY.game("openspiel.oshi_zumo")
    state = game.initial_state()
    assert game.to_move(state) == JOINT and game.acting(state) == (0, 1)
    assert game.legal_moves(state) == [] and game.format_move(3) == "Bid:3"
    with pytest.raises(Exception, match="apply_joint"):
        game.apply(state, 3)
    after = game.apply_joint(state, (50, 0))  # seat 0 bids everything: it can only bid 0 from now on
    assert game.legal_moves_for(after, 0) == [0] and game.acting(after) == (0, 1)
    assert after.state.history() == [50, 0] and game.play(["Bid:50", "Bid:0"]) == after
    assert "move at once" in game.render(state) and game.public_text(state, 50) == "Bid:50"


@pytest.mark.processes
def test_a_bot_of_its_own_process_plays_from_texts():
    # The host rebuilds the view from text: the legal moves with parse_move alone where the game
    # hides information (Leduc poker); in a game of simultaneous moves that hides nothing
    # (goofspiel), the state itself crosses, rebuilt from OpenSpiel's history.
    pool = HostPool()
    try:
        for spec in ("openspiel.leduc_poker", "openspiel.goofspiel:num_cards=4"):
            bots = [RemoteBot("uniform", pool=pool), RemoteBot("uniform", pool=pool)]
            try:
                record = play_game(REGISTRY.game(spec), bots, seed=3)
            finally:
                for bot in bots:
                    bot.release()
            assert record.termination is Termination.NORMAL, record.message
            assert {m.player for m in record.moves} >= {0, 1}
    finally:
        pool.close()


def test_a_sampling_search_plays_kuhn_poker_through_the_adapter():
    if "ismcts" not in REGISTRY.bots:
        pytest.skip("no ismcts bot registered")
    game = REGISTRY.game("openspiel.kuhn_poker")
    for seed in range(3):
        record = play_game(game, [REGISTRY.bot("ismcts:playouts=50"), Uniform()], seed=seed, trusted=True)
        assert record.termination is Termination.NORMAL, record.message
