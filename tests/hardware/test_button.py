"""The turn button on gpiozero's MockFactory: the tests read like driving a real pin."""

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from companion.hardware.button import TurnButton

PIN = 17


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.close()


def wait_for(event: threading.Event, seconds: float = 2.0) -> bool:
    return event.wait(seconds)


def test_short_press_moves_to_next_turn(factory):
    pressed, held = threading.Event(), threading.Event()
    button = TurnButton(PIN, pressed.set, held.set, hold_seconds=0.5, bounce_seconds=None,
                        pin_factory=factory)
    pin = factory.pin(PIN)
    pin.drive_low()
    assert button.is_pressed
    pin.drive_high()
    assert wait_for(pressed)
    assert not held.is_set()
    button.close()


def test_long_press_undoes_and_is_not_also_a_press(factory):
    presses, holds = [], []
    released = threading.Event()
    button = TurnButton(
        PIN, lambda: presses.append(1), lambda: holds.append(1), hold_seconds=0.2,
        bounce_seconds=None, pin_factory=factory,
    )
    pin = factory.pin(PIN)
    pin.drive_low()
    deadline = time.monotonic() + 2
    while not holds and time.monotonic() < deadline:
        time.sleep(0.01)
    pin.drive_high()
    released.wait(0.1)
    assert holds == [1]
    assert presses == []
    button.close()


def test_a_failing_callback_is_reported_and_the_button_keeps_working(factory):
    errors, calls = [], []

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("store is busy")

    button = TurnButton(PIN, flaky, hold_seconds=1, bounce_seconds=None, pin_factory=factory,
                        on_error=errors.append)
    pin = factory.pin(PIN)
    for _ in range(2):
        pin.drive_low()
        pin.drive_high()
    deadline = time.monotonic() + 2
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(calls) == 2
    assert [str(e) for e in errors] == ["store is busy"]
    button.close()


def test_hold_time_must_be_positive(factory):
    with pytest.raises(ValueError, match="hold_seconds"):
        TurnButton(PIN, lambda: None, hold_seconds=0, pin_factory=factory)
