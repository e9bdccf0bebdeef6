"""Train a die spotter: ``models/bockspot.onnx`` (Rock the Bock) or ``models/pipspot.onnx`` (pips).

Needs torch, which the project does not depend on; training runs in its own venv::

    /work/train-venv/bin/python tools/train_spotter.py              # writes models/bockspot.*
    /work/train-venv/bin/python tools/train_spotter.py --kind pips  # writes models/pipspot.*
    /work/train-venv/bin/python tools/train_spotter.py --frames 200 --epochs 2 --out /tmp/s.onnx

Pip dice (``--kind pips``): rendered pip throws (no palettes: the renderer draws its own
die colours) and the even-index photos of ``--photos`` (tray-a, sorted by name, ``[0::2]``;
the odd ones are the hold-out), each photo ``--photo-repeat`` times per epoch. The pip
spotter reports the edge the pip net reads (``companion.vision.spot.KIND_EDGE``,
``PHOTO_EDGE``). Photo labels have no turn: photo dice add nothing to the turn loss.
The evaluation folders of pip dice use seeds 8101 and 8102; training refuses them.

Data: ``--frames`` throws drawn by ``companion.synth.render.render_throw`` with seeds
``frame_seed(--seed, i)`` (the evaluation folders use 9001 and 9002, tuning used 4242,
4243 and 4244; the default training seed 31 and its frame seeds do not meet them). Each
throw has 1-10 dice (10 in a third of them), normal or hard light (half each), at 640x480
to 1280x960, and, for three throws in four, a random palette: random face backgrounds
and skull colours, a random die body and a random wolf background, so the spotter
learns "a rounded square with a skull on it", not the colours of one set. Frames are shrunk to
the working size exactly as at run time (``companion.vision.spot.to_working``) and the
truth (top-face centre, edge, turn) mapped along.

With ``--empties N``, N frames of a table alone (wood, cloth and the bar's clutter of
coasters, glasses and caps; no tray, no die: ``empty_sample``) join the throws with no
die in them: without a profile the Bock spotter looks over the whole frame, and one
trained on trays alone took coasters and caps for dice (``tools/table_alone.py --kind
bock``).

Each epoch cuts fresh ``--crop`` square crops of those working images: scaled by 0.75-1.35
(dice of other sizes), mirrored and transposed (turns), colour channels swapped,
gamma, blur and noise varied. Loss: the CenterNet focal loss on the peak map against
Gaussian peaks at the die centres, L1 on offset and log size and squared error on
cos/sin 4θ at the cells near each centre (any of them may end up the peak; an L1 loss
left the turn maps stuck at zero). The model is written as a plain
ONNX graph (Conv, Relu, Resize, Concat; batch norm folded in; opset 11) so OpenCV
4.6 loads it, checked against torch, measured on ``--tune-frames`` hard throws of the
tuning seed, and ``models/bockspot.json`` records how it was made and what it scored.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from onnx import TensorProto, helper, numpy_helper
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the script runs from a venv that need not install the project

from companion.evaluation import LabelledDie, match, read_labels  # noqa: E402
from companion.synth.render import frame_seed, render_throw, shifted_palette  # noqa: E402
from companion.synth.scene import SURROUNDS, table_alone  # noqa: E402
from companion.vision.faces_look import DEFAULT_PALETTE, FACES, FaceLook, Palette  # noqa: E402
from companion.vision.spot import (  # noqa: E402
    KIND_EDGE,
    MAPS,
    PHOTO_EDGE,
    SIZE_UNIT,
    STRIDE,
    DieSpotter,
    to_blob,
    to_working,
    working_scale,
)
from tools.onnx_export import save_graph  # noqa: E402

FRAME_SIZES = ((640, 480), (800, 600), (960, 720), (1280, 960))
STEM = 24  # channels of the 4x4 stride-4 patch convolution
# (out channels, stride, dilation) of the 3x3 convolutions after the stem: the first
# halves the maps again (stride 8), the dilated one widens the view to about three dice.
TRUNK = ((32, 2, 1), (32, 1, 1), (32, 1, 2), (32, 1, 1))
UP = 24  # channels of the 1x1 convolution at stride 8 whose maps are doubled back to stride 4
FUSE = 16  # channels of the 1x1 and 3x3 convolutions that join it with the stem
# Seeds of each kind's evaluation folders: never rendered for training or tuning.
EVAL_SEEDS = {"bock": (9001, 9002), "pips": (8101, 8102)}
# What each kind trains with unless told otherwise.
KIND_DEFAULTS = {
    "bock": {
        "frames": 1600,
        "epochs": 60,
        "seed": 31,
        "out": str(ROOT / "models" / "bockspot.onnx"),
    },
    "pips": {
        "frames": 1000,
        "epochs": 50,
        "seed": 37,
        "out": str(ROOT / "models" / "pipspot.onnx"),
    },
}
MIX = {
    "bock": "1-10 dice (10 in a third), hard in half, frame sizes "
    + ", ".join(f"{w}x{h}" for w, h in FRAME_SIZES)
    + "; palette random in 3/4, default 1/8, shifted 1/8",
    "pips": "1-10 dice (10 in a quarter), hard in half, frame sizes "
    + ", ".join(f"{w}x{h}" for w, h in FRAME_SIZES)
    + " (1/4, 1/5, 1/5, 7/20); the renderer's own die colours, trays and light",
}
DEFAULT_PHOTOS = str(ROOT.parent / "shared" / "dice-photos" / "tray-a")


def random_palette(rng: np.random.Generator) -> Palette:
    """A Rock the Bock set of random colours: faces, skulls, wolf and body all drawn anew."""

    def colour(lo: int = 0, hi: int = 256) -> tuple[int, int, int]:
        b, g, r = (int(v) for v in rng.integers(lo, hi, 3))
        return (b, g, r)

    looks = []
    for face in FACES:
        if face == "bock":
            bg, icon = colour(170, 256), colour(0, 90)  # a dark skull on a light face
        elif face == "wolf":
            bg, icon = colour(15, 120), colour(120, 240)  # a light skull on a dark face
        else:
            # A saturated player colour: one or two channels high, the rest low.
            hsv = np.array(
                [[[rng.integers(0, 180), rng.integers(120, 256), rng.integers(110, 250)]]],
                np.uint8,
            )
            b, g, r = (int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
            bg, icon = (b, g, r), colour(160, 250)
        looks.append(FaceLook(background=bg, icon=icon))
    return Palette(looks=tuple(looks), body=colour(10, 250))


def render_sample(seed: int, kind: str = "bock") -> tuple[np.ndarray, np.ndarray]:
    """One training throw at working size and its dice (cx, cy, edge, angle) in working px."""
    if kind == "pips":
        return render_pip_sample(seed)
    rng = np.random.default_rng([seed, 1])
    size = FRAME_SIZES[int(rng.choice(4, p=(0.4, 0.2, 0.2, 0.2)))]
    n = 10 if rng.random() < 1 / 3 else int(rng.integers(1, 11))
    pick = rng.random()
    if pick < 0.75:
        palette = random_palette(rng)
    elif pick < 0.87:
        palette = DEFAULT_PALETTE
    else:
        palette = shifted_palette()
    throw = render_throw(seed, n, kind="bock", size=size, hard=rng.random() < 0.5, palette=palette)
    scale = working_scale(*size)
    work = to_working(throw.image, scale)
    dice = np.array(
        [
            (
                (d.center[0] + 0.5) * scale - 0.5,
                (d.center[1] + 0.5) * scale - 0.5,
                d.size * scale,
                d.angle,
            )
            for d in throw.dice
        ],
        np.float32,
    )
    return work, dice


def render_pip_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One pip throw at working size and its dice (cx, cy, edge, angle) in working px.

    The edge is the pip spotter's: ``KIND_EDGE["pips"]`` top-face edges.
    """
    rng = np.random.default_rng([seed, 1])
    size = FRAME_SIZES[int(rng.choice(4, p=(0.25, 0.2, 0.2, 0.35)))]
    n = 10 if rng.random() < 1 / 4 else int(rng.integers(1, 11))
    throw = render_throw(seed, n, kind="pips", size=size, hard=rng.random() < 0.5)
    scale = working_scale(*size)
    work = to_working(throw.image, scale)
    edge = KIND_EDGE["pips"]
    dice = np.array(
        [
            (
                (d.center[0] + 0.5) * scale - 0.5,
                (d.center[1] + 0.5) * scale - 0.5,
                edge * d.size * scale,
                d.angle,
            )
            for d in throw.dice
        ],
        np.float32,
    ).reshape(-1, 4)
    return work, dice


