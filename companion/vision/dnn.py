"""Load this project's ONNX models on the OpenCV DNN engine that runs them fastest.

OpenCV 5 has two engines: a new one (its default) and the classic one that OpenCV 4
always used. For plain layers the classic engine is about twice as fast: the pip net
(3x3 convs, max pools, dense layers; 9 crops, one thread) took 5.4 ms CPU against 9.5 ms
on the new engine and 10.3 for ``ENGINE_AUTO``; the pip spotter (strided, dilated and
1x1 convs, a nearest-neighbour doubling) 6.2 ms against 10.8 (320x320). One layer is the
exception: a transposed convolution took 45 ms on the classic engine (2.5 ms on OpenCV
4.6), so a model with one (the first Bock spotter, shipped until 2026-12-04, and any
spotter made by ``tools/train_spotter.py`` before commit 9108396) loads on the default
engine, where the whole net took 14 ms. Measured on this project's machine.
OpenCV 4.6 (Debian 12, the Pi) has only the classic engine.
"""

from __future__ import annotations

from pathlib import Path

import cv2


def read_onnx(path: Path | str) -> cv2.dnn.Net:
    """Read an ONNX model for ``cv2.dnn``, on the classic engine where OpenCV offers one,
    unless the model has a transposed convolution (see above).

    Raises ``cv2.error`` as ``cv2.dnn.readNetFromONNX`` does for a file it cannot read.
    """
    classic = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if classic is None or not suits_classic_engine(path):
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=classic)


def suits_classic_engine(path: Path | str) -> bool:
    """Whether the model at ``path`` runs faster on the classic engine: it has no
    transposed convolution (an ONNX file names each node's operator in plain bytes)."""
    return b"ConvTranspose" not in Path(path).read_bytes()
