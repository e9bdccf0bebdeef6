"""Find dice in a frame: every die of any colour becomes one ``DieRegion``.

The finder knows nothing about pips or faces, so pip dice and Rock the Bock dice share
it. Every size it uses is relative to the frame or to the dice themselves:

1. Shrink the frame to about ``FinderOptions.work_side`` pixels. Estimate the empty tray with a
   coarse median (dice are small against the tray, so the median of a coarse cell is
   the floor under them) and score every pixel by its colour distance (YCrCb) from it;
   lightness changes that shadows and uneven light explain do not count. The threshold
   comes from the noise of the score itself, with hysteresis, so a grey box lid and
   white paper both work.
2. Close pips and glare holes. Take the die size from the tray calibration or
   estimate it: single dice, rows and bent chains of touching dice are all one die
   wide, which the ridge of the distance transform measures; blobs shaped like one
   die near that width refine it. Straight strips a quarter of the frame long are
   left out of the estimate (tray walls and rims, whose crumbs look like small dice).
   Then cut away the walls at the die's scale (strips six dice long, and the shorter
   strips next to them: wall ends and tray corners), so a long column of touching
   dice stays, and cut thin bridges with an opening half a die wide.
3. Keep single-die blobs; split blobs of touching dice by clustering their pixels
   into the number of dice their area suggests (the count whose parts look most like
   dice wins); drop what cannot be a die.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.types import DieRegion, VisionError

# The finder works on frames of about this size: dice of a tray-filling camera view are
# still 8 px and more, and the whole stage stays within a few milliseconds.
WORK_SIDE = 480


@dataclass(frozen=True)
class FinderOptions:
    """Knobs of the die finder; the defaults suit a top-down camera over a tray."""

    die_size: float | None = None  # expected die edge in frame pixels (from calibration)
    work_side: int = WORK_SIDE  # longer side of the frame the finder works on, in pixels
    min_die_px: float = 6.0  # smallest die edge worth reporting, in working pixels
    noise_sigmas: float = 5.0  # foreground threshold in robust sigmas of the score
    min_threshold: float = 4.0  # floor of the foreground threshold (YCrCb units)


def check_frame(frame: np.ndarray) -> None:
    """Raise ``VisionError`` unless ``frame`` is a non-empty 8-bit BGR image."""
    if not isinstance(frame, np.ndarray):
        raise VisionError(f"expected a numpy image, got {type(frame).__name__}")
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise VisionError(
            f"expected an 8-bit BGR image of shape (h, w, 3), got {frame.dtype} {frame.shape};"
            " convert it with cv2.cvtColor first"
        )
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise VisionError(f"frame of {frame.shape[1]}x{frame.shape[0]} px is too small to read")


# A die known to be this big (frame pixels) keeps at least this many working pixels,
# whatever the work side: enough for the finder's morphology at the die's scale.
MIN_WORK_DIE = 16.0
# Without a known size: dice estimated smaller than SMALL_WORK_DIE working pixels (or no
# dice at all) are looked for again at a scale that makes them about GOOD_WORK_DIE, at
# most FINER_AT_MOST times the first scale. tray-a's dice are 15-25 px at a work side of
# 320, so its photos are never looked at twice.
SMALL_WORK_DIE = 12.0
GOOD_WORK_DIE = 20.0
FINER_AT_MOST = 4.0


def working_scale(frame_shape: tuple[int, ...], options: FinderOptions | None = None) -> float:
    """Factor that maps frame pixels to the finder's working pixels (≤ 1)."""
    options = options or FinderOptions()
    side = max(frame_shape[0], frame_shape[1])
    scale = options.work_side / side
    if options.die_size:
        scale = max(scale, MIN_WORK_DIE / options.die_size)
    return min(1.0, scale)


def _shrink(frame: np.ndarray, scale: float) -> np.ndarray:
    """Resize ``frame`` by ``scale`` (< 1) with pixel-area averaging.

    Area averaging by a factor of exactly two has a fast path in OpenCV; halving first
    and averaging the rest costs half the time of one uneven step for the same image.
    """
    h, w = frame.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    while frame.shape[1] >= 2 * size[0] and frame.shape[0] >= 2 * size[1]:
        frame = cv2.resize(
            frame, (frame.shape[1] // 2, frame.shape[0] // 2), interpolation=cv2.INTER_AREA
        )
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA)


