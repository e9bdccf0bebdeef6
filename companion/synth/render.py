"""Synthetic top-down tray frames with pip dice or Rock the Bock dice, and their labels.

The renderer is the project's model of the real scene: a dice tray seen from a camera
that is almost overhead, N dice (1-10) lying at random positions and rotations, apart or
touching. Each die gets a top face (pips, or one of the six Rock the Bock faces: the
built-in set or artwork the models never saw, ``companion.synth.artwork``), rounded edges
with a shaded bevel, visible side walls from parallax and a soft shadow. The frame then
goes through what a cheap camera in a pub does to it: uneven and coloured light,
white-balance drift, glare, slight perspective, blur, sensor noise and JPEG compression.
``hard=True`` pushes all of that to the rough end: a strong colour cast, dim light,
bigger glare, more blur and most dice touching a neighbour.

Everything is drawn from a ``numpy.random.Generator`` seeded with the given seed, so the
same seed gives the same frame, byte for byte, on the same OpenCV build.

Labelled folders (``write_dataset``, ``companion render``)::

    DIR/images/<stem>.jpg
    DIR/labels/<stem>.txt     one line per die: ``class x_c y_c w h``
    DIR/classes.txt           Rock the Bock only: the face names, one per line, in class order

``x_c y_c`` is the centre of the die's top face and ``w h`` the axis-aligned box around
the top face, all divided by the image width (x, w) or height (y, h), six decimals. For
pip dice ``class`` is the pip value minus one: exactly the YOLO format of
``../shared/dice-photos/tray-a`` so ``companion eval pips`` reads it. For Rock the Bock
``class`` is the index of the face in ``FACES``: 0 wolf, 1 bock, 2 goat_red, 3 goat_blue,
4 goat_green, 5 goat_yellow.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.synth.artwork import (
    ARTWORKS,
    RenderError,
    artwork_palette,
    draw_artwork,
    shifted_palette,
)
from companion.vision.faces_look import (
    BGR,
    DRAW,
    FACES,
    TEXTURE,
    Palette,
    rounded_rect,
    shade_texture,
)

__all__ = [
    "ARTWORKS",
    "KINDS",
    "PIP_STYLES",
    "UNSEEN_PIP_STYLES",
    "RenderError",
    "RenderedDie",
    "RenderedThrow",
    "artwork_palette",
    "artwork_texture",
    "frame_seed",
    "render_throw",
    "shifted_palette",
    "write_dataset",
]

KINDS: tuple[str, ...] = ("pips", "bock")


# Pip dice: (body, pips) or (body, pips, swirl), all BGR. Dark dice with light pips and
# low-contrast pairs too; a swirl colour makes a marbled die (streaks of it through the
# body colour). Dark and marbled dice with red pips are the ones real photos (tray-a)
# were read worst on.
PipStyle = tuple[BGR, BGR] | tuple[BGR, BGR, BGR]
PIP_STYLES: tuple[PipStyle, ...] = (
    ((232, 236, 238), (25, 25, 25)),  # white, black pips
    ((238, 236, 230), (40, 40, 190)),  # white, red pips
    ((30, 30, 32), (235, 235, 235)),  # black, white pips
    ((40, 40, 185), (240, 240, 240)),  # red, white pips
    ((60, 140, 40), (240, 240, 240)),  # green, white pips
    ((170, 80, 25), (240, 240, 240)),  # blue, white pips
    ((40, 200, 235), (30, 30, 30)),  # yellow, black pips
    ((80, 80, 84), (225, 225, 225)),  # dark grey, light pips
    ((120, 40, 110), (240, 240, 240)),  # purple, white pips
    ((200, 205, 210), (120, 120, 125)),  # light grey, mid grey pips (low contrast)
    ((28, 28, 30), (45, 45, 180)),  # black, red pips
    ((95, 45, 20), (50, 50, 200)),  # dark blue, red pips
    ((40, 36, 36), (50, 50, 190), (150, 95, 40)),  # marbled black and blue, red pips
    ((35, 35, 38), (235, 235, 235), (120, 120, 125)),  # marbled black and grey, white pips
)
# Dice of other makers, for measuring how far the pip recogniser carries beyond what it
# trained on (``render_throw(pip_styles=UNSEEN_PIP_STYLES)``, ``companion render --kind
# pips --pip-styles unseen``): no training script may draw from these.
UNSEEN_PIP_STYLES: tuple[PipStyle, ...] = (
    ((30, 140, 245), (25, 25, 25)),  # orange, black pips
    ((190, 150, 240), (250, 250, 250)),  # pink, white pips
    ((120, 175, 210), (30, 40, 60)),  # light wood, dark brown pips
    ((150, 150, 30), (245, 245, 245)),  # teal, white pips
    ((235, 205, 150), (20, 20, 20)),  # light blue, black pips
    ((90, 30, 20), (60, 200, 230)),  # navy, gold pips
    ((240, 240, 240), (170, 70, 20)),  # white, blue pips
    ((40, 110, 30), (20, 20, 20)),  # dark green, black pips
)

# Trays: (floor colour, table colour around the tray), BGR.
_TRAYS: tuple[tuple[str, BGR, BGR], ...] = (
    ("grey", (120, 122, 124), (52, 66, 84)),
    ("felt", (48, 96, 38), (40, 52, 70)),
    ("felt", (92, 44, 30), (60, 60, 62)),
    ("wood", (70, 120, 170), (36, 40, 46)),
    ("grey", (88, 90, 92), (150, 160, 170)),
)

_PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}


@dataclass(frozen=True)
class RenderedDie:
    """The truth about one rendered die, in final image pixels."""

    center: tuple[float, float]  # centre of the top face (x, y)
    size: float  # mean edge length of the top face
    angle: float  # rotation of the top face's edges, degrees in [0, 90)
    corners: tuple[tuple[float, float], ...]  # top face corners, clockwise on screen
    value: int | str  # 1..6 for pips, a name from FACES for Rock the Bock
    rotation: float  # full orientation of the printed face, degrees in [0, 360)

    def box(self) -> tuple[float, float, float, float]:
        """Axis-aligned box around the top face: (x_min, y_min, x_max, y_max)."""
        xs = [c[0] for c in self.corners]
        ys = [c[1] for c in self.corners]
        return min(xs), min(ys), max(xs), max(ys)


@dataclass(frozen=True)
class RenderedThrow:
    """One synthetic frame: the decoded JPEG, its bytes and the truth about every die."""

    image: np.ndarray  # BGR uint8, exactly ``cv2.imdecode(jpeg)``
    jpeg: bytes
    dice: tuple[RenderedDie, ...]
    kind: str
    tray: str  # "grey", "felt" or "wood"
    tray_corners: tuple[tuple[float, float], ...]  # the tray floor's corners, clockwise
    light_gains: tuple[float, float, float]  # B, G, R gain of the light (1 = neutral)

    def labels(self) -> list[tuple[int, float, float, float, float]]:
        """YOLO rows ``(class, x_c, y_c, w, h)`` normalised to the image size."""
        h, w = self.image.shape[:2]
        rows = []
        for die in self.dice:
            x0, y0, x1, y1 = die.box()
            cls = die.value - 1 if isinstance(die.value, int) else FACES.index(die.value)
            rows.append((cls, die.center[0] / w, die.center[1] / h, (x1 - x0) / w, (y1 - y0) / h))
        return rows



def render_throw(
    seed: int,
    n_dice: int,
    kind: str = "pips",
    size: tuple[int, int] = (1280, 960),
    hard: bool = False,
    palette: Palette | None = None,
    faces: Sequence[int | str] | None = None,
    jpeg_quality: int | None = None,
    artwork: str = "classic",
    pip_styles: Sequence[PipStyle] = PIP_STYLES,
) -> RenderedThrow:
    """Render one throw of ``n_dice`` dice into a ``size`` = (width, height) frame.

    ``faces`` fixes what the dice show (pip values or face names) instead of drawing them
    at random; ``palette`` colours Rock the Bock dice (default ``DEFAULT_PALETTE``, or the
    artwork's own palette); ``artwork`` picks the drawings of a Rock the Bock set (one of
    ``ARTWORKS``); ``jpeg_quality`` overrides the randomly drawn compression quality;
    ``pip_styles`` are the (body, pips[, swirl]) colours pip dice are drawn from.
    """
    if kind not in KINDS:
        raise RenderError(f"unknown dice kind {kind!r}; use one of {', '.join(KINDS)}")
    if not 1 <= n_dice <= 10:
        raise RenderError(f"n_dice must be between 1 and 10, not {n_dice}")
    width, height = int(size[0]), int(size[1])
    if width < 160 or height < 120:
        raise RenderError(f"frame size {width}x{height} is too small; use at least 160x120")
    if faces is not None and len(faces) != n_dice:
        raise RenderError(f"faces gives {len(faces)} values for {n_dice} dice")
    if not pip_styles:
        raise RenderError("pip_styles must name at least one style of pip dice")
    palette = palette or artwork_palette(artwork)  # also checks the artwork's name
    rng = np.random.default_rng(seed)

    values = _choose_values(rng, kind, n_dice, faces)
    tray_name, floor, table = _TRAYS[int(rng.integers(len(_TRAYS)))]
    canvas, tray_rect = _draw_tray(rng, width, height, floor, table, tray_name)

    edge = float(rng.uniform(0.045, 0.062) * min(width, height * 4 / 3))
    footprints = _place_dice(rng, n_dice, edge, tray_rect, touch=0.7 if hard else 0.25)
    # Camera height in pixels at tray level: the top face sits one edge higher, so it
    # appears scaled by k about the principal point and the outer side walls show.
    principal = np.array([width / 2 + rng.normal(0, width * 0.04), height / 2], np.float32)
    k = 1.0 / (1.0 - 1.0 / float(rng.uniform(18.0, 30.0)))
    light = rng.normal(0, 1, 2)
    light = (light / (np.linalg.norm(light) + 1e-9)).astype(np.float32)

    shadow = _shadow_map(width, height, footprints, edge, light)
    canvas *= (1.0 - 0.55 * shadow)[:, :, None]

    tops = [principal + (fp - principal) * k for fp in footprints]
    styles: list[PipStyle] = []
    for _ in range(n_dice):
        styles.append(pip_styles[int(rng.integers(len(pip_styles)))])
    for fp, top, style in zip(footprints, tops, styles, strict=True):
        body = palette.body if kind == "bock" else style[0]
        _draw_sides(canvas, fp, top, body, light)
    rotations = []
    for top, value, style in zip(tops, values, styles, strict=True):
        tex, alpha = _face_texture(kind, value, palette, style, artwork)
        rotation = int(rng.integers(4))  # which texture corner lies at the first corner
        rotations.append(rotation)
        ordered = np.roll(top, -rotation, axis=0)
        _paste_face(canvas, tex, alpha, ordered, rng)

    gains = _light(rng, canvas, hard)
    _glare(rng, canvas, tops, edge, hard, np.array(gains, np.float32))

    homography = _tilt(rng, width, height, hard)
    canvas = cv2.warpPerspective(
        canvas,
        homography,
        (width, height),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    sigma = float(rng.uniform(1.0, 1.8) if hard else rng.uniform(0.3, 1.0))
    canvas = np.asarray(cv2.GaussianBlur(canvas, (0, 0), sigma), np.float32)
    noise_sd = float(rng.uniform(0.012, 0.03) if hard else rng.uniform(0.004, 0.014))
    noise = rng.standard_normal((height, width, 3), dtype=np.float32)
    canvas += noise * (noise_sd * np.sqrt(np.clip(canvas, 0.02, 1.0)) * 2.0)
    image8 = np.clip(canvas * 255.0 + 0.5, 0, 255).astype(np.uint8)
    quality = jpeg_quality or int(rng.integers(55, 80) if hard else rng.integers(72, 94))
    ok, buf = cv2.imencode(".jpg", image8, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RenderError("OpenCV could not encode the rendered frame as JPEG")
    jpeg = buf.tobytes()
    image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if image is None:
        raise RenderError("OpenCV could not decode the frame it had just encoded")

    dice = []
    for top, value, rotation in zip(tops, values, rotations, strict=True):
        pts = cv2.perspectiveTransform(top.reshape(-1, 1, 2), homography).reshape(-1, 2)
        dice.append(_die_truth(pts, value, rotation))
    tray_pts = cv2.perspectiveTransform(tray_rect.reshape(-1, 1, 2), homography).reshape(-1, 2)
    return RenderedThrow(
        image=image,
        jpeg=jpeg,
        dice=tuple(dice),
        kind=kind,
        tray=tray_name,
        tray_corners=tuple((float(x), float(y)) for x, y in tray_pts),
        light_gains=gains,
    )


def write_dataset(
    out_dir: Path | str,
    count: int,
    seed: int,
    kind: str = "bock",
    n_dice: int = 10,
    hard: bool = False,
    size: tuple[int, int] = (1280, 960),
    palette: Palette | None = None,
    face: int | str | None = None,
    artwork: str = "classic",
    pip_styles: Sequence[PipStyle] = PIP_STYLES,
) -> list[Path]:
    """Write ``count`` rendered throws as a labelled folder (see the module docstring).

    Frame ``i`` uses the seed ``(seed, i)`` so a folder can be extended or a single frame
    re-rendered. ``face`` makes every die show that face (enrolment frames); ``artwork``,
    ``palette`` and ``pip_styles`` are passed on to ``render_throw``. Returns the image
    paths written.
    """
    if count < 1:
        raise RenderError(f"count must be at least 1, not {count}")
    out = Path(out_dir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    if kind == "bock":
        (out / "classes.txt").write_text("\n".join(FACES) + "\n", encoding="utf-8")
    written = []
    for i in range(count):
        throw = render_throw(
            frame_seed(seed, i),
            n_dice,
            kind=kind,
            size=size,
            hard=hard,
            palette=palette,
            faces=None if face is None else [face] * n_dice,
            artwork=artwork,
            pip_styles=pip_styles,
        )
        stem = f"{kind}-{seed}-{i:04d}"
        path = out / "images" / f"{stem}.jpg"
        path.write_bytes(throw.jpeg)
        rows = [f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}" for c, x, y, w, h in throw.labels()]
        (out / "labels" / f"{stem}.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")
        written.append(path)
    return written


def frame_seed(seed: int, index: int) -> int:
    """The seed of frame ``index`` of a folder rendered with ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint32)[0])


