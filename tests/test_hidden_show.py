"""Replays of games with joint moves and hidden information: ``arena show`` whole and as one seat
saw it (``--seat``), the HTML replay's per-seat view (in Chromium where installed), and
``arena play`` where a person sees only their own observation.

``peek`` (tests/plugins/peek.py): each seat is dealt a hidden card, both bid at once, then the
first shows or folds; its cards are words no other text holds, so a test finds any leak of a
hidden card by looking for the word.
"""

from __future__ import annotations


import pytest

from tests.helpers import CHROMIUM, DRIVER, headless_chromium

from arena.front.cli import main
from results.replay import board, pack, replay, seen, unpack
from tests.plugins.peek import Peek

PLUGIN = "tests.plugins.peek"


# ---- grouping and the replay data ---------------------------------------------------------------

def test_a_joint_move_is_one_turn_and_every_replay_shows_the_position_after_it():
    game = Peek()
    line = ["King", "Jack", "hi", "lo", "show"]
    played = [(len(parts), after) for _, parts, after in game.turns(line)]
    assert [n for n, _ in played] == [1, 1, 2, 1]
    assert played[2][1] == (("King", "Jack"), ("hi", "lo"), None) and played[-1][1] == game.play(line)
    row = {"game_id": 0, "first": "a", "second": "b", "opening": "", "result": "1-0", "termination": "normal",
           "message": ""}
    moves = [{"ply": k, "player": p, "move": m, "nodes": 1, "seconds": 0.0, "depth": None, "score": None}
             for k, (p, m) in enumerate(zip((-1, -1, 0, 1, 0), line))]
    data = unpack(pack(replay(game, row, moves)))
    assert data["error"] is None and len(data["boards"]) == 6
    assert [m.get("joint") for m in data["moves"]] == [None, None, [3, 4], [3, 4], None]
    assert board(data, 3) == board(data, 4) == game.render(game.play(line[:4]))  # both parts: after the joint move
    assert data["public"] == ["?", "?", "hi", "lo", "show"]
    assert seen(data, 1, 2) == "you hold Jack" and "King" not in "".join(seen(data, 1, k) for k in range(5))
    assert seen(data, 1, 5) == "you hold Jack\nbids hi lo\nshown King Jack"
    nim = replay(_nim(), {**row, "opening": "1:1"}, [])
    assert "seen" not in nim and "public" not in nim  # nothing hidden: no views in the page


def _nim():
    from games.nim import Nim

    return Nim(heaps=(2, 3))


# ---- arena show ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Two games of peek, played isolated by 'arena run', and their page."""
    folder = tmp_path_factory.mktemp("peek")
    db, page = folder / "peek.db", folder / "peek.html"
    argv = ["run", "--game", "peek", "--bot", "a=first", "--bot", "b=first", "--games", "2", "--openings", "0", "--seed", "5",
            "--plugin", PLUGIN, "--db", str(db), "--html", str(page), "--jobs", "1", "--no-progress"]
    with pytest.MonkeyPatch.context() as patch:  # the page's charts are tested elsewhere: not drawn here, for speed
        patch.setattr("results.html_report.charts", lambda *a, **k: ({"elo": None, "nodes_by_depth": None}, "not drawn"))
        assert main(argv) == 0
    return db, page


