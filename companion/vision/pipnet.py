"""Read pip dice with a small trained CNN (``models/pipnet.onnx``) run by ``cv2.dnn``.

Each region the finder reports is cut out as a square crop of ``SPAN`` die edges, turned
along the die's edges and scaled to ``INPUT`` x ``INPUT`` pixels (``crop_die``). The net
sees every crop of a frame in one forward pass and gives, per crop, a softmax over seven
classes (pip values 1-6 and "not a die": a piece of shadow, rim or fluff the finder took
for a die) and where the centre of the top face lies, as an offset from the crop's centre
in crop widths. ``tools/train_pipnet.py`` makes the model; ``models/pipnet.json`` says
how and what it scored.

Only plain Conv, Relu, MaxPool, Flatten and Gemm layers at ONNX opset 11 are used, so the
same file loads on OpenCV 4.6 (Debian 12, the Pi) and newer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.dnn import read_onnx
from companion.vision.types import DieRegion, VisionError

INPUT = 48  # side of the net's input crop in pixels
SPAN = 1.5  # side of the crop in die edges (the finder's size): room for offsets and shadow
CLASSES: tuple[int | None, ...] = (1, 2, 3, 4, 5, 6, None)  # None: not a die
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "pipnet.onnx"
# Below this softmax confidence a guess is marked uncertain (``PipGuess.uncertain``); see
# models/pipnet.json "sure_check" for how often guesses above and below it were right. The
# recogniser flags dice by its own rule (``pipread.FLAG_BELOW``), not by this.
SURE = 0.7
# The centre of a crop where the die's top face lies, as a share of the crop's side: the
# crop spans ``SPAN`` finder edges, and the top face is about 0.8 of one (the finder's
# outline takes in the side walls).
FACE_SHARE = 0.55


@dataclass(frozen=True)
class PipGuess:
    """What the net made of one region: value (None: not a die), confidence, centre."""

    value: int | None
    confidence: float
    uncertain: bool
    center: tuple[float, float]  # centre of the top face in frame pixels
    probs: tuple[float, ...] = ()  # the net's probability of each of ``CLASSES``
    # Every view the net looked at (``PipNet.read``'s ``views``) read this value.
    agree: bool = True


def crop_die(
    frame: np.ndarray, center: tuple[float, float], size: float, angle: float
) -> tuple[np.ndarray, np.ndarray]:
    """Cut the ``INPUT``-pixel square crop the net reads around a die.

    The crop spans ``SPAN`` times ``size`` and is turned by ``angle`` degrees so the die's
    edges run along the crop's. Returns the crop and the 2x3 matrix from crop pixels back
    to frame pixels. Training cuts its crops with this same function.
    """
    cx, cy = float(center[0]), float(center[1])
    scale = INPUT / (SPAN * max(float(size), 4.0))
    m = cv2.getRotationMatrix2D((cx, cy), float(angle), scale)
    m[0, 2] += INPUT / 2.0 - cx
    m[1, 2] += INPUT / 2.0 - cy
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(frame, m, (INPUT, INPUT), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return crop, cv2.invertAffineTransform(m)


def to_blob(crops: np.ndarray, channels: int = 3) -> np.ndarray:
    """Turn uint8 BGR crops (N, INPUT, INPUT, 3) into the net's float input
    (N, ``channels``, INPUT, INPUT).

    Each crop is set to zero mean and unit spread over all its pixels and channels, so
    dim or bright light and a camera's contrast matter less while colours stay apart.
    With ``channels`` 6 the same crop follows once more, set to zero mean and unit spread
    over its centre (``FACE_SHARE`` of its side, where the top face lies) and clipped:
    on a dark die with red pips the floor around it takes up most of the crop's spread,
    and the pips come out faint; measured on the face alone they stand out.
    Raises ``VisionError`` for anything but such a stack of crops.
    """
    if (
        not isinstance(crops, np.ndarray)
        or crops.dtype != np.uint8
        or crops.ndim != 4
        or crops.shape[1:] != (INPUT, INPUT, 3)
    ):
        got = crops.shape if isinstance(crops, np.ndarray) else type(crops).__name__
        dtype = getattr(crops, "dtype", None)
        raise VisionError(
            f"the pip net reads uint8 BGR crops of shape (N, {INPUT}, {INPUT}, 3), got {got} "
            f"of {dtype}; cut them with crop_die()"
        )
    if channels not in (3, 6):
        raise VisionError(f"the pip net takes 3 or 6 input channels, not {channels}")
    x = crops.astype(np.float32) / 255.0
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True)
    # The floor keeps a flat crop (empty tray) from blowing its noise up to full contrast.
    planes = [(x - mean) / np.maximum(std, 0.04)]
    if channels == 6:
        lo = round(INPUT * (1 - FACE_SHARE) / 2)
        face = x[:, lo : INPUT - lo, lo : INPUT - lo]
        mean = face.mean(axis=(1, 2, 3), keepdims=True)
        std = face.std(axis=(1, 2, 3), keepdims=True)
        planes.append(np.clip((x - mean) / np.maximum(std, 0.04), -4.0, 4.0))
    return np.ascontiguousarray(np.concatenate(planes, axis=3).transpose(0, 3, 1, 2))


def view_of(crops: np.ndarray, k: int) -> np.ndarray:
    """View ``k`` (0..7) of a stack of crops: k % 4 quarter turns, mirrored when k ≥ 4."""
    turned = np.rot90(crops, k % 4, axes=(1, 2))
    if k >= 4:
        turned = turned[:, :, ::-1]
    return np.ascontiguousarray(turned)


def unview_offsets(offsets: np.ndarray, k: int) -> np.ndarray:
    """Map top-face offsets (N, 2) measured in view ``k`` back to the unturned crop.

    ``np.rot90`` by one quarter moves a point at offset (x, y) from the centre to (y, -x)
    (x to the right, y down); mirroring negates x. Undo the mirror first, then the turns.
    """
    x, y = offsets[:, 0].copy(), offsets[:, 1].copy()
    if k >= 4:
        x = -x
    for _ in range(k % 4):
        x, y = -y, x
    return np.stack([x, y], axis=1)


class PipNet:
    """The pip-value CNN, loaded once; reads every region of a frame in one pass."""

    def __init__(self, path: Path | str = DEFAULT_MODEL, sure: float = SURE) -> None:
        self.path = Path(path)
        self.sure = sure
        if not self.path.is_file():
            raise VisionError(
                f"pip model {self.path} not found; train it with tools/train_pipnet.py "
                "or restore models/pipnet.onnx"
            )
        self.channels = _input_channels(self.path)
        try:
            self._net = read_onnx(self.path)
        except cv2.error as exc:
            raise VisionError(
                f"OpenCV cannot load the pip model {self.path} ({exc.msg.strip()}); "
                "restore models/pipnet.onnx or train it again"
            ) from None

    def __repr__(self) -> str:
        return f"PipNet({str(self.path)!r}, sure={self.sure})"

    def classify(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Softmax over ``CLASSES`` (N, 7) and top-face offsets in crop widths (N, 2)."""
        blob = to_blob(crops, self.channels)
        if len(blob) == 0:
            return np.zeros((0, len(CLASSES)), np.float32), np.zeros((0, 2), np.float32)
        self._net.setInput(blob)
        out = np.asarray(self._net.forward(), np.float32).reshape(len(blob), -1)
        if out.shape[1] != len(CLASSES) + 2:
            raise VisionError(
                f"pip model {self.path} gives {out.shape[1]} outputs per crop, expected "
                f"{len(CLASSES) + 2}; it was not made by tools/train_pipnet.py"
            )
        logits = out[:, : len(CLASSES)]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True), out[:, len(CLASSES) :]

    def classify_views(
        self, crops: np.ndarray, views: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        """Like ``classify``, averaged over ``views`` symmetries of each crop (1, 4 or 8).

        A die looks the same turned by a quarter or mirrored, but the net's errors do not:
        averaging what it says of the turned and mirrored crops corrects many of them.
        """
        probs, offsets = self.classify_each_view(crops, views)
        return probs.mean(axis=0), offsets.mean(axis=0)

    def classify_each_view(
        self, crops: np.ndarray, views: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        """What the net says of each of ``views`` symmetries of each crop (1, 4 or 8):
        softmax (views, N, 7) and top-face offsets mapped back to the unturned crop
        (views, N, 2)."""
        if views not in (1, 4, 8):
            raise VisionError(f"views must be 1, 4 or 8, got {views}")
        if views == 1 or len(crops) == 0:
            probs, offsets = self.classify(crops)
            return probs[None], offsets[None]
        stack = np.concatenate([view_of(crops, k) for k in range(views)])
        probs, offsets = self.classify(stack)
        n = len(crops)
        back = [unview_offsets(offsets[k * n : (k + 1) * n], k) for k in range(views)]
        return probs.reshape(views, n, -1), np.stack(back)

    def read(
        self, frame: np.ndarray, regions: Sequence[DieRegion], views: int = 1
    ) -> list[PipGuess]:
        """Read each region of a BGR frame; one guess per region, in the same order.

        ``views`` > 1 averages over turned and mirrored crops (``classify_views``); a
        guess's ``agree`` says whether every one of those views read its value.
        """
        if not regions:
            return []
        cut = [crop_die(frame, r.center, r.size, r.angle) for r in regions]
        each, each_offsets = self.classify_each_view(np.stack([c for c, _ in cut]), views)
        probs, offsets = each.mean(axis=0), each_offsets.mean(axis=0)
        votes = each.argmax(axis=2)  # (views, N)
        guesses = []
        for i, ((_, back), p, off) in enumerate(zip(cut, probs, offsets, strict=True)):
            k = int(np.argmax(p))
            point = (INPUT / 2.0 + float(off[0]) * INPUT, INPUT / 2.0 + float(off[1]) * INPUT)
            fx, fy = back @ np.array([point[0], point[1], 1.0])
            confidence = float(p[k])
            guesses.append(
                PipGuess(
                    value=CLASSES[k],
                    confidence=round(confidence, 3),
                    uncertain=confidence < self.sure,
                    center=(float(fx), float(fy)),
                    probs=tuple(float(v) for v in p),
                    agree=bool((votes[:, i] == k).all()),
                )
            )
        return guesses


def _input_channels(model: Path) -> int:
    """The input channels of a pip model, from its metadata file beside it ("input":
    [1, C, INPUT, INPUT]); 3 when it has none (the first models)."""
    meta = model.with_suffix(".json")
    if not meta.is_file():
        return 3
    try:
        shape = json.loads(meta.read_text(encoding="utf-8")).get("input", [1, 3])
        channels = int(shape[1])
    except (ValueError, TypeError, IndexError, AttributeError, UnicodeDecodeError) as exc:
        raise VisionError(
            f"the pip model's metadata {meta} is unreadable ({exc}); restore it with the model"
        ) from None
    if channels not in (3, 6):
        raise VisionError(f"{meta} says the model takes {channels} channels; expected 3 or 6")
    return channels


def load_pipnet(path: Path | str = DEFAULT_MODEL) -> PipNet | None:
    """The pip net at ``path``, or None when there is no such file (use the pip counter)."""
    if not Path(path).is_file():
        return None
    return PipNet(path)
