"""Draw simple top-down frames of pip dice with known answers, for the pip-dice tests."""

from __future__ import annotations

import math
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

# Pip positions on a unit face (-1..1), the usual layouts.
LAYOUTS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def draw_die(
    img: np.ndarray,
    centre: tuple[float, float],
    edge: float,
    angle: float,
    value: int,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (20, 20, 20),
) -> None:
    """Draw one die seen from straight above, rotated by ``angle`` degrees, in place."""
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    half = edge / 2

    def to_frame(u: float, v: float) -> tuple[float, float]:
        return (centre[0] + u * ca - v * sa, centre[1] + u * sa + v * ca)

    corners = np.array(
        [
            to_frame(-half, -half),
            to_frame(half, -half),
            to_frame(half, half),
            to_frame(-half, half),
        ],
        np.float32,
    )
    shadow = corners + np.float32([edge * 0.06, edge * 0.06])
    cv2.fillConvexPoly(img, shadow.round().astype(np.int32), (90, 90, 90), cv2.LINE_AA)
    cv2.fillConvexPoly(img, corners.round().astype(np.int32), body, cv2.LINE_AA)
    r = edge * 0.09
    for u, v in LAYOUTS[value]:
        x, y = to_frame(u * edge * 0.26, v * edge * 0.26)
        cv2.circle(img, (round(x * 4), round(y * 4)), round(r * 4), pip, -1, cv2.LINE_AA, shift=2)


def frame_with_dice(
    dice: list[tuple[float, float, float, int]],
    size: tuple[int, int] = (640, 480),
    edge: float = 40,
    background: tuple[int, int, int] = (150, 155, 150),
    seed: int = 0,
    colours: list[tuple[tuple[int, int, int], tuple[int, int, int]]] | None = None,
) -> np.ndarray:
    """A frame with dice at (x, y, angle, value), lightly noisy like a camera picture."""
    w, h = size
    img = np.full((h, w, 3), background, np.uint8)
    for k, (x, y, angle, value) in enumerate(dice):
        body, pip = colours[k % len(colours)] if colours else ((235, 235, 235), (20, 20, 20))
        draw_die(img, (x, y), edge, angle, value, body, pip)
    rng = np.random.default_rng(seed)
    noise = rng.normal(0, 2.0, img.shape)
    return np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def drawn_photos(
    folder: Path, dice: list[tuple[float, float, float, int]], count: int = 2, edge: float = 48
) -> Path:
    """A labelled folder (``images/``, ``labels/``, YOLO: class = value - 1) of ``count``
    640x640 "tray photos": ``dice`` drawn on an even floor, as the tray-a photos look."""
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    for k in range(count):
        frame = frame_with_dice(dice, size=(640, 640), edge=edge, background=(200, 205, 205),
                                seed=k)
        cv2.imwrite(str(folder / "images" / f"p{k}.jpg"), frame)
        lines = [f"{v - 1} {x / 640} {y / 640} {edge / 640} {edge / 640}" for x, y, _, v in dice]
        (folder / "labels" / f"p{k}.txt").write_text("\n".join(lines) + "\n")
    return folder


def photos_dir() -> Path:
    """The real photo set (tray-a); skips the test with a message when it is absent."""
    root = Path(__file__).resolve().parents[2]
    base = Path(os.environ.get("COMPANION_PHOTOS", root / ".." / "shared" / "dice-photos"))
    tray = base / "tray-a"
    if not (tray / "images").is_dir():
        pytest.skip(f"real dice photos not found at {tray} (set COMPANION_PHOTOS)")
    return tray


def photo_sample(folder: Path, every: slice) -> Path:
    """A labelled folder at ``folder`` linking to the tray-a photos ``every`` picks (sorted).

    The photos are read where they lie: only symlinks are written. Skips like
    ``photos_dir`` when the photos are absent.
    """
    tray = photos_dir()
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    for path in sorted((tray / "images").glob("*.jpg"))[every]:
        (folder / "images" / path.name).symlink_to(path)
        (folder / "labels" / f"{path.stem}.txt").symlink_to(tray / "labels" / f"{path.stem}.txt")
    return folder
