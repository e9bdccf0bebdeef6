"""Browser tests: the real waitress server and Debian's Chromium through Playwright.

Two phones (390x844) look at one game: the scorekeeper enters on one, the other page
follows live without reloading. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, PHONE, live_server
from conftest import BOCK_SETUP, PIN, WACKEN_SETUP

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}; install it with apt (chromium)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def server(tmp_path):
    with live_server(tmp_path) as running:
        yield running


@pytest.fixture
def phone(browser):
    """A factory of phone-sized pages, each in its own browser context (own cookies)."""
    contexts = []

    def open_phone(url: str, lang: str = "de"):
        context = browser.new_context(viewport=PHONE, device_scale_factor=1)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(5000)
        page.goto(f"{url}?lang={lang}" if "?" not in url else url)
        return page

    yield open_phone
    for context in contexts:
        context.close()


def shot(page, name: str) -> None:
    """The phone's screen from the top (390x844), and the whole page as ``<name>-full``."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.screenshot(path=str(ARTIFACTS / f"{name}-full.png"), full_page=True)


def become_scorekeeper(page) -> None:
    page.fill("#pin", PIN)
    page.fill("input[name=who]", "Kim")
    page.click("#unlock-button")
    page.wait_for_selector("#keeper")


def wait_live(page) -> None:
    page.wait_for_selector("#live-dot.on")


def enter_throw(page, dice: tuple[int, int, int], throws: int = 1) -> None:
    for die in dice:
        page.click(f"#entry button[data-die='{die}']")
    page.click(f"#entry button[data-throws='{throws}']")
    page.click("#throw-send")


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


