"""Finding the tray floor in a wider scene, as a quadrilateral.

A camera over a pub tray sees the tray as one part of a wider scene: a wooden table, a
cloth or a dark bar with glasses and coasters around it, the tray a little slanted,
turned and anywhere in the frame. ``find_tray`` finds the tray floor there as a
quadrilateral, clockwise from top-left:

1. the frame is shrunk (``FIND_SIDE`` pixels across) and smoothed, and split into even
   regions, each grown from a seed on a grid over neighbours that differ only a little
   (light may fall off across a floor) and never over an edge Canny finds at twice that
   resolution (a light wall beside a light floor is a faint but long edge);
2. each region is a candidate floor with its convex hull as its extent (the dice are
   holes in it): one on three or four sides of the frame is the table, one whose hull a
   quadrilateral does not fit, or whose cells do not run along that quadrilateral's
   sides, is no tray; the rest are scored by solidity (a floor is even, a wall is a thin
   ring), fit and size;
3. from the best candidate outward, a candidate of the same hue and not darker that
   encloses it is the same floor (a light rim around an inner floor, cut off by a dark
   inner wall), and neighbouring regions of the floor's colour that are no ring around
   it are added while the whole stays a quadrilateral (a strip lit differently);
4. each side of the quadrilateral is refined on the full frame: across the side, the
   strongest step in brightness from the floor to what lies beyond, found all along the
   side and fitted with a straight line; neighbouring lines cut at the corners.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.detect import check_frame
from companion.vision.tray import TrayProfileError

Corners = tuple[tuple[float, float], ...]

# The longer side of the frame the regions are grown on: coarse enough that a cloth's
# weave and a die's pips are smoothed away, fine enough for a tray a fifth of the frame.
FIND_SIDE = 320
# Neighbouring cells of one region differ by at most this much per channel (0..255).
GROW_STEP = 3
# A step in colour this steep (levels per shrunk cell) is an edge no region grows over.
EDGE_STEP = 10.0
# Canny's thresholds on the frame at twice the regions' resolution.
CANNY_LOW, CANNY_HIGH = 12, 36
# A tray floor covers at least this share of the frame (a tray far below a wide lens).
MIN_AREA = 0.02
# A candidate is a quadrilateral when the quadrilateral and the filled region overlap by
# at least this much (intersection over union).
MIN_FIT = 0.75
# A region around a floor candidate is more floor when it is at most this much darker
# (Lab lightness, 0..255) and its hue differs by less than ``SAME_HUE`` (a, b).
SAME_FLOOR = 20.0
SAME_HUE = 12.0
# A region all around a floor candidate is its rim (more floor) only when it is at most
# this much darker; the wall around a tray lies in its own shadow.
RIM_DARKER = 8.0
# A neighbouring region that runs along more than this share of a candidate's outline
# is a ring around it.
RING_COVER = 0.6
# A candidate whose own cells are at most this share of its hull is a ring (the wall
# around a tray): the hole inside it is a floor to try (``_ring_floors``).
RING_SOLIDITY = 0.5
# The line fit looks for the floor's edge from this many shrunk cells inside the coarse
# quadrilateral's side to this many outside.
REFINE_IN = 4.5
REFINE_OUT = 3.0
# A tray floor is at most this many times as long as it is wide (mean of opposite sides):
# a strip of a wooden floor between two streaks of its grain is no tray.
MAX_ASPECT = 3.0
# The outlines ``find_trays`` gives after the usual ones: regions bounded only by edges
# this many times as strong as ``CANNY_LOW`` / ``CANNY_HIGH`` (a wooden floor's grain
# draws edges of its own between strips of the floor).
COARSE = 2.0
# The coarse regions' first outline comes first when it holds this share of the usual
# first one and is more than this many times as large: the usual one was a patch of a
# grained floor (its strips, a knot) and the coarse one the whole of it.
ENCLOSE_SHARE = 0.9
ENCLOSE_GROWTH = 1.5


class TrayNotFound(TrayProfileError):
    """No tray could be found in the frame; the message says why and what to do."""


@dataclass(frozen=True)
class Candidate:
    """One even region of the shrunk frame that could be the tray floor."""

    quad: np.ndarray  # (4, 2) float, shrunk-frame pixels, clockwise from top-left
    filled: np.ndarray  # uint8 mask of the region with its holes filled
    colour: np.ndarray  # mean Lab colour of the region's own cells
    area: float  # share of the frame the quadrilateral covers
    fit: float  # intersection over union of quadrilateral and filled region
    solidity: float  # share of the filled region that is the region's own (not holes)
    score: float


def find_tray(frame: np.ndarray) -> Corners:
    """The tray floor's four corners in frame pixels, clockwise from top-left.

    Raises ``TrayNotFound`` when no region of the frame looks like a tray floor. A
    person checks this one answer (``companion calibrate tray --show``, the camera page):
    it is looked for with ``find_trays``' ``grain``.
    """
    for corners in find_trays(frame, grain=True):
        return corners
    raise TrayNotFound(
        "no even, four-cornered area that does not run out of the frame looks like a"
        " tray floor; give the tray's corners with --corners x,y,x,y,x,y,x,y"
        " (clockwise from top-left)"
    )


def find_trays(frame: np.ndarray, most: int = 4, grain: bool = False) -> Iterator[Corners]:
    """The best outline of a tray floor, then the next best ones, up to ``most`` different
    ones, each made only when asked for (a refined outline costs a few ms).

    The best-scored region is not always the floor: a printed menu's blank corner can
    outscore a tray full of dice. Whoever can tell (``autotray.TrayKeeper``: the tray
    holds the dice) takes the next.

    ``grain``: a floor whose own grain splits it into strips, none of which grows into
    the whole, is also outlined by coarser regions (``COARSE``): their first outline comes
    first when it encloses the usual first one (``_encloses``), and theirs are all there
    is when the usual regions make none (else they are left out: they may run onto a
    tray's wall); no outline is a strip (``MAX_ASPECT``). It costs a second pass over the
    frame (about as long as the first).
    """
    check_frame(frame)
    h, w = frame.shape[:2]
    factor = FIND_SIDE / max(w, h)
    small = cv2.resize(
        frame, (max(16, round(w * factor)), max(16, round(h * factor))),
        interpolation=cv2.INTER_AREA,
    )
    fine = cv2.resize(
        frame, (small.shape[1] * 2, small.shape[0] * 2), interpolation=cv2.INTER_AREA
    )
    scale = np.array([w / small.shape[1], h / small.shape[0]])
    given: list[np.ndarray] = []
    small = cv2.medianBlur(small, 5)
    usual = _floors(small, fine, 1.0, grain)
    if not grain:
        outlines: Iterator[Candidate] = usual
    else:
        outlines = _grain_first(usual, _floors(small, fine, COARSE, grain), small.shape[:2])
    while len(given) < most:
        floor = next(outlines, None)
        if floor is None:
            return
        # Two starts that widen to the same floor give it once.
        if any(np.abs(floor.quad - seen).max() <= 2.0 for seen in given):
            continue
        given.append(floor.quad)
        yield clockwise(_refine(frame, floor.quad * scale, float(scale.max())))


def _grain_first(usual: Iterator[Candidate], coarse: Iterator[Candidate],
                 shape: tuple[int, ...]) -> Iterator[Candidate]:
    """The usual floors, led by the first coarse one where it encloses the first usual one,
    or the coarse floors where there is no usual one (``find_trays``' ``grain``)."""
    first = next(usual, None)
    widest = next(coarse, None)
    if first is None:
        # No usual region makes a tray: the coarse ones may (a floor all grain).
        if widest is not None:
            yield widest
            yield from coarse
        return
    if widest is not None and _encloses(widest, first, shape):
        # A coarse outline of the same floor around the usual first one is the floor
        # that one is part of.
        yield widest
    yield first
    yield from usual


def _encloses(outer: Candidate, inner: Candidate, shape: tuple[int, ...]) -> bool:
    """Whether the floor ``outer`` is of ``inner``'s colour (``_same_floor``) and scored
    better (a truer quadrilateral, more solid), holds ``ENCLOSE_SHARE`` of it and is more
    than ``ENCLOSE_GROWTH`` times its area (both outlined in a frame of ``shape``)."""
    if not _same_floor(outer.colour, inner.colour) or outer.score <= inner.score:
        return False
    a, b = np.zeros(shape[:2], np.uint8), np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(a, np.round(outer.quad).astype(np.int32), 1)
    cv2.fillConvexPoly(b, np.round(inner.quad).astype(np.int32), 1)
    inside, area = int((a & b).sum()), int(b.sum())
    return inside >= ENCLOSE_SHARE * area and int(a.sum()) > ENCLOSE_GROWTH * area


def _floors(small: np.ndarray, fine: np.ndarray, coarse: float,
            no_strips: bool) -> Iterator[Candidate]:
    """The floors (outlines in shrunk-frame pixels) of the regions of ``small`` (the
    shrunk frame, median-smoothed), best first: each candidate grown to its floor, then
    the floors inside rings (``_ring_floors``); with ``no_strips``, none longer than
    ``MAX_ASPECT`` times its width. ``coarse`` above 1: the edges that bound the regions
    are that many times as strong (Canny's thresholds) and found on ``fine``
    median-smoothed as ``small`` is."""
    if coarse == 1.0:
        edges = _edges(fine, small.shape[:2])
    else:
        edges = _edges(cv2.medianBlur(fine, 5), small.shape[:2], coarse)
    labels, colours = _regions(small, edges)
    candidates = _candidates(labels, colours)
    grown = (_grow(_outermost_floor(candidates, k), labels, colours) for k in
             range(len(candidates)))
    for floor in itertools.chain(grown, _ring_floors(labels, colours)):
        if not no_strips or _aspect(floor.quad) <= MAX_ASPECT:
            yield floor  # else a strip of floor that did not grow into the whole


def _edges(fine: np.ndarray, shape: tuple[int, ...], strength: float = 1.0) -> np.ndarray:
    """Cells of a ``shape`` grid that an edge of ``fine`` (twice as fine) runs through,
    at ``strength`` times Canny's usual thresholds.

    Canny's hysteresis keeps a long, faint edge (a light wall beside a light floor)
    whole, so the regions cannot leak through its weak stretches.
    """
    blurred = cv2.GaussianBlur(fine, (0, 0), 1.0)
    edges: np.ndarray = np.zeros(fine.shape[:2], np.uint8)
    low, high = CANNY_LOW * strength, CANNY_HIGH * strength
    for channel in cv2.split(blurred):
        edges = cv2.bitwise_or(edges, cv2.Canny(channel, low, high))
    cells = cv2.resize(edges, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    return (cells > 0).astype(np.uint8)


def _regions(small: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``small`` split into even regions: a label per cell (0 on edges) and the mean Lab
    colour of each label (row ``k`` for label ``k``).

    Each region grows from a seed over neighbours that differ by at most ``GROW_STEP``;
    strong edges (``EDGE_STEP``) are barriers, so a soft stretch of an edge (a shadow, a
    corner blurred by shrinking) cannot let the floor run out onto the wall.
    """
    sh, sw = small.shape[:2]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
    grad = np.zeros((sh, sw), np.float32)
    for channel in cv2.split(small.astype(np.float32)):
        gx = cv2.Sobel(channel, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8.0)
        gy = cv2.Sobel(channel, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8.0)
        grad = np.maximum(grad, cv2.magnitude(gx, gy))
    mask = np.zeros((sh + 2, sw + 2), np.uint8)
    mask[1:-1, 1:-1][(grad > EDGE_STEP) | (edges > 0)] = 1
    labels = np.zeros((sh, sw), np.int32)
    step = max(2, min(sh, sw) // 60)
    diff = (GROW_STEP,) * 3
    colours = [np.zeros(3, np.float32)]
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (2 << 8)
    for y in range(step // 2, sh, step):
        for x in range(step // 2, sw, step):
            if mask[y + 1, x + 1]:
                continue
            cv2.floodFill(small, mask, (x, y), (0, 0, 0), diff, diff, flags)
            grown = mask[1:-1, 1:-1] == 2
            mask[1:-1, 1:-1][grown] = 3  # taken: later fills stop at it
            labels[grown] = len(colours)
            colours.append(lab[grown].mean(axis=0))
    return labels, np.array(colours, np.float32)


def _candidates(labels: np.ndarray, colours: np.ndarray) -> list[Candidate]:
    """Every region that could be a tray floor, best first."""
    sh, sw = labels.shape
    counts = np.bincount(labels.reshape(-1), minlength=len(colours))
    out: list[Candidate] = []
    for label in np.flatnonzero(counts >= MIN_AREA * sh * sw * 0.5):
        if label == 0:
            continue
        own = (labels == label).astype(np.uint8)
        if _frame_sides(own) >= 3:
            continue  # the table or the bar around the tray
        candidate = _candidate(own, colours[label])
        if candidate is not None:
            out.append(candidate)
    return sorted(out, key=lambda c: -c.score)


def _ring_floors(labels: np.ndarray, colours: np.ndarray) -> list[Candidate]:
    """The floors that rings enclose, best first: a region that runs all along a
    quadrilateral as a thin ring (``RING_SOLIDITY``) is the wall around a tray, and the
    hole inside it the floor, whatever the floor's own texture. A wooden floor's grain
    splits it into strips no one region covers (``_regions``), so it makes no candidate of
    its own; these come after the candidates ``_candidates`` finds."""
    sh, sw = labels.shape
    counts = np.bincount(labels.reshape(-1), minlength=len(colours))
    least = 4.0 * math.sqrt(MIN_AREA * sh * sw)  # one cell round the smallest tray
    out: list[Candidate] = []
    for label in np.flatnonzero(counts >= least):
        if label == 0:
            continue
        own = (labels == label).astype(np.uint8)
        if _frame_sides(own) >= 3:
            continue
        ring = _candidate(own, colours[label])
        if ring is None or ring.solidity > RING_SOLIDITY:
            continue
        hole = ring.filled & (1 - cv2.dilate(own, np.ones((3, 3), np.uint8)))
        count, parts, stats, _ = cv2.connectedComponentsWithStats(hole, connectivity=4)
        if count < 2:
            continue
        inner = (parts == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))).astype(np.uint8)
        inside = labels[inner > 0]
        inside = inside[inside > 0]
        colour = colours[inside].mean(axis=0) if len(inside) else colours[label]
        floor = _candidate(inner, colour)
        if floor is not None:
            out.append(floor)
    return sorted(out, key=lambda c: -c.score)


def _grow(best: Candidate, labels: np.ndarray, colours: np.ndarray) -> Candidate:
    """``best`` with the neighbouring regions of the same floor added, as long as the
    whole stays a quadrilateral: a strip of floor lit a little differently, cut off from
    the rest by a soft edge, belongs to it."""
    own = np.zeros(labels.shape, np.uint8)
    for label in np.unique(labels[best.filled > 0]):
        if label and _same_floor(colours[label], best.colour):
            own[labels == label] = 1
    tried: set[int] = set()
    while True:
        ring = cv2.dilate(own, np.ones((5, 5), np.uint8)) & (1 - own).astype(np.uint8)
        fresh = [
            int(k) for k in np.unique(labels[ring > 0])
            if k and int(k) not in tried and _same_floor(colours[k], best.colour)
        ]
        if not fresh:
            break
        grown_any = False
        current = _candidate(own, best.colour) or best
        for label in fresh:
            tried.add(label)
            region = (labels == label).astype(np.uint8)
            if _cover(current.quad, region) > RING_COVER:
                continue  # a ring all around: the wall, not more floor
            trial = own | region
            if _frame_sides(trial) >= 3:
                continue
            candidate = _candidate(trial, best.colour)
            if candidate is not None and candidate.area <= best.area * 1.6:
                own = trial
                grown_any = True
        if not grown_any:
            break
    grown = _candidate(own, best.colour)
    return best if grown is None or grown.area < best.area else grown


def _frame_sides(own: np.ndarray) -> int:
    """On how many of the frame's four sides the region ``own`` lies (within two cells).

    The table runs out of the frame on three or four sides; a tray that fills the frame
    reaches at most two (in a corner).
    """
    return sum(
        bool(part.any())
        for part in (own[:2], own[-2:], own[:, :2], own[:, -2:])
    )


def _candidate(own: np.ndarray, colour: np.ndarray) -> Candidate | None:
    """The region ``own`` (0/1 mask) as a candidate floor, or None when it is no tray."""
    sh, sw = own.shape
    points = cv2.findNonZero(own)
    hull = cv2.convexHull(points)
    quad = _quadrilateral(hull)
    if quad is None:
        return None
    # Holes (dice) and a ring's inside belong to the floor: the hull, not the outline,
    # which a die lying across a rim would lead inside.
    filled = np.zeros_like(own)
    cv2.fillConvexPoly(filled, hull, 1)
    quad_mask = np.zeros_like(own)
    cv2.fillConvexPoly(quad_mask, np.round(quad).astype(np.int32), 1)
    union = int((quad_mask | filled).sum())
    overlap = int((quad_mask & filled).sum()) / max(union, 1)
    area = cv2.contourArea(quad.astype(np.float32)) / (sh * sw)
    if overlap < MIN_FIT or area < MIN_AREA:
        return None
    # The region must run along the whole quadrilateral: a blob of table has a hull that
    # a quadrilateral covers too, but its cells leave the quadrilateral's sides.
    fit = min(overlap, _cover(quad, own))
    if fit < MIN_FIT:
        return None
    solidity = int(own.sum()) / max(int(filled.sum()), 1)
    # An even floor with a few dice on it is solid and a good quadrilateral; the wall or
    # the rim around a tray is a good quadrilateral too, but a thin ring; a beer mat is
    # solid, but small.
    score = solidity * ((fit - MIN_FIT) / (1 - MIN_FIT) + 0.5 * math.sqrt(area))
    return Candidate(quad, filled, colour, area, fit, solidity, score)


def _aspect(quad: np.ndarray) -> float:
    """How many times as long as wide the quadrilateral ``quad`` is: the longer mean of
    two opposite sides over the shorter."""
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    one, other = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return float(max(one, other) / max(min(one, other), 1e-9))


def _cover(quad: np.ndarray, own: np.ndarray) -> float:
    """The share of ``quad``'s outline that has a cell of ``own`` close by."""
    sh, sw = own.shape
    near = cv2.distanceTransform(1 - own, cv2.DIST_L2, 3)
    side = math.sqrt(max(cv2.contourArea(quad.astype(np.float32)), 1.0))
    along = _perimeter_points(quad, 200)
    xs = np.clip(np.round(along[:, 0]).astype(int), 0, sw - 1)
    ys = np.clip(np.round(along[:, 1]).astype(int), 0, sh - 1)
    return float(np.mean(near[ys, xs] <= max(2.0, 0.03 * side)))


def _perimeter_points(quad: np.ndarray, count: int) -> np.ndarray:
    """``count`` points spread evenly along the closed polygon ``quad``."""
    ends = np.roll(quad, -1, axis=0)
    lengths = np.linalg.norm(ends - quad, axis=1)
    at = np.linspace(0, lengths.sum(), count, endpoint=False)
    starts = np.concatenate([[0.0], np.cumsum(lengths)[:-1]])
    side = np.clip(np.searchsorted(starts, at, side="right") - 1, 0, len(quad) - 1)
    t = (at - starts[side]) / np.maximum(lengths[side], 1e-9)
    return quad[side] + (ends[side] - quad[side]) * t[:, None]


def _quadrilateral(hull: np.ndarray) -> np.ndarray | None:
    """Four corners fitting a convex hull, or None when it has no four clear sides.

    The hull is simplified to a few straight stretches; its four longest are the sides
    and neighbouring sides cut at the corners. A corner hidden under a glass or rounded
    off is a short stretch between two long ones and is left out, so the corner comes
    back where the sides meet rather than at the cut.
    """
    perimeter = cv2.arcLength(hull, True)
    approx = hull
    for share in (0.01, 0.015, 0.02, 0.03, 0.05):
        approx = cv2.approxPolyDP(hull, share * perimeter, True)
        if len(approx) <= 8:
            break
    pts = approx.reshape(-1, 2).astype(np.float64)
    if len(pts) < 4:
        return None
    if len(pts) == 4:
        return pts
    ends = np.roll(pts, -1, axis=0)
    lengths = np.linalg.norm(ends - pts, axis=1)
    sides = sorted(np.argsort(lengths)[-4:])
    corners = []
    for k in range(4):
        i, j = sides[k - 1], sides[k]
        corner = _cut(pts[i], ends[i] - pts[i], pts[j], ends[j] - pts[j])
        if corner is None:
            return None
        corners.append(corner)
    quad = np.array(corners)
    # Sides that do not meet near the hull (the short sides of a blob) make no tray.
    reach = 0.15 * perimeter
    if not np.isfinite(quad).all() or any(
        cv2.pointPolygonTest(hull, (float(x), float(y)), True) < -reach for x, y in quad
    ) or not cv2.isContourConvex(quad.astype(np.float32)):
        return None
    return quad


def _outermost_floor(candidates: list[Candidate], start: int = 0) -> Candidate:
    """The best candidate (or the ``start``-th best), widened to the candidates of its
    colour that enclose it.

    A tray floor often shows as nested regions: a light rim around an inner floor with a
    darker inner wall between. The floor's outline is the outermost of the same colour;
    the wall around the tray (darker) and the table (touching the edge) end the chain.
    """
    best = candidates[start]
    while True:
        cx, cy = best.quad.mean(axis=0)
        outer = [
            c for c in candidates
            if c.area > best.area * 1.02
            and c.filled[min(int(cy), c.filled.shape[0] - 1), min(int(cx), c.filled.shape[1] - 1)]
            and _same_floor(c.colour, best.colour, RIM_DARKER)
            and _inside(best.quad, c.filled)
        ]
        if not outer:
            return best
        best = min(outer, key=lambda c: c.area)


def _same_floor(outer: np.ndarray, inner: np.ndarray, darker: float = SAME_FLOOR) -> bool:
    """Whether a region of Lab colour ``outer`` around one of ``inner`` is more floor.

    Of the same hue, and not much darker: a rim lit more brightly than the floor is
    floor, the wall in its own shadow around the tray is not.
    """
    chroma = float(np.linalg.norm(outer[1:] - inner[1:]))
    return chroma < SAME_HUE and outer[0] > inner[0] - darker


def _inside(quad: np.ndarray, filled: np.ndarray) -> bool:
    """Whether most of ``quad`` lies within the mask ``filled``."""
    mask = np.zeros_like(filled)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    total = int(mask.sum())
    return total > 0 and int((mask & filled).sum()) >= 0.9 * total


def _refine(frame: np.ndarray, quad: np.ndarray, cell: float) -> np.ndarray:
    """``quad`` (frame pixels) with each side moved onto the floor's edge, fitted as a
    straight line; corners where neighbouring lines cut.

    ``cell`` is the size of a shrunk cell in frame pixels. Across each side the edge is
    looked for from ``REFINE_IN`` cells inside (the regions stop short of a blurred
    edge) to ``REFINE_OUT`` cells outside, as the strongest step in brightness of the
    sign from the floor just inside the side to what lies beyond it (floor to wall). A
    side without a clear step keeps its coarse place; where the corners would move far,
    all do.
    """
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (0, 0), max(1.0, cell / 4)).astype(np.float32)
    h, w = grey.shape
    centre = quad.mean(axis=0)
    offsets = np.arange(-REFINE_IN * cell, REFINE_OUT * cell + 0.5, 1.0)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        along = b - a
        length = float(np.linalg.norm(along))
        if length < 4:
            return quad
        along /= length
        normal = np.array([-along[1], along[0]])
        if np.dot(normal, centre - (a + b) / 2) > 0:
            normal = -normal  # pointing out of the tray
        # Stay off the corners, where the neighbouring side's step would be found.
        ts = np.linspace(0.1, 0.9, max(8, int(length / 3)))
        bases = a[None, :] + (b - a)[None, :] * ts[:, None]
        samples = bases[:, None, :] + offsets[None, :, None] * normal[None, None, :]
        inside = (
            (samples[..., 0].min(axis=1) >= 0) & (samples[..., 1].min(axis=1) >= 0)
            & (samples[..., 0].max(axis=1) <= w - 2) & (samples[..., 1].max(axis=1) <= h - 2)
        )
        bases, samples = bases[inside], samples[inside]
        if len(bases) < 4:
            lines.append((a, along))
            continue
        profiles = cv2.remap(
            grey, samples[..., 0].astype(np.float32), samples[..., 1].astype(np.float32),
            cv2.INTER_LINEAR,
        )
        # Floor to wall: from just inside the coarse side (still floor) to beyond it.
        near_in = (offsets >= -cell) & (offsets <= 0)
        sign = 1.0 if profiles[:, offsets > 0].mean() >= profiles[:, near_in].mean() else -1.0
        steps = sign * np.diff(profiles, axis=1)
        k = np.argmax(steps, axis=1)
        rows = np.arange(len(k))
        strong = steps[rows, k] >= 4.0
        # The step lies between samples k and k + 1; a parabola through its neighbours
        # places it to a fraction of a pixel.
        shift = np.full(len(k), 0.5)
        inner = (k > 0) & (k < steps.shape[1] - 1)
        left = steps[rows, np.maximum(k - 1, 0)]
        right = steps[rows, np.minimum(k + 1, steps.shape[1] - 1)]
        denom = left - 2 * steps[rows, k] + right
        ok = inner & (denom < 0)
        shift[ok] += 0.5 * (left[ok] - right[ok]) / denom[ok]
        points = bases + (offsets[0] + k + shift)[:, None] * normal[None, :]
        points = points[strong]
        if len(points) < max(4, len(ts) // 3):
            lines.append((a, along))
            continue
        vx, vy, x0, y0 = cv2.fitLine(
            points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).reshape(-1)
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    corners = []
    for i in range(4):
        p, d = lines[i - 1]
        q, e = lines[i]
        corner = _cut(p, d, q, e)
        if corner is None or np.linalg.norm(corner - quad[i]) > 2 * REFINE_IN * cell:
            return quad
        corners.append(corner)
    out = np.array(corners)
    out[:, 0] = np.clip(out[:, 0], 0, w)
    out[:, 1] = np.clip(out[:, 1], 0, h)
    return out


def _cut(p: np.ndarray, d: np.ndarray, q: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """Where the lines p + s d and q + t e cross (None when nearly parallel)."""
    m = np.array([[d[0], -e[0]], [d[1], -e[1]]])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    s, _ = np.linalg.solve(m, q - p)
    return p + s * d


def clockwise(pts: np.ndarray) -> Corners:
    """Corners clockwise on screen, starting top-left."""
    c = pts.mean(axis=0)
    order = np.argsort(np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]))
    pts = pts[order]
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    pts = np.roll(pts, -start, axis=0)
    return tuple((float(x), float(y)) for x, y in pts)
