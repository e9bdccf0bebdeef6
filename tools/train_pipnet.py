"""Train the pip-value CNN ``models/pipnet.onnx`` from tray-a photos and rendered throws.

Needs torch, which the project does not depend on; training runs in its own venv::

    python3 -m venv /work/train-venv
    /work/train-venv/bin/pip install torch==2.13.0 onnx numpy opencv-python-headless
    # measured on the validation photos (choose recipes and the flag rule with this):
    /work/train-venv/bin/python tools/train_pipnet.py --split train --out /tmp/pipnet.onnx
    # measured on the hold-out photos (a net to ship; see models/pipnet.json "command"):
    /work/train-venv/bin/python tools/train_pipnet.py --split train+validation
    # going on from the shipped net with frames of a table alone (how the net that ships
    # was made; models/pipnet.json "command" has the whole line):
    /work/train-venv/bin/python tools/train_pipnet.py --split train+validation --views 6 \
        --wholes 2 --rendered 300 --channels 6 --empties 450 --epochs 8 --max-lr 6e-4 \
        --init-from models/pipnet.onnx --out /tmp/pipnet.onnx

Samples are crops cut exactly as at run time (``companion.vision.pipnet.crop_die``):

- every region the learned spotter (``--spotter``, the recogniser's default finder) and
  the classical finder report on a training photo: matched to a label (as
  ``companion eval pips`` matches) it is that die's value, with the label's centre as the
  top face's centre; near a label but beaten to it by another region, it is still that
  die seen off-centre; anywhere else it is "not a die";
- every labelled box itself, at the sizes and offsets the finder gives;
- the same from throws drawn by ``companion.synth.render.render_throw``, whose truth
  gives the values and centres;
- with ``--empties``, frames of a table alone, no tray and no die (``empty_samples``):
  every region the recogniser asks the net about there is "not a die".

Each epoch cuts fresh crops: turned by quarter turns plus a little, mirrored, moved off
centre, scaled, with colour channels swapped, light, contrast, blur and noise varied.
``--split even`` trains on the photos with even index (sorted by name) and evaluates the
whole pipeline (``companion eval pips``) on the odd ones; ``--split all`` trains on every
photo and evaluates on them all (a trained-on figure). The model is written as a plain
ONNX graph (Conv, Relu, MaxPool, Flatten, Gemm; opset 11) so OpenCV 4.6 loads it, and
``models/pipnet.json`` records how it was made and what it scored.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from onnx import TensorProto, helper, numpy_helper
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the script runs from a venv that need not install the project

from companion.evaluation import LabelledDie, evaluate, match, read_labels  # noqa: E402
from companion.evaluation import photo_split as evaluation_split  # noqa: E402
from companion.synth.render import render_throw  # noqa: E402
from companion.synth.scene import SURROUNDS, read_whole, straightened, table_alone  # noqa: E402
from companion.vision.detect import FinderOptions, find_dice  # noqa: E402
from companion.vision.pipnet import (  # noqa: E402
    CLASSES,
    DEFAULT_MODEL,
    INPUT,
    SPAN,
    PipGuess,
    PipNet,
    crop_die,
    to_blob,
)
from companion.vision.recognizer import PIP_WORK_SIDE, VIEW_SCALE, PipRecognizer  # noqa: E402
from companion.vision.rectify import CANON_DIE  # noqa: E402
from companion.vision.spot import PIP_MODEL, PipSpotter  # noqa: E402
from companion.vision.types import DieRegion  # noqa: E402
from tools.onnx_export import save_graph  # noqa: E402

NOT_A_DIE = len(CLASSES) - 1
# Half the side of the patch kept around each sample, in die edges: the widest crop
# (turned 45 degrees, scaled up, moved off centre) still fits inside it.
PATCH = 2.0


@dataclass
class Sample:
    """One die (or non-die) to cut crops of: a patch of its frame and where it lies."""

    patch: np.ndarray  # BGR, the frame around the sample
    center: tuple[float, float]  # the region's centre in patch pixels
    size: float
    angle: float
    cls: int  # index into CLASSES
    target: tuple[float, float]  # the top face's centre in patch pixels
    loose: bool  # a labelled box rather than a finder region: vary it more
    photo: bool = False  # from a real photo rather than a rendered throw


# "Not a die" samples kept from each whole camera frame (``collect``'s ``wholes``).
NOT_A_DIE_PER_WHOLE = 30
# Of the regions the net read as no die in a frame of a table alone (``empty_samples``),
# this many are kept per frame (all it read as a die are kept).
EMPTY_KEEP_OTHERS = 10


def _patch(
    frame: np.ndarray, center: tuple[float, float], size: float
) -> tuple[np.ndarray, float, float]:
    """The square patch around ``center`` and the shift from frame to patch pixels."""
    side = int(math.ceil(2 * PATCH * size)) | 1
    patch = cv2.getRectSubPix(frame, (side, side), (float(center[0]), float(center[1])))
    return patch, (side - 1) / 2.0 - center[0], (side - 1) / 2.0 - center[1]


def _samples_from_frame(
    frame: np.ndarray,
    truth: list[tuple[int, float, float, float, float]],
    spotter: PipSpotter | None,
    view: bool = False,
) -> tuple[list[Sample], dict[str, int]]:
    """Found regions and labelled boxes of one frame; truth rows are (value, x, y, w, h).

    ``view``: the frame is a straightened tray view, whose dice the recogniser finds
    at ``VIEW_SCALE`` (``CANON_DIE`` dice), so the regions are found the same way.
    """
    labels = [LabelledDie(v, x, y, w, h) for v, x, y, w, h in truth]
    out: list[Sample] = []
    counts = {"matched": 0, "off_centre": 0, "not_a_die": 0, "boxes": 0}
    # The regions the recogniser will see: the learned spotter's (its default finder)
    # and the classical finder's at the recogniser's working side.
    if view:
        sources = [find_dice(frame, FinderOptions(die_size=CANON_DIE, work_side=PIP_WORK_SIDE))]
    else:
        sources = [find_dice(frame, FinderOptions(work_side=PIP_WORK_SIDE))]
    if spotter is not None:
        sources.append(spotter.spot_at(frame, VIEW_SCALE) if view else spotter.spot(frame))
    for regions in sources:
        _add_regions(frame, labels, regions, out, counts)
    for lab in labels:
        # The finder's edge is about 0.8 of the labelled box (the box takes in the sides).
        size = 0.8 * max(lab.w, lab.h)
        patch, sx, sy = _patch(frame, (lab.x, lab.y), size)
        centre = (lab.x + sx, lab.y + sy)
        out.append(Sample(patch, centre, size, 0.0, lab.value - 1, centre, True))
        counts["boxes"] += 1
    return out, counts


def _add_regions(
    frame: np.ndarray,
    labels: list[LabelledDie],
    regions: list[DieRegion],
    out: list[Sample],
    counts: dict[str, int],
) -> None:
    """One sample per found region: the labelled die it lies on, or "not a die"."""
    pairs = dict((j, i) for i, j in match(labels, [r.center for r in regions]))
    for j, r in enumerate(regions):
        i = pairs.get(j)
        if i is None and labels:
            # A second region on a die that another region matched: still that die.
            d, k = min(
                (math.hypot(r.center[0] - lab.x, r.center[1] - lab.y) / max(lab.w, lab.h), k)
                for k, lab in enumerate(labels)
            )
            if d < 0.6:
                i = k
                counts["off_centre"] += 1
        elif i is not None:
            counts["matched"] += 1
        patch, sx, sy = _patch(frame, r.center, r.size)
        centre = (r.center[0] + sx, r.center[1] + sy)
        if i is None:
            counts["not_a_die"] += 1
            out.append(Sample(patch, centre, r.size, r.angle, NOT_A_DIE, centre, False))
        else:
            lab = labels[i]
            out.append(
                Sample(
                    patch, centre, r.size, r.angle, lab.value - 1, (lab.x + sx, lab.y + sy), False
                )
            )


class _AskedNet(PipNet):
    """The pip net, noting every region the recogniser asks it to read and in what image."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(path)
        self.asked: list[tuple[np.ndarray, DieRegion, bool]] = []

    def read(
        self, frame: np.ndarray, regions: Sequence[DieRegion], views: int = 1
    ) -> list[PipGuess]:
        guesses = super().read(frame, regions, views)
        for r, g in zip(regions, guesses, strict=True):
            self.asked.append((frame, r, g.value is not None))
        return guesses


