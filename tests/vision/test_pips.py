"""The pip reader on drawn dice with known values and on a sample of real photos."""

from __future__ import annotations

import cv2
import pytest
from pipdraw import frame_with_dice, photos_dir

from companion.vision.pips import read_pips
from companion.vision.recognizer import PipRecognizer
from companion.vision.tray import TrayProfile
from companion.vision.types import DieRegion


def _region(x, y, edge=40.0):
    corners = (
        (x - edge / 2, y - edge / 2),
        (x + edge / 2, y - edge / 2),
        (x + edge / 2, y + edge / 2),
        (x - edge / 2, y + edge / 2),
    )
    return DieRegion((x, y), edge, 0.0, corners, 1.0)


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("angle", [0, 20, 45, 71])
@pytest.mark.parametrize(
    "colours",
    [
        ((235, 235, 235), (20, 20, 20)),
        ((40, 40, 200), (240, 240, 240)),
        ((30, 30, 30), (40, 40, 210)),
    ],
    ids=["white", "red", "black-red-pips"],
)
def test_reads_every_value_at_any_rotation(value, angle, colours):
    frame = frame_with_dice([(200, 150, angle, value)], colours=[colours], seed=value)
    reading = read_pips(frame, _region(200, 150))
    assert reading.value == value
    assert not reading.uncertain
    assert len(reading.pips) == value


def test_a_blank_square_is_not_a_die():
    frame = frame_with_dice([])
    cv2.rectangle(frame, (180, 130), (220, 170), (230, 230, 230), -1)
    reading = read_pips(frame, _region(200, 150))
    assert reading.value is None
    assert reading.uncertain


@pytest.mark.photos
def test_reads_a_sample_of_real_dice():
    """Regression floor on labelled boxes of tray-a (0.82 when written, on every 10th photo)."""
    tray = photos_dir()
    right = total = 0
    for path in sorted((tray / "images").glob("*.jpg"))[::10]:
        frame = cv2.imread(str(path))
        h, w = frame.shape[:2]
        for line in (tray / "labels" / f"{path.stem}.txt").read_text().split("\n"):
            if not line.strip():
                continue
            cls, x, y, bw, bh = (float(v) for v in line.split())
            region = DieRegion((x * w, y * h), 0.8 * max(bw * w, bh * h), 0.0, (), 1.0)
            total += 1
            right += read_pips(frame, region).value == int(cls) + 1
    assert right / total >= 0.75


def test_recognizer_reads_a_whole_frame_and_times_its_stages():
    dice = [
        (100, 100, 10, 1),
        (250, 120, 33, 2),
        (400, 300, 0, 3),
        (520, 200, 60, 4),
        (150, 350, 80, 5),
        (330, 200, 17, 6),
    ]
    frame = frame_with_dice(
        dice, colours=[((235, 235, 235), (20, 20, 20)), ((40, 40, 200), (240, 240, 240))]
    )
    reading = PipRecognizer().read(frame)
    assert reading.kind == "pips"
    assert reading.frame_size == (640, 480)
    assert sorted(reading.values) == [1, 2, 3, 4, 5, 6]
    assert not reading.uncertain
    # Without a profile the tray is looked for first ("tray").
    assert set(reading.timings_ms) == {"tray", "rectify", "detect", "pips", "total"}
    assert reading.timings_ms["total"] >= reading.timings_ms["detect"] > 0
    # Each die is reported where it lies.
    for x, y, _, value in dice:
        die = min(
            reading.dice, key=lambda d: abs(d.region.center[0] - x) + abs(d.region.center[1] - y)
        )
        assert die.value == value
        assert abs(die.region.center[0] - x) < 5 and abs(die.region.center[1] - y) < 5


def test_recognizer_with_a_profile_reads_inside_the_tray_only():
    frame = frame_with_dice([(100, 100, 0, 2), (450, 300, 20, 5)])
    profile = TrayProfile(
        (640, 480), ((320, 0), (640, 0), (640, 480), (320, 480)), 42.0, (150.0, 155.0, 150.0)
    )
    reading = PipRecognizer(profile).read(frame)
    assert reading.values == [5]
    # The same profile applies, scaled, to a frame of twice the size.
    big = cv2.resize(frame, (1280, 960), interpolation=cv2.INTER_CUBIC)
    assert PipRecognizer(profile).read(big).values == [5]
