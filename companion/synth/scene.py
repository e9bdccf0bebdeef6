"""Whole camera frames made from tray photos: the tray at a slant in a wider scene.

A camera over a pub tray does not send the square, tray-only photos of ``tray-a``: it sends
a 1280x960 to 2028x1520 frame in which the tray is one part, seen a little at a slant,
with a wall around it and a table, cloth or dark bar beyond. ``compose`` puts one labelled
tray photo into such a frame the way a mounted camera would see it: the photo (which shows
the tray floor only) is warped by a homography onto the tray's place, a wall is drawn
around it and a surround around that, then the whole frame gets the camera's light, colour
cast, noise and JPEG compression. The labels go through the same homography, so the
frame's dice are labelled exactly.

A ``Setup`` is one camera mounting: frame size, where the tray lies, how big, how slanted
and turned, what is around it. It stays the same for every frame of a set-up, as a camera
bolted to a lamp does, so one calibration (made from the tray's four corners, as a person
would) serves all of its frames. ``SETUPS`` are six such set-ups with dice from about 24 to
90 pixels across; ``write_scenes`` writes a labelled folder of one set-up with its tray
profile, for ``companion eval pips DIR --profile DIR/tray.json``.

Everything is drawn from a ``numpy.random.Generator`` seeded with the given seed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.evaluation import LabelledDie, read_image, read_labels

if TYPE_CHECKING:
    from companion.synth.render import RenderedThrow

SURROUNDS = ("wood", "cloth", "bar")
# Surrounds that no net is trained on (training draws from ``SURROUNDS`` only): light
# tiles whose squares are a few dice across, and a printed drinks menu whose letters and
# bullets are the size of pips. Frames on them measure phantom dice on a table the
# models have never seen (``companion scene --surround``).
UNSEEN_SURROUNDS = ("tiles", "menu")


class SceneError(ValueError):
    """A set-up or photo that cannot be made into a scene."""


@dataclass(frozen=True)
class Setup:
    """One camera mounting over the tray."""

    name: str
    frame_size: tuple[int, int]  # (width, height) of the frames the camera sends
    tray_px: float  # side of the tray floor in frame pixels (the photo's side, near edge)
    slant: float  # the tray's far edge is this share shorter than its near edge (0..0.2)
    turn: float  # degrees the tray is turned in the frame
    centre: tuple[float, float]  # the tray's centre as a share of the frame's width, height
    surround: str  # what is around the tray: one of ``SURROUNDS`` or ``UNSEEN_SURROUNDS``
    cast: tuple[float, float, float]  # gains of B, G, R: the light's colour
    light: float  # overall brightness gain

    def corners(self) -> np.ndarray:
        """The tray floor's four corners in the frame, clockwise from top-left (4, 2)."""
        w, h = self.frame_size
        half = self.tray_px / 2.0
        # The far (top) edge is shorter than the near one: a camera tilted a little.
        top, bottom = 1.0 - self.slant / 2.0, 1.0 + self.slant / 2.0
        square = np.array(
            [[-half * top, -half], [half * top, -half], [half * bottom, half],
             [-half * bottom, half]],
            np.float64,
        )
        a = math.radians(self.turn)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        pts = square @ rot.T + np.array([self.centre[0] * w, self.centre[1] * h])
        if pts.min() < 0 or (pts[:, 0] > w).any() or (pts[:, 1] > h).any():
            raise SceneError(f"set-up {self.name}: the tray does not fit in the {w}x{h} frame")
        return pts

    def die_px(self, photo_die: float = 40.0, photo_side: float = 640.0) -> float:
        """About how many frame pixels a die of ``photo_die`` photo pixels becomes."""
        return photo_die * self.tray_px / photo_side


