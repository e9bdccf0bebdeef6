"""Time the pip recogniser per frame: 640x640 and 1280x960 frames with 3 and 10 dice.

Frames come from the project's renderer (``companion.synth.render``), so the benchmark
needs no photos. One thread, as on the Pi's single busy core. Prints a table of medians
(milliseconds) per stage: ``detect`` (die finder), ``pips`` (reading all dice), ``total``,
and ``cpu``: the process's CPU time per frame, which a busy shared machine inflates less
than the wall clock.

    .venv/bin/python bench/bench_pips.py [--frames 15] [--seed 7000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2

from companion.synth.render import render_throw
from companion.vision.recognizer import SIZE_FRAMES, PipRecognizer

CASES = [((640, 640), 3), ((640, 640), 10), ((1280, 960), 3), ((1280, 960), 10)]


def bench(frames: int, seed: int) -> list[dict]:
    """Median timings per case; each frame is read once after one warm-up read."""
    cv2.setNumThreads(1)
    recognizer = PipRecognizer()
    rows = []
    for size, n_dice in CASES:
        images = [
            render_throw(seed + i, n_dice, kind="pips", size=size).image for i in range(frames)
        ]
        # Warm-up: first calls allocate buffers, and the recogniser measures the die size
        # on its first frames of a size (then only every SIZE_EVERY-th read).
        for _ in range(SIZE_FRAMES + 1):
            recognizer.read(images[0])
        stages: dict[str, list[float]] = {"detect": [], "pips": [], "total": [], "cpu": []}
        found = []
        for image in images:
            c0 = time.process_time()
            reading = recognizer.read(image)
            stages["cpu"].append((time.process_time() - c0) * 1000.0)
            for key in ("detect", "pips", "total"):
                stages[key].append(reading.timings_ms[key])
            found.append(len(reading.dice))
        rows.append(
            {
                "frame": f"{size[0]}x{size[1]}",
                "dice": n_dice,
                **{k: statistics.median(v) for k, v in stages.items()},
                "found": statistics.median(found),
            }
        )
    return rows


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=15, help="frames per case")
    parser.add_argument("--seed", type=int, default=7000, help="first render seed")
    args = parser.parse_args()
    rows = bench(args.frames, args.seed)
    print(
        f"{'frame':>9} {'dice':>4} {'detect':>7} {'pips':>6} {'total':>6} {'cpu':>6}"
        f" {'found':>5}  (median ms; found = dice read)"
    )
    for r in rows:
        print(
            f"{r['frame']:>9} {r['dice']:>4} {r['detect']:7.1f} {r['pips']:6.1f}"
            f" {r['total']:6.1f} {r['cpu']:6.1f} {r['found']:5.0f}"
        )


if __name__ == "__main__":
    main()
