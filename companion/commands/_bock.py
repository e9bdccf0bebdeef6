"""Rock the Bock vision commands: ``render``, ``calibrate faces`` and ``eval bock``.

``eval bock`` uses the same definitions as ``eval pips`` (and its position matching):
a labelled die counts as right only when a read die lies within half its box and shows
the same face, so a missed or unread die counts wrong; extra dice are read dice that
match no label; an image is exact when the multiset of read faces equals the labels'.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from companion.commands._pips import EvalDataError, LabelledDie, match


def read_bock_labels(path: Path, width: int, height: int) -> list[LabelledDie]:
    """Parse a label file ``class x_c y_c w h`` (0..1); ``class`` indexes ``FACES``.

    The face name is kept in ``LabelledDie.value``.
    """
    from companion.vision.render import FACES

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
        if not 0 <= cls < len(FACES) or len(parts) != 5:
            raise EvalDataError(
                f"{path}:{number}: class must be 0..{len(FACES) - 1} ({', '.join(FACES)}): {line!r}"
            )
        dice.append(LabelledDie(FACES[cls], x * width, y * height, w * width, h * height))
    return dice


def evaluate_bock(
    directory: Path, profile: Path | None = None, csv_out: Path | None = None
) -> dict:
    """Run the Rock the Bock recogniser over a labelled folder; return the figures."""
    import cv2

    from companion.vision.enrol import load_recognizer

    images = sorted((directory / "images").glob("*.jpg"))
    if not images:
        raise EvalDataError(f"no images/*.jpg in {directory}; expected images/ and labels/")
    cv2.setNumThreads(1)
    recognizer = load_recognizer(profile)
    n_labels = correct = extra = exact = 0
    times: list[float] = []
    stages: dict[str, list[float]] = {}
    rows = []
    for image_path in images:
        label_path = directory / "labels" / (image_path.stem + ".txt")
        if not label_path.exists():
            raise EvalDataError(f"{image_path.name} has no label file {label_path}")
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            raise EvalDataError(f"cannot decode {image_path}")
        labels = read_bock_labels(label_path, frame.shape[1], frame.shape[0])
        t0 = time.perf_counter()
        reading = recognizer.read(frame)
        ms = (time.perf_counter() - t0) * 1000.0
        times.append(ms)
        for stage, value in reading.timings_ms.items():
            stages.setdefault(stage, []).append(value)
        pairs = match(labels, [d.region.center for d in reading.dice])
        good = sum(1 for i, j in pairs if reading.dice[j].value == labels[i].value)
        n_labels += len(labels)
        correct += good
        extra += len(reading.dice) - len(pairs)
        expected = sorted(str(d.value) for d in labels)
        read = sorted(str(v) for v in reading.values if v is not None)
        ok = Counter(expected) == Counter(reading.values)
        exact += ok
        rows.append(
            {
                "image": image_path.name,
                "expected": " ".join(expected),
                "read": " ".join(read),
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
        "stage_ms_median": {k: round(statistics.median(v), 2) for k, v in stages.items()},
    }


def _eval_bock(args: argparse.Namespace) -> int:
    figures = evaluate_bock(
        Path(args.dir),
        Path(args.profile) if args.profile else None,
        Path(args.csv) if args.csv else None,
    )
    for key in ("images", "labelled_dice", "die_accuracy", "image_exact", "extra_dice"):
        print(f"{key}: {figures[key]}")
    print(f"ms_per_image_median: {figures['ms_per_image_median']}")
    stages = ", ".join(f"{k} {v}" for k, v in figures["stage_ms_median"].items())
    print(f"stages (median ms): {stages}")
    if args.json:
        print(json.dumps(figures))
    return 0


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x960, not {text!r}") from None
    return w, h


def _parse_face(text: str) -> int | str:
    """A pip value 1..6 or a Rock the Bock face name (checked by the renderer)."""
    return int(text) if text.isdigit() else text


def _render(args: argparse.Namespace) -> int:
    from companion.vision.render import DEFAULT_PALETTE, write_dataset

    palette = DEFAULT_PALETTE.shifted() if args.palette == "shifted" else DEFAULT_PALETTE
    paths = write_dataset(
        args.dir,
        args.count,
        args.seed,
        kind=args.kind,
        n_dice=args.dice,
        hard=args.hard,
        size=args.size,
        palette=palette,
        face=args.face,
    )
    print(f"wrote {len(paths)} images with labels to {args.dir}")
    return 0


def _calibrate_faces(args: argparse.Namespace) -> int:
    import cv2

    from companion.vision.enrol import enrol_face, load_models, load_recognizer, save_models

    profile = Path(args.profile)
    current = load_models(profile) if profile.exists() else {}
    if args.show:
        from companion.vision.render import FACES

        for face in FACES:
            model = current.get(face)
            status = f"enrolled from {model.count} dice" if model else "built-in model"
            print(f"{face:12s} {status}")
        return 0
    if not args.face or not args.images:
        raise EvalDataError("give --face NAME and at least one IMAGE (or --show)")
    frames = []
    for name in args.images:
        frame = cv2.imread(name, cv2.IMREAD_COLOR)
        if frame is None:
            raise EvalDataError(f"cannot read image {name}; give JPEG or PNG frames")
        frames.append(frame)
    recognizer = load_recognizer(profile) if profile.exists() else None
    result = enrol_face(args.face, frames, recognizer, current)
    current[args.face] = result.model
    save_models(profile, current)
    print(
        f"{args.face}: enrolled from {result.dice} dice in {result.frames} frame(s)"
        f" ({result.dropped} dropped as unlike the rest); saved to {profile}"
    )
    print(f"closest other face: {result.nearest} (separation {result.separation})")
    if result.separation < 3.0:
        print(
            f"warning: {args.face} looks much like {result.nearest}; check the dice showed"
            f" {args.face} and the light was on",
            file=sys.stderr,
        )
    return 0


def register(
    sub: argparse._SubParsersAction,
    calibrate_sub: argparse._SubParsersAction,
    eval_sub: argparse._SubParsersAction,
) -> None:
    """Add ``render`` and hang the Rock the Bock subcommands on ``calibrate`` and ``eval``."""
    render = sub.add_parser("render", help="write a folder of rendered, labelled dice frames")
    render.add_argument("dir", metavar="DIR", help="output folder (images/, labels/)")
    render.add_argument("--count", type=int, default=10, help="number of frames (default 10)")
    render.add_argument("--seed", type=int, default=0, help="seed of the whole folder")
    render.add_argument("--hard", action="store_true", help="colour cast, dim, glare, blur")
    render.add_argument("--kind", choices=("bock", "pips"), default="bock")
    render.add_argument("--dice", type=int, default=10, help="dice per frame, 1..10")
    render.add_argument("--size", type=_parse_size, default=(1280, 960), help="WxH")
    render.add_argument(
        "--palette",
        choices=("default", "shifted"),
        default="default",
        help="Rock the Bock dice colours: the built-in set or a differently coloured one",
    )
    render.add_argument(
        "--face", type=_parse_face, help="every die shows this face (frames for enrolment)"
    )
    render.set_defaults(func=_render)

    faces = calibrate_sub.add_parser("faces", help="enrol one Rock the Bock face from frames")
    faces.add_argument("images", nargs="*", metavar="IMAGE", help="frames of dice showing it")
    faces.add_argument("--face", help="the face the dice show: wolf, bock, goat_red, ...")
    faces.add_argument("--profile", default="calibration/tray.json", help="calibration file")
    faces.add_argument("--show", action="store_true", help="list which faces are enrolled")
    faces.set_defaults(func=_calibrate_faces)

    bock = eval_sub.add_parser("bock", help="measure the Rock the Bock recogniser")
    bock.add_argument("dir", metavar="DIR", help="folder with images/*.jpg and labels/*.txt")
    bock.add_argument("--profile", help="calibration file with tray and enrolled faces")
    bock.add_argument("--json", action="store_true", help="end with one JSON line of figures")
    bock.add_argument("--csv", metavar="OUT", help="write one row per image to this CSV")
    bock.set_defaults(func=_eval_bock)
