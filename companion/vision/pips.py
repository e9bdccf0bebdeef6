"""Count the pips on the top face of one die.

A pip is a small round spot that differs in colour from the face around it, whatever the
polarity (black on white, white on red, red on black, yellow on green). The reader:

1. cuts a square around the die and scales it so the die edge is ``CANON`` pixels, so
   every threshold below is a fraction of the die, not a number of pixels;
2. removes the pips with a median filter (the pips are much smaller than the window,
   the face is not) and scores every pixel by its Lab distance from that face colour;
3. thresholds the score with Otsu's method, keeps the round spots of pip size near the
   die's centre (the top face) and drops the smaller, squashed spots of side faces seen
   at an angle.

The count of the remaining spots is the value; a count outside 1..6, weak contrast or
spots of very unequal size make the die ``uncertain``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.types import DieRegion

CANON = 48  # die edge in pixels after rescaling
_CROP = 72  # side of the rescaled crop: the die plus a margin for its sides and shadow


@dataclass(frozen=True)
class PipReading:
    """Result of reading one die: value (None if no pips), confidence, uncertain flag."""

    value: int | None
    confidence: float
    uncertain: bool
    pips: tuple[tuple[float, float], ...] = ()  # pip centres in frame pixels


def _crop(frame: np.ndarray, region: DieRegion) -> tuple[np.ndarray, float, float, float]:
    """Square crop around the die, rescaled so the die edge is CANON px.

    Returns the crop and the mapping back to the frame: (scale, x0, y0) with
    frame = crop / scale + (x0, y0).
    """
    scale = CANON / max(region.size, 4.0)
    half = _CROP / (2 * scale)
    cx, cy = region.center
    x0, y0 = cx - half, cy - half
    # An affine warp does the crop, the rescale and the border padding in one step.
    m = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale]], np.float32)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(frame, m, (_CROP, _CROP), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return crop, scale, x0, y0


def pip_score(crop: np.ndarray) -> np.ndarray:
    """Lab distance (float32) of each pixel of a die crop from the local face colour."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab)
    # A window of about a third of the die removes pips but keeps the face colour, and a
    # median (unlike a blur) keeps the die's own edges out of the score.
    k = int(CANON * 0.36) | 1
    face = cv2.medianBlur(lab, k)
    diff = lab.astype(np.float32) - face.astype(np.float32)
    # Glare and the die's bright or dark edges change lightness only; pips on coloured
    # dice (red on black, yellow on green) differ mostly in colour. Weight colour up.
    diff[..., 0] *= 0.7
    diff[..., 1:] *= 1.6
    return cv2.sqrt((diff * diff).sum(axis=2))


def read_pips(frame: np.ndarray, region: DieRegion) -> PipReading:
    """Read the value of the die in ``region`` of a BGR frame."""
    crop, scale, x0, y0 = _crop(frame, region)
    score = pip_score(crop)
    c = _CROP / 2.0
    yy, xx = np.mgrid[0:_CROP, 0:_CROP]
    inner = np.hypot(xx - c + 0.5, yy - c + 0.5) < CANON * 0.62
    values = score[inner]
    # Below this Lab distance a spot is grain or a print flaw, not a pip.
    contrast_floor = 12.0
    top_value = float(values.max()) if values.size else 0.0
    if top_value < contrast_floor:
        return PipReading(None, 0.0, True)
    scaled = np.clip(score * (255.0 / top_value), 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(scaled[inner], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    threshold = max(float(otsu) * top_value / 255.0, contrast_floor)
    binary = ((score > threshold) & inner).astype(np.uint8)
    n, _, stats, centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    die_area = CANON * CANON
    spots = []
    for i in range(1, n):
        _, _, w, h, area = (int(v) for v in stats[i])
        if not die_area * 0.006 <= area <= die_area * 0.08:
            continue
        # Round spots only: die edges and glare streaks are long, side pips squashed.
        if max(w, h) > 1.7 * min(w, h) or area < 0.55 * w * h:
            continue
        px, py = centroids[i]
        if math.hypot(px - c, py - c) > CANON * 0.52:
            continue
        spots.append((float(area), float(px), float(py)))
    if not spots:
        return PipReading(None, 0.0, True)
    biggest = max(a for a, _, _ in spots)
    # Pips on the top face are seen full size; pips on a side face are squashed smaller.
    top = [s for s in spots if s[0] >= 0.45 * biggest]
    count = len(top)
    areas = np.array([a for a, _, _ in top])
    spread = float(areas.std() / areas.mean()) if count > 1 else 0.0
    strength = float(np.clip((threshold - contrast_floor) / 30.0 + 0.5, 0, 1))
    confidence = strength * float(np.clip(1.0 - spread, 0.2, 1.0))
    uncertain = not 1 <= count <= 6 or confidence < 0.45
    value = count if 1 <= count <= 6 else None
    pips = tuple((px / scale + x0, py / scale + y0) for _, px, py in top)
    return PipReading(value, round(confidence, 3), uncertain, pips)
