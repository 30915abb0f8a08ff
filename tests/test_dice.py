"""The referee's dice (arena.dice): outcomes drawn as the rule book says (a chi-square test
over 10^5 draws for every chance game), recorded as plies, reproducible from the run's key,
shared seat by seat across a pair's games, and foreseen by no bot outside the referee's
process: a hostile forecaster (tests/plugins/diviner.py) attacks them in every mode."""

import math

import pytest

from arena import CHANCE, Game, Model, get_registry, play_game, param
from arena.dice import Dice, game_context, pair_context, seed_key
from arena.front.cli import main
from arena.referee import bot_seed
from arena.testing import check_game, check_sampling
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot
from games.pig import Pig
from results.store import Store
from tests.helpers import sandbox_unavailable
from tests.plugins import diviner

REGISTRY = get_registry(entry_points=False, plugins=[diviner])


class LoadedDie(Game):
    """One roll of a die whose faces have unequal probabilities; the higher face wins for seat 0."""

    name = "loaded-die"
    bounds = (-1, 1)
    model = Model(chance=True)
    bias: float = param(0.5, "probability of a six")

    def initial_state(self):
        return ("start",)

    def to_move(self, state):
        return CHANCE if state == ("rolling",) else 0

    def legal_moves(self, state):
        return ["throw"] if state == ("start",) else []

    def chance_outcomes(self, state):
        rest = (1 - self.bias) / 5
        return [(face, self.bias if face == 6 else rest) for face in range(1, 7)]

    def apply(self, state, move):
        return ("rolling",) if move == "throw" else ("rolled", move)

    def is_terminal(self, state):
        return state[0] == "rolled"

    def utility(self, state, player):
        u = 1.0 if state[1] >= 4 else -1.0
        return u if player == 0 else -u

    def heuristic(self, state, player):
        return 0.0

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        return text if text == "throw" else int(text)


# -- draws that follow the rule book ---------------------------------------------------------


def chance_games() -> list[str]:
    # not OpenSpiel's games of hidden information and simultaneous moves: card games whose deals
    # take seconds each (bridge's double-dummy solve); the same draws as every other game's
    registry = get_registry(entry_points=False)
    return [name for name, entry in registry.games.items() if entry.cls().model.chance
            and not (entry.plugin == "games.openspiel" and entry.cls().model.imperfect)]


def test_the_chance_games_checked_include_pig():
    assert "pig" in chance_games()


@pytest.mark.parametrize("name", [  # a test a game: spread over the workers of a parallel run
    pytest.param(n, marks=pytest.mark.slow(reason="300,000 draws among 7,776 outcomes")) if n == "openspiel.yacht" else n
    for n in chance_games()])
def test_every_registered_chance_game_passes_the_chi_square_test_of_the_referees_draws(name):
    report = check_sampling(get_registry(entry_points=False).game(name))
    assert report.nodes >= 1 and report.draws == 100_000
    assert all(p > 0.01 for p in report.p_values), (name, report)


def test_unequal_probabilities_are_honoured_and_a_sampler_that_ignores_them_fails(monkeypatch):
    loaded = LoadedDie(bias=0.5)
    assert check_game(loaded).sampling.p_values[0] > 0.01
    # a sampler that draws faces uniformly, whatever the probabilities: the test must catch it
    monkeypatch.setattr(Dice, "pick", lambda self, outcomes, seat, n: outcomes[int(self.uniform(seat, n) * len(outcomes))][0])
    with pytest.raises(AssertionError, match=r"do not follow chance_outcomes \(p = "):
        check_sampling(loaded)


def test_the_chi_square_tail_matches_published_critical_values():
    from arena.testing.sampling import chi_square_p, upper_gamma

    # 95% and 99% points of the chi-square distribution (Abramowitz and Stegun, table 26.8)
    for df, x, p in [(1, 3.841, 0.05), (5, 11.070, 0.05), (5, 15.086, 0.01), (10, 23.209, 0.01), (30, 43.773, 0.05)]:
        assert upper_gamma(df / 2, x / 2) == pytest.approx(p, abs=2e-4)
    assert chi_square_p([50, 50], [50, 50]) == 1.0
    assert chi_square_p([1, 0, 99], [2, 2, 96]) > 0.05  # the two small cells are pooled