def _show(capsys, db, *extra):
    code = main(["show", str(db), "0", "--plugin", PLUGIN, *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.processes
def test_show_prints_the_whole_game_or_what_one_seat_saw(capsys, stored):
    from results.store import Store

    db, _ = stored
    with Store(db, create=False) as store:
        _, moves = store.game(store.tournament(), 0)
    dealt = [m["move"] for m in moves if m["player"] == -1]
    code, out, err = _show(capsys, db)
    assert code == 0, err
    assert f"chance gives {dealt[0]}" in out and f"chance gives {dealt[1]}" in out
    assert out.count("bids hi hi") == 2  # the joint move's two plies, then one position after both
    assert "bids hi -" not in out and "cards " + " ".join(dealt) + "\nbids -" in out
    for seat, bot in ((0, "a"), (1, "b")):
        for given in (str(seat), bot):
            code, out, err = _show(capsys, db, "--seat", given)
            assert code == 0, err
            assert f"you hold {dealt[seat]}" in out and dealt[1 - seat] not in out.split("sees at the end")[0]
            assert out.count("chance gives ?") == 2 and "plays hi" in out
    code, out, err = _show(capsys, db, "--seat", "2")
    assert code == 2 and err.count("\n") == 1 and "seats 0 to 1" in err


# ---- the HTML replay, in a browser ---------------------------------------------------------------



@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the test extra) is not installed")
    pytest.importorskip("jinja2", reason="the html extra (Jinja2) is not installed")
    if not (CHROMIUM and DRIVER):
        pytest.skip("Chromium and chromedriver are not installed")
    driver = headless_chromium(webdriver)
    yield driver
    driver.quit()


@pytest.mark.processes
def test_the_html_replay_shows_the_whole_game_or_what_one_seat_saw(browser, stored):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from results.store import Store

    db, page = stored
    with Store(db, create=False) as store:
        _, moves = store.game(store.tournament(), 0)
    dealt = [m["move"] for m in moves if m["player"] == -1]
    browser.get(page.as_uri())
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
    browser.find_element(By.CSS_SELECTOR, "button.replay[data-id='0']").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board pre"))
    text = lambda element: browser.find_element(By.ID, element).get_attribute("textContent")  # noqa: E731
    cells = lambda: [r.find_elements(By.TAG_NAME, "td")[2].get_attribute("textContent")  # noqa: E731
                     for r in browser.find_elements(By.CSS_SELECTOR, "#moves-table tbody tr")]
    choice = Select(browser.find_element(By.ID, "view-seat"))
    assert [o.text for o in choice.options] == ["the whole game", "what first (a) saw", "what second (b) saw"]
    assert cells() == dealt + ["hi", "hi", "show"]
    browser.find_elements(By.CSS_SELECTOR, "#moves-table tbody tr")[2].click()  # the joint move's first part
    assert text("ply-text") == "ply 4 of 5: first (a) played hi and second (b) played hi"
    assert text("board") == f"cards {' '.join(dealt)}\nbids hi hi\nplaying"
    choice.select_by_index(2)
    assert cells() == ["?", "?", "hi", "hi", "show"]
    assert text("board") == f"you hold {dealt[1]}\nbids hi hi" and text("ply-text").startswith("ply 4 of 5")
    browser.find_element(By.CSS_SELECTOR, "button[data-step='back']").click()  # back over the whole joint move
    assert text("ply-text") == "ply 2 of 5: chance gave ?" and text("board") == f"you hold {dealt[1]}"
    browser.find_element(By.CSS_SELECTOR, "button[data-step='last']").click()
    assert text("board").endswith(f"shown {' '.join(dealt)}")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


# ---- arena play with a person --------------------------------------------------------------------

def _play(capsys, monkeypatch, typed, *argv):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    code = main(["play", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.processes
def test_a_person_at_kuhn_poker_sees_only_their_card_until_the_game_ends(capsys, monkeypatch):
    code, out, err = _play(capsys, monkeypatch, "b\nb\n", "kuhn_poker", "--bot", "uniform", "--bot", "human",
                           "--seed", "3")
    assert code == 0, err
    during, _, after = out.partition("\nthe whole game: ")
    dealt = after.split()[:2]  # the deals, first seat's card first
    assert "You are second and hold " + dealt[1] in during and dealt[0] not in during
    assert during.count("chance gives ?") == 2 and "first holds" not in during  # no board before the end
    assert f"first holds {dealt[0]}, second holds {dealt[1]}" in after and "result " in after


@pytest.mark.processes
def test_a_person_chooses_a_joint_move_before_seeing_the_others(capsys, monkeypatch):
    code, out, err = _play(capsys, monkeypatch, "lo\n", "peek", "--bot", "first", "--bot", "human", "--seed", "2",
                           "--plugin", PLUGIN)
    assert code == 0, err
    asked, _, rest = out.partition("your move>")
    assert "second, you see:\n  you hold " in asked and "plays hi" not in asked and "bids" not in asked
    assert "move 3: first (first) plays hi" in rest and "move 4: second (human) plays lo" in rest
    assert "\nbids hi lo\n" in rest.partition("the whole game: ")[2]


@pytest.mark.processes
def test_bots_of_the_referees_process_need_trust_at_a_game_of_hidden_information(capsys, monkeypatch):
    code, out, err = _play(capsys, monkeypatch, "", "kuhn_poker", "--bot", "uniform", "--bot", "uniform",
                           "--no-isolation")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("arena: error: kuhn_poker hides information") and "--trusted" in err
    code, out, err = _play(capsys, monkeypatch, "", "kuhn_poker", "--bot", "uniform", "--bot", "uniform",
                           "--no-isolation", "--trusted", "--seed", "1")
    assert code == 0 and "result " in out and "first holds" in out  # no person: the whole game, ply by ply
