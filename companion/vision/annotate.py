"""Draw what was read onto a copy of the frame: outline and value per die.

A pip value is a digit in any language. A Rock the Bock face is a word, and the picture is
shared by every phone at the table whatever its language (and OpenCV's fonts have no
umlauts), so ``labels=False`` draws the outlines alone and leaves the names to the page."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.types import Reading, VisionError

SURE = (60, 200, 60)  # BGR green: read with confidence
UNSURE = (0, 140, 255)  # BGR orange: unread or uncertain, a person should look


def annotate(frame: np.ndarray, reading: Reading, labels: bool = True) -> np.ndarray:
    """A copy of ``frame`` with each die's outline and (with ``labels``) its value;
    uncertain dice orange, their values marked '?'."""
    if frame.ndim != 3 or frame.dtype != np.uint8:
        raise VisionError(f"annotate needs an 8-bit BGR frame, got {frame.dtype} {frame.shape}")
    out = frame.copy()
    thickness = max(1, round(max(frame.shape[:2]) / 400))
    for die in reading.dice:
        unsure = die.uncertain or die.value is None
        colour = UNSURE if unsure else SURE
        pts = np.array(die.region.corners, np.float32).round().astype(np.int32)
        if len(pts) >= 3:
            cv2.polylines(out, [pts], True, colour, thickness, cv2.LINE_AA)
        if not labels:
            continue
        label = "?" if die.value is None else str(die.value)
        if unsure and die.value is not None:
            label += "?"
        scale = max(0.4, die.region.size / 40.0)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness + 1)
        x = int(die.region.center[0] - tw / 2)
        y = int(die.region.center[1] - die.region.size * 0.75)
        y = max(th + 2, y)
        cv2.putText(
            out,
            label,
            (x, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (0, 0, 0),
            thickness + 3,
            cv2.LINE_AA,
        )
        cv2.putText(
            out, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness + 1, cv2.LINE_AA
        )
    return out


def to_jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    """Encode a BGR image as JPEG bytes for the dashboard."""
    if not 1 <= quality <= 100:
        raise VisionError(f"JPEG quality must be 1..100, got {quality}")
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise VisionError(f"could not encode a {image.shape} image as JPEG")
    return buf.tobytes()
