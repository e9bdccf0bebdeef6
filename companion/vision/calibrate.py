"""Calibrating a camera set-up from one frame: the tray (found by ``trayfind`` or given
by its corners), the die size measured in it, and a picture of both to check.

``measure_die`` measures the die edge in the straightened tray with the pip spotter (as
the spotter and the nets use it) when its model is there, else with the classical finder.
``calibrate_tray`` makes the ``TrayProfile`` from both; ``draw_calibration`` draws what
was found so a person can check it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.autotray import side_steps
from companion.vision.detect import check_frame, find_dice
from companion.vision.rectify import TrayView
from companion.vision.spot import PIP_MODEL, PipSpotter, choose_spotter
from companion.vision.tray import TrayProfile, TrayProfileError
from companion.vision.trayfind import Corners, find_tray

# Below this die edge (frame pixels) the pips carry too few pixels to read every die:
# dark dice with dark red pips are flagged or misread. Measured by
# ``tools/die_size_sweep.py`` (the validation photos of tray-a at one camera set-up and
# tray sizes from 330 to 700 px, calibrated from the corners, read by the train-split
# net; a validation figure): dice of 16, 18.5, 21, 24, 29.6 and 34.7 px read 0.953, 0.951,
# 0.978, 0.984, 0.992 and 0.992 of their dice right, flagging 12, 10, 7, 6, 4 and 3.5 %.
SMALL_DIE = 28.0
# What to do about it.
SMALL_DIE_FIX = "move the camera closer to the tray or choose a larger picture (camera resolution)"


def small_die(die_size: float | None) -> bool:
    """Whether dice of ``die_size`` frame pixels are too small to be read reliably."""
    return die_size is not None and die_size < SMALL_DIE


def small_die_advice(die_size: float) -> str:
    """What to tell a person whose camera shows the dice ``die_size`` pixels across."""
    return (
        f"the dice are only {die_size:.0f} px across; below {SMALL_DIE:.0f} px some dice"
        " (dark dice with dark pips first) are read wrong or left for you to check."
        f" {SMALL_DIE_FIX.capitalize()}, then calibrate again"
    )


@dataclass(frozen=True)
class Calibration:
    """What calibrating one frame found: the profile, and how its parts were got."""

    profile: TrayProfile
    found: bool  # True when the corners were found, False when they were given
    die_method: str  # "spotter", "classic" or "none" (no die seen)


def check_corners(corners: Corners, frame_size: tuple[int, int]) -> Corners:
    """``corners`` as four (x, y) float pairs inside a ``frame_size`` (w, h) frame that
    enclose an area; raises ``TrayProfileError`` saying what is wrong."""
    w, h = frame_size
    try:
        points = tuple((float(x), float(y)) for x, y in corners)
    except (TypeError, ValueError):
        raise TrayProfileError(
            "corners must be four (x, y) pairs of numbers, clockwise from top-left",
            key="tray_numbers",
        ) from None
    if len(points) != 4:
        raise TrayProfileError(
            f"give exactly four corners, got {len(points)}",
            key="tray_four_corners", got=len(points),
        )
    for x, y in points:
        if not (math.isfinite(x) and math.isfinite(y)):
            raise TrayProfileError(f"corner ({x}, {y}) is not a finite number",
                                   key="tray_numbers")
        if not (0 <= x <= w and 0 <= y <= h):
            raise TrayProfileError(
                f"corner ({x:g}, {y:g}) lies outside the {w}x{h} frame",
                key="tray_outside", x=f"{x:g}", y=f"{y:g}", w=w, h=h,
            )
    quad = np.array(points, np.float32)
    if abs(cv2.contourArea(quad)) < 0.001 * w * h or not cv2.isContourConvex(quad):
        raise TrayProfileError(
            "the four corners do not enclose a tray (they must go round it, clockwise"
            " from top-left, without crossing)",
            key="tray_enclose",
        )
    return points


def measure_die(
    frame: np.ndarray, corners: Corners, spotter: PipSpotter | None
) -> tuple[float | None, str]:
    """The die edge in frame pixels inside the tray ``corners``, and how it was measured.

    With the pip ``spotter``: in the straightened tray at the frame's own scale, the
    spotter's estimate (``PipSpotter.estimate_die_size``: the edge as the spotter and the
    nets use it) taken back to frame pixels. Without one: the classical finder's median
    die inside the tray. ``(None, "none")`` when no die is seen.
    """
    h, w = frame.shape[:2]
    if spotter is not None:
        view = TrayView.for_tray(tuple(corners), (w, h), None)
        size = spotter.estimate_die_size(view.warp(frame))
        return (None, "none") if size is None else (size / view.scale, "spotter")
    size = classic_die_size(frame, corners)
    return (None, "none") if size is None else (size, "classic")


def classic_die_size(frame: np.ndarray, corners: Corners) -> float | None:
    """The classical finder's median die edge inside the tray ``corners`` (frame pixels)."""
    h, w = frame.shape[:2]
    mask = _polygon_mask((h, w), corners)
    dice = find_dice(frame, valid=mask)
    return float(np.median([d.size for d in dice])) if dice else None


