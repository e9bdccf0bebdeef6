"""Calibrating the tray from the dashboard while the companion runs.

The scorekeeper's phone shows the camera's latest raw frame (not the annotated one) with
the tray outline the companion proposes (``find_tray``), lets them move the four corners,
and saves. ``TraySetup`` is the running companion's side of that: it keeps the latest
raw frame (``watch`` wraps the camera source), proposes an outline, and on ``save``
checks the corners, makes the profile from the frame (die size and floor colour, as
``companion calibrate tray`` does), writes it atomically into the calibration file
(other sections, such as enrolled faces, are kept) and hands it to ``apply`` so the
recognisers are rebuilt with it at once. The dashboard reaches it through
``Table.tray_setup()`` and never touches cv2 itself. Enrolling the table's Rock the
Bock dice from the same frames and into the same file is ``faces``
(``companion.face_setup.FaceSetup``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from companion.face_setup import FaceSetup
from companion.hardware.camera import Frame, FrameSource
from companion.vision.tray import TrayProfile, TrayProfileError


class NoFrameYet(TrayProfileError):
    """The camera has not sent a frame to calibrate from."""


class _Watched:
    """A ``FrameSource`` that hands every frame on and keeps the latest for ``TraySetup``."""

    def __init__(self, source: FrameSource, setup: TraySetup) -> None:
        self._source = source
        self._setup = setup

    def read(self) -> Frame | None:
        frame = self._source.read()
        if frame is not None:
            self._setup.keep(frame.image)
        return frame

    def close(self) -> None:
        self._source.close()


class TraySetup:
    """The latest raw frame, a proposed tray outline, and saving a new calibration."""

    def __init__(
        self,
        path: Path | str,
        apply: Callable[[TrayProfile | None], None] | None = None,
        finder: str = "auto",
    ) -> None:
        self.path = Path(path)
        self._apply = apply
        self._finder = finder
        self._lock = threading.Lock()
        self._save_lock = threading.Lock()
        self._frame: np.ndarray | None = None
        self._jpeg: tuple[int, bytes] | None = None  # (id of the frame, its JPEG)
        self._frames = 0
        self.faces = FaceSetup(self)

    def __repr__(self) -> str:
        return f"TraySetup({str(self.path)!r}, finder={self._finder!r})"

    # -- frames ----------------------------------------------------------------

    def watch(self, source: FrameSource) -> FrameSource:
        """``source`` handing on its frames, the latest of which this keeps."""
        return _Watched(source, self)

    def keep(self, image: np.ndarray) -> None:
        """Remember ``image`` (a BGR frame) as the latest raw frame."""
        with self._lock:
            self._frame = image
            self._frames += 1

    def has_frame(self) -> bool:
        """Whether the camera has sent a frame yet."""
        with self._lock:
            return self._frame is not None

    def latest(self) -> tuple[np.ndarray, int]:
        """The latest raw frame and its number (frames counted since the start); raises
        ``NoFrameYet`` before the first."""
        with self._lock:
            if self._frame is None:
                raise NoFrameYet(
                    "the camera has not sent a picture yet; check that it is connected and"
                    " looks at the tray, then reload"
                )
            return self._frame, self._frames

    def frame_jpeg(self) -> bytes | None:
        """The latest raw frame as JPEG, or None before the first."""
        from companion.vision.annotate import to_jpeg

        try:
            frame, number = self.latest()
        except NoFrameYet:
            return None
        cached = self._jpeg
        if cached is not None and cached[0] == number:
            return cached[1]
        jpeg = to_jpeg(frame, quality=85)
        self._jpeg = (number, jpeg)
        return jpeg

    # -- proposing and saving --------------------------------------------------

    def current(self) -> TrayProfile | None:
        """The profile in the calibration file, or None when there is none (or it is broken)."""
        if not self.path.is_file():
            return None
        try:
            return TrayProfile.load(self.path)
        except TrayProfileError:
            return None

    def write(self, save: Callable[[Path], None]) -> None:
        """Change the calibration file with ``save`` (given its path) and rebuild the
        recognisers from it, one writer at a time (a tray saved while a face is
        enrolled keeps both)."""
        with self._save_lock:
            save(self.path)
            if self._apply is not None:
                self._apply(self.current())

    def proposal(self) -> dict[str, Any]:
        """What the page shows: the frame's size and the outline to start from.

        Keys: ``frame_size`` [w, h]; ``corners`` four [x, y] (clockwise from top-left);
        ``source``: ``found`` (the tray found in the latest frame), ``profile`` (the saved
        calibration, when the tray was not found) or ``guess`` (neither: a rectangle to
        drag into place); ``message`` saying which; ``current`` the saved corners or None.
        """
        from companion.vision.trayfind import TrayNotFound, find_tray

        frame, _ = self.latest()
        h, w = frame.shape[:2]
        current = self.current()
        saved = None
        if current is not None and current.frame_size == (w, h) and len(current.corners) == 4:
            saved = [[round(x, 1), round(y, 1)] for x, y in current.corners]
        try:
            corners = [[round(x, 1), round(y, 1)] for x, y in find_tray(frame)]
            source, message = "found", "tray found: check the corners, move any that are off, save"
        except TrayNotFound:
            if saved is not None:
                corners, source = saved, "profile"
                message = "tray not found in this picture: showing the saved outline"
            else:
                mx, my = 0.15 * w, 0.15 * h
                corners = [[mx, my], [w - mx, my], [w - mx, h - my], [mx, h - my]]
                source = "guess"
                message = "tray not found: tap its four corners"
        return {
            "frame_size": [w, h],
            "corners": corners,
            "source": source,
            "message": message,
            "current": saved,
        }

    def save(self, corners: object) -> dict[str, Any]:
        """Calibrate from the latest frame with ``corners``, write the file, apply it.

        ``corners`` are four [x, y] pairs of numbers in frame pixels, in any order (they
        are put clockwise from top-left). Raises ``TrayProfileError`` (a ``ValueError``)
        saying what is wrong, ``NoFrameYet`` without a frame; nothing is then written
        or applied.
        """
        from companion.vision.calibrate import (
            calibrate,
            check_corners,
            small_die,
            small_die_advice,
        )
        from companion.vision.trayfind import clockwise

        points = parse_corner_list(corners)
        frame, _ = self.latest()
        h, w = frame.shape[:2]
        # Tapped in any order: put clockwise from top-left first, then checked.
        ordered = check_corners(clockwise(np.array(points, np.float64)), (w, h))
        result = calibrate(frame, ordered, self._finder)
        # The companion reads with what the file holds (rounded), as after a restart.
        saved = TrayProfile.from_dict(result.profile.to_dict())
        self.write(saved.save)
        profile = saved.to_dict()
        size = profile["die_size"]
        message = f"saved to {self.path}; " + (
            "no die seen: put a few dice in the tray and save again"
            if size is None else f"die edge {size} px"
        )
        small = small_die(size)
        if small:
            message += f"; {small_die_advice(size)}"
        return {
            "profile": profile,
            "path": str(self.path),
            "die_method": result.die_method,
            "small_die": small,
            "message": message,
        }


def parse_corner_list(corners: object) -> tuple[tuple[float, float], ...]:
    """Four [x, y] pairs of numbers from JSON; raises ``TrayProfileError`` saying what is
    wrong (not a list of four, not pairs, not numbers)."""
    if not isinstance(corners, list | tuple) or len(corners) != 4:
        count = len(corners) if isinstance(corners, list | tuple) else "no list of"
        raise TrayProfileError(
            f"give exactly four corners as [x, y] pairs, got {count}",
            key="tray_four_corners", got=count,
        )
    out = []
    for point in corners:
        if not isinstance(point, list | tuple) or len(point) != 2:
            raise TrayProfileError(
                f"each corner must be an [x, y] pair, got {point!r}", key="tray_pair"
            )
        for v in point:
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise TrayProfileError(
                    f"corner coordinates must be numbers, got {v!r}", key="tray_numbers"
                )
        out.append((float(point[0]), float(point[1])))
    return tuple(out)
