"""Camera sequences of an evening at the tray, with the truth: throws, hands, cups, coasters.

A *stage* is one camera set-up: an empty tray (a tray-a photo with its dice painted
out, or a rendered tray) and die sprites cut from labelled pictures (the tray-a photos
or rendered throws), scaled to the stage's die size. A script of *events* is played on
it frame by frame:

- ``throw``: a hand comes in, dice tumble in (blurred, turning) and come to rest;
  ``keep`` dice of the last rest may stay where they lay (Schocken's kept-aside dice);
- ``hidden``: the dice are thrown under a dice cup that stays upside down in the tray,
  then the cup is lifted and shows them;
- ``pass``: a hand passes over the tray without stopping;
- ``rest``: a hand (and forearm, bare or in a sleeve) reaches in and rests 1-2 s;
- ``cup``: a dice cup is put upside down over the dice, stays, and is lifted again;
- ``coaster``: a beer mat is slid in, lies there, and is slid out;
- ``shadow``: a shadow sweeps in, stays a moment, and goes;
- ``nudge``: a finger pushes one die by a fraction of its edge.

Hands come in several skin tones, with and without sleeves, quick and slow. Every
frame gets fresh sensor noise and a slight gain flicker. ``write_sequence`` stores the
folder format of ``companion eval throws`` (``frames/``, ``sequence.json``,
``expected.json``) plus ``script.json`` (the events with their frames and the Schocken
turns, for tests).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.synth.render import render_throw

SKIN_TONES: tuple[tuple[int, int, int], ...] = (  # BGR
    (170, 192, 232),  # light
    (128, 160, 212),  # medium
    (92, 128, 180),  # tan
    (60, 84, 130),  # brown
    (38, 52, 84),  # dark brown
)
SLEEVES: tuple[tuple[int, int, int] | None, ...] = (
    None, (90, 50, 30), (40, 40, 160), (90, 90, 90), (30, 30, 30), (60, 120, 60),
)
CUP_COLOURS = ((28, 44, 70), (30, 30, 32), (36, 36, 110), (50, 60, 40))
COASTER_COLOURS = ((225, 232, 238), (200, 222, 235), (235, 235, 235))
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
                value: int) -> Sprite | None:
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
    alpha = cv2.GaussianBlur(alpha, (0, 0), max(1.0, side * 0.06))[:, :, None]
    return Sprite(patch, alpha, value)


def tray_a_stage(
    photos: Path, tray: str = "white", max_photos: int | None = None, split: str = "all"
) -> Stage:
    """A stage from the tray-a photos: a photo of ``tray`` (grey or white) painted clean of
    its dice, and every labelled die of the photos of ``split`` (``PHOTO_SPLITS``) a sprite."""
    from companion.evaluation import photo_split

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
        for line in label.read_text().split("\n"):
            if line.strip():
                c, x, y, bw, bh = (float(v) for v in line.split())
                rows.append((path, int(c) + 1, x, y, bw, bh))
                sizes.append(max(bw, bh) * w)
    edge = float(np.median(sizes)) * 0.92
    cache: dict[Path, np.ndarray] = {}
    for path, value, x, y, bw, bh in rows:
        image = cache.get(path)
        if image is None:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise FileNotFoundError(f"cannot read the photo {path}")
            cache[path] = image
        ih, iw = image.shape[:2]
        sprite = _cut_sprite(image, x * iw, y * ih, max(bw * iw, bh * ih), edge, value)
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
        for die in shot.dice:
            sprite = _cut_sprite(shot.image, die.center[0], die.center[1], die.size * 1.2,
                                 die.size, int(die.value))
            if sprite is not None:
                sprites[int(die.value)].append(sprite)
        del k
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


# ---------------------------------------------------------------------------
# Drawing


def _paste(canvas: np.ndarray, sprite: Sprite, x: float, y: float, turns: int,
           blur: int = 0) -> None:
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


def _shade(canvas: np.ndarray, mask: np.ndarray, colour: tuple[int, int, int],
           rng_value: float = 1.0) -> None:
    a = cv2.GaussianBlur(mask, (0, 0), 1.2)[:, :, None]
    canvas *= 1.0 - a
    canvas += np.array(colour, np.float32) * rng_value * a


def _shadow(canvas: np.ndarray, mask: np.ndarray, offset: tuple[int, int], strength: float,
            soft: float) -> None:
    m = np.roll(mask, offset, axis=(0, 1))
    m = cv2.GaussianBlur(m, (0, 0), soft)[:, :, None]
    canvas *= 1.0 - strength * m


@dataclass(frozen=True)
class HandLook:
    """One person's hand: skin tone, sleeve colour (None: bare forearm), size in die edges."""

    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int] | None
    scale: float


