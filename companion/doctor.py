"""The pre-flight check: one line per check, ok / warn / fail, and what to do about it.

``companion doctor`` runs these before an evening (the install script runs it too); the
dashboard's status page shows :func:`live_checks`, the same checks taken from the running
companion (its camera is busy then, so the frames it counted stand in for a test read).
"""

from __future__ import annotations

import math
import os
import shutil
import socket
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from companion.config import Settings
from companion.timesync import clock_synced

OK, WARN, FAIL = "ok", "warn", "fail"
ROOT = Path(__file__).resolve().parents[1]
MODELS = ("pipspot.onnx", "pipnet.onnx")
FREE_WARN_MB, FREE_FAIL_MB = 500, 50


@dataclass(frozen=True)
class Check:
    """One check's result; ``fix`` says what to do when it is not ok."""

    name: str
    level: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        """``ok    camera: ...`` and, when not ok, the fix after an arrow."""
        text = f"{self.level:<5} {self.name}: {self.detail}"
        return text + (f"\n      -> {self.fix}" if self.fix and self.level != OK else "")

    def to_dict(self) -> dict[str, str]:
        """For the status page."""
        return asdict(self)


def versions() -> Check:
    """Python, OpenCV and numpy as the runtime sees them."""
    import numpy

    try:
        import cv2
    except ImportError:
        return Check("versions", FAIL, f"Python {sys.version.split()[0]}, no OpenCV",
                     "sudo apt install python3-opencv (venv made with --system-site-packages)")
    return Check("versions", OK, f"Python {sys.version.split()[0]}, OpenCV {cv2.__version__}, "
                 f"numpy {numpy.__version__}")


def data_dir(settings: Settings) -> Check:
    """The data folder exists, is writable and has room."""
    folder = settings.data_dir
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".doctor-{os.getpid()}"
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        return Check("data dir", FAIL, f"{folder} is not writable ({exc.strerror})",
                     f"sudo install -d -o companion {folder}")
    free_mb = shutil.disk_usage(folder).free // 2**20
    if free_mb < FREE_FAIL_MB:
        return Check("data dir", FAIL, f"{folder}: only {free_mb} MB free",
                     "free space on the SD card (old photos, journalctl --vacuum-size=50M)")
    level = WARN if free_mb < FREE_WARN_MB else OK
    return Check("data dir", level, f"{folder} writable, {free_mb} MB free",
                 "free space on the SD card soon")


