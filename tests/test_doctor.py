"""The pre-flight check: one line per check, a fix for each problem, exit 1 on a failure."""

import sqlite3
import threading
from dataclasses import replace

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from companion import doctor
from companion.cli import main
from companion.config import Settings
from companion.hardware.camera import open_source


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.close()


def frames_folder(tmp_path, count=6, size=(640, 480)):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(count):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.full((size[1], size[0], 3), 100, np.uint8))
    return folder


def test_every_check_passes_with_a_replay_camera_and_mock_pins(tmp_path, factory):
    settings = Settings(data_dir=tmp_path / "data", camera=f"replay:{frames_folder(tmp_path)}",
                        button_pin=17, rgb_pins=(5, 6, 13), buzzer_pin=19)
    pressed = []

    def say(text):  # the person presses when asked
        pressed.append(text)
        threading.Timer(0.1, lambda: factory.pin(17).drive_low()).start()

    checks = {c.name: c for c in doctor.run_checks(settings, open_source, pin_factory=factory,
                                                   press_seconds=3, say=say)}
    assert checks["camera"].level == "ok" and "640x480" in checks["camera"].detail
    assert checks["reading"].level == "ok" and "ms/frame" in checks["reading"].detail
    assert checks["button"].detail == "GPIO 17 pressed" and "press the button now" in pressed[0]
    assert checks["feedback"].level == "ok" and "rgb, buzzer" in checks["feedback"].detail
    assert checks["data dir"].level == "ok" and checks["database"].level == "ok"


def test_a_button_not_pressed_in_time_fails_with_the_wiring_fix(tmp_path, factory):
    check = doctor.button(Settings(button_pin=17), factory, 0.2, say=lambda _: None)
    assert check.level == "fail" and "between the pin and GND" in check.fix


def test_a_calibration_for_another_frame_shape_fails(tmp_path):
    from companion.vision.tray import TrayProfile

    path = tmp_path / "tray.json"
    TrayProfile((640, 480), ((10, 10), (600, 10), (600, 460), (10, 460)), None,
                (100, 100, 100)).save(path)
    settings = Settings(calibration=path)
    assert doctor.calibration(settings, (640, 480)).level == "ok"
    bad = doctor.calibration(settings, (1920, 1080))
    assert bad.level == "fail" and "1920x1080" in bad.detail and "calibrate again" in bad.fix


def test_the_check_reads_the_calibration_saved_on_the_dashboard_and_names_a_faces_only_file(
    tmp_path,
):
    # Without ``calibration`` set, the file the camera page saved in data_dir is the one
    # checked (the companion reads with it); a file holding only enrolled faces has no
    # tray: a warning saying so, not a failure.
    import json

    from companion.vision.tray import TrayProfile

    data = tmp_path / "data"
    assert doctor.calibration(Settings(data_dir=data), (640, 480)).level == "warn"
    saved = data / "calibration.json"
    data.mkdir()
    TrayProfile((640, 480), ((10, 10), (600, 10), (600, 460), (10, 460)), None,
                (100, 100, 100)).save(saved)
    check = doctor.calibration(Settings(data_dir=data), (640, 480))
    assert check.level == "ok" and str(saved) in check.detail
    faces = tmp_path / "faces.json"
    faces.write_text(json.dumps({"faces": {"version": 1, "models": {}}}))
    check = doctor.calibration(Settings(data_dir=data, calibration=faces), (640, 480))
    assert check.level == "warn" and "no tray" in check.detail, check
    faces.write_text(json.dumps({"corners": "nonsense"}))
    check = doctor.calibration(Settings(data_dir=data, calibration=faces), (640, 480))
    assert check.level == "fail", check


