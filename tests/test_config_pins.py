"""The feedback pins and the exposure limit: every bad value names its key."""

from pathlib import Path

import pytest

from companion.config import ConfigError, load_settings


def test_feedback_pins_from_file_and_environment(tmp_path: Path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("button_pin = 17\nrgb_pins = [5, 6, 13]\nbuzzer_pin = 19\n")
    s = load_settings(cfg, environ={})
    assert (s.button_pin, s.rgb_pins, s.buzzer_pin, s.led_pin) == (17, (5, 6, 13), 19, None)
    s = load_settings(environ={"COMPANION_RGB_PINS": "22,23,24", "COMPANION_LED_PIN": ""})
    assert s.rgb_pins == (22, 23, 24) and s.led_pin is None


@pytest.mark.parametrize(
    "text, message",
    [
        ("led_pin = 40\n", "'led_pin': 40 is not a GPIO number"),
        ("buzzer_pin = -1\n", "'buzzer_pin': -1 is not a GPIO number"),
        ("rgb_pins = [5, 6]\n", "'rgb_pins'"),
        ('rgb_pins = [5, 6, "x"]\n', "'rgb_pins'"),
        ("rgb_pins = [5, 6, 30]\n", "'rgb_pins': 30 is not a GPIO number"),
        ("rgb_pins = 5\n", "'rgb_pins'"),
        ("button_pin = 17\nbuzzer_pin = 17\n", "'buzzer_pin': GPIO 17 is already used by "
                                              "'button_pin'"),
        ("rgb_pins = [5, 6, 5]\n", "'rgb_pins': GPIO 5 is already used by 'rgb_pins'"),
        ("led_pin = 26\nrgb_pins = [5, 6, 13]\n", "'led_pin' and 'rgb_pins'"),
        ("led_pin = 2.5\n", "'led_pin'"),
        ("max_exposure_us = 5\n", "'max_exposure_us'"),
    ],
)
def test_bad_feedback_pins_are_refused_naming_the_key(tmp_path: Path, text, message):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(cfg, environ={})
    assert message in str(info.value)


def test_bad_pins_in_the_environment_name_the_key():
    with pytest.raises(ConfigError, match="'rgb_pins'"):
        load_settings(environ={"COMPANION_RGB_PINS": "1,2"})
