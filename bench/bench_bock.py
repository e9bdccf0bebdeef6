"""Benchmark the Rock the Bock recogniser on rendered 1280x960 frames with 10 dice.

    .venv/bin/python bench/bench_bock.py [--frames 30] [--seed 4242] [--hard]
        [--palette default|shifted] [--profile P] [--truth] [--finder auto|spotter|classic]

Prints the median milliseconds per frame (one OpenCV thread) and the median of each
stage: ``spot`` with the learned spotter, ``find`` and ``locate`` with the classical
finder, then ``measure`` and ``classify``. It also prints how many true top faces the
finder's dice lie within a tenth of an edge of (the spotter's own accuracy, before any
face is read). With ``--truth`` it also classifies every die
at its true top face from the renderer, bypassing the die finder, and prints that
accuracy next to the end-to-end one: it tells finder errors from classifier errors.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.evaluation import LabelledDie, match  # noqa: E402
from companion.synth.render import frame_seed, render_throw, shifted_palette  # noqa: E402
from companion.vision.enrol import load_recognizer  # noqa: E402
from companion.vision.faces import BockRecognizer  # noqa: E402
from companion.vision.faces_features import face_features  # noqa: E402
from companion.vision.faces_look import DEFAULT_PALETTE  # noqa: E402
from companion.vision.spot import FINDERS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--hard", action="store_true")
    parser.add_argument("--palette", choices=("default", "shifted"), default="default")
    parser.add_argument("--profile", help="calibration file with enrolled faces")
    parser.add_argument("--truth", action="store_true", help="also classify at true top faces")
    parser.add_argument("--finder", choices=FINDERS, default="auto", help="where dice come from")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    palette = shifted_palette() if args.palette == "shifted" else DEFAULT_PALETTE
    loaded = load_recognizer(args.profile)
    recognizer = BockRecognizer(
        loaded.profile,
        {f: loaded.classifier.models[f] for f in loaded.enrolled},
        finder=args.finder,
    )
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    found = correct = truth_ok = truth_unsure = labelled = close = 0
    confusions: Counter = Counter()
    for i in range(args.frames):
        throw = render_throw(
            frame_seed(args.seed, i), 10, kind="bock", hard=args.hard, palette=palette
        )
        t0 = time.perf_counter()
        reading = recognizer.read(throw.image)
        totals.append((time.perf_counter() - t0) * 1000.0)
        for stage, ms in reading.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
        labels = [
            LabelledDie(d.value, d.center[0], d.center[1], d.size, d.size)  # type: ignore[arg-type]
            for d in throw.dice
        ]
        pairs = match(labels, [d.region.center for d in reading.dice])
        found += len(pairs)
        tight = [
            LabelledDie(d.value, d.center[0], d.center[1], 0.2 * d.size, 0.2 * d.size)  # type: ignore[arg-type]
            for d in throw.dice
        ]
        close += len(match(tight, [d.region.center for d in reading.dice]))
        correct += sum(1 for a, b in pairs if reading.dice[b].value == labels[a].value)
        labelled += len(labels)
        if args.truth:
            for die in throw.dice:
                feats = face_features(
                    throw.image, die.center, die.size, die.angle, recognizer._gains()
                )
                verdict = recognizer.classifier.classify(feats)
                truth_ok += verdict.face == die.value
                truth_unsure += verdict.uncertain
                if verdict.face != die.value:
                    confusions[(die.value, verdict.face or "uncertain")] += 1
    print(
        f"frames {args.frames} (10 dice, 1280x960, hard={args.hard}, palette={args.palette},"
        f" finder={recognizer.finder})"
    )
    print(f"median ms per frame: {statistics.median(totals):.1f}")
    for stage, values in stages.items():
        print(f"  {stage:9s} {statistics.median(values):6.2f} ms")
    print(
        f"end to end: found {found}/{labelled} ({close} within a tenth of an edge),"
        f" right {correct}/{labelled} = {correct / labelled:.4f}"
    )
    if args.truth:
        print(
            f"at true top faces: right {truth_ok}/{labelled} = {truth_ok / labelled:.4f},"
            f" uncertain {truth_unsure}"
        )
        for (face, read), n in confusions.most_common(8):
            print(f"  {face} read as {read}: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
