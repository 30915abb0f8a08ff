"""What a seat knows: all a bot is handed in a game of hidden information or simultaneous moves.

In such a game (``Model.imperfect``) only the referee holds the state. A bot's ``choose``
gets a ``View`` in its place: the seat's observation, its information key, its legal moves
and the public history. A bot in a process of its own receives the view in text form
(``view_texts``) and rebuilds it with the game (``view_from_texts``), so nothing of the
state crosses to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable

from arena.errors import ParameterError
from arena.game import Game, Move, State

#: The longest observation a game may give a seat, in characters.
MAX_OBSERVATION = 64 * 1024
#: The most legal moves one seat may have at once.
MAX_LEGAL = 100_000


@dataclass(frozen=True)
class View:
    """One seat's knowledge when it is asked to move."""

    seat: int
    """The seat asked to move."""
    observation: str
    """``game.observation(state, seat)``: everything the seat knows, as text."""
    key: Hashable
    """``game.information_key(state, seat)``: equal for the states the seat cannot tell apart."""
    legal: tuple[Move, ...]
    """The seat's legal moves (``game.legal_moves_for``), in the game's order."""
    history: tuple[str, ...]
    """Every ply so far as all seats saw it (``game.public_text``), the opening's included."""
    state: State | None = None
    """The state itself where nothing is hidden (simultaneous moves only: the state never
    shows a choice made in the same turn); None in a game with hidden information."""


def make_view(game: Game, state: State, seat: int, history: tuple[str, ...]) -> View:
    """The view of ``seat`` in ``state``; a game's observation out of bounds raises ValueError."""
    observation = game.observation(state, seat)
    if not isinstance(observation, str) or len(observation) > MAX_OBSERVATION:
        what = f"{len(observation):,} characters" if isinstance(observation, str) else type(observation).__name__
        raise ValueError(f"{game.name}: observation of seat {seat} is {what}; text of at most {MAX_OBSERVATION:,} characters")
    legal = tuple(game.legal_moves_for(state, seat))
    if not legal or len(legal) > MAX_LEGAL:
        raise ValueError(f"{game.name}: seat {seat} has {len(legal):,} legal moves; 1 to {MAX_LEGAL:,}")
    key = game.information_key(state, seat)
    if isinstance(key, str) and len(key) > MAX_OBSERVATION:  # it crosses to the bot's process too
        raise ValueError(f"{game.name}: information key of seat {seat} is {len(key):,} characters; "
                         f"at most {MAX_OBSERVATION:,}")
    return View(seat, observation, key, legal, history, None if game.model.hidden else state)


def view_texts(game: Game, view: View) -> tuple:
    """``view`` as plain data for a bot's host process, its legal moves written by ``move_text``."""
    legal = tuple(move_text(game, view, m) for m in view.legal)
    return (view.seat, view.observation, view.key, legal, view.history, view.state)


def move_text(game: Game, view: View, move: Move) -> str:
    """A move of ``view`` as the game writes it: in its state where there is one, else without
    (``format_move``: a game with hidden information writes moves without the state)."""
    return game.move_text(view.state, move) if view.state is not None else game.format_move(move)


def view_from_texts(game: Game, texts: tuple) -> View:
    """The view ``view_texts`` wrote, rebuilt in a bot's host process."""
    seat, observation, key, legal, history, state = texts
    if state is not None:
        moves = tuple(game.parse_move_in(state, t) for t in legal)
    else:
        moves = tuple(game.parse_move(t) for t in legal)
    return View(seat, observation, key, moves, tuple(history), state)


def check_in_process(game: Game, bots, trusted: bool) -> None:
    """Refuse bots of this process in a game of hidden information or simultaneous moves unless
    ``trusted``: they could read the hidden state, or a choice made in the same turn, from the
    referee's memory. Bots in processes of their own (isolated, engines) and people are fine."""
    if trusted or not game.model.imperfect:
        return
    inside = [i for i, bot in enumerate(bots) if not (getattr(bot, "remote", False) or getattr(bot, "external", False)
                                                     or getattr(bot, "interactive", False))]
    if inside:
        what = "hides information" if game.model.hidden else "has simultaneous moves"
        raise ParameterError(
            f"{game.name} {what}, and the bot in seat {inside[0]} would run in the referee's process, where it could "
            f"read {'it' if game.model.hidden else 'the other choices'}: isolate it (the default of arena run "
            f"and play; RemoteBot), or say the bots are trusted (--trusted; play_game(..., trusted=True))"
        )
