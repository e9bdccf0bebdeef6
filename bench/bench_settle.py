"""Time settle detection per frame at the camera's lores size, on one thread.

Settle detection (``companion.vision.settle`` with the occlusion check) runs on every
camera frame, so it must be cheap: the target is at most 2 ms per frame on the Pi's
lores stream (320x240). Frames come from ``companion.synth.writer`` (a rendered
tray: a throw, dice at rest, a hand resting, a cup over the dice), shrunk to the lores
size, so the still frames -- where the occlusion check runs -- are the bulk. Prints the
median and 95th percentile of wall time and of the thread's CPU time per frame (on a
shared machine the wall time's tail is other processes; the CPU time's is ours).

With ``--tray-part`` the same evening is seen by a calibrated 1920x1080 camera whose tray
is about 500 px across (``companion.synth.scene.on_a_stand``): the lores copy is shrunk
from that frame, and settle detection watches the tray's part of it
(``OcclusionDetector.window``, at ``small_side``).

    .venv/bin/python bench/bench_settle.py [--size 320x240] [--repeat 3] [--tray-part]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from companion.synth.scene import on_a_stand
from companion.synth.stage import render_stage
from companion.synth.writer import Writer
from companion.vision.occlusion import OcclusionDetector
from companion.vision.settle import SettleDetector
from companion.vision.tray import TrayProfile

# The calibrated camera of ``--tray-part``: its frame and the tray floor's corners in it.
CAMERA = (1920, 1080)
TRAY = ((1150.0, 420.0), (1660.0, 440.0), (1670.0, 830.0), (1140.0, 815.0))


def frames(size: tuple[int, int], seed: int = 3, tray_part: bool = False) -> list[np.ndarray]:
    """A short evening at the tray, shrunk to ``size`` (width, height); with
    ``tray_part``, as ``CAMERA`` sees it first."""
    writer = Writer(render_stage(seed, (640, 480)), np.random.default_rng(seed), 15.0)
    writer.hold(0.5)
    writer.throw()
    writer.hold(1.5)
    writer.rest(1.5)
    writer.hold(1.0)
    writer.cup(1.5)
    writer.hold(1.0)
    pictures = writer.frames
    if tray_part:
        pictures = on_a_stand(pictures, np.array(TRAY), CAMERA, np.random.default_rng(seed))
    return [cv2.resize(f, size, interpolation=cv2.INTER_AREA) for f in pictures]


def bench(size: tuple[int, int], repeat: int, tray_part: bool = False) -> dict[str, float]:
    """Per-frame timings (ms) of ``SettleDetector.update`` over the frames, ``repeat`` times."""
    cv2.setNumThreads(1)
    images = frames(size, tray_part=tray_part)
    # A die of 24 px, a little under the rendered ones: larger small frames, the dearer case.
    profile = TrayProfile(CAMERA, TRAY, 24.0, (200.0, 200.0, 200.0)) if tray_part else None
    full = CAMERA if tray_part else None
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        detector = SettleDetector(0.6, occlusion=OcclusionDetector(profile))
        for i, image in enumerate(images):
            t0, c0 = time.perf_counter(), time.thread_time()
            detector.update(image, i / 15.0, size=full)
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
    parser.add_argument("--tray-part", action="store_true",
                        help="a calibrated 1920x1080 camera, the tray a part of its frame")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    r = bench((w, h), args.repeat, args.tray_part)
    what = " (the tray a part of a calibrated 1920x1080 frame)" if args.tray_part else ""
    print(
        f"settle detection at {w}x{h}{what}, one thread: {r['frames']:.0f} frames,"
        f" median {r['median_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms,"
        f" cpu mean {r['cpu_ms']:.2f} / median {r['cpu_median_ms']:.2f} /"
        f" p95 {r['cpu_p95_ms']:.2f} ms per frame (target ≤ 2 ms)"
    )


if __name__ == "__main__":
    main()
