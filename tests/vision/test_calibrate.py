"""Calibrating from one frame of a wider scene: finding the tray, measuring the die, drawing."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest
from pipdraw import drawn_photos, frame_with_dice, photos_dir

from companion.cli import main
from companion.evaluation import LabelledDie, read_image, read_labels
from companion.synth.render import render_throw, write_dataset
from companion.synth.scene import SETUPS, compose, corners_text, surround, tray_floor, write_scenes
from companion.vision import trayfind
from companion.vision.calibrate import (
    SMALL_DIE,
    calibrate,
    check_corners,
    classic_die_size,
    draw_calibration,
    measure_die,
)
from companion.vision.spot import KIND_EDGE, load_pip_spotter
from companion.vision.tray import TrayProfileError, calibrate_tray
from companion.vision.trayfind import TrayNotFound, find_tray

# Six pip dice drawn on an even floor that fills the "photo" edge to edge, as the tray-a
# photos do; composed into a set-up's frame its four corners are exactly known.
DICE = [(120, 130, 10, 3), (300, 200, 40, 5), (480, 150, 0, 1), (200, 420, 25, 6),
        (420, 430, 70, 2), (560, 520, 15, 4)]


def _floor_scene(setup: str, seed: int = 4, floor=(200, 205, 205)):
    photo = frame_with_dice(DICE, size=(640, 640), edge=48, background=floor, seed=seed)
    labels = [LabelledDie(v, x, y, 48, 48) for x, y, _, v in DICE]
    return compose(photo, labels, SETUPS[setup], np.random.default_rng(seed))


def _side(corners: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)))


@pytest.mark.parametrize("setup", ["webcam-small", "hd-bar-far", "v2-cloth", "webcam-wood"])
def test_finds_the_tray_off_centre_slanted_turned_and_among_clutter(setup):
    scene = _floor_scene(setup)
    corners = np.array(find_tray(scene.frame))
    assert corners.shape == (4, 2)
    error = np.linalg.norm(corners - scene.corners, axis=1)
    # Clockwise from top-left, each corner near its true place.
    assert error.max() < 0.03 * _side(scene.corners), error


def test_the_found_polygon_is_a_perspective_quadrilateral_not_a_rectangle():
    # v2-cloth's tray is slanted 10 %: its far (top) edge is shorter than its near edge.
    scene = _floor_scene("v2-cloth")
    c = np.array(find_tray(scene.frame))
    top, bottom = np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])
    true_top = np.linalg.norm(scene.corners[1] - scene.corners[0])
    true_bottom = np.linalg.norm(scene.corners[2] - scene.corners[3])
    assert bottom / top == pytest.approx(true_bottom / true_top, abs=0.03)
    assert bottom / top > 1.06


def test_on_a_rendered_throw_the_tray_holds_every_die():
    # A rendered throw is its own tray on its own table; put into a frame, the tray found
    # lies within the rendered picture and holds every die.
    throw = render_throw(7, 6, size=(640, 640))
    labels = [LabelledDie(d.value, *d.center, d.size, d.size) for d in throw.dice]
    scene = compose(throw.image, labels, SETUPS["hd-bar-warm"], np.random.default_rng(7))
    corners = np.array(find_tray(scene.frame), np.float32)
    outer = scene.corners.astype(np.float32)
    for x, y in corners:
        assert cv2.pointPolygonTest(outer, (float(x), float(y)), True) > -4
    for d in scene.dice:
        assert cv2.pointPolygonTest(corners, (d.x, d.y), False) > 0
    assert cv2.contourArea(corners) > 0.6 * cv2.contourArea(outer)


@pytest.mark.parametrize("kind", ["wood", "cloth", "bar"])
def test_a_frame_without_a_tray_says_so_and_asks_for_corners(kind):
    frame = surround(kind, (1280, 960), np.random.default_rng(3), 40.0)
    with pytest.raises(TrayNotFound, match="--corners"):
        find_tray(frame)


def test_the_spotter_measures_the_die_in_the_straightened_tray():
    spotter = load_pip_spotter()
    if spotter is None:
        pytest.skip("models/pipspot.onnx is not there")
    throw = render_throw(11, 6, size=(640, 640))
    labels = [LabelledDie(d.value, *d.center, d.size, d.size) for d in throw.dice]
    scene = compose(throw.image, labels, SETUPS["v2-cloth"], np.random.default_rng(11))
    corners = tuple(map(tuple, scene.corners))
    size, method = measure_die(scene.frame, corners, spotter)
    # The rendered truth is the top face; the spotter's edge takes in the side walls.
    top_face = np.mean([d.size for d in throw.dice]) * _side(scene.corners) / 640
    assert method == "spotter"
    assert size == pytest.approx(KIND_EDGE["pips"] * top_face, rel=0.15)
    profile = calibrate_tray(scene.frame, corners, finder="spotter")
    assert profile.die_size == pytest.approx(size)
    assert calibrate(scene.frame, corners, finder="classic").die_method == "classic"


def test_without_the_spotter_the_classical_finder_measures_the_die():
    # White dice on a grey floor, as the classical finder knows them.
    scene = _floor_scene("webcam-wood", floor=(140, 150, 150))
    corners = tuple(map(tuple, scene.corners))
    result = calibrate(scene.frame, corners, finder="classic")
    drawn = 48 * _side(scene.corners) / 640
    assert result.die_method == "classic" and not result.found
    assert result.profile.die_size == pytest.approx(drawn, rel=0.2)
    assert classic_die_size(scene.frame, corners) == pytest.approx(result.profile.die_size)
    assert result.profile.corners == corners
    # The floor's colour is the floor's, not the wall's or the dice's.
    b, g, r = result.profile.floor_bgr
    assert min(b, g, r) > 110 and max(b, g, r) < 170


def test_an_empty_tray_is_calibrated_without_a_die_size():
    if load_pip_spotter() is None:
        pytest.skip("models/pipspot.onnx is not there")
    photo = frame_with_dice([], size=(640, 640), background=(200, 205, 205))
    scene = compose(photo, [], SETUPS["webcam-wood"], np.random.default_rng(2))
    result = calibrate(scene.frame, finder="spotter")
    assert result.found and result.profile.die_size is None and result.die_method == "none"


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        (((10, 10), (600, 10), (600, 400)), "exactly four"),
        (((10, 10), (700, 10), (600, 400), (10, 400)), "outside"),
        (((10, 10), ("a", 10), (600, 400), (10, 400)), "pairs of numbers"),
        (((10, 10), (float("nan"), 10), (600, 400), (10, 400)), "finite"),
        (((10, 10), (600, 400), (600, 10), (10, 400)), "crossing"),
        (((10, 10), (11, 10), (11, 11), (10, 11)), "enclose"),
    ],
)
def test_bad_corners_say_what_is_wrong(corners, message):
    with pytest.raises(TrayProfileError, match=message):
        check_corners(corners, (640, 480))


def test_the_picture_shows_the_polygon_numbered_corners_and_the_die():
    scene = _floor_scene("webcam-wood", floor=(140, 150, 150))
    result = calibrate(scene.frame, finder="classic")
    picture = draw_calibration(scene.frame, result)
    assert picture.shape == scene.frame.shape and picture is not scene.frame
    for x, y in result.profile.corners:
        b, g, r = picture[int(round(y)), int(round(x))].astype(int)
        assert r > 180 and g < 80 and b < 80  # a red dot on every corner
    # The die-size square at the tray's centre, in magenta.
    cx, cy = np.array(result.profile.corners).mean(axis=0)
    half = result.profile.die_size / 2
    edge = picture[int(cy - half) - 1: int(cy - half) + 2, int(cx)].astype(int)
    assert ((edge[:, 0] > 200) & (edge[:, 2] > 200) & (edge[:, 1] < 60)).any()
    assert np.abs(picture.astype(int) - scene.frame.astype(int)).sum() > 0


def test_cli_finds_the_tray_and_writes_the_picture(tmp_path, capsys):
    scene = _floor_scene("hd-bar-far", floor=(140, 150, 150))
    image = tmp_path / "frame.jpg"
    cv2.imwrite(str(image), scene.frame)
    out, show = tmp_path / "pub.json", tmp_path / "check.png"
    args = ["calibrate", "tray", str(image), "--out", str(out), "--show", str(show)]
    assert main([*args, "--finder", "classic"]) == 0
    text = capsys.readouterr().out
    assert "tray found" in text and "die edge" in text and str(show) in text
    data = json.loads(out.read_text())
    error = np.linalg.norm(np.array(data["corners"]) - scene.corners, axis=1)
    assert error.max() < 0.03 * _side(scene.corners)
    assert cv2.imread(str(show)).shape == scene.frame.shape


def test_cli_says_when_the_dice_are_too_small_to_read_reliably(tmp_path, capsys):
    # The same dice in the same tray, the camera far (dice about 18 px) and near (53 px).
    for setup, tray_px, small in (("webcam-small", 240, True), ("webcam-wood", 700, False)):
        scene = compose(
            frame_with_dice(DICE, size=(640, 640), edge=48, background=(200, 205, 205), seed=4),
            [LabelledDie(v, x, y, 48, 48) for x, y, _, v in DICE],
            replace(SETUPS[setup], tray_px=tray_px), np.random.default_rng(4),
        )
        image = tmp_path / f"{setup}.jpg"
        cv2.imwrite(str(image), scene.frame)
        corners = corners_text(scene.corners)
        out = tmp_path / f"{setup}.json"
        assert main(["calibrate", "tray", str(image), "--corners", corners, "--out",
                     str(out)]) == 0
        text = capsys.readouterr().out
        die = json.loads(out.read_text())["die_size"]
        assert (die < SMALL_DIE) is small, die
        assert ("note: the dice are only" in text) is small
        if small:
            assert f"{die:.0f} px across" in text and "closer" in text


def test_cli_without_a_tray_exits_2_and_asks_for_corners(tmp_path, capsys):
    image = tmp_path / "table.jpg"
    cv2.imwrite(str(image), surround("bar", (1280, 960), np.random.default_rng(1), 40.0))
    out = tmp_path / "pub.json"
    assert main(["calibrate", "tray", str(image), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "could not find the tray" in err and "--corners" in err
    assert not out.exists()
    # Given corners, the same frame calibrates.
    corners = "100,100,1100,100,1100,850,100,850"
    assert main(["calibrate", "tray", str(image), "--corners", corners, "--out", str(out)]) == 0
    assert "tray given" in capsys.readouterr().out
    assert main(["calibrate", "tray", str(image), "--corners", "1,2,3", "--out", str(out)]) == 2
    assert "four corners" in capsys.readouterr().err


def test_eval_tray_reports_found_and_corner_error(tmp_path, capsys):
    # Two "photos" of a floor with dice, written as a labelled folder, composed by
    # `companion scene`'s writer into one set-up.
    photos = drawn_photos(tmp_path / "photos", DICE)
    images = sorted((photos / "images").glob("*.jpg"))
    write_scenes(images, photos / "labels", tmp_path / "scenes" / "webcam-wood",
                 SETUPS["webcam-wood"], 5)
    assert main(["eval", "tray", str(tmp_path / "scenes"), "--finder", "classic", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    row = figures["setups"][0]
    assert figures["found"] == 2 and row["setup"] == "webcam-wood"
    assert row["corner_worst_median_pct"] < 3.0
    assert row["die_classic"]["measured"] == 2
    assert main(["eval", "tray", str(photos)]) == 2
    assert "corners.txt" in capsys.readouterr().err


@pytest.mark.photos
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_real_photos_composed_into_each_setup(setup):
    tray = photos_dir()
    # Two validation photos (the split the finder was tuned on; see README).
    paths = sorted((tray / "images").glob("*.jpg"))[1::4][:2]
    for k, path in enumerate(paths):
        photo = read_image(path)
        labels = read_labels(tray / "labels" / f"{path.stem}.txt", *photo.shape[1::-1])
        scene = compose(photo, labels, SETUPS[setup], np.random.default_rng(k))
        corners = np.array(find_tray(scene.frame), np.float32)
        side = _side(scene.corners)
        error = np.linalg.norm(corners - scene.corners, axis=1)
        assert error.mean() < 0.06 * side, (path.name, error)
        # Every labelled die lies in the found tray.
        for d in scene.dice:
            assert cv2.pointPolygonTest(corners, (d.x, d.y), True) > -0.25 * d.w


def test_a_wood_grained_floor_is_found_inside_the_wall_around_it():
    # A rendered tray with a wooden floor, its grain split by edges into strips that no
    # region covers: no floor candidate of its own. The wall around it is one thin ring,
    # and the hole inside that ring is the floor (trayfind._ring_floors).
    throw = render_throw(5001, 3, kind="bock", size=(1280, 960))
    photo, labels = tray_floor(throw)
    scene = compose(photo, labels, SETUPS["webcam-small"], np.random.default_rng(5099))
    frame = scene.frame
    h, w = frame.shape[:2]
    factor = trayfind.FIND_SIDE / max(w, h)
    small = cv2.medianBlur(
        cv2.resize(frame, (round(w * factor), round(h * factor)), interpolation=cv2.INTER_AREA),
        5,
    )
    fine = cv2.resize(frame, (small.shape[1] * 2, small.shape[0] * 2),
                      interpolation=cv2.INTER_AREA)
    regions, colours = trayfind._regions(small, trayfind._edges(fine, small.shape[:2]))
    assert trayfind._candidates(regions, colours) == []
    assert len(trayfind._ring_floors(regions, colours)) == 1
    corners = np.array(find_tray(frame))
    assert np.abs(corners - scene.corners).max() < 4.0


def test_a_tray_floor_all_grain_is_found_whole_never_as_a_strip(tmp_path):
    # Rendered trays filling the frame, their wooden floors streaked with grain: the
    # usual regions are strips between the streaks and knots, and the finder gave a band
    # of the floor (a tenth of it, or a strip along its top) or nothing. Coarser regions
    # outline the whole floor (trayfind.COARSE); no outline is a strip (MAX_ASPECT).
    frames = write_dataset(tmp_path / "bock", 5, 4243, kind="bock")
    frames += write_dataset(tmp_path / "pips", 5, 4244, kind="pips", n_dice=3)
    for path in [frames[0], frames[3], frames[4], frames[9]]:
        frame = read_image(path)
        h, w = frame.shape[:2]
        labels = read_labels(path.parent.parent / "labels" / f"{path.stem}.txt", w, h)
        corners = np.array(find_tray(frame), np.float32)
        assert cv2.contourArea(corners) > 0.5 * w * h, path.name
        for d in labels:
            assert cv2.pointPolygonTest(corners, (d.x, d.y), False) > 0, path.name
        for outline in trayfind.find_trays(frame, grain=True):
            assert trayfind._aspect(np.array(outline)) <= trayfind.MAX_ASPECT


def test_a_coarse_outline_running_onto_the_cloth_does_not_replace_the_floor():
    # A dark felt floor on a blue checked cloth: the coarse regions run from the floor
    # over its dark wall onto the cloth and outline more than the tray, scored worse
    # than the floor itself; the floor stays the answer.
    throw = render_throw(5002, 6, kind="bock", size=(1280, 960))
    photo, labels = tray_floor(throw)
    scene = compose(photo, labels, SETUPS["v2-cloth"], np.random.default_rng(5002 + 99))
    corners = np.array(find_tray(scene.frame))
    assert np.linalg.norm(corners - scene.corners, axis=1).max() < 0.03 * _side(scene.corners)
