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


def _crop(frame: np.ndarray, region: DieRegion) -> tuple[np.ndarray, np.ndarray]:
    """Square crop around the die, turned so its edges run along the axes, die edge CANON px.

    Returns the crop and the 2x3 affine matrix that maps crop pixels back to the frame.
    """
    scale = CANON / max(region.size, 4.0)
    cx, cy = region.center
    # One affine warp rotates, rescales, crops and pads the border in one step.
    m = cv2.getRotationMatrix2D((cx, cy), region.angle, scale)
    m[0, 2] += _CROP / 2.0 - cx
    m[1, 2] += _CROP / 2.0 - cy
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(frame, m, (_CROP, _CROP), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return crop, cv2.invertAffineTransform(m)


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


def _spots(
    along: np.ndarray, level: float, inner: np.ndarray, strong: np.ndarray
) -> tuple[list[tuple[float, float, float]], float]:
    """Round spots of pip size where ``along`` exceeds ``level``: (area, x, y) in crop px.

    Also returns the share of the ``strong`` (most distinct) pixels the spots cover.
    """
    binary = ((along > level) & inner).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    die_area = CANON * CANON
    spots = []
    for i in range(1, n):
        _, _, w, h, area = (int(v) for v in stats[i])
        if not die_area * 0.006 <= area <= die_area * 0.08:
            continue
        # Round spots only: die edges and glare streaks are long, side pips squashed.
        if max(w, h) > 1.8 * min(w, h) or area < 0.5 * w * h:
            continue
        px, py = centroids[i]
        spots.append((float(area), float(px), float(py), i))
    if not spots:
        return [], 0.0
    biggest = max(sp[0] for sp in spots)
    # Pips on the top face are seen full size; pips on a side face are squashed smaller.
    kept = [sp for sp in spots if sp[0] >= 0.4 * biggest]
    keep = np.zeros(n, bool)
    keep[[sp[3] for sp in kept]] = True
    covered = float(np.count_nonzero(keep[labels] & strong)) / max(1, int(np.count_nonzero(strong)))
    return [sp[:3] for sp in kept], covered


def _layout_quality(spots: list[tuple[float, float, float]]) -> float:
    """How much a set of spots looks like the pips of one face (0..1)."""
    count = len(spots)
    if not 1 <= count <= 6:
        return 0.0
    areas = np.array([a for a, _, _ in spots])
    spread = float(areas.std() / areas.mean()) if count > 1 else 0.0
    xs = [x for _, x, _ in spots]
    ys = [y for _, _, y in spots]
    extent = max(max(xs) - min(xs), max(ys) - min(ys)) / CANON
    # The pips of one face span at most about two thirds of its edge.
    fits = 1.0 if extent <= 0.75 else max(0.0, 1.0 - (extent - 0.75) * 4)
    return max(0.0, 1.0 - spread) * fits


def read_pips(frame: np.ndarray, region: DieRegion) -> PipReading:
    """Read the value of the die in ``region`` of a BGR frame."""
    crop, back = _crop(frame, region)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float32)
    k = int(CANON * 0.36) | 1
    face = cv2.cvtColor(cv2.medianBlur(crop, k), cv2.COLOR_BGR2Lab).astype(np.float32)
    diff = lab - face
    diff[..., 0] *= 0.7
    c = _CROP / 2.0
    reach = CANON * 0.5 * 0.96
    inner = np.zeros((_CROP, _CROP), bool)
    lo, hi = int(round(c - reach)), int(round(c + reach))
    inner[lo:hi, lo:hi] = True
    dist = np.sqrt((diff * diff).sum(axis=2))
    values = dist[inner]
    # Below this Lab distance a spot is grain or a print flaw, not a pip.
    contrast_floor = 12.0
    if values.size == 0 or float(values.max()) < contrast_floor:
        return PipReading(None, 0.0, True)
    # All pips of a die share one colour. The most distinct pixels of the face hold it,
    # mixed with glare and dark edges; clustering them gives a few candidate directions
    # from face to pip colour. A pixel counts by how far it goes along a direction, so
    # marbling and glare, which vary in other directions, fade out.
    cut = np.percentile(values, 92)
    strong_mask = inner & (dist >= cut)
    strong = diff[strong_mask].astype(np.float32)
    directions = [np.median(strong, axis=0)]
    if len(strong) >= 12:
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
        cv2.setRNGSeed(1)
        _, _, centres = cv2.kmeans(strong, 3, None, criteria, 1, cv2.KMEANS_PP_CENTERS)
        directions.extend(centres)
    best: tuple[float, list, float] = (-1.0, [], 0.0)
    for direction in directions:
        norm = float(np.linalg.norm(direction))
        if norm < contrast_floor:
            continue
        along = diff @ (direction / norm)
        spots, covered = _spots(along, max(0.45 * norm, contrast_floor), inner, strong_mask)
        # The pip colour explains most of the distinct pixels; a glare spot only a few.
        quality = _layout_quality(spots) * min(1.0, norm / 40.0) * covered
        if quality > best[0]:
            best = (quality, spots, norm)
    quality, top, norm = best
    if not top:
        return PipReading(None, 0.0, True)
    count = len(top)
    confidence = float(np.clip(quality, 0.0, 1.0))
    uncertain = not 1 <= count <= 6 or confidence < 0.45
    value = count if 1 <= count <= 6 else None
    pts = np.array([[px, py, 1.0] for _, px, py in top])
    frame_pts = pts @ back.T
    pips = tuple((float(x), float(y)) for x, y in frame_pts)
    return PipReading(value, round(confidence, 3), uncertain, pips)
