"""Frame sources: the Pi camera, a USB webcam, or recorded frames, behind one protocol.

Every source hands out BGR ``uint8`` frames of shape (h, w, 3) with a timestamp, so
recognition cannot tell a live camera from a replay (the demo's rendered throws are
one more such source, :mod:`companion.hardware.demo`; ``tests/hardware/test_sources.py``
runs one contract over them all). picamera2 and cv2's capture are imported only when
such a source is opened, never at import time.

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


def read_sequence_json(path: Path) -> object:
    """The JSON in one of a sequence folder's files; a broken file is a ``SequenceError``."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SequenceError(f"{path} is not valid JSON: {exc}") from None


def load_sequence(folder: Path | str) -> RecordedSequence:
    """Read and check a sequence folder; every problem is one :class:`SequenceError` line."""
    folder = Path(folder)
    info_path = folder / SEQUENCE_FILE
    if not info_path.is_file():
        raise SequenceError(f"{folder} is not a sequence folder: {SEQUENCE_FILE} is missing")
    info = read_sequence_json(info_path)
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


LORES_WIDTH = 320
MAIN_WIDTH_MAX = 2028  # HQ camera's 2x2-binned mode; larger frames cost memory, not accuracy
MEASURE_FRAMES = (8, 60)  # exposure settles after at least 8 frames, at most 60
# AE/AWB have settled when exposure and gains moved less than this over the last frames
STEADY_CHANGE = 0.03


class ExposureLock:
    """Decides when automatic exposure and white balance have settled, then holds them.

    Feed it what the camera measured each frame; it answers with the controls to lock
    once the values stopped moving (or after ``MEASURE_FRAMES[1]`` frames), with the
    exposure shortened to ``max_exposure_us`` and the gain raised to make up the light.
    """

    def __init__(self, max_exposure_us: int = 10000, gain_max: float = 16.0) -> None:
        self.max_exposure_us = max_exposure_us
        self.gain_max = gain_max
        self.locked: dict[str, Any] | None = None
        self._seen: list[tuple[float, ...]] = []

    def restart(self) -> None:
        """Measure again (the light in the room changed)."""
        self.locked = None
        self._seen.clear()

    @property
    def measuring(self) -> bool:
        """True until the values are locked."""
        return self.locked is None

    def feed(
        self, exposure_us: float, gain: float, colour_gains: tuple[float, float]
    ) -> dict[str, Any] | None:
        """One frame's measurement; the controls to set when it is time to lock, else None."""
        if self.locked is not None:
            return None
        self._seen.append((float(exposure_us), float(gain), *map(float, colour_gains)))
        recent = self._seen[-4:]
        steady = len(recent) == 4 and all(
            abs(a - b) <= STEADY_CHANGE * max(abs(b), 1e-6)
            for earlier in recent[:-1] for a, b in zip(earlier, recent[-1], strict=True)
        )
        enough, waited = len(self._seen) >= MEASURE_FRAMES[0], len(self._seen) >= MEASURE_FRAMES[1]
        if not enough or not (steady or waited):
            return None
        exposure, gain, red, blue = self._seen[-1]
        short = min(exposure, float(self.max_exposure_us))
        # The same brightness with a shorter exposure: more gain (as far as the sensor goes).
        gain = min(gain * exposure / short if short else gain, self.gain_max)
        self.locked = {
            "AeEnable": False, "AwbEnable": False, "ExposureTime": int(round(short)),
            "AnalogueGain": round(gain, 3), "ColourGains": (round(red, 4), round(blue, 4)),
        }
        return dict(self.locked)


class OpenCVSource:
    """A USB webcam through ``cv2.VideoCapture``.

    As far as the webcam's driver lets OpenCV: one buffered frame (so a read gets the
    newest), automatic exposure and white balance while the first frames settle, then
    both switched to manual at the values they reached. ``locks`` says what the driver
    accepted.
    """

    def __init__(self, index: int = 0, size: tuple[int, int] = (1280, 960), capture: Any = None):
        import cv2

        self._cv2 = cv2
        self._cap = capture if capture is not None else cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise CameraError(
                f"USB camera {index} could not be opened; is it plugged in (ls /dev/video*)?"
            )
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._index = index
        self.locks: dict[str, bool] = {
            "newest_frame": bool(self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)),
        }
        self._frames = 0
        self._measure_frames = MEASURE_FRAMES[0] * 2
        self.remeasure()

    def remeasure(self) -> None:
        """Let the webcam find exposure and white balance again; locked after a few frames."""
        cv2 = self._cv2
        # V4L2 through OpenCV: 3 = aperture priority (automatic), 1 = manual.
        self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 3)
        self._cap.set(cv2.CAP_PROP_AUTO_WB, 1)
        self._frames = 0
        self.locks.pop("exposure", None)
        self.locks.pop("white_balance", None)

    def _lock(self) -> None:
        cv2 = self._cv2
        exposure = self._cap.get(cv2.CAP_PROP_EXPOSURE)
        temperature = self._cap.get(cv2.CAP_PROP_WB_TEMPERATURE)
        self.locks["exposure"] = bool(
            self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
            and self._cap.set(cv2.CAP_PROP_EXPOSURE, exposure)
        )
        self.locks["white_balance"] = bool(
            self._cap.set(cv2.CAP_PROP_AUTO_WB, 0)
            and (temperature <= 0 or self._cap.set(cv2.CAP_PROP_WB_TEMPERATURE, temperature))
        )

    def read(self) -> Frame | None:
        """Grab one frame; a failed grab is a camera fault, not the end of the stream."""
        ok, image = self._cap.read()
        if not ok or image is None:
            raise CameraError(f"USB camera {self._index} stopped delivering frames")
        self._frames += 1
        if self._frames == self._measure_frames:
            self._lock()
        name = f"usb{self._index}"
        return Frame(check_frame(image, name), time.monotonic(), name)

    def close(self) -> None:
        """Release the device so another program may open it."""
        self._cap.release()


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


def open_source(
    spec: str, size: tuple[int, int] = (1280, 960), fps: float = 0.0, *,
    max_exposure_us: int = 10000,
) -> FrameSource:
    """Open the source a settings string names: ``picamera``, ``usb:N`` or ``replay:DIR``
    (``replay:DIR?fps=15`` paces the replay; a sequence folder plays at its own rate).
    The Pi camera picks its own main size from the sensor modes (at ``fps`` or 15)."""
    if spec == "picamera":
        return PiCameraSource(fps=fps or 15.0, max_exposure_us=max_exposure_us)
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
