"""Decide from a stream of frames when the dice are at rest.

Each frame is shrunk, blurred and compared with the previous one. While the share of
changed pixels is above ``motion_fraction`` the tray is "moving"; once it has stayed
below for ``still_seconds`` the dice are "at rest". A hand reaching into the tray is
movement too, so nothing is reported while it is there; and when the tray comes to rest
looking the same as at the last rest (a hand came and went, the dice did not move), the
rest is not reported as a new throw.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.types import VisionError

MOVING = "moving"
AT_REST = "at rest"


@dataclass(frozen=True)
class SettleEvent:
    """A change of state: ``state`` is MOVING or AT_REST; ``new_throw`` only on AT_REST."""

    state: str
    time: float
    new_throw: bool = False


class SettleDetector:
    """Feed frames with their timestamps; get a ``SettleEvent`` whenever the state changes."""

    def __init__(
        self,
        still_seconds: float = 0.5,
        motion_fraction: float = 0.002,
        change_level: int = 18,
        side: int = 160,
    ) -> None:
        if still_seconds < 0:
            raise VisionError(f"still_seconds must be ≥ 0, got {still_seconds}")
        if not 0 < motion_fraction < 1:
            raise VisionError(f"motion_fraction must be between 0 and 1, got {motion_fraction}")
        self.still_seconds = still_seconds
        self.motion_fraction = motion_fraction
        self.change_level = change_level
        self.side = side
        self.state = MOVING
        self._previous: np.ndarray | None = None
        self._still_since: float | None = None
        self._last_rest: np.ndarray | None = None

    def _small(self, frame: np.ndarray) -> np.ndarray:
        if frame.ndim != 3 or frame.dtype != np.uint8:
            raise VisionError(f"expected an 8-bit BGR frame, got {frame.dtype} {frame.shape}")
        h, w = frame.shape[:2]
        f = self.side / max(h, w)
        # Colour, not grey: a skin-toned hand over a grey tray can have the tray's lightness.
        small = cv2.resize(
            frame, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA
        )
        # Blur so sensor noise and JPEG blocks do not count as motion.
        return cv2.GaussianBlur(small, (5, 5), 0)

    def changed_fraction(self, a: np.ndarray, b: np.ndarray) -> float:
        """Share of pixels that differ by more than ``change_level`` between two small frames."""
        diff = cv2.absdiff(a, b).max(axis=2)
        return float(np.count_nonzero(diff > self.change_level)) / diff.size

    def update(self, frame: np.ndarray, now: float) -> SettleEvent | None:
        """Take the next frame (timestamp ``now`` in seconds); return an event on a change."""
        small = self._small(frame)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            self._still_since = now
            return None
        if self.changed_fraction(previous, small) > self.motion_fraction:
            self._still_since = now
            if self.state == AT_REST:
                self.state = MOVING
                return SettleEvent(MOVING, now)
            return None
        still_since = now if self._still_since is None else self._still_since
        if self.state == MOVING and now - still_since >= self.still_seconds:
            self.state = AT_REST
            new_throw = (
                self._last_rest is None
                or self.changed_fraction(self._last_rest, small) > self.motion_fraction
            )
            self._last_rest = small
            return SettleEvent(AT_REST, now, new_throw)
        return None
