"""Things that are not dice, drawn into sequence frames: hands and arms, dice cups, coasters.

Hands come in several skin tones (``SKIN_TONES``), bare or in a sleeve (``SLEEVES``);
each casts a soft shadow. A dice cup is drawn upside down from above (lifted: larger and
offset), a beer mat round or square with a printed ring. The scripts that move them
through the tray are in :mod:`companion.synth.sequences`.
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