def empty_samples(
    count: int, seed: int, net_path: Path, spotter: PipSpotter | None
) -> tuple[list[Sample], dict[str, int]]:
    """"Not a die" samples from ``count`` frames of a table alone, no tray and no die.

    Each frame (a wooden table, a cloth or the bar's clutter:
    ``companion.synth.scene.table_alone``) is read by the recogniser that ships, looking
    for a tray and reading the frame whole, with the net at ``net_path``; every region the
    recogniser asks the net about is no die, in the image and at the scale it was asked.
    That takes in the scale the recogniser guessed from the clutter itself: with no die in sight a
    glass's highlight or a bottle cap on the dark bar, seen as the one pip of a large
    black die, set the die size, and the caps read as sure ones
    (``tests/vision/test_rectify.py``). The regions the net read as dice are all kept;
    of the others, ``EMPTY_KEEP_OTHERS`` per frame.
    """
    rng = np.random.default_rng(seed)
    out: list[Sample] = []
    counts = {"not_a_die": 0, "misread": 0}
    for k in range(count):
        frame = table_alone(SURROUNDS[k % len(SURROUNDS)], rng)
        net = _AskedNet(net_path)
        for look in (True, False):
            PipRecognizer(pipnet=net, spotter=spotter, look_for_tray=look).read(frame)
        misread: list[tuple[np.ndarray, DieRegion]] = []
        others: list[tuple[np.ndarray, DieRegion]] = []
        for image, r, as_die in net.asked:
            near = misread if as_die else others
            if not any(
                im is image and math.dist(q.center, r.center) < 0.2 * q.size
                and abs(q.size / r.size - 1) < 0.2
                for im, q in misread + others
            ):
                near.append((image, r))
        picked = [int(i) for i in rng.permutation(len(others))[:EMPTY_KEEP_OTHERS]]
        for image, r in misread + [others[i] for i in picked]:
            patch, sx, sy = _patch(image, r.center, r.size)
            centre = (r.center[0] + sx, r.center[1] + sy)
            out.append(Sample(patch, centre, r.size, r.angle, NOT_A_DIE, centre, False))
        counts["misread"] += len(misread)
        counts["not_a_die"] += len(misread) + len(picked)
    return out, counts


