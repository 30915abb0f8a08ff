"""The search hooks: declared on Game, read once per search, checked by arena.testing."""

import pytest

from arena import Counter, Game, SearchHooks, get_registry
from arena.budget import counted
from arena.testing import check_game, check_search_hooks
from bots.search import Search
from games.connect4 import ConnectFour
from games.nim import Nim
from games.tictactoe import TicTacToe

REGISTRY = get_registry(entry_points=False)
#: Variants that offer hooks the default games withhold ('moves' scoring: value_bounds).
VARIANTS = ("connect4:scoring=moves", "connect4:columns=5,rows=4,connect=3,scoring=moves", "tictactoe:rows=4,columns=4,k=3")


@pytest.mark.parametrize("spec", sorted(REGISTRY.games) + list(VARIANTS))
def test_every_built_in_game_passes_the_hook_checks(spec):
    game = REGISTRY.game(spec)
    report = check_search_hooks(game, playouts=10)
    assert set(report.offered) == {name for name, hook in zip(SearchHooks._fields, game.search_hooks()) if hook}
    assert all(report.checked[name] > 0 for name in report.offered)
    if "value_bounds" in report.offered:
        assert report.solved > 0


def test_games_offer_the_hooks_they_override_and_withhold_by_search_hooks():
    assert Nim().search_hooks() == SearchHooks()
    hooks = TicTacToe().search_hooks()
    assert hooks.value_bounds is None and None not in (hooks.key, hooks.tactics, hooks.move_priorities)
    # Connect Four withholds value_bounds under 'win' scoring, where it says no more than bounds
    assert ConnectFour().search_hooks().value_bounds is None
    assert ConnectFour(scoring="moves").search_hooks().value_bounds is not None


def test_a_search_asks_the_game_for_its_hooks_once():
    calls = []

    class Counted(TicTacToe):
        def search_hooks(self):
            calls.append(1)
            return super().search_hooks()

    counter = Counter()
    game = counted(Counted(), counter)  # as a bot is handed it: apply counts
    Search(game, counter, ordering=True).root(game.initial_state(), 5)
    assert counter.nodes > 500 and len(calls) == 1


# Deliberately broken games: each check must fail on one, naming the game, the moves and what broke.


class UnhashableKey(TicTacToe):
    name = "unhashable-key"

    def key(self, state):
        return list(state)


class IdentityKey(TicTacToe):
    """Keys by object identity: equal states from different move orders get different keys."""

    name = "identity-key"

    def key(self, state):
        return id(state)


class ShortPriorities(TicTacToe):
    name = "short-priorities"

    def move_priorities(self, state, moves):
        return [1.0] * (len(moves) - 1)


class TextPriorities(TicTacToe):
    name = "text-priorities"

    def move_priorities(self, state, moves):
        return ["high"] * len(moves)


class HidingTactics(TicTacToe):
    """Drops the move the real tactics rank first: the best move goes missing."""

    name = "hiding-tactics"

    def tactics(self, state, rank=True):
        floor, ceiling, moves = super().tactics(state, rank)
        return (floor, ceiling, moves[1:] or moves if moves else moves)


class HopefulTactics(TicTacToe):
    """Claims the mover never loses: a floor of 0."""

    name = "hopeful-tactics"

    def tactics(self, state, rank=True):
        floor, ceiling, moves = super().tactics(state, rank)
        return (max(floor, 0), max(ceiling, 0), moves)


class HopefulBounds(TicTacToe):
    """Claims the mover never loses: value bounds [0, 1]."""

    name = "hopeful-bounds"

    def value_bounds(self, state, player):
        return (0, 1)


class WideBounds(TicTacToe):
    name = "wide-bounds"

    def value_bounds(self, state, player):
        return (-2, 2)


@pytest.mark.parametrize(
    "game, broke",
    [
        (UnhashableKey(), "search hook key returned unhashable"),
        (IdentityKey(), "search hook key"),
        (ShortPriorities(), "move_priorities gave 8 numbers for 9 moves"),
        (TextPriorities(), "move_priorities gave 'high'"),
        (HidingTactics(), "not that over all moves"),
        (HopefulTactics(), "does not hold the depth-2 value"),
        (HopefulBounds(), "but the exact value is -1"),
        (WideBounds(), "not an interval within (-1, 1)"),
    ],
    ids=lambda x: x.name if isinstance(x, Game) else "",
)
def test_each_hook_check_fails_on_a_broken_game(game, broke):
    with pytest.raises(AssertionError) as failure:
        check_search_hooks(game, playouts=20)
    message = str(failure.value)
    assert message.startswith(f"{game.name} ") or message.startswith(f"{game.name}:")
    assert "moves " in message or "no moves" in message  # the line that led to the position
    assert broke in message
    with pytest.raises(AssertionError, match=game.name):
        check_game(game, playouts=20)  # the game checks include the hook checks


class Placed(tuple):
    """A tic-tac-toe state that also remembers the moves that made it (equality ignores them)."""

    path: tuple = ()


class PathKey(TicTacToe):
    """Keys a position by the moves that led to it: transposed orders get different keys."""

    name = "path-key"

    def initial_state(self):
        return Placed(super().initial_state())

    def apply(self, state, move):
        child = Placed(super().apply(state, move))
        child.path = state.path + (move,)
        return child

    def key(self, state):
        return state.path


def test_the_key_check_compares_positions_reached_by_transposed_move_orders():
    game = PathKey()
    assert game.play(["a1", "b1", "c1"]) == game.play(["c1", "b1", "a1"])  # equal states, unequal paths
    with pytest.raises(AssertionError, match=r"^path-key: search hook key differs for equal states reached by moves .* swapped"):
        check_search_hooks(game, playouts=5)


def test_a_withheld_hook_is_not_checked():
    class Withheld(HopefulBounds):
        def search_hooks(self):
            return super().search_hooks()._replace(value_bounds=None)

    report = check_search_hooks(Withheld(), playouts=5)
    assert "value_bounds" not in report.offered and "key" in report.offered
