"""The HTML report of a game of more than two seats: a real four-seat Rolit tournament, its page
read as text (standings, versus, by seat, endings, the games and their replays) and, when
Chromium, chromedriver and selenium are installed, opened in headless Chromium.
"""

import html
import json
import re
from collections import Counter

import pytest

from tests.helpers import CHROMIUM, DRIVER, headless_chromium

from arena.front.cli import main

pytest.importorskip("jinja2", reason="the html extra (Jinja2) is not installed")

needs_browser = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Chromium and chromedriver are not installed")
# in this process (--no-isolation): the page, not the bots' processes, is what these tests read
ROLIT = ["--game", "rolit", "--bot", "random", "--bot", "greedy", "--bot", "r2=random", "--bot", "g2=greedy",
         "--games", "12", "--jobs", "1", "--no-isolation", "--no-progress"]
COLOURS = ["red", "yellow", "green", "blue"]


@pytest.fixture(scope="module")
def rolit(tmp_path_factory):
    """A four-seat Rolit tournament (12 games), its tables, and its page as ``arena report --html`` writes it."""
    import results

    folder = tmp_path_factory.mktemp("rolit")
    db, page = folder / "rolit.db", folder / "rolit.html"
    assert main(["run", *ROLIT, "--db", str(db)]) == 0
    assert main(["report", str(db), "--html", str(page)]) == 0
    tables = results.load(db)
    assert tables.players == 4 and len(tables.games) == 12
    return db, tables, page, page.read_text(encoding="utf-8")


def section(page: str, name: str) -> str:
    found = re.search(rf'<section id="{name}"[^>]*>(.*?)</section>', page, re.S)
    assert found, f"no section {name!r} in the page"
    return found.group(1)


def table_rows(part: str, table_id: str | None = None) -> list[list[tuple[str | None, str]]]:
    """Each body row of a table: per cell its data-value (or None) and its text."""
    if table_id is not None:
        part = re.search(rf'<table id="{table_id}".*?</table>', part, re.S).group(0)
    body = re.search(r"<tbody>(.*?)</tbody>", part, re.S).group(1)
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = []
        for attributes, text in re.findall(r"<t[hd]([^>]*)>(.*?)</t[hd]>", row, re.S):
            value = re.search(r'data-value="([^"]*)"', attributes)
            cells.append((value and html.unescape(value.group(1)), html.unescape(re.sub(r"<[^>]+>", " ", text)).strip()))
        rows.append(cells)
    return rows