def load_weights(model: PipCNN, path: Path) -> None:
    """Set ``model``'s weights from a net this script exported (``export_onnx``).

    The export folded each batch norm into its convolution, so the batch norms are
    replaced by identities and the convolutions take the folded weights: the model then
    computes what the exported net computes, and training goes on from there.
    """
    import onnx

    graph = onnx.load(str(path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    layers = [n for n in graph.node if n.op_type in ("Conv", "Gemm")]
    mine = [m for m in list(model.features) + list(model.head)
            if isinstance(m, nn.Conv2d | nn.Linear)]
    if len(layers) != len(mine):
        raise SystemExit(f"{path} has {len(layers)} weighted layers, this net {len(mine)}")
    for node, module in zip(layers, mine, strict=True):
        w, b = weights[node.input[1]], weights[node.input[2]]
        if tuple(w.shape) != tuple(module.weight.shape):
            raise SystemExit(f"{path}: a layer of shape {w.shape}, this net's is "
                             f"{tuple(module.weight.shape)}; pass the same --widths/--hidden")
        with torch.no_grad():
            module.weight.copy_(torch.from_numpy(w.copy()))
            module.bias.copy_(torch.from_numpy(b.copy()))
    model.features = nn.Sequential(
        *(nn.Identity() if isinstance(m, nn.BatchNorm2d) else m for m in model.features)
    )


# Which photos a split trains on and which it measures after training. ``train`` and
# ``train+validation`` follow ``companion.evaluation.PHOTO_SPLITS``: a ``train`` run is
# measured on the validation photos (where recipes and thresholds are chosen), a
# ``train+validation`` run on the hold-out photos, nothing else having been fitted there.
# ``even``/``odd`` are the older halves (the odd half holds validation and hold-out both).
TRAIN_SPLITS = {
    "all": (("all",), ()),
    "train": (("train",), ("validation",)),
    "train+validation": (("train", "validation"), ("holdout",)),
    "even": (("train",), ("validation", "holdout")),
    "odd": (("validation", "holdout"), ("train",)),
}


def photo_split(photos: Path, split: str) -> tuple[list[Path], list[Path]]:
    """Training and left-out images of tray-a for ``split`` (one of ``TRAIN_SPLITS``)."""
    images = sorted((photos / "images").glob("*.jpg"))
    if not images:
        raise SystemExit(f"no images/*.jpg in {photos}; pass --photos DIR of tray-a")
    trained, measured = TRAIN_SPLITS[split]

    def of(names: tuple[str, ...]) -> list[Path]:
        return sorted({p for name in names for p in evaluation_split(images, name)})

    return of(trained), of(measured)


def collect(
    photos: Path,
    images: list[Path],
    n_rendered: int,
    seed: int,
    spotter: PipSpotter | None,
    views: int = 0,
    wholes: int = 0,
) -> tuple[list[Sample], dict]:
    """All samples from the training photos and ``n_rendered`` rendered throws; with
    ``views``, also from that many straightened camera views of each training photo
    (``companion.synth.scene.straightened``: composed into a random camera set-up's
    frame and straightened back, as the recogniser reads a camera frame); with ``wholes``,
    from that many whole camera frames of each, table and all, scaled as the recogniser
    reads a frame before it has found the tray (``companion.synth.scene.read_whole``):
    the knots of a wooden table, a cloth's checks and the bar's clutter are "not a die"."""
    samples: list[Sample] = []
    counts: dict[str, int] = {}

    def add(more: tuple[list[Sample], dict[str, int]], prefix: str) -> None:
        samples.extend(more[0])
        for key, n in more[1].items():
            counts[f"{prefix}_{key}"] = counts.get(f"{prefix}_{key}", 0) + n

    for path in images:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        h, w = frame.shape[:2]
        rows = [
            (d.value, d.x, d.y, d.w, d.h)
            for d in read_labels(photos / "labels" / f"{path.stem}.txt", w, h)
        ]
        more, n = _samples_from_frame(frame, rows, spotter)
        for s in more:
            s.photo = True
        add((more, n), "photo")

    def composed(make: Callable[[np.ndarray, Sequence[LabelledDie], np.random.Generator],
                                tuple[np.ndarray, tuple[LabelledDie, ...]]],
                 count: int, rng: np.random.Generator, prefix: str,
                 photo: bool, not_a_die: int | None = None) -> None:
        """``count`` camera frames of each training photo made by ``make``, read as the
        recogniser reads its view; with ``not_a_die``, only that many "not a die"
        samples of each frame are kept."""
        for path in images if count else []:
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            labels = read_labels(photos / "labels" / f"{path.stem}.txt", *frame.shape[1::-1])
            for _ in range(count):
                image, moved = make(frame, labels, rng)
                rows = [(int(d.value), d.x, d.y, d.w, d.h) for d in moved]
                more, n = _samples_from_frame(image, rows, spotter, view=True)
                if not_a_die is not None:
                    others = [k for k, s in enumerate(more) if s.cls == NOT_A_DIE]
                    dropped = set(rng.permutation(others)[not_a_die:].tolist())
                    more = [s for k, s in enumerate(more) if k not in dropped]
                    n["not_a_die"] -= len(dropped)
                for s in more:
                    s.photo = photo
                add((more, n), prefix)

    composed(straightened, views, np.random.default_rng(seed + 1), "view", photo=True)
    # A table shows the spotter some 70 things per frame: a share of them keeps "not a
    # die" from outweighing the dice (the whole frames are seen once an epoch, the
    # photos' other samples twice).
    composed(read_whole, wholes, np.random.default_rng(seed + 2), "whole", photo=False,
             not_a_die=NOT_A_DIE_PER_WHOLE)
    rng = np.random.default_rng(seed)
    for k in range(n_rendered):
        throw = render_throw(
            seed * 100_000 + k,
            int(rng.integers(1, 11)),
            size=(640, 480),
            hard=k % 3 == 0,
        )
        rows = []
        for die in throw.dice:
            x0, y0, x1, y1 = die.box()
            rows.append((int(die.value), die.center[0], die.center[1], x1 - x0, y1 - y0))
        add(_samples_from_frame(throw.image, rows, spotter), "rendered")
    return samples, counts


def cut(
    samples: list[Sample], rng: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (N, INPUT, INPUT, 3), classes (N,) and top-face offsets (N, 2) of samples.

    With ``rng`` each crop is varied (geometry and colour); without, it is cut as the
    recogniser would cut it.
    """
    n = len(samples)
    crops = np.empty((n, INPUT, INPUT, 3), np.uint8)
    classes = np.empty(n, np.int64)
    offsets = np.zeros((n, 2), np.float32)
    for k, s in enumerate(samples):
        cx, cy = s.center
        size, angle = s.size, s.angle
        if rng is not None:
            if s.loose:
                size *= rng.uniform(0.75, 1.25)
                angle = rng.uniform(0, 360)
                spread = 0.12
            else:
                size *= math.exp(rng.normal(0, 0.1))
                angle += 90 * int(rng.integers(4)) + rng.uniform(-12, 12)
                spread = 0.06
            cx += rng.normal(0, spread * s.size)
            cy += rng.normal(0, spread * s.size)
        crop, back = crop_die(s.patch, (cx, cy), size, angle)
        forward = cv2.invertAffineTransform(back)
        tx, ty = forward @ np.array([s.target[0], s.target[1], 1.0])
        off = np.array([tx / INPUT - 0.5, ty / INPUT - 0.5], np.float32)
        if rng is not None and rng.random() < 0.5:
            crop = crop[:, ::-1]
            off[0] = -off[0]
        crops[k] = crop
        classes[k] = s.cls
        offsets[k] = off
    if rng is not None:
        crops = _vary_colour(crops, rng)
    return crops, classes, offsets


def _vary_colour(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Swap channels, change light, white balance, contrast; blur and add noise."""
    n = len(crops)
    x = crops.astype(np.float32)
    # Another order of B, G, R turns a red die into a blue or green one, pips and all.
    perms = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    pick = np.where(rng.random(n) < 0.6, rng.integers(0, 6, n), 0)
    x = np.take_along_axis(x, perms[pick][:, None, None, :], axis=3)
    grey = rng.random(n) < 0.1
    x[grey] = x[grey].mean(axis=3, keepdims=True)
    inverted = rng.random(n) < 0.1
    x[inverted] = 255.0 - x[inverted]
    gain = rng.uniform(0.55, 1.4, (n, 1, 1, 1)) * rng.uniform(0.85, 1.15, (n, 1, 1, 3))
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.6, 1.3, (n, 1, 1, 1))
    x = ((x - mean) * contrast + mean) * gain
    for k in np.nonzero(rng.random(n) < 0.25)[0]:
        x[k] = cv2.GaussianBlur(x[k], (0, 0), float(rng.uniform(0.5, 1.2)))
    x += rng.normal(0, 1, x.shape).astype(np.float32) * rng.uniform(0, 7, (n, 1, 1, 1))
    return np.clip(x + 0.5, 0, 255).astype(np.uint8)


class PipCNN(nn.Module):
    """Four 3x3 conv blocks (conv, batch norm, ReLU, max pool) and two dense layers.

    The outputs are seven class logits and two offsets. Batch norm makes training
    converge in fewer epochs; the export folds it into the convolutions before it.
    """

    def __init__(
        self, widths: tuple[int, ...] = (16, 32, 64, 64), hidden: int = 96, channels: int = 3
    ) -> None:
        super().__init__()
        self.widths = widths
        self.hidden = hidden
        self.channels = channels
        layers: list[nn.Module] = []
        for a, b in zip((channels, *widths), widths, strict=False):
            layers += [nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2)]
        self.features = nn.Sequential(*layers)
        side = INPUT // 2 ** len(widths)
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(widths[-1] * side * side, hidden),
            nn.ReLU(),
            nn.Linear(hidden, len(CLASSES) + 2),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))

    def describe(self) -> str:
        """The layers in one line, for the model note."""
        widths = ", ".join(str(w) for w in self.widths)
        return (
            f"Conv3x3-BatchNorm-ReLU-MaxPool x{len(self.widths)} ({widths}), batch norm folded"
            f" into the convs at export, Flatten, Gemm {self.hidden}, ReLU, Gemm"
            f" {len(CLASSES) + 2}"
        )


