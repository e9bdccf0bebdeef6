"""Browser test: when the camera is unsure of a die (or finds too few), the button records
nothing, but the scorekeeper's phone opens what it read in the game's own editor, to mend
the one die and record the throw."""

from __future__ import annotations

import pytest
from browser import become_scorekeeper, shot
from conftest import BOCK_SETUP, PIN, SCHOCKEN_SETUP

pytestmark = pytest.mark.browser

JPEG = b"\xff\xd8\xff\xd9"


def _publish(table, game, proposal, dice=()):
    """A picture for ``game`` with ``proposal``; ``dice`` (value, unsure) as the camera read."""
    version = table.snapshot(game)["version"]
    table.publish_picture(JPEG, {
        "game_id": game, "version": version, "proposal": proposal,
        "dice": [{"value": v, "uncertain": u, "confidence": 0.6 if u else 0.97} for v, u in dice]})
    return version


def _unclear(player, dice, said="Ein Würfel ist unklar"):
    """The runtime's proposal for a Schocken throw with a flagged die: no action, a draft."""
    return {"action": None,
            "draft": {"action": "throw", "player": player, "dice": list(dice), "throws": 1,
                      "hand": True},
            "text": {"de": said, "en": "a die is unclear"}}


def test_an_unsure_die_is_mended_in_the_editor_and_the_throw_recorded(server, phone):
    game = server.table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    said = "Ein Würfel ist unklar: am Handy prüfen und eintragen"
    version = _publish(server.table, game, _unclear("Anna", (6, 5, 2), said),
                       dice=((6, False), (2, True), (5, False)))
    keeper.wait_for_selector("#check-proposal")
    assert "Ein Würfel ist unklar" in keeper.inner_text("#proposal-said")
    assert keeper.locator("#take-proposal").count() == 0  # nothing to take in one tap
    keeper.click("#check-proposal")
    draft = keeper.locator("#draft")
    # The camera's reading, its unsure die among the others, ready to mend.
    assert draft.locator("[data-edit-die='2'][data-value='2']").get_attribute(
        "aria-pressed") == "true"
    # The die it was unsure of (the 2, third of 6-5-2) is marked, and only that one.
    assert draft.locator(".dice-row.unsure").count() == 1
    assert draft.locator(".dice-row.unsure").get_attribute("aria-label") == "Würfel 3"
    assert draft.locator(".dice-row.unsure .die-label").inner_text() == "Würfel 3 ?"
    # Another picture of the same rest (a hand over the tray) leaves the editor open.
    _publish(server.table, game, _unclear("Anna", (6, 5, 2)))
    keeper.wait_for_timeout(500)
    draft.locator("[data-edit-die='2'][data-value='3']").click()
    assert keeper.locator("#draft").count() == 1
    assert draft.locator("#edit-save").inner_text() == "Eintragen"  # a new entry, no correction
    shot(keeper, "phone-camera-draft")  # nothing sticks out sideways on a phone
    draft.locator("#edit-save").click()
    keeper.wait_for_selector("#entry .entry-who:has-text('Ben')")
    snap = server.table.snapshot(game)
    assert snap["version"] == version + 1
    last = snap["history"][-1]["action"]
    assert sorted(last["dice"]) == [3, 5, 6] and last["player"] == "Anna"
    assert last["throws"] == 1 and last["hand"] is True
    # Recorded, the draft is stale: the box is empty again.
    assert keeper.locator("#check-proposal").count() == 0
    assert keeper.locator("#draft").count() == 0


