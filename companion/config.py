"""Settings: one frozen object, read from a TOML file and ``COMPANION_*`` variables.

Order of precedence: built-in defaults < TOML file < environment. A bad value
anywhere stops start-up with a message naming the key and what it accepts.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A configuration file or variable holds a value the companion cannot use."""


@dataclass(frozen=True)
class Settings:
    """Everything the companion needs to know about its surroundings."""

    data_dir: Path = Path("data")
    host: str = "0.0.0.0"
    port: int = 8080
    language: str = "de"
    # "none", "picamera", "usb:<index>" or "replay:<folder>"
    camera: str = "none"
    calibration: Path | None = None
    button_pin: int | None = None
    settle_seconds: float = 0.6
    # Every open page holds one thread for its live stream; ~30 phones plus requests.
    threads: int = 40
    # The table's admin PIN (4 to 12 digits), set at install time: lets its holder start
    # a game while another one runs. None: only the running game's scorekeeper can.
    admin_pin: str | None = None
    # Light and sound at the button (BCM numbers, each optional): a one-colour LED or an
    # RGB LED (red, green, blue), and an active buzzer.
    led_pin: int | None = None
    rgb_pins: tuple[int, int, int] | None = None
    buzzer_pin: int | None = None
    # The longest exposure the camera may lock to (microseconds): short, so a moving
    # hand does not blur; the gain makes up the light.
    max_exposure_us: int = 10000

    @property
    def database(self) -> Path:
        """The SQLite event log."""
        return self.data_dir / "companion.sqlite3"

    @property
    def saved_calibration(self) -> Path:
        """Where the dashboard saves a calibration when ``calibration`` is not set."""
        return self.data_dir / "calibration.json"

    @property
    def calibration_file(self) -> Path | None:
        """The calibration file the companion reads with: ``calibration`` when it is set,
        else the one the scorekeeper saved on the dashboard (``saved_calibration``) when
        there is one, else None. Without it, a tray calibrated on the phone was read with
        only until the next restart (a power cut at the table lost it)."""
        if self.calibration is not None:
            return self.calibration
        saved = self.saved_calibration
        return saved if saved.is_file() else None


_LANGUAGES = ("de", "en")
_GPIO_MAX = 27  # the Pi's header offers BCM GPIO 0 to 27
_PIN = re.compile(r"[0-9]{4,12}")


def _convert(name: str, raw: object, kind: str) -> object:
    try:
        if kind == "Path":
            return Path(str(raw)).expanduser()
        if kind == "Path | None":
            return None if raw in ("", None) else Path(str(raw)).expanduser()
        if kind == "int":
            return _whole(raw)
        if kind == "int | None":
            return None if raw in ("", None, "none") else _whole(raw)
        if kind == "float":
            if isinstance(raw, bool) or not isinstance(raw, int | float | str):
                raise ValueError
            if isinstance(raw, str) and not _DECIMAL.fullmatch(raw.strip()):
                raise ValueError
            return float(raw)
        if kind == "tuple[int, int, int] | None":
            return _pins(raw)
        if kind == "str | None":
            return None if raw in ("", None) else str(raw)
        return str(raw)
    except (TypeError, ValueError):
        shown = repr(raw) if len(repr(raw)) <= 40 else repr(raw)[:37] + "..."
        raise ConfigError(f"setting {name!r}: {shown} is not a valid {kind}") from None


_DIGITS = re.compile(r"-?[0-9]{1,9}")
_DECIMAL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")


def _whole(raw: object) -> int:
    # Plain ASCII digits only: int() would take "٣", "1_0" and "+3", and turn the TOML
    # float 1.5 silently into 1.
    if isinstance(raw, bool):
        raise ValueError
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and _DIGITS.fullmatch(raw.strip()):
        return int(raw.strip())
    raise ValueError


def _pins(raw: object) -> tuple[int, int, int] | None:
    # A TOML array [5, 6, 13] or, from the environment, "5,6,13".
    if raw in ("", None, "none"):
        return None
    items = raw.split(",") if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or len(items) != 3:
        raise ValueError
    red, green, blue = (_whole(item) for item in items)
    return red, green, blue


def _check_pins(settings: Settings) -> None:
    used: dict[int, str] = {}
    for key in ("button_pin", "led_pin", "rgb_pins", "buzzer_pin"):
        value = getattr(settings, key)
        for pin in () if value is None else (value if isinstance(value, tuple) else (value,)):
            if not 0 <= pin <= _GPIO_MAX:
                raise ConfigError(
                    f"setting {key!r}: {pin} is not a GPIO number; use 0 to "
                    f"{_GPIO_MAX} (BCM numbering, e.g. 17 = physical pin 11)"
                )
            if pin in used:
                raise ConfigError(
                    f"setting {key!r}: GPIO {pin} is already used by {used[pin]!r}; "
                    "give each part its own pin"
                )
            used[pin] = key
    if settings.led_pin is not None and settings.rgb_pins is not None:
        raise ConfigError("settings 'led_pin' and 'rgb_pins': set one of them, not both")


def validate(settings: Settings) -> Settings:
    """Return ``settings`` if every value is usable, else raise :class:`ConfigError`."""
    if not 1 <= settings.port <= 65535:
        raise ConfigError(f"setting 'port': {settings.port} is not between 1 and 65535")
    if settings.language not in _LANGUAGES:
        raise ConfigError(f"setting 'language': {settings.language!r}; use one of {_LANGUAGES}")
    cam = settings.camera
    if not (cam in ("none", "picamera") or cam.startswith(("usb:", "replay:"))):
        raise ConfigError(
            f"setting 'camera': {cam!r}; use none, picamera, usb:<index> or replay:<folder>"
        )
    if cam.startswith("usb:") and not cam[4:].isdigit():
        raise ConfigError(f"setting 'camera': {cam!r}; the USB camera index must be a number")
    if cam.startswith("replay:"):
        from companion.hardware.camera import SequenceError, parse_replay

        try:
            parse_replay(cam)
        except SequenceError as exc:
            raise ConfigError(f"setting 'camera': {exc}") from None
    if not 0 < settings.settle_seconds <= 10:
        raise ConfigError("setting 'settle_seconds' must be above 0 and at most 10")
    if not 1 <= settings.threads <= 256:
        raise ConfigError("setting 'threads' must be between 1 and 256")
    _check_pins(settings)
    if not 100 <= settings.max_exposure_us <= 1_000_000:
        raise ConfigError("setting 'max_exposure_us' must be between 100 and 1000000 "
                          "(microseconds; 10000 is a good start)")
    if settings.admin_pin is not None and not _PIN.fullmatch(settings.admin_pin):
        raise ConfigError("setting 'admin_pin' must be 4 to 12 digits (0-9)")
    return settings


def load_settings(
    path: Path | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Build the settings from ``path`` (TOML, optional) and ``environ``.

    ``COMPANION_CONFIG`` names the file when ``path`` is not given.
    """
    env = os.environ if environ is None else environ
    if path is None and env.get("COMPANION_CONFIG"):
        path = Path(env["COMPANION_CONFIG"])
    known = {f.name: f.type for f in fields(Settings)}
    values: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"config file {path} is not UTF-8 text; save it as UTF-8") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
        for key, raw in data.items():
            if key not in known:
                raise ConfigError(
                    f"config file {path}: unknown setting {key!r}; known: {', '.join(known)}"
                )
            values[key] = _convert(key, raw, str(known[key]))
    for key, kind in known.items():
        var = f"COMPANION_{key.upper()}"
        if var in env:
            values[key] = _convert(key, env[var], str(kind))
    return validate(replace(Settings(), **values))
