"""Tell whether anything that is not a die lies in the tray: hand, arm, cup, coaster, shadow.

Works on the settle detector's small, blurred frames. The reference is the tray as it
looked at the last clean rest (the first frame until then). A pixel is *foreground*
when it differs from the reference by more than ``level`` and does not look like the
bare floor (so a spot an occluder leaves, or a die left, turns back into floor).
Where the picture changed only mildly (more than ``soft_level`` averaged over about a
die) it is foreground too, floor-like or not: a hand the colour of the floor.
Foreground is grouped into blobs; dice make blobs of about a die's area (a few when
they touch), anything else is larger, or comes in over the tray's rim:

- a blob larger than ``max_dice_areas`` die areas blocks the rest;
- a blob touching the tray's rim larger than ``rim_dice_areas`` die areas blocks it
  (a hand or arm reaches in over the rim; a die lying against the wall is smaller);
- at a rest the recogniser read, foreground that no read die explains (nor a die of
  the last rest, whose spot is now empty) blocks it when one blob of it is larger
  than ``unexplained_dice_areas`` (a coaster or phone that is small enough to pass
  the first test, next to the dice).

A round blob the size of a dice cup (``CUP_EDGES`` die edges across) whose middle is
no lighter than the floor (below 110 % of its brightness: leather, dark or coloured
plastic) is a dice cup upside down over the dice: the tray is *covered*. A lighter
round thing of that size is a coaster (white or cream cardboard), an occluder like any
other. The rule cannot tell a white cup from a coaster (it is then only an occluder),
nor a dark round beer mat from a cup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.tray import TrayProfile
from companion.vision.types import Reading, VisionError

# A die's edge as a share of the frame's longer side when no profile gives it: the
# camera is set up to frame the tray, where a 16 mm die is ~5.5 % of the picture
# (tray-a's photos: 0.044-0.08; rendered throws: 0.045-0.062).
DEFAULT_DIE_SHARE = 0.055
# A dice cup (leather or plastic, 7-10 cm across) seen from above, in die edges (16 mm).
CUP_EDGES = (3.5, 9.0)
HAND = "hand in the tray"
THING = "something in the tray"
CUP = "cup over the dice"
SHADOW = "shadow over the tray"


@dataclass(frozen=True)
class TrayState:
    """What lies in the tray besides dice: ``blocked`` with a ``reason``, ``covered`` by a cup."""

    blocked: bool = False
    reason: str = ""
    covered: bool = False


CLEAR = TrayState()


class OcclusionDetector:
    """Find non-dice things in the tray on small frames (see the module's docstring)."""

    def __init__(
        self,
        profile: TrayProfile | None = None,
        level: int = 30,
        floor_level: int = 30,
        soft_level: int = 12,
        max_dice_areas: float = 8.0,
        rim_dice_areas: float = 3.5,
        unexplained_dice_areas: float = 2.5,
    ) -> None:
        if level <= 0 or floor_level <= 0:
            raise VisionError("occlusion levels must be positive")
        self.profile = profile
        self.level = level
        self.floor_level = floor_level
        self.soft_level = soft_level
        self.max_dice_areas = max_dice_areas
        self.rim_dice_areas = rim_dice_areas
        self.unexplained_dice_areas = unexplained_dice_areas
        self.die_edge: float | None = None  # in frame pixels, from profile or readings
        self.reset()

    def reset(self) -> None:
        """Forget the reference and the tray geometry (a new frame size, a new camera)."""
        self._reference: np.ndarray | None = None
        self._floor: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._rim: np.ndarray | None = None
        self._scale = 1.0  # small pixels per frame pixel
        self._frame_size: tuple[int, int] | None = None
        self.die_edge = None if self.profile is None else self.profile.die_size

    def start(self, small: np.ndarray, frame_size: tuple[int, int]) -> None:
        """Take the first frame of a stream as the reference (and the floor's colour when
        there is no profile), unless one is set for frames of this size already."""
        if self._reference is None or self._reference.shape != small.shape:
            self._setup(small, frame_size)

    def _setup(self, small: np.ndarray, frame_size: tuple[int, int]) -> None:
        h, w = small.shape[:2]
        self._frame_size = frame_size
        self._scale = w / frame_size[0]
        if self.profile is not None:
            mask = self.profile.valid_mask(small.shape)
            floor = np.array(self.profile.floor_bgr, np.float32)
            if self.die_edge is not None:
                self.die_edge *= frame_size[0] / self.profile.frame_size[0]
        else:
            # Without a calibration the camera frames the tray: all but a thin margin.
            mask = np.zeros((h, w), np.uint8)
            m = max(1, round(0.02 * min(h, w)))
            mask[m : h - m, m : w - m] = 255
            centre = small[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4].reshape(-1, 3)
            floor = np.median(centre, axis=0).astype(np.float32)
        if self.die_edge is None:
            self.die_edge = DEFAULT_DIE_SHARE * max(frame_size)
        self._mask = mask
        self._rim = cv2.subtract(mask, cv2.erode(mask, np.ones((5, 5), np.uint8)))
        self._floor = np.full(small.shape, np.clip(floor, 0, 255), np.uint8)
        self._reference = small.copy()

    @property
    def die_area(self) -> float:
        """A die's top face in small-frame pixels (at least one pixel)."""
        edge = (self.die_edge or 1.0) * self._scale
        return max(edge * edge, 1.0)

    def foreground(self, small: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
        """uint8 mask (255) of what differs from the reference and is not bare floor."""
        if self._reference is None or self._reference.shape != small.shape:
            self._setup(small, frame_size)
        assert self._reference is not None and self._floor is not None
        assert self._mask is not None
        diff = cv2.absdiff(small, self._reference).max(axis=2)
        unlike_floor = cv2.absdiff(small, self._floor).max(axis=2) > self.floor_level
        # A hand the floor's colour (brown skin on a wooden tray) changes the picture only
        # a little, but over a large area: a milder change, averaged over about a die.
        k = max(3, round(math.sqrt(self.die_area)) | 1)
        mild = (cv2.blur(diff, (k, k)) > self.soft_level) & (diff > self.soft_level // 2)
        fg = ((diff > self.level) & unlike_floor | mild).view(np.uint8) * np.uint8(255)
        return cv2.bitwise_and(fg, self._mask)

    def check(self, small: np.ndarray, frame_size: tuple[int, int]) -> TrayState:
        """Is the tray blocked by something that is not a die, or covered by a cup?"""
        fg = self.foreground(small, frame_size)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        if n <= 1:
            return CLEAR
        areas = stats[1:, cv2.CC_STAT_AREA] / self.die_area
        big = int(np.argmax(areas)) + 1
        blob_rim = None
        if areas[big - 1] > self.rim_dice_areas:
            assert self._rim is not None
            on_rim = np.unique(labels[self._rim > 0])
            blob_rim = [i for i in on_rim if i and areas[i - 1] > self.rim_dice_areas]
        if blob_rim:
            blob = np.isin(labels, blob_rim)
            return TrayState(True, SHADOW if self._is_shadow(small, blob) else HAND)
        if areas[big - 1] > self.max_dice_areas:
            blob = (labels == big).view(np.uint8)
            if self._is_cup(small, blob, stats[big]):
                return TrayState(True, CUP, covered=True)
            return TrayState(True, THING)
        return CLEAR

    def _is_shadow(self, small: np.ndarray, blob: np.ndarray) -> bool:
        """The blob is the reference, only darker by the same share in every channel."""
        assert self._reference is not None
        now = small[blob].astype(np.float32).mean(axis=0) + 1.0
        before = self._reference[blob].astype(np.float32).mean(axis=0) + 1.0
        ratio = now / before
        return bool(ratio.max() < 0.85 and ratio.max() - ratio.min() < 0.08)

    def _is_cup(self, small: np.ndarray, blob: np.ndarray, stat: np.ndarray) -> bool:
        assert self._floor is not None
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        outline = max(contours, key=cv2.contourArea)
        (cx, cy), radius = cv2.minEnclosingCircle(outline)
        edge = math.sqrt(self.die_area)
        if not CUP_EDGES[0] <= 2 * radius / edge <= CUP_EDGES[1]:
            return False
        # The outline, holes filled: the cup's lighter top may look like the floor.
        round_enough = cv2.contourArea(outline) / (math.pi * radius * radius) > 0.6
        # The middle of the circle: the cup's top, not its shadow on the floor beside it.
        core = np.zeros(blob.shape, np.uint8)
        cv2.circle(core, (round(cx), round(cy)), max(1, round(radius * 0.5)), 1, -1)
        inside = cv2.mean(small, mask=core)[:3]
        not_light = sum(inside) / 3 < 1.1 * float(self._floor[0, 0].astype(np.float32).mean())
        return bool(round_enough and not_light)

    def unexplained(
        self,
        small: np.ndarray,
        frame_size: tuple[int, int],
        reading: Reading,
        before: Reading | None = None,
    ) -> TrayState:
        """Foreground that no die of ``reading`` (nor of the last rest, ``before``) explains."""
        fg = self.foreground(small, frame_size)
        if reading.dice:
            self.die_edge = float(np.median([d.region.size for d in reading.dice]))
        for rd in (reading, before):
            if rd is None:
                continue
            for die in rd.dice:
                x, y = die.region.center
                r = round(0.85 * die.region.size * self._scale) + 1
                cv2.circle(fg, (round(x * self._scale), round(y * self._scale)), r, 0, -1)
        n, _, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        if n > 1 and stats[1:, cv2.CC_STAT_AREA].max() / self.die_area > (
            self.unexplained_dice_areas
        ):
            return TrayState(True, THING)
        return CLEAR

    def learn(self, small: np.ndarray) -> None:
        """Take ``small`` (a clean rest) as the reference the next frames are compared with."""
        if self._reference is not None and self._reference.shape == small.shape:
            self._reference = small.copy()
