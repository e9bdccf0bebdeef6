"""Spot dice with a small trained fully-convolutional net (``models/bockspot.onnx`` and others).

One net family, one model per kind of dice: ``bockspot.onnx`` for Rock the Bock dice and
``pipspot.onnx`` for pip dice. They differ in what they were trained on and in the edge
they report: the Bock spotter gives the top face's edge; the pip spotter gives the edge
the pip net was trained to read, the classical finder's (about 1.3 top-face edges on
rendered frames, 0.8 of tray-a's labelled boxes), see ``KIND_EDGE``.

The classical finder (``companion.vision.detect``) separates dice from the tray by colour
and splits blobs by shape; touching dice, dark wolf faces on dark trays and side walls
are where it slips. The spotter instead looks at the whole frame at once:

1. The frame is shrunk (pixel-area averaging) so its longer side is ``WORK_LONG`` pixels:
   a 1280x960 frame becomes 320x240, where a die's top face is 14-20 pixels wide. With a
   calibrated die size the scale is chosen so a die is about ``WORK_DIE`` pixels wide
   instead, when the plain scale would make it smaller or larger than the net was
   trained on. Width and height are padded (edge pixels repeated) to a multiple of
   ``ALIGN``, so the net's coarse and fine maps line up.
2. Each colour channel is set to zero mean and unit spread over the frame
   (``to_blob``): a colour cast or dim light multiplies a channel, which this undoes.
3. The net gives, per output cell (``STRIDE`` working pixels), six maps: the logit that a
   top face's centre lies in the cell (a CenterNet-style peak), the centre's offset from
   the cell in cells (x, y), the log of the edge length over ``SIZE_UNIT`` working
   pixels, and cos 4θ, sin 4θ of the face's turn θ (a square repeats every 90°).
4. ``decode``: cells that are the maximum of their 3x3 neighbourhood and above the
   threshold become ``DieRegion`` s in frame pixels; a weaker peak closer than half an
   edge to a stronger one is the same die and dropped.

The net: a 4x4 stride-4 convolution cuts the working image into patches; four 3x3
convolutions at stride 8 (one dilated) see about three dice around each cell, enough to
tell where one touching die ends and the next begins; a 1x1 convolution and a
nearest-neighbour doubling bring them back to stride 4, joined with the patch features
(which tell where in the coarse cell a centre lies) and mixed by a 1x1 and a 3x3
convolution into the six maps. Only Conv, Relu, Resize and Concat at ONNX opset 11 are
in the model (batch norm is folded into the convolutions), so OpenCV 4.6 loads it. The
first Bock spotter (shipped until 2026-12-04) was made when a 2x2 stride-2 transposed
convolution did the doubling; a model of that kind loads and runs the same way, on the
engine that suits it (``companion.vision.dnn``).
``tools/train_spotter.py`` makes them (``--kind bock|pips``); ``models/bockspot.json`` and
``models/pipspot.json`` say how and what they scored.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from companion.vision.detect import check_frame
from companion.vision.dnn import read_onnx
from companion.vision.tray import TrayProfile
from companion.vision.types import DieRegion, VisionError

WORK_LONG = 320  # longer side of the working image in pixels
WORK_DIE = 17.0  # die edge in working pixels the net sees most (1280x960 frames: 14-20)
STRIDE = 4  # working pixels per output cell
ALIGN = 8  # the working image is padded to a multiple of this (the net's coarsest stride)
SIZE_UNIT = 16.0  # the size map holds log(edge / SIZE_UNIT), edge in working pixels
MAPS = 6  # heat logit, dx, dy, log size, cos 4θ, sin 4θ
THRESHOLD = 0.35  # peak probability above which a cell's die is reported
NEAR_BUCKET = 4.0  # cells per bucket of the kept dice in ``decode``
# A working image of more than this many pixels goes through the net in tiles: the net
# holds every layer's output at once, about 57 bytes per working pixel, so the 1280x960
# pass of the die size estimate took 70 MB in one piece (bench/bench_pi.py's budget for
# the whole companion is 150 MB). Tiles are at most this area's core plus the margin.
TILE_AREA = 640 * 480
# Working pixels each tile reads beyond its core on every inner side: more than half the
# net's receptive field (84 working pixels: 4x4/4, then 3x3 convs at strides 8, 8, 8
# (dilated 2) and 8, then one at 4), so the stitched maps equal the whole image's.
TILE_MARGIN = 64
# The working image is never made smaller or larger than this, whatever the die size.
_LONG_RANGE = (160, 640)
# Die sizes (working pixels) the net was trained on; outside them a calibrated size
# rescales the working image.
TRAINED_DIE = (11.0, 26.0)
# Working sizes (longer side) the die size is estimated at without a calibration: dice
# from 20 to 120 pixels in frames up to 2028 pixels wide land in the trained range at one.
ESTIMATE_SIDES = (160, 320, 640, 1280)
# A die found at a finer working size on one found coarser, and smaller than this share
# of it, is taken for one of its pips (pips came out 0.27-0.5 of their die's edge).
PIP_SHARE = 0.5
# The same for the pip spotter: on pip dice of 60 pixels and more, the spotter at the
# finest working size also takes a group of pips (a six's column, a five's corner) for a
# die of 0.51-0.59 of its edge, and which size won flipped between frames of one rest
# (validation camera evening 88-5, hq-near: 4 of 11 frames of its first rest measured
# half the die). On 12 validation camera evenings (every 10th frame) measures under 0.7
# of the calibrated die went 6 -> 4 of 688; the validation scenes read alike. Rock the
# Bock faces keep ``PIP_SHARE``.
PIP_PARTS = 0.6
# Only dice the spotter is at least this sure of count for the estimate.
ESTIMATE_SURE = 0.6
MODELS = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = MODELS / "bockspot.onnx"
PIP_MODEL = MODELS / "pipspot.onnx"
# The edge each kind's spotter reports, in rendered top-face edges: the Bock spotter
# gives the top face; the pip spotter gives what the pip net reads, the classical
# finder's outline, which takes in side walls (median 1.29 top-face edges on 30 rendered
# pip throws, seed 555, normal and hard, 640x480 and 1280x960).
KIND_EDGE = {"bock": 1.0, "pips": 1.3}
# On tray-a's photos the pip spotter's edge is this share of the labelled box's longer
# side, as the pip net's training took the finder's edge there.
PHOTO_EDGE = 0.8


class SpotterError(VisionError):
    """The spotter model is missing, broken or does not give the maps it should."""


def working_scale(width: int, height: int, die_size: float | None = None) -> float:
    """Factor from frame pixels to working pixels for a ``width`` x ``height`` frame.

    ``die_size`` (frame pixels, from a calibration) moves the scale only when the plain
    scale would put the die outside the sizes the net was trained on.
    """
    longest = max(width, height)
    scale = WORK_LONG / longest
    if die_size:
        die = die_size * scale
        if not TRAINED_DIE[0] <= die <= TRAINED_DIE[1]:
            scale = WORK_DIE / die_size
            lo, hi = _LONG_RANGE
            scale = min(max(scale, lo / longest), hi / longest)
    return scale


def to_working(frame: np.ndarray, scale: float) -> np.ndarray:
    """The frame resized by ``scale`` and padded to a multiple of ``ALIGN`` (uint8 BGR)."""
    h, w = frame.shape[:2]
    size = (max(ALIGN, round(w * scale)), max(ALIGN, round(h * scale)))
    work = frame
    # Area averaging by exactly two has a fast path in OpenCV: halving twice and then
    # averaging the rest costs a twentieth of one step by four (1280x960 to 320x240),
    # and the result differs by at most one grey level.
    while work.shape[1] >= 2 * size[0] and work.shape[0] >= 2 * size[1]:
        half = (work.shape[1] // 2, work.shape[0] // 2)
        work = cv2.resize(work, half, interpolation=cv2.INTER_AREA)
    if (work.shape[1], work.shape[0]) != size:
        interp = cv2.INTER_AREA if size[0] < work.shape[1] else cv2.INTER_LINEAR
        work = cv2.resize(work, size, interpolation=interp)
    pad_x, pad_y = -size[0] % ALIGN, -size[1] % ALIGN
    if pad_x or pad_y:
        work = cv2.copyMakeBorder(work, 0, pad_y, 0, pad_x, cv2.BORDER_REPLICATE)
    return work


def to_blob(work: np.ndarray, norm: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The net's input (1, 3, H, W) float32: each channel at zero mean and unit spread.

    The spread has a floor so a nearly flat frame (an empty tray in the dark) does not
    have its noise blown up to full contrast. ``norm`` (``normalisation`` of a larger
    image) makes a tile of it come out as it would in the whole image's blob.
    """
    gain, offset = normalisation(work) if norm is None else norm
    # Channel by channel into the planar blob, then scaled in place: a fifth of the time
    # of a float colour transform followed by cv2.dnn.blobFromImage (0.5 against 2.4 ms
    # for 320x320, one thread).
    blob = np.empty((1, 3, *work.shape[:2]), np.float32)
    for c in range(3):
        blob[0, c] = cv2.extractChannel(work, c)
    blob *= gain[None, :, None, None]
    blob -= offset[None, :, None, None]
    return blob


