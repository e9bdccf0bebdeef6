"""Settle detection: moving while things change, at rest after the still time."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from pipdraw import frame_with_dice

from companion.vision.settle import AT_REST, MOVING, SettleDetector
from companion.vision.types import VisionError

FPS = 10.0


def _feed(detector, frames, start=0.0):
    events = []
    for i, frame in enumerate(frames):
        event = detector.update(frame, start + i / FPS)
        if event is not None:
            events.append(event)
    return events


def _rolling(n, seed=0):
    """Frames of a die tumbling across the tray: a new position every frame."""
    return [
        frame_with_dice([(100 + 30 * i, 200, 25 * i, 1 + i % 6)], seed=seed + i) for i in range(n)
    ]


def _hand(frame):
    """The same frame with a hand-sized skin-coloured blob reaching in from the edge."""
    out = frame.copy()
    cv2.ellipse(out, (0, 240), (220, 90), 0, 0, 360, (120, 160, 220), -1)
    return out


def test_reports_rest_only_after_the_still_time():
    detector = SettleDetector(still_seconds=0.5)
    resting = frame_with_dice([(400, 200, 10, 5), (200, 300, 30, 2)], seed=9)
    events = _feed(detector, _rolling(6) + [resting] * 4)
    assert events == []  # 0.3 s still is not enough
    events = _feed(detector, [resting] * 4, start=1.0)
    assert [e.state for e in events] == [AT_REST]
    assert events[0].new_throw
    assert detector.state == AT_REST


def test_camera_noise_is_not_motion():
    detector = SettleDetector(still_seconds=0.3)
    frames = [frame_with_dice([(300, 200, 0, 4)], seed=s) for s in range(8)]
    events = _feed(detector, frames)
    assert [e.state for e in events] == [AT_REST]


def _flicker(frames, share, seed=0):
    """``frames`` with the whole picture brighter or darker by about ``share`` from one
    frame to the next (a lamp on the mains, the camera's exposure hunting)."""
    rng = np.random.default_rng(seed)
    gains = 1.0 + share * np.where(np.arange(len(frames)) % 2, 1.0, -1.0)
    gains *= rng.uniform(0.98, 1.02, len(frames))
    return [np.clip(f * g + 0.5, 0, 255).astype(np.uint8)
            for f, g in zip(frames, gains, strict=True)]


def test_a_flickering_light_is_not_motion_and_a_die_under_it_still_is():
    """A light tray flickering by 6 % frame to frame (about 14 grey levels each way)
    comes to rest; a die tumbling under the same light is motion."""
    detector = SettleDetector(still_seconds=0.3)
    resting = frame_with_dice([(300, 200, 0, 4)], seed=1)
    events = _feed(detector, _flicker([resting] * 8, 0.06))
    assert [e.state for e in events] == [AT_REST]
    events = _feed(detector, _flicker(_rolling(4, seed=20), 0.06, seed=1), start=1.0)
    assert [e.state for e in events] == [MOVING]


def test_moving_again_and_a_new_throw():
    detector = SettleDetector(still_seconds=0.3)
    first = frame_with_dice([(300, 200, 0, 4)], seed=1)
    second = frame_with_dice([(150, 320, 40, 6)], seed=2)
    events = _feed(detector, [first] * 6 + _rolling(4, seed=20) + [second] * 6)
    assert [e.state for e in events] == [AT_REST, MOVING, AT_REST]
    assert events[0].new_throw and events[2].new_throw


def test_a_hand_that_comes_and_goes_is_not_a_throw():
    detector = SettleDetector(still_seconds=0.3)
    resting = frame_with_dice([(400, 200, 10, 5)], seed=4)
    with_hand = _hand(resting)
    events = _feed(detector, [resting] * 6 + [with_hand] * 2 + [resting] * 6)
    states = [e.state for e in events]
    assert states == [AT_REST, MOVING, AT_REST]
    assert events[0].new_throw
    assert not events[2].new_throw


def test_a_hand_that_stays_holds_back_the_rest():
    detector = SettleDetector(still_seconds=0.3)
    resting = frame_with_dice([(400, 200, 10, 5)], seed=4)
    # A hand moves in over several frames: every frame differs, so no rest is reported.
    frames = []
    for i in range(8):
        f = resting.copy()
        cv2.ellipse(f, (20 * i, 240), (200, 80), 0, 0, 360, (120, 160, 220), -1)
        frames.append(f)
    assert _feed(detector, frames) == []


def test_checks_its_arguments_and_frames():
    with pytest.raises(VisionError, match="still_seconds"):
        SettleDetector(still_seconds=-1)
    with pytest.raises(VisionError, match="motion_fraction"):
        SettleDetector(motion_fraction=2)
    with pytest.raises(VisionError, match="BGR"):
        SettleDetector().update(np.zeros((10, 10), np.uint8), 0.0)