def draw_hand(canvas: np.ndarray, look: HandLook, tip: tuple[float, float],
              entry: tuple[float, float], edge: float, finger: bool = False) -> None:
    """A forearm from ``entry`` (outside the frame) to a hand whose fingertips are at ``tip``."""
    h, w = canvas.shape[:2]
    tx, ty = tip
    ex, ey = entry
    d = math.hypot(tx - ex, ty - ey) or 1.0
    ux, uy = (tx - ex) / d, (ty - ey) / d
    palm_len = edge * 4.2 * look.scale
    arm_w = edge * 3.0 * look.scale
    px, py = tx - ux * palm_len * 0.75, ty - uy * palm_len * 0.75
    shape = np.zeros((h, w), np.float32)
    arm = np.zeros((h, w), np.float32)
    # Forearm from far outside the frame to the wrist.
    wx, wy = tx - ux * palm_len, ty - uy * palm_len
    far = (int(wx - ux * 4 * w), int(wy - uy * 4 * w))
    cv2.line(arm, far, (int(wx), int(wy)), 1.0, int(arm_w))
    if finger:
        cv2.line(shape, (int(wx), int(wy)), (int(tx), int(ty)), 1.0, max(2, int(edge * 0.7)))
        cv2.circle(shape, (int(wx), int(wy)), int(arm_w * 0.6), 1.0, -1)
    else:
        angle = math.degrees(math.atan2(uy, ux))
        cv2.ellipse(shape, (int(px), int(py)), (int(palm_len * 0.4), int(arm_w * 0.6)),
                    angle, 0, 360, 1.0, -1)
        for k in (-1.5, -0.5, 0.5, 1.5):
            ox, oy = -uy * k * arm_w * 0.32, ux * k * arm_w * 0.32
            start = (int(px + ox), int(py + oy))
            end = (int(tx + ox - ux * abs(k) * edge * 0.5), int(ty + oy - uy * abs(k) * edge * 0.5))
            cv2.line(shape, start, end, 1.0, max(2, int(edge * 0.55 * look.scale)))
    both = np.clip(shape + arm, 0, 1)
    _shadow(canvas, both, (int(edge * 0.5), int(edge * 0.6)), 0.35, edge * 0.8)
    _shade(canvas, arm, look.sleeve or look.skin, 0.95)
    _shade(canvas, shape, look.skin, 1.0)
    # Skin and cloth are not flat colour: light falls off across the hand.
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    relief = 0.9 + 0.2 * np.cos(((xs - tx) * uy - (ys - ty) * ux) / (arm_w * 0.5))
    a = cv2.GaussianBlur(both, (0, 0), 1.2)[:, :, None]
    canvas *= 1.0 - a + a * relief[:, :, None]


