"""The turn button at a real table: what it records, what the light shows, what phones hear.

Driven like hardware: gpiozero's MockFactory pins for the button and the LED/buzzer.
"""

import time

import pytest
from gpiozero.pins.mock import MockFactory

from companion.hardware.button import TurnButton
from companion.hardware.feedback import BUSY, CAMERA_DOWN, IDLE, Feedback
from companion.pipeline import Companion
from companion.vision.settle import SettleDetector

BUTTON, RED, GREEN, BLUE, BUZZER = 17, 5, 6, 13, 19


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.close()


def wait_until(predicate, seconds=3.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def rig(table, factory):
    companion = Companion(table, {}, SettleDetector(0.2))
    companion.feedback = Feedback(rgb_pins=(RED, GREEN, BLUE), buzzer_pin=BUZZER,
                                  pin_factory=factory)
    button = TurnButton(BUTTON, companion.press, companion.hold, hold_seconds=0.3,
                        bounce_seconds=None, pin_factory=factory)
    return companion, button


def button_notice(subscription, seconds=3.0):
    """The next notice of kind ``button`` (what the phones hear), waiting up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        notice = subscription.get(left)
        if notice is not None and notice["kind"] == "button":
            return notice
    raise AssertionError("timed out waiting for the button's notice")


def notices(subscription):
    out = []
    while (n := subscription.get(0.5)) is not None:
        out.append(n)
    return out


def test_a_refused_press_blinks_red_and_tells_the_phones_why_in_both_languages(table, factory):
    table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234")
    companion, button = rig(table, factory)
    with table.subscribe() as phone:
        pin = factory.pin(BUTTON)
        pin.drive_low()
        pin.drive_high()
        sent = [button_notice(phone)]
        time.sleep(1.0)
        sent += [n for n in notices(phone) if n["kind"] == "button"]
    assert sent[0]["button"] == {
        "outcome": "refused",
        "text": {"en": "no throw seen since the last entry",
                 "de": "Seit dem letzten Eintrag wurde kein Wurf gesehen"},
    }
    red_highs = [s for s in factory.pin(RED).states if s.state]
    assert len(red_highs) == 3
    assert not any(s.state for s in factory.pin(GREEN).states)
    button.close()
    companion.feedback.close()


def test_a_long_press_undoes_with_the_undo_pattern_and_a_notice(table, factory):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"},
                             pin="1234")
    table.submit(game, {"action": "throw", "player": "Anna", "dice": [3, 2, 1], "throws": 1},
                 "phone")
    companion, button = rig(table, factory)
    pin = factory.pin(BUTTON)
    with table.subscribe() as phone:
        pin.drive_low()
        heard = button_notice(phone)
        pin.drive_high()
        time.sleep(1.3)
        assert not [n for n in notices(phone) if n["kind"] == "button"]  # one press, one notice
    assert heard["outcome"] == "undone"
    assert heard["text"]["de"] == "Letzter Eintrag zurückgenommen"
    assert table.snapshot(game)["view"]["to_throw"] == "Anna"
    assert len([s for s in factory.pin(BLUE).states if s.state]) == 3
    button.close()
    companion.feedback.close()


def test_the_light_is_amber_while_dice_move_and_dark_at_rest(table, factory):
    import numpy as np

    companion, button = rig(table, factory)
    rng = np.random.default_rng(1)
    t = 0.0
    for _ in range(3):  # moving frames
        companion.process(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), t)
        t += 0.07
    assert companion.feedback.mode == BUSY
    still = np.full((240, 320, 3), 90, np.uint8)
    for _ in range(8):
        companion.process(still, t)
        t += 0.07
    assert companion.feedback.mode == IDLE
    button.close()
    companion.feedback.close()


def test_camera_down_shows_the_heartbeat_and_comes_back(table, factory):
    import threading

    from companion.hardware.camera import CameraError
    from companion.pipeline import camera_loop

    companion = Companion(table, {}, SettleDetector(0.2))
    companion.feedback = Feedback(led_pin=26, pin_factory=factory)
    stop = threading.Event()
    modes = []
    calls = {"n": 0}

    class Once:
        def read(self):
            modes.append((companion.feedback.mode, companion.camera_up))
            stop.set()
            return None

        def close(self):
            pass

    def opener():
        calls["n"] += 1
        if calls["n"] < 3:
            modes.append(companion.feedback.mode)
            raise CameraError("unplugged")
        return Once()

    camera_loop(companion, opener, stop, retry_seconds=0.01)
    companion.feedback.close()
    assert modes[1] == CAMERA_DOWN and modes[-1] == (IDLE, True)
    assert not companion.camera_up  # the source ended: down again until it reopens


def test_button_notices_are_not_a_resume_point_and_do_not_hide_entries(table):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"},
                             pin="1234")
    with table.subscribe() as phone:
        table.submit(game, {"action": "throw", "player": "Anna", "dice": [3, 2, 1],
                            "throws": 1}, "phone")
        table.publish_button("recorded", "Anna: 3-2-1", "Anna: 3-2-1")
        kinds = [n["kind"] for n in notices(phone)]
    assert "button" in kinds and any(k not in ("button", "picture") for k in kinds)
    with pytest.raises(ValueError, match="unknown button outcome"):
        table.publish_button("cheered", "", "")