def _folded(conv: nn.Conv2d, norm: nn.BatchNorm2d | None) -> tuple[np.ndarray, np.ndarray]:
    """Weights and bias of ``conv`` with the (eval-mode) batch norm after it folded in."""
    w = conv.weight.detach().numpy().astype(np.float64)
    b = conv.bias.detach().numpy().astype(np.float64)
    if norm is not None:
        scale = norm.weight.detach().numpy() / np.sqrt(norm.running_var.numpy() + norm.eps)
        w = w * scale[:, None, None, None]
        b = (b - norm.running_mean.numpy()) * scale + norm.bias.detach().numpy()
    return w.astype(np.float32), b.astype(np.float32)


def export_onnx(model: PipCNN, path: Path) -> None:
    """Write the net as a hand-built ONNX graph of plain layers (opset 11, any batch)."""
    nodes = []
    inits = []
    name = "input"
    layers = list(model.features) + list(model.head)
    for k, layer in enumerate(layers):
        out = f"t{k}"
        if isinstance(layer, nn.BatchNorm2d | nn.Identity):
            continue  # folded into the conv before it (or already, by ``load_weights``)
        if isinstance(layer, nn.Conv2d):
            w, b = f"w{k}", f"b{k}"
            after = layers[k + 1] if k + 1 < len(layers) else None
            weight, bias = _folded(layer, after if isinstance(after, nn.BatchNorm2d) else None)
            inits += [numpy_helper.from_array(weight, w), numpy_helper.from_array(bias, b)]
            nodes.append(
                helper.make_node(
                    "Conv",
                    [name, w, b],
                    [out],
                    kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1],
                    strides=[1, 1],
                )
            )
        elif isinstance(layer, nn.ReLU):
            nodes.append(helper.make_node("Relu", [name], [out]))
        elif isinstance(layer, nn.MaxPool2d):
            nodes.append(
                helper.make_node("MaxPool", [name], [out], kernel_shape=[2, 2], strides=[2, 2])
            )
        elif isinstance(layer, nn.Flatten):
            nodes.append(helper.make_node("Flatten", [name], [out], axis=1))
        elif isinstance(layer, nn.Linear):
            w, b = f"w{k}", f"b{k}"
            inits += [
                numpy_helper.from_array(layer.weight.detach().numpy(), w),
                numpy_helper.from_array(layer.bias.detach().numpy(), b),
            ]
            nodes.append(helper.make_node("Gemm", [name, w, b], [out], transB=1))
        else:
            raise TypeError(f"no ONNX export for {type(layer).__name__}")
        name = out
    nodes[-1].output[0] = "output"
    save_graph(
        nodes,
        inits,
        "pipnet",
        [
            helper.make_tensor_value_info(
                "input", TensorProto.FLOAT, ["N", model.channels, INPUT, INPUT]
            )
        ],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", len(CLASSES) + 2])],
        "tools/train_pipnet.py",
        path,
    )