def test_a_tray_moved_since_its_calibration_is_a_warning_and_a_turned_one_fails(tmp_path):
    """With a frame from the camera the check looks whether the tray's sides lie where
    the calibration saw them: in place, ok; moved 40 x 25 px, a warning saying how far
    (the companion follows it); the picture turned by 6 degrees, a failure asking for a
    new calibration. A profile made before calibrations kept the sides is not checked."""
    from dataclasses import replace as copy

    from companion.vision.tray import TrayProfile, calibrate_tray

    frame = np.full((480, 640, 3), (225, 228, 230), np.uint8)
    cv2.rectangle(frame, (90, 70), (550, 410), (40, 40, 40), -1)  # the tray's rim
    cv2.rectangle(frame, (100, 80), (540, 400), (140, 150, 150), -1)  # its floor
    corners = ((100.0, 80.0), (540.0, 80.0), (540.0, 400.0), (100.0, 400.0))
    profile = calibrate_tray(frame, corners, finder="classic")
    profile = copy(profile, die_size=30.0)
    path = tmp_path / "tray.json"
    profile.save(path)
    settings = Settings(calibration=path)
    check = doctor.calibration(settings, (640, 480), frame)
    assert check.level == "ok", check.detail
    moved = cv2.warpAffine(frame, np.float32([[1, 0, 40], [0, 1, 25]]), (640, 480),
                           borderMode=cv2.BORDER_REPLICATE)
    check = doctor.calibration(settings, (640, 480), moved)
    assert check.level == "warn" and "+40 x +25 px" in check.detail, check.detail
    turned = cv2.warpAffine(frame, cv2.getRotationMatrix2D((320.0, 240.0), 6.0, 1.0),
                            (640, 480), borderMode=cv2.BORDER_REPLICATE)
    check = doctor.calibration(settings, (640, 480), turned)
    assert check.level == "fail" and "calibrate again" in check.fix, check.detail
    TrayProfile(profile.frame_size, profile.corners, 30.0, profile.floor_bgr).save(path)
    assert doctor.calibration(settings, (640, 480), turned).level == "ok"


def test_dice_too_small_in_the_picture_are_a_warning_with_the_fix(tmp_path):
    from companion.vision.calibrate import SMALL_DIE
    from companion.vision.tray import TrayProfile

    path = tmp_path / "tray.json"
    corners = ((10, 10), (600, 10), (600, 460), (10, 460))
    TrayProfile((640, 480), corners, SMALL_DIE - 6, (100, 100, 100)).save(path)
    settings = Settings(calibration=path)
    small = doctor.calibration(settings, (640, 480))
    assert small.level == "warn" and f"{SMALL_DIE - 6:.0f} px" in small.detail
    assert "closer" in small.fix and "calibrate again" in small.fix
    # The same profile read at twice the picture width: the dice are twice as large.
    assert doctor.calibration(settings, (1280, 960)).level == "ok"
    TrayProfile((640, 480), corners, SMALL_DIE + 1, (100, 100, 100)).save(path)
    assert doctor.calibration(settings, (640, 480)).level == "ok"


def test_a_test_read_of_dice_too_small_is_a_warning_with_the_fix(tmp_path):
    from companion.hardware.camera import Frame
    from companion.synth.render import render_throw

    throw = render_throw(3, 3, size=(1280, 960)).image
    settings = Settings(data_dir=tmp_path / "data")
    for size, level in (((1280, 960), "ok"), ((320, 240), "warn")):
        # The same throw with the camera further away: the dice about 80 or 20 px across.
        image = cv2.resize(throw, size, interpolation=cv2.INTER_AREA)
        check = doctor.reading(settings, [Frame(image, 0.0)])
        assert check.level == level, check.detail
        assert ("px across" in check.detail) is (level == "warn")
    assert "closer" in check.fix and "3 dice" in check.detail


def test_a_test_read_of_a_cluttered_table_without_calibration_says_calibrate(tmp_path):
    from companion.hardware.camera import Frame
    from companion.synth.scene import surround

    # A tray camera over a printed menu, no tray calibrated: the letters look like dice.
    menu = surround("menu", (1280, 960), np.random.default_rng(41), 20.0)
    check = doctor.reading(Settings(data_dir=tmp_path / "data"), [Frame(menu, 0.0)])
    assert check.level == "warn" and "looks like dice" in check.detail
    assert "0 dice" in check.detail and "companion calibrate tray" in check.fix


def test_a_damaged_database_fails(tmp_path):
    settings = Settings(data_dir=tmp_path)
    settings.database.write_bytes(b"not a database at all" * 100)
    check = doctor.database(settings)
    assert check.level == "fail" and "restore" in check.fix
    settings.database.unlink()
    sqlite3.connect(settings.database).execute("CREATE TABLE t (x)").connection.close()
    assert doctor.database(settings).level == "ok"


def test_an_unwritable_data_dir_fails_naming_the_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    check = doctor.data_dir(Settings(data_dir=blocker / "data"))
    assert check.level == "fail" and str(blocker / "data") in check.detail


def test_models_missing_is_a_warning(tmp_path):
    assert doctor.models(tmp_path).level == "warn"


def test_a_camera_that_cannot_open_fails_and_the_command_exits_1(tmp_path, capsys,
                                                                monkeypatch):
    config = tmp_path / "c.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\ncamera = "replay:{tmp_path}/none"\n')
    monkeypatch.delenv("COMPANION_CONFIG", raising=False)
    assert main(["--config", str(config), "doctor", "--camera-seconds", "0.2"]) == 1
    out = capsys.readouterr().out
    assert "fail  camera:" in out and "-> " in out and "checks: 1 failed" in out


