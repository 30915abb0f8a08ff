"""The states of OpenSpiel's games as arena states (see games/openspiel.py): an immutable
wrapper of a pyspiel state, compared by a key made once per state."""


#: Games whose picture, player to move and move number decide the future (see games/openspiel.py).
POSITION_KEYED = frozenset({
    "breakthrough", "chinese_checkers", "clobber", "connect_four", "dots_and_boxes", "gomoku", "havannah",
    "hex", "mancala", "mnk", "nim", "nine_mens_morris", "othello", "pentago", "quoridor", "tic_tac_toe",
    "twixt", "ultimate_tic_tac_toe", "y",
})
#: Games where a move only puts the mover's stone on an empty cell, players alternating
#: and nothing else counting: keyed by each player's cells, two bitmasks (cheaper than
#: the picture), unless a parameter adds a rule (the swap rule).
PLACEMENT = frozenset({"gomoku", "havannah", "hex", "mnk", "tic_tac_toe", "y"})
PLACEMENT_UNLESS = {"swap": True}
#: Games whose picture marks the last move with brackets (dropped from the key).
MARKS_LAST_MOVE = frozenset({"havannah", "y"})
_loaded: dict[str, object] = {}  # OpenSpiel game string -> pyspiel game, for unpickling


def state_class_of(short: str, params: dict) -> type:
    """The state class of the OpenSpiel game ``short`` with these parameter values (a placement
    game's swap rule adds history)."""
    if short in PLACEMENT and not any(params.get(k) == v for k, v in PLACEMENT_UNLESS.items()):
        return PlacementState
    if short in POSITION_KEYED:
        return MarkedState if short in MARKS_LAST_MOVE else PositionState
    return HistoryState


class SpielState:
    """An immutable position: a pyspiel state never changed once wrapped, compared by key."""

    __slots__ = ("state", "player", "_key", "_texts")  # _texts: set by openspiel_text when asked

    def __init__(self, state, player: int, key=None):
        self.state = state
        self.player = player
        """The player to move; at the end, the one who would have moved next."""
        self._key = key

    def key(self):
        raise NotImplementedError

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = self._key, other._key
        if mine is None:
            mine = self._key = self.key()
        if theirs is None:
            theirs = other._key = other.key()
        return mine == theirs

    def __hash__(self):
        key = self._key
        if key is None:
            key = self._key = self.key()
        return hash(key)

    def __reduce__(self):
        return (_restore, (str(self.state.get_game()), tuple(self.state.history())))

    def __repr__(self):
        return f"{type(self).__name__}({str(self.state.get_game())!r}, moves={self.state.history()!r})"


class PositionState(SpielState):
    """Keyed by OpenSpiel's picture, the player to move and the move number."""

    __slots__ = ()

    def key(self):
        state = self.state
        return (str(state), self.player, state.move_number())

    def __hash__(self):  # key() written out: a call fewer on every node a table sees
        key = self._key
        if key is None:
            state = self.state
            key = self._key = (str(state), self.player, state.move_number())
        return hash(key)


class MarkedState(SpielState):
    """Keyed like PositionState, with the picture's mark of the last move removed."""

    __slots__ = ()

    def key(self):
        state = self.state
        return (str(state).replace("[", " ").replace("]", " "), self.player, state.move_number())


class PlacementState(SpielState):
    """Keyed by the cells each player has taken: bit ``2 * cell + player`` of one int, set
    by ``apply`` as it goes."""

    __slots__ = ()

    def key(self):
        return sum(1 << (2 * a + i % 2) for i, a in enumerate(self.state.history()))

    def __hash__(self):  # an int key is returned as it is (Python hashes it): a call fewer per node
        key = self._key
        if key is None:
            key = self._key = self.key()
        return key


class HistoryState(SpielState):
    """Keyed by the moves played: a hash chained move by move (set by ``apply`` as it goes),
    and the histories themselves where two hashes are equal (see the module docstring)."""

    __slots__ = ()

    def key(self):
        key = 0
        for action in self.state.history():
            key = hash((key, action))
        return key

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return hash(self) == hash(other) and self.state.history() == other.state.history()

    __hash__ = PlacementState.__hash__  # an int key too; defining __eq__ would otherwise unset it


def _restore(game_string: str, history: tuple) -> SpielState:
    """A state rebuilt from its game's string and its moves (for pickle)."""
    import pyspiel

    game = _loaded.get(game_string)
    if game is None:
        game = _loaded[game_string] = pyspiel.load_game(game_string)
    state_class = state_class_of(game.get_type().short_name, game.get_parameters())
    state = game.new_initial_state()
    player, seats, done = state.current_player(), state.num_players(), 0
    while done < len(history):
        mover = state.current_player()
        if state.is_simultaneous_node():  # a joint move: an action of every player, in player order
            state.apply_actions(list(history[done:done + seats]))
            done += seats
        else:
            state.apply_action(history[done])
            done += 1
        player = state.current_player() if not state.is_terminal() else _after(mover, seats)
    return state_class(state, player)


def _after(mover: int, seats: int = 2) -> int:
    """Who would move after ``mover`` at the end of a game: the next seat (0 after chance or a joint move)."""
    return (mover + 1) % seats if mover >= 0 else 0
