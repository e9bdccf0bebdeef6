"""Whole camera frames composed from tray photos: geometry, labels, folders, the command."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.evaluation import LabelledDie, read_labels
from companion.synth.render import write_dataset
from companion.synth.scene import (
    SETUPS,
    SURROUNDS,
    UNSEEN_SURROUNDS,
    SceneError,
    Setup,
    compose,
    random_setup,
    surround,
)
from companion.vision.tray import TrayProfile


def test_every_setup_fits_its_frame_with_dice_of_20_to_120_pixels():
    sizes = []
    for setup in SETUPS.values():
        corners = setup.corners()
        w, h = setup.frame_size
        assert corners.shape == (4, 2)
        assert (corners >= 0).all() and (corners[:, 0] <= w).all() and (corners[:, 1] <= h).all()
        # Clockwise from top-left on screen: a positive shoelace area in image coordinates.
        x, y = corners[:, 0], corners[:, 1]
        assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0
        sizes.append(setup.die_px())
    assert min(sizes) < 30 and max(sizes) > 80
    assert len({s.frame_size for s in SETUPS.values()}) >= 4
    assert {s.surround for s in SETUPS.values()} == {"wood", "cloth", "bar"}


def test_a_tray_that_does_not_fit_is_refused():
    with pytest.raises(SceneError, match="does not fit"):
        Setup("big", (640, 480), 600, 0.0, 0.0, (0.5, 0.5), "wood", (1, 1, 1), 1.0).corners()
    with pytest.raises(SceneError, match="unknown surround"):
        surround("carpet", (64, 48), np.random.default_rng(0), 10.0)


def test_a_mark_in_the_photo_lands_where_its_label_says():
    photo = np.full((640, 640, 3), 120, np.uint8)
    cv2.circle(photo, (160, 480), 20, (0, 0, 255), -1)
    dice = [LabelledDie(3, 160.0, 480.0, 40.0, 40.0)]
    setup = SETUPS["v2-cloth"]
    scene = compose(photo, dice, setup, np.random.default_rng(3))
    assert scene.frame.shape == (setup.frame_size[1], setup.frame_size[0], 3)
    (die,) = scene.dice
    b, g, r = (scene.frame[..., c].astype(int) for c in range(3))
    ys, xs = np.nonzero((r - g > 80) & (r - b > 80))
    assert math.dist((xs.mean(), ys.mean()), (die.x, die.y)) < 3.0
    # The box grows with the tray's scale in the frame.
    assert die.w == pytest.approx(40 * setup.tray_px / 640, rel=0.2)
    assert die.value == 3


def test_the_same_seed_gives_the_same_frame():
    photo = np.full((320, 320, 3), 140, np.uint8)
    a = compose(photo, [], SETUPS["webcam-small"], np.random.default_rng(9))
    b = compose(photo, [], SETUPS["webcam-small"], np.random.default_rng(9))
    assert np.array_equal(a.frame, b.frame)


def test_the_scene_command_writes_labelled_frames_and_a_profile(tmp_path, capsys):
    photos = tmp_path / "photos"
    write_dataset(photos, 4, 8600, kind="pips", n_dice=3, size=(480, 480))
    out = tmp_path / "scenes"
    code = main(["scene", str(out), "--photos", str(photos), "--setup", "webcam-wood",
                 "--split", "all"])
    assert code == 0
    assert "webcam-wood: wrote 4 frames" in capsys.readouterr().out
    images = sorted((out / "images").glob("*.jpg"))
    assert len(images) == 4
    frame = cv2.imread(str(images[0]))
    assert frame.shape[1::-1] == SETUPS["webcam-wood"].frame_size
    labels = read_labels(out / "labels" / f"{images[0].stem}.txt", 1280, 960)
    assert len(labels) == 3
    profile = TrayProfile.load(out / "tray.json")
    assert profile.frame_size == (1280, 960)
    corners = [float(v) for v in (out / "corners.txt").read_text().split(",")]
    assert np.allclose(np.reshape(corners, (4, 2)), profile.corners, atol=0.1)
    assert json.loads((out / "tray.json").read_text())["version"] == 1


def test_the_scene_command_says_what_is_wrong(tmp_path, capsys):
    assert main(["scene", str(tmp_path / "o"), "--photos", str(tmp_path)]) == 2
    assert "no images/*.jpg" in capsys.readouterr().err
    photos = tmp_path / "photos"
    write_dataset(photos, 1, 8601, kind="pips", n_dice=2, size=(320, 320))
    assert main(["scene", str(tmp_path / "o"), "--photos", str(photos), "--setup", "moon",
                 "--split", "all"]) == 2
    assert "unknown set-up 'moon'" in capsys.readouterr().err


def test_the_unseen_surrounds_are_drawn_and_never_trained_on(tmp_path, capsys):
    # Training draws its set-ups and tables from SURROUNDS only; the menu and the tiles
    # stay unseen, for measuring phantom dice on a table no net knows.
    rng = np.random.default_rng(5)
    assert {random_setup(rng).surround for _ in range(300)} == set(SURROUNDS)
    for kind in UNSEEN_SURROUNDS:
        img = surround(kind, (640, 480), np.random.default_rng(1), 30.0)
        assert img.shape == (480, 640, 3) and img.dtype == np.uint8 and img.std() > 10
    photos = tmp_path / "photos"
    write_dataset(photos, 2, 8602, kind="pips", n_dice=3, size=(480, 480))
    out = tmp_path / "menu"
    assert main(["scene", str(out), "--photos", str(photos), "--setup", "webcam-wood",
                 "--split", "all", "--surround", "menu"]) == 0
    frame = cv2.imread(str(sorted((out / "images").glob("*.jpg"))[0]))
    wood = tmp_path / "wood"
    assert main(["scene", str(wood), "--photos", str(photos), "--setup", "webcam-wood",
                 "--split", "all"]) == 0
    same = cv2.imread(str(sorted((wood / "images").glob("*.jpg"))[0]))
    # The tray lands in the same place; only what lies around it changed.
    assert frame.shape == same.shape
    assert np.abs(frame[:60, :60].astype(int) - same[:60, :60]).mean() > 40
    assert main(["scene", str(out), "--photos", str(photos), "--surround", "moon",
                 "--split", "all"]) == 2
    assert "unknown surround 'moon'" in capsys.readouterr().err
