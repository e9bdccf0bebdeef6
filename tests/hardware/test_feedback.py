"""Light and sound at the button on gpiozero's MockFactory: pin states over time."""

import time

import pytest
from gpiozero.pins.mock import MockFactory

from companion.hardware.feedback import (
    BUSY,
    CAMERA_DOWN,
    IDLE,
    RECORDED,
    REFUSED,
    UNDONE,
    Feedback,
)

RED, GREEN, BLUE, BUZZER, LED = 5, 6, 13, 19, 26


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.close()


def settle(seconds: float) -> None:
    time.sleep(seconds)


def highs(pin) -> list[float]:
    """How long the pin was high each time it was (measured by the mock pin's own clock)."""
    states = list(pin.states)
    durations = []
    for current, following in zip(states, states[1:], strict=False):
        if current.state:
            durations.append(following.timestamp)
    return durations


def test_recorded_is_one_short_green_flash_with_one_short_beep(factory):
    fb = Feedback(rgb_pins=(RED, GREEN, BLUE), buzzer_pin=BUZZER, pin_factory=factory)
    fb.signal(RECORDED)
    settle(0.8)
    green, red, buzzer = factory.pin(GREEN), factory.pin(RED), factory.pin(BUZZER)
    assert len(highs(green)) == 1 and 0.3 <= highs(green)[0] <= 0.6
    assert len(highs(buzzer)) == 1 and 0.05 <= highs(buzzer)[0] <= 0.2
    assert highs(red) == []
    assert not green.state and not buzzer.state  # back to idle: dark and quiet
    fb.close()


def test_refused_blinks_red_three_times_and_beeps_three_times(factory):
    fb = Feedback(rgb_pins=(RED, GREEN, BLUE), buzzer_pin=BUZZER, pin_factory=factory)
    fb.signal(REFUSED)
    settle(1.2)
    assert len(highs(factory.pin(RED))) == 3
    assert len(highs(factory.pin(BUZZER))) == 3
    assert highs(factory.pin(GREEN)) == []
    fb.close()


def test_undo_is_one_long_and_two_short_blue_lights_and_one_long_beep(factory):
    fb = Feedback(rgb_pins=(RED, GREEN, BLUE), buzzer_pin=BUZZER, pin_factory=factory)
    fb.signal(UNDONE)
    settle(1.6)
    blue = highs(factory.pin(BLUE))
    assert len(blue) == 3
    assert blue[0] > 0.4 and all(d < 0.3 for d in blue[1:])
    beeps = highs(factory.pin(BUZZER))
    assert len(beeps) == 1 and beeps[0] > 0.4
    fb.close()


def test_busy_is_steady_amber_and_silent_until_idle(factory):
    fb = Feedback(rgb_pins=(RED, GREEN, BLUE), buzzer_pin=BUZZER, pin_factory=factory)
    fb.set_mode(BUSY)
    settle(0.3)
    assert factory.pin(RED).state and factory.pin(GREEN).state and not factory.pin(BLUE).state
    assert highs(factory.pin(BUZZER)) == []
    fb.set_mode(IDLE)
    settle(0.1)
    assert not factory.pin(RED).state and not factory.pin(GREEN).state
    fb.close()


def test_a_signal_while_busy_plays_and_then_amber_comes_back(factory):
    fb = Feedback(rgb_pins=(RED, GREEN, BLUE), pin_factory=factory)
    fb.set_mode(BUSY)
    settle(0.1)
    fb.signal(RECORDED)
    settle(0.25)
    assert factory.pin(GREEN).state and not factory.pin(RED).state  # the green flash
    settle(0.6)
    assert factory.pin(GREEN).state and factory.pin(RED).state  # amber again
    fb.close()


def test_camera_down_is_a_repeating_heartbeat(factory):
    fb = Feedback(led_pin=LED, pin_factory=factory)
    fb.set_mode(CAMERA_DOWN)
    settle(3.3)
    pulses = highs(factory.pin(LED))
    # two pulses per 1.5 s: four or five full pulses in 3.3 s, each short
    assert 4 <= len(pulses) <= 6
    assert all(d < 0.3 for d in pulses)
    fb.close()


def test_a_single_led_tells_signals_apart_by_rhythm(factory):
    fb = Feedback(led_pin=LED, pin_factory=factory)
    fb.signal(RECORDED)
    settle(0.7)
    assert len(highs(factory.pin(LED))) == 1
    fb.signal(REFUSED)
    settle(1.1)
    assert len(highs(factory.pin(LED))) == 4
    fb.close()


def test_a_newer_signal_cuts_the_playing_one_short(factory):
    fb = Feedback(rgb_pins=(RED, GREEN, BLUE), pin_factory=factory)
    fb.signal(UNDONE)
    settle(0.1)
    fb.signal(RECORDED)
    settle(0.6)
    blue = highs(factory.pin(BLUE))
    assert len(blue) == 1 and blue[0] < 0.3  # the long blue light was cut short
    assert len(highs(factory.pin(GREEN))) == 1
    fb.close()


def test_close_switches_off_and_releases_the_pins(factory):
    fb = Feedback(rgb_pins=(RED, GREEN, BLUE), buzzer_pin=BUZZER, pin_factory=factory)
    fb.set_mode(BUSY)
    settle(0.1)
    fb.close()
    assert not factory.pin(RED).state and not factory.pin(GREEN).state
    again = Feedback(rgb_pins=(RED, GREEN, BLUE), buzzer_pin=BUZZER, pin_factory=factory)
    again.close()


def test_bad_parts_and_names_are_refused(factory):
    with pytest.raises(ValueError, match="either led_pin or rgb_pins"):
        Feedback(led_pin=LED, rgb_pins=(RED, GREEN, BLUE), pin_factory=factory)
    with pytest.raises(ValueError, match="three pins"):
        Feedback(rgb_pins=(RED, GREEN), pin_factory=factory)
    fb = Feedback(buzzer_pin=BUZZER, pin_factory=factory)
    with pytest.raises(ValueError, match="unknown signal"):
        fb.signal("cheer")
    with pytest.raises(ValueError, match="unknown mode"):
        fb.set_mode("party")
    assert fb.parts == ("buzzer",)
    fb.close()


def test_a_pin_in_use_fails_and_leaves_no_pin_taken(factory):
    from gpiozero import GPIOPinInUse

    fb = Feedback(led_pin=LED, pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        Feedback(buzzer_pin=BUZZER, rgb_pins=(RED, GREEN, LED), pin_factory=factory)
    fb.close()
    Feedback(buzzer_pin=BUZZER, pin_factory=factory).close()  # the buzzer pin was released
