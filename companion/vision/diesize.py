"""How a recogniser keeps the die size of a camera set-up from rests of dice: one measure
per rest, and which measure counts while they are few. The pip and Rock the Bock
recognisers both keep their die sizes so."""

from __future__ import annotations

import cv2
import numpy as np

# Until this many rests are measured the first one's size is kept: two that differ do not
# say which is right, and the scale should not swing between them. From then on, the
# median of the rests measured.
SIZE_AGREE = 3
# A frame that shows what the last frame measured showed (the runtime reads up to three
# frames of one rest) is not measured again, nor counted a second time: one rest is one
# measure (when its three frames counted as three, the first rest of an evening outvoted
# the next two and set the scale for about 50 reads). That also saves about 50 ms a frame
# on the first throw of an evening. Shrunk to ``SCENE_SIDE``
# pixels, frames of one rest differ by at most 3 grey levels at any pixel, frames of two
# rests by 98 and more (rendered evenings of bench_pi); one die moved is a new scene.
SCENE_SIDE = 160
SAME_SCENE = 24


def scene(frame: np.ndarray) -> np.ndarray:
    """``frame`` in grey, shrunk to ``SCENE_SIDE`` pixels along its longer side, to tell
    whether two frames show the same (``same_scene``)."""
    h, w = frame.shape[:2]
    factor = SCENE_SIDE / max(w, h)
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.int16)


def same_scene(last: np.ndarray | None, now: np.ndarray) -> bool:
    """Whether the ``scene`` ``now`` shows what ``last`` (None: nothing yet) showed."""
    return last is not None and last.shape == now.shape and (
        int(np.abs(now - last).max()) <= SAME_SCENE
    )


def kept(seen: list[float]) -> float | None:
    """The die size the measures ``seen`` (oldest first) give: the first until
    ``SIZE_AGREE`` are there, then their median."""
    if not seen:
        return None
    return seen[0] if len(seen) < SIZE_AGREE else float(np.median(seen))