def test_a_rock_the_bock_turn_through_the_ui(server, phone):
    game = server.table.create_game("rockthebock", BOCK_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    watcher = phone(f"{server.url}/games/{game}")
    wait_live(watcher)
    for face, count in (("bock", 3), ("wolf", 4), ("goat_red", 2), ("goat_green", 1)):
        for _ in range(count):
            keeper.click(f"#entry button[data-face='{face}']")
    assert "10" in keeper.inner_text("#roll-total")
    keeper.click("#roll-send")
    keeper.wait_for_selector("#entry button[data-kind='wolf'][data-victim='Bo']")
    # Green goats belong to nobody: the engine offers them to dump (default house rule).
    assert keeper.locator("#entry button[data-kind='goat_green']").count() == 1
    shot(keeper, "rockthebock-choose")
    keeper.click("#entry button[data-kind='wolf'][data-victim='Bo']")
    watcher.wait_for_function(
        "document.querySelector(\"[data-player='Bo'] tr.live td:nth-child(3)\")"
        "?.textContent === '4'")
    crossed = watcher.locator("[data-player='Rita'] .box.crossed").count()
    assert crossed == 4
    assert "Bo" in watcher.inner_text("#turn")
    shot(watcher, "rockthebock-sheets")


def test_a_wacken_abrocken_through_the_ui(server, phone):
    game = server.table.create_game("wacken", WACKEN_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}", lang="en")
    become_scorekeeper(keeper)
    watcher = phone(f"{server.url}/games/{game}")
    wait_live(watcher)
    keeper.fill("#band", "Slayer")
    keeper.fill("input[name=songs_on_stage]", "2")
    keeper.select_option("#initiator", "Ozzy")
    keeper.check("#join-0")
    keeper.fill("input[name=beers_0]", "2")
    keeper.check("#join-1")
    keeper.fill("input[name=cards_1]", "2")
    keeper.fill("input[name=songs_1]", "1")
    keeper.wait_for_selector("#preview tr[data-player='Lemmy']")
    assert "2 songs × 3 beers = 6" in keeper.inner_text("#preview")
    assert "6 × 3 = 18" in keeper.inner_text("#preview")
    shot(keeper, "wacken-calculator")
    keeper.click("#abrocken-send")
    watcher.wait_for_function(
        "document.querySelector(\"#tally tr[data-player='Lemmy'] .n\")?.textContent === '18'")
    assert watcher.inner_text("#tally tr[data-player='Ozzy'] .n") == "6"
    assert "2 Songs × 3 Bier = 6" in watcher.inner_text("#last-abrocken")
    shot(watcher, "wacken-tally")


def test_new_game_through_the_setup_page(server, phone):
    page = phone(f"{server.url}/games/new?game=schocken")
    shot(page, "setup-schocken")
    page.fill("#name_0", "Anna")
    page.fill("#name_1", "Ben")
    page.check("input[name=starter][value='1']")
    page.select_option("#rule_handschock", "above_all")
    page.fill("#new-pin", PIN)
    page.fill("#new-pin2", PIN)
    page.click("#start-game")
    page.wait_for_selector("#keeper")
    assert "Ben" in page.inner_text("#turn")
    games = server.table.list_games()
    assert [g["players"] for g in games] == [["Anna", "Ben"]]
    shot(page, "schocken-new-game-keeper")


def test_the_page_catches_up_after_the_stream_drops(server, phone):
    game = server.table.create_game("wacken", WACKEN_SETUP, PIN)
    watcher = phone(f"{server.url}/games/{game}")
    wait_live(watcher)
    watcher.evaluate("window.__sameDocument = true")
    # The server ends every stream (as a restart or a lost Wi-Fi would); the game moves
    # on while the browser waits to reconnect. EventSource reconnects by itself with
    # Last-Event-ID, and the server answers with a catch-up message.
    server.table.close()
    server.table.submit(game, {"action": "abrocken", "band": "Doro", "songs_on_stage": 1,
                               "initiator": "Doro", "participants": [
                                   {"player": "Doro", "beers": 1, "cards": 1}]}, "Kim")
    watcher.wait_for_function(
        "document.querySelector(\"#tally tr[data-player='Doro'] .n\").textContent === '1'")
    wait_live(watcher)
    assert watcher.evaluate("window.__sameDocument") is True


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


def test_camera_picture_with_its_annotations_updates_live(server, phone):
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    game = server.table.create_game("schocken", {"players": ["Anna", "Ben"]}, PIN)
    frame = np.full((240, 320, 3), 40, np.uint8)
    cv2.rectangle(frame, (60, 60), (110, 110), (250, 250, 250), -1)
    cv2.rectangle(frame, (180, 90), (230, 140), (250, 250, 250), -1)
    jpeg = cv2.imencode(".jpg", frame)[1].tobytes()

    def die(x: int, y: int, value, uncertain: bool = False) -> dict:
        corners = [[x, y], [x + 50, y], [x + 50, y + 50], [x, y + 50]]
        return {"region": {"center": [x + 25, y + 25], "size": 50, "angle": 0,
                           "corners": corners, "confidence": 0.95},
                "value": value, "confidence": 0.6 if uncertain else 0.98,
                "uncertain": uncertain}

    camera = phone(f"{server.url}/camera")
    game_page = phone(f"{server.url}/games/{game}")
    assert game_page.locator("#camera-panel").is_hidden()
    wait_live(camera)
    server.table.publish_picture(jpeg, {"kind": "pips", "frame_size": [320, 240],
                                        "dice": [die(60, 60, 5), die(180, 90, None, True)]})
    camera.wait_for_selector("#overlay polygon")
    assert camera.locator("#overlay polygon").count() == 2
    assert "5" in camera.inner_text("#reading li:first-child")
    assert "?" in camera.inner_text("#reading li:nth-child(2)")
    game_page.wait_for_selector("#camera-panel:not([hidden])")
    server.table.publish_picture(jpeg, {"kind": "pips", "frame_size": [320, 240],
                                        "dice": [die(60, 60, 3)]})
    camera.wait_for_function("document.querySelectorAll('#overlay polygon').length === 1")
    shot(camera, "camera-annotated")


def test_scorekeeper_corrects_an_entry_from_the_history(server, phone):
    game = server.table.create_game("schocken", {"players": ["Anna", "Ben"]}, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    enter_throw(keeper, (4, 2, 1))
    watcher = phone(f"{server.url}/games/{game}")
    wait_live(watcher)
    keeper.goto(f"{server.url}/games/{game}/history")
    keeper.click("#history li[data-version='1'] button")
    text = keeper.input_value("#correct-json")
    assert '"dice":[4,2,1]' in text.replace(" ", "")
    keeper.fill("#correct-json", text.replace("[4,2,1]", "[1,1,6]").replace("[4, 2, 1]",
                                                                            "[1, 1, 6]"))
    keeper.click("#correct-send")
    keeper.wait_for_selector("#history li[data-version='2']")
    assert "#1" in keeper.inner_text("#history li[data-version='2']")
    watcher.wait_for_selector("#throws li[data-player='Anna'][data-class='schock']")
    keeper.click("#history li[data-version='1'] button")
    assert "[6,1,1]" in keeper.input_value("#correct-json")  # the correction in force
    keeper.fill("#correct-json", "{not json")
    keeper.click("#correct-send")
    keeper.wait_for_selector("#status.error")
    assert "JSON" in keeper.inner_text("#status")
    keeper.fill("#correct-json", '{"action": "throw", "player": "Ben", "throws": 1, '
                                 '"dice": [1, 1, 6]}')
    keeper.click("#correct-send")
    # The engine's reason is shown, and nothing is stored.
    keeper.wait_for_function("document.querySelector('#status').textContent.includes('Ben')")
    assert server.table.snapshot(game)["version"] == 2
    shot(keeper, "history-correction")


def test_game_list_follows_a_new_game(server, phone):
    page = phone(f"{server.url}/")
    wait_live(page)
    assert page.locator("li[data-game-id]").count() == 0
    game = server.table.create_game("wacken", WACKEN_SETUP, PIN)
    page.wait_for_selector(f"li[data-game-id='{game}']")
    server.table.submit(game, {"action": "game_end", "reason": "rock_deck_empty"}, "Kim")
    page.wait_for_function(
        f"document.querySelector(\"li[data-game-id='{game}'] .version\").textContent"
        ".includes('1')")