def photo_samples(folder: Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """The even-index photos of ``folder`` (sorted by name) at working size, with their dice.

    Each die is (cx, cy, edge, NaN): the label's centre, ``PHOTO_EDGE`` of its box's longer
    side, and no turn (the labels have none). The odd photos are never read: the hold-out.
    """
    images = sorted((folder / "images").glob("*.jpg"))[0::2]
    if not images:
        raise SystemExit(f"no photos under {folder / 'images'}; pass --photos DIR or --photos ''")
    out = []
    for path in images:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        h, w = frame.shape[:2]
        scale = working_scale(w, h)
        labels = read_labels(folder / "labels" / f"{path.stem}.txt", w, h)
        dice = np.array(
            [
                (
                    (d.x + 0.5) * scale - 0.5,
                    (d.y + 0.5) * scale - 0.5,
                    PHOTO_EDGE * max(d.w, d.h) * scale,
                    math.nan,
                )
                for d in labels
            ],
            np.float32,
        ).reshape(-1, 4)
        out.append((to_working(frame, scale), dice))
    return out


def empty_sample(seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Frame ``k`` of a table alone (wood, cloth and the bar's clutter in turn, no tray and
    no die: ``companion.synth.scene.table_alone``) at working size, with no dice.

    The frames are drawn from ``default_rng([seed, 3, k])``, a stream that never meets the
    single-integer seeds ``tools/table_alone.py`` measures with.
    """
    frame = table_alone(SURROUNDS[k % len(SURROUNDS)], np.random.default_rng([seed, 3, k]))
    h, w = frame.shape[:2]
    return to_working(frame, working_scale(w, h)), np.zeros((0, 4), np.float32)


def empty_samples(seed: int, count: int, workers: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` frames of a table alone (``empty_sample``), drawn by ``workers`` processes."""
    if workers <= 1:
        return [empty_sample(seed, k) for k in range(count)]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return pool.starmap(empty_sample, [(seed, k) for k in range(count)], chunksize=8)


def render_all(
    seed: int, count: int, workers: int, kind: str = "bock"
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` training throws, rendered by ``workers`` processes, in seed order."""
    seeds = [frame_seed(seed, i) for i in range(count)]
    if workers <= 1:
        return [render_sample(s, kind) for s in seeds]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return pool.map(functools.partial(render_sample, kind=kind), seeds, chunksize=16)


def load_or_render(
    seed: int, count: int, workers: int, cache: str | None, kind: str = "bock"
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The training throws from ``cache`` when it holds this kind, seed and count, else rendered."""
    path = Path(cache) if cache else None
    if path is not None and path.is_file():
        with np.load(path) as z:
            same_kind = str(z["kind"]) == kind if "kind" in z else kind == "bock"
            if same_kind and int(z["seed"]) == seed and int(z["count"]) == count:
                counts = np.cumsum(z["n"])[:-1]
                dice = np.split(z["dice"], counts)
                return list(zip(list(z["works"]), dice, strict=True))
    data = render_all(seed, count, workers, kind)
    if path is not None:
        np.savez(
            path,
            kind=kind,
            seed=seed,
            count=count,
            works=np.stack([w for w, _ in data]),
            dice=np.concatenate([d for _, d in data]),
            n=np.array([len(d) for _, d in data]),
        )
    return data


def augment(
    work: np.ndarray, dice: np.ndarray, crop: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """One varied ``crop`` x ``crop`` input (3, crop, crop) and its dice in crop pixels."""
    dice = dice.copy()
    # Colour on the whole frame (a look-up table per channel: gamma and gain), then its
    # statistics exactly as ``to_blob`` takes them at run time.
    gamma = rng.uniform(0.7, 1.4)
    levels = np.arange(256, dtype=np.float32) / 255.0
    table = np.stack([levels**gamma * g for g in rng.uniform(0.5, 1.3, 3)], axis=1)
    table = np.clip(table * 255 + 0.5, 0, 255).astype(np.uint8).reshape(256, 1, 3)
    img = work[:, :, rng.permutation(3)] if rng.random() < 0.6 else work
    img = cv2.LUT(np.ascontiguousarray(img), table)
    mean, std = cv2.meanStdDev(img)
    # Geometry: scale (other die sizes), then a random crop inside the frame.
    s = float(np.exp(rng.uniform(math.log(0.75), math.log(1.35))))
    h, w = img.shape[:2]
    ox = rng.uniform(0.0, max(0.0, w * s - crop))
    oy = rng.uniform(0.0, max(0.0, h * s - crop))
    # Pixel centres map as x' = (x + 0.5) s - 0.5 - ox.
    m = np.array([[s, 0, 0.5 * s - 0.5 - ox], [0, s, 0.5 * s - 0.5 - oy]], np.float32)
    out = cv2.warpAffine(
        img, m, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    if rng.random() < 0.25:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.0)))
    out += rng.normal(0, rng.uniform(0, 5), out.shape).astype(np.float32)
    out = (out - mean.reshape(1, 1, 3)) / np.maximum(std.reshape(1, 1, 3), 4.0)
    out = out.astype(np.float32)
    if len(dice):
        dice[:, 0] = dice[:, 0] * m[0, 0] + m[0, 2]
        dice[:, 1] = dice[:, 1] * m[1, 1] + m[1, 2]
        dice[:, 2] *= s
    if rng.random() < 0.5:
        out = out[:, ::-1]
        dice[:, 0] = crop - 1 - dice[:, 0]
        dice[:, 3] = -dice[:, 3]
    if rng.random() < 0.5:
        out = out[::-1]
        dice[:, 1] = crop - 1 - dice[:, 1]
        dice[:, 3] = -dice[:, 3]
    if rng.random() < 0.5:
        out = out.transpose(1, 0, 2)
        dice[:, [0, 1]] = dice[:, [1, 0]]
        dice[:, 3] = 90.0 - dice[:, 3]
    dice[:, 3] %= 90.0
    return np.ascontiguousarray(out.transpose(2, 0, 1)), dice


def targets(dice: np.ndarray, cells: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Peak map (1, H, W) and regression targets with their masks (MAPS + 1, H, W).

    The peak of each die is a Gaussian around its centre cell (spread ~0.15 edge); the
    regressions are set at every cell within 0.3 edge of the centre, relative to that cell.
    Channel 0 masks the regressions, channel ``MAPS`` the turn: a die whose angle is NaN
    (a photo label) has no turn to learn.
    """
    gh, gw = cells
    heat = np.zeros((gh, gw), np.float32)
    reg = np.zeros((MAPS + 1, gh, gw), np.float32)  # channel 0: regression mask
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for cx, cy, edge, angle in dice:
        u, v = cx / STRIDE, cy / STRIDE
        e = edge / STRIDE
        if not (-0.5 <= u < gw - 0.5 and -0.5 <= v < gh - 0.5):
            continue
        sigma = max(0.45, 0.15 * e)
        d2 = (xs - u) ** 2 + (ys - v) ** 2
        g = np.exp(-d2 / (2 * sigma * sigma))
        iu, iv = int(round(u)), int(round(v))
        g[iv, iu] = 1.0
        heat = np.maximum(heat, g)
        near = d2 <= max(0.3 * e, 0.75) ** 2
        near[iv, iu] = True
        reg[0][near] = 1.0
        reg[1][near] = u - xs[near]
        reg[2][near] = v - ys[near]
        reg[3][near] = math.log(edge / SIZE_UNIT)
        if math.isnan(angle):
            reg[4:, near] = 0.0  # a touching die's turn set before is not this die's
            continue
        a = math.radians(4 * float(angle))
        reg[4][near] = math.cos(a)
        reg[5][near] = math.sin(a)
        reg[MAPS][near] = 1.0
    return heat[None], reg


def _block(cin: int, cout: int, kernel: int, stride: int, dilation: int) -> nn.Sequential:
    pad = dilation * (kernel // 2) if kernel % 2 else 0
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel, stride=stride, padding=pad, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
    )


class Spotter(nn.Module):
    """Patch stem (stride 4), a 3x3 trunk at stride 8, doubled and joined with the stem."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = _block(3, STEM, 4, 4, 1)
        layers = []
        c = STEM
        for cout, stride, dil in TRUNK:
            layers.append(_block(c, cout, 3, stride, dil))
            c = cout
        self.trunk = nn.Sequential(*layers)
        # Back to stride 4: a 1x1 convolution at stride 8, each coarse cell copied to the
        # four finer cells under it (nearest-neighbour doubling); joined with the stem's
        # maps, the convolutions after it tell where in the coarse cell a centre lies.
        # A 2x2 stride-2 transposed convolution did the same job but took 45 of 52 ms on
        # OpenCV 5's classic DNN engine (4.6: 2.5 ms); this runs the whole net on the
        # classic engine in 6 ms (320x320, one thread).
        self.up = nn.Sequential(_block(c, UP, 1, 1, 1), nn.Upsample(scale_factor=2.0))
        self.fuse = _block(UP + STEM, FUSE, 1, 1, 1)
        self.refine = _block(FUSE, FUSE, 3, 1, 1)
        self.head = nn.Conv2d(FUSE, MAPS, 1)
        with torch.no_grad():
            # Start the peak map at "no die" (p ~ 0.01), as CenterNet does.
            self.head.bias.zero_()
            self.head.bias[0] = -4.6

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s4 = self.stem(x)
        up = self.up(self.trunk(s4))
        return self.head(self.refine(self.fuse(torch.cat([up, s4], 1))))


def focal_loss(logit: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss, normalised by the number of dice."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = heat >= 0.999
    pos_loss = -torch.log(p) * (1 - p) ** 2
    neg_loss = -torch.log(1 - p) * p**2 * (1 - heat) ** 4
    n = pos.sum().clamp(min=1)
    return (pos_loss[pos].sum() + neg_loss[~pos].sum()) / n


def train(
    data: list[tuple[np.ndarray, np.ndarray]], epochs: int, crop: int, seed: int
) -> tuple[Spotter, list[dict]]:
    """Train on fresh crops of ``data`` each epoch; returns the model and a log per epoch."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    # Channels-last tensors run the convolutions about three times faster on CPU.
    model = Spotter().to(memory_format=torch.channels_last)
    batch = 32
    steps = epochs * math.ceil(len(data) / batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=4e-3, total_steps=steps, pct_start=0.15
    )
    cells = (crop // STRIDE, crop // STRIDE)
    log = []
    for epoch in range(epochs):
        t0 = time.perf_counter()
        order = rng.permutation(len(data))
        model.train()
        sums = {"heat": 0.0, "offset": 0.0, "size": 0.0, "angle": 0.0}
        n_batches = 0
        for start in range(0, len(order), batch):
            xs, heats, regs = [], [], []
            for k in order[start : start + batch]:
                x, dice = augment(*data[k], crop, rng)
                heat, reg = targets(dice, cells)
                xs.append(x)
                heats.append(heat)
                regs.append(reg)
            x = torch.from_numpy(np.stack(xs)).contiguous(memory_format=torch.channels_last)
            heat = torch.from_numpy(np.stack(heats))
            reg = torch.from_numpy(np.stack(regs))
            out = model(x)
            l_heat = focal_loss(out[:, :1], heat)
            mask = reg[:, 0] > 0
            n = mask.sum().clamp(min=1)
            l_off = (out[:, 1:3] - reg[:, 1:3]).abs().sum(1)[mask].sum() / n
            l_size = (out[:, 3] - reg[:, 3]).abs()[mask].sum() / n
            # Squared error for the turn: an L1 loss left the turn maps stuck at zero.
            turn = reg[:, MAPS] > 0
            l_angle = (out[:, 4:6] - reg[:, 4:6]).square().sum(1)[turn].sum() / turn.sum().clamp(
                min=1
            )
            loss = l_heat + l_off + 2.0 * l_size + l_angle
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            for key, value in zip(sums, (l_heat, l_off, l_size, l_angle), strict=True):
                sums[key] += float(value.detach())
            n_batches += 1
        entry = {"epoch": epoch + 1} | {k: round(v / n_batches, 4) for k, v in sums.items()}
        entry["seconds"] = round(time.perf_counter() - t0, 1)
        log.append(entry)
        print(json.dumps(entry), flush=True)
    model.eval()
    return model.to(memory_format=torch.contiguous_format), log


def _folded(block: nn.Sequential) -> tuple[np.ndarray, np.ndarray]:
    """The block's conv weight and bias with its batch norm folded in."""
    conv, bn = block[0], block[1]
    g = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
    w = conv.weight.detach() * g[:, None, None, None]
    b = bn.bias.detach() - bn.running_mean * g
    return w.numpy(), b.numpy()


def export_onnx(model: Spotter, path: Path) -> None:
    """Write the net as a hand-built ONNX graph (Conv, Relu, Resize, Concat; opset 11)."""
    nodes: list = []
    inits: list = []

    def conv(x: str, w: np.ndarray, b: np.ndarray, stride: int, dil: int, relu: bool) -> str:
        k = len(nodes)
        kernel = w.shape[2]
        pad = dil * (kernel // 2) if kernel % 2 else 0
        inits.extend(
            [
                numpy_helper.from_array(w.astype(np.float32), f"w{k}"),
                numpy_helper.from_array(b.astype(np.float32), f"b{k}"),
            ]
        )
        nodes.append(
            helper.make_node(
                "Conv",
                [x, f"w{k}", f"b{k}"],
                [f"c{k}"],
                kernel_shape=[kernel, kernel],
                pads=[pad, pad, pad, pad],
                strides=[stride, stride],
                dilations=[dil, dil],
            )
        )
        if not relu:
            return f"c{k}"
        nodes.append(helper.make_node("Relu", [f"c{k}"], [f"r{k}"]))
        return f"r{k}"

    s4 = conv("input", *_folded(model.stem), 4, 1, True)
    x = s4
    for block, (_, stride, dil) in zip(model.trunk, TRUNK, strict=True):
        x = conv(x, *_folded(block), stride, dil, True)
    x = conv(x, *_folded(model.up[0]), 1, 1, True)
    inits.extend(
        [
            numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
            numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"),
        ]
    )
    # torch's nearest doubling: output pixel i takes input pixel floor(i / 2).
    nodes.append(
        helper.make_node(
            "Resize",
            [x, "roi", "scales"],
            ["up"],
            mode="nearest",
            coordinate_transformation_mode="asymmetric",
            nearest_mode="floor",
        )
    )
    nodes.append(helper.make_node("Concat", ["up", s4], ["joined"], axis=1))
    x = conv("joined", *_folded(model.fuse), 1, 1, True)
    x = conv(x, *_folded(model.refine), 1, 1, True)
    head = model.head
    conv(x, head.weight.detach().numpy(), head.bias.detach().numpy(), 1, 1, False)
    nodes[-1].output[0] = "output"
    save_graph(
        nodes,
        inits,
        path.stem,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, "H", "W"])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, MAPS, "h", "w"])],
        "tools/train_spotter.py",
        path,
    )


def spot_figures(spotter: DieSpotter, seed: int, count: int, kind: str = "bock") -> dict:
    """How well the exported spotter finds the dice of ``count`` hard 1280x960 throws.

    A die is found when a spot lies within a tenth of its edge; extra spots match no die.
    Size errors are against the kind's edge (``KIND_EDGE``).
    """
    found = extra = total = exact = 0
    centre_err, size_err, angle_err, ms = [], [], [], []
    cv2.setNumThreads(1)
    for i in range(count):
        throw = render_throw(frame_seed(seed, i), 10, kind=kind, hard=True)
        t0 = time.perf_counter()
        spots = spotter.spot(throw.image)
        ms.append((time.perf_counter() - t0) * 1e3)
        labels = [LabelledDie(d.value, *d.center, 0.2 * d.size, 0.2 * d.size) for d in throw.dice]
        pairs = match(labels, [s.center for s in spots])
        for a, b in pairs:
            die, s = throw.dice[a], spots[b]
            centre_err.append(math.dist(die.center, s.center) / die.size)
            size_err.append(abs(s.size / (KIND_EDGE[kind] * die.size) - 1))
            diff = abs(s.angle - die.angle) % 90
            angle_err.append(min(diff, 90 - diff))
        found += len(pairs)
        extra += len(spots) - len(pairs)
        total += len(throw.dice)
        exact += len(pairs) == len(throw.dice) == len(spots)

    def median(values: list[float]) -> float | None:
        return round(statistics.median(values), 4) if values else None

    return {
        "frames": f"{count} hard 1280x960 throws of 10 dice, seed {seed}",
        "found_within_tenth_edge": round(found / total, 4),
        "extra": extra,
        "frames_all_found_none_extra": round(exact / count, 4),
        "centre_error_edges_median": median(centre_err),
        "size_error_median": median(size_err),
        "angle_error_deg_median": median(angle_err),
        "ms_median_one_thread": median(ms),
    }


def main(argv: list[str] | None = None) -> int:
    """Render the data, train, export and check the model; write its metadata."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(KIND_DEFAULTS), default="bock")
    parser.add_argument(
        "--frames", type=int, help="rendered training throws (bock 1600, pips 1000)"
    )
    parser.add_argument("--epochs", type=int, help="bock 60, pips 50")
    parser.add_argument("--crop", type=int, default=128, help="side of training crops")
    parser.add_argument("--seed", type=int, help="bock 31, pips 37")
    parser.add_argument(
        "--photos",
        help="pips: folder of labelled photos whose even-index ones are trained on"
        f" (default {DEFAULT_PHOTOS}; '' for none)",
    )
    parser.add_argument(
        "--photo-repeat", type=int, default=8, help="pips: times each photo is cut per epoch"
    )
    parser.add_argument(
        "--empties",
        type=int,
        default=0,
        help="frames of a table alone (no tray, no die) trained on as 'no die anywhere'"
        " (empty_sample)",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes rendering throws")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (on the shared 2-core machine one thread trained 5-9x faster"
        " than two while another job ran)",
    )
    parser.add_argument("--tune-seed", type=int, default=4242, help="seed of the check frames")
    parser.add_argument("--tune-frames", type=int, default=40)
    parser.add_argument("--out", help="model file (default models/bockspot.onnx or pipspot.onnx)")
    parser.add_argument(
        "--cache", help="keep the rendered throws in this .npz and reuse them (same seed, frames)"
    )
    args = parser.parse_args(argv)
    for key, value in KIND_DEFAULTS[args.kind].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.photos is None:
        args.photos = DEFAULT_PHOTOS if args.kind == "pips" else ""
    banned = EVAL_SEEDS[args.kind]
    if args.seed in banned or args.tune_seed in banned:
        raise SystemExit(
            f"seeds {banned[0]} and {banned[1]} are the {args.kind} evaluation folders;"
            " train on others"
        )

    torch.set_num_threads(args.threads)
    cv2.setRNGSeed(args.seed)
    out = Path(args.out)
    t0 = time.perf_counter()
    data = load_or_render(args.seed, args.frames, args.workers, args.cache, args.kind)
    t1 = time.perf_counter()
    n_dice = sum(len(d) for _, d in data)
    print(f"{len(data)} throws, {n_dice} dice rendered in {t1 - t0:.0f} s", flush=True)
    photos = photo_samples(Path(args.photos)) if args.photos else []
    n_photo_dice = sum(len(d) for _, d in photos)
    if photos:
        print(f"{len(photos)} photos, {n_photo_dice} dice", flush=True)
    empties = empty_samples(args.seed, args.empties, args.workers) if args.empties else []
    if empties:
        print(f"{len(empties)} frames of a table alone", flush=True)
    model, log = train(
        data + photos * args.photo_repeat + empties, args.epochs, args.crop, args.seed
    )
    t2 = time.perf_counter()
    export_onnx(model, out)
    spotter = DieSpotter(out)
    # The exported graph must compute what torch computed (on a full working frame).
    work, _ = data[0]
    blob = to_blob(work)
    with torch.no_grad():
        expected = model(torch.from_numpy(blob)).numpy()[0]
    spotter._net.setInput(blob)
    got = np.asarray(spotter._net.forward(), np.float32)[0]
    drift = float(np.abs(got - expected).max())
    if drift > 1e-3:
        raise SystemExit(f"cv2.dnn disagrees with torch by {drift:.2g}; the export is broken")
    figures = spot_figures(spotter, args.tune_seed, args.tune_frames, args.kind)
    print(json.dumps(figures), flush=True)
    params = int(sum(p.numel() for p in model.parameters()))
    meta = {
        "model": out.name,
        "kind": args.kind,
        "edge": (
            f"{KIND_EDGE[args.kind]:g} x the rendered top face's edge"
            + (f"; {PHOTO_EDGE} x the photo label box's longer side" if photos else "")
        ),
        "made_by": "tools/train_spotter.py",
        "command": " ".join(
            ["tools/train_spotter.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "date": datetime.date.today().isoformat(),
        "seed": args.seed,
        "input": [1, 3, "H", "W"],
        "input_note": "BGR frame shrunk so its longer side is 320 px (1280x960 -> 320x240), "
        "padded to a multiple of 8; each channel at zero mean, unit spread over the frame "
        "(companion.vision.spot.to_working, to_blob)",
        "outputs": f"{MAPS} maps at stride {STRIDE}: peak logit, centre offset x, y (cells), "
        f"log(edge / {SIZE_UNIT:g} working px), cos 4θ, sin 4θ",
        "layers": f"Conv4x4/4 {STEM}; Conv3x3 (stride, dilation) "
        + ", ".join(f"{o} (s{s}, d{d})" for o, s, d in TRUNK)
        + f"; Conv1x1 {UP}, nearest doubling to stride 4, Concat with the stem; Conv1x1 {FUSE};"
        f" Conv3x3 {FUSE};"
        f" Conv1x1 {MAPS}."
        " ReLU after every conv but the last; batch norm folded into the convolutions",
        "opset": 11,
        "parameters": params,
        "bytes": out.stat().st_size,
        "data": {
            "throws": args.frames,
            "dice": n_dice,
            "frame_seeds": f"companion.synth.render.frame_seed({args.seed}, i), i < {args.frames}",
            "mix": MIX[args.kind],
            "photos": (
                f"{len(photos)} even-index photos of {args.photos} ({n_photo_dice} dice),"
                f" each {args.photo_repeat}x per epoch, edge {PHOTO_EDGE} x the label box's"
                " longer side, no turn loss"
                if photos
                else "none"
            ),
            "table_alone_frames": (
                f"{args.empties}: tools/train_spotter.py empty_sample({args.seed}, k),"
                " wood, cloth and bar in turn, no die"
                if empties
                else "none"
            ),
            "crops": f"{args.crop} px, scaled 0.75-1.35, mirrored, transposed, channels "
            "swapped, gamma, gain, blur, noise",
        },
        "epochs": args.epochs,
        "render_seconds": round(t1 - t0, 1),
        "train_seconds": round(t2 - t1, 1),
        "train_log_last": log[-1],
        "export_drift": drift,
        "tuning_check": figures,
    }
    meta_path = out.with_suffix(".json")
    meta_path.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out} and {meta_path} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
