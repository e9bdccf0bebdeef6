"""The tray seen from straight above at the nets' scale, and the way back to the frame.

A camera over a pub tray sees the tray as one part of a larger frame, a little at a slant,
with dice anywhere from 20 to 120 pixels across. The nets were made for the tray photos
of ``tray-a``: the tray floor edge to edge, seen from above, dice about ``CANON_DIE``
pixels across. A ``TrayView`` is the 3x3 homography from frame pixels to such a view:

- with a tray profile, the tray polygon's four corners go to the corners of a rectangle
  whose sides keep the polygon's proportions, scaled so a die of the profile's size
  becomes ``CANON_DIE`` pixels: slant, turn, tray size and place in the frame are undone,
  and nothing outside the tray is in the view (``for_tray``);
- without a profile, the whole frame scaled so an estimated die becomes ``CANON_DIE``
  pixels (``scaled``).

``warp`` cuts the view out of a frame (shrinking with area averaging first where the
view is much smaller than the frame, as a sensor would); ``region_to_frame`` maps a die
found in the view back to frame pixels for the annotated picture and the dashboard.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.vision.types import Die, DieRegion, VisionError

if TYPE_CHECKING:
    from companion.vision.tray import TrayProfile

# Die edge, in view pixels, as the pip spotter and the classical finder report it (their
# outline takes in the side walls): the median on the tray-a photos the nets were trained
# on (spotter 29.4, finder 30.6 on the even-index photos at their 640 pixels).
CANON_DIE = 30.0
# A view is never made longer than this (a tray calibrated with a tiny die size would
# otherwise become enormous); the dice are then smaller than canonical.
MAX_VIEW_SIDE = 1600
# A view smaller than this share of the frame is cut from a halved frame (and so on):
# straightening a 1920x1080 frame to 0.54 of its scale took 3.2 ms read directly and
# 1.0 ms halved first, on one thread.
HALVE_BELOW = 0.75


@dataclass(frozen=True)
class TrayView:
    """A homography from frame pixels to a top-down view of ``size`` (w, h) pixels."""

    matrix: np.ndarray  # 3x3, frame -> view
    size: tuple[int, int]
    frame_size: tuple[int, int]  # (w, h) of the frames it is made for
    scale: float  # view pixels per frame pixel near the tray's centre

    @classmethod
    def scaled(cls, frame_size: tuple[int, int], scale: float) -> TrayView:
        """The whole frame, scaled by ``scale`` (no profile: nothing to straighten)."""
        w, h = frame_size
        longest = max(w, h) * scale
        if longest > MAX_VIEW_SIDE:
            scale *= MAX_VIEW_SIDE / longest
        size = (max(8, round(w * scale)), max(8, round(h * scale)))
        sx, sy = size[0] / w, size[1] / h
        matrix = np.array([[sx, 0, 0], [0, sy, 0], [0, 0, 1]], np.float64)
        return cls(matrix, size, (w, h), math.sqrt(sx * sy))

    @classmethod
    def for_tray(
        cls,
        corners: tuple[tuple[float, float], ...],
        frame_size: tuple[int, int],
        die_size: float | None,
    ) -> TrayView:
        """The tray polygon (four corners, clockwise from top-left, frame pixels) seen
        from above, so a die of ``die_size`` frame pixels becomes ``CANON_DIE`` pixels
        (``die_size`` None: the tray keeps its size in the frame)."""
        if len(corners) != 4:
            raise VisionError(
                f"straightening the tray needs its four corners, the profile has {len(corners)}"
            )
        q = np.array(corners, np.float64)
        top, bottom = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3])
        left, right = np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1])
        width, height = (top + bottom) / 2.0, (left + right) / 2.0
        if min(width, height) < 8:
            raise VisionError("the tray's corners enclose almost no area; calibrate again")
        scale = 1.0 if not die_size else CANON_DIE / die_size
        scale = min(scale, MAX_VIEW_SIDE / float(max(width, height)))
        size = (max(8, round(width * scale)), max(8, round(height * scale)))
        target = np.array(
            [[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32
        )
        matrix = cv2.getPerspectiveTransform(q.astype(np.float32), target).astype(np.float64)
        return cls(matrix, size, frame_size, scale)

    def zoomed(self, factor: float) -> TrayView:
        """The same view ``factor`` times as many pixels across (the frame straight to a
        smaller view, instead of this view shrunk afterwards)."""
        size = (max(8, round(self.size[0] * factor)), max(8, round(self.size[1] * factor)))
        fx, fy = size[0] / self.size[0], size[1] / self.size[1]
        matrix = np.array([[fx, 0, 0], [0, fy, 0], [0, 0, 1]], np.float64) @ self.matrix
        return TrayView(matrix, size, self.frame_size, self.scale * math.sqrt(fx * fy))

    @functools.cached_property
    def is_identity(self) -> bool:
        """True when the view is the frame itself (nothing to warp or map back)."""
        return self.size == self.frame_size and bool(np.allclose(self.matrix, np.eye(3)))

    @functools.cached_property
    def inverse(self) -> np.ndarray:
        """The 3x3 homography from view pixels back to frame pixels."""
        return np.linalg.inv(self.matrix)

    def warp(self, frame: np.ndarray) -> np.ndarray:
        """The view cut out of ``frame`` (BGR uint8 of ``frame_size``)."""
        h, w = frame.shape[:2]
        if (w, h) != self.frame_size:
            raise VisionError(
                f"this tray view is for {self.frame_size[0]}x{self.frame_size[1]} frames,"
                f" got {w}x{h}"
            )
        matrix = self.matrix
        source = frame
        if self.scale <= HALVE_BELOW:
            # Only the part of the frame the view needs, halved with area averaging (OpenCV's
            # fast path) while the warp would still shrink it by more than 1/HALVE_BELOW:
            # bilinear sampling alone would alias the pips away, and a warp that reads a
            # whole large frame costs more than halving it first.
            vw, vh = self.size
            box = self.points_to_frame(np.array([[0, 0], [vw, 0], [vw, vh], [0, vh]]))
            x0 = max(0, int(math.floor(box[:, 0].min())) - 2)
            y0 = max(0, int(math.floor(box[:, 1].min())) - 2)
            x1 = min(w, int(math.ceil(box[:, 0].max())) + 2)
            y1 = min(h, int(math.ceil(box[:, 1].max())) + 2)
            # Even sides keep every halving exact, on OpenCV's fast path (an odd side makes
            # area averaging take its general path, ten times slower).
            x0, x1 = _even_span(x0, x1, w)
            y0, y1 = _even_span(y0, y1, h)
            source = frame[y0:y1, x0:x1]
            f = 1.0
            while self.scale <= f * HALVE_BELOW and min(source.shape[:2]) >= 16:
                source = cv2.resize(
                    source, (source.shape[1] // 2, source.shape[0] // 2),
                    interpolation=cv2.INTER_AREA,
                )
                f /= 2
            fx, fy = source.shape[1] / (x1 - x0), source.shape[0] / (y1 - y0)
            to_source = np.array([[fx, 0, -x0 * fx], [0, fy, -y0 * fy], [0, 0, 1]], np.float64)
            matrix = self.matrix @ np.linalg.inv(to_source)
        if np.allclose(matrix[2], (0, 0, 1)) and np.allclose(matrix[0, 1], 0) and np.allclose(
            matrix[1, 0], 0
        ):
            return cv2.warpAffine(
                source, matrix[:2], self.size, flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
        return cv2.warpPerspective(
            source, matrix, self.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )

    def points_to_frame(self, points: np.ndarray) -> np.ndarray:
        """View pixel coordinates (N, 2) to frame pixel coordinates."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.inverse).reshape(-1, 2)

    def region_to_frame(self, region: DieRegion) -> DieRegion:
        """A die's region found in the view, in frame pixels (centre, corners, edge, turn)."""
        pts = self.points_to_frame(np.array([region.center, *region.corners]))
        centre, corners = pts[0], pts[1:]
        edges = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
        dx, dy = corners[1] - corners[0]
        angle = math.degrees(math.atan2(dy, dx)) % 90.0
        return DieRegion(
            center=(float(centre[0]), float(centre[1])),
            size=float(edges.mean()),
            angle=float(angle),
            corners=tuple((float(x), float(y)) for x, y in corners),
            confidence=region.confidence,
        )

    def die_to_frame(self, die: Die) -> Die:
        """A die read in the view, with its region in frame pixels."""
        if self.is_identity:
            return die
        return replace(die, region=self.region_to_frame(die.region))


def _even_span(lo: int, hi: int, limit: int) -> tuple[int, int]:
    """``lo``..``hi`` (within 0..``limit``) widened by at most a few pixels to a length
    divisible by 8, so three halvings stay exact."""
    while (hi - lo) % 8:
        if hi < limit:
            hi += 1
        elif lo > 0:
            lo -= 1
        else:
            break
    return lo, hi


@functools.lru_cache(maxsize=16)
def tray_view(
    profile: TrayProfile, frame_size: tuple[int, int], die_size: float | None
) -> TrayView:
    """``TrayView.for_tray`` of a profile's four corners, for frames of ``frame_size`` (the
    corners scaled when the profile was made at another size). Cached: the same few frame
    sizes come again and again, and each tray is straightened once."""
    return TrayView.for_tray(profile.corners_in(frame_size), frame_size, die_size)
