"""Recorded frames played back like a camera: image folders and recorded sequences.

A recorded *sequence* (``companion record``, ``companion eval throws``) is a folder::

    DIR/sequence.json     {"fps": 15, "frames": n}
    DIR/frames/00000.jpg  the n frames, played in name order at fps
    DIR/profile.json      optional: the camera's tray calibration (``eval throws``)

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

from companion.hardware.frames import IMAGE_SUFFIXES, CameraError, Frame, FrameError, check_frame


class SequenceError(CameraError, ValueError):
    """A recorded sequence folder that is missing, malformed or incomplete."""


SEQUENCE_FILE = "sequence.json"
FRAMES_DIR = "frames"
SEQUENCE_PROFILE = "profile.json"


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
