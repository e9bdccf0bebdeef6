"""The Raspberry Pi camera through picamera2: a main stream for reading, a lores one for
settle detection, exposure and white balance locked once settled.

picamera2 exists on the Pi only (apt's ``python3-picamera2``) and is imported when the
camera is opened; tests hand in a fake that follows its API.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from companion.hardware.exposure import ExposureLock
from companion.hardware.frames import CameraError, Frame, check_frame

LORES_WIDTH = 320
MAIN_WIDTH_MAX = 2028  # HQ camera's 2x2-binned mode; larger frames cost memory, not accuracy


def pick_sensor_mode(modes: Sequence[dict[str, Any]], fps: float) -> dict[str, Any] | None:
    """The sensor mode with the most pixels that still runs at ``fps``; None if none does."""
    fast = [m for m in modes if float(m.get("fps", 0)) >= fps and m.get("size")]
    if not fast:
        return None
    return max(fast, key=lambda m: (m["size"][0] * m["size"][1], -int(m.get("bit_depth", 0))))


def fit_width(size: tuple[int, int], width: int) -> tuple[int, int]:
    """``size`` scaled down to at most ``width`` wide, both sides even (the ISP wants that)."""
    w, h = float(size[0]), float(size[1])
    if w > width:
        w, h = width, h * width / w
    return int(w) // 2 * 2, int(round(h)) // 2 * 2


class PiCameraSource:
    """The Raspberry Pi camera through picamera2 (installed with apt on the Pi).

    Two streams of the same picture: ``main``, as large as the fastest sensor mode that
    keeps ``fps`` allows (at most ``MAIN_WIDTH_MAX`` wide), for reading the dice, and a
    small ``lores`` one (``LORES_WIDTH`` wide) for settle detection. Exposure and white
    balance run automatically for the first frames, then are locked (see
    :class:`ExposureLock`); :meth:`remeasure` starts that again. picamera2 keeps only the
    newest finished frame, so a slow reader never works through a backlog.
    """

    def __init__(
        self,
        size: tuple[int, int] | None = None,
        picamera2: Any = None,
        *,
        fps: float = 15.0,
        max_exposure_us: int = 10000,
    ) -> None:
        import cv2

        self._cv2 = cv2
        if picamera2 is None:
            try:
                from picamera2 import Picamera2  # type: ignore[import-not-found]
            except ImportError:
                raise CameraError(
                    "picamera2 is not installed: on the Pi run 'sudo apt install python3-picamera2'"
                    " and create the venv with --system-site-packages"
                ) from None
            try:
                picamera2 = Picamera2()
            except (IndexError, RuntimeError) as exc:  # no camera attached or in use
                raise CameraError(f"the Pi camera could not be opened: {exc}; is the ribbon "
                                  "cable seated and no other program using it?") from None
        self._cam = picamera2
        mode = pick_sensor_mode(getattr(self._cam, "sensor_modes", None) or [], fps)
        if size is None:
            size = fit_width(mode["size"], MAIN_WIDTH_MAX) if mode else (1280, 960)
        main = fit_width(size, MAIN_WIDTH_MAX)
        self.size = main
        self.lores_size = fit_width(main, LORES_WIDTH)
        self.fps = fps
        frame_us = int(1_000_000 / fps)
        config = self._cam.create_video_configuration(
            # "RGB888" in picamera2 is stored B, G, R per pixel: exactly what OpenCV expects.
            main={"size": main, "format": "RGB888"},
            # YUV420 is the lores format every Pi model can produce.
            lores={"size": self.lores_size, "format": "YUV420"},
            raw={"size": tuple(mode["size"])} if mode else {},
            buffer_count=3,
            controls={"FrameDurationLimits": (frame_us, frame_us)},
        )
        self._cam.configure(config)
        self.exposure = ExposureLock(max_exposure_us)
        self._cam.start()
        self.remeasure()

    def remeasure(self) -> None:
        """Switch automatic exposure and white balance on; lock them again once settled."""
        self._cam.set_controls({"AeEnable": True, "AwbEnable": True})
        self.exposure.restart()

    def read(self) -> Frame | None:
        """Capture one frame (both streams) and copy it out before the buffer goes back."""
        with self._cam.captured_request() as request:
            image = np.array(request.make_array("main"), copy=True)
            yuv = request.make_array("lores")
            metadata = request.get_metadata()
        # cvtColor writes a new array: nothing of the camera's buffer is kept.
        lores = self._cv2.cvtColor(yuv, self._cv2.COLOR_YUV2BGR_I420)
        if self.exposure.measuring and "ExposureTime" in metadata:
            controls = self.exposure.feed(
                metadata["ExposureTime"], metadata.get("AnalogueGain", 1.0),
                tuple(metadata.get("ColourGains", (1.0, 1.0))),
            )
            if controls is not None:
                self._cam.set_controls(controls)
        return Frame(check_frame(image, "picamera"), time.monotonic(), "picamera", lores)

    def close(self) -> None:
        """Stop and release the camera."""
        self._cam.stop()
        self._cam.close()
