"""Where a die's top face lies inside an outline found by the classical finder.

The classical finder (``companion.vision.detect``) gives an outline that may take in the
die's side walls and shadow; the top face is the square, turned along the die's edges,
whose outline has the strongest colour edges (``fit_top_face``). The learned spotter
gives top faces directly and needs none of this.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.vision.types import DieRegion

_FIT = 20.0  # working pixels per region size for the top-face fit


def _window(
    frame: np.ndarray, center: tuple[float, float], angle: float, f: float, side: int
) -> tuple[np.ndarray, np.ndarray]:
    """A ``side`` x ``side`` window (float32) turned by ``angle``, and its map to the frame."""
    a = math.radians(angle)
    ca, sa = math.cos(a) / f, math.sin(a) / f
    half = (side - 1) / 2.0
    cx, cy = center
    m = np.array([[ca, -sa, cx - half * (ca - sa)], [sa, ca, cy - half * (sa + ca)]], np.float64)
    win = cv2.warpAffine(
        frame,
        m,
        (side, side),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return win.astype(np.float32), m


def die_angle(frame: np.ndarray, region: DieRegion) -> float:
    """The turn of the die's edges in degrees [0, 90), from the edges around it.

    A finder's outline of die, side wall and shadow together can be turned the wrong way;
    the die's own printed and physical edges all run along its two axes. Gradient
    directions are averaged as fourfold angles, where 0, 90, 180 and 270 degrees agree,
    weighted by the gradient's strength.
    """
    f = _FIT / max(region.size, 1.0)
    side = int(math.ceil(region.size * f)) + 4
    win, _ = _window(frame, region.center, 0.0, f, side)
    gx = cv2.Sobel(win, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(win, cv2.CV_32F, 0, 1, ksize=3)
    c, s = gx.ravel(), gy.ravel()
    mag2 = c * c + s * s
    k = int(len(mag2) * 0.6)
    keep = mag2 > np.partition(mag2, k)[k]
    c, s, mag2 = c[keep], s[keep], mag2[keep]
    # With z = c + i s: z**4 / |z|**2, the fourfold direction weighted by squared strength.
    re2, im2 = c * c - s * s, 2.0 * c * s
    re4, im4 = re2 * re2 - im2 * im2, 2.0 * re2 * im2
    total_re = float((re4 / (mag2 + 1e-6)).sum())
    total_im = float((im4 / (mag2 + 1e-6)).sum())
    return math.degrees(math.atan2(total_im, total_re)) / 4.0 % 90.0


def fit_top_face(
    frame: np.ndarray,
    region: DieRegion,
    edge: float | None = None,
    angle: float | None = None,
) -> tuple[tuple[float, float], float, float]:
    """Centre, edge and angle of the top face inside a found die region (frame pixels).

    The finder's region may hold the die's side walls and shadow as well. The top face
    is the square, turned along the die's edges (``die_angle``), whose outline has the
    strongest colour edges: its rim against the side walls, the tray or a neighbour.
    Positions anywhere inside the region are tried; sizes within 6 % of ``edge`` when the
    die edge is known, otherwise from 0.7 to 1.05 times the region's size, growing on
    (up to 1.45) while the largest size tried is still the best: the finder then saw
    only part of the die. Without a known edge the outline of die and side wall together
    wins now and then; ``BockRecognizer`` refits such dice at the frame's median edge.
    """
    if angle is None:
        angle = die_angle(frame, region)
    f = _FIT / max(region.size, 1.0)
    side = int(math.ceil(region.size * f * 1.6)) + 4
    win, m = _window(frame, region.center, angle, f, side)
    # Edge strength summed over the colour channels: a red face on white plastic has
    # little edge in grey but a strong one in blue and green.
    gx = np.abs(cv2.Sobel(win, cv2.CV_32F, 1, 0, ksize=3)).sum(axis=2)
    gy = np.abs(cv2.Sobel(win, cv2.CV_32F, 0, 1, ksize=3)).sum(axis=2)
    # Column sums of |gx| and row sums of |gy| as prefix sums: each side of a candidate
    # square is then two look-ups.
    cgx = np.vstack([np.zeros((1, side), np.float32), np.cumsum(gx, axis=0)])
    cgy = np.hstack([np.zeros((side, 1), np.float32), np.cumsum(gy, axis=1)])
    half = (side - 1) / 2.0
    best = (-1.0, half, half, _FIT)
    if edge is not None:
        lo = max(6, int(math.floor(edge * f * 0.94)))
        hi = min(side - 2, int(math.ceil(edge * f * 1.06)))
    else:
        lo = max(6, int(_FIT * 0.7))
        hi = min(side - 2, int(round(_FIT * 1.05)))
    t = lo
    while t <= hi:
        n = side - t
        # Row y0, column x0 of each array: the square with top-left corner (x0, y0).
        left = cgx[t : t + n, :n] - cgx[:n, :n]
        right = cgx[t : t + n, t : t + n] - cgx[:n, t : t + n]
        top = cgy[:n, t : t + n] - cgy[:n, :n]
        bottom = cgy[t : t + n, t : t + n] - cgy[t : t + n, :n]
        score = (left + right + top + bottom) / (4.0 * t)
        k = int(np.argmax(score))
        if score.flat[k] > best[0]:
            yy, xx = divmod(k, n)
            best = (float(score.flat[k]), xx + t / 2.0, yy + t / 2.0, float(t))
        if t == hi and edge is None and best[3] == t and hi < int(_FIT * 1.45):
            # Still improving at the largest size: the finder saw only part of the die.
            hi += 1
        t += 1
    _, wx, wy, side_px = best
    # Window pixel (wx, wy) back to the frame through the same affine map.
    fx = m[0, 0] * wx + m[0, 1] * wy + m[0, 2]
    fy = m[1, 0] * wx + m[1, 1] * wy + m[1, 2]
    return (float(fx), float(fy)), side_px / f, angle
