"""Browser tests (Schocken, PIN, setup, history, game list): waitress + Chromium.

Phones are 390x844 pages; screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import pytest
from browser import become_scorekeeper, enter_throw, shot, wait_live
from conftest import PIN, WACKEN_SETUP

pytestmark = pytest.mark.browser


def test_scorekeeper_enters_a_schocken_round_and_the_other_phone_follows_live(server, phone):
    game = server.table.create_game("schocken", {"players": ["Anna", "Ben", "Cem"],
                                                 "starter": "Anna"}, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    watcher = phone(f"{server.url}/games/{game}")
    wait_live(watcher)
    watcher.evaluate("window.__sameDocument = true")  # gone if the page reloads
    shot(watcher, "schocken-guest-start")

    enter_throw(keeper, (6, 6, 5))
    watcher.wait_for_selector("#throws li[data-player='Anna']")
    assert "Ben" in watcher.inner_text("#turn")
    enter_throw(keeper, (1, 4, 1))  # Schock 4: the loser will get 4 Deckel
    watcher.wait_for_selector("#throws li[data-player='Ben'][data-class='schock']")
    assert "Ben" in watcher.inner_text("#throws li:first-child")  # ranked best first
    assert "4" in watcher.inner_text("#would-receive")
    shot(keeper, "schocken-keeper-mid-round")
    enter_throw(keeper, (3, 2, 2))

    watcher.wait_for_function("document.querySelector('#middle').textContent === '9'")
    assert watcher.inner_text("#last-round").count("Cem") >= 1
    assert watcher.inner_text(".player[data-player='Cem'] .deckel") == "4"
    assert watcher.evaluate("window.__sameDocument") is True
    assert server.table.snapshot(game)["version"] == 3
    shot(watcher, "schocken-guest-after-round")


def test_a_guest_without_the_pin_cannot_change_anything(server, phone):
    game = server.table.create_game("schocken", {"players": ["Anna", "Ben"]}, PIN)
    guest = phone(f"{server.url}/games/{game}")
    assert guest.locator("#keeper").count() == 0
    assert guest.locator("#entry").count() == 0
    # Even a hand-made request from the page, with its own CSRF token, is refused.
    status = guest.evaluate("""async () => {
        const r = await fetch(location.pathname + '/schocken/throw', {method: 'POST',
          headers: {'X-CSRF-Token': DC.csrf, 'Accept': 'application/json'},
          body: new URLSearchParams({d1: '1', d2: '1', d3: '1', throws: '1'})});
        return r.status; }""")
    assert status == 403
    guest.fill("#pin", "0000")
    guest.click("#unlock-button")
    guest.wait_for_selector("#error-message")
    assert "Falsche PIN" in guest.inner_text("#error-message")
    shot(guest, "guest-wrong-pin")
    assert server.table.snapshot(game)["version"] == 0


def test_new_game_through_the_setup_page(server, phone):
    page = phone(f"{server.url}/games/new?game=schocken")
    shot(page, "setup-schocken")
    page.fill("#name_0", "Anna")
    page.fill("#name_1", "Ben")
    page.check("input[name=starter][value='1']")
    # The rules are folded into one line with their values in German; a tap opens them.
    assert page.is_hidden("#rule_handschock")
    summary = page.inner_text("#rules-fold summary")
    assert "Original" in summary and "seed" not in summary and "tiebreak" not in summary
    page.click("#rules-fold summary")
    page.select_option("#rule_handschock", "above_all")
    page.fill("#new-pin", PIN)
    page.fill("#new-pin2", PIN)
    page.click("#start-game")
    page.wait_for_selector("#keeper")
    assert "Ben" in page.inner_text("#turn")
    games = server.table.list_games()
    assert [g["players"] for g in games] == [["Anna", "Ben"]]
    shot(page, "schocken-new-game-keeper")


def test_table_view_and_history_pages(server, phone):
    game = server.table.create_game("schocken", {"players": ["Anna", "Ben"]}, PIN)
    server.table.submit(game, {"action": "throw", "player": "Anna", "throws": 1,
                               "dice": [4, 2, 1], "hand": True}, "Kim")
    history = phone(f"{server.url}/games/{game}/history")
    history.wait_for_selector("#history li[data-version='1']")
    assert "Kim" in history.inner_text("#history")
    big = phone(f"{server.url}/games/{game}/table")
    wait_live(big)
    server.table.submit(game, {"action": "throw", "player": "Ben", "throws": 1,
                               "dice": [2, 2, 1], "hand": True}, "Kim")
    big.wait_for_selector("#last-round")
    history.wait_for_selector("#history li[data-version='2']")
    shot(big, "schocken-table-view")


def test_scorekeeper_corrects_a_throw_in_place_with_direct_values(server, phone):
    game = server.table.create_game("schocken", {"players": ["Anna", "Ben"]}, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    enter_throw(keeper, (4, 2, 1))
    watcher = phone(f"{server.url}/games/{game}")
    wait_live(watcher)
    # The entry in the game page's own history opens the editor under it: no other page.
    keeper.click("#history [data-edit='1']")
    assert keeper.locator("#editor textarea").count() == 0  # no JSON box
    chosen = keeper.locator("#editor [data-edit-die][aria-pressed='true']")
    assert chosen.all_inner_texts() == ["⚃", "⚁", "⚀"]
    keeper.click("#editor [data-edit-die='0'][data-value='6']")  # one tap: the value itself
    keeper.click("#editor [data-edit-die='1'][data-value='1']")
    assert chosen.all_inner_texts() == ["⚅", "⚀", "⚀"]
    keeper.click("#edit-save")
    keeper.wait_for_selector("#history li[data-version='2']")
    # The live update may show the correction before the save's own answer closes the
    # editor: wait for that answer, not for the list.
    keeper.wait_for_selector("#editor", state="detached")
    assert "#1" in keeper.inner_text("#history li[data-version='2']")
    watcher.wait_for_selector("#throws li[data-player='Anna'][data-class='schock']")
    keeper.click("#history [data-edit='1']")
    assert chosen.all_inner_texts() == ["⚅", "⚀", "⚀"]  # the correction in force
    # Two throws, then the hand box starts afresh (unticked); one throw ticks and locks it.
    keeper.click("#editor [data-edit-throws='2']")
    assert not keeper.is_checked("#edit-hand")
    keeper.click("#editor [data-edit-throws='1']")
    assert keeper.is_checked("#edit-hand") and keeper.is_disabled("#edit-hand")
    shot(keeper, "game-correction")
    keeper.click("#edit-cancel")
    # A correction the engine refuses is said next to the editor, in German: Anna (who
    # started) used one throw, so Ben cannot have used two.
    server.table.submit(game, {"action": "throw", "player": "Ben", "throws": 1,
                               "dice": [3, 3, 2]}, "Kim")
    keeper.wait_for_selector("#history [data-edit='3']")
    keeper.click("#history [data-edit='3']")
    keeper.click("#editor [data-edit-throws='2']")
    keeper.click("#edit-save")
    keeper.wait_for_selector("#editor .status.error")
    said = keeper.inner_text("#editor .status")
    assert "#3" in said and "höchstens 1-mal" in said, said
    assert "may" not in said and "throw" not in said
    assert server.table.snapshot(game)["version"] == 3  # nothing stored


def test_game_list_follows_a_new_game(server, phone):
    page = phone(f"{server.url}/")
    wait_live(page)
    assert page.locator("li[data-game-id]").count() == 0
    game = server.table.create_game("wacken", WACKEN_SETUP, PIN)
    page.wait_for_selector(f"li[data-game-id='{game}']")
    server.table.submit(game, {"action": "game_end", "reason": "rock_deck_empty"}, "Kim")
    page.wait_for_selector(f"li[data-game-id='{game}'][data-version='1']")


def test_a_list_page_catches_up_on_changes_made_before_its_stream_opened(server, phone):
    game = server.table.create_game("wacken", WACKEN_SETUP, PIN)
    page = phone(f"{server.url}/join")
    held = []
    def hold(route):
        held.append(route)

    page.route("**/events*", hold)  # the stream waits until the change is made
    page.goto(f"{server.url}/")
    page.wait_for_selector(f"li[data-game-id='{game}']")
    page.wait_for_function("window.DC !== undefined")
    server.table.submit(game, {"action": "game_end", "reason": "rock_deck_empty"}, "Kim")
    assert page.get_attribute(f"li[data-game-id='{game}']", "data-version") == "0"
    while not held:
        page.wait_for_timeout(50)
    held[0].continue_()
    page.unroute("**/events*")
    page.wait_for_selector(f"li[data-game-id='{game}'][data-version='1']")