def test_uniform_draws_are_below_one_and_depend_on_key_context_seat_and_number():
    dice = Dice(seed_key(1), "ctx")
    draws = [dice.uniform(0, n) for n in range(2000)]
    assert all(0 <= u < 1 for u in draws) and len(set(draws)) == 2000
    assert abs(sum(draws) / len(draws) - 0.5) < 4 * math.sqrt(1 / 12 / 2000)
    assert Dice(seed_key(1), "ctx").uniform(0, 5) == draws[5]
    assert len({Dice(seed_key(2), "ctx").uniform(0, 5), Dice(seed_key(1), "other").uniform(0, 5),
                dice.uniform(1, 5), draws[5]}) == 4
    assert "key" not in repr(dice) and seed_key(1).hex() not in repr(dice)
    with pytest.raises(ValueError, match="16 to 64 bytes"):
        Dice(b"short")


# -- plies, reproducibility and seeds --------------------------------------------------------


def test_a_game_records_each_outcome_as_a_chance_ply_and_replays_exactly():
    game = Pig(goal=30)
    record = play_game(game, [RandomBot(), GreedyBot()], seed=7)
    chance = [m for m in record.moves if m.player == CHANCE]
    assert chance and all(m.nodes == 0 and m.move in "123456" for m in chance)
    assert all(m.player in (0, 1) for m in record.moves if m not in chance)
    end = game.play([m.move for m in record.moves])
    assert game.is_terminal(end) and game.utility(end, 0) == record.utilities[0]
    again = play_game(game, [RandomBot(), GreedyBot()], seed=7)
    assert [m.move for m in again.moves] == [m.move for m in record.moves]
    other = play_game(game, [RandomBot(), GreedyBot()], seed=8)
    assert [m.move for m in other.moves] != [m.move for m in record.moves]
    assert draws_follow(game, record.moves, Dice(seed_key(7)))


def test_in_a_chance_game_bot_seeds_come_one_way_from_the_dice():
    seeds = []

    class Recorder(RandomBot):
        def new_game(self, game, player, seed):
            seeds.append(seed)
            super().new_game(game, player, seed)

    play_game(Pig(goal=5), [Recorder(), Recorder()], seed=11)
    dice = Dice(seed_key(11))
    assert seeds == [dice.bot_seed(11, 0), dice.bot_seed(11, 1)]
    assert seeds != [bot_seed(11, 0), bot_seed(11, 1)]
    assert all(0 <= s < 1 << 63 for s in seeds)
    seeds.clear()
    play_game(get_registry(entry_points=False).game("nim"), [Recorder(), Recorder()], seed=11)
    assert seeds == [bot_seed(11, 0), bot_seed(11, 1)]  # games without chance: as before


def chance_plies(game: Game, moves):
    """``(seat, state, text)`` of each chance ply of ``moves`` (records, or rows from the
    database): the seat whose stream it drew from, and the chance node it fell at."""
    state, last = game.initial_state(), 0
    for m in moves:
        player, text = (m.player, m.move) if hasattr(m, "player") else (m["player"], m["move"])
        if player == CHANCE:
            yield game.chance_seat(state, last), state, text
        else:
            last = player
        state = game.apply(state, game.parse_move_in(state, text))


def draws_follow(game: Game, moves, dice: Dice) -> bool:
    """True if every chance ply of ``moves`` is the draw its seat's stream gives: the k-th
    event of seat s is draw k of stream s."""
    drawn = [0, 0]
    for seat, state, text in chance_plies(game, moves):
        expected = dice.pick(game.chance_outcomes(state), seat, drawn[seat])
        drawn[seat] += 1
        if game.move_text(state, expected) != text:
            return False
    return True


def seat_streams(game: Game, moves) -> tuple[list, list]:
    """The outcomes each seat's stream gave, in order."""
    out = ([], [])
    for seat, _, text in chance_plies(game, moves):
        out[seat].append(text)
    return out


# -- a tournament's dice: kept with it, shared across a pair ---------------------------------


@pytest.fixture
def fixed_key(monkeypatch):
    """A run's secret is random; tests fix it, so what they count is the same every time."""
    key = seed_key(2026)
    monkeypatch.setattr("results.store.new_key", lambda: key)
    return key


