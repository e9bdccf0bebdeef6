"""Time reading pip dice in whole camera frames against reading the bare tray.

A camera frame of 1280x960 or 1920x1080 holds the tray, filling about half of it, at a
slant and turned, on a wooden table (``companion.synth.scene``); the tray itself is a
rendered throw of 3 or 10 dice (``companion.synth.render``), so no photos are needed.
Each frame is read twice, one thread:

- ``frame``: the whole frame with the set-up's tray profile, as the camera would send
  it: the tray straightened straight to the spotter's working scale (``rectify``), dice
  found there, mapped back and read from the frame's own pixels;
- ``bare``: the straightened tray view itself, read as a bare top-down tray picture
  (``PipRecognizer.read_view``): the same pixels without straightening and mapping back.

``extra`` is how much more ``frame`` costs than ``bare`` (the issue allows 30 %).
Prints medians in milliseconds per case; the ``rectify`` column is the straightening
stage of ``frame`` alone.

    .venv/bin/python bench/bench_tray_view.py [--frames 10] [--seed 7300]
"""

from __future__ import annotations

import argparse
import math
import statistics

import cv2
import numpy as np

from companion.evaluation import LabelledDie
from companion.synth.render import render_throw
from companion.synth.scene import Setup, compose
from companion.vision.recognizer import SIZE_FRAMES, PipRecognizer
from companion.vision.rectify import CANON_DIE
from companion.vision.tray import calibrate_tray

CASES = [((1280, 960), 3), ((1280, 960), 10), ((1920, 1080), 3), ((1920, 1080), 10)]


def setup_for(size: tuple[int, int]) -> Setup:
    """A wooden-table set-up whose tray covers about half of a ``size`` frame (a square
    tray: 41 % of a 16:9 frame, whose height limits it)."""
    side = min(math.sqrt(0.5 * size[0] * size[1]), 0.85 * min(size))
    return Setup(f"half-{size[0]}", size, side, 0.08, 4.0, (0.5, 0.5), "wood",
                 (1.0, 1.0, 1.0), 1.0)


def bench(frames: int, seed: int) -> list[dict]:
    """Median timings per case, after warming up each recogniser on the case's first frame."""
    cv2.setNumThreads(1)
    rows = []
    for size, n_dice in CASES:
        setup = setup_for(size)
        side = round(setup.tray_px)
        scenes = []
        for i in range(frames):
            throw = render_throw(seed + i, n_dice, kind="pips", size=(side, side))
            dice = [LabelledDie(d.value, *d.center, 1.0, 1.0) for d in throw.dice]
            scenes.append(compose(throw.image, dice, setup, np.random.default_rng(seed + i)))
        corners = tuple((float(x), float(y)) for x, y in scenes[0].corners)
        whole = PipRecognizer(calibrate_tray(scenes[0].frame, corners))
        # Warm-up: buffers, and the die size the recogniser measures on its first frames.
        for _ in range(SIZE_FRAMES + 1):
            whole.read(scenes[0].frame)
        views = [whole.view(s.frame) for s in scenes]
        images = [v.warp(s.frame) for v, s in zip(views, scenes, strict=True)]
        whole.read_view(images[0], CANON_DIE)
        t: dict[str, list[float]] = {"frame": [], "rectify": [], "bare": []}
        found = []
        for scene, image in zip(scenes, images, strict=True):
            reading = whole.read(scene.frame)
            t["frame"].append(reading.timings_ms["total"])
            t["rectify"].append(reading.timings_ms["rectify"])
            t["bare"].append(whole.read_view(image, CANON_DIE).timings_ms["total"])
            right = sorted(d.value for d in reading.dice) == sorted(d.value for d in scene.dice)
            found.append(right)
        med = {k: statistics.median(v) for k, v in t.items()}
        rows.append(
            {
                "size": f"{size[0]}x{size[1]}",
                "dice": n_dice,
                **med,
                "extra": med["frame"] / med["bare"] - 1.0,
                "exact": sum(found) / len(found),
            }
        )
    return rows


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10, help="frames per case")
    parser.add_argument("--seed", type=int, default=7300, help="first render seed")
    args = parser.parse_args()
    rows = bench(args.frames, args.seed)
    print(
        f"{'size':>9} {'dice':>4} {'frame':>6} {'rectify':>7} {'bare':>6} {'extra':>6}"
        f" {'exact':>5}  (median ms, one thread; exact = share of frames read right)"
    )
    for r in rows:
        print(
            f"{r['size']:>9} {r['dice']:>4} {r['frame']:6.1f} {r['rectify']:7.1f}"
            f" {r['bare']:6.1f} {r['extra']:6.0%} {r['exact']:5.2f}"
        )

if __name__ == "__main__":
    main()
