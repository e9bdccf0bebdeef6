"""The demo's camera: thrown dice played as a camera would deliver them.

A :class:`~companion.hardware.camera.FrameSource` like the Pi camera, the webcam or a
replay, so the demo runs the companion's real camera path. Each throw is a few frames of
dice in motion, then the dice lying still for several frames; the frames come from
``next_throw`` (the demo renders them), asked for once the previous throw is played out,
so whoever supplies the throws sees the companion's reading of the last one first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from companion.hardware.camera import Frame, check_frame

__all__ = ["Throw", "ThrowSource"]


@dataclass(frozen=True)
class Throw:
    """One throw as a camera sees it: frames of the dice in motion, then the dice at rest."""

    moving: Sequence[np.ndarray]
    still: np.ndarray


class ThrowSource:
    """Frames of throw after throw, timestamped as a camera at ``1 / interval`` fps.

    Each throw shows its moving frames, then its still frame ``still_frames`` times; the
    next throw starts ``gap`` seconds after the previous one started. ``next_throw()``
    returns the next throw, or None to end the source (``read`` then returns None).
    """

    def __init__(
        self,
        next_throw: Callable[[], Throw | None],
        *,
        still_frames: int = 5,
        interval: float = 0.2,
        start: float = 0.0,
        gap: float = 10.0,
    ) -> None:
        if still_frames < 1 or interval <= 0 or gap <= 0:
            raise ValueError("a throw needs at least one still frame, interval and gap above 0")
        self._next_throw = next_throw
        self._still_frames = still_frames
        self._interval = interval
        self._gap = gap
        self._start = start - gap
        self._frames: list[np.ndarray] = []
        self._index = 0
        self._throws = 0
        self._ended = False

    def read(self) -> Frame | None:
        """The next frame of the current throw, asking for a new throw when it is played out."""
        if self._ended:
            return None
        if self._index >= len(self._frames):
            throw = self._next_throw()
            if throw is None:
                self._ended = True
                return None
            self._frames = [*throw.moving, *[throw.still] * self._still_frames]
            self._index = 0
            self._throws += 1
            self._start += self._gap
        name = f"throw{self._throws}-{self._index + 1}"
        # A copy, as a camera's every frame is its own picture: the still frame repeats.
        image = check_frame(self._frames[self._index], name).copy()
        stamp = self._start + self._index * self._interval
        self._index += 1
        return Frame(image, stamp, name)

    def close(self) -> None:
        """Nothing to release; the source ends."""
        self._ended = True
