"""Frame sources: recorded frames go through the same protocol as a live camera."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.hardware.camera import (
    CameraError,
    FrameError,
    OpenCVSource,
    ReplaySource,
    SequenceError,
    check_frame,
    load_sequence,
    open_source,
    parse_replay,
)


def write_frames(folder: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        image = np.full((48, 64, 3), 40 * i, np.uint8)
        path = folder / f"frame-{i:02d}.png"
        assert cv2.imwrite(str(path), image)
        paths.append(path)
    return paths


def test_replay_reads_files_in_name_order_then_ends(tmp_path):
    write_frames(tmp_path, 3)
    source = open_source(f"replay:{tmp_path}")
    frames = list(source)
    assert [f.name for f in frames] == ["frame-00.png", "frame-01.png", "frame-02.png"]
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 40, 80]
    assert source.read() is None


def test_replay_loops_when_asked(tmp_path):
    write_frames(tmp_path, 2)
    source = ReplaySource(tmp_path, loop=True)
    names = [source.read().name for _ in range(5)]
    assert names == ["frame-00.png", "frame-01.png"] * 2 + ["frame-00.png"]


def test_replay_paces_frames_like_a_camera(tmp_path):
    write_frames(tmp_path, 3)
    now = [100.0]
    slept = []

    def sleep(seconds):
        slept.append(round(seconds, 6))
        now[0] += seconds

    source = ReplaySource(tmp_path, fps=10, clock=lambda: now[0], sleep=sleep)
    stamps = [f.timestamp for f in source]
    assert slept == [0.1, 0.1]
    assert stamps == pytest.approx([100.0, 100.1, 100.2])


def test_a_corrupt_file_is_a_frame_error_and_the_stream_goes_on(tmp_path):
    write_frames(tmp_path, 2)
    (tmp_path / "frame-00b.jpg").write_bytes(b"not a jpeg")
    source = ReplaySource(tmp_path)
    assert source.read().name == "frame-00.png"
    with pytest.raises(FrameError, match="frame-00b.jpg: not a readable image"):
        source.read()
    assert source.read().name == "frame-01.png"


@pytest.mark.parametrize(
    "image, message",
    [
        ("a string", "expected an image array"),
        (np.zeros((64, 64, 3), np.float32), "8-bit"),
        (np.zeros((64, 64), np.uint8), "colour image"),
        (np.zeros((8, 8, 3), np.uint8), "too small"),
    ],
)
def test_bad_frames_are_refused_with_a_reason(image, message):
    with pytest.raises(FrameError, match=message):
        check_frame(image)


def test_missing_replay_folder_and_unknown_camera_are_clear_errors(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        open_source(f"replay:{tmp_path / 'nope'}")
    with pytest.raises(CameraError, match="no image files"):
        open_source(f"replay:{tmp_path}")
    with pytest.raises(CameraError, match="unknown camera"):
        open_source("webcam")


class StoppedCapture:
    """A capture device that opened but delivers nothing (an unplugged webcam)."""

    def isOpened(self):  # noqa: N802 - cv2's spelling
        return True

    def set(self, prop, value):
        return True

    def read(self):
        return False, None

    def release(self):
        pass


def test_usb_camera_that_stops_delivering_is_a_camera_error():
    source = OpenCVSource(0, capture=StoppedCapture())
    with pytest.raises(CameraError, match="stopped delivering frames"):
        source.read()
    source.close()


def test_usb_camera_that_does_not_open_says_what_to_check():
    class Closed(StoppedCapture):
        def isOpened(self):  # noqa: N802
            return False

    with pytest.raises(CameraError, match="could not be opened"):
        OpenCVSource(3, capture=Closed())


def write_sequence(folder: Path, count: int, fps: object = 15) -> Path:
    (folder / "frames").mkdir(parents=True)
    for i in range(count):
        assert cv2.imwrite(str(folder / "frames" / f"{i:05d}.jpg"),
                           np.full((48, 64, 3), 40 * i, np.uint8))
    (folder / "sequence.json").write_text(json.dumps({"fps": fps, "frames": count}))
    return folder


def test_a_sequence_folder_replays_at_its_own_rate(tmp_path):
    write_sequence(tmp_path, 3, fps=20)
    now = [0.0]
    slept = []

    def sleep(seconds):
        slept.append(round(seconds, 6))
        now[0] += seconds

    sequence = load_sequence(tmp_path)
    assert sequence.fps == 20 and [p.name for p in sequence.frames] == [
        "00000.jpg", "00001.jpg", "00002.jpg"]
    source = ReplaySource(list(sequence.frames), fps=sequence.fps, clock=lambda: now[0],
                          sleep=sleep)
    assert len(list(source)) == 3 and slept == [0.05, 0.05]
    assert isinstance(open_source(f"replay:{tmp_path}"), ReplaySource)


def test_replay_fps_option(tmp_path):
    write_frames(tmp_path, 2)
    assert parse_replay(f"replay:{tmp_path}?fps=15") == (tmp_path, 15.0)
    assert parse_replay(f"replay:{tmp_path}") == (tmp_path, 0.0)
    assert len(list(open_source(f"replay:{tmp_path}?fps=1000"))) == 2


@pytest.mark.parametrize("spec, message", [
    ("replay:{d}?fps=abc", "fps must be a number"),
    ("replay:{d}?fps=0", "above 0"),
    ("replay:{d}?fps=-3", "above 0"),
    ("replay:{d}?speed=2", "unknown option"),
    ("replay:", "names no folder"),
])
def test_bad_replay_options_are_clear_errors(tmp_path, spec, message):
    with pytest.raises(SequenceError, match=message):
        open_source(spec.format(d=tmp_path))


@pytest.mark.parametrize("info, message", [
    ("{", "not valid JSON"),
    ("[1, 2]", "must be an object"),
    ('{"fps": "fast", "frames": 2}', "fps must be a number"),
    ('{"fps": 15, "frames": 0}', "frames must be a whole number"),
    ('{"fps": 15, "frames": 5}', "says 5 frames but"),
    ('{"fps": true, "frames": 2}', "fps must be a number"),
])
def test_bad_sequence_files_are_clear_errors(tmp_path, info, message):
    write_sequence(tmp_path, 2)
    (tmp_path / "sequence.json").write_text(info)
    with pytest.raises(SequenceError, match=message):
        load_sequence(tmp_path)
    with pytest.raises(CameraError, match=message):
        open_source(f"replay:{tmp_path}")
