"""How Rock the Bock dice look: the six faces, a set's colours and the printed face.

Every face is a skull printed on a background: bock black on white, goats light on their
player colour, wolf light on dark grey, all on the die's plastic. This is the picture the
built-in face models are learnt from (``faces_models.builtin_models``); the synthetic
scene renderer (``companion.synth.render``) draws its dice with it too, so the two can
never disagree. Drawings of other makers' sets exist only in the renderer: the runtime
learns those from the table's own dice (``companion.vision.enrol``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# The faces in class order (label files, profiles, the classifier's rows). The game's
# rules keep the same names (``companion.games.rockthebock.FACES``; a test holds them
# equal): vision never imports the games.
FACES: tuple[str, ...] = ("wolf", "bock", "goat_red", "goat_blue", "goat_green", "goat_yellow")

BGR = tuple[int, int, int]

# Faces are drawn at DRAW px and shrunk to TEXTURE px, which anti-aliases the outlines;
# TEXTURE is above the largest die edge the renderer draws, so warping only shrinks.
DRAW = 192
TEXTURE = 96


@dataclass(frozen=True)
class FaceLook:
    """How one printed face looks: its background and the colour of the skull on it."""

    background: BGR
    icon: BGR
    # The colour of the face beyond a central badge, for artwork that has one; there
    # ``background`` is the badge's colour, the one around the icon.
    outer: BGR | None = None


@dataclass(frozen=True)
class Palette:
    """The colours of one Rock the Bock dice set (BGR, 0-255)."""

    looks: tuple[FaceLook, ...]  # one per face, in ``FACES`` order
    body: BGR  # the die's plastic: margins around the print and the side walls

    def look(self, face: str) -> FaceLook:
        """The look of ``face`` (one of ``FACES``)."""
        return self.looks[FACES.index(face)]


DEFAULT_PALETTE = Palette(
    looks=(
        FaceLook(background=(62, 62, 66), icon=(178, 180, 176)),  # wolf: light skull on dark grey
        FaceLook(background=(236, 240, 242), icon=(34, 30, 30)),  # bock: black skull on white
        FaceLook(background=(42, 38, 196), icon=(228, 236, 242)),  # goat_red
        FaceLook(background=(178, 92, 28), icon=(228, 236, 242)),  # goat_blue
        FaceLook(background=(52, 150, 42), icon=(228, 236, 242)),  # goat_green
        FaceLook(background=(36, 206, 236), icon=(228, 236, 242)),  # goat_yellow
    ),
    body=(214, 224, 230),
)


def face_texture(face: str, palette: Palette = DEFAULT_PALETTE) -> np.ndarray:
    """The printed face ``face`` of the built-in artwork, upright: BGR uint8, TEXTURE px."""
    tex = shade_texture(draw_face(face, palette))
    return np.clip(tex * 255 + 0.5, 0, 255).astype(np.uint8)


def draw_face(face: str, palette: Palette = DEFAULT_PALETTE) -> np.ndarray:
    """The built-in artwork's face ``face`` at DRAW px (BGR uint8): plastic, background, skull."""
    if face not in FACES:
        raise ValueError(f"unknown face {face!r}; use one of {', '.join(FACES)}")
    d = DRAW
    look = palette.look(face)
    img = np.zeros((d, d, 3), np.uint8)
    img[:] = palette.body
    m = round(d * 0.075)
    rounded_rect(img, m, m, d - 1 - m, d - 1 - m, round(d * 0.09), look.background)
    skull = np.zeros((d, d), np.uint8)
    holes = np.zeros((d, d), np.uint8)
    _SKULLS[face.split("_")[0]](skull, holes)
    img[(skull > 0) & (holes == 0)] = look.icon
    return img


def shade_texture(img: np.ndarray) -> np.ndarray:
    """A face drawn at DRAW px, shrunk to TEXTURE px (float BGR 0-1) with its bevel shaded.

    The rounded edge of a die darkens towards the rim.
    """
    tex = cv2.resize(img, (TEXTURE, TEXTURE), interpolation=cv2.INTER_AREA).astype(np.float32)
    tex /= 255
    ramp = np.minimum(np.arange(TEXTURE), np.arange(TEXTURE)[::-1]).astype(np.float32)
    ramp = np.clip(ramp / (TEXTURE * 0.07), 0, 1)
    bevel = np.minimum(ramp[None, :], ramp[:, None])
    tex *= (0.72 + 0.28 * bevel)[:, :, None]
    return tex