def train(
    samples: list[Sample],
    epochs: int,
    seed: int,
    widths: tuple[int, ...],
    hidden: int = 96,
    channels: int = 3,
    init: Path | None = None,
    max_lr: float = 3e-3,
) -> tuple[PipCNN, list[dict]]:
    """Train the net on fresh variations of ``samples`` each epoch; returns it and a log.

    With ``init`` (a net this script exported) training starts from its weights
    (``load_weights``) instead of from random ones.
    """
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = PipCNN(widths, hidden, channels)
    if init is not None:
        load_weights(model, init)
    optimiser = torch.optim.Adam(model.parameters(), lr=max_lr, weight_decay=1e-4)
    batch = 128
    steps = epochs * math.ceil(len(samples) / batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=steps)
    ce = nn.CrossEntropyLoss(label_smoothing=0.05)
    log = []
    for epoch in range(epochs):
        t0 = time.perf_counter()
        crops, classes, offsets = cut(samples, rng)
        x = torch.from_numpy(to_blob(crops, channels))
        y = torch.from_numpy(classes)
        o = torch.from_numpy(offsets)
        order = torch.from_numpy(rng.permutation(len(samples)))
        model.train()
        total = right = 0
        loss_sum = 0.0
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            out = model(x[idx])
            loss = ce(out[:, : len(CLASSES)], y[idx])
            die = y[idx] != NOT_A_DIE
            if die.any():
                # Where the top face lies matters for dice only; weighted to a similar
                # size as the class loss.
                loss = loss + 5.0 * nn.functional.smooth_l1_loss(
                    out[die, len(CLASSES) :], o[idx][die], beta=0.05
                )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += float(loss.detach()) * len(idx)
            right += int((out[:, : len(CLASSES)].argmax(1) == y[idx]).sum())
            total += len(idx)
        entry = {
            "epoch": epoch + 1,
            "loss": round(loss_sum / total, 4),
            "train_accuracy": round(right / total, 4),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        log.append(entry)
        print(json.dumps(entry), flush=True)
    model.eval()
    return model, log


def crop_figures(net: PipNet, samples: list[Sample]) -> dict:
    """Crop-level accuracy of the exported net on unvaried finder regions of ``samples``."""
    regions = [s for s in samples if not s.loose]
    crops, classes, offsets = cut(regions, None)
    probs, predicted = net.classify(crops)
    guess = probs.argmax(axis=1)
    die = classes != NOT_A_DIE
    err = np.hypot(*(predicted[die] - offsets[die]).T) * INPUT
    return {
        "regions": int(len(regions)),
        "accuracy": round(float((guess == classes).mean()), 4),
        "die_accuracy": round(float((guess[die] == classes[die]).mean()), 4),
        "not_a_die_recall": round(float((guess[~die] == NOT_A_DIE).mean()), 4)
        if (~die).any()
        else None,
        "centre_error_px_median": round(float(np.median(err)), 2),
    }


def eval_folder(
    net: PipNet | None, photos: Path, images: list[Path], spotter: PipSpotter | None
) -> dict:
    """``companion eval pips`` figures on a folder of symlinks to ``images``.

    With ``net`` None the recogniser counts pips instead (the reader before the net);
    with ``spotter`` None it uses the classical finder.
    """
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "images").mkdir()
        (folder / "labels").mkdir()
        for path in images:
            (folder / "images" / path.name).symlink_to(path.resolve())
            label = photos / "labels" / f"{path.stem}.txt"
            (folder / "labels" / label.name).symlink_to(label.resolve())
        recognizer = PipRecognizer(
            pipnet=net,
            count_pips=net is None,
            finder="classic" if spotter is None else "spotter",
            spotter=spotter,
        )
        figures = evaluate(folder, recognizer, csv_out=Path(tmp) / "rows.csv")
        return figures | {"failures": _failures(Path(tmp) / "rows.csv")}


