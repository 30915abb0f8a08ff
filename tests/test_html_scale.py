"""The HTML report of a few thousand games: replays for a sample and for every game lost by a
fault, the page saying which and how to show the others, and the whole list of games paged,
sorted and filtered in headless Chromium (selenium; skipped without it). The 100,000-game case
is bench/html_scale.py's.
"""

import json
import re
import shlex
from dataclasses import replace

import pytest

from tests.helpers import CHROMIUM, DRIVER, headless_chromium

from arena.front.cli import main
from arena.front.tournament import Entrant
from results.sprt_report import game_pairs
from tests.report_data import config, store_tournament

pytest.importorskip("jinja2", reason="the html extra (Jinja2) is not installed")
SCALE = pytest.mark.slow(reason="a page of 2,400 games: the scale the sample and the caps are for")

needs_browser = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Chromium and chromedriver are not installed")
GAMES = 2400  # three pairings of 800: more than the sample's 500
FAULTS = {k: ("crash", k % 2) for k in range(5, GAMES, 211)}  # stored as lost by a crash; no two in one pair


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """(database, tables, page, its text): 2,400 tic-tac-toe games, 12 lost by a fault, and the
    page ``arena report --html`` writes of them."""
    import results

    folder = tmp_path_factory.mktemp("scale")
    db, page = folder / "many.db", folder / "many.html"
    bots = (Entrant("rnd", "random"), Entrant("greedy", "greedy"), Entrant("r2", "random"))
    store_tournament(db, replace(config("many", games=GAMES // 3), bots=bots), faults=FAULTS)
    assert main(["report", str(db), "--html", str(page)]) == 0
    return db, results.load(db), page, page.read_text(encoding="utf-8")


def embedded(page: str, name: str):
    return json.loads(re.search(rf'id="{name}">(.*?)</script>', page).group(1))


@SCALE
def test_the_page_replays_a_sample_of_whole_pairs_and_every_fault_and_says_so(many):
    db, tables, _, page = many
    games = tables.games.set_index("game_id")
    replayed = {int(g) for g in embedded(page, "replay-data")}
    faults = set(games.index[games["loser"].notna()])
    assert faults == set(FAULTS) and faults <= replayed
    partner = {a: b for pair in game_pairs(tables.games)[0] for a, b in (pair, pair[::-1])}
    sample = {g for g in replayed if partner[g] in replayed}  # whole pairs; a fault alone is not the sample's
    assert len(sample) == 500 and replayed == sample | faults
    per_pairing = games.loc[sorted(sample), "pairing"].value_counts()
    assert len(per_pairing) == 3 and per_pairing.max() - per_pairing.min() <= 2  # a pair from each pairing in turn
    note = re.search(r'<p class="note" id="replays-note">(.*?)</p>', page).group(1)
    assert note.startswith(f"{len(replayed):,} of the {GAMES:,} games have their replay here")
    assert "a sample of 500 games (250 colour-swapped pairs drawn at random" in note
    assert f"every game lost by a fault ({len(faults)})" in note
    assert f"arena show {shlex.quote(str(db))} ID --tournament many prints its moves and boards" in note
    listed = embedded(page, "games-data")
    assert sorted(listed["id"]) == list(range(GAMES)) and len(listed["groups"]) == GAMES // 2


@SCALE
def test_smaller_caps_replay_the_first_faults_and_fewer_plies(many, registry):
    from results.html_report import html

    db, tables, _, page = many
    game = registry.game("tictactoe")
    capped = html(tables, game, sample=(20, 10**6), faults=(3, 10**6))
    replayed = {int(g) for g in embedded(capped, "replay-data")}
    first = set(sorted(FAULTS)[:3])
    assert first <= replayed and not (set(FAULTS) - first) & replayed and len(replayed - first) == 20
    assert "the first 3 by game id of the 12 games lost by a fault" in capped
    assert "arena show DATABASE ID" in capped  # no database named
    short = {int(g) for g in embedded(html(tables, game, sample=(500, 100), faults=(0, 0)), "replay-data")}
    plies = tables.games.set_index("game_id")["plies"]
    assert 0 < len(short) < 30 and plies[sorted(short)].sum() <= 100
    assert embedded(html(tables, game, database=str(db)), "replay-data") == embedded(page, "replay-data")  # reproducible


def test_the_caps_hold_on_a_small_tournament_too(tmp_path, registry):
    import results
    from results.html_report import html

    db = tmp_path / "small.db"
    faults = {3: ("crash", 1), 10: ("crash", 0)}
    store_tournament(db, config("small", games=8), faults=faults)  # 3 pairings of 8 games
    tables = results.load(db)
    page = html(tables, registry.game("tictactoe"), sample=(6, 10**6), faults=(1, 10**6))
    replayed = {int(g) for g in embedded(page, "replay-data")}
    assert 3 in replayed and 10 not in replayed  # the first fault by game id, and only it
    partner = {a: b for pair in game_pairs(tables.games)[0] for a, b in (pair, pair[::-1])}
    sample = replayed - {3}
    assert len(sample) == 6 and all(partner[g] in sample for g in sample)  # whole pairs
    assert "the first 1 by game id of the 2 games lost by a fault" in page


# ---- in a browser ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the test extra) is not installed")
    driver = headless_chromium(webdriver, offline=False)
    yield driver
    driver.quit()


EVERY_PAGE = """const rows = [], pages = [];
document.querySelector('#pages button[data-page=first]').click();
for (;;) {
  const shown = Array.from(document.querySelectorAll('#games-table tbody tr'), (r) =>
    [Number(r.dataset.id), Number(r.cells[5].textContent), r.querySelector('button.replay') !== null]);
  rows.push(...shown);
  pages.push(shown.length);
  const next = document.querySelector('#pages button[data-page=forward]');
  if (document.getElementById('pages').hidden || next.disabled) break;
  next.click();
}
return [rows, pages];"""


def every_page(browser):
    """Each listed game as (id, plies, has a replay button), through every page; and each page's count."""
    rows, pages = browser.execute_script(EVERY_PAGE)
    return [tuple(r) for r in rows], pages


@SCALE
@pytest.mark.processes
@needs_browser
def test_every_game_is_listed_page_by_page_sorted_and_filtered(many, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    _, tables, page, text = many
    replayed = {int(g) for g in embedded(text, "replay-data")}
    plies = dict(zip(tables.games["game_id"], tables.games["plies"]))
    browser.get(page.as_uri())
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    assert browser.find_element(By.ID, "shown").text == f"{GAMES} of {GAMES} games shown"
    rows, pages = every_page(browser)
    assert sorted(r[0] for r in rows) == list(range(GAMES)) and all(plies[i] == p for i, p, _ in rows)
    assert {i for i, _, button in rows if button} == replayed and min(pages[:-1]) >= 500 and len(pages) == 5

    heads = {h.text: h for h in browser.find_elements(By.CSS_SELECTOR, "#games-table thead th")}
    heads["Plies"].find_element(By.TAG_NAME, "button").click()
    assert heads["Plies"].get_attribute("aria-sort") == "descending"
    rows, _ = every_page(browser)
    assert [p for _, p, _ in rows] == sorted(plies.values(), reverse=True) and len({r[0] for r in rows}) == GAMES
    heads["Plies"].find_element(By.TAG_NAME, "button").click()
    rows, _ = every_page(browser)
    assert [p for _, p, _ in rows] == sorted(plies.values())
    heads["Plies"].find_element(By.TAG_NAME, "button").click()  # the third click: pairs again
    assert heads["Plies"].get_attribute("aria-sort") is None and browser.find_elements(By.CSS_SELECTOR, "tbody.pair")

    Select(browser.find_element(By.NAME, "replay")).select_by_value("yes")
    assert {r[0] for r in every_page(browser)[0]} == replayed
    assert browser.find_element(By.ID, "shown").text == f"{len(replayed)} of {GAMES} games shown"
    Select(browser.find_element(By.NAME, "replay")).select_by_value("no")
    rows, _ = every_page(browser)
    assert len(rows) == GAMES - len(replayed) and not any(button for *_, button in rows)
    Select(browser.find_element(By.NAME, "replay")).select_by_value("")
    Select(browser.find_element(By.NAME, "termination")).select_by_visible_text("crash")
    assert {r[0] for r in every_page(browser)[0]} == set(FAULTS)
    crashed = browser.find_element(By.CSS_SELECTOR, "#games-table tbody tr td:nth-child(5)").text
    assert re.fullmatch(r"crash \((rnd|greedy|r2)\)", crashed)
    Select(browser.find_element(By.NAME, "termination")).select_by_value("")

    box = browser.find_element(By.ID, "find-game")
    box.send_keys(f"{GAMES - 1}\n")
    assert browser.find_element(By.ID, "page-text").text == "page 5 of 5"
    assert browser.find_element(By.CSS_SELECTOR, "#games-table tr.found").get_attribute("data-id") == str(GAMES - 1)
    fault = min(FAULTS)
    box.clear()
    box.send_keys(f"{fault}\n")
    browser.find_element(By.CSS_SELECTOR, f"button.replay[data-id='{fault}']").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg"))
    browser.find_element(By.CSS_SELECTOR, "button[data-step='last']").click()
    result = tables.games.set_index("game_id").at[fault, "result"]
    assert browser.find_element(By.ID, "replay-result").text.startswith(f"result {result} (crash)")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