def headers(part: str, table_id: str) -> list[str]:
    head = re.search(rf'<table id="{table_id}".*?<thead>(.*?)</thead>', part, re.S).group(1)
    return [html.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<th[^>]*>(.*?)</th>", head, re.S)]


@pytest.mark.processes
def test_standings_are_the_plackett_luce_table_with_word_headers(rolit):
    from results.seat_report import seat_standings

    _, tables, _, page = rolit
    expected = seat_standings(tables.seats, tables.moves)
    part = section(page, "standings")
    assert "Plackett-Luce fit over each game's ranking" in part and "first mover" not in part
    assert headers(part, "standings-table")[:10] == [
        "Bot", "Games", "Wins", "Shared firsts", "Points", "Score rate", "Mean rank", "Win rate", "Elo", "Elo ± (95%)"]
    rows = table_rows(part, "standings-table")
    assert [r[0][1] for r in rows] == list(expected.index)
    columns = ["games", "wins", "shared", "points", "score_rate", "mean_rank", "win_rate", "elo"]
    for row, (bot, values) in zip(rows, expected.iterrows()):
        assert [float(v) for v, _ in row[1:9]] == pytest.approx([float(values[c]) for c in columns], rel=1e-9)
        assert row[8][1] == f"{values['elo']:+.0f}"
        assert float(row[9][0]) == pytest.approx((values["elo_high"] - values["elo_low"]) / 2)
    assert sum(int(r[2][1]) for r in rows) == len(tables.games)  # every game has one winner here


def test_versus_replaces_the_crosstable_and_by_seat_the_colours(rolit):
    from results.seat_report import by_seat, seat_terminations

    _, tables, _, page = rolit
    for gone in ('id="crosstable"', 'id="colours-table"', 'id="faults-table"', "Games as ", "wins-draws-losses"):
        assert gone not in page
    seats = tables.seats
    together, ahead = Counter(), Counter()
    for _, game in seats.groupby("game_id"):
        for a in game.itertuples():
            for b in game.itertuples():
                if a.bot != b.bot:
                    together[a.bot, b.bot] += 1
                    ahead[a.bot, b.bot] += 1.0 if a.rank < b.rank else 0.5 if a.rank == b.rank else 0.0
    rows = table_rows(section(page, "versus"))
    order = [r[0][1] for r in rows]
    assert sorted(order) == sorted(set(seats["bot"]))
    for row in rows:
        for other, (_, text) in zip(order, row[1:]):
            if other == row[0][1]:
                assert text == "–"
            else:
                games = together[row[0][1], other]
                assert text.split() == [f"{100 * ahead[row[0][1], other] / games:.0f}%", str(games), "games"]
    by = by_seat(seats, order)
    part = section(page, "seats")
    assert headers(part, "seats-table") == ["Bot"] + [f"Seat {k + 1} ({c})" for k, c in enumerate(COLOURS)]
    shown = {r[0][1]: [float(v) for v, _ in r[1:]] for r in table_rows(part, "seats-table")}
    assert list(shown) == order + ["all"]
    for bot, values in shown.items():
        assert values == pytest.approx(list(by.loc[bot]))
    endings = table_rows(section(page, "endings"), "endings-table")
    assert {r[0][1]: int(r[1][1]) for r in endings} == seat_terminations(seats, tables.games, order)["normal"].to_dict()


def listed_games(page: str) -> list[tuple[int, list[str], str, list[int]]]:
    """(id, bots in seat order, result, its group's ids) of every listed game, from the columns
    the page's script draws the list from (``results.html_parts.listing``)."""
    data = json.loads(re.search(r'id="games-data">(.*?)</script>', page).group(1))
    text, n, ids = data["text"], data["players"], data["id"]
    starts = data["groups"] + [len(ids)]
    out = []
    for start, end in zip(starts, starts[1:]):
        for k in range(start, end):
            bots = [text[c] for c in data["seats"][k * n:(k + 1) * n] if c >= 0]
            out.append((ids[k], bots, text[data["result"][k]], ids[start:end]))
    return out


def test_every_game_is_listed_with_its_four_seats_in_rounds(rolit):
    _, tables, _, page = rolit
    seated = {int(g): list(s.sort_values("seat")["bot"]) for g, s in tables.seats.groupby("game_id")}
    listed = listed_games(page)
    assert sorted(gid for gid, *_ in listed) == sorted(tables.games["game_id"]) == sorted(seated)
    assert "Seats (red, yellow, green, blue)" in page and "<th scope=\"col\">First</th>" not in page
    games = tables.games.set_index("game_id")
    for gid, bots, result, group in listed:
        assert bots == seated[gid] and len(bots) == 4 and result == games.at[gid, "result"]
        assert len(group) == 4  # a round: every bot in every seat once
        assert all(sorted(seated[g][s] for g in group) == sorted(seated[gid]) for s in range(4))


def test_replays_hold_every_seat_and_every_board(rolit, registry):
    from results.replay import board, unpack

    db, tables, _, page = rolit
    game = registry.game("rolit")
    packed = json.loads(re.search(r'id="replay-data">(.*?)</script>', page).group(1))
    assert sorted(int(g) for g in packed) == sorted(tables.games["game_id"])
    seated = {int(g): list(s.sort_values("seat")["bot"]) for g, s in tables.seats.groupby("game_id")}
    moves = tables.moves.groupby("game_id")
    for row in tables.games.itertuples():
        data = unpack(packed[str(row.game_id)])
        played = moves.get_group(row.game_id)
        assert data["error"] is None and data["names"] == COLOURS and data["seats"] == seated[row.game_id]
        assert len(data["boards"]) == row.plies + 1 == len(data["moves"]) + 1
        assert [m["player"] for m in data["moves"][data["opening"]:]] == list(played["player"])
        final = game.play(row.opening.split() + list(played["move"]))
        assert board(data, row.plies) == game.svg(final)


def test_the_elo_chart_is_the_plackett_luce_fit(rolit, tmp_path):
    pytest.importorskip("matplotlib", reason="the plots extra (matplotlib) is not installed")
    from results.plots import plot_all

    _, tables, _, page = rolit
    chart = re.search(r'<section id="charts">(.*?)</section>', page, re.S).group(1)
    assert "Plackett-Luce Elo ratings" in chart and "Plackett-Luce Elo with its 95% interval" in chart
    assert "Charts are not drawn" not in chart
    paths = plot_all(tables.games, tables.moves, tmp_path, tables.about, seats=tables.seats)
    assert sorted(p.name for p in paths) == ["crosstable.png", "elo.png", "nodes_by_depth.png"]


# ---- in a browser ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the test extra) is not installed")
    driver = headless_chromium(webdriver)
    yield driver
    driver.quit()


def load(browser, page):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(page.as_uri())
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return browser


def errors(browser) -> list:
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def visible_games(browser) -> set[int]:
    from selenium.webdriver.common.by import By

    return {int(r.get_attribute("data-id")) for r in browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
            if r.is_displayed()}


@pytest.mark.processes
@needs_browser
def test_a_replay_names_every_seat_and_its_bot(browser, rolit):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from results.store import Store

    db, tables, page, _ = rolit
    game_id = 2
    with Store(db, create=False) as store:
        row, moves = store.game(store.tournament(), game_id)
    seats = list(tables.seats[tables.seats.game_id == game_id].sort_values("seat")["bot"])
    opening = row["opening"].split()
    load(browser, page)
    assert errors(browser) == []
    assert browser.find_element(By.CSS_SELECTOR, f"#games-table tr[data-id='{game_id}'] td.seats").text == ", ".join(seats)
    browser.find_element(By.CSS_SELECTOR, f"button.replay[data-id='{game_id}']").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg"))
    assert browser.find_element(By.ID, "replay-players").text == (
        ", ".join(f"{c}: {b}" for c, b in zip(COLOURS, seats)) + f"; the first {len(opening)} plies are the random opening")
    rows = browser.find_elements(By.CSS_SELECTOR, "#moves-table tbody tr")
    assert len(rows) == len(opening) + len(moves)
    for seat in (2, 3):  # seats past the first two
        k = next(k for k, m in enumerate(moves) if m["player"] == seat)
        shown = rows[len(opening) + k].find_elements(By.TAG_NAME, "td")
        assert [shown[1].text, shown[2].text] == [f"{COLOURS[seat]}: {seats[seat]}", moves[k]["move"]]
        box = browser.find_element(By.ID, "ply")
        box.clear()
        box.send_keys(f"{len(opening) + k + 1}\n")
        assert browser.find_element(By.ID, "ply-text").text.endswith(
            f": {COLOURS[seat]} ({seats[seat]}) played {moves[k]['move']}")
    browser.find_element(By.CSS_SELECTOR, "button[data-step='last']").click()
    assert browser.find_element(By.ID, "replay-result").text.startswith(f"result {row['result']} (normal): ")
    browser.find_element(By.CSS_SELECTOR, "dialog .close").click()
    assert errors(browser) == []


@pytest.mark.processes
@needs_browser
def test_filters_find_a_bot_at_any_seat_and_its_wins(browser, rolit, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    import results

    _, tables, page, _ = rolit
    load(browser, page)
    Select(browser.find_element(By.NAME, "bot")).select_by_visible_text("r2")
    Select(browser.find_element(By.NAME, "result")).select_by_value("loss")
    seats = tables.seats
    assert visible_games(browser) == set(seats[(seats.bot == "r2") & (seats.points == 0)]["game_id"])
    Select(browser.find_element(By.NAME, "bot")).select_by_visible_text("greedy")
    Select(browser.find_element(By.NAME, "result")).select_by_value("win")
    wins = set(seats[(seats.bot == "greedy") & (seats.points == 1)]["game_id"])
    assert visible_games(browser) == wins and wins
    assert browser.find_element(By.ID, "shown").text == f"{len(wins)} of {len(tables.games)} games shown"

    # four bots at tables of three: the bot filter leaves out the tables without the bot
    db, nim = tmp_path / "nim3.db", tmp_path / "nim3.html"
    assert main(["run", "--game", "nim:players=3", "--bot", "random", "--bot", "greedy", "--bot", "r2=random",
                 "--bot", "g2=greedy", "--games", "6", "--jobs", "1", "--no-progress", "--db", str(db),
                 "--html", str(nim)]) == 0
    seats = results.load(db).seats
    load(browser, nim)
    Select(browser.find_element(By.NAME, "bot")).select_by_visible_text("g2")
    played = set(seats[seats.bot == "g2"]["game_id"])
    assert visible_games(browser) == played and 0 < len(played) < seats["game_id"].nunique()
    assert set(seats[(seats.bot == "g2") & (seats.seat == 2)]["game_id"]) <= played
    assert errors(browser) == []
