"""Pip-dice vision commands: ``calibrate tray`` and ``eval pips``."""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from companion.vision.types import VisionError


class EvalDataError(ValueError):
    """An evaluation folder that is missing images or has malformed labels."""


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: pip value and its box in pixels."""

    value: int
    x: float
    y: float
    w: float
    h: float


def read_labels(path: Path, width: int, height: int) -> list[LabelledDie]:
    """Parse a YOLO label file (``class x y w h``, 0..1; value = class + 1)."""
    dice = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls = int(parts[0])
            x, y, w, h = (float(v) for v in parts[1:5])
        except (ValueError, IndexError):
            raise EvalDataError(
                f"{path}:{number}: expected 'class x_center y_center width height', got {line!r}"
            ) from None
        if not 0 <= cls <= 5 or len(parts) != 5:
            raise EvalDataError(f"{path}:{number}: class must be 0..5 (pip value - 1): {line!r}")
        dice.append(LabelledDie(cls + 1, x * width, y * height, w * width, h * height))
    return dice


def match(labels: list[LabelledDie], centres: list[tuple[float, float]]) -> list[tuple[int, int]]:
    """Pair labels with read dice by position: closest pairs first, within half a box."""
    pairs = []
    for i, lab in enumerate(labels):
        reach = 0.5 * max(lab.w, lab.h)
        for j, (x, y) in enumerate(centres):
            d = ((x - lab.x) ** 2 + (y - lab.y) ** 2) ** 0.5
            if d <= reach:
                pairs.append((d, i, j))
    pairs.sort()
    used_l: set[int] = set()
    used_r: set[int] = set()
    out = []
    for _, i, j in pairs:
        if i in used_l or j in used_r:
            continue
        used_l.add(i)
        used_r.add(j)
        out.append((i, j))
    return out


def evaluate(directory: Path, csv_out: Path | None = None) -> dict:
    """Run the pip recogniser over ``directory`` (images/*.jpg + labels/*.txt); return figures."""
    import cv2

    from companion.vision.recognizer import PipRecognizer

    images = sorted((directory / "images").glob("*.jpg"))
    if not images:
        raise EvalDataError(f"no images/*.jpg in {directory}; expected images/ and labels/")
    cv2.setNumThreads(1)
    recognizer = PipRecognizer()
    n_labels = correct = extra = exact = 0
    times: list[float] = []
    rows = []
    for image_path in images:
        label_path = directory / "labels" / (image_path.stem + ".txt")
        if not label_path.exists():
            raise EvalDataError(f"{image_path.name} has no label file {label_path}")
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            raise EvalDataError(f"cannot decode {image_path}")
        labels = read_labels(label_path, frame.shape[1], frame.shape[0])
        t0 = time.perf_counter()
        reading = recognizer.read(frame)
        ms = (time.perf_counter() - t0) * 1000.0
        times.append(ms)
        pairs = match(labels, [d.region.center for d in reading.dice])
        good = sum(1 for i, j in pairs if reading.dice[j].value == labels[i].value)
        n_labels += len(labels)
        correct += good
        extra += len(reading.dice) - len(pairs)
        expected = sorted(d.value for d in labels)
        read = sorted(v for v in reading.values if isinstance(v, int))
        ok = Counter(expected) == Counter(reading.values)
        exact += ok
        rows.append(
            {
                "image": image_path.name,
                "expected": " ".join(map(str, expected)),
                "read": " ".join(map(str, read)),
                "unread": sum(1 for v in reading.values if v is None),
                "correct_dice": good,
                "labelled_dice": len(labels),
                "extra_dice": len(reading.dice) - len(pairs),
                "exact": int(ok),
                "ms": round(ms, 2),
            }
        )
    if csv_out is not None:
        csv_out.parent.mkdir(parents=True, exist_ok=True)
        with csv_out.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return {
        "images": len(images),
        "labelled_dice": n_labels,
        "die_accuracy": round(correct / n_labels, 4) if n_labels else 0.0,
        "extra_dice": extra,
        "image_exact": round(exact / len(images), 4),
        "ms_per_image_median": round(statistics.median(times), 2),
    }


def _eval_pips(args: argparse.Namespace) -> int:
    figures = evaluate(Path(args.dir), Path(args.csv) if args.csv else None)
    for key, value in figures.items():
        print(f"{key}: {value}")
    if args.json:
        print(json.dumps(figures))
    return 0


def _calibrate_tray(args: argparse.Namespace) -> int:
    import cv2

    from companion.vision.tray import calibrate_tray, parse_corners

    frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if frame is None:
        raise VisionError(f"cannot read an image from {args.image}; give a JPEG or PNG file")
    corners = parse_corners(args.corners) if args.corners else None
    profile = calibrate_tray(frame, corners)
    profile.save(args.out)
    size = "no die seen" if profile.die_size is None else f"die edge {profile.die_size:.1f} px"
    print(f"tray profile written to {args.out} ({size})", file=sys.stdout)
    return 0


def register(
    calibrate_sub: argparse._SubParsersAction, eval_sub: argparse._SubParsersAction
) -> None:
    """Hang the pip-dice subcommands on ``calibrate`` and ``eval``."""
    tray = calibrate_sub.add_parser("tray", help="find the tray, die size and floor colour")
    tray.add_argument("image", metavar="IMAGE", help="a frame of the (empty) tray")
    tray.add_argument("--corners", help="tray corners x,y,x,y,x,y,x,y instead of finding them")
    tray.add_argument("--out", default="calibration/tray.json", help="profile file to write")
    tray.set_defaults(func=_calibrate_tray)

    pips = eval_sub.add_parser("pips", help="measure the pip reader on a labelled folder")
    pips.add_argument("dir", metavar="DIR", help="folder with images/*.jpg and labels/*.txt")
    pips.add_argument("--json", action="store_true", help="end with one JSON line of figures")
    pips.add_argument("--csv", metavar="OUT", help="write one row per image to this CSV")
    pips.set_defaults(func=_eval_pips)