def rounded_rect(
    img: np.ndarray, x0: int, y0: int, x1: int, y1: int, r: int, color: BGR | int
) -> None:
    """Fill a rectangle with corners rounded to radius ``r`` into ``img``."""
    cv2.rectangle(img, (x0 + r, y0), (x1 - r, y1), color, -1)
    cv2.rectangle(img, (x0, y0 + r), (x1, y1 - r), color, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)):
        cv2.circle(img, (cx, cy), r, color, -1, cv2.LINE_AA)


def _skull_base(skull: np.ndarray, holes: np.ndarray, snout_len: int, snout_w: int) -> None:
    """Cranium, snout, eye sockets and nostrils shared by the three skulls (192 px canvas)."""
    cv2.ellipse(skull, (96, 84), (32, 30), 0, 0, 360, 255, -1, cv2.LINE_AA)
    bottom = 96 + snout_len
    snout = np.array(
        [[96 - 27, 92], [96 + 27, 92], [96 + snout_w, bottom], [96 - snout_w, bottom]], np.int32
    )
    cv2.fillConvexPoly(skull, snout, 255, cv2.LINE_AA)
    cv2.ellipse(skull, (96, bottom), (snout_w, 7), 0, 0, 180, 255, -1, cv2.LINE_AA)
    for x in (82, 110):
        cv2.ellipse(holes, (x, 86), (8, 10), 0, 0, 360, 255, -1, cv2.LINE_AA)
    for x in (91, 101):
        cv2.circle(holes, (x, bottom - 6), 4, 255, -1, cv2.LINE_AA)


def _goat(skull: np.ndarray, holes: np.ndarray) -> None:
    _skull_base(skull, holes, snout_len=52, snout_w=12)
    # Short horns swept back and out.
    for sign in (-1, 1):
        pts = np.array(
            [
                [96 + sign * 14, 60],
                [96 + sign * 30, 64],
                [96 + sign * 52, 26],
                [96 + sign * 44, 22],
            ],
            np.int32,
        )
        cv2.fillConvexPoly(skull, pts, 255, cv2.LINE_AA)
    # Pointed ears below the horns.
    for sign in (-1, 1):
        ear = np.array([[96 + sign * 26, 74], [96 + sign * 58, 70], [96 + sign * 30, 88]], np.int32)
        cv2.fillConvexPoly(skull, ear, 255, cv2.LINE_AA)


def _bock(skull: np.ndarray, holes: np.ndarray) -> None:
    _skull_base(skull, holes, snout_len=56, snout_w=13)
    # Big curled ram horns on both sides and a beard under the jaw.
    for sign in (-1, 1):
        center = (96 + sign * 50, 74)
        start, end = (200, 470) if sign < 0 else (-110, 160)
        cv2.ellipse(skull, center, (28, 30), 0, start, end, 255, 13, cv2.LINE_AA)
    beard = np.array([[84, 156], [108, 156], [96, 186]], np.int32)
    cv2.fillConvexPoly(skull, beard, 255, cv2.LINE_AA)


def _wolf(skull: np.ndarray, holes: np.ndarray) -> None:
    _skull_base(skull, holes, snout_len=68, snout_w=9)
    for sign in (-1, 1):
        ear = np.array([[96 + sign * 10, 60], [96 + sign * 40, 18], [96 + sign * 34, 74]], np.int32)
        cv2.fillConvexPoly(skull, ear, 255, cv2.LINE_AA)
    # Fangs along the jaw.
    for sign in (-1, 1):
        fang = np.array(
            [[96 + sign * 10, 150], [96 + sign * 18, 150], [96 + sign * 13, 172]], np.int32
        )
        cv2.fillConvexPoly(skull, fang, 255, cv2.LINE_AA)


_SKULLS = {"goat": _goat, "bock": _bock, "wolf": _wolf}