def draw_cup(canvas: np.ndarray, centre: tuple[float, float], edge: float,
             colour: tuple[int, int, int], radius_edges: float = 2.8,
             height: float = 0.0) -> None:
    """A dice cup upside down seen from above (``height`` > 0: lifted, so larger, offset)."""
    h, w = canvas.shape[:2]
    r = edge * radius_edges * (1.0 + 0.25 * height)
    cx, cy = centre[0] + edge * height, centre[1] - edge * height
    body = np.zeros((h, w), np.float32)
    cv2.circle(body, (int(cx), int(cy)), int(r), 1.0, -1)
    _shadow(canvas, body, (int(edge * (0.5 + 2 * height)), int(edge * (0.6 + 2 * height))),
            0.45, edge * (0.6 + height))
    _shade(canvas, body, colour)
    top = np.zeros((h, w), np.float32)
    cv2.circle(top, (int(cx), int(cy)), int(r * 0.72), 1.0, -1)
    light = tuple(min(255, int(c * 1.35 + 8)) for c in colour)
    _shade(canvas, top, light)  # type: ignore[arg-type]
    ring = np.zeros((h, w), np.float32)
    cv2.circle(ring, (int(cx), int(cy)), int(r * 0.9), 1.0, max(1, int(edge * 0.15)))
    _shade(canvas, ring, tuple(int(c * 0.7) for c in colour))  # type: ignore[arg-type]


def draw_coaster(canvas: np.ndarray, centre: tuple[float, float], edge: float,
                 colour: tuple[int, int, int], square: bool, print_colour: tuple[int, int, int]
                 ) -> None:
    """A cardboard beer mat (round or square, ~6.5 die edges across) with a printed ring."""
    h, w = canvas.shape[:2]
    r = edge * 3.3
    mat = np.zeros((h, w), np.float32)
    cx, cy = int(centre[0]), int(centre[1])
    if square:
        cv2.rectangle(mat, (int(cx - r), int(cy - r)), (int(cx + r), int(cy + r)), 1.0, -1)
    else:
        cv2.circle(mat, (cx, cy), int(r), 1.0, -1)
    _shadow(canvas, mat, (2, 2), 0.2, 1.5)
    _shade(canvas, mat, colour)
    logo = np.zeros((h, w), np.uint8)
    cv2.circle(logo, (cx, cy), int(r * 0.6), 255, max(2, int(edge * 0.35)))
    cv2.putText(logo, "BIER", (int(cx - r * 0.45), int(cy + r * 0.12)),
                cv2.FONT_HERSHEY_SIMPLEX, edge / 40, 255, max(1, int(edge / 14)))
    _shade(canvas, logo.astype(np.float32) / 255.0, print_colour)


# ---------------------------------------------------------------------------
# Scripts


