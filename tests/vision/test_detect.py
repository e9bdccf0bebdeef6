"""The die finder on drawn frames, rendered frames and (when present) real photos."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from pipdraw import frame_with_dice, photos_dir

from companion.synth import render
from companion.vision.detect import MIN_WORK_DIE, FinderOptions, find_dice, working_scale
from companion.vision.types import VisionError

COLOURS = [
    ((235, 235, 235), (20, 20, 20)),  # white, black pips
    ((40, 40, 200), (240, 240, 240)),  # red, white pips
    ((40, 130, 40), (60, 220, 230)),  # green, yellow pips
    ((30, 30, 30), (40, 40, 210)),  # black, red pips
]


def _nearest(regions, x, y):
    return min(math.hypot(r.center[0] - x, r.center[1] - y) for r in regions)


def test_finds_each_die_of_every_colour_with_its_centre_and_size():
    dice = [(100, 100, 10, 1), (250, 120, 33, 2), (400, 300, 0, 3), (520, 200, 60, 4)]
    frame = frame_with_dice(dice, colours=COLOURS)
    regions = find_dice(frame)
    assert len(regions) == 4
    for x, y, _, _ in dice:
        assert _nearest(regions, x, y) < 4
    for r in regions:
        assert 36 <= r.size <= 50
        assert 0 <= r.angle < 90
        assert len(r.corners) == 4
        assert 0 < r.confidence <= 1


@pytest.mark.parametrize("work_side", [320, 480, 640])
def test_finds_the_same_dice_at_every_working_side(work_side):
    dice = [(100, 100, 10, 1), (250, 120, 33, 2), (400, 300, 0, 3), (520, 200, 60, 4)]
    frame = frame_with_dice(dice, colours=COLOURS)
    regions = find_dice(frame, FinderOptions(work_side=work_side))
    assert len(regions) == 4
    for x, y, _, _ in dice:
        assert _nearest(regions, x, y) < 4
    # Sizes come back in frame pixels whatever the working scale.
    assert all(36 <= r.size <= 50 for r in regions)


@pytest.mark.parametrize(
    ("size", "edge"), [((1280, 960), 24), ((1920, 1080), 24), ((1920, 1080), 32)]
)
def test_small_dice_in_a_big_frame_are_looked_for_again_at_a_finer_scale(size, edge):
    # At a work side of 320 these dice are 4-6 working pixels: too small to find there.
    w, h = size
    dice = [
        (w * 0.2 + w * 0.12 * (v - 1), h * 0.5 + (v % 2) * edge * 1.5, 17 * v, v)
        for v in range(1, 7)
    ]
    frame = frame_with_dice(dice, size=size, edge=edge, seed=1)
    regions = find_dice(frame, FinderOptions(work_side=320))
    assert len(regions) == 6
    for x, y, _, _ in dice:
        assert _nearest(regions, x, y) < edge * 0.2
    assert all(0.8 * edge < r.size < 1.4 * edge for r in regions)
    # An empty frame of that size is looked at up to four times finer, and stays empty.
    assert find_dice(frame_with_dice([], size=size), FinderOptions(work_side=320)) == []


def test_working_scale_follows_the_work_side_but_keeps_known_dice_big_enough():
    assert working_scale((480, 640, 3)) == pytest.approx(480 / 640)
    assert working_scale((480, 640, 3), FinderOptions(work_side=320)) == pytest.approx(0.5)
    assert working_scale((100, 200, 3), FinderOptions(work_side=320)) == 1.0  # never enlarged
    # A calibrated die of 40 px at 320 of 1280 would shrink to 10 px: kept at 16.
    small = FinderOptions(die_size=40, work_side=320)
    assert working_scale((960, 1280, 3), small) * 40 == pytest.approx(MIN_WORK_DIE)


def test_splits_two_dice_lying_edge_to_edge():
    frame = frame_with_dice([(300, 200, 17, 6), (341, 212, 17, 6)], colours=COLOURS[:1])
    regions = find_dice(frame)
    assert len(regions) == 2
    assert _nearest(regions, 300, 200) < 6
    assert _nearest(regions, 341, 212) < 6


def test_empty_tray_has_no_dice_and_a_mask_limits_the_search():
    empty = frame_with_dice([])
    assert find_dice(empty) == []
    frame = frame_with_dice([(100, 100, 0, 1), (500, 300, 0, 2)])
    valid = np.zeros(frame.shape[:2], np.uint8)
    valid[:, 320:] = 255
    regions = find_dice(frame, FinderOptions(die_size=40), valid)
    assert len(regions) == 1 and regions[0].center[0] > 320


def test_rejects_frames_that_are_not_bgr_images():
    with pytest.raises(VisionError, match="BGR"):
        find_dice(np.zeros((100, 100), np.uint8))
    with pytest.raises(VisionError, match="BGR"):
        find_dice(np.zeros((100, 100, 3), np.float32))


@pytest.mark.parametrize("kind", ["pips", "bock"])
def test_finds_rendered_dice(kind):
    found = total = 0
    for seed in range(100, 106):
        throw = render.render_throw(seed, 6, kind=kind, size=(640, 480))
        regions = find_dice(throw.image)
        total += len(throw.dice)
        found += sum(
            1 for d in throw.dice if regions and _nearest(regions, *d.center) < d.size * 0.5
        )
    # Measured 31/36 when written: dice in the rendered tray's corners and shadows are missed.
    assert found / total >= 0.8


@pytest.mark.photos
def test_finds_real_dice_on_a_sample_of_photos():
    tray = photos_dir()
    images = sorted((tray / "images").glob("*.jpg"))[::12]
    labelled = found = 0
    for path in images:
        frame = cv2.imread(str(path))
        h, w = frame.shape[:2]
        regions = find_dice(frame)
        for line in (tray / "labels" / f"{path.stem}.txt").read_text().split("\n"):
            if not line.strip():
                continue
            _, x, y, bw, bh = (float(v) for v in line.split())
            labelled += 1
            if regions and _nearest(regions, x * w, y * h) < 0.5 * max(bw * w, bh * h):
                found += 1
    assert found / labelled >= 0.9


def _touching_dice() -> list[tuple[float, float, float, int]]:
    """A row of four, a bent chain of three and a column of five dice, each touching."""
    step = 41.0  # a 40 px die plus a hairline gap
    a = math.radians(10)
    dice = [(100 + step * i, 80, 0, 1 + i) for i in range(4)]
    dice += [
        (400, 120, 10, 2),
        (400 + step * math.cos(a), 120 + step * math.sin(a), 10, 3),
        (400 - step * math.sin(a), 120 + step * math.cos(a), 10, 4),
    ]
    dice += [(560, 150 + step * i, 0, 1 + i) for i in range(5)]
    return dice


def test_splits_rows_bends_and_columns_of_touching_dice():
    # No die lies alone, so the size comes from the clusters; the column is longer than
    # a quarter of the frame, as long as the strips taken for tray walls before the die
    # size is known.
    dice = _touching_dice()
    regions = find_dice(frame_with_dice(dice))
    assert len(regions) == len(dice)
    for x, y, _, _ in dice:
        assert _nearest(regions, x, y) < 8
    for r in regions:
        assert 36 <= r.size <= 50


def test_splits_touching_dice_when_the_size_is_given():
    dice = _touching_dice()
    regions = find_dice(frame_with_dice(dice), FinderOptions(die_size=42))
    assert len(regions) == len(dice)
    for x, y, _, _ in dice:
        assert _nearest(regions, x, y) < 8


def _score_renders(frames) -> tuple[int, int, int, int, int]:
    """Found / all dice, found / all touching dice and regions on no die, over frames."""
    found = total = touching_found = touching = extra = 0
    for image, truth in frames:
        regions = find_dice(image)
        hit = set()
        for d in truth:
            near = [
                k
                for k, r in enumerate(regions)
                if math.hypot(r.center[0] - d.center[0], r.center[1] - d.center[1]) < d.size * 0.5
            ]
            hit.update(near)
            ok = bool(near)
            touches = any(
                math.hypot(d.center[0] - e.center[0], d.center[1] - e.center[1]) < 1.3 * d.size
                for e in truth
                if e is not d
            )
            total += 1
            found += ok
            touching += touches
            touching_found += ok and touches
        extra += len(regions) - len(hit)
    return found, total, touching_found, touching, extra


def test_splits_touching_dice_in_hard_renders():
    frames = []
    for i in range(8):
        throw = render.render_throw(
            render.frame_seed(31, i), 10, kind="bock", hard=True, size=(640, 480)
        )
        frames.append((throw.image, throw.dice))
    found, total, touching_found, touching, extra = _score_renders(frames)
    # Measured when written: 55 of 62 touching dice, 72 of 80 in all, 24 regions on no
    # die with OpenCV 5 + numpy 2; 49 of 62, 66 of 80 and 20 with OpenCV 4.6 + numpy 1.24
    # (the Pi's stack: the frames and k-means seeding differ a little). The finder before
    # the size estimate from cluster widths found 31 of the 62.
    assert touching > 40
    assert touching_found / touching >= 0.75
    assert found / total >= 0.8
    assert extra <= 32


def test_finds_dice_in_dim_and_green_light():
    normal = [
        render.render_throw(render.frame_seed(32, i), 10, kind="bock", size=(640, 480))
        for i in range(4)
    ]
    # Mean brightness about 22 of 255, and a strong green cast at half the light.
    for gains in ((0.3, 0.3, 0.3), (0.35, 0.6, 0.35)):
        frames = [
            (np.clip(t.image * np.float32(gains), 0, 255).astype(np.uint8), t.dice) for t in normal
        ]
        found, total, _, _, extra = _score_renders(frames)
        # Measured 38/40 found and at most 2 regions on no die in both when written.
        assert found / total >= 0.85
        assert extra <= 5
