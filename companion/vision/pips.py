"""Count the pips on the top face of one die.

A pip is a small round spot that differs in colour from the face around it, whatever the
polarity (black on white, white on red, red on black, yellow on green). The reader:

1. cuts a square around the die, turned along its edges and scaled so the die is
   ``CANON`` pixels wide: every size below is a fraction of the die, not pixels;
2. measures each pixel's colour difference (Lab, colour weighted above lightness) from
   the face behind it, estimated two ways: a local median a few pips wide, and the
   median of the whole face;
3. takes the colour of the most distinct pixels (and of a few clusters of them) as
   candidate pip colours and, for each, thresholds how far every pixel goes towards it
   at a few levels, peeling touching pips apart when they merge;
4. keeps round spots of pip size on a disc around the centre (corners and side faces
   stay out), and scores each set of spots by how well it fits a pip layout: point
   symmetry about the die's centre, equal pip sizes, the layout's pattern of distances,
   and the share of distinct pixels it explains.

The best-fitting set gives the value; its fit is the confidence, and below ``_SURE``
(or with no fitting layout) the die is ``uncertain``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.types import DieRegion

CANON = 40  # die size (as the finder saw it) in pixels after rescaling
_CROP = 60  # side of the rescaled crop: the die plus a margin for offsets and shadow

# Below this Lab distance a spot is grain or a print flaw, not a pip.
_CONTRAST_FLOOR = 12.0
# How far (in face edges) the centre of the pips may lie from the die's centre.
_MAX_OFFSET = 0.26
# A layout of few pips is easy to find by accident inside a layout of many (two corner
# pips of a five are a perfect two); more pips that fit are more evidence.
_COUNT_PRIOR = {n: (n / 6.0) ** 0.5 for n in range(1, 7)}
# Structuring elements for peeling 1 or 2 pixels off spots.
_PEEL = {k: cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)) for k in (1, 2)}
# Below this confidence a reading is flagged uncertain: on tray-a about half of such
# readings were wrong, against one in twelve above it.
_SURE = 0.3
# A reading this good ends the search early.
_GOOD_ENOUGH = 0.4
# Thresholds tried along each pip-colour direction, as shares of that colour's distance.
_LEVELS = (0.35, 0.45, 0.6)
# The pips of any layout lie within 0.37 edges of the centre; this disc keeps them all
# but leaves out the rounded corners, where the tray shows through, and most of the
# side faces seen at an angle.
_YY, _XX = np.mgrid[0:_CROP, 0:_CROP]
_DISC = np.hypot(_XX - _CROP / 2.0 + 0.5, _YY - _CROP / 2.0 + 0.5) < CANON * 0.47


@dataclass(frozen=True)
class PipReading:
    """Result of reading one die: value (None if no pips), confidence, uncertain flag."""

    value: int | None
    confidence: float
    uncertain: bool
    pips: tuple[tuple[float, float], ...] = ()  # pip centres in frame pixels
    center: tuple[float, float] | None = None  # centre of the top face, frame pixels


def _crop(
    frame: np.ndarray, centre: tuple[float, float], angle: float, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """Square crop of side _CROP around ``centre``, turned by ``angle`` and scaled.

    Returns the crop and the 2x3 affine matrix that maps crop pixels back to the frame.
    """
    cx, cy = centre
    # One affine warp rotates, rescales, crops and pads the border in one step.
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += _CROP / 2.0 - cx
    m[1, 2] += _CROP / 2.0 - cy
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(frame, m, (_CROP, _CROP), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return crop, cv2.invertAffineTransform(m)


def _spots(
    binary: np.ndarray, face: float, peel: int = 0
) -> tuple[tuple[tuple[float, float, float], ...], np.ndarray, np.ndarray]:
    """Round spots of pip size in a binary crop: (area, x, y) in crop pixels.

    ``peel`` is how many pixels were eroded off ``binary`` to part touching pips; spot
    sizes are judged as if grown back. Also returns the component labels and which of
    them were kept, for ``_coverage``.
    """
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    w, h = stats[1:, 2] + 2 * peel, stats[1:, 3] + 2 * peel
    area = stats[1:, 4]
    grown = area + peel * 2.0 * (w + h - 2 * peel) if peel else area
    die_area = face * face
    ok = (grown >= die_area * 0.006) & (grown <= die_area * 0.08)
    # Round spots only: die edges and glare streaks are long, side pips squashed.
    ok &= (np.maximum(w, h) <= 1.8 * np.minimum(w, h)) & (grown >= 0.5 * w * h)
    keep = np.zeros(n, np.uint8)
    if not ok.any():
        return (), labels, keep
    # Pips on the top face are seen full size; pips on a side face are squashed smaller.
    ok &= grown >= 0.4 * grown[ok].max()
    keep[1:] = ok
    idx = np.nonzero(ok)[0]
    spots = tuple(
        (float(grown[i]), float(centroids[i + 1, 0]), float(centroids[i + 1, 1])) for i in idx
    )
    return spots, labels, keep


def _coverage(
    labels: np.ndarray, keep: np.ndarray, strong: np.ndarray, n_strong: int, peel: int
) -> float:
    """Share of the ``strong`` (most distinct) pixels that the kept spots cover."""
    kept = keep[labels]
    if peel:
        kept = cv2.dilate(kept, _PEEL[peel])
    return float(np.count_nonzero(kept.astype(bool) & strong)) / max(1, n_strong)


def _signature(points: Sequence[tuple[float, float]]) -> list[float]:
    """Sorted pairwise distances of a point set, divided by the largest."""
    d = sorted(
        math.hypot(points[i][0] - points[j][0], points[i][1] - points[j][1])
        for i in range(len(points))
        for j in range(i + 1, len(points))
    )
    top = d[-1] or 1.0
    return [v / top for v in d]


# The usual pip layouts on a face, in units of the pip spacing. Only their shape counts:
# the fit below is blind to rotation, scale and which pip is which.
_LAYOUTS = {
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}
_SIGNATURES = {n: _signature(pts) for n, pts in _LAYOUTS.items()}


def _layout_quality(
    spots: tuple[tuple[float, float, float], ...], face: float, max_offset: float
) -> float:
    """How much a set of spots looks like the pips of one face (0..1).

    Every pip layout is point-symmetric about the face's centre, its pips are of one
    size, and its pairwise distances have a fixed pattern; spots from glare, the
    tray or a side face break at least one of these.
    """
    count = len(spots)
    if not 1 <= count <= 6:
        return 0.0
    areas = [a for a, _, _ in spots]
    mean_area = sum(areas) / count
    spread = math.sqrt(sum((a - mean_area) ** 2 for a in areas) / count) / mean_area
    pts = [(x, y) for _, x, y in spots]
    cx = sum(x for x, _ in pts) / count
    cy = sum(y for _, y in pts) / count
    offset = math.hypot(cx - _CROP / 2.0, cy - _CROP / 2.0) / face
    if offset > max_offset:
        # Every layout is centred on its face: spots off to one side belong to a
        # neighbouring die or a side face seen at an angle.
        return 0.0
    fit = math.exp(-((offset / 0.25) ** 2))
    if count > 1:
        gaps = [min(math.hypot(2 * cx - x - u, 2 * cy - y - v) for u, v in pts) for x, y in pts]
        symmetry = sum(gaps) / count / face
        template = _SIGNATURES[count]
        sig = _signature(pts)
        shape = sum(abs(a - b) for a, b in zip(sig, template, strict=True)) / len(sig)
        xs = [x for x, _ in pts]
        ys = [y for _, y in pts]
        extent = max(max(xs) - min(xs), max(ys) - min(ys)) / face
        fit *= math.exp(-((symmetry / 0.12) ** 2)) * math.exp(-((shape / 0.12) ** 2))
        # The pips of one face span at most about two thirds of its edge.
        if extent > 0.8:
            fit *= max(0.0, 1.0 - (extent - 0.8) * 4)
    return max(0.0, 1.0 - spread) * fit


def _search(
    diff: np.ndarray, face: float, max_offset: float, best: tuple[float, tuple, float]
) -> tuple[float, tuple, float]:
    """Try each pip-colour direction and threshold; return the best (quality, spots, score).

    ``score`` is the quality weighted by ``_COUNT_PRIOR``; the search stops early once it
    reaches ``_GOOD_ENOUGH``.
    """
    inner = _DISC
    dist = np.sqrt((diff * diff).sum(axis=2))
    values = dist[inner]
    if values.size == 0 or float(values.max()) < _CONTRAST_FLOOR:
        return best
    # All pips of a die share one colour. The most distinct pixels of the face hold it,
    # mixed with glare and dark edges; clustering them gives a few candidate directions
    # from face to pip colour. A pixel counts by how far it goes along a direction, so
    # marbling and glare, which vary in other directions, fade out.
    cut = np.percentile(values, 92)
    strong_mask = inner & (dist >= cut)
    strong = diff[strong_mask].astype(np.float32)
    n_strong = len(strong)
    directions = [np.median(strong, axis=0)]
    if len(strong) >= 12:
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
        cv2.setRNGSeed(1)
        _, _, centres = cv2.kmeans(
            strong, 3, None, criteria, 1, cv2.KMEANS_PP_CENTERS  # type: ignore[call-overload]
        )
        directions.extend(centres)
    tried: list[np.ndarray] = []
    for direction in directions:
        norm = float(np.linalg.norm(direction))
        if norm < _CONTRAST_FLOOR:
            continue
        unit = direction / norm
        # Cluster centres often repeat the median's colour; one look per colour will do.
        if any(float(unit @ t) > 0.97 for t in tried):
            continue
        tried.append(unit)
        along = diff @ unit
        strength = min(1.0, norm / 40.0)
        for share in _LEVELS:
            level = max(share * norm, _CONTRAST_FLOOR)
            binary = ((along > level) & inner).astype(np.uint8)
            for peel in (0, 1, 2):
                if peel:
                    # Close-set pips (a six, big pips, blur) can touch and form one big
                    # spot; peeling a pixel or two off every spot parts them.
                    if np.count_nonzero(binary) < face * face * 0.16:
                        break
                    binary = cv2.erode(binary, _PEEL[1])
                spots, labels, keep = _spots(binary, face, peel)
                prior = _COUNT_PRIOR.get(len(spots), 0.0)
                quality = _layout_quality(spots, face, max_offset) * strength
                # Coverage is at most 1: skip computing it when it cannot win.
                if quality * prior <= best[2]:
                    continue
                # The pip colour explains most of the distinct pixels; glare only a few.
                quality *= _coverage(labels, keep, strong_mask, n_strong, peel)
                if quality * prior > best[2]:
                    best = (quality, spots, quality * prior)
                    if best[2] >= _GOOD_ENOUGH:
                        return best
    return best


def _read(
    frame: np.ndarray, centre: tuple[float, float], angle: float, scale: float, max_offset: float
) -> tuple[float, tuple[tuple[float, float, float], ...], np.ndarray]:
    """Best (quality, spots in crop pixels, crop-to-frame matrix) for one crop."""
    crop, back = _crop(frame, centre, angle, scale)
    lab8 = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab)
    lab = lab8.astype(np.float32)
    face = float(CANON)
    # Two guesses at the face colour behind each pip: a local median over a window
    # about three pips wide (follows marbling and uneven light) and the median of the
    # whole face (stays right among the close-set pips of a six).
    local = lab - cv2.medianBlur(lab8, int(face * 0.3) | 1).astype(np.float32)
    whole = lab - np.median(lab[_DISC], axis=0)
    best: tuple[float, tuple, float] = (0.0, (), 0.0)
    for diff in (local, whole):
        # Glare and the die's bright or dark edges change lightness only, while red pips
        # on a black die differ mostly in colour: weight lightness down, colour up.
        diff[..., 0] *= 0.7
        diff[..., 1:] *= 1.5
        best = _search(diff, face, max_offset, best)
        if best[2] >= _GOOD_ENOUGH:
            # A clear reading: the other face colour cannot do better often enough to be
            # worth its time.
            break
    return best[0], best[1], back


def read_pips(frame: np.ndarray, region: DieRegion) -> PipReading:
    """Read the value of the die in ``region`` of a BGR frame.

    The finder's centre includes the die's shadow and visible sides, so it can lie off
    the top face. A first, lenient look finds the pips; when they are off-centre the die
    is looked at again, centred on them, where the strict layout test applies.
    """
    scale = CANON / max(region.size, 4.0)
    centre = region.center
    quality, spots, back = _read(frame, centre, region.angle, scale, 2 * _MAX_OFFSET)
    if spots:
        cx = sum(x for _, x, _ in spots) / len(spots) - _CROP / 2.0
        cy = sum(y for _, _, y in spots) / len(spots) - _CROP / 2.0
        if math.hypot(cx, cy) > 0.08 * CANON:
            moved = back @ np.array([cx + _CROP / 2.0, cy + _CROP / 2.0, 1.0])
            centre = (float(moved[0]), float(moved[1]))
            quality, spots, back = _read(frame, centre, region.angle, scale, _MAX_OFFSET)
    if not spots or quality < 0.02:
        return PipReading(None, quality, True)
    count = len(spots)
    confidence = float(np.clip(quality, 0.0, 1.0))
    uncertain = not 1 <= count <= 6 or confidence < _SURE
    value = count if 1 <= count <= 6 else None
    pts = np.array([[px, py, 1.0] for _, px, py in spots])
    frame_pts = pts @ back.T
    pips = tuple((float(x), float(y)) for x, y in frame_pts)
    return PipReading(value, round(confidence, 3), uncertain, pips, centre)
