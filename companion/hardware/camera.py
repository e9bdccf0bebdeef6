"""Frame sources: the Pi camera, a USB webcam, or recorded frames, behind one protocol.

Every source hands out BGR ``uint8`` frames of shape (h, w, 3) with a timestamp, so
recognition cannot tell a live camera from a replay (the demo's rendered throws are
one more such source, :mod:`companion.hardware.demo`; ``tests/hardware/test_sources.py``
runs one contract over them all). picamera2 and cv2's capture are imported only when
such a source is opened, never at import time.

This module is the front door: :func:`open_source` opens what a settings string names,
and the names of the parts are importable from here. One job per module behind it:

- :mod:`~companion.hardware.frames`: ``Frame``, the ``FrameSource`` protocol, the errors,
  the frame check;
- :mod:`~companion.hardware.replay`: recorded frames and sequence folders;
- :mod:`~companion.hardware.webcam`: a USB webcam;
- :mod:`~companion.hardware.picamera`: the Pi camera;
- :mod:`~companion.hardware.exposure`: settling and locking exposure and white balance.
"""

from __future__ import annotations

from companion.hardware.exposure import MEASURE_FRAMES, STEADY_CHANGE, ExposureLock
from companion.hardware.frames import (
    IMAGE_SUFFIXES,
    CameraError,
    Frame,
    FrameError,
    FrameSource,
    check_frame,
)
from companion.hardware.picamera import (
    LORES_WIDTH,
    MAIN_WIDTH_MAX,
    PiCameraSource,
    fit_width,
    pick_sensor_mode,
)
from companion.hardware.replay import (
    FRAMES_DIR,
    SEQUENCE_FILE,
    RecordedSequence,
    ReplaySource,
    SequenceError,
    frame_name,
    is_sequence,
    load_sequence,
    parse_fps,
    parse_replay,
    read_sequence_json,
    write_sequence_info,
)
from companion.hardware.webcam import OpenCVSource

__all__ = [
    "FRAMES_DIR", "IMAGE_SUFFIXES", "LORES_WIDTH", "MAIN_WIDTH_MAX", "MEASURE_FRAMES",
    "SEQUENCE_FILE", "STEADY_CHANGE", "CameraError", "ExposureLock", "Frame", "FrameError",
    "FrameSource", "OpenCVSource", "PiCameraSource", "RecordedSequence", "ReplaySource",
    "SequenceError", "check_frame", "fit_width", "frame_name", "is_sequence",
    "load_sequence", "open_source", "parse_fps", "parse_replay", "pick_sensor_mode",
    "read_sequence_json", "write_sequence_info",
]


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
