"""Move text for OpenSpiel's games: OpenSpiel's action strings, one word each.

Records split moves on spaces, so a text is OpenSpiel's string with its spaces removed
('pile:1, take:1;' is written 'pile:1,take:1;'); what a person types is read the same way,
spaces or not.

Two kinds of game (see ``STATE_FREE_TEXTS`` in games/openspiel.py):

- where an action's string depends on the action and the player only (Hex's 'a1', Go's
  'B d4'), a move's text is written without a position, minus the part naming the player
  where the two players' strings differ ('x(1,1)' and 'o(1,1)' give '(1,1)');
  ``parse_move`` reads that, either player's own string and the action number;
- where it depends on the position (chess's SAN, amazons, hive...), a move's text is the
  string of the player to move in that position (``move_text``, ``parse_move_in``). Should
  two legal moves of a position share a string, each is written with its action number
  after an '@' ('e4@1234'). The action number is read in every position.

A game of hidden information or simultaneous moves writes every move without a position
(``free_tables``; a bot's host reads its legal moves from their texts alone): OpenSpiel's
strings without the part naming the player, and chance outcomes by their own strings.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import sys

#: A player named at the start of an action string ('[P0]Bid: 1', 'Pl1: shoot at (0, 0)', 'Player: 0
#: Action: As', 'player=0 move=Call'): left out of the text all seats' moves share.
_PLAYER_TAG = re.compile(r"^(\[P\d+\]|(Player|player|Pl|p)[:=]?-?\d+:?)")
#: Games of more actions write them as numbers: OpenSpiel names some slowly (colored_trails' 93,123: 10 s).
MOST_NAMED = 10_000


def compact(text: str) -> str:
    """``text`` without its whitespace: one word, as records keep moves."""
    return "".join(text.split())


def state_free_tables(spiel, count: int) -> tuple[list, dict]:
    """Each action's text, and text -> action for every form ``parse_move`` reads, for a game
    whose strings depend on the action and the player only."""
    state = spiel.new_initial_state()
    owners: dict[str, set] = {}
    formats = [str(a) for a in range(count)]
    for a in range(count):
        t0 = compact(state.action_to_string(0, a))
        t1 = compact(state.action_to_string(1, a))
        shared = t0 if t0 == t1 else _common(t0, t1)
        for t in {t0, t1, shared}:
            if t and (not t.isdigit() or t == str(a)):
                owners.setdefault(t, set()).add(a)
        formats[a] = shared
    parse = {t: next(iter(a)) for t, a in owners.items() if len(a) == 1}
    return [t if parse.get(t) == a else str(a) for a, t in enumerate(formats)], parse


def legal_texts(state) -> tuple[dict, dict]:
    """``(move -> text, text -> move)`` for the legal moves of a wrapped state, made once
    per state (kept in its ``_texts`` slot, which only this sets)."""
    try:
        return state._texts
    except AttributeError:
        pass
    spiel, player = state.state, state.player
    texts = {a: compact(spiel.action_to_string(player, a)) or str(a) for a in spiel.legal_actions()}
    moves = {t: a for a, t in texts.items()}
    if len(moves) < len(texts):  # shared strings: each such move gets its number
        shared = {t for t in moves if sum(x == t for x in texts.values()) > 1}
        texts = {a: f"{t}@{a}" if t in shared else t for a, t in texts.items()}
        moves = {t: a for a, t in texts.items()}
    state._texts = (texts, moves)
    return state._texts


class ActionTexts:
    """``format_move`` and ``parse_move`` for every OpenSpiel game: the text tables are built
    on first use (``_tables``, None until then)."""

    state_free_texts = False
    """Whether the game's action strings depend on the action and the player only."""

    def format_move(self, move) -> str:
        tables = self._tables or self._text_tables()
        try:
            return tables[0][move]
        except IndexError:  # a chance outcome beyond the players' actions: its number
            return str(move)

    def parse_move(self, text: str):
        tables = self._tables or self._text_tables()
        word = compact(text)
        move = tables[1].get(word)
        # chance outcomes are numbered apart from the players' actions (0 if the game has none)
        count = max(self.spiel.num_distinct_actions(), self.spiel.max_chance_outcomes())
        if move is None and word.isdigit() and word.isascii() and int(word) < count:
            move = int(word)
        if move is None:
            examples = [t for t in tables[0] if not t.isdigit()][:3]
            such = f", or a move's text such as {', '.join(examples)}" if examples else ""
            raise self.bad_move_text(text, f"an action number 0-{count - 1}{such}")
        return move

    def _text_tables(self) -> tuple[list, dict]:
        """Each action's text, and text -> action for every form parse_move reads."""
        count = self.spiel.num_distinct_actions()
        if self.state_free_texts:
            self._tables = state_free_tables(self.spiel, count)
        else:
            self._tables = ([str(a) for a in range(count)], {})
        return self._tables