def test_a_roll_with_a_die_not_found_is_completed_in_the_editor(server, phone):
    game = server.table.create_game("rockthebock", BOCK_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}", lang="en")
    become_scorekeeper(keeper)
    _publish(server.table, game, {
        "action": None,
        "draft": {"action": "roll", "player": "Rita",
                  "faces": {"bock": 3, "wolf": 4, "goat_red": 2}},
        "text": {"de": "9 Würfel in der Schale; Rita würfelt mit 10",
                 "en": "9 dice in the tray; Rita rolls 10"}},
        dice=(("bock", False),) * 3 + (("wolf", False),) * 4 + (("goat_red", True),
                                                                ("goat_red", False)))
    keeper.click("#check-proposal")
    draft = keeper.locator("#draft")
    counts = {f: draft.locator(f"[data-edit-count='{f}']").inner_text()
              for f in ("bock", "wolf", "goat_red", "goat_green")}
    assert counts == {"bock": "3", "wolf": "4", "goat_red": "2", "goat_green": "0"}
    assert "red goat ?" in draft.locator(".counter.unsure").inner_text()
    assert draft.locator(".counter.unsure").count() == 1
    draft.locator("[data-edit-face='goat_green+']").click()
    draft.locator("#edit-save").click()
    keeper.wait_for_selector("#pending")
    pending = server.table.snapshot(game)["view"]["pending_roll"]
    assert pending == {"bock": 3, "wolf": 4, "goat_red": 2, "goat_green": 1}
    assert keeper.locator("#draft").count() == 0


def test_a_refused_draft_says_why_and_stays_open(server, phone):
    game = server.table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    version = _publish(server.table, game, _unclear("Ben", (2, 2, 1)))
    keeper.click("#check-proposal")
    keeper.locator("#draft #edit-save").click()
    keeper.wait_for_selector("#draft .status.error")
    assert "Anna ist dran, nicht Ben" in keeper.inner_text("#draft .status")
    assert server.table.snapshot(game)["version"] == version  # nothing stored


def test_a_throw_read_before_the_page_was_opened_is_offered_once_unlocked(server, phone):
    # The keeper's phone was asleep when the dice came to rest: opening the page (and
    # entering the PIN) must still offer what the camera read, not wait for the next throw.
    game = server.table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    _publish(server.table, game, _unclear("Anna", (4, 4, 1)),
             dice=((4, True), (4, False), (1, False)))
    guest = phone(f"{server.url}/games/{game}")
    guest.wait_for_selector("#camera-panel", state="visible")  # the picture, for everyone
    keeper = phone(f"{server.url}/games/{game}")
    keeper.wait_for_selector("#camera-panel", state="visible")
    assert keeper.locator("#check-proposal").count() == 0  # nothing to act on without the PIN
    become_scorekeeper(keeper)
    keeper.wait_for_selector("#check-proposal")
    # A sure reading read before the page opened is the one-tap proposal, the same way.
    _publish(server.table, game, {
        "action": {"action": "throw", "player": "Anna", "dice": [4, 4, 1], "throws": 1,
                   "hand": True},
        "text": {"de": "Anna 4-4-1 (1 Wurf)", "en": "Anna 4-4-1 (1 throw)"}})
    later = phone(f"{server.url}/games/{game}")
    become_scorekeeper(later)
    later.wait_for_selector("#take-proposal:has-text('Anna 4-4-1')")


def test_a_picture_read_while_the_phones_stream_was_connecting_is_offered(server, phone):
    # Unlocking reloads the page; a rest read before its new event stream is open sends
    # its notice to nobody. The page must still offer it once the stream opens.
    game = server.table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    held = []

    def hold(route):  # every new event stream waits here
        held.append(route)

    keeper.route("**/events*", hold)
    become_scorekeeper(keeper)
    # The reloaded page opens its stream from a script after the panel shows: give it
    # the time a busy machine takes (a shared CI runner once took longer than none).
    for _ in range(200):
        if held:
            break
        keeper.wait_for_timeout(50)
    assert held, "the unlocked page opened no event stream"
    _publish(server.table, game, _unclear("Anna", (5, 5, 3)))
    for route in held:
        route.continue_()
    keeper.unroute("**/events*")
    keeper.wait_for_selector("#live-dot.on")
    keeper.wait_for_selector("#check-proposal")
    assert "Ein Würfel ist unklar" in keeper.inner_text("#proposal-said")