def stored_games(db):
    with Store(db, create=False) as store:
        tournament = store.tournament()
        key = store.chance_key(tournament)
        games = [store.game(tournament, i) for i in sorted(store.finished(tournament))]
    return tournament, key, games


def run_pig(db, *extra, games=4):
    argv = ["run", "--game", "pig:goal=30", "--bot", "random", "--bot", "greedy", "--games", str(games),
            "--openings", "0", "--jobs", "1", "--no-progress", "--db", str(db), *extra]
    assert main(argv) == 0


@pytest.mark.processes
def test_a_pairs_games_draw_the_same_outcomes_seat_by_seat_from_the_stored_key(tmp_path, capsys, fixed_key):
    db = tmp_path / "pig.db"
    run_pig(db, games=8)
    tournament, key, games = stored_games(db)
    assert len(key) == 32 and tournament.config.get("independent_chance") is None
    game = Pig(goal=30)
    by_round = {}
    for row, moves in games:
        assert row["termination"] == "normal"
        first, second = row["first"], row["second"]
        rounds = by_round.setdefault(frozenset((first, second)), [])
        rounds.append((row, moves))
    checked = 0
    for pair_games in by_round.values():
        for r in range(4):
            (a, a_moves), (b, b_moves) = pair_games[2 * r], pair_games[2 * r + 1]
            assert (a["first"], a["second"]) == (b["second"], b["first"])
            for moves in (a_moves, b_moves):
                assert draws_follow(game, moves, Dice(key, pair_context(a["first"], a["second"], r)))
            for seat in (0, 1):
                x, y = seat_streams(game, a_moves)[seat], seat_streams(game, b_moves)[seat]
                shorter = min(len(x), len(y))
                assert x[:shorter] == y[:shorter], (seat, x, y)
                checked += shorter
    assert checked >= 20
    # the same command again resumes the tournament with the key it keeps
    run_pig(db, games=8)
    assert stored_games(db)[1] == key


@pytest.mark.processes
def test_independent_chance_gives_each_game_its_own_streams_and_is_stored(tmp_path, capsys, fixed_key):
    db = tmp_path / "pig.db"
    run_pig(db, "--independent-chance", games=2)
    tournament, key, games = stored_games(db)
    assert tournament.config["independent_chance"] is True
    game = Pig(goal=30)
    (a, a_moves), (b, b_moves) = games
    assert draws_follow(game, a_moves, Dice(key, game_context(a["first"], a["second"], 0)))
    assert draws_follow(game, b_moves, Dice(key, game_context(b["first"], b["second"], 0)))
    assert seat_streams(game, a_moves)[0][:5] != seat_streams(game, b_moves)[0][:5]
    assert "independent chance" in capsys.readouterr().out