def artwork_texture(
    face: str, artwork: str = "classic", palette: Palette | None = None
) -> np.ndarray:
    """The printed Rock the Bock face ``face`` of ``artwork`` as an upright BGR uint8 image.

    For the built-in artwork this is ``faces_look.face_texture``, the picture the built-in
    face models are learnt from.
    """
    if face not in FACES:
        raise RenderError(f"unknown face {face!r}; use one of {', '.join(FACES)}")
    palette = palette or artwork_palette(artwork)
    tex, _ = _face_texture("bock", face, palette, PIP_STYLES[0], artwork)
    return np.clip(tex * 255 + 0.5, 0, 255).astype(np.uint8)


# --- drawing ------------------------------------------------------------------------------


def _choose_values(
    rng: np.random.Generator, kind: str, n: int, faces: Sequence[int | str] | None
) -> list[int | str]:
    if faces is not None:
        for v in faces:
            if kind == "pips" and not (isinstance(v, int) and 1 <= v <= 6):
                raise RenderError(f"pip value {v!r} is not 1..6")
            if kind == "bock" and v not in FACES:
                raise RenderError(f"unknown face {v!r}; use one of {', '.join(FACES)}")
        return list(faces)
    if kind == "pips":
        return [int(v) for v in rng.integers(1, 7, n)]
    return [FACES[int(i)] for i in rng.integers(0, len(FACES), n)]