# Six mountings as a pub would have them: Pi Camera sensor modes and a webcam, the tray
# near and far, a little slanted and turned, off-centre, on wood, cloth or a dark bar.
SETUPS: dict[str, Setup] = {
    s.name: s
    for s in (
        Setup("webcam-wood", (1280, 960), 700, 0.06, 3.0, (0.5, 0.52), "wood",
              (1.0, 1.0, 1.0), 1.0),
        Setup("v2-cloth", (1640, 1232), 860, 0.10, -4.0, (0.45, 0.5), "cloth",
              (1.06, 1.0, 0.92), 0.9),
        Setup("hd-bar-far", (1920, 1080), 560, 0.08, 8.0, (0.6, 0.55), "bar",
              (0.92, 1.0, 1.1), 0.85),
        Setup("hq-near", (2028, 1520), 1440, 0.04, -2.0, (0.5, 0.5), "wood",
              (0.95, 1.0, 1.05), 1.05),
        Setup("webcam-small", (1280, 960), 390, 0.05, 0.0, (0.4, 0.45), "cloth",
              (1.0, 1.02, 0.98), 1.1),
        Setup("hd-bar-warm", (1920, 1080), 960, 0.09, 5.0, (0.52, 0.5), "bar",
              (0.8, 0.95, 1.15), 0.8),
    )
}


@dataclass(frozen=True)
class Scene:
    """One composed frame, its dice in frame pixels, and the tray's corners."""

    frame: np.ndarray
    dice: tuple[LabelledDie, ...]
    corners: np.ndarray  # (4, 2) tray floor corners in the frame, clockwise from top-left


def homography(photo_size: tuple[int, int], corners: np.ndarray) -> np.ndarray:
    """The 3x3 map from a ``photo_size`` (w, h) photo onto the tray ``corners``."""
    w, h = photo_size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    return cv2.getPerspectiveTransform(src, corners.astype(np.float32))


def map_dice(dice: Sequence[LabelledDie], matrix: np.ndarray) -> tuple[LabelledDie, ...]:
    """Labelled dice of the photo moved into the frame: centre mapped, box around the
    mapped corners of the photo's box."""
    out = []
    for d in dice:
        pts = np.array(
            [[d.x, d.y], [d.x - d.w / 2, d.y - d.h / 2], [d.x + d.w / 2, d.y - d.h / 2],
             [d.x + d.w / 2, d.y + d.h / 2], [d.x - d.w / 2, d.y + d.h / 2]],
            np.float64,
        ).reshape(-1, 1, 2)
        moved = cv2.perspectiveTransform(pts, matrix).reshape(-1, 2)
        box = moved[1:]
        out.append(
            LabelledDie(
                d.value,
                float(moved[0, 0]),
                float(moved[0, 1]),
                float(np.ptp(box[:, 0])),
                float(np.ptp(box[:, 1])),
            )
        )
    return tuple(out)


def check_surround(kind: str) -> None:
    """Raise ``SceneError`` unless ``kind`` is one of ``SURROUNDS`` or ``UNSEEN_SURROUNDS``."""
    if kind not in SURROUNDS + UNSEEN_SURROUNDS:
        raise SceneError(
            f"unknown surround {kind!r}; use one of {', '.join(SURROUNDS + UNSEEN_SURROUNDS)}"
        )


