"""Browser tests (Rock the Bock, Wacken, camera, resume): waitress + Chromium via Playwright.

Phones are 390x844 pages; screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from browser import become_scorekeeper, shot, wait_live
from conftest import BOCK_SETUP, PIN, WACKEN_SETUP

pytestmark = pytest.mark.browser


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
    # The preview follows the typing; the last answer is the one that stays.
    keeper.wait_for_function(
        "document.querySelector('#preview').textContent.includes('6 × 3 = 18')")
    assert "2 songs × 3 beers = 6" in keeper.inner_text("#preview")
    keeper.wait_for_timeout(300)  # late answers to earlier keystrokes must not replace it
    assert "6 × 3 = 18" in keeper.inner_text("#preview")
    shot(keeper, "wacken-calculator")
    keeper.click("#abrocken-send")
    watcher.wait_for_function(
        "document.querySelector(\"#tally tr[data-player='Lemmy'] .n\")?.textContent === '18'")
    assert watcher.inner_text("#tally tr[data-player='Ozzy'] .n") == "6"
    assert "2 Songs × 3 Bier = 6" in watcher.inner_text("#last-abrocken")
    shot(watcher, "wacken-tally")


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


def test_camera_picture_with_its_annotations_updates_live(server, phone):
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


def test_a_rock_the_bock_roll_and_choice_are_corrected_with_the_entry_controls(server, phone):
    game = server.table.create_game("rockthebock", BOCK_SETUP, PIN)
    # Rita is youngest and rolls first; the camera (or a hasty tap) saw one bock too few.
    server.table.submit(game, {"action": "roll", "player": "Rita",
                               "faces": {"bock": 3, "wolf": 5, "goat_red": 2}}, "camera")
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    keeper.goto(f"{server.url}/games/{game}/history")
    keeper.click("#history [data-edit='1']")
    assert keeper.locator("#editor textarea").count() == 0
    keeper.click("[data-edit-face='bock+']")
    keeper.click("[data-edit-face='wolf-']")
    keeper.click("#edit-save")
    keeper.wait_for_selector("#history li[data-version='2']")
    keeper.wait_for_selector("#editor", state="detached")  # the save's answer closed it
    pending = server.table.snapshot(game)["view"]["pending_roll"]
    assert pending == {"bock": 4, "wolf": 4, "goat_red": 2}
    # A choice is corrected by choosing the kind again, named in words; wolves need a receiver.
    server.table.submit(game, {"action": "choose", "player": "Rita", "kind": "bock"}, "phone")
    keeper.wait_for_selector("#history [data-edit='3']")
    keeper.click("#history [data-edit='3']")
    assert "Wolf" in keeper.inner_text("#editor [data-edit-kind='wolf']")
    keeper.click("#editor [data-edit-kind='wolf']")
    assert keeper.input_value("#edit-victim") == "Bo"
    keeper.click("#edit-save")
    keeper.wait_for_selector("#history li[data-version='4']")
    sheets = server.table.snapshot(game)["standings"]["players"]
    assert sheets[1]["current"]["wolves"] == 4  # Bo received Rita's four wolves


def test_the_camera_pipeline_shows_its_annotated_picture_and_what_the_button_would_record(
    server, phone
):
    from companion.hardware.demo import Throw, ThrowSource
    from companion.pipeline import Companion
    from companion.synth.render import render_throw
    from companion.vision.recognizer import PipRecognizer
    from companion.vision.settle import SettleDetector

    server.table.create_game("schocken", {"players": ["Anna", "Ben"]}, PIN)
    camera = phone(f"{server.url}/camera")
    wait_live(camera)
    companion = Companion(server.table, {"schocken": PipRecognizer()}, SettleDetector(0.3))
    moving = [render_throw(s, 3, size=(960, 720)).image for s in (1, 2)]
    still = render_throw(3, 3, size=(960, 720), faces=(6, 6, 2)).image
    import threading

    throws = iter([Throw(moving, still)])
    companion.run_camera(ThrowSource(lambda: next(throws, None), still_frames=5, interval=0.1),
                         threading.Event())
    _, info = server.table.latest_picture()
    camera.wait_for_selector("#reading li")
    assert camera.locator("#reading li").count() == len(info["dice"])
    # The JPEG carries the outlines already: the page draws no second set over it.
    assert camera.locator("#overlay polygon").count() == 0
    assert camera.inner_text("#proposal") == info["proposal"]["text"]["de"]  # German default
    assert camera.evaluate("document.getElementById('picture').naturalWidth") == 960
    shot(camera, "camera-pipeline")
