"""Things that are not dice, drawn into sequence frames: hands and arms, dice cups, coasters
and phones.

Hands come in several skin tones (``SKIN_TONES``), bare or in a sleeve (``SLEEVES``);
each casts a soft shadow. A dice cup is drawn upside down from above (lifted: larger and
offset), a beer mat round or square with a printed ring, a phone face up (a dark glass
screen with a reflection) or face down (its back, with a camera bump of round lenses
that look like pips on a square). The scripts that move them through the tray are in
:mod:`companion.synth.sequences`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

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
PHONE_BACKS = ((40, 40, 44), (225, 228, 230), (120, 70, 30), (150, 150, 215))  # BGR
# A phone's size in die edges: about 7 x 14.5 cm beside dice of 16-19 mm.
PHONE_EDGES = (3.8, 7.8)


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


def phone_corners(centre: tuple[float, float], edge: float, angle: float) -> np.ndarray:
    """The four corners (4, 2) of a phone lying at ``centre``, its long side turned
    ``angle`` degrees from the frame's x axis."""
    w, h = PHONE_EDGES[1] * edge, PHONE_EDGES[0] * edge
    return cv2.boxPoints(((float(centre[0]), float(centre[1])), (w, h), float(angle)))


def draw_phone(canvas: np.ndarray, centre: tuple[float, float], edge: float, angle: float,
               face_down: bool, back: tuple[int, int, int]) -> None:
    """A phone lying flat: face up a near-black glass screen in a thin frame with a
    reflection across it; face down its ``back`` (BGR) with a camera bump in one corner:
    a rounded square about a die's size holding three dark round lenses and a flash."""
    h, w = canvas.shape[:2]
    body = np.zeros((h, w), np.float32)
    corners = phone_corners(centre, edge, angle)
    cv2.fillConvexPoly(body, np.round(corners).astype(np.int32), 1.0, cv2.LINE_AA)
    _shadow(canvas, body, (int(edge * 0.15) + 1, int(edge * 0.2) + 1), 0.35, edge * 0.3)
    a = math.radians(angle)
    along, across = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    c = np.array(centre, np.float64)

    def at(u: float, v: float) -> tuple[int, int]:  # u along the long side, v across, in edges
        x, y = c + (u * along + v * across) * edge
        return int(round(x)), int(round(y))

    if not face_down:
        _shade(canvas, body, (26, 26, 30))
        screen = np.zeros((h, w), np.float32)
        inner = phone_corners(centre, edge, angle)
        inner = c + (inner - c) * np.array([0.93, 0.9])
        cv2.fillConvexPoly(screen, np.round(inner).astype(np.int32), 1.0, cv2.LINE_AA)
        _shade(canvas, screen, (12, 12, 14))
        glare = np.zeros((h, w), np.float32)
        cv2.line(glare, at(-1.5, -2.0), at(0.5, 2.0), 1.0, max(2, int(edge * 0.9)))
        glare = cv2.GaussianBlur(glare, (0, 0), edge * 0.35) * screen
        canvas += glare[:, :, None] * 55.0
        return
    _shade(canvas, body, back)
    bump = np.zeros((h, w), np.float32)
    u0, v0 = -PHONE_EDGES[1] / 2 + 1.2, -PHONE_EDGES[0] / 2 + 1.2
    half = 0.85 * edge
    cx, cy = at(u0, v0)
    box = cv2.boxPoints(((cx, cy), (2 * half, 2 * half), float(angle)))
    cv2.fillConvexPoly(bump, np.round(box).astype(np.int32), 1.0, cv2.LINE_AA)
    _shade(canvas, bump, tuple(int(v * 0.8) for v in back))  # type: ignore[arg-type]
    for du, dv in ((-0.4, -0.4), (0.4, 0.4), (-0.4, 0.4)):
        lens = np.zeros((h, w), np.float32)
        cv2.circle(lens, at(u0 + du, v0 + dv), max(2, int(edge * 0.3)), 1.0, -1, cv2.LINE_AA)
        _shade(canvas, lens, (70, 70, 70))
        glass = np.zeros((h, w), np.float32)
        cv2.circle(glass, at(u0 + du, v0 + dv), max(1, int(edge * 0.2)), 1.0, -1, cv2.LINE_AA)
        _shade(canvas, glass, (8, 8, 10))
    flash = np.zeros((h, w), np.float32)
    cv2.circle(flash, at(u0 + 0.4, v0 - 0.4), max(1, int(edge * 0.1)), 1.0, -1, cv2.LINE_AA)
    _shade(canvas, flash, (200, 225, 240))