def _polygon_mask(shape: tuple[int, int], corners: Corners) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.array(corners)).astype(np.int32)], 255)
    return mask


def calibrate(
    frame: np.ndarray,
    corners: Corners | None = None,
    finder: str = "auto",
    spotter: PipSpotter | None = None,
) -> Calibration:
    """Make a tray profile from one frame (the tray empty or with a few dice in it).

    ``corners`` (frame pixels, clockwise from top-left) are used as given when there;
    otherwise the tray is found (``find_tray``; ``TrayNotFound`` when it cannot be).
    ``finder`` says what measures the die, as for ``PipRecognizer``: ``auto`` the pip
    spotter when its model file is there (or ``spotter`` when given), ``spotter`` (the
    model must be there) or ``classic`` (the classical finder).
    """
    check_frame(frame)
    h, w = frame.shape[:2]
    found = corners is None
    corners = find_tray(frame) if corners is None else check_corners(corners, (w, h))
    chosen = choose_spotter(finder, spotter, PipSpotter, PIP_MODEL)
    die_size, method = measure_die(frame, corners, chosen)
    mask = _polygon_mask((h, w), corners)
    # The floor's colour away from the tray's edge (the wall's colour would mix in) and
    # from the dice.
    margin = max(3, int(min(h, w) * 0.02))
    floor = cv2.erode(mask, np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
    for d in find_dice(frame, valid=mask):
        cv2.circle(floor, (int(d.center[0]), int(d.center[1])), int(d.size), 0, -1)
    if not floor.any():
        floor = mask
    b, g, r = (float(v) for v in cv2.mean(frame, mask=floor)[:3])
    floor_bgr = (b, g, r)
    # Where the tray's sides show in this frame: a camera moved while the companion was
    # off is told by them at the next start (``watch.ThrowWatcher``).
    profile = TrayProfile((w, h), tuple(corners), die_size, floor_bgr,
                          sides=side_steps(frame, corners))
    return Calibration(profile, found, method)


def calibrate_tray(
    frame: np.ndarray,
    corners: Corners | None = None,
    finder: str = "auto",
    spotter: PipSpotter | None = None,
) -> TrayProfile:
    """The ``TrayProfile`` of ``calibrate``."""
    return calibrate(frame, corners, finder, spotter).profile


def draw_calibration(frame: np.ndarray, calibration: Calibration) -> np.ndarray:
    """A copy of ``frame`` with the tray polygon, its corners numbered 1-4 clockwise from
    top-left, and a square of the measured die size at the tray's centre, so a person
    can check what the calibration found."""
    profile = calibration.profile
    out = frame.copy()
    h, w = out.shape[:2]
    thick = max(2, round(max(w, h) / 500))
    pts = np.round(np.array(profile.corners)).astype(np.int32)
    colour = (0, 220, 0) if calibration.found else (0, 200, 255)
    cv2.polylines(out, [pts], True, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.polylines(out, [pts], True, colour, thick, cv2.LINE_AA)
    scale = max(0.6, max(w, h) / 1400)
    centre = pts.mean(axis=0)
    radius = thick * 4
    for number, (x, y) in enumerate(pts, start=1):
        cv2.circle(out, (int(x), int(y)), radius, (0, 0, 255), -1, cv2.LINE_AA)
        # The number is centred inside the tray, clear of the corner's dot.
        (tw, th), _ = cv2.getTextSize(str(number), cv2.FONT_HERSHEY_SIMPLEX, scale * 1.4, thick)
        inward = centre - [x, y]
        inward /= max(float(np.linalg.norm(inward)), 1.0)
        cx, cy = np.array([x, y]) + inward * (radius + 0.9 * max(tw, th) + 6)
        _label(out, str(number), (int(cx - tw / 2), int(cy + th / 2)), scale * 1.4, thick)
    if profile.die_size:
        half = profile.die_size / 2
        cx, cy = centre
        box = np.array([[cx - half, cy - half], [cx + half, cy + half]]).astype(int)
        cv2.rectangle(out, tuple(box[0]), tuple(box[1]), (255, 0, 255), thick, cv2.LINE_AA)
        text = f"die {profile.die_size:.1f} px ({calibration.die_method})"
    else:
        text = "no die seen: put a few dice in the tray"
    how = "found" if calibration.found else "given"
    _label(out, f"tray {how}; {text}", (12, int(40 * scale)), scale, thick)
    return out


def _label(img: np.ndarray, text: str, at: tuple[int, int], scale: float, thick: int) -> None:
    """White text with a dark outline, readable on any floor."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(img, text, at, font, scale, (0, 0, 0), thick + 3, cv2.LINE_AA)
    cv2.putText(img, text, at, font, scale, (255, 255, 255), thick, cv2.LINE_AA)
