"""Load a plain-layer ONNX model (the pip net) on OpenCV's classic DNN engine.

OpenCV 5 has two engines: a new one (its default) and the classic one that OpenCV 4
always used. For the pip net (3x3 convs, max pools, dense layers) the classic engine is
about twice as fast (9 crops, one thread: 5.4 ms CPU against 9.5 ms for the new engine
and 10.3 for ``ENGINE_AUTO``, measured on this project's machine), so it is chosen where
the choice exists. Which engine is faster depends on the net: the Bock spotter (strided,
dilated and transposed convs) is four times faster on the default engine and loads
there (``spot.py``). OpenCV 4.6 (Debian 12, the Pi) has only the classic engine.
"""

from __future__ import annotations

from pathlib import Path

import cv2


def read_onnx(path: Path | str) -> cv2.dnn.Net:
    """Read an ONNX model for ``cv2.dnn``, on the classic engine where OpenCV offers one.

    Raises ``cv2.error`` as ``cv2.dnn.readNetFromONNX`` does for a file it cannot read.
    """
    classic = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if classic is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=classic)