def test_the_status_page_warns_when_the_calibrated_tray_is_followed_elsewhere(tmp_path):
    """The running companion followed the calibrated tray 120 x 80 px away (a camera
    moved since it was calibrated): the status page's calibration check warns how far
    and asks to calibrate again; a knock of a few pixels, less than half a die edge,
    leaves it ok."""
    from companion.vision.occlusion import OcclusionDetector
    from companion.vision.tray import TrayProfile

    path = tmp_path / "tray.json"
    profile = TrayProfile((1280, 960), ((300, 200), (1000, 210), (990, 760), (310, 750)),
                          40.0, (120.0, 120.0, 120.0))
    profile.save(path)
    occlusion = OcclusionDetector(profile)

    class Running:
        camera_up, frames, bad_frames = True, 120, 0

        class watcher:  # noqa: N801 - mirrors the attribute path
            class settle:  # noqa: N801
                frame_size = (1280, 960)

    Running.watcher.settle.occlusion = occlusion
    settings = replace(Settings(data_dir=tmp_path), camera="picamera", calibration=path)
    check = {c.name: c for c in doctor.live_checks(settings, Running(), True, None)}
    assert check["calibration"].level == "ok"
    occlusion.follow_move((120 / 1280, 80 / 960))
    check = {c.name: c for c in doctor.live_checks(settings, Running(), True, None)}
    assert check["calibration"].level == "warn", check["calibration"]
    assert "+120 x +80 px" in check["calibration"].detail
    assert "calibrate again" in check["calibration"].fix
    occlusion.follow_move((10 / 1280, 5 / 960))
    check = {c.name: c for c in doctor.live_checks(settings, Running(), True, None)}
    assert check["calibration"].level == "ok"
    # Counting by the dice's own size, the calibration's die off (watch._size_dice).
    Running.watcher.resized = (16.0, 41.0)
    check = {c.name: c for c in doctor.live_checks(settings, Running(), True, None)}
    assert check["calibration"].level == "warn", check["calibration"]
    assert "the dice measure 41 px, the calibration's die 16 px" in check["calibration"].detail
    assert "calibrate again" in check["calibration"].fix


def test_live_checks_use_the_running_companion(tmp_path):
    class Running:
        camera_up, frames, bad_frames = True, 120, 1

        class watcher:  # noqa: N801 - mirrors the attribute path
            class settle:  # noqa: N801
                frame_size = None

    settings = replace(Settings(data_dir=tmp_path), camera="picamera", button_pin=17)
    checks = {c.name: c for c in doctor.live_checks(settings, Running(), True, ("rgb",))}
    assert checks["camera"].level == "ok" and "120 frames" in checks["camera"].detail
    assert checks["button"].level == "ok" and checks["feedback"].detail == "rgb"
    Running.camera_up = False
    down = {c.name: c for c in doctor.live_checks(settings, Running(), False, ())}
    assert down["camera"].level == down["button"].level == down["feedback"].level == "fail"


def test_a_test_read_of_dice_unlike_the_calibrations_die_says_calibrate_again(tmp_path):
    from companion.hardware.camera import Frame
    from companion.synth.render import render_throw
    from companion.vision.recognizer import PipRecognizer
    from companion.vision.tray import TrayProfile

    # An old calibration, or one made of something else, with half the die (or twice):
    # the settle detector then takes a throw for a cup ("hands and cups are told from
    # dice by that size"); the dice read are the dice's own size whatever it says.
    image = render_throw(3, 3, size=(1280, 960)).image
    corners = ((20, 20), (1260, 20), (1260, 940), (20, 940))
    measured = float(np.median([d.region.size for d in PipRecognizer(
        TrayProfile((1280, 960), corners, None, (100, 100, 100))).read(image).dice]))
    path = tmp_path / "tray.json"
    settings = Settings(data_dir=tmp_path / "data", calibration=path)
    for share, level in ((0.5, "warn"), (0.85, "ok"), (1.0, "ok"), (1.2, "ok"), (2.0, "warn")):
        TrayProfile((1280, 960), corners, measured * share, (100, 100, 100)).save(path)
        check = doctor.reading(settings, [Frame(image, 0.0)])
        assert check.level == level, (share, check.detail)
        assert ("the calibration says" in check.detail) is (level == "warn")
    assert "calibrate again" in check.fix and f"{2 * measured:.0f} px" in check.detail
    # The profile made for a picture half as wide: its die is half as many pixels.
    TrayProfile((640, 480), tuple((x / 2, y / 2) for x, y in corners), measured / 2,
                (100, 100, 100)).save(path)
    assert doctor.reading(settings, [Frame(image, 0.0)]).level == "ok"
