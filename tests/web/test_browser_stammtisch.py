"""Browser tests of the Stammtisch pages on a 390x844 phone: roster, player chart, evening tab.

Waitress + Debian's Chromium via Playwright; screenshots go to ``test-artifacts/``
(``shot`` also checks that nothing sticks out sideways at 360 and 390 px).
"""

from __future__ import annotations

import pytest
from browser import become_scorekeeper, shot, wait_live
from test_stammtisch import PIN, TAB_SETUP, finish_tab_game

pytestmark = pytest.mark.browser


def test_the_roster_and_a_player_page_with_a_chart(server, phone):
    table = server.table
    table.stammtisch.add_player("Ben", "Benni", "blue")
    # The scorekeeper unlocks while the game runs (a finished game offers no unlocking).
    game = table.create_game("schocken", TAB_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    finish_tab_game(table, game)  # Ben (on the roster) loses both halves
    keeper.goto(f"{server.url}/players")
    keeper.fill("#new-name", "Cleo")
    keeper.fill("#new-nick", "Clo")
    keeper.select_option("#new-colour", "green")
    keeper.click("#add-player-button")
    keeper.wait_for_selector("#rename")  # the new player's own page
    keeper.goto(f"{server.url}/players")
    names = keeper.locator("ul.roster li strong").all_inner_texts()
    assert names == ["Ben", "Cleo"]
    # Ben's line in the Schocken table: 2 halves lost, a Durchmarsch; Anna plays as a guest.
    assert keeper.inner_text("table.stats tr[data-key='p1'] td[data-stat='halves_lost']") == "2"
    assert keeper.inner_text("table.stats tr[data-key='p1'] td[data-stat='durchmarsch']") == "1"
    assert "Gast" in keeper.inner_text("table.stats tr[data-key='g:Anna']")
    shot(keeper, "stammtisch-roster")

    keeper.click("ul.roster li[data-player-id='1'] a")
    keeper.wait_for_selector("#monthly-schocken svg.chart")
    bars = keeper.locator("#monthly-schocken svg.chart rect.bar")
    assert bars.count() == 1
    assert ": 2" in bars.first.locator("title").text_content()
    box = keeper.locator("#monthly-schocken svg.chart").bounding_box()
    assert box is not None and 300 <= box["width"] <= 390
    shot(keeper, "stammtisch-player")

    # A stranger sees the numbers but no forms that change the roster.
    stranger = phone(f"{server.url}/players/1")
    assert stranger.locator("#rename").count() == 0
    assert stranger.locator("#monthly-schocken svg.chart rect.bar").count() == 1


def test_the_evening_page_with_the_tab_settled_in_one_tap(server, phone):
    table = server.table
    table.stammtisch.add_player("Ben")
    game = table.create_game("schocken", TAB_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    finish_tab_game(table, game)
    evening = table.stammtisch.current_evening()
    # A friend watches the evening under the page's real Content-Security-Policy.
    friend = phone(f"{server.url}/evening/{evening}", bypass_csp=False)
    errors: list[str] = []
    friend.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    wait_live(friend)
    assert friend.locator("button.settle").count() == 0
    keeper.goto(f"{server.url}/evening?lang=de")
    keeper.wait_for_selector("#tab")
    row = "#tab tr[data-key='p1']"
    assert keeper.inner_text(f"{row} .open") == "2"
    assert keeper.locator("#evening-games svg.chart polyline").count() == 2
    assert "Ben: 2 €" in keeper.inner_text("#summary-text")
    shot(keeper, "stammtisch-evening")
    keeper.click(f"{row} button.settle")
    keeper.wait_for_selector(f"{row} .ok")
    assert keeper.inner_text(f"{row} .open") == "0"
    assert "Zeche bezahlt" in keeper.inner_text("#summary-text")
    # The friend's page follows live (the settlement is an event everyone hears of).
    friend.wait_for_function(
        "document.querySelector(\"#tab tr[data-key='p1'] .open\").textContent === '0'")
    assert errors == []
    shot(keeper, "stammtisch-evening-settled")

    keeper.click("#print-link")
    keeper.wait_for_selector("body.print #tab")
    assert keeper.locator("button").count() == 0
    shot(keeper, "stammtisch-evening-print")
