"""The tray of a camera nobody calibrated: found in the frame, kept while the frame shows it.

Without a calibration the recogniser would read the whole frame, and a camera that sees
a table, a cloth or a bar around the tray sees coasters, bottle caps and glasses that the
spotter and the pip net can take for dice; on a dark bar the frame's light also dims the
tray's own dice. ``TrayKeeper`` looks for the tray as ``companion calibrate tray`` does
(``trayfind.find_tray``) and, once a reading confirms it (``confirm``), hands it out as
the profile the frame is read in; when the best outline the finder has does not hold the
dice, its next best do (``trayfind.find_trays``: a printed menu's blank corner can
outscore the tray). The camera is fixed, so the tray is not looked for
again while its four sides are still where they were (the steps in brightness across
each side, a cheap check per frame: ``side_steps``); when they are not (the camera was
knocked, or the frames come from a hand-held phone), it is looked for again. A side
along the frame's border is not checked (nothing can be seen across it); a tray that
fills the frame, with no side to check, is looked for again every ``LOOK_EVERY`` frames.
Looking costs about 35 ms of a 1280x960 frame (``find_tray``), checking well under one.

A frame in which no tray is found, or in which the reading says the tray found is not
where the dice are, is read whole, and the keeper looks again only every ``LOOK_EVERY``
frames: a camera that sees nothing but the tray floor has nothing around it to mistake
for dice. A whole frame that shows more places or dice than a throw has is a cluttered
table and is not read at all (``recognizer.CLUTTER_REGIONS``, ``Reading.cluttered``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import cv2
import numpy as np

from companion.vision.rectify import TrayView
from companion.vision.tray import TrayProfile
from companion.vision.trayfind import find_trays
from companion.vision.types import Die, Reading

Corners = tuple[tuple[float, float], ...]
# A frame that showed no tray is looked at again after this many frames of its size.
LOOK_EVERY = 50
# A tray found is widened by this many die edges all round (``TrayKeeper``): on the bare
# tray-a photos of a box the finder outlines the floor inside the box's sloping walls,
# and dice lying on a wall were cut off (validation photos: 3 more of 253 dice read
# wrong, 1 lost).
MARGIN = 1.0
# A tray found again with every corner within this share of the frame's diagonal of one
# confirmed before is the same tray; the last ``CONFIRMED_KEPT`` confirmed are kept.
SAME_PLACE = 0.02
CONFIRMED_KEPT = 8
# A dice tray is no strip: an outline whose sides, seen from above, differ more than
# this is something else (on the bare tray-a photos, a lit band along the paper's edge).
MAX_ASPECT = 3.0
# The side check works on the frame shrunk to this longer side. Across each side, at
# ``CHECK_POINTS`` points along it, it finds the steepest step in brightness within
# ``CHECK_REACH`` of the side's length (the found outline is off by up to 2 % of a side),
# and remembers where it lay. The tray is still in place when, at ``CHECK_SAME`` of the
# points where the step was at least ``CHECK_STEP`` grey levels per pixel, the steepest
# step is again at most a pixel from where it was, and at least ``CHECK_KEPT`` as steep
# (or half of ``CHECK_STEP``: the light may change). The steepest step need not be the
# tray's own outline -- inside a tray photo the box's wall can be steeper, outside a
# cloth's checks -- but with the camera fixed it stays where it was.
CHECK_SIDE = 640
CHECK_POINTS = 16
CHECK_REACH = 0.02
CHECK_STEP = 4.0
CHECK_SAME = 0.6
CHECK_KEPT = 0.3
# A tray found whose outline covers more than this share of the frame is no part of a
# wider scene (the rendered frames the Bock sets were measured on, a camera close over
# the tray; camera set-ups put the tray on 12-67 % of the frame): ``faces`` reads such a
# frame whole, and the settle detector watches it as it does without a calibration
# (``TrayKeeper.found_profile``).
FILLS = 0.75
# The floor's colour of a tray found (``floor_colour``) is the median inside its outline
# shrunk by this share of its smaller side (away from the walls), on at most
# ``FLOOR_SIDE`` pixels' side: a few dice on the floor do not move a median.
FLOOR_INSET = 0.08
FLOOR_SIDE = 200


def side_steps(frame: np.ndarray, corners: Corners) -> np.ndarray | None:
    """Where across each side of ``corners`` the steepest step in brightness lies, how
    steep it is and which way: (4, ``CHECK_POINTS``, 3) of (offset in shrunk pixels,
    levels per pixel, +1 when it grows brighter along the side's normal, else -1), NaN
    where a point's reach leaves the frame; None for a degenerate outline."""
    grey, factor = _check_grey(frame)
    sh, sw = grey.shape
    out = np.full((4, CHECK_POINTS, 3), np.nan)
    for i, (bases, normal, length) in enumerate(_side_points(corners, factor)):
        if length < 8:
            return None
        reach = max(2.0, round(CHECK_REACH * length))
        offsets = np.arange(-reach, reach + 1, 1.0)
        samples = bases[:, None, :] + offsets[None, :, None] * normal[None, None, :]
        inside = (
            (samples[..., 0].min(axis=1) >= 0) & (samples[..., 1].min(axis=1) >= 0)
            & (samples[..., 0].max(axis=1) <= sw - 2) & (samples[..., 1].max(axis=1) <= sh - 2)
        )
        if not inside.any():
            continue
        profiles = cv2.remap(grey, samples[inside][..., 0].astype(np.float32),
                             samples[inside][..., 1].astype(np.float32), cv2.INTER_LINEAR)
        signed = np.diff(profiles, axis=1)
        steps = np.abs(signed)
        k = np.argmax(steps, axis=1)
        out[i, inside, 0] = offsets[k] + 0.5
        out[i, inside, 1] = steps[np.arange(len(k)), k]
        out[i, inside, 2] = np.where(signed[np.arange(len(k)), k] >= 0, 1.0, -1.0)
    return out


def _check_grey(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame as ``side_steps`` looks at it (grey, blurred, at most ``CHECK_SIDE``
    across, float32) and the factor it was shrunk by."""
    h, w = frame.shape[:2]
    factor = min(1.0, CHECK_SIDE / max(w, h))
    small = frame
    if factor < 1.0:
        small = cv2.resize(frame, (round(w * factor), round(h * factor)),
                           interpolation=cv2.INTER_AREA)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
    return grey.astype(np.float32), factor


def _side_points(corners: Corners, factor: float
                 ) -> Iterator[tuple[np.ndarray, np.ndarray, float]]:
    """For each side of ``corners`` (scaled by ``factor``), its ``CHECK_POINTS`` points
    (from 15 to 85 % of its length), its normal and its length."""
    quad = np.array(corners, np.float64) * factor
    ts = np.linspace(0.15, 0.85, CHECK_POINTS)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / max(length, 1e-9)
        yield a[None, :] + (b - a)[None, :] * ts[:, None], np.array([-along[1], along[0]]), length


def find_shift(frame: np.ndarray, corners: Corners, sides: np.ndarray, reach: float
               ) -> tuple[float, float] | None:
    """The shift (frame pixels, at most ``reach`` each way) that puts the steps across
    the sides of ``corners`` back where ``sides`` (``side_steps`` of an earlier frame)
    had them: the camera or the tray moved since, and nothing of the earlier picture
    but those steps is at hand (a calibration's frame). Every shift is scored by how
    alike the steps where they lay, moved by it, are to what they were (as steep, the
    same way). The best one is taken when on every side with at least 4 steep points
    (three such sides at least) ``CHECK_SAME`` of them have a step the same way as
    steep as ``steps_match`` wants (``CHECK_KEPT``), at that shift or a shrunk pixel
    beside it; None when not."""
    grey, factor = _check_grey(frame)
    where, across, then, side_of = [], [], [], []
    for k, (side, (bases, normal, _)) in enumerate(
            zip(sides, _side_points(corners, factor), strict=True)):
        usable = ~np.isnan(side[:, 0]) & (side[:, 1] >= CHECK_STEP)
        where.append(bases[usable] + side[usable, :1] * normal[None, :])
        # The normal turned the way the step grows brighter: a step the other way, such
        # as the other edge of the tray's wall, is no match.
        across.append(normal[None, :] * side[usable, 2:3])
        then.append(side[usable, 1])
        side_of.append(np.full(int(usable.sum()), k))
    counts = [len(t) for t in then]
    if sum(c >= 4 for c in counts) < 3:
        return None
    points, normals, steep = np.concatenate(where), np.concatenate(across), np.concatenate(then)
    r = max(1, math.ceil(reach * factor))
    dy, dx = np.mgrid[-r : r + 1, -r : r + 1]
    dx, dy = dx.ravel().astype(np.float32), dy.ravel().astype(np.float32)
    xs = points[:, :1].astype(np.float32) + dx[None, :]
    ys = points[:, 1:].astype(np.float32) + dy[None, :]
    nx, ny = normals[:, :1].astype(np.float32) / 2, normals[:, 1:].astype(np.float32) / 2
    # The step across the side at each point, moved, the way it went: half a pixel
    # either side of it (a step the other way counts as none).
    now = np.maximum(_sampled(grey, xs + nx, ys + ny) - _sampled(grey, xs - nx, ys - ny), 0)
    # How alike the steps are, moved, to what they were: a tray's wall has two edges
    # along each side, and the shift by its width puts the other one where the first
    # lay, the other way or seldom as steep.
    score = (np.minimum(now, steep[:, None]) / np.maximum(now, steep[:, None])).mean(axis=0)
    best = int(np.lexsort((np.hypot(dx, dy), -score))[0])
    # The steps were found at whole shrunk pixels; the shift need not be one.
    near = (np.abs(dx - dx[best]) <= 1) & (np.abs(dy - dy[best]) <= 1)
    need = np.maximum(CHECK_KEPT * steep, CHECK_STEP / 2)
    kept = (now[:, near] >= need[:, None]).any(axis=1)
    labels = np.concatenate(side_of)
    for k, count in enumerate(counts):
        if count >= 4 and kept[labels == k].mean() < CHECK_SAME:
            return None
    return (float(dx[best]) / factor, float(dy[best]) / factor)


def _sampled(grey: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """``grey`` at the points (``xs``, ``ys``: float32 of one shape), bilinear, its edge
    repeated beyond it (in rows of 1024: ``cv2.remap`` takes no side over 32767)."""
    n = xs.size
    rows = -(-n // 1024)
    mx = np.zeros(rows * 1024, np.float32)
    my = np.zeros(rows * 1024, np.float32)
    mx[:n], my[:n] = xs.ravel(), ys.ravel()
    out = cv2.remap(grey, mx.reshape(rows, 1024), my.reshape(rows, 1024), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.ravel()[:n].reshape(xs.shape)


def steps_match(before: np.ndarray, now: np.ndarray | None) -> bool:
    """Whether the steps across the sides (``side_steps``) are where they were."""
    return now is not None and not sides_moved(before, now)


def sides_moved(before: np.ndarray, now: np.ndarray | None) -> tuple[int, ...]:
    """The sides (0 to 3, from corner k to corner k + 1) whose steps (``side_steps``) are
    not where they were (every side when there is no outline now); a side along the
    frame's border is never among them, one with too few steep points to check always."""
    if now is None:
        return tuple(range(len(before)))
    moved = []
    for side in range(len(before)):
        then, seen = before[side], now[side]
        if not _checkable(then):
            continue
        usable = ~np.isnan(then[:, 0]) & (then[:, 1] >= CHECK_STEP)
        if usable.sum() < 4:
            moved.append(side)
            continue
        same = (np.abs(seen[usable, 0] - then[usable, 0]) <= 1.0) & (
            seen[usable, 1] >= np.maximum(CHECK_KEPT * then[usable, 1], CHECK_STEP / 2)
        )
        if same.mean() < CHECK_SAME:
            moved.append(side)
    return tuple(moved)


def moved_across(sides: Sequence[int]) -> bool:
    """Whether the sides that moved (``sides_moved``) say the tray moved in the picture:
    three of them, or two opposite ones. A tray moved straight along two of its sides
    moves the other two; a hand or an arm over the tray's rim covers one side, or two
    beside each other at a corner."""
    moved = set(sides)
    return len(moved) >= 3 or {0, 2} <= moved or {1, 3} <= moved


def _checkable(side: np.ndarray) -> bool:
    """Whether a side's steps (one side of ``side_steps``) can be checked: a side along
    the frame's border has its reach outside the frame at nearly every point. Nothing
    there can be checked, and the camera moving would show at the other sides."""
    return int((~np.isnan(side[:, 0])).sum()) >= 4


def checkable_sides(steps: np.ndarray) -> int:
    """How many sides of a tray's outline (``side_steps``) lie inside the frame."""
    return sum(_checkable(side) for side in steps)


class TrayKeeper:
    """Finds the tray in frames of a camera without calibration and keeps it while it stays.

    ``confirm(frame, profile)`` is asked once for each tray found: the recogniser reads
    the frame with and without it and says whether it holds the dice, with the dice's
    edge in frame pixels (None: it does not). The tray is then widened by ``MARGIN``
    edges all round: the finder may outline the floor inside sloping walls, and a die
    lying on a wall is still in the tray. One keeper serves one camera; frames of
    another size are kept apart.
    """

    def __init__(self, confirm: Callable[[np.ndarray, TrayProfile], float | None]) -> None:
        self.confirm = confirm
        self._trays: dict[tuple[int, int], TrayProfile | None] = {}
        # What the check looks at: the outline as found (the tray handed out is wider)
        # and the steps across its sides then.
        self._outlines: dict[tuple[int, int], Corners] = {}
        self._steps: dict[tuple[int, int], np.ndarray] = {}
        self._confirmed: list[tuple[TrayProfile, float]] = []
        self._since: dict[tuple[int, int], int] = {}
        # The die's edge each kept tray was confirmed by, and its profile for the settle
        # detector (``found_profile``), worked out once per tray kept.
        self._edges: dict[tuple[int, int], float] = {}
        self._profiles: dict[tuple[int, int], tuple[TrayProfile, TrayProfile]] = {}
        # The finder's best outline at the last look that found no tray holding dice
        # (``unconfirmed``).
        self._unconfirmed: dict[tuple[int, int], Corners] = {}
        self.finds = 0  # how often the tray was looked for (for tests and the bench)

    def __repr__(self) -> str:
        return f"TrayKeeper(trays={len(self._trays)}, finds={self.finds})"

    def tray(self, frame: np.ndarray, look: bool = False) -> TrayProfile | None:
        """The tray to read ``frame`` in, or None to read the whole frame. With ``look``,
        a frame size without a tray kept is looked at now, not after ``LOOK_EVERY``."""
        h, w = frame.shape[:2]
        key = (w, h)
        if key in self._trays:
            kept = self._trays[key]
            self._since[key] = self._since.get(key, 0) + 1
            if kept is not None and steps_match(
                self._steps[key], side_steps(frame, self._outlines[key])
            ):
                # A tray that fills the frame has no side to check: kept, and looked
                # for again every ``LOOK_EVERY`` frames, as a frame without a tray is.
                if checkable_sides(self._steps[key]) or self._since[key] < LOOK_EVERY:
                    return kept
            elif kept is None and self._since[key] < LOOK_EVERY and not look:
                return None
        self._since[key] = 0
        self.finds += 1
        self._unconfirmed.pop(key, None)
        best: Corners | None = None
        for found in _looks(frame):
            steps = side_steps(frame, found.corners)
            if steps is None:
                continue
            if best is None:
                best = found.corners
            edge = self._confirmed_edge(found) or self.confirm(frame, found)
            if edge is not None:
                break
        else:
            self._trays[key] = None
            if best is not None and not _covers(best, key):
                self._unconfirmed[key] = best
            return None
        self._confirmed.append((found, edge))
        del self._confirmed[:-CONFIRMED_KEPT]
        self._steps[key] = steps
        self._outlines[key] = found.corners
        self._edges[key] = edge
        self._trays[key] = widened(found, MARGIN * edge)
        return self._trays[key]

    def forget(self, frame_size: tuple[int, int]) -> None:
        """Forget the tray kept for frames of ``frame_size`` and the trays confirmed in
        them: the next frame of that size is looked at afresh. For a tray under which no
        rest is ever clean (``ThrowWatcher``'s doubt): one confirmed by a beer mat's print
        read as a die, with that print's size for the die's."""
        self._trays.pop(frame_size, None)
        self._outlines.pop(frame_size, None)
        self._steps.pop(frame_size, None)
        self._since.pop(frame_size, None)
        self._edges.pop(frame_size, None)
        self._profiles.pop(frame_size, None)
        self._unconfirmed.pop(frame_size, None)
        self._confirmed = [(t, e) for t, e in self._confirmed if t.frame_size != frame_size]

    def fills(self, frame_size: tuple[int, int]) -> bool:
        """Whether the outline of the tray kept for frames of ``frame_size``, as found,
        covers more than ``FILLS`` of them."""
        outline = self.outline(frame_size)
        return outline is not None and _covers(outline, frame_size)

    def unconfirmed(self, frame_size: tuple[int, int]) -> Corners | None:
        """The finder's best outline at the last look at a frame of ``frame_size`` when no
        outline held the dice -- an empty tray holds none to confirm it by -- and it does
        not fill the frame (``FILLS``); else None. Not a tray to read in or to watch (it
        may be a sleeve lying in the tray): where the throw watcher looks again when that
        part of the picture changes (``ThrowWatcher.seen``)."""
        return self._unconfirmed.get(frame_size)

    def found_profile(self, frame: np.ndarray, look: bool = False) -> TrayProfile | None:
        """The tray kept for frames the size of ``frame`` as a calibration has it -- its
        outline as found (not widened: the occlusion check's rim is the floor's edge, and
        a wall or the table beyond it is no floor), the die's edge the reading confirmed
        it by, the floor's colour (``floor_colour``) -- for the settle detector to watch
        (``OcclusionDetector.adopt``); None when no tray is kept or it fills the frame
        (``FILLS``: without a calibration the settle detector takes the frame for the
        tray). Only what the reads found: nothing is looked for, so reading goes on as
        without it. With ``look``, a frame without a tray kept is looked at now
        (``tray``), not after ``LOOK_EVERY`` frames: a tray blocked at start-up by the
        table around it has been read nowhere yet."""
        key = (frame.shape[1], frame.shape[0])
        tray = self.tray(frame, look=True) if look else self._trays.get(key)
        if tray is None or self.fills(key):
            return None
        made = self._profiles.get(key)
        if made is None or made[0] is not tray:
            outline = self._outlines[key]
            made = (tray, replace(tray, corners=outline, die_size=self._edges[key],
                                  floor_bgr=floor_colour(frame, outline)))
            self._profiles[key] = made
        return made[1]

    def outline(self, frame_size: tuple[int, int]) -> Corners | None:
        """The tray's outline as the finder found it in frames of ``frame_size`` (the
        tray handed out by ``tray`` is ``MARGIN`` edges wider), or None."""
        if self._trays.get(frame_size) is None:
            return None
        return self._outlines.get(frame_size)

    def outline_of(self, tray: TrayProfile) -> Corners | None:
        """The outline as found of ``tray`` when it is the tray ``tray`` hands out now for
        its frame size, else None."""
        if self._trays.get(tray.frame_size) is not tray:
            return None
        return self._outlines.get(tray.frame_size)

    def _confirmed_edge(self, found: TrayProfile) -> float | None:
        """The die edge of a tray confirmed before in nearly the same place, if any: the
        camera is fixed, and one reading of a frame with more phantoms around the tray
        than dice in it should not undo what earlier frames showed."""
        w, h = found.frame_size
        near = SAME_PLACE * math.hypot(w, h)
        here = np.array(found.corners)
        for tray, edge in reversed(self._confirmed):
            if tray.frame_size == found.frame_size and np.abs(
                np.array(tray.corners) - here
            ).max() <= near:
                return edge
        return None


def _covers(outline: Corners, frame_size: tuple[int, int]) -> bool:
    """Whether ``outline`` covers more than ``FILLS`` of a ``frame_size`` frame."""
    area = cv2.contourArea(np.array(outline, np.float32))
    return area > FILLS * frame_size[0] * frame_size[1]


def floor_colour(frame: np.ndarray, corners: Corners) -> tuple[float, float, float]:
    """The tray floor's colour (B, G, R) in ``frame``: the median inside ``corners`` shrunk
    by ``FLOOR_INSET`` of the outline's smaller side, on the frame shrunk to at most
    ``FLOOR_SIDE`` pixels' side."""
    h, w = frame.shape[:2]
    factor = min(1.0, FLOOR_SIDE / max(w, h))
    small = cv2.resize(frame, (max(1, round(w * factor)), max(1, round(h * factor))),
                       interpolation=cv2.INTER_AREA)
    mask = np.zeros(small.shape[:2], np.uint8)
    quad = np.round(np.array(corners, np.float64) * factor).astype(np.int32)
    cv2.fillPoly(mask, [quad], 255)
    x, y, bw, bh = cv2.boundingRect(quad)
    k = 2 * round(FLOOR_INSET * min(bw, bh)) + 1
    inner = cv2.erode(mask, np.ones((k, k), np.uint8))
    if inner.any():
        mask = inner
    if not mask.any():
        return (128.0, 128.0, 128.0)
    b, g, r = (float(v) for v in np.median(small[mask > 0], axis=0))
    return (b, g, r)


def widened(tray: TrayProfile, by: float) -> TrayProfile:
    """``tray`` with each side moved ``by`` frame pixels outwards (measured in the tray
    seen from above, so a slanted tray widens evenly), its corners kept in the frame."""
    w, h = tray.frame_size
    view = TrayView.for_tray(tray.corners, tray.frame_size, None)
    vw, vh = view.size
    d = by * view.scale
    box = np.array([[-d, -d], [vw + d, -d], [vw + d, vh + d], [-d, vh + d]], np.float64)
    corners = view.points_to_frame(box)
    corners[:, 0] = np.clip(corners[:, 0], 0, w)
    corners[:, 1] = np.clip(corners[:, 1], 0, h)
    return replace(tray, corners=tuple((float(x), float(y)) for x, y in corners))


def _looks(frame: np.ndarray) -> Iterator[TrayProfile]:
    """The trays ``find_trays`` finds in ``frame``, best first, as profiles without a die
    size."""
    h, w = frame.shape[:2]
    for corners in find_trays(frame):
        view = TrayView.for_tray(corners, (w, h), None)
        if max(view.size) > MAX_ASPECT * min(view.size):
            continue  # a lit strip along the paper's edge, not a tray
        # The floor's colour is not needed to read dice; grey stands for it.
        yield TrayProfile((w, h), corners, None, (128.0, 128.0, 128.0))


def edges_outside(dice: Sequence[Die], corners: Corners, edge: float) -> list[float]:
    """How far each sure die of ``dice`` lies outside the outline ``corners``, in die
    edges of ``edge`` frame pixels (negative inside): what a recogniser weighs when it
    asks whether a tray found holds the dice of a frame read whole."""
    quad = np.array(corners, np.float32).reshape(-1, 1, 2)
    return [
        -cv2.pointPolygonTest(quad, d.region.center, True) / edge
        for d in dice if not d.uncertain
    ]


def with_tray_time(reading: Reading, started: float) -> Reading:
    """``reading`` with the time since ``started`` (``time.perf_counter``) that its stages
    do not account for -- finding or checking the tray -- as its ``tray`` stage."""
    timings = dict(reading.timings_ms)
    timings["tray"] = (time.perf_counter() - started) * 1000.0 - timings["total"]
    timings["total"] += timings["tray"]
    return replace(reading, timings_ms=timings)
