"""Frame sources: the Pi camera, a USB webcam, or recorded frames, behind one protocol.

Every source hands out BGR ``uint8`` frames of shape (h, w, 3) with a timestamp, so
recognition cannot tell a live camera from a replay. picamera2 and cv2's capture
are imported only when such a source is opened, never at import time.

A recorded *sequence* (``companion record``, ``companion eval throws``) is a folder::

    DIR/sequence.json     {"fps": 15, "frames": n}
    DIR/frames/00000.jpg  the n frames, played in name order at fps

``replay:DIR`` plays a sequence folder at its own frame rate, or a plain folder of
images as fast as they load; ``replay:DIR?fps=15`` sets the rate for either.
"""

from __future__ import annotations

import json
import math
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


class SequenceError(CameraError, ValueError):
    """A recorded sequence folder that is missing, malformed or incomplete."""


SEQUENCE_FILE = "sequence.json"
FRAMES_DIR = "frames"


@dataclass(frozen=True)
class RecordedSequence:
    """A sequence folder's frames (in name order) and the rate they were taken at."""

    folder: Path
    fps: float
    frames: tuple[Path, ...]


def parse_fps(value: object, where: str) -> float:
    """A frame rate above 0 and at most 1000; raises :class:`SequenceError` naming ``where``."""
    if isinstance(value, bool):
        value = None
    try:
        fps = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise SequenceError(f"{where}: fps must be a number such as 15, not {value!r}") from None
    if not math.isfinite(fps) or not 0 < fps <= 1000:
        raise SequenceError(f"{where}: fps must be above 0 and at most 1000, not {value!r}")
    return fps


def is_sequence(folder: Path) -> bool:
    """True when ``folder`` looks like a sequence folder (has a ``sequence.json``)."""
    return (folder / SEQUENCE_FILE).is_file()


def load_sequence(folder: Path | str) -> RecordedSequence:
    """Read and check a sequence folder; every problem is one :class:`SequenceError` line."""
    folder = Path(folder)
    info_path = folder / SEQUENCE_FILE
    if not info_path.is_file():
        raise SequenceError(f"{folder} is not a sequence folder: {SEQUENCE_FILE} is missing")
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SequenceError(f"{info_path} is not valid JSON: {exc}") from None
    if not isinstance(info, dict):
        raise SequenceError(f'{info_path} must be an object like {{"fps": 15, "frames": 120}}')
    fps = parse_fps(info.get("fps"), str(info_path))
    count = info.get("frames")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise SequenceError(f"{info_path}: frames must be a whole number above 0, not {count!r}")
    frames_dir = folder / FRAMES_DIR
    paths = (
        sorted(p for p in frames_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if frames_dir.is_dir() else []
    )
    if len(paths) != count:
        raise SequenceError(
            f"{folder}: {SEQUENCE_FILE} says {count} frames but {frames_dir} holds {len(paths)}"
        )
    return RecordedSequence(folder, fps, tuple(paths))


def write_sequence_info(folder: Path, fps: float, frames: int) -> None:
    """Write ``sequence.json`` for ``frames`` frames already stored under ``frames/``."""
    (folder / SEQUENCE_FILE).write_text(
        json.dumps({"fps": round(fps, 3), "frames": frames}) + "\n", encoding="utf-8"
    )


def frame_name(index: int) -> str:
    """The file name of frame ``index`` in a sequence folder."""
    return f"{index:05d}.jpg"


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
    """Open the source a settings string names: ``picamera``, ``usb:N`` or ``replay:DIR``
    (``replay:DIR?fps=15`` paces the replay; a sequence folder plays at its own rate)."""
    if spec == "picamera":
        return PiCameraSource(size)
    if spec.startswith("usb:") and spec[4:].isdigit():
        return OpenCVSource(int(spec[4:]), size)
    if spec.startswith("replay:"):
        folder, rate = parse_replay(spec)
        if is_sequence(folder):
            sequence = load_sequence(folder)
            return ReplaySource(list(sequence.frames), fps=rate or sequence.fps)
        return ReplaySource(folder, fps=rate or fps)
    raise CameraError(f"unknown camera {spec!r}; use picamera, usb:<index> or replay:<folder>")


def parse_replay(spec: str) -> tuple[Path, float]:
    """``replay:DIR`` or ``replay:DIR?fps=F`` as (folder, fps; 0 when not given)."""
    body = spec[len("replay:"):]
    folder, _, query = body.partition("?")
    if not folder:
        raise SequenceError(f"camera {spec!r} names no folder; use replay:<folder>[?fps=15]")
    fps = 0.0
    if query:
        key, _, value = query.partition("=")
        if key != "fps":
            raise SequenceError(f"camera {spec!r}: unknown option {key!r}; only fps=<rate>")
        fps = parse_fps(value, f"camera {spec!r}")
    return Path(folder), fps