def foreground_score(ycc: np.ndarray) -> np.ndarray:
    """Per-pixel colour distance (float32) of a YCrCb image from its estimated background.

    YCrCb rather than Lab: it separates light from colour almost as well and costs a
    twentieth of the time to convert.
    """
    h, w = ycc.shape[:2]
    cell = max(2, round(max(h, w) / 80))
    small = cv2.resize(ycc, (max(w // cell, 1), max(h // cell, 1)), interpolation=cv2.INTER_AREA)
    background = cv2.resize(cv2.medianBlur(small, 7), (w, h), interpolation=cv2.INTER_LINEAR)
    diff = cv2.absdiff(ycc, background)
    dy, dcr, dcb = cv2.split(diff)
    # Shadows and uneven light change lightness by a fraction of the background's own
    # lightness without adding colour: that much lightness change is not a die.
    # A plain number scales every pixel (the stubs know only array arguments).
    dead = cv2.multiply(cv2.split(background)[0], 0.15)  # type: ignore[call-overload]
    dy = cv2.subtract(dy, dead)
    return cv2.magnitude(
        cv2.magnitude(dy.astype(np.float32), dcr.astype(np.float32)), dcb.astype(np.float32)
    )


def foreground_mask(
    score: np.ndarray, options: FinderOptions, valid: np.ndarray | None
) -> np.ndarray:
    """Binary (uint8 0/255) mask of the pixels that are not tray background."""
    sample = score[valid > 0] if valid is not None else score.ravel()
    # Every 13th pixel estimates the noise level as well as all of them, far faster.
    sample = sample[::13]
    if sample.size == 0:
        return np.zeros(score.shape, np.uint8)
    med = float(np.median(sample))
    mad = float(np.median(np.abs(sample - med))) * 1.4826
    low = max(options.min_threshold, med + options.noise_sigmas * mad)
    strong = (score > 2.0 * low).astype(np.uint8)
    weak = (score > low).astype(np.uint8)
    # Hysteresis: weak pixels only count where they connect to a strong core, which keeps
    # the faint body of a white die on white paper but drops isolated noise.
    n, labels = cv2.connectedComponents(weak, connectivity=8)
    has_core = np.zeros(n, np.uint8)
    core_labels = np.unique(labels[strong > 0])
    has_core[core_labels] = 255
    has_core[0] = 0
    mask = has_core[labels]
    if valid is not None:
        mask[valid == 0] = 0
    return mask


def _clean(mask: np.ndarray, die: float | None) -> np.ndarray:
    """Close pips and glare holes, drop specks, fill each blob."""
    k = 3 if die is None else max(3, int(round(die * 0.12)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    # Fill holes (pips, glare, the faint face of a white die) but not the floor of a
    # tray whose rim forms a closed ring: only holes smaller than a big die count.
    limit = (die * 1.5) ** 2 if die else mask.size * 0.006
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    filled = mask.copy()
    if hierarchy is not None:
        holes = [
            c
            for c, h in zip(contours, hierarchy[0], strict=True)
            if h[3] >= 0 and cv2.contourArea(c) < limit
        ]
        cv2.drawContours(filled, holes, -1, 255, thickness=cv2.FILLED)
    return filled


def _squareness(contour: np.ndarray) -> tuple[float, float, float]:
    """Area, aspect ratio (≥ 1) and fill ratio of a contour's min-area rectangle."""
    # Contours run through the centres of the border pixels; add the half pixel they
    # cut off so small blobs are not judged too thin.
    area = float(cv2.contourArea(contour)) + 0.5 * float(cv2.arcLength(contour, True))
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    rw, rh = rw + 1.0, rh + 1.0
    return area, max(rw, rh) / min(rw, rh), area / (rw * rh)


def _looks_single(area: float, aspect: float, fill: float) -> bool:
    """True for a blob shaped like one die seen from above (shadow and sides included)."""
    return aspect < 1.35 and fill > 0.68


def estimate_die_size(
    mask: np.ndarray, min_die_px: float, walls: np.ndarray | None = None
) -> float | None:
    """Typical die edge of the mask's blobs in pixels, from their widths, or None.

    A blob of one die, a row of touching dice and a bent chain of them are all one die
    wide: the ridge of the distance transform runs along their middle at half a die
    from either side. Ridge pixels vote with their width, weighted by its square, so
    specks, rim crumbs and pieces of dice (many, but narrow) are outvoted by the dice
    themselves, and the weighted median resists the few wide clumps of dice lying two
    abreast. ``walls`` (uint8, the strips cut from ``mask``) marks the blobs that touch
    a wall: what is left of a wall, like a tray's corner, is often shaped like a die.
    """
    near_wall = None if walls is None else cv2.dilate(walls, np.ones((3, 3), np.uint8))
    # Widths are measured at half resolution: as good for the vote, four times faster.
    half = cv2.resize(
        mask, (mask.shape[1] // 2, mask.shape[0] // 2), interpolation=cv2.INTER_NEAREST
    )
    dist = cv2.distanceTransform(half, cv2.DIST_L2, 5)
    # Ragged blob borders give the raw distance map many tiny local maxima.
    dist = cv2.GaussianBlur(dist, (3, 3), 0)
    ridge = (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8)) - 1e-3) & (
        dist >= 0.25 * min_die_px
    )
    widths = 4.0 * dist[ridge]
    # A die bigger than a fifth of the frame is a tray or a sheet of paper, not a die.
    widths = widths[widths <= min(mask.shape) * 0.2]
    if widths.size == 0:
        return None
    widths.sort()
    weight = np.cumsum(widths.astype(np.float64) ** 2)
    width = float(widths[np.searchsorted(weight, weight[-1] * 0.5)])
    # Blobs shaped like one die near that width measure it better than the ridge, which
    # runs inside their ragged border. Their upper part counts: the round holes, specks
    # and half-found white dice among them are smaller than real dice. Next to a wall
    # only blobs of a full die count: a die leaning on a wall is one, a crumb is not.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    sides = []
    for c in contours:
        _, _, bw, bh = cv2.boundingRect(c)
        if (bw + 1) * (bh + 1) < 0.3 * width**2 or cv2.contourArea(c) > 1.8 * width**2:
            continue  # too small or too big for one die, whatever its shape
        area, aspect, fill = _squareness(c)
        # A blob cut from a wall has its border along the cut.
        at_wall = near_wall is not None and bool(near_wall[c[:, 0, 1], c[:, 0, 0]].any())
        smallest = 0.7 if at_wall else 0.3
        if smallest * width**2 <= area <= 1.8 * width**2 and _looks_single(area, aspect, fill):
            sides.append(math.sqrt(area))
    return float(np.percentile(sides, 70)) if len(sides) >= 2 else width


def _wall_strips(half: np.ndarray, length: int) -> np.ndarray:
    """Mask (uint8 0/255) of the long straight strips in ``half``: tray walls and rims.

    ``half`` is the foreground mask at half the working resolution (walls are big:
    finding them there is as good and four times faster); ``length`` is in working
    pixels. A strip survives an opening with a line ``length`` long along it; a die, or
    a short row of touching dice, does not. Walls that a die leans on are cut away under
    the die, which only trims the die's blob.
    """
    length = max(length // 2, 5)
    horizontal = cv2.morphologyEx(half, cv2.MORPH_OPEN, np.ones((1, length), np.uint8))
    vertical = cv2.morphologyEx(half, cv2.MORPH_OPEN, np.ones((length, 1), np.uint8))
    lines = cv2.bitwise_or(horizontal, vertical)
    # A row of touching dice also holds a long straight run of pixels; a wall runs on
    # for much longer than the run itself has to be.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(lines, connectivity=8)
    long_enough = np.zeros(n, np.uint8)
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    long_enough[extent >= 1.6 * length] = 255
    long_enough[0] = 0
    return cv2.dilate(long_enough[labels], np.ones((3, 3), np.uint8))


def _touching(strips: np.ndarray, walls: np.ndarray, reach: int) -> np.ndarray:
    """``walls`` with the parts of ``strips`` within ``reach`` pixels of them."""
    k = 2 * max(1, reach) + 1
    near = cv2.dilate(walls, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.bitwise_or(cv2.bitwise_and(strips, near), walls)


def _region_from_contour(contour: np.ndarray, scale: float, die: float) -> DieRegion:
    """Build a ``DieRegion`` (frame pixels) from a working-scale contour."""
    area, aspect, fill = _squareness(contour)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    pts = cv2.boxPoints(((cx, cy), (rw, rh), angle)) / scale
    centre = (float(cx / scale), float(cy / scale))
    corners = _clockwise(pts, centre)
    size = float(math.sqrt(max(area, 1.0)) / scale)
    size_fit = math.exp(-abs(math.log(max(math.sqrt(area), 1.0) / die)) * 2.0)
    confidence = float(np.clip(fill, 0, 1) * min(1.0, 1.6 - 0.6 * aspect) * size_fit)
    return DieRegion(
        center=centre,
        size=size,
        angle=float(angle % 90.0),
        corners=corners,
        confidence=round(max(0.0, min(1.0, confidence)), 3),
    )


def _clockwise(pts: np.ndarray, centre: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """Corners sorted clockwise on screen (y down), starting with the top-left-most."""
    # Four points: plain Python is several times faster here than numpy's small-array calls.
    corners = sorted(
        ((float(x), float(y)) for x, y in pts),
        key=lambda p: math.atan2(p[1] - centre[1], p[0] - centre[0]),
    )
    start = min(range(len(corners)), key=lambda k: corners[k][0] + corners[k][1])
    return tuple(corners[start:] + corners[:start])


def _part_quality(points: np.ndarray, die: float, weight: float = 1.0) -> float:
    """How much a set of pixel coordinates looks like one die of edge ``die`` (0..1).

    ``weight`` is how many pixels each point stands for when ``points`` is a sample.
    """
    if len(points) < 5:
        return 0.0
    (_, _), (rw, rh), _ = cv2.minAreaRect(points)
    rw, rh = rw + 1.0, rh + 1.0
    area = float(len(points)) * weight
    fill = min(1.0, area / (rw * rh))
    aspect = max(rw, rh) / min(rw, rh)
    size_fit = math.exp(-abs(math.log(math.sqrt(area) / die)) * 1.5)
    return fill * min(1.0, 1.2 / aspect) ** 2 * size_fit


def _split(blob: np.ndarray, die: float, offset: tuple[int, int]) -> list[np.ndarray]:
    """Split one blob of touching dice into one point set per die (working pixels).

    The number of dice is about the blob's area over one die's area; for the few counts
    around that guess the pixels are clustered into compact groups, and the count whose
    groups look most like single dice wins. A distance transform cannot do this: two dice
    lying edge to edge form one ridge, not two peaks.
    """
    ys, xs = np.nonzero(blob)
    points = np.column_stack([xs, ys]).astype(np.float32)
    guess = len(points) / (die * die)
    counts = sorted({max(1, int(round(guess * f))) for f in (0.7, 0.85, 1.0, 1.15, 1.3)})
    # Clustering and judging a sample of the pixels is as good and much faster.
    step = max(1, len(points) // 800)
    sample = points[::step]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    best: tuple[float, np.ndarray | None] = (-1.0, None)
    for k in counts:
        if k == 1:
            centres = sample.mean(axis=0, keepdims=True)
        else:
            if len(sample) < k * 5:
                continue
            cv2.setRNGSeed(k)
            _, _, centres = cv2.kmeans(  # type: ignore[call-overload]
                sample, k, None, criteria, 1, cv2.KMEANS_PP_CENTERS
            )
        owner = ((sample[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        score = float(
            np.mean([_part_quality(sample[owner == i], die, step) for i in range(len(centres))])
        )
        if score > best[0]:
            best = (score, centres)
    centres = best[1]
    if centres is None:
        return []
    owner = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
    off = np.array(offset, np.float32)
    return [points[owner == i] + off for i in range(len(centres))]


def find_dice(
    frame: np.ndarray,
    options: FinderOptions | None = None,
    valid: np.ndarray | None = None,
) -> list[DieRegion]:
    """Find every die in a BGR frame; ``valid`` (uint8, frame size) limits the search area.

    Returns the dice sorted top to bottom, left to right. Raises ``VisionError`` for a frame
    that is not an 8-bit BGR image.
    """
    check_frame(frame)
    options = options or FinderOptions()
    scale = working_scale(frame.shape, options)
    regions, die = _find_at(frame, options, valid, scale)
    # Without a calibrated size the working scale is a guess: dice that come out smaller
    # than SMALL_WORK_DIE working pixels (a wide view, a big frame), or none at all, are
    # looked for again at a finer scale, up to FINER_AT_MOST times the first one.
    limit = min(1.0, scale * FINER_AT_MOST)
    while options.die_size is None and scale < limit and (die is None or die < SMALL_WORK_DIE):
        step = 2.0 if die is None else GOOD_WORK_DIE / die
        scale = min(limit, scale * max(step, 1.25))
        regions, die = _find_at(frame, options, valid, scale)
    return regions


def _find_at(
    frame: np.ndarray, options: FinderOptions, valid: np.ndarray | None, scale: float
) -> tuple[list[DieRegion], float | None]:
    """``find_dice`` at one working scale: the regions and the die edge in working pixels."""
    if scale < 1.0:
        work = _shrink(frame, scale)
        if valid is not None:
            valid = cv2.resize(
                valid, (work.shape[1], work.shape[0]), interpolation=cv2.INTER_NEAREST
            )
    else:
        work = frame
    score = foreground_score(cv2.cvtColor(work, cv2.COLOR_BGR2YCrCb))
    mask = foreground_mask(score, options, valid)
    hint = options.die_size * scale if options.die_size else None
    mask = _clean(mask, hint)
    # Before the die size is known, strips a quarter of the frame long count as walls:
    # a tray rim would otherwise hide the dice inside it from the size estimate.
    quarter = int(min(mask.shape) * 0.25)
    full = (mask.shape[1], mask.shape[0])
    half = cv2.resize(mask, (full[0] // 2, full[1] // 2), interpolation=cv2.INTER_NEAREST)
    strips = _wall_strips(half, quarter)
    die = hint
    if die is None:
        walls = cv2.resize(strips, full, interpolation=cv2.INTER_NEAREST)
        walled = cv2.bitwise_and(mask, cv2.bitwise_not(walls))
        die = estimate_die_size(walled, options.min_die_px, walls)
    if die is None:
        return [], None
    die_area = die * die
    if die * 6 > quarter:
        # A column of touching dice can be a quarter of the frame long too; knowing the
        # die size, only strips six dice long are walls, and the shorter strips within
        # half a die of them (a quarter at half resolution) are their ends and the
        # tray's corners. Dice leaning on a wall lose at most that much.
        strips = _touching(strips, _wall_strips(half, int(die * 6)), int(die * 0.25))
    walls = cv2.resize(strips, full, interpolation=cv2.INTER_NEAREST)
    mask = cv2.bitwise_and(mask, cv2.bitwise_not(walls))
    # An opening with a disc of half a die cuts dice loose from thin tray walls, rims and
    # from each other where they only touch at an edge; dice themselves survive it.
    k = max(3, int(die * 0.5) | 1)
    mask = cv2.morphologyEx(
        mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    regions: list[DieRegion] = []
    for c in contours:
        area, aspect, fill = _squareness(c)
        n_dice = area / die_area
        if n_dice < 0.3 or math.sqrt(area) < options.min_die_px:
            continue
        if n_dice < 2.2 and _looks_single(area, aspect, fill):
            regions.append(_region_from_contour(c, scale, die))
            continue
        if n_dice > 40:
            continue  # a tray wall or a hand, not dice
        x, y, w, h = cv2.boundingRect(c)
        blob = np.zeros((h + 2, w + 2), np.uint8)
        cv2.drawContours(blob, [c - np.array([x - 1, y - 1])], -1, 255, thickness=cv2.FILLED)
        for part in _split(blob, die, (x - 1, y - 1)):
            if _part_quality(part, die) < 0.35:
                continue
            hull = cv2.convexHull(part.astype(np.float32))
            regions.append(_region_from_contour(hull, scale, die))
    regions.sort(key=lambda r: (round(r.center[1] / (die / scale)), r.center[0]))
    return regions, die
