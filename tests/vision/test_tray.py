"""Tray profiles: finding the floor, saving, loading and validating."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from pipdraw import frame_with_dice

from companion.vision.tray import (
    PROFILE_VERSION,
    TrayProfile,
    TrayProfileError,
    calibrate_tray,
    find_floor,
    parse_corners,
)
from companion.vision.types import VisionError


def _tray_frame(dice=()):
    """A light table with a darker grey tray floor from (100, 80) to (540, 400)."""
    frame = np.full((480, 640, 3), (225, 228, 230), np.uint8)
    cv2.rectangle(frame, (90, 70), (550, 410), (40, 40, 40), -1)  # rim
    cv2.rectangle(frame, (100, 80), (540, 400), (140, 150, 150), -1)  # floor
    tray = frame_with_dice(list(dice), size=(640, 480), background=(140, 150, 150), seed=3)
    inner = np.zeros(frame.shape[:2], bool)
    inner[80:401, 100:541] = True
    frame[inner] = tray[inner]
    return frame


def test_finds_the_floor_of_a_tray_with_dice_in_it():
    frame = _tray_frame([(200, 200, 10, 3), (400, 300, 40, 5)])
    corners = find_floor(frame)
    assert len(corners) == 4
    xs = sorted(x for x, _ in corners)
    ys = sorted(y for _, y in corners)
    assert abs(xs[0] - 100) < 12 and abs(xs[-1] - 540) < 12
    assert abs(ys[0] - 80) < 12 and abs(ys[-1] - 400) < 12


def test_calibration_measures_the_die_and_the_floor_colour():
    frame = _tray_frame([(200, 200, 10, 3), (400, 300, 40, 5), (300, 150, 0, 1)])
    profile = calibrate_tray(frame, finder="classic")
    assert profile.die_size is not None and 36 <= profile.die_size <= 50
    b, g, r = profile.floor_bgr
    assert abs(b - 140) < 6 and abs(g - 150) < 6 and abs(r - 150) < 6
    gains = profile.white_balance_gains()
    assert gains[0] > 1 > gains[1]
    mask = profile.valid_mask(frame.shape)
    assert mask[240, 320] == 255 and mask[20, 20] == 0


def test_calibration_keeps_where_the_trays_sides_lie_in_its_frame():
    """The profile holds the steps across the tray's four sides in the calibration's
    frame (``autotray.side_steps``), for the next start to tell whether the camera
    moved since."""
    from companion.vision.autotray import side_steps

    frame = _tray_frame()
    corners = parse_corners("100,80,540,80,540,400,100,400")
    profile = calibrate_tray(frame, corners, finder="classic")
    assert profile.sides is not None
    assert np.array_equal(profile.sides, side_steps(frame, corners), equal_nan=True)
    assert (profile.sides[:, :, 1] > 10).mean() > 0.9  # the rim's steps, steep


def test_user_corners_are_used_and_checked():
    frame = _tray_frame()
    corners = parse_corners("100,80,540,80,540,400,100,400")
    profile = calibrate_tray(frame, corners, finder="classic")
    assert profile.corners == corners
    assert profile.die_size is None
    with pytest.raises(TrayProfileError, match="outside"):
        calibrate_tray(frame, parse_corners("100,80,700,80,540,400,100,400"))
    with pytest.raises(TrayProfileError, match="four corners"):
        parse_corners("1,2,3")
    with pytest.raises(TrayProfileError, match="numbers"):
        parse_corners("a,b,c,d,e,f,g,h")


def test_profile_round_trips_through_json(tmp_path):
    profile = TrayProfile(
        (640, 480), ((10, 10), (600, 12), (598, 470), (8, 468)), 41.5, (120.0, 130.0, 140.0)
    )
    path = tmp_path / "calibration" / "pub.json"
    profile.save(path)
    data = json.loads(path.read_text())
    assert data["version"] == PROFILE_VERSION
    assert TrayProfile.load(path) == profile
    # A profile made at 640x480 masks a 1280x960 frame at the same place.
    big = profile.valid_mask((960, 1280, 3))
    assert big[5, 5] == 0 and big[480, 640] == 255


def test_the_sides_a_calibration_saw_round_trip_and_are_checked(tmp_path):
    """A profile keeps where the steps across the tray's sides lay in its frame (NaN,
    a point off the frame, as null); they are no part of its equality, and a moved
    profile keeps them (they lie along the outline). Sides of another shape, or for a
    tray of three corners, are refused saying so."""
    sides = np.zeros((4, 16, 3))
    sides[:, :, 1:] = (12.5, -1.0)
    sides[0, 3] = np.nan
    profile = TrayProfile((640, 480), ((10, 10), (600, 12), (598, 470), (8, 468)), 41.5,
                          (120.0, 130.0, 140.0), sides=sides)
    path = tmp_path / "pub.json"
    profile.save(path)
    data = json.loads(path.read_text())
    assert data["sides"][0][3] == [None, None, None] and data["sides"][1][0] == [0.0, 12.5, -1.0]
    back = TrayProfile.load(path)
    assert back == profile and np.array_equal(back.sides, sides, equal_nan=True)
    assert back.moved((0.1, 0.0)).sides is back.sides
    assert TrayProfile.from_dict({k: v for k, v in data.items() if k != "sides"}).sides is None
    # Saved over, a profile without sides leaves none of the earlier ones in the file.
    TrayProfile(profile.frame_size, profile.corners, 41.5, profile.floor_bgr).save(path)
    assert json.loads(path.read_text())["sides"] is None and TrayProfile.load(path).sides is None
    for bad, message in (([[[1, 2, 1]]], "four sides"), ([[[1, 2]] * 16] * 4, "four sides"),
                         ("steps", "sign"), ([[[1, "x", 1]] * 16] * 4, "sign")):
        with pytest.raises(TrayProfileError, match=message):
            TrayProfile.from_dict({**data, "sides": bad})
    three = {**data, "corners": [[0, 0], [600, 0], [0, 400]]}
    with pytest.raises(TrayProfileError, match="four corners"):
        TrayProfile.from_dict(three)


def test_a_knocked_profile_moves_its_tray_and_keeps_it_in_the_frame():
    """``moved`` takes shares of the frame (a knock measured on the small frames holds
    for every frame size); a corner that would leave the frame stops at its edge."""
    profile = TrayProfile(
        (640, 480), ((10, 10), (600, 12), (598, 470), (8, 468)), 41.5, (120.0, 130.0, 140.0)
    )
    moved = profile.moved((0.05, -0.025))
    assert np.allclose(moved.corners, ((42, 0), (632, 0), (630, 458), (40, 456)))
    assert (moved.frame_size, moved.die_size, moved.floor_bgr) == (
        profile.frame_size, profile.die_size, profile.floor_bgr)
    assert TrayProfile.from_dict(moved.to_dict()) == moved  # still a valid profile
    assert profile.moved((0.0, 0.0)) == profile


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 99}, "version 99"),
        ({"corners": [[0, 0], [1, 1]]}, "at least 3 corners"),
        ({"corners": [[0, 0], [900, 0], [0, 10]]}, "outside"),
        ({"die_size": 1}, "implausible"),
        ({"floor_bgr": "grey"}, "malformed"),
    ],
)
def test_bad_profiles_say_what_is_wrong(change, message):
    good = TrayProfile((640, 480), ((0, 0), (640, 0), (640, 480)), 40.0, (1.0, 2.0, 3.0))
    data = {**good.to_dict(), **change}
    with pytest.raises(TrayProfileError, match=message):
        TrayProfile.from_dict(data)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(TrayProfileError, match="calibrate tray"):
        TrayProfile.load(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(TrayProfileError, match="not valid JSON"):
        TrayProfile.load(bad)
    no_field = tmp_path / "nofield.json"
    no_field.write_text(json.dumps({"version": PROFILE_VERSION}))
    with pytest.raises(TrayProfileError, match="frame_size"):
        TrayProfile.load(no_field)
    assert issubclass(TrayProfileError, VisionError)
    assert issubclass(TrayProfileError, ValueError)