class PositionTexts:
    """Mixed into a game class whose action strings depend on the position."""

    __slots__ = ()

    def move_text(self, state, move) -> str:
        text = legal_texts(state)[0].get(move)
        return self.format_move(move) if text is None else text  # not legal here: its number

    def parse_move_in(self, state, text: str):
        word = compact(text)
        move = legal_texts(state)[1].get(word)
        if move is not None:
            return move
        count = max(self.spiel.num_distinct_actions(), self.spiel.max_chance_outcomes())
        if word.isdigit() and word.isascii() and int(word) < count:
            return int(word)
        legal = list(legal_texts(state)[1])
        shown = ", ".join(legal[:4]) + (", ..." if len(legal) > 4 else "")
        raise self.bad_move_text(text, f"a legal move's text ({shown}) or an action number 0-{count - 1}")


    def history_text(self, state) -> list[str]:
        """OpenSpiel's strings (no '@' numbers) for the moves that made ``state``, replayed
        from the start or from the last line asked for where this one continues it: a game is
        shown position after position, each then one move's work."""
        history = state.state.history()
        line, texts, last = getattr(self, "_line", None) or ([], [], None)
        if last is None or len(line) > len(history) or history[: len(line)] != line:
            line, texts, last = [], [], self.spiel.new_initial_state()
        else:
            texts, last = list(texts), last.clone()
        for action in history[len(line):]:
            texts.append(compact(last.action_to_string(last.current_player(), action)))
            last.apply_action(action)
        self._line = (history, texts, last)
        return texts


def free_tables(spiel, moves_by_position: bool, chance_by_position: bool) -> tuple[list, list, dict]:
    """The texts of a game of hidden information or simultaneous moves, which need no position: each
    action's, each chance outcome's (the move ``-1 - outcome``), and text -> move for every form
    ``parse_move`` reads. OpenSpiel's strings where they depend on the action alone (at the first
    state where a player moves, and at the first chance node), an outcome's after 'chance:' where
    a move has its string ('chance:C2' deals the card 'C2' plays); else numbers: '7', 'chance:7'."""
    count, outcomes, seats = spiel.num_distinct_actions(), max(spiel.max_chance_outcomes(), 0), spiel.num_players()
    named = not moves_by_position and count <= MOST_NAMED
    with quiet():  # strings of actions a state does not expect may be refused, in words on stderr
        decision, chance = _reference_states(spiel)
        owners: dict[str, set] = {}
        texts = [str(a) for a in range(count)]
        if decision is not None and named:
            for a in range(count):
                own = [_string(decision, p, a) for p in range(seats)]
                texts[a] = _player_free(own)
                for t in {*own, texts[a]}:
                    owners.setdefault(t, set()).add(a)
        chances = [f"chance:{a}" for a in range(outcomes)]
        if chance is not None and not chance_by_position:
            chances = [_PLAYER_TAG.sub("", _string(chance, -1, a)) for a in range(outcomes)]
    for a, t in enumerate(chances):
        chances[a] = t = t if t not in owners else f"chance:{t}"  # a move's string stays the move's
        owners.setdefault(t, set()).add(-1 - a)
    parse = {t: next(iter(m)) for t, m in owners.items() if len(m) == 1 and t and t != "?" and not t.isdigit()}
    texts = [t if parse.get(t) == a else str(a) for a, t in enumerate(texts)]
    chances = [t if parse.get(t) == -1 - a else f"chance:{a}" for a, t in enumerate(chances)]
    return texts, chances, parse


def _reference_states(spiel):
    """The first state where a player moves and the first chance node of a seeded random walk
    from the start (None where not met in ten thousand plies). Random, not the first action each
    time: that can loop (crazy_eights deals again while an eight turns up)."""
    state, decision, chance, rng = spiel.new_initial_state(), None, None, random.Random(0)
    for _ in range(10_000):
        if state.is_terminal() or (decision is not None and chance is not None):
            break
        if state.is_chance_node():
            chance = chance or state.clone()
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        elif state.is_simultaneous_node():
            decision = decision or state.clone()
            state.apply_actions([rng.choice(state.legal_actions(p) or [0]) for p in range(spiel.num_players())])
        else:
            decision = decision or state.clone()
            state.apply_action(rng.choice(state.legal_actions()))
    return decision, chance


def _string(state, player: int, action: int) -> str:
    try:
        return compact(state.action_to_string(player, action))
    except Exception:  # an action this state cannot name
        return ""


def _player_free(texts: list[str]) -> str:
    """The part of the seats' strings of one action that names no seat."""
    untagged = {_PLAYER_TAG.sub("", t) for t in texts}
    if len(untagged) == 1:
        return untagged.pop()
    common = texts[0]
    for t in texts[1:]:
        common = _common(common, t)
    return common


@contextlib.contextmanager
def quiet():
    """Silence the C-level stderr while OpenSpiel loads a game or names actions: it writes its
    exceptions there itself (ours say the same in one line), and its warnings (quoridor's) once
    per process. Other threads' stderr output in that moment is lost too."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _common(a: str, b: str) -> str:
    """``a`` without the middle part where it differs from ``b``: the player's mark."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return a[:start] + (a[len(a) - end:] if end else "")
