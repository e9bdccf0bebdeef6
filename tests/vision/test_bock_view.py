"""Rock the Bock dice read in the straightened tray of a whole, slanted camera frame."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion import evaluation
from companion.synth.render import render_throw
from companion.synth.scene import SETUPS, compose, surround, tray_floor
from companion.vision.faces import VIEW_DIE, BockRecognizer
from companion.vision.tray import calibrate_tray


@pytest.fixture(scope="module")
def scenes():
    rng = np.random.default_rng(5)
    out = []
    for i in range(3):
        throw = render_throw(880 + i, 10, kind="bock", size=(1280, 960))
        photo, labels = tray_floor(throw)
        out.append(compose(photo, labels, SETUPS["webcam-wood"], rng))
    return out


def test_dice_are_read_in_the_straightened_tray_and_mapped_back(scenes):
    first = scenes[0]
    profile = calibrate_tray(first.frame, tuple((float(x), float(y)) for x, y in first.corners))
    recognizer = BockRecognizer(profile)
    tray = profile.valid_mask(first.frame.shape)
    right = total = 0
    ratios: list[float] = []
    for scene in scenes:
        view = recognizer.view(scene.frame)
        assert view is not None
        # The spotter's top face comes out VIEW_DIE pixels across in the view.
        die = recognizer.die_size(scene.frame)
        assert die * view.scale == pytest.approx(VIEW_DIE, rel=0.02)
        reading = recognizer.read(scene.frame)
        assert "rectify" in reading.timings_ms
        labels = list(scene.dice)
        pairs = evaluation.match(labels, [d.region.center for d in reading.dice])
        assert len(pairs) == len(reading.dice) == len(labels)  # every die, nothing else
        for i, j in pairs:
            read = reading.dice[j]
            assert read.uncertain or read.value == labels[i].value
            right += not read.uncertain and read.value == labels[i].value
            # Outlines are in frame pixels: the box around the read top face is about
            # the labelled box. One die's edge is the spotter's (off by 4 % at the median,
            # up to about 15 %, and the slant makes the labelled box no square); a
            # mapping that left the view's scale in would move every die alike.
            x, y = read.region.center
            assert tray[int(y), int(x)]
            a = np.radians(read.region.angle)
            box = read.region.size * (abs(np.cos(a)) + abs(np.sin(a)))
            ratios.append(box / ((labels[i].w + labels[i].h) / 2))
        total += len(labels)
    assert all(0.8 < r < 1.2 for r in ratios)
    assert 0.9 < float(np.median(ratios)) < 1.1
    assert right >= total - 1
    assert not recognizer.unfamiliar


def test_a_profile_without_a_die_size_waits_for_the_spotter(scenes):
    scene = scenes[1]
    corners = tuple((float(x), float(y)) for x, y in scene.corners)
    profile = calibrate_tray(scene.frame, corners)
    empty = np.full_like(scene.frame, 0)
    cv2.fillConvexPoly(empty, scene.corners.astype(np.int32), (120, 122, 124))
    bare = type(profile)(profile.frame_size, profile.corners, None, profile.floor_bgr)
    recognizer = BockRecognizer(bare)
    # No die seen and none calibrated: the frame is read as it is.
    assert recognizer.view(empty) is None
    assert recognizer.read(empty).dice == ()
    assert recognizer.view(scene.frame) is not None
    assert len(recognizer.read(scene.frame).dice) == len(scene.dice)


_BAR_COASTER = pytest.mark.xfail(
    strict=True,
    reason="a green coaster with a glass's light foot on it, on the dark bar, is read as a"
    " sure green goat (the spotter trained on frames of a table alone still finds it)",
)


@pytest.mark.parametrize("kind", ["wood", "cloth", "bar"])
@pytest.mark.parametrize(("size", "die", "seed"), [
    ((1280, 960), 40.0, 31), ((1920, 1080), 25.0, 32), ((2028, 1520), 110.0, 33),
])
def test_a_frame_of_table_alone_shows_no_rock_the_bock_die(kind, size, die, seed, request):
    # Without a profile the spotter looks over the whole frame. The one shipped before
    # was trained on trays alone and read phantoms in 273 of 300 frames of a table
    # (tools/table_alone.py --kind bock); the one that ships also trained on frames of a
    # table alone (train_spotter.py --empties, another seed stream than these).
    if kind == "bar" and size == (2028, 1520):
        request.applymarker(_BAR_COASTER)
    frame = surround(kind, size, np.random.default_rng(seed), die)
    assert BockRecognizer().read(frame).dice == ()
