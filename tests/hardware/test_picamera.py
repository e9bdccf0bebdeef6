"""The Pi camera source against a fake picamera2 that follows the real API's contract."""

import numpy as np
import pytest

from companion.hardware.camera import (
    MEASURE_FRAMES,
    ExposureLock,
    PiCameraSource,
    fit_width,
    pick_sensor_mode,
)
from tests.hardware.fake_capture import FakeCapture
from tests.hardware.fake_picamera2 import IMX477_MODES, FakePicamera2


def test_main_is_the_largest_mode_at_15_fps_and_lores_is_small_with_the_same_shape():
    cam = FakePicamera2()
    source = PiCameraSource(picamera2=cam, fps=15)
    config = cam.config
    assert config["main"] == {"format": "RGB888", "size": (2028, 1520)}
    assert config["raw"] == {"size": (2028, 1520)}  # the 40 fps binned mode, not the 10 fps one
    assert config["lores"]["format"] == "YUV420"
    lw, lh = config["lores"]["size"]
    assert lw == 320 and abs(lw / lh - 2028 / 1520) < 0.02
    assert config["controls"]["FrameDurationLimits"] == (66666, 66666)
    assert cam.started
    source.close()
    assert cam.closed


def test_a_frame_carries_both_streams_as_bgr_copies_and_releases_the_buffer():
    cam = FakePicamera2()
    source = PiCameraSource(picamera2=cam)
    for _ in range(10):  # more reads than buffers: each one is given back
        frame = source.read()
    assert cam.outstanding == 0
    assert frame.image.shape == (1520, 2028, 3) and frame.image.dtype == np.uint8
    assert frame.lores.shape == (240, 320, 3)
    # the lores picture is the same moment as main, in BGR
    assert abs(int(frame.lores.mean()) - int(frame.image.mean())) <= 2
    source.close()


def test_exposure_and_white_balance_settle_then_lock_short():
    cam = FakePicamera2(scene_exposure=30000, scene_gain=2.0, scene_colour=(1.9, 1.6))
    source = PiCameraSource(picamera2=cam, max_exposure_us=10000)
    assert cam.control_log[0] == {"AeEnable": True, "AwbEnable": True}
    for _ in range(MEASURE_FRAMES[1]):
        source.read()
    lock = cam.control_log[-1]
    assert lock["AeEnable"] is False and lock["AwbEnable"] is False
    assert lock["ExposureTime"] == 10000  # shortened from ~30 ms
    assert 5.0 <= lock["AnalogueGain"] <= 6.5  # three times the gain keeps the brightness
    assert lock["ColourGains"] == pytest.approx((1.9, 1.6), rel=0.05)
    locked_at = len(cam.control_log)
    cam.scene = (60000, 4.0, 1.2, 2.2)  # the room gets darker: nothing moves while locked
    for _ in range(20):
        source.read()
    assert len(cam.control_log) == locked_at
    assert not source.exposure.measuring
    source.close()


@pytest.mark.slow
def test_remeasure_switches_auto_on_and_locks_the_new_values():
    cam = FakePicamera2()
    source = PiCameraSource(picamera2=cam)
    for _ in range(MEASURE_FRAMES[1]):
        source.read()
    cam.scene = (8000, 1.0, 1.2, 2.2)
    source.remeasure()
    assert cam.control_log[-1] == {"AeEnable": True, "AwbEnable": True}
    assert source.exposure.measuring
    for _ in range(MEASURE_FRAMES[1]):
        source.read()
    lock = cam.control_log[-1]
    assert lock["ExposureTime"] == pytest.approx(8000, rel=0.05)  # already short: kept
    assert lock["ColourGains"] == pytest.approx((1.2, 2.2), rel=0.05)
    source.close()


def test_an_explicit_size_is_kept_within_the_width_limit():
    cam = FakePicamera2()
    source = PiCameraSource((4056, 3040), picamera2=cam)
    assert cam.config["main"]["size"] == (2028, 1520)
    source.close()


def test_sensor_modes_are_read_before_the_camera_starts():
    cam = FakePicamera2()
    PiCameraSource(picamera2=cam).close()  # the fake raises if read while started


def test_mode_choice_and_sizes():
    assert pick_sensor_mode(IMX477_MODES, 15)["size"] == (2028, 1520)
    assert pick_sensor_mode(IMX477_MODES, 8)["size"] == (4056, 3040)
    assert pick_sensor_mode(IMX477_MODES, 200) is None
    assert fit_width((4056, 3040), 320) == (320, 240)
    assert fit_width((1640, 1232), 2028) == (1640, 1232)


def test_exposure_lock_waits_for_steady_values_and_gives_up_waiting_after_a_while():
    lock = ExposureLock(10000)
    results = [lock.feed(5000, 1.0, (1.5, 1.5)) for _ in range(MEASURE_FRAMES[0])]
    assert results[:-1] == [None] * (MEASURE_FRAMES[0] - 1) and results[-1] is not None
    drifting = ExposureLock(10000)
    answers = [drifting.feed(1000 + 500 * i, 1.0, (1.5, 1.5)) for i in range(MEASURE_FRAMES[1])]
    assert answers.count(None) == MEASURE_FRAMES[1] - 1 and answers[-1]["ExposureTime"] == 10000


def test_usb_camera_keeps_one_buffer_and_locks_exposure_after_it_settled():
    from companion.hardware.camera import OpenCVSource

    cap = FakeCapture()
    cv2 = cap.cv2
    source = OpenCVSource(0, capture=cap)
    assert (cv2.CAP_PROP_BUFFERSIZE, 1) in cap.log
    assert cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 3 and cap.props[cv2.CAP_PROP_AUTO_WB] == 1
    for _ in range(MEASURE_FRAMES[0] * 2):
        source.read()
    assert cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 1 and cap.props[cv2.CAP_PROP_AUTO_WB] == 0
    assert cap.props[cv2.CAP_PROP_EXPOSURE] == 156.0
    assert source.locks == {"newest_frame": True, "exposure": True, "white_balance": True}
    source.remeasure()
    assert cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 3 and "exposure" not in source.locks


def test_usb_camera_says_what_its_driver_would_not_lock():
    from companion.hardware.camera import OpenCVSource

    cap = FakeCapture(supported=set())
    source = OpenCVSource(0, capture=cap)
    for _ in range(MEASURE_FRAMES[0] * 2):
        source.read()
    assert source.locks == {"newest_frame": False, "exposure": False, "white_balance": False}
