"""Browser test: the scorekeeper taps the tray's four corners on a phone and saves."""

from __future__ import annotations

import json

import numpy as np
import pytest
from browser import become_scorekeeper, shot
from conftest import PIN, SCHOCKEN_SETUP
from test_tray_calibration import Applied, tray_scene

from companion.tray_setup import TraySetup
from companion.vision.tray import TrayProfile

pytestmark = pytest.mark.browser


def test_the_keeper_taps_four_corners_and_saves(server, phone, tmp_path):
    scene = tray_scene("v2-cloth")
    applied = Applied()
    setup = TraySetup(tmp_path / "calibration" / "pub.json", applied, finder="classic")
    setup.keep(scene.frame)
    server.table.attach_tray_setup(setup)
    game = server.table.create_game("schocken", SCHOCKEN_SETUP, PIN)

    # Someone without the PIN is refused and nothing changes.
    watcher = phone(f"{server.url}/camera/tray")
    assert "PIN" in watcher.inner_text("main")
    status = watcher.evaluate(
        "fetch('/camera/tray', {method: 'POST', headers: {'Content-Type': 'application/json',"
        " 'X-CSRF-Token': JSON.parse(document.getElementById('boot').textContent).csrf},"
        " body: JSON.stringify({corners: [[1,1],[100,1],[100,100],[1,100]]})})"
        ".then(r => r.status)")
    assert status == 403 and not setup.path.exists()

    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    keeper.goto(f"{server.url}/camera")
    keeper.click("#tray-link")
    keeper.wait_for_selector("#tray-overlay circle.tray-corner")
    # The proposal: the tray found in the raw frame, four numbered corners.
    assert keeper.locator("#tray-overlay circle.tray-corner").count() == 4
    proposed = np.array(json.loads(keeper.evaluate("document.body.dataset.corners")))
    assert np.linalg.norm(proposed - scene.corners, axis=1).max() < 25
    shot(keeper, "tray-proposal")

    # Tap all four anew, a little inside the true corners, in the order 1-4.
    keeper.click("#tray-retap")
    assert keeper.locator("#tray-overlay circle.tray-corner").count() == 0
    box = keeper.locator("#tray-frame").bounding_box()
    w, h = scene.frame.shape[1], scene.frame.shape[0]
    centre = scene.corners.mean(axis=0)
    targets = scene.corners + (centre - scene.corners) * 0.02
    for x, y in targets:
        keeper.mouse.click(box["x"] + x / w * box["width"], box["y"] + y / h * box["height"])
    keeper.wait_for_function("document.querySelectorAll('#tray-overlay circle').length === 4")
    assert keeper.is_enabled("#tray-save")
    # Drag corner 2 a little to the right and back: dragging moves the corner it grabs.
    x2, y2 = targets[1]
    keeper.mouse.move(box["x"] + x2 / w * box["width"], box["y"] + y2 / h * box["height"])
    keeper.mouse.down()
    keeper.mouse.move(box["x"] + x2 / w * box["width"] + 30, box["y"] + y2 / h * box["height"])
    moved = json.loads(keeper.evaluate("document.body.dataset.corners"))
    assert moved[1][0] > x2 + 50  # 30 screen pixels are many frame pixels
    keeper.mouse.move(box["x"] + x2 / w * box["width"], box["y"] + y2 / h * box["height"])
    keeper.mouse.up()
    keeper.click("#tray-save")
    keeper.wait_for_selector("#tray-saved:not([hidden])")
    assert "px" in keeper.inner_text("#tray-saved")
    shot(keeper, "tray-saved")

    data = json.loads(setup.path.read_text())
    # One screen pixel is about 3.5 frame pixels on a 360-pixel-wide picture.
    error = np.linalg.norm(np.array(data["corners"]) - targets, axis=1)
    assert error.max() < 8, error
    assert data["die_size"] is not None
    assert applied.profiles == [TrayProfile.load(setup.path)]


def test_the_keeper_is_told_when_the_dice_are_too_small(server, phone, tmp_path):
    # The camera far above the tray: the dice come out about 18 px across.
    scene = tray_scene("webcam-small", tray_px=240)
    setup = TraySetup(tmp_path / "calibration" / "pub.json", Applied(), finder="classic")
    setup.keep(scene.frame)
    server.table.attach_tray_setup(setup)
    game = server.table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    keeper.goto(f"{server.url}/camera/tray")
    keeper.wait_for_selector("#tray-overlay circle.tray-corner")
    keeper.click("#tray-save")
    keeper.wait_for_selector("#tray-saved:not([hidden])")
    note = keeper.inner_text("#tray-saved")
    die = json.loads(setup.path.read_text())["die_size"]
    # German by default: saved, the die edge, and what to do about it.
    assert "Gespeichert" in note and f"nur {int(die + 0.5)} px" in note and "näher" in note
    shot(keeper, "tray-small-dice")
