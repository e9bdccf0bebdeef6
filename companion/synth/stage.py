"""Stages for camera sequences: an empty tray and die sprites to lay on it.

A *stage* is one camera set-up: an empty tray (a tray-a photo with its dice painted
out, or a rendered tray) and die sprites cut from labelled pictures (the tray-a photos
or rendered throws), scaled to the stage's die size. :func:`paste` lays a sprite on a
frame (blurred along its path while it flies). The scripts that play on a stage are in
:mod:`companion.synth.sequences`; the hands, cups and coasters in
:mod:`companion.synth.occluders`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.synth.render import render_throw

# Tray-a's two set-ups (a grey tray with a dark rim, a white light box): a photo with few
# dice, used as the empty tray once they are painted out, and where dice may lie in it,
# as shares of the 640x640 photo.
TRAY_A_STAGES = {
    "grey": ("IMG_20191208_111816.jpg", (0.18, 0.22, 0.84, 0.74)),
    "white": ("IMG_20191208_112554.jpg", (0.14, 0.12, 0.86, 0.76)),
}


@dataclass
class Sprite:
    """One die as it was photographed or rendered: colour patch, soft alpha, pip value."""

    image: np.ndarray  # float32 BGR 0..255
    alpha: np.ndarray  # float32 0..1, (h, w, 1)
    value: int
    source: str = ""  # where it was cut: "PHOTO.jpg#LINE" (its label's line), or a render


@dataclass
class Stage:
    """An empty tray, where dice may lie in it, the die edge and the sprites by value."""

    background: np.ndarray  # float32 BGR
    area: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels
    edge: float
    sprites: dict[int, list[Sprite]]


@dataclass
class Placed:
    """A die lying in the tray: its sprite and where (centre), turned by quarter turns."""

    sprite: Sprite
    x: float
    y: float
    turns: int

    @property
    def value(self) -> int:
        return self.sprite.value


def _cut_sprite(image: np.ndarray, cx: float, cy: float, size: float, edge: float,
                value: int,
                others: tuple[tuple[float, float, float, float], ...] = (),
                source: str = "") -> Sprite | None:
    """The die at (cx, cy), ``size`` pixels across, as a round sprite ``edge`` across.

    ``others`` are the boxes (centre x, y, width, height) of the other dice of the same
    picture: where one reaches into the sprite's round mask, outside this die's own box,
    the sprite is transparent, so no piece of a neighbour comes along with the die (a
    half die beside it is nothing a camera ever sees, and blocked its rests as
    "something in the tray").
    """
    half = size * 0.72
    x0, y0 = int(round(cx - half)), int(round(cy - half))
    x1, y1 = int(round(cx + half)), int(round(cy + half))
    h, w = image.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or x1 - x0 < 6:
        return None
    patch: np.ndarray = image[y0:y1, x0:x1].astype(np.float32)
    side = max(6, int(round(edge * 1.44)))
    patch = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
    alpha: np.ndarray = np.zeros((side, side), np.float32)
    r = side / 1.44 * 0.7
    c = side / 2
    cv2.circle(alpha, (int(c), int(c)), int(r), 1.0, -1)
    scale = side / (x1 - x0)
    if others:
        neighbours = np.zeros((side, side), np.uint8)
        for ox, oy, ow, oh in others:
            _fill_box(neighbours, ((ox - x0) * scale, (oy - y0) * scale),
                      (NEIGHBOUR_MARGIN * ow * scale, NEIGHBOUR_MARGIN * oh * scale), 1)
        _fill_box(neighbours, ((cx - x0) * scale, (cy - y0) * scale),
                  (size * scale, size * scale), 0)
        alpha[neighbours > 0] = 0.0
    alpha = cv2.GaussianBlur(alpha, (0, 0), max(1.0, side * 0.06))[:, :, None]
    return Sprite(patch, alpha, value, source)


# A neighbour's box is kept out of a sprite this many times its size (its shadow, and
# the labels' boxes are drawn tight).
NEIGHBOUR_MARGIN = 1.2


def _fill_box(mask: np.ndarray, centre: tuple[float, float], size: tuple[float, float],
              value: int) -> None:
    """Set the axis-aligned box of ``size`` (w, h) around ``centre`` in ``mask``."""
    (x, y), (bw, bh) = centre, size
    cv2.rectangle(mask, (int(round(x - bw / 2)), int(round(y - bh / 2))),
                  (int(round(x + bw / 2)), int(round(y + bh / 2))), value, -1)


def tray_a_stage(
    photos: Path, tray: str = "white", max_photos: int | None = None, split: str = "all"
) -> Stage:
    """A stage from the tray-a photos: a photo of ``tray`` (grey or white) painted clean of
    its dice, and every labelled die of the photos of ``split`` (``PHOTO_SPLITS``) a sprite."""
    from companion.evaluation import photo_split, shown_value

    images = photo_split(list((photos / "images").glob("*.jpg")), split)[:max_photos]
    photo, area = TRAY_A_STAGES[tray]
    base_path = photos / "images" / photo
    base = cv2.imread(str(base_path), cv2.IMREAD_COLOR)
    if base is None:
        raise FileNotFoundError(f"cannot read {base_path}")
    h, w = base.shape[:2]
    sizes = []
    hole = np.zeros((h, w), np.uint8)
    for line in (photos / "labels" / f"{base_path.stem}.txt").read_text().split("\n"):
        if line.strip():
            _, x, y, bw, bh = (float(v) for v in line.split())
            r = int(max(bw * w, bh * h) * 0.85)
            cv2.circle(hole, (int(x * w), int(y * h)), r, 255, -1)
    background = cv2.inpaint(base, hole, 9, cv2.INPAINT_TELEA).astype(np.float32)
    sprites: dict[int, list[Sprite]] = {v: [] for v in range(1, 7)}
    rows = []
    for path in images:
        label = photos / "labels" / f"{path.stem}.txt"
        if not label.is_file():
            continue
        for number, line in enumerate(label.read_text().split("\n"), start=1):
            if line.strip():
                c, x, y, bw, bh = (float(v) for v in line.split())
                # A die whose label is known wrong is the sprite of the value it shows.
                value = shown_value(path.stem, number - 1, int(c) + 1)
                rows.append((path, value, x, y, bw, bh, f"{path.name}#{number}"))
                sizes.append(max(bw, bh) * w)
    edge = float(np.median(sizes)) * 0.92
    cache: dict[Path, np.ndarray] = {}
    boxes: dict[Path, list[tuple[float, float, float, float]]] = {}
    for path, _, x, y, bw, bh, _ in rows:
        boxes.setdefault(path, []).append((x, y, bw, bh))
    for path, value, x, y, bw, bh, source in rows:
        image = cache.get(path)
        if image is None:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise FileNotFoundError(f"cannot read the photo {path}")
            cache[path] = image
        ih, iw = image.shape[:2]
        others = tuple((ox * iw, oy * ih, ow * iw, oh * ih)
                       for ox, oy, ow, oh in boxes[path] if (ox, oy, ow, oh) != (x, y, bw, bh))
        sprite = _cut_sprite(image, x * iw, y * ih, max(bw * iw, bh * ih), edge, value, others,
                             source)
        if sprite is not None:
            sprites[value].append(sprite)
    x0, y0, x1, y1 = area
    return Stage(background, (x0 * w, y0 * h, x1 * w, y1 * h), edge, sprites)


def render_stage(seed: int, size: tuple[int, int] = (640, 480)) -> Stage:
    """A stage from rendered throws of one tray (same seed, so same tray and light)."""
    sprites: dict[int, list[Sprite]] = {v: [] for v in range(1, 7)}
    first = None
    for k, faces in enumerate(((1, 2, 3), (4, 5, 6), (6, 1, 4), (2, 5, 3))):
        shot = render_throw(seed, 3, size=size, faces=faces, jpeg_quality=95)
        if first is None:
            first = shot
        for j, die in enumerate(shot.dice):
            sprite = _cut_sprite(shot.image, die.center[0], die.center[1], die.size * 1.2,
                                 die.size, int(die.value), source=f"render {seed}/{k}/{j}")
            if sprite is not None:
                sprites[int(die.value)].append(sprite)
    assert first is not None
    h, w = first.image.shape[:2]
    hole = np.zeros((h, w), np.uint8)
    for die in first.dice:
        cv2.circle(hole, (int(die.center[0]), int(die.center[1])), int(die.size * 1.1), 255, -1)
    background = cv2.inpaint(first.image, hole, 9, cv2.INPAINT_TELEA).astype(np.float32)
    edge = float(np.median([d.size for d in first.dice]))
    xs = [p[0] for p in first.tray_corners]
    ys = [p[1] for p in first.tray_corners]
    m = 1.6 * edge
    area = (sorted(xs)[1] + m, sorted(ys)[1] + m, sorted(xs)[2] - m, sorted(ys)[2] - m)
    return Stage(background, area, edge, sprites)


def paste(canvas: np.ndarray, sprite: Sprite, x: float, y: float, turns: int,
          blur: int = 0) -> None:
    """Lay ``sprite`` centred at (x, y), turned by quarter ``turns``, smeared ``blur`` px."""
    image, alpha = np.rot90(sprite.image, turns), np.rot90(sprite.alpha, turns)
    if blur > 1:
        kernel = np.zeros((blur, blur), np.float32)
        kernel[blur // 2, :] = 1.0 / blur
        image = cv2.filter2D(np.ascontiguousarray(image), -1, kernel)
        alpha = cv2.filter2D(np.ascontiguousarray(alpha), -1, kernel)[:, :, None]
    s = image.shape[0]
    x0, y0 = int(round(x - s / 2)), int(round(y - s / 2))
    h, w = canvas.shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x0 + s), min(h, y0 + s)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    a = alpha[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0]
    roi = canvas[cy0:cy1, cx0:cx1]
    roi *= 1.0 - a
    roi += image[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0] * a