def surround(kind: str, size: tuple[int, int], rng: np.random.Generator, die: float) -> np.ndarray:
    """What lies around the tray: a wooden table, a cloth, or a dark bar with clutter
    (``SURROUNDS``); or one of ``UNSEEN_SURROUNDS``.

    The bar has the things that lie on one: coasters, glass bottoms with highlights, a
    phone, bottle caps about a die's size — each a chance for a phantom die.
    """
    check_surround(kind)
    if kind in UNSEEN_SURROUNDS:
        return _unseen_surround(kind, size, rng, die)
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    noise = cv2.resize(rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32), (w, h))
    if kind == "wood":
        base = np.array(rng.uniform([30, 60, 100], [60, 95, 150]), np.float32)
        freq = rng.uniform(0.02, 0.05)
        grain = np.sin(yy * freq + 3.0 * noise + 0.002 * xx) * 0.5 + 0.5
        planks = ((yy // rng.uniform(140, 260)) % 2).astype(np.float32) * 0.12
        shade = 0.75 + 0.3 * grain - planks
        img = base[None, None, :] * shade[:, :, None]
    elif kind == "cloth":
        base = np.array(rng.choice([[40, 110, 50], [50, 50, 140], [120, 80, 60]]), np.float32)
        period = rng.uniform(0.6, 1.4) * die
        checks = ((np.floor(xx / period) + np.floor(yy / period)) % 2).astype(np.float32)
        weave = rng.normal(0, 0.06, (h, w)).astype(np.float32)
        shade = 0.8 + 0.25 * checks + weave + 0.05 * noise
        img = base[None, None, :] * shade[:, :, None]
    else:
        base = np.array(rng.uniform([18, 18, 20], [35, 32, 34]), np.float32)
        img = base[None, None, :] * (1.0 + 0.15 * noise)[:, :, None]
        img = img.astype(np.float32)
        for _ in range(int(rng.integers(6, 12))):
            cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h))
            thing = rng.choice(["coaster", "glass", "cap", "phone"])
            if thing == "coaster":
                r = int(die * rng.uniform(1.8, 2.6))
                colour = tuple(float(v) for v in rng.uniform(120, 230, 3))
                cv2.circle(img, (cx, cy), r, colour, -1, cv2.LINE_AA)
                cv2.circle(img, (cx, cy), int(r * 0.7), (40, 40, 160), max(2, r // 10),
                           cv2.LINE_AA)
            elif thing == "glass":
                r = int(die * rng.uniform(1.5, 2.2))
                cv2.circle(img, (cx, cy), r, (90, 110, 120), -1, cv2.LINE_AA)
                cv2.ellipse(img, (cx - r // 3, cy - r // 3), (r // 3, r // 6), 30, 0, 360,
                            (235, 240, 245), -1, cv2.LINE_AA)
            elif thing == "cap":
                r = int(die * rng.uniform(0.4, 0.55))
                cv2.circle(img, (cx, cy), r, tuple(float(v) for v in rng.uniform(60, 220, 3)),
                           -1, cv2.LINE_AA)
                cv2.circle(img, (cx, cy), max(1, r // 3), (230, 230, 230), -1, cv2.LINE_AA)
            else:
                pw, ph = int(die * 2.0), int(die * 4.0)
                cv2.rectangle(img, (cx, cy), (cx + pw, cy + ph), (15, 15, 15), -1)
                cv2.rectangle(img, (cx + 3, cy + 6), (cx + pw - 3, cy + ph - 6),
                              (120, 90, 60), -1)
    return np.clip(img, 0, 255).astype(np.uint8)


def _unseen_surround(
    kind: str, size: tuple[int, int], rng: np.random.Generator, die: float
) -> np.ndarray:
    """Light tiles with dark grout and specks, or a drinks menu (see ``UNSEEN_SURROUNDS``)."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "tiles":
        base = np.array(rng.uniform([185, 185, 180], [235, 235, 235]), np.float32)
        side = float(rng.uniform(1.5, 3.0) * die)
        grout = max(1.5, 0.08 * die)
        gx = np.minimum(xx % side, side - xx % side) < grout / 2
        gy = np.minimum(yy % side, side - yy % side) < grout / 2
        # Each tile a shade of its own, as glazed tiles are.
        tone = rng.uniform(0.93, 1.05, (int(h // side) + 2, int(w // side) + 2))
        shade = tone[(yy // side).astype(int), (xx // side).astype(int)].astype(np.float32)
        img = base[None, None, :] * shade[:, :, None]
        img[gx | gy] = np.array(rng.uniform(70, 130, 3), np.float32)
        # Specks in the glaze, some the size of a pip.
        for _ in range(int(w * h / (die * die) * 0.4)):
            r = max(1, int(die * rng.uniform(0.03, 0.09)))
            colour = tuple(float(v) for v in rng.uniform(40, 110, 3))
            cv2.circle(img, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), r, colour, -1,
                       cv2.LINE_AA)
        return np.clip(img, 0, 255).astype(np.uint8)
    # A menu: off-white paper, lines of dark text, bullets, boxed headings.
    paper = np.array(rng.uniform([205, 215, 220], [235, 242, 248]), np.float32)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = paper.astype(np.uint8)
    ink = tuple(float(v) for v in rng.uniform(15, 70, 3))
    scale = 0.3 * die / 22.0  # Hershey letters are about 22 units high at scale 1
    thick = max(1, round(die / 25))
    line = max(6, int(0.55 * die))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,-"
    y = int(rng.uniform(0.3, 1.0) * line)
    while y < h:
        if rng.random() < 0.12:  # a heading in a box
            x0 = int(rng.uniform(0, 0.7) * w)
            cv2.rectangle(img, (x0, y - line), (x0 + int(6 * die), y + line // 3), ink,
                          thick, cv2.LINE_AA)
            cv2.putText(img, "".join(rng.choice(list(letters[:26]), 8)), (x0 + line // 3, y),
                        cv2.FONT_HERSHEY_DUPLEX, 1.4 * scale, ink, thick + 1, cv2.LINE_AA)
            y += int(1.6 * line)
            continue
        x = int(rng.uniform(0, 2) * die)
        while x < w:
            if rng.random() < 0.15:  # a bullet before an item
                cv2.circle(img, (x, y - line // 4), max(1, int(0.08 * die)), ink, -1,
                           cv2.LINE_AA)
                x += int(0.3 * die)
            word = "".join(rng.choice(list(letters), int(rng.integers(2, 9))))
            cv2.putText(img, word, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, thick,
                        cv2.LINE_AA)
            x += int(len(word) * 0.6 * 0.3 * die + 0.4 * die)
        y += line
    noise = rng.normal(0, 0.02, (h, w)).astype(np.float32)
    return np.clip(img.astype(np.float32) * (1.0 + noise)[:, :, None], 0, 255).astype(np.uint8)


def compose(
    photo: np.ndarray,
    dice: Sequence[LabelledDie],
    setup: Setup,
    rng: np.random.Generator,
) -> Scene:
    """Put a tray photo (the tray floor, edge to edge) into a frame of ``setup``."""
    ph, pw = photo.shape[:2]
    w, h = setup.frame_size
    corners = setup.corners()
    matrix = homography((pw, ph), corners)
    die = setup.die_px(photo_side=float(max(pw, ph)))
    frame = surround(setup.surround, (w, h), rng, die).astype(np.float32)
    _draw_wall(frame, corners, photo, rng)
    # Photos are cut at shrink factors below one half with area averaging first, as a
    # camera's sensor averages light; the remaining warp then changes scale little.
    side = float(np.linalg.norm(corners[1] - corners[0]))
    source = photo
    if side < 0.5 * pw:
        f = side / pw
        source = cv2.resize(photo, (max(8, round(pw * f)), max(8, round(ph * f))),
                            interpolation=cv2.INTER_AREA)
    sh, sw = source.shape[:2]
    warp = homography((sw, sh), corners)
    tray = cv2.warpPerspective(source, warp, (w, h), flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.full((sh, sw), 255, np.uint8), warp, (w, h),
                                 flags=cv2.INTER_NEAREST)
    frame[inside > 0] = tray[inside > 0]
    # The camera: light falling off to the corners, a colour cast, noise, JPEG.
    gain = _falling_light((w, h), setup, rng) * rng.uniform(0.92, 1.08)
    frame *= gain[:, :, None]
    frame *= np.array(setup.cast, np.float32)[None, None, :]
    frame += rng.normal(0, rng.uniform(1.5, 4.0), frame.shape).astype(np.float32)
    out = np.clip(frame, 0, 255).astype(np.uint8)
    quality = int(rng.integers(82, 94))
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise SceneError("could not encode the composed frame")
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if decoded is None:
        raise SceneError("could not decode the composed frame")
    return Scene(decoded, map_dice(dice, matrix), corners)


def _draw_wall(frame: np.ndarray, corners: np.ndarray, photo: np.ndarray,
               rng: np.random.Generator) -> None:
    """The tray's wall into ``frame`` (float): a band around the floor's ``corners``,
    darker than the floor of ``photo``, lit from one side."""
    floor = np.median(photo.reshape(-1, 3), axis=0).astype(np.float32)
    centre = corners.mean(axis=0)
    rim = centre + (corners - centre) * (1.0 + rng.uniform(0.05, 0.09))
    wall = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(wall, rim.astype(np.int32), 255)
    shade = float(rng.uniform(0.55, 0.8))
    frame[wall > 0] = floor * shade


def _falling_light(size: tuple[int, int], setup: Setup, rng: np.random.Generator) -> np.ndarray:
    """The set-up's light over a ``size`` frame, falling off to the corners (h, w)."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2
    return setup.light * (1.0 - rng.uniform(0.2, 0.45) * r2)


def on_a_stand(
    pictures: Sequence[np.ndarray],
    corners: np.ndarray,
    size: tuple[int, int],
    rng: np.random.Generator,
    kind: str = "wood",
    setup: Setup | None = None,
) -> list[np.ndarray]:
    """Pictures of a tray (its floor edge to edge, all of one size) as a camera on a
    stand sends them: each warped onto the same four ``corners`` (clockwise from top
    left) of one ``size`` frame of a table of ``kind`` (``surround``). With ``setup``,
    as that camera sees them (``compose``, once for the evening): the tray's wall around
    the floor, light falling off to the corners, the set-up's light and colour cast, and
    the sensor's noise in every frame."""
    h, w = pictures[0].shape[:2]
    corners = np.asarray(corners, np.float64)
    matrix = homography((w, h), corners)
    side = float(np.linalg.norm(corners[1] - corners[0]))
    table = surround(kind, size, rng, 40.0 * side / w).astype(np.float32)
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), matrix, size,
                                 flags=cv2.INTER_NEAREST) > 0
    gain = noise = None
    if setup is not None:
        _draw_wall(table, corners, pictures[0], rng)
        fall = _falling_light(size, setup, rng).astype(np.float32)
        gain = fall[:, :, None] * np.array(setup.cast, np.float32)[None, None, :]
        noise = float(rng.uniform(1.5, 3.0))
    frames = []
    for picture in pictures:
        frame = table.copy()
        frame[inside] = cv2.warpPerspective(picture, matrix, size)[inside]
        if gain is not None and noise is not None:
            frame = frame * gain + rng.normal(0, noise, frame.shape).astype(np.float32)
        frames.append(np.clip(frame + 0.5, 0, 255).astype(np.uint8))
    return frames


def label_line(die: LabelledDie, size: tuple[int, int]) -> str:
    """One YOLO label line for a die of a ``size`` frame: pip dice class = value - 1, Rock
    the Bock dice (a face name) the face's place in ``FACES``."""
    from companion.vision.faces_look import FACES

    w, h = size
    cls = FACES.index(die.value) if isinstance(die.value, str) else int(die.value) - 1
    return (
        f"{cls} {die.x / w:.6f} {die.y / h:.6f} "
        f"{min(die.w / w, 1.0):.6f} {min(die.h / h, 1.0):.6f}"
    )


def corners_text(corners: np.ndarray) -> str:
    """The corners as ``companion calibrate tray --corners`` takes them."""
    return ",".join(f"{v:.1f}" for v in corners.reshape(-1))


def write_scenes(
    photos: Sequence[Path],
    labels_dir: Path,
    out: Path,
    setup: Setup,
    seed: int,
) -> list[Path]:
    """Compose every photo into a frame of ``setup``; write a labelled folder and its profile.

    ``out`` gets ``images/``, ``labels/`` (YOLO, pip value = class + 1), ``corners.txt``
    (the tray's corners for ``calibrate tray --corners``) and ``tray.json``: the profile
    ``companion calibrate tray`` makes from the first frame and those corners.
    """
    if not photos:
        raise SceneError("no photos to compose")
    rng = np.random.default_rng(seed)

    def scenes() -> Iterator[tuple[str, Scene]]:
        for path in photos:
            photo = read_image(path)
            labels = read_labels(labels_dir / f"{path.stem}.txt", photo.shape[1], photo.shape[0])
            yield path.stem, compose(photo, labels, setup, rng)

    return _write_folder(out, setup, scenes())


def tray_floor(throw: RenderedThrow) -> tuple[np.ndarray, list[LabelledDie]]:
    """A rendered throw's tray floor cut out edge to edge, as ``compose`` takes a tray
    photo, and its dice labelled in its pixels (pip values or Rock the Bock face names)."""
    xs = sorted(x for x, _ in throw.tray_corners)
    ys = sorted(y for _, y in throw.tray_corners)
    x0, y0 = int(np.ceil(xs[1])), int(np.ceil(ys[1]))
    x1, y1 = int(xs[2]), int(ys[2])
    labels = []
    for die in throw.dice:
        bx0, by0, bx1, by1 = die.box()
        labels.append(
            LabelledDie(die.value, die.center[0] - x0, die.center[1] - y0, bx1 - bx0, by1 - by0)
        )
    return throw.image[y0:y1, x0:x1].copy(), labels


def write_rendered_scenes(
    out: Path,
    setup: Setup,
    seed: int,
    count: int,
    kind: str = "bock",
    hard: bool = False,
    artwork: str = "classic",
) -> list[Path]:
    """Render ``count`` throws of ten dice (``kind`` bock or pips; ``hard``: rough light,
    glare and blur; ``artwork``: the Rock the Bock drawings), put each throw's tray floor
    into a frame of ``setup`` (``compose``) and write a labelled folder and its profile as
    ``write_scenes`` does (Rock the Bock labels: class = the face's place in ``FACES``).
    Throw ``i`` is rendered with seed ``seed * 1000 + i``."""
    from companion.synth.render import render_throw

    if not 1 <= count < 1000:
        raise SceneError(f"count must be 1 to 999 throws, not {count}")
    rng = np.random.default_rng(seed)

    def scenes() -> Iterator[tuple[str, Scene]]:
        for i in range(count):
            throw = render_throw(seed * 1000 + i, 10, kind=kind, hard=hard, artwork=artwork)
            yield f"throw-{i:03d}", compose(*tray_floor(throw), setup, rng)

    return _write_folder(out, setup, scenes())


def _write_folder(out: Path, setup: Setup, scenes: Iterator[tuple[str, Scene]]) -> list[Path]:
    """Write each named scene's frame and labels into ``out`` (``images/``, ``labels/``),
    then ``corners.txt`` and ``tray.json`` from the first (``write_scenes``)."""
    from companion.vision.tray import calibrate_tray

    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    written = []
    first: Scene | None = None
    for name, scene in scenes:
        first = first or scene
        image = out / "images" / f"{name}.jpg"
        cv2.imwrite(str(image), scene.frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
        lines = [label_line(d, setup.frame_size) for d in scene.dice]
        (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n", "utf-8")
        written.append(image)
    assert first is not None
    (out / "corners.txt").write_text(corners_text(first.corners) + "\n", "utf-8")
    corners = tuple((float(x), float(y)) for x, y in first.corners)
    calibrate_tray(first.frame, corners).save(out / "tray.json")
    return written


FRAME_SIZES = ((1280, 960), (1640, 1232), (1920, 1080), (2028, 1520))


def random_setup(rng: np.random.Generator, name: str = "random") -> Setup:
    """A camera mounting drawn at random over the range ``SETUPS`` spans (for training).

    Any frame size of ``FRAME_SIZES``, the tray from 30 to 90 % of the frame's height,
    slanted up to 12 %, turned up to 10 degrees either way, anywhere it fits.
    """
    w, h = FRAME_SIZES[int(rng.integers(len(FRAME_SIZES)))]
    tray = float(rng.uniform(0.3, 0.9) * h)
    slant = float(rng.uniform(0.0, 0.12))
    turn = float(rng.uniform(-10.0, 10.0))
    # Room the turned, slanted tray needs around its centre, as a share of the frame.
    reach = tray * (1 + slant) * (abs(math.cos(math.radians(turn))) +
                                  abs(math.sin(math.radians(turn)))) / 2 + 2
    cx = float(rng.uniform(reach / w, 1 - reach / w)) if reach < w / 2 else 0.5
    cy = float(rng.uniform(reach / h, 1 - reach / h)) if reach < h / 2 else 0.5
    b, g, r = (float(v) for v in rng.uniform(0.82, 1.15, 3))
    return Setup(
        name, (w, h), tray, slant, turn, (cx, cy),
        SURROUNDS[int(rng.integers(len(SURROUNDS)))], (b, g, r), float(rng.uniform(0.75, 1.15)),
    )


def table_alone(kind: str, rng: np.random.Generator) -> np.ndarray:
    """A camera frame of a table alone, no tray and no die (a camera knocked aside, or
    set up before the tray is put down): ``surround`` of ``kind`` at a frame size of
    ``FRAME_SIZES``, its things sized for dice of 20-120 pixels."""
    size = FRAME_SIZES[int(rng.integers(len(FRAME_SIZES)))]
    return surround(kind, size, rng, float(rng.uniform(20, 120)))


def straightened(
    photo: np.ndarray,
    dice: Sequence[LabelledDie],
    rng: np.random.Generator,
    edge_share: float = 0.77,
) -> tuple[np.ndarray, tuple[LabelledDie, ...]]:
    """A tray photo as the recogniser sees it from a camera: composed into a random
    set-up's frame, then straightened back (``TrayView``) at the nets' scale.

    The die size for the view's scale is as ``_random_scene`` draws it. Returns the view
    and the dice in view pixels.
    """
    from companion.vision.rectify import CANON_DIE, TrayView

    scene, die = _random_scene(photo, dice, rng, edge_share)
    corners = tuple((float(x), float(y)) for x, y in scene.corners)
    view = TrayView.for_tray(corners, scene.frame.shape[1::-1], max(die, CANON_DIE / 8))
    return view.warp(scene.frame), map_dice(scene.dice, view.matrix)


def read_whole(
    photo: np.ndarray,
    dice: Sequence[LabelledDie],
    rng: np.random.Generator,
    edge_share: float = 0.77,
) -> tuple[np.ndarray, tuple[LabelledDie, ...]]:
    """A tray photo composed into a random set-up's frame and scaled whole to the nets'
    scale, table and all, as the recogniser reads a frame before it has found the tray
    (``TrayView.scaled``). Returns the view and the dice in view pixels."""
    from companion.vision.rectify import CANON_DIE, TrayView

    scene, die = _random_scene(photo, dice, rng, edge_share)
    view = TrayView.scaled(scene.frame.shape[1::-1], CANON_DIE / max(die, CANON_DIE / 8))
    return view.warp(scene.frame), map_dice(scene.dice, view.matrix)


def _random_scene(
    photo: np.ndarray, dice: Sequence[LabelledDie], rng: np.random.Generator, edge_share: float
) -> tuple[Scene, float]:
    """A random set-up's frame of ``photo`` and the die edge a measure would give in it:
    ``edge_share`` of the median labelled box (the spotter's edge is about that share of
    tray-a's boxes), varied by up to 15 % as a measured size would be."""
    while True:
        setup = random_setup(rng)
        try:
            scene = compose(photo, dice, setup, rng)
            break
        except SceneError:
            continue  # drawn too large for its frame: draw again
    boxes = [max(d.w, d.h) for d in scene.dice]
    die = (float(np.median(boxes)) * edge_share if boxes else setup.die_px()) * float(
        rng.uniform(0.87, 1.15)
    )
    return scene, die