def database(settings: Settings) -> Check:
    """SQLite's own integrity check of the event log (read-only)."""
    path = settings.database
    if not path.exists():
        return Check("database", OK, f"{path} not created yet (made at the first start)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            result = db.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as exc:
        return Check("database", FAIL, f"{path} cannot be read: {exc}",
                     "restore the file from a backup; companion export writes each game")
    if result != "ok":
        return Check("database", FAIL, f"{path}: {result}",
                     "copy the file away and restore a backup")
    return Check("database", OK, f"{path} integrity ok")


def models(root: Path = ROOT) -> Check:
    """The learned models; without them the classical finder reads (slower, less sure)."""
    missing = [name for name in MODELS if not (root / "models" / name).is_file()]
    if missing:
        return Check("models", WARN, f"missing {', '.join(missing)} in {root / 'models'}",
                     "git lfs pull (or copy models/ from the repository)")
    return Check("models", OK, ", ".join(MODELS))


def calibration(settings: Settings, frame_size: tuple[int, int] | None,
                frame: Any = None) -> Check:
    """The tray profile is set, loads, and was made for the camera's picture shape; with
    a camera ``frame``, the tray is where it was calibrated (``tray_place``)."""
    from companion.vision.tray import load_tray

    path = settings.calibration_file
    if path is None:
        return Check("calibration", WARN, "no calibration set: the whole picture is the tray",
                     "companion calibrate tray frame.jpg --out calibration/pub.json, "
                     "then set calibration in the config (or calibrate the tray on the"
                     " camera page)")
    try:
        profile = load_tray(path)
    except (OSError, ValueError) as exc:
        return Check("calibration", FAIL, f"{path}: {exc}",
                     "make it again with companion calibrate tray")
    if profile is None:
        return Check("calibration", WARN,
                     f"{path} holds enrolled dice faces but no tray: the whole picture is the tray",
                     f"companion calibrate tray frame.jpg --out {path}, or calibrate the tray"
                     " on the camera page")
    w, h = profile.frame_size
    if frame_size is not None and abs(w / h - frame_size[0] / frame_size[1]) > 0.02:
        return Check("calibration", FAIL,
                     f"made for {w}x{h}, the camera gives {frame_size[0]}x{frame_size[1]}",
                     "calibrate again with a frame from this camera")
    from companion.vision.calibrate import SMALL_DIE, SMALL_DIE_FIX, small_die

    # The die edge at the camera's own picture width (the profile's scales with it).
    die = profile.die_size
    if die is not None and frame_size is not None:
        die *= frame_size[0] / w
    if small_die(die):
        return Check("calibration", WARN,
                     f"{path}: dice are {die:.0f} px across; below "
                     f"{SMALL_DIE:.0f} px some are read wrong or left to check",
                     f"{SMALL_DIE_FIX}, then calibrate again")
    if frame is not None:
        moved = tray_place(settings, profile, frame)
        if moved is not None:
            return moved
    return Check("calibration", OK, f"{path} ({w}x{h})")


def tray_place(settings: Settings, profile: Any, frame: Any) -> Check | None:
    """Whether the tray's sides lie in ``frame`` where the calibration saw them
    (``TrayProfile.sides``): None when they do, or when the profile does not say (made
    before it kept them); else how far it moved, as the companion will follow it
    (``ThrowWatcher._calibration_fits``), or that it is not near."""
    from companion.vision.autotray import moved_across, side_steps, sides_moved
    from companion.vision.watch import START_MOVE_EDGES, find_calibrated

    if profile.sides is None:
        return None
    size = (frame.shape[1], frame.shape[0])
    corners = profile.corners_in(size)
    moved = sides_moved(profile.sides, side_steps(frame, corners))
    if not moved_across(moved):
        return None
    edge = profile.die_in(size)
    shift = find_calibrated(frame, corners, profile.sides, edge)
    if shift is None:
        return Check("calibration", FAIL,
                     f"{settings.calibration_file}: the tray is not where it was calibrated, nor"
                     f" within {START_MOVE_EDGES:.0f} die edges (the camera turned, zoomed or"
                     " moved further; or something lies over the tray's rim)",
                     "clear the tray's rim, or calibrate again (the camera page's"
                     " 'Calibrate the tray')")
    return Check("calibration", WARN,
                 f"{settings.calibration_file}: the tray lies {shift[0]:+.0f} x {shift[1]:+.0f} px"
                 " from where it was calibrated; the companion follows it",
                 "calibrate again when there is a moment")


def camera(settings: Settings, open_source: Callable[..., Any], seconds: float = 2.0,
           clock: Callable[[], float] = time.monotonic) -> tuple[Check, list[Any]]:
    """Open the camera and read frames for ``seconds``; the frames go to :func:`reading`."""
    from companion.hardware.camera import CameraError

    if settings.camera == "none":
        return Check("camera", WARN, "no camera configured", "set camera in the config"), []
    frames: list[Any] = []
    try:
        source = open_source(settings.camera)
    except CameraError as exc:
        return Check("camera", FAIL, str(exc), "sudo systemctl stop dice-companion if it "
                     "is running; check the cable; libcamera-hello --list-cameras"), []
    start = clock()
    try:
        while clock() - start < seconds:
            frame = source.read()
            if frame is None:
                break
            frames.append(frame)
    except CameraError as exc:
        return Check("camera", FAIL, f"opened, then: {exc}", "check the cable and power"), frames
    finally:
        source.close()
    if not frames:
        return Check("camera", FAIL, "opened but delivered no frame", "check the cable"), frames
    took = max(clock() - start, 1e-6)
    h, w = frames[0].image.shape[:2]
    fps = len(frames) / took
    lores = "" if getattr(frames[0], "lores", None) is None else \
        f", lores {frames[0].lores.shape[1]}x{frames[0].lores.shape[0]}"
    level = WARN if fps < 8 and not settings.camera.startswith("replay:") else OK
    return Check("camera", level, f"{settings.camera}: {w}x{h}{lores}, {fps:.1f} fps "
                 f"({len(frames)} frames)", "a slow camera: lower the resolution or the light "
                 "is too dim"), frames


def reading(settings: Settings, frames: list[Any]) -> Check:
    """Settle detection on every frame and the recogniser on the last, with timings."""
    if not frames:
        return Check("reading", WARN, "no frames to read", "see the camera check")
    from companion.app import default_settle, load_recognizer
    from companion.registry import GAMES

    settle = default_settle(settings)
    start = time.perf_counter()
    for frame in frames:
        lores = getattr(frame, "lores", None)
        size = (frame.image.shape[1], frame.image.shape[0])
        settle.update(frame.image if lores is None else lores, frame.timestamp, size=size)
    settle_ms = (time.perf_counter() - start) * 1000 / len(frames)
    # The recogniser of the first game the camera reads (the pip dice of Schocken).
    recognition = next(g.recognition for g in GAMES if g.recognition is not None)
    recognizer = load_recognizer(settings, recognition)
    start = time.perf_counter()
    result = recognizer.read(frames[-1].image)
    read_ms = (time.perf_counter() - start) * 1000
    values = [d.value for d in result.dice]
    detail = (f"settle {settle_ms:.1f} ms/frame ({settle.state}), "
              f"read {read_ms:.0f} ms: {len(values)} dice {values}")
    from companion.vision.calibrate import SMALL_DIE, SMALL_DIE_FIX, small_die
    from companion.vision.tray import die_size_off

    if result.cluttered:
        return Check("reading", WARN,
                     f"{detail}; without a tray calibration the table around the tray looks "
                     "like dice to the recogniser (print, tiles, a pattern), so nothing was read",
                     "calibrate the tray: companion calibrate tray (or the camera page's"
                     " 'Calibrate the tray')")
    # The dice in the camera's picture, as large as the recogniser found them.
    die = statistics.median(d.region.size for d in result.dice) if result.dice else None
    if result.kind == "pips" and small_die(die):
        return Check("reading", WARN,
                     f"{detail}; the dice are {die:.0f} px across, below {SMALL_DIE:.0f} px "
                     "some are read wrong or left to check",
                     SMALL_DIE_FIX)
    profile = getattr(recognizer, "calibrated", None)
    expected = None if profile is None else profile.die_in(frames[-1].image.shape[1::-1])
    if die is not None and expected is not None and die_size_off(die, expected):
        return Check("reading", WARN,
                     f"{detail}; the dice measure {die:.0f} px, the calibration says "
                     f"{expected:.0f} px: hands and cups are told from dice by that size",
                     "calibrate again with a few dice in the tray: companion calibrate"
                     " tray (or the camera page's 'Calibrate the tray')")
    return Check("reading", OK, detail)


def button(settings: Settings, pin_factory: Any = None, press_seconds: float = 0.0,
           say: Callable[[str], None] = print) -> Check:
    """The button pin can be claimed; with ``press_seconds`` a person presses it."""
    if settings.button_pin is None:
        return Check("button", WARN, "no button_pin set: record throws on the phone",
                     "wire a button to a GPIO pin and set button_pin")
    try:
        from gpiozero import Button

        device = Button(settings.button_pin, pull_up=True, pin_factory=pin_factory)
    except Exception as exc:  # gpiozero's own kinds: BadPinFactory, GPIOPinInUse…
        return Check("button", FAIL, f"GPIO {settings.button_pin}: {type(exc).__name__}: {exc}",
                     "sudo apt install python3-lgpio; the user needs the gpio group; "
                     "stop dice-companion while testing")
    try:
        if press_seconds <= 0:
            return Check("button", OK, f"GPIO {settings.button_pin} usable (not pressed)")
        say(f"press the button now (GPIO {settings.button_pin}, {press_seconds:g} s) ...")
        if device.wait_for_press(timeout=press_seconds):
            return Check("button", OK, f"GPIO {settings.button_pin} pressed")
        return Check("button", FAIL, f"GPIO {settings.button_pin}: no press in "
                     f"{press_seconds:g} s", "check the wiring: button between the pin and GND")
    finally:
        device.close()


def feedback(settings: Settings, pin_factory: Any = None) -> Check:
    """The LED / RGB LED / buzzer pins can be claimed (and show one green flash)."""
    if settings.led_pin is None and settings.rgb_pins is None and settings.buzzer_pin is None:
        return Check("feedback", OK, "no LED or buzzer configured (optional)")
    from companion.hardware.feedback import RECORDED, Feedback

    try:
        parts = Feedback(led_pin=settings.led_pin, rgb_pins=settings.rgb_pins,
                         buzzer_pin=settings.buzzer_pin, pin_factory=pin_factory)
    except Exception as exc:
        return Check("feedback", FAIL, f"{type(exc).__name__}: {exc}",
                     "check led_pin / rgb_pins / buzzer_pin and the gpio group")
    parts.signal(RECORDED)
    time.sleep(0.5)
    parts.close()
    return Check("feedback", OK, f"{', '.join(parts.parts)} usable (flashed once)")


def clock() -> Check:
    """Whether the system clock was set from the network (a Pi has no clock of its own)."""
    if clock_synced():
        return Check("clock", OK, "synchronised")
    return Check("clock", WARN, "not synchronised yet: entries stay in order, but their "
                 "times may be wrong until it is", "connect the Pi to a network with internet once")


def addresses(settings: Settings) -> Check:
    """The dashboard address phones can use."""
    if settings.host in ("127.0.0.1", "localhost", "::1"):
        return Check("address", WARN, f"http://{settings.host}:{settings.port}/ only on this "
                     "machine", 'set host = "0.0.0.0" so phones can join')
    ips = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            ips.add(str(info[4][0]))
    except OSError:
        pass
    ips.discard("127.0.1.1")
    hosts = sorted(ips - {"127.0.0.1"}) or [socket.gethostname()]
    if settings.host not in ("0.0.0.0", "::"):
        hosts = [settings.host]
    urls = ", ".join(f"http://{h}:{settings.port}/" for h in hosts)
    return Check("address", OK, urls)


def run_checks(settings: Settings, open_source: Callable[..., Any], *, pin_factory: Any = None,
               press_seconds: float = 0.0, camera_seconds: float = 2.0,
               say: Callable[[str], None] = print) -> list[Check]:
    """Every check, in the order a person would fix things."""
    checks = [versions(), data_dir(settings), database(settings), models()]
    cam, frames = camera(settings, open_source, camera_seconds)
    size = None if not frames else (frames[0].image.shape[1], frames[0].image.shape[0])
    checks += [cam, calibration(settings, size, frames[-1].image if frames else None),
               reading(settings, frames)]
    checks += [button(settings, pin_factory, press_seconds, say), feedback(settings, pin_factory)]
    checks += [clock(), addresses(settings)]
    return checks


def followed(settings: Settings, occlusion: Any, size: tuple[int, int]) -> Check | None:
    """A warning when the running companion follows the calibrated tray half a die edge
    or more from where it was calibrated (a knock, a camera moved, before or since the
    start: ``OcclusionDetector.knocked``); None when it does not."""
    if occlusion.calibrated is None:
        return None
    dx, dy = occlusion.knocked[0] * size[0], occlusion.knocked[1] * size[1]
    if math.hypot(dx, dy) < 0.5 * (occlusion.die_edge or 0.0) or (dx, dy) == (0.0, 0.0):
        return None
    return Check("calibration", WARN,
                 f"{settings.calibration_file}: the tray is read {dx:+.0f} x {dy:+.0f} px"
                 " from where it was calibrated (the camera or the tray moved; followed)",
                 "calibrate again when there is a moment (the camera page's 'Calibrate the"
                 " tray')")


def resized(settings: Settings, watcher: Any) -> Check | None:
    """A warning when the running companion counts the dice by their own size, not the
    calibration's die (``ThrowWatcher.resized``); None when it does not."""
    if getattr(watcher, "resized", None) is None:
        return None
    counted, measured = watcher.resized
    return Check("calibration", WARN,
                 f"{settings.calibration_file}: the dice measure {measured:.0f} px, the"
                 f" calibration's die {counted:.0f} px (counted by the dice's)",
                 "calibrate again when there is a moment, with a few dice in the tray (the"
                 " camera page's 'Calibrate the tray')")


def live_checks(settings: Settings, companion: Any, button_ok: bool | None,
                feedback_parts: tuple[str, ...] | None) -> list[Check]:
    """The checks for the status page, from the running companion (no test reads)."""
    checks = [versions(), data_dir(settings), database(settings), models()]
    if settings.camera == "none":
        checks.append(Check("camera", WARN, "no camera configured", "set camera in the config"))
    elif companion.camera_up:
        checks.append(Check("camera", OK, f"{settings.camera}: {companion.frames} frames, "
                            f"{companion.bad_frames} skipped"))
    else:
        checks.append(Check("camera", FAIL, f"{settings.camera} is not delivering frames",
                            "check the cable; the companion retries every 5 s"))
    size = companion.watcher.settle.frame_size if companion is not None else None
    check = calibration(settings, size)
    occlusion = getattr(companion.watcher.settle, "occlusion", None) if companion else None
    if check.level == OK and size is not None and occlusion is not None:
        check = (followed(settings, occlusion, size) or resized(settings, companion.watcher)
                 or check)
    checks.append(check)
    if settings.button_pin is None:
        checks.append(Check("button", WARN, "no button_pin set", "set button_pin"))
    elif button_ok:
        checks.append(Check("button", OK, f"GPIO {settings.button_pin} in use by the companion"))
    else:
        checks.append(Check("button", FAIL, f"GPIO {settings.button_pin} could not be opened",
                            "see the notice on every page; companion doctor tells more"))
    if feedback_parts is None:
        checks.append(Check("feedback", OK, "no LED or buzzer configured (optional)"))
    elif feedback_parts:
        checks.append(Check("feedback", OK, ", ".join(feedback_parts)))
    else:
        checks.append(Check("feedback", FAIL, "the LED / buzzer pins could not be opened",
                            "companion doctor tells more"))
    checks += [clock(), addresses(settings)]
    return checks
