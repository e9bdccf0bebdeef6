"""One contract for every frame source (as gpiozero runs the same tests on each pin factory).

Whatever the camera -- the Pi camera (on a fake picamera2 that follows the real API), a
USB webcam (on a fake ``cv2.VideoCapture``), recorded frames, or the demo's rendered
throws -- the companion gets the same thing: BGR ``uint8`` frames of at least 32x32 with
a name and a timestamp that never runs backwards, each frame its own array, and a bad
frame refused as a ``FrameError`` by the one ``check_frame``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.hardware.camera import (
    FrameError,
    FrameSource,
    OpenCVSource,
    PiCameraSource,
    ReplaySource,
    check_frame,
)
from companion.hardware.demo import Throw, ThrowSource
from tests.hardware.fake_capture import FakeCapture
from tests.hardware.fake_picamera2 import FakePicamera2

READS = 8


def _replay(tmp_path: Path, bad: bool) -> FrameSource:
    paths = []
    for i in range(READS):
        path = tmp_path / f"{i:02d}.png"
        assert cv2.imwrite(str(path), np.full((48, 64, 3), 20 * i, np.uint8))
        paths.append(path)
    if bad:
        paths[0].write_bytes(b"not a picture")
    return ReplaySource(paths)


class _Capture(FakeCapture):
    def __init__(self, image: np.ndarray) -> None:
        super().__init__()
        self.image = image

    def read(self):
        return True, self.image.copy()


def _usb(tmp_path: Path, bad: bool) -> FrameSource:
    image = np.zeros((480, 640), np.uint8) if bad else np.full((480, 640, 3), 90, np.uint8)
    return OpenCVSource(0, capture=_Capture(image))


class _GreyPicamera2(FakePicamera2):
    """A camera configured for colour that hands out one grey plane (a broken driver)."""

    def capture_request(self, wait=None, flush=None):
        request = super().capture_request(wait, flush)
        request._frame["main"] = request._frame["main"][:, :, 0]
        return request


def _picamera(tmp_path: Path, bad: bool) -> FrameSource:
    return PiCameraSource(picamera2=_GreyPicamera2() if bad else FakePicamera2(), fps=15)


def _demo(tmp_path: Path, bad: bool) -> FrameSource:
    shape = (36, 40) if bad else (36, 40, 3)
    moving = [np.full(shape, 10, np.uint8), np.full(shape, 20, np.uint8)]
    throws = iter([Throw(moving, np.full(shape, 30, np.uint8))] * 2)
    return ThrowSource(lambda: next(throws, None), still_frames=3, interval=0.1)


SOURCES: dict[str, Callable[[Path, bool], FrameSource]] = {
    "replay": _replay,
    "usb": _usb,
    "picamera": _picamera,
    "demo": _demo,
}


@pytest.fixture(params=sorted(SOURCES))
def make_source(request, tmp_path):
    opened = []

    def make(bad: bool = False) -> FrameSource:
        source = SOURCES[request.param](tmp_path, bad)
        opened.append(source)
        return source

    yield make
    for source in opened:
        source.close()


def test_frames_are_usable_bgr_pictures_with_a_name_and_a_rising_clock(make_source):
    source = make_source()
    frames = [source.read() for _ in range(READS)]
    assert all(frame is not None for frame in frames)
    for frame in frames:
        assert check_frame(frame.image) is frame.image
        assert frame.image.dtype == np.uint8 and frame.image.shape[2] == 3
        assert isinstance(frame.name, str) and frame.name
        assert frame.lores is None or (frame.lores.dtype == np.uint8
                                       and frame.lores.shape[2] == 3)
    stamps = [frame.timestamp for frame in frames]
    assert stamps == sorted(stamps)


def test_each_frame_is_its_own_array(make_source):
    source = make_source()
    frames = [source.read() for _ in range(READS)]
    kept = [frame.image.copy() for frame in frames]
    frames[0].image[:] = 255  # drawing on one frame (annotating it) leaves the others alone
    for earlier, later in zip(frames, frames[1:], strict=False):
        assert not np.shares_memory(earlier.image, later.image)
    assert all(np.array_equal(f.image, k) for f, k in zip(frames[1:], kept[1:], strict=True))


def test_a_bad_frame_is_a_frame_error_saying_what_was_wrong(make_source):
    source = make_source(bad=True)
    with pytest.raises(FrameError, match="image|colour|readable"):
        source.read()


def test_closing_twice_is_harmless(make_source):
    source = make_source()
    assert source.read() is not None
    source.close()
    source.close()  # a camera loop's clean-up may close a source again
