"""The annotated picture: outlines and values on a copy, uncertain dice marked."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.annotate import SURE, UNSURE, annotate, to_jpeg
from companion.vision.types import Die, DieRegion, Reading, VisionError


def _die(x, y, value, uncertain=False):
    corners = ((x - 20, y - 20), (x + 20, y - 20), (x + 20, y + 20), (x - 20, y + 20))
    return Die(DieRegion((x, y), 40.0, 0.0, corners, 0.9), value, 0.9, uncertain)


def _count(image, colour):
    return int(np.count_nonzero(np.all(image == np.array(colour, np.uint8), axis=2)))


def test_draws_on_a_copy_with_colours_by_certainty():
    frame = np.full((300, 400, 3), 128, np.uint8)
    reading = Reading("pips", (_die(100, 150, 5), _die(300, 150, None, True)), (400, 300))
    out = annotate(frame, reading)
    assert np.all(frame == 128)  # the frame itself is untouched
    assert out.shape == frame.shape
    left, right = out[:, :200], out[:, 200:]
    assert _count(left, SURE) > 50 and _count(left, UNSURE) == 0
    assert _count(right, UNSURE) > 50 and _count(right, SURE) == 0
    # The outline runs along the die's left edge (anti-aliased, so close to the colour).
    assert np.abs(out[150, 80].astype(int) - SURE).max() < 20


def test_jpeg_bytes_decode_to_the_picture():
    frame = np.full((120, 160, 3), (30, 90, 200), np.uint8)
    data = to_jpeg(frame, quality=90)
    assert data[:2] == b"\xff\xd8"
    back = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert back.shape == frame.shape
    assert np.abs(back.astype(int) - frame.astype(int)).max() < 8
    with pytest.raises(VisionError, match="quality"):
        to_jpeg(frame, quality=0)


def test_rejects_non_images():
    reading = Reading("pips", (), (10, 10))
    with pytest.raises(VisionError, match="BGR"):
        annotate(np.zeros((10, 10), np.uint8), reading)


def test_without_labels_only_the_outlines_are_drawn():
    frame = np.full((300, 400, 3), 128, np.uint8)
    reading = Reading("bock", (_die(200, 150, "goat_blue", True),), (400, 300))
    labelled, bare = annotate(frame, reading), annotate(frame, reading, labels=False)
    above = np.s_[80:125, 160:240]  # where the label stands, clear of the outline
    assert np.any(labelled[above] != 128) and np.all(bare[above] == 128)
    assert np.array_equal(bare[130:171, 170:231] != 128, labelled[130:171, 170:231] != 128)
    # The outline runs along the die's left edge in the colour of a die to check.
    assert np.abs(bare[150, 180].astype(int) - UNSURE).max() < 20
