"""Loading ONNX models: the engine that suits each where OpenCV 5 offers a choice, same answers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.dnn import read_onnx, suits_classic_engine
from companion.vision.pipnet import DEFAULT_MODEL, INPUT, PipNet, to_blob
from companion.vision.spot import DEFAULT_MODEL as BOCK_MODEL
from companion.vision.spot import MODELS, PIP_MODEL


def _forward(net: cv2.dnn.Net, blob: np.ndarray) -> np.ndarray:
    net.setInput(blob)
    return np.asarray(net.forward(), np.float32)


def test_classic_engine_gives_the_default_engines_answers():
    rng = np.random.default_rng(3)
    crops = rng.integers(0, 256, (5, INPUT, INPUT, 3), dtype=np.uint8)
    blob = to_blob(crops, PipNet().channels)
    ours = _forward(read_onnx(DEFAULT_MODEL), blob)
    default = _forward(cv2.dnn.readNetFromONNX(str(DEFAULT_MODEL)), blob)
    assert ours.shape == default.shape == (5, 9)
    np.testing.assert_allclose(ours, default, atol=1e-4)


def test_a_file_that_is_not_a_model_is_refused(tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not an onnx file")
    with pytest.raises(cv2.error):
        read_onnx(bad)


def test_a_transposed_convolution_keeps_a_model_on_the_default_engine(tmp_path):
    # A spotter made by the tool before commit 9108396 (the first Bock spotter, shipped
    # until 2026-12-04) doubles its maps with a transposed convolution, which the classic
    # engine of OpenCV 5 runs twenty times slower; every model shipped now suits it.
    assert suits_classic_engine(DEFAULT_MODEL)
    assert suits_classic_engine(PIP_MODEL)
    assert suits_classic_engine(BOCK_MODEL)
    old = tmp_path / "old-spotter.onnx"
    old.write_bytes(BOCK_MODEL.read_bytes().replace(b"Resize", b"ConvTranspose"))
    assert not suits_classic_engine(old)


@pytest.mark.parametrize("model", ["pipspot.onnx", "bockspot.onnx"])
def test_spotters_give_the_same_maps_on_both_engines(model):
    path = MODELS / model
    rng = np.random.default_rng(5)
    blob = rng.standard_normal((1, 3, 64, 96)).astype(np.float32)
    ours = _forward(read_onnx(path), blob)
    default = _forward(cv2.dnn.readNetFromONNX(str(path)), blob)
    assert ours.shape == default.shape == (1, 6, 16, 24)
    np.testing.assert_allclose(ours, default, atol=1e-3)