@pytest.mark.processes
def test_a_bot_that_cannot_play_chance_is_refused_in_one_line_naming_the_bots_that_can(tmp_path, capsys):
    assert main(["run", "--game", "pig", "--bot", "random", "--bot", "alphabeta", "--db", str(tmp_path / "x.db"),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert "bot 'alphabeta' cannot play 'pig': it plays games without chance; pig has chance: use random, greedy" in err


# -- a bot that tries to foresee the dice ----------------------------------------------------


def forecasts(game: Game, moves, bot_seat=None) -> tuple[int, int]:
    """(forecasts made, forecasts right): each roll whose principal variation names a face,
    against the outcome the referee drew next."""
    made = right = 0
    for m, after in zip(moves, moves[1:]):
        pv = m["pv"].split() if isinstance(m, dict) else list(m.pv)
        player = m["player"] if isinstance(m, dict) else m.player
        nxt = after["move"] if isinstance(after, dict) else after.move
        if player >= 0 and len(pv) == 2 and (bot_seat is None or player == bot_seat):
            made += 1
            right += pv[1] == nxt
    return made, right


def by_chance(made: int) -> float:
    """The most right forecasts of a fair six-sided die a forecaster without foresight makes,
    four standard deviations above 1/6 of them (a false alarm about 3 times in 100,000)."""
    return made / 6 + 4 * math.sqrt(made * 5 / 36)


def test_in_the_referees_process_the_dice_can_be_reached_and_the_forecaster_is_always_right():
    """The documented limit: a bot in the referee's own process can read its memory."""
    game = Pig(goal=30)
    made = right = 0
    for seed in range(4):
        record = play_game(game, [diviner.Diviner(), RandomBot()], seed=seed)
        m, r = forecasts(game, record.moves, bot_seat=0)
        made, right = made + m, right + r
    assert made >= 30 and right == made


def test_invertible_seeds_would_let_the_forecaster_recover_the_game_seed(monkeypatch):
    """Why bot seeds of chance games are one way: with the invertible seeds of games without
    chance, and dice derived from the game's seed, the forecaster is right far more often than
    chance (always, in the games whose seed its guess of the seed's dropped bit gets right)."""
    game = Pig(goal=30)
    monkeypatch.setattr(Dice, "bot_seed", lambda self, seed, seat: bot_seed(seed, seat))
    made = right = 0
    for seed in range(6):
        record = play_game(game, [diviner.Diviner(reach=False), RandomBot()], seed=seed)
        m, r = forecasts(game, record.moves, bot_seat=0)
        made, right = made + m, right + r
    assert made >= 40 and right > by_chance(made) and right > made / 3


def test_with_one_way_seeds_the_forecaster_does_no_better_than_chance_in_process():
    game = Pig(goal=30)
    made = right = 0
    for seed in range(20):
        record = play_game(game, [diviner.Diviner(reach=False), RandomBot()], seed=seed)
        m, r = forecasts(game, record.moves, bot_seat=0)
        made, right = made + m, right + r
    assert made >= 150 and right <= by_chance(made)


MODES = {"isolated": [], "sandboxed": ["--sandbox"], "dask": ["--dask", "local"]}


@pytest.mark.processes
@pytest.mark.parametrize("mode", list(MODES))
def test_outside_the_referees_process_the_forecaster_does_no_better_than_chance(tmp_path, mode, capsys, fixed_key):
    if mode == "sandboxed" and sandbox_unavailable():
        pytest.skip(sandbox_unavailable())
    if mode == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    db = tmp_path / f"{mode}.db"
    argv = ["run", "--game", "pig:goal=30", "--format", "gauntlet", "--bot", "random", "--bot", "greedy",
            "--challenger", "greedy", "--bot", "diviner", "--challenger", "diviner", "--games", "8", "--openings", "0",
            "--jobs", "2", "--no-progress", "--db", str(db), "--plugin", "tests.plugins.diviner", *MODES[mode]]
    assert main(argv) == 0
    tournament, key, games = stored_games(db)
    game = Pig(goal=30)
    made = right = 0
    for row, moves in games:
        assert row["termination"] == "normal", row["message"]
        # every game's dice, the diviner's and the others', are its pair's streams of the stored key
        r = _round(games, row)
        assert draws_follow(game, moves, Dice(key, pair_context(row["first"], row["second"], r)))
        if "diviner" in (row["first"], row["second"]):
            m, k = forecasts(game, moves, bot_seat=0 if row["first"] == "diviner" else 1)
            made, right = made + m, right + k
    assert len(games) == 2 * 8  # each challenger against random
    assert made >= 100 and right <= by_chance(made), (made, right)


def _round(games, row) -> int:
    """The round of ``row``'s game: how many games of the same ordered pairing came before it."""
    return sum(1 for other, _ in games if (other["first"], other["second"]) == (row["first"], row["second"])
               and other["game_id"] < row["game_id"])


def test_a_bot_that_follows_the_moves_is_told_every_outcome_in_order():
    """Engines learn the dice as moves of the position line: the referee tells a following bot
    every ply, chance plies included, as it tells it the players' moves."""
    told = []

    class Follower(RandomBot):
        follows_moves = True

        def moved(self, text):
            told.append(text)

    record = play_game(Pig(goal=20), [Follower(), GreedyBot()], seed=5)
    assert told == [m.move for m in record.moves] and any(m.player == CHANCE for m in record.moves)


@pytest.mark.parametrize("seat", [2, -1, 1.0, True, None])
def test_a_chance_seat_that_is_not_a_seat_is_the_games_error_named_in_one_line(seat):
    class OddSeat(Pig):
        def chance_seat(self, state, last):
            return seat

    with pytest.raises(ValueError, match=rf"^pig: chance_seat returned {seat!r} at ply 1: a seat, 0 to 1$"):
        play_game(OddSeat(goal=10), [RandomBot(), RandomBot()], seed=1, opening=["roll"])
