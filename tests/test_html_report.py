"""The HTML report in a real browser: headless Chromium driven by selenium, one session per module.

Skipped when selenium, Chromium or chromedriver is missing. The page must load offline with
no console error and no resource fetched, show the database's standings, sort, filter, and
replay a Connect Four game to the board and result ``arena show`` prints.
"""

import re
import time

import pytest

from tests.helpers import CHROMIUM, DRIVER, headless_chromium

from arena.front.cli import main

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the test extra) is not installed")
pytest.importorskip("jinja2", reason="the html extra (Jinja2) is not installed")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


SMALL = ["--game", "connect4", "--bot", "random", "--bot", "greedy", "--bot", "ab=alphabeta:depth=2",
         "--budget", "nodes=200", "--games", "4", "--openings", "2", "--seed", "3", "--no-isolation", "--jobs", "1",
         "--no-progress"]


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and DRIVER):
        pytest.skip("Chromium and chromedriver are not installed")
    driver = headless_chromium(webdriver)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A small Connect Four tournament (12 games) and its page, written by ``arena run --html``."""
    folder = tmp_path_factory.mktemp("html")
    db, page = folder / "c4.db", folder / "report.html"
    assert main(["run", *SMALL, "--db", str(db), "--html", str(page)]) == 0
    return db, page


def load(browser, page):
    browser.get(page.as_uri())
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return browser


def errors(browser) -> list:
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.processes
def test_page_loads_offline_without_errors_or_requests(browser, stored):
    load(browser, stored[1])
    assert errors(browser) == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Tournament '")


def test_the_written_page_holds_the_databases_standings(stored):
    # the file as written, read without a browser: what the page starts from before any script runs
    from html.parser import HTMLParser

    import results
    from results.report import standings

    class Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.inside, self.rows, self.cell = False, [], None

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.inside = dict(attrs).get("id") == "standings-table"
            elif self.inside and tag == "tr":
                self.rows.append([])
            elif self.inside and tag in ("th", "td"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag == "table":
                self.inside = False
            elif self.inside and tag in ("th", "td") and self.cell is not None:
                self.rows[-1].append(self.cell.strip())
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    tables = results.load(stored[0])
    table = standings(tables.games, tables.moves)
    parser = Rows()
    parser.feed(stored[1].read_text(encoding="utf-8"))
    body = [r for r in parser.rows[1:] if r]  # the header row first
    assert [r[0] for r in body] == list(table.index)
    for row, (bot, expected) in zip(body, table.iterrows()):
        assert [int(x) for x in row[1:5]] == [expected.games, expected.wins, expected.draws, expected.losses]
        assert row[8] == f"{expected.elo:+.0f}"


@pytest.mark.processes
def test_standings_match_the_database(browser, stored):
    import results
    from results.report import standings

    tables = results.load(stored[0])
    table = standings(tables.games, tables.moves)
    load(browser, stored[1])
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings-table tbody tr")
    shown = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")] for r in rows]
    assert [r[0] for r in shown] == list(table.index)
    for row, (bot, expected) in zip(shown, table.iterrows()):
        assert [int(x) for x in row[1:5]] == [expected.games, expected.wins, expected.draws, expected.losses]
        assert row[8] == f"{expected.elo:+.0f}"


@pytest.mark.processes
def test_who_is_stronger_matches_the_fit_and_anchors_move_the_standings(browser, stored, tmp_path):
    import results
    from results.ratings import fit, superiority

    tables = results.load(stored[0])
    expected = superiority(fit(tables.games))
    load(browser, stored[1])
    rows = browser.find_elements(By.CSS_SELECTOR, "#superiority tbody tr")
    shown = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")] for r in rows]
    assert [r[0] for r in shown] == list(expected.index)
    for row, (bot, values) in zip(shown, expected.iterrows()):
        assert row[1:] == ["–" if v != v else f"{100 * v:.1f}%" for v in values]
    assert "The first mover gains" in browser.find_element(By.CSS_SELECTOR, "#standings .note").text
    page = tmp_path / "anchored.html"
    assert main(["report", str(stored[0]), "--html", str(page), "--anchor", "random=100", "--los", "2"]) == 0
    load(browser, page)
    assert "anchored at random +100" in browser.find_element(By.CSS_SELECTOR, "#standings .note").text
    random_row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#standings-table tbody tr")
                      if r.find_element(By.CSS_SELECTOR, "th").text == "random")
    assert random_row.find_elements(By.CSS_SELECTOR, "td")[7].text == "+100"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#superiority tbody tr")) == 2
    assert "2 best-rated of 3 bots" in browser.find_element(By.CSS_SELECTOR, "#superiority .note").text


def column(browser, table, k):
    return [r.find_elements(By.CSS_SELECTOR, "th, td")[k].text
            for r in browser.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")]


@pytest.mark.processes
def test_sorting_by_a_column_and_back(browser, stored):
    load(browser, stored[1])
    heads = browser.find_elements(By.CSS_SELECTOR, "#standings-table thead th")
    losses = [h.text for h in heads].index("Losses")
    heads[losses].find_element(By.TAG_NAME, "button").click()
    values = [int(v) for v in column(browser, "standings-table", losses)]
    assert values == sorted(values, reverse=True) and heads[losses].get_attribute("aria-sort") == "descending"
    heads[losses].find_element(By.TAG_NAME, "button").click()
    assert [int(v) for v in column(browser, "standings-table", losses)] == sorted(values)
    heads[0].find_element(By.TAG_NAME, "button").click()
    names = column(browser, "standings-table", 0)
    assert names == sorted(names, reverse=True)
    assert errors(browser) == []


@pytest.mark.processes
def test_filters_show_one_bots_wins(browser, stored):
    from results.store import Store

    with Store(stored[0], create=False) as store:
        rows = store.summaries(store.tournament())
    wins = {r["game_id"] for r in rows if (r["first"], r["result"]) in {("greedy", "1-0")}
            or (r["second"], r["result"]) in {("greedy", "0-1")}}
    load(browser, stored[1])
    Select(browser.find_element(By.NAME, "bot")).select_by_visible_text("greedy")
    Select(browser.find_element(By.NAME, "result")).select_by_value("win")
    visible = [int(r.get_attribute("data-id")) for r in browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
               if r.is_displayed()]
    assert set(visible) == wins
    assert browser.find_element(By.ID, "shown").text == f"{len(wins)} of {len(rows)} games shown"


def show_output(db, game_id, capsys) -> list[str]:
    capsys.readouterr()
    assert main(["show", str(db), str(game_id)]) == 0
    return capsys.readouterr().out.rstrip("\n").split("\n")


def open_replay(browser, game_id):
    browser.find_element(By.CSS_SELECTOR, f"button.replay[data-id='{game_id}']").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg, #board pre"))


def pieces(browser) -> list[str]:
    return [e.get_attribute("data-piece") for e in browser.find_elements(By.CSS_SELECTOR, "#board svg [data-piece]")]


@pytest.mark.processes
def test_replay_to_the_last_ply_shows_the_final_board_and_result(browser, stored, capsys):
    db, page = stored
    game_id = 5
    lines = show_output(db, game_id, capsys)
    board = [ln.split() for ln in lines if ln and set(ln.split()) <= set("XO.") and len(ln.split()) == 7]
    final = [cell for row in board[-6:] for cell in row]  # arena show prints the final board last
    load(browser, page)
    open_replay(browser, game_id)
    assert browser.find_element(By.ID, "ply-text").text.startswith("ply 0 of ")
    assert set(pieces(browser)) == {"."}
    browser.find_element(By.CSS_SELECTOR, "button[data-step='last']").click()
    assert pieces(browser) == final
    assert browser.find_element(By.ID, "replay-result").text == lines[-1]
    browser.find_element(By.CSS_SELECTOR, "button[data-step='back']").click()
    assert sum(p != "." for p in pieces(browser)) == sum(p != "." for p in final) - 1
    assert browser.find_element(By.ID, "replay-result").text == ""
    assert errors(browser) == []


@pytest.mark.processes
def test_jumping_to_a_ply_draws_that_position_with_its_move_statistics(browser, stored, registry):
    from results.store import Store

    with Store(stored[0], create=False) as store:
        row, moves = store.game(store.tournament(), 2)
    game = registry.game("connect4")
    played = row["opening"].split() + [m["move"] for m in moves]
    load(browser, stored[1])
    open_replay(browser, 2)
    box = browser.find_element(By.ID, "ply")
    box.clear()
    box.send_keys("4\n")
    assert pieces(browser) == game.pieces(game.play(played[:4]))
    current = browser.find_element(By.CSS_SELECTOR, "#moves-table tr.current").text.split()
    move = moves[4 - 1 - len(row["opening"].split())]
    assert current[0] == "3" and str(move["nodes"]) in current and move["move"] in current


@pytest.mark.processes
def test_a_game_without_a_picture_replays_its_text(browser, tmp_path, registry):
    from results.store import Store

    db, page = tmp_path / "nim.db", tmp_path / "nim.html"
    assert main(["run", "--game", "nim", "--bot", "random", "--bot", "greedy", "--games", "2", "--no-isolation",
                 "--jobs", "1", "--no-progress", "--db", str(db), "--html", str(page)]) == 0
    with Store(db, create=False) as store:
        row, moves = store.game(store.tournament(), 1)
    game = registry.game("nim")
    load(browser, page)
    open_replay(browser, 1)
    browser.find_element(By.CSS_SELECTOR, "button[data-step='last']").click()
    shown = browser.find_element(By.CSS_SELECTOR, "#board pre").get_attribute("textContent")
    assert shown == game.render(game.play(row["opening"].split() + [m["move"] for m in moves]))
    assert errors(browser) == []


@pytest.mark.processes
def test_a_chance_ply_is_listed_as_chance_and_said_as_what_it_gave(browser, tmp_path, registry):
    from results.store import Store

    db, page = tmp_path / "pig.db", tmp_path / "pig.html"
    assert main(["run", "--game", "pig:goal=20", "--bot", "random", "--bot", "greedy", "--games", "2", "--openings", "0",
                 "--no-isolation", "--jobs", "1", "--no-progress", "--db", str(db), "--html", str(page)]) == 0
    with Store(db, create=False) as store:
        row, moves = store.game(store.tournament(), 0)
    first = next(k for k, m in enumerate(moves) if m["player"] == -1)  # the first outcome drawn
    game = registry.game("pig:goal=20")
    load(browser, page)
    open_replay(browser, 0)
    rows = browser.find_elements(By.CSS_SELECTOR, "#moves-table tbody tr")
    assert len(rows) == len(moves)
    assert "chance" in rows[first].get_attribute("class") and rows[first].text.split()[1:3] == ["chance", moves[first]["move"]]
    box = browser.find_element(By.ID, "ply")
    box.clear()
    box.send_keys(f"{first + 1}\n")
    assert browser.find_element(By.ID, "ply-text").text.endswith(f": chance gave {moves[first]['move']}")
    shown = browser.find_element(By.CSS_SELECTOR, "#board pre").get_attribute("textContent")
    assert shown == game.render(game.play([m["move"] for m in moves[: first + 1]]))
    assert errors(browser) == []


@pytest.mark.processes
def test_a_400_game_default_tournament_is_small_and_quick(browser, tmp_path):
    """The default tournament's shape (Connect Four, five bots, 40 games per pairing, 400 games)
    at a smaller budget, so that it plays in seconds: under 5 MB, interactive in under 2 s."""
    db, page = tmp_path / "default.db", tmp_path / "default.html"
    assert main(["run", "--budget", "nodes=100", "--no-isolation", "--no-progress", "--db", str(db),
                 "--html", str(page)]) == 0
    size = page.stat().st_size
    assert size < 5 * 2**20
    started = time.perf_counter()
    load(browser, page)
    open_replay(browser, 399)
    seconds = time.perf_counter() - started
    timing = browser.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd")
    print(f"\n{page}: {size / 2**20:.2f} MB, load event at {timing:.0f} ms, a replay open after {seconds:.2f} s")
    assert timing < 2000 and seconds < 2
    assert len(browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")) == 400


@pytest.mark.processes
def test_screenshots(browser, stored, tmp_path_factory):
    folder = tmp_path_factory.mktemp("screenshots")
    load(browser, stored[1])
    browser.save_screenshot(str(folder / "top.png"))
    open_replay(browser, 5)
    browser.find_element(By.CSS_SELECTOR, "button[data-step='last']").click()
    browser.save_screenshot(str(folder / "replay.png"))
    browser.set_window_size(390, 844)  # a phone
    browser.save_screenshot(str(folder / "replay-phone.png"))
    browser.find_element(By.CSS_SELECTOR, "dialog .close").click()
    browser.save_screenshot(str(folder / "top-phone.png"))
    browser.set_window_size(1280, 900)
    print(f"\nscreenshots in {folder}")
    shots = sorted(folder.glob("*.png"))
    assert len(shots) == 4 and all(re.match(rb"\x89PNG", p.read_bytes()[:4]) for p in shots)
