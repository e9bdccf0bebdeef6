"""Frame sources: the Pi camera, a USB webcam, or recorded frames, behind one protocol.

Every source hands out BGR ``uint8`` frames of shape (h, w, 3) with a timestamp, so
recognition cannot tell a live camera from a replay. picamera2 and cv2's capture
are imported only when such a source is opened, never at import time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

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


class FrameSource(Protocol):
    """What the runtime needs from a camera."""

    def read(self) -> Frame | None:
        """The next frame, or None when a finite source is exhausted."""

    def close(self) -> None:
        """Release the device."""


def check_frame(image: object, name: str = "frame") -> np.ndarray:
    """Return ``image`` if it is a usable BGR frame, else raise :class:`FrameError`."""
    if not isinstance(image, np.ndarray):
        raise FrameError(f"{name}: expected an image array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise FrameError(f"{name}: expected 8-bit pixels, got {image.dtype}")
    if image.ndim != 3 or image.shape[2] != 3:
        raise FrameError(f"{name}: expected a colour image (h, w, 3), got shape {image.shape}")
    if image.shape[0] < 32 or image.shape[1] < 32:
        raise FrameError(f"{name}: image of {image.shape[1]}x{image.shape[0]} is too small")
    return image


class ReplaySource:
    """Recorded frames from image files, in name order, paced like a camera."""

    def __init__(
        self,
        paths: Sequence[Path] | Path,
        fps: float = 0.0,
        loop: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if isinstance(paths, Path):
            if not paths.is_dir():
                raise CameraError(f"replay folder {paths} does not exist")
            paths = sorted(p for p in paths.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self._paths = list(paths)
        if not self._paths:
            raise CameraError("replay source has no image files")
        if fps < 0:
            raise CameraError("fps must not be negative")
        self._interval = 1.0 / fps if fps else 0.0
        self._loop = loop
        self._clock = clock
        self._sleep = sleep
        self._index = 0
        self._last: float | None = None

    def read(self) -> Frame | None:
        """Load the next file; raise :class:`FrameError` for one that cannot be used."""
        import cv2

        if self._index >= len(self._paths):
            if not self._loop:
                return None
            self._index = 0
        path = self._paths[self._index]
        self._index += 1
        if self._interval and self._last is not None:
            wait = self._last + self._interval - self._clock()
            if wait > 0:
                self._sleep(wait)
        self._last = self._clock()
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise FrameError(f"{path.name}: not a readable image")
        return Frame(check_frame(image, path.name), self._last, path.name)

    def close(self) -> None:
        """Nothing to release for files."""

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame


class OpenCVSource:
    """A USB webcam through ``cv2.VideoCapture``."""

    def __init__(self, index: int = 0, size: tuple[int, int] = (1280, 960), capture: Any = None):
        import cv2

        self._cap = capture if capture is not None else cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise CameraError(
                f"USB camera {index} could not be opened; is it plugged in (ls /dev/video*)?"
            )
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._index = index

    def read(self) -> Frame | None:
        """Grab one frame; a failed grab is a camera fault, not the end of the stream."""
        ok, image = self._cap.read()
        if not ok or image is None:
            raise CameraError(f"USB camera {self._index} stopped delivering frames")
        return Frame(check_frame(image), time.monotonic(), f"usb{self._index}")

    def close(self) -> None:
        """Release the device so another program may open it."""
        self._cap.release()


class PiCameraSource:
    """The Raspberry Pi camera through picamera2 (installed with apt on the Pi)."""

    def __init__(self, size: tuple[int, int] = (1280, 960), picamera2: Any = None) -> None:
        if picamera2 is None:
            try:
                from picamera2 import Picamera2
            except ImportError:
                raise CameraError(
                    "picamera2 is not installed: on the Pi run 'sudo apt install python3-picamera2'"
                    " and create the venv with --system-site-packages"
                ) from None
            picamera2 = Picamera2()
        self._cam = picamera2
        # "RGB888" in picamera2 is stored B, G, R per pixel: exactly what OpenCV expects.
        config = self._cam.create_preview_configuration(
            main={"size": tuple(size), "format": "RGB888"}, buffer_count=4
        )
        self._cam.configure(config)
        self._cam.start()

    def read(self) -> Frame | None:
        """Capture one frame and copy it out before the buffer goes back to the camera."""
        with self._cam.captured_request() as request:
            image = np.array(request.make_array("main"), copy=True)
        return Frame(check_frame(image), time.monotonic(), "picamera")

    def close(self) -> None:
        """Stop and release the camera."""
        self._cam.stop()
        self._cam.close()


def open_source(spec: str, size: tuple[int, int] = (1280, 960), fps: float = 0.0) -> FrameSource:
    """Open the source a settings string names: ``picamera``, ``usb:N`` or ``replay:DIR``."""
    if spec == "picamera":
        return PiCameraSource(size)
    if spec.startswith("usb:") and spec[4:].isdigit():
        return OpenCVSource(int(spec[4:]), size)
    if spec.startswith("replay:"):
        return ReplaySource(Path(spec[len("replay:"):]), fps=fps)
    raise CameraError(f"unknown camera {spec!r}; use picamera, usb:<index> or replay:<folder>")