def _draw_tray(
    rng: np.random.Generator, width: int, height: int, floor: BGR, table: BGR, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """The table, and on it the tray floor with a low wall; returns canvas and floor corners."""
    floor_c = np.array(floor, np.float32) / 255 * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    table_c = np.array(table, np.float32) / 255
    canvas = np.empty((height, width, 3), np.float32)
    canvas[:] = table_c
    mx = int(width * rng.uniform(0.015, 0.05))
    my = int(height * rng.uniform(0.015, 0.05))
    wall = max(4, int(min(width, height) * 0.02))
    x0, y0, x1, y1 = mx, my, width - mx, height - my
    # The wall: a slightly darker rim of the floor's material.
    canvas[y0:y1, x0:x1] = floor_c * 0.72
    canvas[y0 + wall : y1 - wall, x0 + wall : x1 - wall] = floor_c
    texture = _texture(rng, width, height, name)
    canvas *= texture[:, :, None]
    rect = np.array(
        [
            [x0 + wall, y0 + wall],
            [x1 - wall, y0 + wall],
            [x1 - wall, y1 - wall],
            [x0 + wall, y1 - wall],
        ],
        np.float32,
    )
    return canvas, rect


def _texture(rng: np.random.Generator, width: int, height: int, name: str) -> np.ndarray:
    """A multiplicative material texture around 1.0: grain for wood, fuzz for felt."""
    if name == "wood":
        grain: np.ndarray = rng.normal(0, 1, (max(2, height // 6), 8)).astype(np.float32)
        grain = cv2.resize(grain, (width, height), interpolation=cv2.INTER_CUBIC)
        return 1.0 + 0.06 * grain
    coarse: np.ndarray = rng.normal(0, 1, (12, 16)).astype(np.float32)
    coarse = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
    fine_sd = 0.05 if name == "felt" else 0.02
    fine: np.ndarray = rng.normal(0, fine_sd, (height // 2, width // 2)).astype(np.float32)
    fine = cv2.resize(fine, (width, height), interpolation=cv2.INTER_LINEAR)
    return 1.0 + 0.03 * coarse + fine


def _square(center: np.ndarray, edge: float, angle_deg: float) -> np.ndarray:
    """Corners of a square, clockwise on screen (y points down), first corner top-left."""
    a = math.radians(angle_deg)
    ux = np.array([math.cos(a), math.sin(a)], np.float32) * edge / 2
    uy = np.array([-math.sin(a), math.cos(a)], np.float32) * edge / 2
    return np.array(
        [center - ux - uy, center + ux - uy, center + ux + uy, center - ux + uy], np.float32
    )


def _overlap(p: np.ndarray, q: np.ndarray) -> bool:
    """Separating-axis test for two convex quadrilaterals."""
    for poly in (p, q):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            pa, qa = p @ axis, q @ axis
            if pa.max() <= qa.min() or qa.max() <= pa.min():
                return False
    return True


def _place_dice(
    rng: np.random.Generator, n: int, edge: float, rect: np.ndarray, touch: float
) -> list[np.ndarray]:
    """Non-overlapping die footprints inside the tray; some pressed against a neighbour."""
    x0, y0 = rect[0] + edge * 0.9
    x1, y1 = rect[2] - edge * 0.9
    placed: list[np.ndarray] = []
    centers: list[tuple[np.ndarray, float]] = []
    for _ in range(n):
        for attempt in range(400):
            if placed and rng.random() < touch and attempt < 200:
                base_c, base_a = centers[int(rng.integers(len(centers)))]
                angle = base_a + float(rng.uniform(-4, 4))
                side = int(rng.integers(4))
                a = math.radians(base_a + 90 * side)
                along = np.array([math.cos(a), math.sin(a)], np.float32)
                across = np.array([-along[1], along[0]], np.float32)
                gap = float(rng.uniform(1.01, 1.07))
                shift = float(rng.uniform(-0.55, 0.55))
                center = base_c + along * edge * gap + across * edge * shift
            else:
                angle = float(rng.uniform(0, 360))
                center = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)], np.float32)
            if not (x0 <= center[0] <= x1 and y0 <= center[1] <= y1):
                continue
            quad = _square(center, edge, angle)
            # A hair of clearance keeps rounded touching edges from interpenetrating.
            grown = _square(center, edge * 1.005, angle)
            if any(_overlap(grown, other) for other in placed):
                continue
            placed.append(quad)
            centers.append((center, angle))
            break
        else:
            raise RenderError(f"could not place {n} dice of {edge:.0f} px in the tray")
    return placed


def _shadow_map(
    width: int, height: int, footprints: list[np.ndarray], edge: float, light: np.ndarray
) -> np.ndarray:
    """Soft shadows cast away from the light, blurred at quarter resolution for speed."""
    scale = 4
    small: np.ndarray = np.zeros((height // scale + 1, width // scale + 1), np.float32)
    offset = -light * edge * 0.35
    for fp in footprints:
        center = fp.mean(axis=0)
        grown = center + (fp - center) * 1.1 + offset
        cv2.fillConvexPoly(small, np.round(grown / scale).astype(np.int32), 1.0)
    small = cv2.GaussianBlur(small, (0, 0), max(1.0, edge * 0.12 / scale))
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)[:height, :width]


def _draw_sides(
    canvas: np.ndarray, bottom: np.ndarray, top: np.ndarray, body: BGR, light: np.ndarray
) -> None:
    """The die's side walls between its footprint and its (parallax-shifted) top face."""
    color = np.array(body, np.float32) / 255
    center = bottom.mean(axis=0)
    for i in range(4):
        j = (i + 1) % 4
        mid = (bottom[i] + bottom[j]) / 2 - center
        normal = mid / (np.linalg.norm(mid) + 1e-9)
        shade = 0.55 + 0.25 * float(normal @ light)
        quad = np.array([bottom[i], bottom[j], top[j], top[i]])
        cv2.fillConvexPoly(
            canvas,
            np.round(quad * 16).astype(np.int32),
            (color * shade).tolist(),
            lineType=cv2.LINE_8,
            shift=4,
        )


@functools.lru_cache(maxsize=64)
def _face_texture(
    kind: str, value: int | str, palette: Palette, style: PipStyle, artwork: str = "classic"
) -> tuple[np.ndarray, np.ndarray]:
    """An upright top face (float BGR 0-1, TEXTURE px) and its alpha (rounded die corners)."""
    d = DRAW
    alpha = np.zeros((d, d), np.uint8)
    rounded_rect(alpha, 0, 0, d - 1, d - 1, int(d * 0.12), 255)
    if kind == "pips":
        assert isinstance(value, int)
        img = np.zeros((d, d, 3), np.uint8)
        body, pip = style[0], style[1]
        img[:] = body
        if len(style) == 3:
            _marble(img, style[2], value)
        for u, v in _PIP_LAYOUT[value]:
            c = (round(u * d), round(v * d))
            r = round(d * 0.085)
            # A darker rim gives the drilled pip some depth.
            rim = tuple(int(x * 0.6) for x in pip)
            cv2.circle(img, c, r + 2, rim, -1, cv2.LINE_AA)
            cv2.circle(img, c, r, pip, -1, cv2.LINE_AA)
    else:
        assert isinstance(value, str)
        img = draw_artwork(value, palette, artwork)
    tex = shade_texture(img)
    a = cv2.resize(alpha, (TEXTURE, TEXTURE), interpolation=cv2.INTER_AREA).astype(np.float32)
    return tex, a / 255


def _marble(img: np.ndarray, swirl: BGR, seed: int) -> None:
    """Streak ``swirl`` through the body colour of ``img`` like the swirls of a marbled die."""
    d = img.shape[0]
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:d, 0:d].astype(np.float32) / d
    a, b, c = rng.uniform(0, 2 * np.pi, 3)
    # A sine of warped coordinates gives long, bending bands; its crests are the streaks.
    warp = x * 3.1 + 0.9 * np.sin(y * 5.3 + a) + 0.6 * np.sin((x + y) * 7.0 + b)
    band = np.clip((np.sin(warp * 2.2 + c) - 0.2) / 0.8, 0, 1)[:, :, None]
    img[:] = (img * (1 - band) + np.array(swirl, np.float32) * band).astype(np.uint8)


def _paste_face(
    canvas: np.ndarray,
    tex: np.ndarray,
    alpha: np.ndarray,
    corners: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """Warp one face texture onto its top-face quadrilateral, blending the rounded corners."""
    h, w = canvas.shape[:2]
    x0 = max(0, int(np.floor(corners[:, 0].min())) - 2)
    y0 = max(0, int(np.floor(corners[:, 1].min())) - 2)
    x1 = min(w, int(np.ceil(corners[:, 0].max())) + 3)
    y1 = min(h, int(np.ceil(corners[:, 1].max())) + 3)
    src = np.array([[0, 0], [TEXTURE, 0], [TEXTURE, TEXTURE], [0, TEXTURE]], np.float32)
    dst = corners - np.array([x0, y0], np.float32)
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    size = (x1 - x0, y1 - y0)
    face: np.ndarray = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)[:, :, None]
    # A top face catches a little more or less light than the floor, depending on gloss.
    face *= float(rng.uniform(0.92, 1.08))
    roi = canvas[y0:y1, x0:x1]
    roi *= 1.0 - a
    roi += face * a


def _light(rng: np.random.Generator, canvas: np.ndarray, hard: bool) -> tuple[float, float, float]:
    """Multiply in the light: colour cast, white-balance drift, brightness, gradient, lamp."""
    h, w = canvas.shape[:2]
    if hard:
        # A strong cast: warm pub light, cold daylight, green fluorescent or pink LED.
        casts = ((0.62, 0.88, 1.3), (1.3, 1.0, 0.72), (0.85, 1.22, 0.85), (1.18, 0.78, 1.2))
        base = np.array(casts[int(rng.integers(len(casts)))], np.float32)
        base *= rng.uniform(0.92, 1.08, 3).astype(np.float32)
        level = float(rng.uniform(0.4, 0.75))
    else:
        base = rng.uniform(0.88, 1.12, 3).astype(np.float32)
        level = float(rng.uniform(0.8, 1.08))
    gains = base / base.max() * min(1.0, level * float(base.max()))
    ys, xs = np.mgrid[0:16, 0:16].astype(np.float32) / 15.0 - 0.5
    gx, gy = rng.uniform(-0.35, 0.35, 2) if hard else rng.uniform(-0.18, 0.18, 2)
    vignette = 1.0 - 0.35 * (xs**2 + ys**2) * (1.5 if hard else 1.0)
    field = (1.0 + gx * xs + gy * ys) * vignette
    small = np.repeat(field[:, :, None], 3, axis=2) * gains
    # A coloured lamp off to one side tints part of the tray.
    lamp_c = rng.uniform(-0.5, 0.5, 2)
    lamp_tint = rng.uniform(0.0, 0.25 if hard else 0.12, 3).astype(np.float32)
    dist2 = (xs - lamp_c[0]) ** 2 + (ys - lamp_c[1]) ** 2
    small += np.exp(-dist2 / 0.08)[:, :, None] * lamp_tint * gains
    full = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    canvas *= full
    b, g, r = (float(x) for x in gains)
    return (b, g, r)


def _glare(
    rng: np.random.Generator,
    canvas: np.ndarray,
    tops: list[np.ndarray],
    edge: float,
    hard: bool,
    gains: np.ndarray,
) -> None:
    """Specular spots of the lamp on a few glossy top faces, and a sheen on the tray.

    A reflection has the colour and strength of the light it reflects, so the spots are
    scaled by the light's gains: dim light gives dim glare, warm light warm glare.
    """
    h, w = canvas.shape[:2]
    chance = 0.45 if hard else 0.2
    for top in tops:
        if rng.random() >= chance:
            continue
        c = top.mean(axis=0)
        pos = c + rng.uniform(-0.3, 0.3, 2) * edge
        radius = edge * float(rng.uniform(0.06, 0.15) if hard else rng.uniform(0.04, 0.1))
        strength = float(rng.uniform(0.5, 1.0) if hard else rng.uniform(0.3, 0.7))
        _add_spot(
            canvas,
            pos,
            radius,
            radius * float(rng.uniform(0.4, 1.0)),
            float(rng.uniform(0, 180)),
            strength * gains,
            w,
            h,
        )
    if rng.random() < (0.6 if hard else 0.3):
        pos = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        r = edge * float(rng.uniform(1.0, 3.0))
        _add_spot(canvas, pos, r, r * 0.5, float(rng.uniform(0, 180)), 0.25 * gains, w, h)


def _add_spot(
    canvas, pos, rx: float, ry: float, angle: float, strength: np.ndarray, w, h
) -> None:
    pad = int(rx * 2.5) + 2
    x0, y0 = max(0, int(pos[0]) - pad), max(0, int(pos[1]) - pad)
    x1, y1 = min(w, int(pos[0]) + pad), min(h, int(pos[1]) + pad)
    if x1 <= x0 or y1 <= y0:
        return
    spot = np.zeros((y1 - y0, x1 - x0), np.float32)
    center = (int(pos[0]) - x0, int(pos[1]) - y0)
    cv2.ellipse(spot, center, (max(1, int(rx)), max(1, int(ry))), angle, 0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), max(1.0, ry * 0.5))
    canvas[y0:y1, x0:x1] += spot[:, :, None] * strength


def _tilt(rng: np.random.Generator, width: int, height: int, hard: bool) -> np.ndarray:
    """A small homography: the camera is not exactly overhead."""
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    amount = 0.035 if hard else 0.02
    jitter = rng.uniform(-amount, amount, (4, 2)) * np.array([width, height])
    return cv2.getPerspectiveTransform(src, (src + jitter).astype(np.float32))


def _die_truth(pts: np.ndarray, value: int | str, rotation: int) -> RenderedDie:
    edges = [float(np.linalg.norm(pts[(i + 1) % 4] - pts[i])) for i in range(4)]
    d = pts[1] - pts[0]
    angle = math.degrees(math.atan2(float(d[1]), float(d[0]))) % 90.0
    # The texture's upright direction after warping: corner 0 holds texture corner `rotation`.
    up = math.degrees(math.atan2(float(d[1]), float(d[0])))
    center = pts.mean(axis=0)
    return RenderedDie(
        center=(float(center[0]), float(center[1])),
        size=sum(edges) / 4,
        angle=angle,
        corners=tuple((float(x), float(y)) for x, y in pts),
        value=value,
        rotation=(up - 90.0 * rotation) % 360.0,
    )
