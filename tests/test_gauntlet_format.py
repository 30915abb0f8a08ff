"""The gauntlet format on its own: its setting, its checks and its pairings."""

from types import SimpleNamespace

import pytest

from arena.errors import ParameterError
from arena.formats.gauntlet import Gauntlet


def field(*names):
    return SimpleNamespace(bots=[SimpleNamespace(name=n) for n in names])


def test_challengers_are_a_list_of_names_stripped_and_stored_as_given():
    assert Gauntlet.build({"challengers": [" a ", "b"]}) == Gauntlet(("a", "b"))
    assert Gauntlet.build({"challengers": ("a",)}).stored() == {"challengers": ["a"]}
    assert Gauntlet.build({}) == Gauntlet.build({"challengers": None}) == Gauntlet(())
    for bad in ("a", ["a", 1], 3):
        with pytest.raises(ParameterError, match=rf"^challengers must be a list of names, got {bad!r}$".replace("[", r"\[")):
            Gauntlet.build({"challengers": bad})
    assert Gauntlet.misplaced(["challengers"]) == "challengers are only for the gauntlet format"


def test_a_gauntlet_needs_known_challengers_and_someone_else():
    Gauntlet(("a",)).check(field("a", "b", "c"))
    Gauntlet(("a", "b")).check(field("a", "b", "c"))
    message = r"^a gauntlet needs challengers among the bots \(a, b\); got "
    with pytest.raises(ParameterError, match=message + r"\[\]$"):
        Gauntlet(()).check(field("a", "b"))
    with pytest.raises(ParameterError, match=message + r"\['a', 'z'\]$"):
        Gauntlet(("a", "z")).check(field("a", "b"))
    with pytest.raises(ParameterError, match=r"^a gauntlet needs at least one bot that is not a challenger$"):
        Gauntlet(("a", "b")).check(field("a", "b"))


def test_each_challenger_meets_every_bot_of_the_field_and_no_other_challenger():
    bots = ("f0", "c1", "f2", "c3", "f4")
    pairs = Gauntlet(("c1", "c3")).pairings(bots, ("c1", "c3"))
    assert pairs == [(1, 0), (1, 2), (1, 4), (3, 0), (3, 2), (3, 4)]
    assert Gauntlet(("f4",)).pairings(bots, ("f4",)) == [(4, 0), (4, 1), (4, 2), (4, 3)]