def normalisation(work: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per channel gain and offset that bring ``work`` to zero mean and unit spread."""
    mean, std = cv2.meanStdDev(work)
    gain = (1.0 / np.maximum(std.ravel(), 4.0)).astype(np.float32)
    offset = (mean.ravel() * gain).astype(np.float32)
    return gain, offset


def frame_to_cell(x: float, y: float, scale: float) -> tuple[float, float]:
    """Frame pixel coordinates to output-cell coordinates (cell (0, 0) at the origin)."""
    return ((x + 0.5) * scale - 0.5) / STRIDE, ((y + 0.5) * scale - 0.5) / STRIDE


def cell_to_frame(u: float, v: float, scale: float) -> tuple[float, float]:
    """Output-cell coordinates back to frame pixel coordinates (``frame_to_cell`` inverted)."""
    return (u * STRIDE + 0.5) / scale - 0.5, (v * STRIDE + 0.5) / scale - 0.5


def square_corners(
    center: tuple[float, float], edge: float, angle: float
) -> tuple[tuple[float, float], ...]:
    """Corners of a square of ``edge`` turned by ``angle`` degrees, clockwise on screen."""
    a = math.radians(angle)
    ux, uy = math.cos(a) * edge / 2, math.sin(a) * edge / 2
    cx, cy = center
    return (
        (cx - ux + uy, cy - uy - ux),
        (cx + ux + uy, cy + uy - ux),
        (cx + ux - uy, cy + uy + ux),
        (cx - ux - uy, cy - uy + ux),
    )


def decode(maps: np.ndarray, scale: float, threshold: float = THRESHOLD) -> list[DieRegion]:
    """Turn the net's maps (``MAPS``, H, W) into dice in frame pixels, surest first.

    A die is a cell whose peak probability is the largest of its 3x3 neighbours and at
    least ``threshold``; a weaker peak within half an edge of a stronger one is dropped.
    """
    if maps.ndim != 3 or maps.shape[0] != MAPS:
        raise SpotterError(f"expected spotter maps of shape ({MAPS}, H, W), got {maps.shape}")
    logit = np.ascontiguousarray(maps[0], np.float32)
    prob = 1.0 / (1.0 + np.exp(-np.clip(logit, -30.0, 30.0)))
    peak = (prob >= cv2.dilate(prob, np.ones((3, 3), np.uint8))) & (prob >= threshold)
    ys, xs = np.nonzero(peak)
    order = np.argsort(-prob[ys, xs], kind="stable")
    # The dice kept so far, by bucket of ``NEAR_BUCKET`` cells: a peak is compared with
    # those of the buckets within reach only (a printed menu shows thousands of peaks;
    # comparing each with every die kept took seconds a frame).
    kept: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
    biggest = 0.0
    out = []
    for k in order:
        y, x = int(ys[k]), int(xs[k])
        u = x + float(maps[1, y, x])
        v = y + float(maps[2, y, x])
        edge_cells = SIZE_UNIT * math.exp(float(np.clip(maps[3, y, x], -3.0, 3.0))) / STRIDE
        bu, bv = math.floor(u / NEAR_BUCKET), math.floor(v / NEAR_BUCKET)
        n = math.ceil(0.5 * max(edge_cells, biggest) / NEAR_BUCKET)
        near = (
            die
            for i in range(bu - n, bu + n + 1)
            for j in range(bv - n, bv + n + 1)
            for die in kept.get((i, j), ())
        )
        if any(math.hypot(u - ku, v - kv) < 0.5 * max(edge_cells, ke) for ku, kv, ke in near):
            continue
        kept.setdefault((bu, bv), []).append((u, v, edge_cells))
        biggest = max(biggest, edge_cells)
        center = cell_to_frame(u, v, scale)
        edge = edge_cells * STRIDE / scale
        angle = math.degrees(math.atan2(float(maps[5, y, x]), float(maps[4, y, x]))) / 4.0 % 90.0
        out.append(
            DieRegion(
                center=(float(center[0]), float(center[1])),
                size=float(edge),
                angle=float(angle),
                corners=square_corners(center, edge, angle),
                confidence=round(float(prob[y, x]), 4),
            )
        )
    return out


def _cuts(length: int, parts: int) -> list[int]:
    """Where ``parts`` tiles of about equal size along ``length`` working pixels start
    and end, on the ``ALIGN`` grid (the last ends at ``length``, itself on the grid)."""
    step = math.ceil(length / parts / ALIGN) * ALIGN
    return sorted({*range(0, length, step), length})


@functools.lru_cache(maxsize=8)
def _tray_mask(profile: TrayProfile, height: int, width: int) -> np.ndarray:
    # The same frame size comes again and again: draw each tray polygon once.
    return profile.valid_mask((height, width))


class DieSpotter:
    """A die-spotting net, loaded once; finds every die of a frame (the kind its model knows)."""

    # A region this share of a die found at a coarser size, or smaller, lying on it is
    # a part of that die (``estimate_die_size``).
    part_share = PIP_SHARE

    def __init__(self, path: Path | str, threshold: float = THRESHOLD) -> None:
        self.path = Path(path)
        self.threshold = threshold
        if not self.path.is_file():
            raise SpotterError(
                f"spotter model {self.path} not found; train it with tools/train_spotter.py "
                f"or restore models/{self.path.name}"
            )
        try:
            # On the engine that runs it fastest (companion.vision.dnn).
            self._net = read_onnx(self.path)
        except cv2.error as exc:
            raise SpotterError(
                f"OpenCV cannot load the spotter model {self.path} ({exc.msg.strip()}); "
                f"restore models/{self.path.name} or train it again"
            ) from None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r}, threshold={self.threshold})"

    def maps(
        self,
        frame: np.ndarray,
        die_size: float | None = None,
        scale: float | None = None,
        norm_box: tuple[int, int, int, int] | None = None,
    ) -> tuple[np.ndarray, float]:
        """The net's maps (``MAPS``, H, W) for a BGR frame, and the working scale used.

        ``scale`` (working pixels per frame pixel) wins over the one ``working_scale``
        picks from the frame size and ``die_size``. ``norm_box`` (x0, y0, x1, y1 in frame
        pixels) is the part whose colours the input is normalised by (``to_blob``;
        default the whole frame).
        """
        check_frame(frame)
        h, w = frame.shape[:2]
        if scale is None:
            scale = working_scale(w, h, die_size)
        work = to_working(frame, scale)
        norm = None
        if norm_box is not None:
            x0, y0, x1, y1 = (max(0, round(v * scale)) for v in norm_box)
            part = work[y0:y1, x0:x1]
            if part.shape[0] >= ALIGN and part.shape[1] >= ALIGN:
                norm = normalisation(part)
        try:
            return self._tiled(work, norm), scale
        except cv2.error as exc:
            raise SpotterError(
                f"the spotter model {self.path} failed on a {w}x{h} frame ({exc.msg.strip()});"
                f" restore models/{self.path.name} or train it again"
            ) from None

    def _tiled(
        self, work: np.ndarray, norm: tuple[np.ndarray, np.ndarray] | None = None
    ) -> np.ndarray:
        """The net's maps of a working image (``to_working``: sides multiples of
        ``ALIGN``), run in one piece up to ``TILE_AREA`` working pixels and in tiles above.

        Every tile is normalised as the whole image is (``to_blob``); each tile reads
        ``TILE_MARGIN`` beyond its core and only its core's cells are kept, so the maps
        come out as the whole image's would (tests/vision/test_spot.py).
        """
        height, width = work.shape[:2]
        if height * width <= TILE_AREA:
            return self._forward(to_blob(work, norm))
        if norm is None:
            norm = normalisation(work)
        # As few tiles as keep each core within TILE_AREA, cut on the ALIGN grid.
        rows = cols = 1
        while math.ceil(height / rows) * math.ceil(width / cols) > TILE_AREA:
            rows, cols = (rows + 1, cols) if height / rows >= width / cols else (rows, cols + 1)
        ys = _cuts(height, rows)
        xs = _cuts(width, cols)
        maps = np.empty((MAPS, height // STRIDE, width // STRIDE), np.float32)
        for y0, y1 in itertools.pairwise(ys):
            for x0, x1 in itertools.pairwise(xs):
                ya, yb = max(0, y0 - TILE_MARGIN), min(height, y1 + TILE_MARGIN)
                xa, xb = max(0, x0 - TILE_MARGIN), min(width, x1 + TILE_MARGIN)
                part = self._forward(to_blob(work[ya:yb, xa:xb], norm))
                maps[:, y0 // STRIDE:y1 // STRIDE, x0 // STRIDE:x1 // STRIDE] = part[
                    :,
                    (y0 - ya) // STRIDE:(y1 - ya) // STRIDE,
                    (x0 - xa) // STRIDE:(x1 - xa) // STRIDE,
                ]
        return maps

    def _forward(self, blob: np.ndarray) -> np.ndarray:
        """The net's maps (``MAPS``, H / ``STRIDE``, W / ``STRIDE``) of one blob."""
        self._net.setInput(blob)
        out = np.asarray(self._net.forward(), np.float32)
        cells = (blob.shape[2] // STRIDE, blob.shape[3] // STRIDE)
        if out.ndim != 4 or out.shape[:2] != (1, MAPS) or out.shape[2:] != cells:
            raise SpotterError(
                f"spotter model {self.path} gives maps of shape {out.shape}, expected"
                f" (1, {MAPS}, {cells[0]}, {cells[1]}); it was not made by tools/train_spotter.py"
            )
        return out[0]

    def spot(self, frame: np.ndarray, profile: TrayProfile | None = None) -> list[DieRegion]:
        """Every die of a BGR frame as a ``DieRegion`` (top face), surest first.

        With a ``profile``, dice whose centre lies outside the tray are dropped, and a
        calibrated die size steers the working scale (``working_scale``). It does not
        replace the net's edge of each die: the calibration measures the classical
        finder's outline, which takes in side walls (about 1.3 top-face edges on
        rendered frames).
        """
        h, w = frame.shape[:2] if isinstance(frame, np.ndarray) and frame.ndim >= 2 else (0, 0)
        known = None if profile is None else profile.die_in((w, h))
        maps, scale = self.maps(frame, known)
        dice = decode(maps, scale, self.threshold)
        if profile is None:
            return dice
        mask = _tray_mask(profile, h, w)
        inside = []
        for d in dice:
            x = min(max(int(round(d.center[0])), 0), w - 1)
            y = min(max(int(round(d.center[1])), 0), h - 1)
            if mask[y, x]:
                inside.append(d)
        return inside


    def spot_at(
        self, frame: np.ndarray, scale: float, norm_box: tuple[int, int, int, int] | None = None
    ) -> list[DieRegion]:
        """Every die of a BGR frame seen at ``scale`` working pixels per frame pixel
        (``norm_box``: see ``maps``)."""
        maps, scale = self.maps(frame, scale=scale, norm_box=norm_box)
        return decode(maps, scale, self.threshold)

    def estimate_die_size(
        self,
        frame: np.ndarray,
        sides: tuple[int, ...] = ESTIMATE_SIDES,
        accept: Callable[[np.ndarray, list[DieRegion]], list[bool]] | None = None,
    ) -> float | None:
        """The die edge in frame pixels, from the spotter run at a few working sizes.

        At each working size (longer side in ``sides``, coarse to fine, never above the
        frame's own) the dice the net is sure of (``ESTIMATE_SURE``) and that come out
        near a size it was trained on count, weighted by their certainty — but not those
        lying on a die found at a coarser size and under ``part_share`` of its edge: at a
        finer size the pips of a large die pass for small dice (while two small dice
        seen as one at a coarser size are each more than half of it). The size that
        scores most wins (the coarser on a tie) and the median edge of its dice is the
        estimate. None where no size finds a sure die.

        ``accept`` (the frame and the dice found at one size, one answer per die) is a
        second opinion on what the spotter takes for a die: the pip recogniser asks its
        net, so that a coaster's ring or a glass's foot the spotter takes for a large die
        at a coarse size does not set the scale for the whole frame.
        """
        h, w = frame.shape[:2]
        lo, hi = 0.8 * TRAINED_DIE[0], 1.25 * TRAINED_DIE[1]
        seen: list[DieRegion] = []
        best: tuple[float, float] | None = None
        for side in sides:
            scale = min(side, max(w, h)) / max(w, h)
            found = [
                r for r in self.spot_at(frame, scale)
                if r.confidence >= ESTIMATE_SURE and lo <= r.size * scale <= hi
            ]
            fresh = [
                r for r in found
                if not any(
                    math.hypot(r.center[0] - s.center[0], r.center[1] - s.center[1])
                    < 0.6 * s.size
                    and r.size < self.part_share * s.size
                    for s in seen
                )
            ]
            if accept is not None and fresh:
                fresh = [r for r, ok in zip(fresh, accept(frame, fresh), strict=True) if ok]
            score = sum(r.confidence for r in fresh)
            if fresh and (best is None or score > best[0]):
                best = (score, float(np.median([r.size for r in fresh])))
            seen.extend(found)
            if side >= max(w, h):
                break
        return None if best is None else best[1]


class BockSpotter(DieSpotter):
    """The Rock the Bock spotter (``models/bockspot.onnx``): reports each top face."""

    def __init__(self, path: Path | str = DEFAULT_MODEL, threshold: float = THRESHOLD) -> None:
        super().__init__(path, threshold)


class PipSpotter(DieSpotter):
    """The pip dice spotter (``models/pipspot.onnx``): reports regions as the pip net reads them."""

    part_share = PIP_PARTS

    def __init__(self, path: Path | str = PIP_MODEL, threshold: float = THRESHOLD) -> None:
        super().__init__(path, threshold)


Spotter = TypeVar("Spotter", bound=DieSpotter)


def _load_if_there(kind: type[Spotter], path: Path | str) -> Spotter | None:
    """A spotter of ``kind`` from ``path``, or None without that file."""
    if not Path(path).is_file():
        return None
    return kind(path)


def load_spotter(path: Path | str = DEFAULT_MODEL) -> BockSpotter | None:
    """The Bock spotter at ``path``, or None without that file (use the classical finder)."""
    return _load_if_there(BockSpotter, path)


def load_pip_spotter(path: Path | str = PIP_MODEL) -> PipSpotter | None:
    """The pip spotter at ``path``, or None without that file (use the classical finder)."""
    return _load_if_there(PipSpotter, path)


FINDERS = ("auto", "spotter", "classic")


def choose_spotter(
    finder: str, given: Spotter | None, kind: type[Spotter], path: Path
) -> Spotter | None:
    """The spotter a recogniser uses, or None for the classical finder.

    ``finder`` is ``auto`` (the spotter of ``kind`` when its model file is at ``path``, else
    the classical finder), ``spotter`` (that spotter; a missing model is an error) or
    ``classic``; a ``given`` spotter wins over loading one. Raises ``VisionError`` for any
    other ``finder``.
    """
    if finder not in FINDERS:
        raise VisionError(f"unknown die finder {finder!r}; use one of {', '.join(FINDERS)}")
    if finder == "classic":
        return None
    if given is not None:
        return given
    return _load_if_there(kind, path) if finder == "auto" else kind(path)