def _failures(rows_csv: Path) -> list[str]:
    """Images not read exactly: name, expected and read values."""
    import csv

    with rows_csv.open(encoding="utf-8") as fh:
        return [
            f"{r['image']}: expected {r['expected']} read {r['read']}"
            f" (unread {r['unread']}, extra {r['extra_dice']})"
            for r in csv.DictReader(fh)
            if r["exact"] == "0"
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", default=str(ROOT.parent / "shared" / "dice-photos" / "tray-a"))
    parser.add_argument("--split", choices=tuple(TRAIN_SPLITS), default="train+validation")
    parser.add_argument("--rendered", type=int, default=150, help="rendered throws to add")
    parser.add_argument(
        "--photo-weight", type=int, default=2, help="times each photo sample is seen per epoch"
    )
    parser.add_argument(
        "--views",
        type=int,
        default=0,
        help="straightened camera views of each training photo to add (random set-ups)",
    )
    parser.add_argument(
        "--wholes",
        type=int,
        default=0,
        help="whole camera frames of each training photo to add, table and all (random"
        " set-ups, scaled as an uncalibrated frame is read)",
    )
    parser.add_argument(
        "--empties",
        type=int,
        default=0,
        help="frames of a table alone (no tray, no die) whose regions are 'not a die'"
        " (empty_samples)",
    )
    parser.add_argument(
        "--init-from",
        help="a pip net this script exported: go on training it instead of starting afresh",
    )
    parser.add_argument("--max-lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (one is fastest on a busy machine)"
    )
    parser.add_argument(
        "--widths",
        type=lambda text: tuple(int(w) for w in text.split(",")),
        default=(16, 32, 64, 64),
        help="channels of the four conv blocks, comma-separated (default 16,32,64,64)",
    )
    parser.add_argument("--hidden", type=int, default=96, help="width of the dense layer")
    parser.add_argument(
        "--channels", type=int, choices=(3, 6), default=3,
        help="6: the crop also normalised over its centre (companion.vision.pipnet.to_blob)",
    )
    parser.add_argument("--out", default=str(ROOT / "models" / "pipnet.onnx"))
    parser.add_argument(
        "--spotter",
        default=str(PIP_MODEL),
        help="pip spotter whose regions are trained on besides the classical finder's and"
        " which the evaluation uses ('' for the classical finder only)",
    )
    parser.add_argument(
        "--evaluate-only",
        action="store_true",
        help="do not train: measure the model at --out again and update its metadata",
    )
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    cv2.setRNGSeed(args.seed)
    photos = Path(args.photos)
    out = Path(args.out)
    train_images, held_images = photo_split(photos, args.split)
    spotter = PipSpotter(args.spotter) if args.spotter else None
    if args.evaluate_only:
        # The recogniser around the net changed: measure the same model again.
        meta_path = out.with_suffix(".json")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta |= evaluation_record(
            PipNet(out), photos, train_images, held_images, args.seed, spotter,
            TRAIN_SPLITS[args.split][1],
        )
        meta["evaluated"] = datetime.date.today().isoformat()
        meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(
            {k: meta[k] for k in ("after_training", "trained_on") if k in meta}, indent=2
        ))
        return 0
    t0 = time.perf_counter()
    samples, counts = collect(
        photos, train_images, args.rendered, args.seed, spotter, args.views, args.wholes
    )
    if args.empties:
        empty_net = Path(args.init_from) if args.init_from else DEFAULT_MODEL
        more, n = empty_samples(args.empties, args.seed + 3, empty_net, spotter)
        samples += more
        counts |= {f"empty_{key}": value for key, value in n.items()}
    t1 = time.perf_counter()
    print(f"{len(samples)} samples in {t1 - t0:.0f} s: {counts}", flush=True)
    photo = [s for s in samples if s.photo]
    model, log = train(
        samples + photo * (args.photo_weight - 1), args.epochs, args.seed, args.widths,
        args.hidden,
        args.channels,
        Path(args.init_from) if args.init_from else None,
        args.max_lr,
    )
    t2 = time.perf_counter()
    export_onnx(model, out)
    # PipNet reads the input's channels from the metadata beside the model; the whole
    # record follows once the model is measured.
    out.with_suffix(".json").write_text(
        json.dumps({"input": [1, args.channels, INPUT, INPUT]}) + "\n", encoding="utf-8"
    )
    net = PipNet(out)
    # The exported graph must compute what torch computed.
    crops, _, _ = cut(samples[:64], None)
    with torch.no_grad():
        expected = model(torch.from_numpy(to_blob(crops, args.channels))).numpy()
    got_probs, got_offsets = net.classify(crops)
    e = np.exp(expected[:, : len(CLASSES)] - expected[:, : len(CLASSES)].max(1, keepdims=True))
    drift = max(
        float(np.abs(got_probs - e / e.sum(1, keepdims=True)).max()),
        float(np.abs(got_offsets - expected[:, len(CLASSES) :]).max()),
    )
    if drift > 1e-3:
        raise SystemExit(f"cv2.dnn disagrees with torch by {drift:.2g}; the export is broken")

    meta: dict = {
        "model": out.name,
        "made_by": "tools/train_pipnet.py",
        "command": " ".join(
            ["tools/train_pipnet.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "date": datetime.date.today().isoformat(),
        "seed": args.seed,
        "input": [1, args.channels, INPUT, INPUT],
        "input_note": f"BGR crop of SPAN={SPAN} finder die edges, turned along the die; "
        "per-crop zero mean, unit spread"
        + (", then again over the crop's centre" if args.channels == 6 else "")
        + " (companion.vision.pipnet.to_blob)",
        "classes": [str(c) if c is not None else "not_a_die" for c in CLASSES],
        "outputs": "7 class logits, then top-face centre offset (x, y) in crop widths",
        "layers": model.describe(),
        "opset": 11,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "bytes": out.stat().st_size,
        "data": {
            "photos": f"tray-a ({photos.name}), split {args.split!r}: {len(train_images)} images",
            "rendered_throws": args.rendered,
            "straightened_views_per_photo": args.views,
            "whole_frames_per_photo": args.wholes,
            "table_alone_frames": args.empties,
            "photo_weight": args.photo_weight,
            "regions": "the classical finder's at the recogniser's working side"
            + (f" and the spotter's ({Path(args.spotter).name})" if spotter else ""),
            "samples": counts,
        },
        "epochs": args.epochs,
        "max_lr": args.max_lr,
        **({"went_on_from": args.init_from} if args.init_from else {}),
        "train_seconds": round(t2 - t0, 1),
        "train_log_last": log[-1],
        "export_drift": drift,
    }
    meta |= evaluation_record(
        net, photos, train_images, held_images, args.seed, spotter, TRAIN_SPLITS[args.split][1]
    )
    meta_path = out.with_suffix(".json")
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(
            {k: meta[k] for k in ("after_training", "trained_on") if k in meta}, indent=2
        ))
    print(f"wrote {out} and {meta_path} in {time.perf_counter() - t0:.0f} s")
    return 0


def evaluation_record(
    net: PipNet,
    photos: Path,
    train_images: list[Path],
    held_images: list[Path],
    seed: int,
    spotter: PipSpotter | None,
    measured: tuple[str, ...] = (),
) -> dict:
    """Figures on the images the split left out (``measured`` names their splits), else
    trained-on figures.

    Only a ``train+validation`` run's left-out photos are the hold-out alone: an ``even``
    run's hold both the validation split, on which the flag rule is chosen
    (``tools/tune_flag.py``), and the hold-out; a ``train`` run's are validation photos.
    """
    if held_images:
        held, _ = collect(photos, held_images, 0, seed, spotter)
        kind = "hold-out" if measured == ("holdout",) else "validation (not a hold-out)"
        return {
            "after_training": {
                "measured_on": list(measured),
                "kind": kind,
                "images": f"tray-a, the {len(held_images)} {'+'.join(measured)} images",
                "crops": crop_figures(net, held),
                "pipeline": eval_folder(net, photos, held_images, spotter),
                "pip_counter_same_run": eval_folder(None, photos, held_images, spotter),
            },
            "sure_check": _sure_check(net, held),
        }
    return {
        "trained_on": {
            "note": "evaluated on the photos it was trained on: not a hold-out figure",
            "pipeline": eval_folder(net, photos, train_images, spotter),
            "pip_counter_same_run": eval_folder(None, photos, train_images, spotter),
        }
    }


def _sure_check(net: PipNet, samples: list[Sample]) -> dict:
    """How often dice read above and below the ``sure`` threshold were right."""
    regions = [s for s in samples if not s.loose and s.cls != NOT_A_DIE]
    crops, classes, _ = cut(regions, None)
    probs, _ = net.classify(crops)
    sure = probs.max(axis=1) >= net.sure
    right = probs.argmax(axis=1) == classes
    return {
        "threshold": net.sure,
        "sure": int(sure.sum()),
        "sure_right": round(float(right[sure].mean()), 4) if sure.any() else None,
        "unsure": int((~sure).sum()),
        "unsure_right": round(float(right[~sure].mean()), 4) if (~sure).any() else None,
    }


if __name__ == "__main__":
    raise SystemExit(main())
