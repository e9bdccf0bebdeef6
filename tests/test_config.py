from pathlib import Path

import pytest

from companion.config import ConfigError, Settings, load_settings


def test_defaults_without_file_or_environment():
    assert load_settings(environ={}) == Settings()


def test_file_then_environment_override(tmp_path: Path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('port = 9000\nlanguage = "en"\ncamera = "usb:1"\n')
    s = load_settings(cfg, environ={"COMPANION_PORT": "9100"})
    assert (s.port, s.language, s.camera) == (9100, "en", "usb:1")


@pytest.mark.parametrize(
    "text, message",
    [
        ("port = 0\n", "between 1 and 65535"),
        ('language = "fr"\n', "language"),
        ('camera = "usb:x"\n', "index must be a number"),
        ("colour = 3\n", "unknown setting 'colour'"),
        ("port = [\n", "not valid TOML"),
        ('port = "eighty"\n', "not a valid int"),
    ],
)
def test_bad_config_is_refused_with_a_clear_message(tmp_path: Path, text, message):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_settings(cfg, environ={})
