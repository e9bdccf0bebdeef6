"""What every frame source hands out: BGR frames with a timestamp, behind one protocol.

``Frame``, the ``FrameSource`` protocol the runtime reads, the two errors (a camera fault
ends a source, a bad frame is skipped) and the one check every source runs on a frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


class CameraError(RuntimeError):
    """The camera could not be opened or stopped delivering frames."""


class FrameError(ValueError):
    """One frame is unusable (unreadable file, wrong shape or type); skip it."""


@dataclass(frozen=True)
class Frame:
    """One picture of the tray and when it was taken (seconds, source clock)."""

    image: np.ndarray
    timestamp: float
    name: str = ""
    # A small BGR copy of the same moment (the Pi camera's lores stream), for settle
    # detection; None: settle detection shrinks ``image`` itself.
    lores: np.ndarray | None = None


class FrameSource(Protocol):
    """What the runtime needs from a camera."""

    def read(self) -> Frame | None:
        """The next frame, or None when a finite source is exhausted."""

    def close(self) -> None:
        """Release the device."""


def check_frame(image: object, name: str = "frame") -> np.ndarray:
    """Return ``image`` if it is a usable BGR frame, else raise :class:`FrameError`.

    The one check every source here runs on what it hands out; the message names the
    frame, what was wrong and what a usable frame is.
    """
    if not isinstance(image, np.ndarray):
        raise FrameError(f"{name}: expected an image array, got {type(image).__name__}; "
                         "the source delivered no picture")
    if image.dtype != np.uint8:
        raise FrameError(f"{name}: expected 8-bit pixels, got {image.dtype}; "
                         "frames must be 8-bit BGR colour images")
    if image.ndim != 3 or image.shape[2] != 3:
        raise FrameError(f"{name}: expected a colour image (h, w, 3), got shape {image.shape}; "
                         "set the camera to a BGR colour format")
    if image.shape[0] < 32 or image.shape[1] < 32:
        raise FrameError(f"{name}: image of {image.shape[1]}x{image.shape[0]} is too small; "
                         "frames must be at least 32x32 pixels")
    return image