@dataclass
class Writer:
    """Collects frames of one sequence and the truth about them."""

    stage: Stage
    rng: np.random.Generator
    fps: float
    noise: float = 2.0
    frames: list[np.ndarray] = field(default_factory=list)
    expected: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    dice: list[Placed] = field(default_factory=list)

    def scene(self) -> np.ndarray:
        canvas = self.stage.background.copy()
        for d in self.dice:
            _paste(canvas, d.sprite, d.x, d.y, d.turns)
        return canvas

    def emit(self, canvas: np.ndarray, count: int = 1) -> None:
        for _ in range(count):
            gain = float(self.rng.normal(1.0, 0.006))
            noisy = canvas * gain + self.rng.normal(0, self.noise, canvas.shape).astype(np.float32)
            self.frames.append(np.clip(noisy + 0.5, 0, 255).astype(np.uint8))

    def seconds(self, s: float) -> int:
        return max(1, int(round(s * self.fps)))

    def hold(self, seconds: float) -> None:
        self.emit(self.scene(), self.seconds(seconds))

    def look(self) -> HandLook:
        skin = SKIN_TONES[int(self.rng.integers(len(SKIN_TONES)))]
        sleeve = SLEEVES[int(self.rng.integers(len(SLEEVES)))]
        return HandLook(skin, sleeve, float(self.rng.uniform(0.85, 1.15)))

    def entry(self) -> tuple[float, float]:
        h, w = self.stage.background.shape[:2]
        side = int(self.rng.integers(3))  # bottom, left, right: where the players sit
        if side == 0:
            return (float(self.rng.uniform(0.2, 0.8) * w), h * 1.3)
        if side == 1:
            return (-0.3 * w, float(self.rng.uniform(0.3, 0.9) * h))
        return (w * 1.3, float(self.rng.uniform(0.3, 0.9) * h))

    def spot(self, avoid: Sequence[Placed], gap: float = 1.8) -> tuple[float, float]:
        x0, y0, x1, y1 = self.stage.area
        e = self.stage.edge
        for _ in range(400):
            x, y = float(self.rng.uniform(x0, x1)), float(self.rng.uniform(y0, y1))
            if all(math.hypot(x - d.x, y - d.y) > gap * e for d in avoid):
                return x, y
        raise RuntimeError("no free spot for a die; the tray area is too small")

    def new_die(self, avoid: Sequence[Placed]) -> Placed:
        value = int(self.rng.integers(1, 7))
        pool = self.stage.sprites[value]
        sprite = pool[int(self.rng.integers(len(pool)))]
        x, y = self.spot(avoid)
        return Placed(sprite, x, y, int(self.rng.integers(4)))

    def _hand_path(self, look: HandLook, tip: tuple[float, float], entry: tuple[float, float],
                   frames: int, back: bool, finger: bool = False) -> None:
        base = self.scene()
        for k in range(frames):
            t = (k + 1) / frames
            t = 1 - t if back else t
            pos = (entry[0] + (tip[0] - entry[0]) * t, entry[1] + (tip[1] - entry[1]) * t)
            canvas = base.copy()
            draw_hand(canvas, look, pos, entry, self.stage.edge, finger)
            self.emit(canvas)

    # -- events -----------------------------------------------------------------

    def throw(self, keep: int = 0, quick: bool = True, n: int = 3) -> None:
        """Throw ``n - keep`` dice (the others stay where they lay)."""
        start = len(self.frames)
        kept = list(self.rng.choice(len(self.dice), keep, replace=False)) if keep else []
        stay = [self.dice[int(i)] for i in kept]
        old = list(self.dice)
        new = list(stay)
        for _ in range(n - keep):
            new.append(self.new_die(old + new))
        flying = new[keep:]
        look, entry = self.look(), self.entry()
        frames = int(self.rng.integers(3, 5)) if quick else int(self.rng.integers(7, 11))
        self.dice = stay
        base = self.scene()
        e = self.stage.edge
        for k in range(frames):
            t = (k + 1) / (frames + 1)
            canvas = base.copy()
            for d in flying:
                x = entry[0] + (d.x - entry[0]) * (0.45 + 0.55 * t) + self.rng.normal(0, e * 0.3)
                y = entry[1] + (d.y - entry[1]) * (0.45 + 0.55 * t) + self.rng.normal(0, e * 0.3)
                _paste(canvas, d.sprite, x, y, int(self.rng.integers(4)), blur=int(e * 0.4))
            if k < frames // 2 + 1:
                tip = (entry[0] + (d.x - entry[0]) * 0.35, entry[1] + (d.y - entry[1]) * 0.35)
                draw_hand(canvas, look, tip, entry, e)
            self.emit(canvas)
        self.dice = new
        self.expected.append({"frame": len(self.frames), "values": self.values()})
        self.events.append({"event": "throw", "start": start, "frame": len(self.frames),
                            "keep": keep, "values": self.values(), "quick": quick})

    def hidden(self, hold_seconds: float = 3.0) -> None:
        """Dice thrown under the cup: the cup stays upside down, then is lifted."""
        start = len(self.frames)
        e = self.stage.edge
        colour = CUP_COLOURS[int(self.rng.integers(len(CUP_COLOURS)))]
        centre = self.spot([], 0)
        x0, y0, x1, y1 = self.stage.area
        centre = (min(max(centre[0], x0 + 2 * e), x1 - 2 * e),
                  min(max(centre[1], y0 + 2 * e), y1 - 2 * e))
        new: list[Placed] = []
        for _ in range(3):
            for _ in range(200):
                a, r = float(self.rng.uniform(0, 2 * math.pi)), float(self.rng.uniform(0, 1.3 * e))
                x, y = centre[0] + r * math.cos(a), centre[1] + r * math.sin(a)
                if all(math.hypot(x - d.x, y - d.y) > 1.5 * e for d in new):
                    break
            value = int(self.rng.integers(1, 7))
            pool = self.stage.sprites[value]
            new.append(Placed(pool[int(self.rng.integers(len(pool)))], x, y,
                              int(self.rng.integers(4))))
        look, entry = self.look(), self.entry()
        self.dice = []
        empty = self.scene()
        for k in range(4):  # the cup comes down over the tray
            canvas = empty.copy()
            draw_cup(canvas, centre, e, colour, height=(3 - k) / 3 * 1.5)
            draw_hand(canvas, look, (centre[0], centre[1]), entry, e)
            self.emit(canvas)
        self.dice = new
        covered = empty.copy()
        draw_cup(covered, centre, e, colour)
        self._hand_path(look, centre, entry, 3, back=True)  # the hand lets go
        cover_frame = len(self.frames)
        self.emit(covered, self.seconds(hold_seconds))
        base = self.scene()
        for k in range(3):  # lifted
            canvas = base.copy()
            draw_cup(canvas, centre, e, colour, height=(k + 1) / 3 * 1.5)
            draw_hand(canvas, look, centre, entry, e)
            self.emit(canvas)
        self._hand_path(look, centre, entry, 3, back=True)
        self.expected.append({"frame": len(self.frames), "values": self.values()})
        self.events.append({"event": "hidden", "start": start, "covered": cover_frame,
                            "frame": len(self.frames), "values": self.values()})

    def pass_over(self) -> None:
        look, entry = self.look(), self.entry()
        h, w = self.stage.background.shape[:2]
        start = len(self.frames)
        exit_ = (w - entry[0], entry[1]) if entry[1] < h else (entry[0], -0.3 * h)
        base = self.scene()
        frames = int(self.rng.integers(4, 8))
        for k in range(frames):
            t = (k + 1) / (frames + 1)
            tip = (w / 2 + (exit_[0] - entry[0]) * (t - 0.5) * 0.6,
                   h / 2 + (exit_[1] - entry[1]) * (t - 0.5) * 0.6)
            canvas = base.copy()
            draw_hand(canvas, look, tip, entry, self.stage.edge)
            self.emit(canvas)
        self.events.append({"event": "pass", "start": start, "end": len(self.frames)})

    def rest(self, seconds: float, quick: bool = True) -> None:
        look, entry = self.look(), self.entry()
        tip = self.spot([], 0)
        start = len(self.frames)
        n = 3 if quick else 7
        self._hand_path(look, tip, entry, n, back=False)
        canvas = self.scene()
        draw_hand(canvas, look, tip, entry, self.stage.edge)
        self.emit(canvas, self.seconds(seconds))
        self._hand_path(look, tip, entry, n, back=True)
        self.events.append({"event": "rest", "start": start, "end": len(self.frames)})

    def cup(self, seconds: float) -> None:
        """A cup put upside down over the dice (or beside them), then lifted."""
        e = self.stage.edge
        colour = CUP_COLOURS[int(self.rng.integers(len(CUP_COLOURS)))]
        if self.dice:
            d = self.dice[int(self.rng.integers(len(self.dice)))]
            centre = (d.x, d.y)
        else:
            centre = self.spot([], 0)
        look, entry = self.look(), self.entry()
        start = len(self.frames)
        base = self.scene()
        for k in range(4):
            canvas = base.copy()
            draw_cup(canvas, centre, e, colour, height=(3 - k) / 3 * 1.5)
            draw_hand(canvas, look, centre, entry, e)
            self.emit(canvas)
        still = base.copy()
        draw_cup(still, centre, e, colour)
        self.emit(still, self.seconds(seconds))
        for k in range(4):
            canvas = base.copy()
            draw_cup(canvas, centre, e, colour, height=(k + 1) / 4 * 1.5)
            draw_hand(canvas, look, centre, entry, e)
            self.emit(canvas)
        self.events.append({"event": "cup", "start": start, "end": len(self.frames)})

    def coaster(self, seconds: float) -> None:
        e = self.stage.edge
        h, w = self.stage.background.shape[:2]
        square = bool(self.rng.integers(2))
        colour = COASTER_COLOURS[int(self.rng.integers(len(COASTER_COLOURS)))]
        ink = ((40, 40, 170), (120, 60, 20), (30, 110, 30))[int(self.rng.integers(3))]
        target = self.spot(self.dice, 4.0) if len(self.dice) < 6 else self.spot([], 0)
        start_pos = (target[0], h + 4 * e)
        start = len(self.frames)
        base = self.scene()
        frames = 5
        for k in list(range(frames)) + [-1] + list(range(frames - 1, -1, -1)):
            if k == -1:
                canvas = base.copy()
                draw_coaster(canvas, target, e, colour, square, ink)
                self.emit(canvas, self.seconds(seconds))
                continue
            t = (k + 1) / frames
            pos = (target[0], start_pos[1] + (target[1] - start_pos[1]) * t)
            canvas = base.copy()
            draw_coaster(canvas, pos, e, colour, square, ink)
            tip = (pos[0], pos[1] + 3.0 * e)
            draw_hand(canvas, self.look(), tip, (tip[0], h * 1.5), e, finger=True)
            self.emit(canvas)
        self.events.append({"event": "coaster", "start": start, "end": len(self.frames)})

    def shadow(self, seconds: float) -> None:
        h, w = self.stage.background.shape[:2]
        start = len(self.frames)
        base = self.scene()
        mask: np.ndarray = np.zeros((h, w), np.float32)
        cv2.ellipse(mask, (0, 0), (int(w * 0.7), int(h * 0.55)), 20, 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), w * 0.04)[:, :, None]
        for k in list(range(1, 6)) + [0] + list(range(5, 0, -1)):
            shift = np.roll(mask, (-int(h * 0.1 * (5 - k)) if k else 0,
                                   -int(w * 0.1 * (5 - k)) if k else 0), axis=(0, 1))
            canvas = base * (1.0 - 0.45 * shift)
            self.emit(canvas, self.seconds(seconds) if k == 0 else 1)
        self.events.append({"event": "shadow", "start": start, "end": len(self.frames)})

    def nudge(self) -> None:
        if not self.dice:
            return
        i = int(self.rng.integers(len(self.dice)))
        d = self.dice[i]
        e = self.stage.edge
        look, entry = self.look(), self.entry()
        start = len(self.frames)
        self._hand_path(look, (d.x, d.y + 0.3 * e), entry, 4, back=False, finger=True)
        a = float(self.rng.uniform(0, 2 * math.pi))
        step = float(self.rng.uniform(0.15, 0.3)) * e
        self.dice[i] = Placed(d.sprite, d.x + step * math.cos(a), d.y + step * math.sin(a),
                              d.turns)
        self._hand_path(look, (d.x, d.y + 0.3 * e), entry, 4, back=True, finger=True)
        self.events.append({"event": "nudge", "start": start, "end": len(self.frames),
                            "moved_edges": round(step / e, 3)})

    def values(self) -> list[int]:
        return sorted(d.value for d in self.dice)

    def write(self, folder: Path, quality: int = 85, turns: list[dict] | None = None) -> None:
        """Store the sequence: frames/, sequence.json, expected.json, script.json."""
        frames = folder / "frames"
        frames.mkdir(parents=True, exist_ok=True)
        for i, image in enumerate(self.frames):
            cv2.imwrite(str(frames / f"{i:05d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (folder / "sequence.json").write_text(
            json.dumps({"fps": self.fps, "frames": len(self.frames)}) + "\n")
        (folder / "expected.json").write_text(json.dumps(self.expected, indent=1) + "\n")
        (folder / "script.json").write_text(
            json.dumps({"events": self.events, "turns": turns or []}, indent=1) + "\n")


OCCLUDERS = ("pass", "rest", "cup", "coaster", "shadow", "nudge")


def occluder(w: Writer, kind: str) -> None:
    """Play one occluder event of ``kind`` (one of ``OCCLUDERS``), then a quiet second."""
    if kind == "pass":
        w.pass_over()
    elif kind == "rest":
        w.rest(float(w.rng.uniform(1.0, 2.0)), quick=bool(w.rng.integers(2)))
    elif kind == "cup":
        w.cup(float(w.rng.uniform(1.2, 2.5)))
    elif kind == "coaster":
        w.coaster(float(w.rng.uniform(1.0, 2.0)))
    elif kind == "shadow":
        w.shadow(float(w.rng.uniform(1.0, 2.0)))
    elif kind == "nudge":
        w.nudge()
    else:
        raise ValueError(f"unknown occluder {kind!r}; use one of {', '.join(OCCLUDERS)}")
    w.hold(1.0)


def evening(stage: Stage, seed: int, players: int = 3, rounds: int = 2, fps: float = 15.0,
            occluder_chance: float = 0.6, hidden: bool = True) -> tuple[Writer, list[dict]]:
    """Schocken rounds at the tray with occluders in between; returns the writer and turns.

    Each turn is 1-3 throws (later throws keep 0-2 dice aside); the round's first player
    may throw the third time under the cup (``hidden``).
    """
    rng = np.random.default_rng(seed)
    w = Writer(stage, rng, fps)
    turns: list[dict] = []
    w.hold(1.0)
    kinds = list(OCCLUDERS)
    for r in range(rounds):
        for p in range(players):
            n = int(rng.integers(1, 4))
            hand = True
            for t in range(n):
                keep = int(rng.integers(0, 3)) if t else 0
                if r % 2 == 0 and p == 0 and t == 2 and hidden:
                    w.hidden()
                    hand = True
                else:
                    w.throw(keep=keep, quick=bool(rng.integers(2)))
                    hand = keep == 0
                w.hold(float(rng.uniform(1.2, 1.8)))
                if rng.random() < occluder_chance:
                    occluder(w, kinds[int(rng.integers(len(kinds)))])
            turns.append({"player": p, "throws": n, "hand": hand, "values": w.values(),
                          "end": len(w.frames),
                          "hidden": bool(r % 2 == 0 and p == 0 and n == 3 and hidden)})
    return w, turns


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.synth.sequences OUT``: write evening sequences for eval."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--photos", type=Path, help="tray-a folder (default: rendered trays)")
    parser.add_argument("--split", default="all",
                        help="which tray-a photos give the dice (train, validation, holdout, all)")
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fixtures", action="store_true",
                        help="write the small set kept under fixtures/sequences instead")
    args = parser.parse_args(argv)
    if args.fixtures:
        for folder in fixture_set(args.out):
            print(folder)
        return 0
    for k in range(args.count):
        if args.photos:
            s = tray_a_stage(args.photos, ("white", "grey")[k % 2], split=args.split)
        else:
            s = render_stage(args.seed * 100 + k)
        w, turns = evening(s, args.seed * 1000 + k, rounds=args.rounds, fps=args.fps)
        w.write(args.out / f"evening-{args.seed}-{k}", turns=turns)
        print(f"{args.out / f'evening-{args.seed}-{k}'}: {len(w.frames)} frames,"
              f" {len(w.expected)} throws")
    return 0



def fixture_set(out: Path, size: tuple[int, int] = (320, 240), fps: float = 8.0) -> list[Path]:
    """The small set kept under ``fixtures/sequences``: one short sequence on a rendered
    tray at low resolution: throws with a resting hand, a cup over the dice and a
    coaster in between (the other kinds are made by the tests themselves)."""
    w = Writer(render_stage(21, size), np.random.default_rng(21), fps)
    w.hold(1.0)
    w.throw()
    w.hold(1.3)
    occluder(w, "rest")
    w.throw(keep=1)
    w.hold(1.3)
    occluder(w, "cup")
    occluder(w, "coaster")
    w.throw()
    w.hold(1.3)
    w.write(out / "evening", quality=55)
    return [out / "evening"]

if __name__ == "__main__":
    raise SystemExit(main())
