"""Time settle detection per frame at the camera's lores size, on one thread.

Settle detection (``companion.vision.settle`` with the occlusion check) runs on every
camera frame, so it must be cheap: the target is at most 2 ms per frame on the Pi's
lores stream (320x240). Frames come from ``companion.synth.writer`` (a rendered
tray: a throw, dice at rest, a hand resting, a cup over the dice), shrunk to the lores
size, so the still frames -- where the occlusion check runs -- are the bulk. Prints the
median and 95th percentile of wall time and of the thread's CPU time per frame (on a
shared machine the wall time's tail is other processes; the CPU time's is ours).

    .venv/bin/python bench/bench_settle.py [--size 320x240] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from companion.synth.stage import render_stage
from companion.synth.writer import Writer
from companion.vision.occlusion import OcclusionDetector
from companion.vision.settle import SettleDetector


def frames(size: tuple[int, int], seed: int = 3) -> list[np.ndarray]:
    """A short evening at the tray, shrunk to ``size`` (width, height)."""
    writer = Writer(render_stage(seed, (640, 480)), np.random.default_rng(seed), 15.0)
    writer.hold(0.5)
    writer.throw()
    writer.hold(1.5)
    writer.rest(1.5)
    writer.hold(1.0)
    writer.cup(1.5)
    writer.hold(1.0)
    return [cv2.resize(f, size, interpolation=cv2.INTER_AREA) for f in writer.frames]


def bench(size: tuple[int, int], repeat: int) -> dict[str, float]:
    """Per-frame timings (ms) of ``SettleDetector.update`` over the frames, ``repeat`` times."""
    cv2.setNumThreads(1)
    images = frames(size)
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        detector = SettleDetector(0.6, occlusion=OcclusionDetector())
        for i, image in enumerate(images):
            t0, c0 = time.perf_counter(), time.thread_time()
            detector.update(image, i / 15.0)
            cpu.append((time.thread_time() - c0) * 1000.0)
            wall.append((time.perf_counter() - t0) * 1000.0)
    wall.sort()
    cpu.sort()
    return {
        "frames": len(wall),
        "median_ms": statistics.median(wall),
        "p95_ms": wall[int(0.95 * (len(wall) - 1))],
        "cpu_ms": statistics.mean(cpu),
        "cpu_median_ms": statistics.median(cpu),
        "cpu_p95_ms": cpu[int(0.95 * (len(cpu) - 1))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="320x240", help="lores frame size WxH")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    r = bench((w, h), args.repeat)
    print(
        f"settle detection at {w}x{h}, one thread: {r['frames']:.0f} frames,"
        f" median {r['median_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms,"
        f" cpu mean {r['cpu_ms']:.2f} / median {r['cpu_median_ms']:.2f} /"
        f" p95 {r['cpu_p95_ms']:.2f} ms per frame (target ≤ 2 ms)"
    )


if __name__ == "__main__":
    main()
