"""Browser test: the scorekeeper enrols a Rock the Bock face on a phone, three taps."""

from __future__ import annotations

import pytest
from browser import become_scorekeeper, shot
from conftest import BOCK_SETUP, PIN
from test_face_enrolment import pictures
from test_tray_calibration import Applied

from companion.tray_setup import TraySetup
from companion.vision.enrol import load_models

pytestmark = pytest.mark.browser


def test_the_keeper_enrols_a_face_in_three_taps(server, phone, tmp_path):
    applied = Applied()
    setup = TraySetup(tmp_path / "data" / "calibration.json", applied)
    frames = pictures("wolf", 370)
    setup.keep(frames[0])
    server.table.attach_tray_setup(setup)
    game = server.table.create_game("rockthebock", BOCK_SETUP, PIN)

    keeper = phone(f"{server.url}/games/{game}")
    become_scorekeeper(keeper)
    keeper.goto(f"{server.url}/camera")
    keeper.click("#faces-link")
    keeper.wait_for_selector("#faces button[data-face='wolf']")
    assert keeper.locator("#faces li").count() == 6
    # German by default: the faces by their German names, each built in so far.
    assert keeper.inner_text("#faces button[data-face='wolf']") == "Wolf"
    assert keeper.inner_text("[data-state='wolf']") == "eingebaut"
    for k, frame in enumerate(frames):
        setup.keep(frame)
        keeper.click("#faces button[data-face='wolf']")
        if k < len(frames) - 1:
            keeper.wait_for_function(
                "n => document.querySelector(\"[data-state='wolf']\").textContent"
                " === n + ' von 3 Bildern'", arg=k + 1)
            assert "6 Würfel erkannt" in keeper.inner_text("#faces-note")
    keeper.wait_for_function(
        "document.querySelector(\"[data-state='wolf']\").textContent.startsWith('angelernt')")
    model = load_models(setup.path)["wolf"]
    assert keeper.inner_text("[data-state='wolf']") == f"angelernt aus {model.count} Würfeln"
    assert "Wolf ist aus" in keeper.inner_text("#faces-note")
    assert applied.profiles == [None]
    shot(keeper, "faces-enrolled")
    # Tapping again with the same picture is refused, and says so; nothing changes.
    keeper.click("#faces button[data-face='bock']")
    keeper.wait_for_selector("#status.error")
    assert "schon aufgenommen" in keeper.inner_text("#status")
    assert keeper.inner_text("[data-state='bock']") == "eingebaut"
    # A picture of the bock taken by mistake is dropped with "Neu beginnen".
    assert keeper.locator("[data-again]").count() == 0
    setup.keep(pictures("bock", 375, 1)[0])
    keeper.click("#faces button[data-face='bock']")
    keeper.wait_for_selector("[data-again='bock']")
    assert keeper.inner_text("[data-state='bock']") == "1 von 3 Bildern"
    assert keeper.inner_text("[data-again='bock']") == "Neu beginnen"
    keeper.click("[data-again='bock']")
    keeper.wait_for_function(
        "document.querySelector(\"[data-state='bock']\").textContent === 'eingebaut'")
    assert keeper.locator("[data-again]").count() == 0
    assert "Bilder von Bock sind verworfen" in keeper.inner_text("#faces-note")
    assert not keeper.locator("#status.error").is_visible()
