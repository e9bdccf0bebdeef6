"""Measure a recogniser on a labelled folder: the figures ``companion eval`` prints.

A folder holds ``images/*.jpg`` and ``labels/<stem>.txt`` with one line per die,
``class x_center y_center width height`` in 0..1 of the image (YOLO format); the
class indexes a list of values (pip dice: value = class + 1; Rock the Bock: the
face names). A labelled die counts as right only when a read die lies within half
its box and shows the same value, so a missed or unread die counts wrong; extra dice
are read dice that match no label; an image is exact when the multiset of read
values equals the labels'.

Trust is measured apart from accuracy: a labelled die is *flagged* when the die read at
its place is marked uncertain or left unread (the scorekeeper is asked to look), and
*sure wrong* when it was read with another value and not flagged — the error nobody
notices. Both are counted over the labelled dice.
"""

from __future__ import annotations

import csv
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from companion.vision.types import Reading

if TYPE_CHECKING:
    import numpy as np

PIP_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
# How the labelled photos (sorted by name) are shared out, by index: the nets that ship
# were trained on ``train`` (even index); thresholds and other choices are tuned on
# ``validation`` (index 1 mod 4); nothing is fitted or tuned on ``holdout`` (3 mod 4).
PHOTO_SPLITS = {"train": (0, 2), "validation": (1, 4), "holdout": (3, 4), "all": (0, 1)}
# Labels of the shared tray-a photos that say another value than the die shows, looked
# at by eye: photo (stem) -> {label line (from 0): the value it shows}.
# IMG_20191208_111246's first line is a dark blue die with red pips labelled 2; it shows
# three in a diagonal, and every net reads it as a sure three. ``companion eval pips``
# scores the labels as they are (its figures count this die wrong); what builds a truth
# of its own from the labels (``tools/tune_flag.py``, the sequences of an evening,
# ``synth.stage.tray_a_stage``) takes the value the die shows.
LABEL_ERRORS: dict[str, dict[int, int]] = {"IMG_20191208_111246": {0: 3}}
_V = TypeVar("_V")  # a label's value: a pip count, or a face's name


def shown_value(photo: str, line: int, value: _V) -> _V | int:
    """The value the die of label ``line`` (from 0) of ``photo`` (a file's stem) shows:
    ``value``, the label's, unless ``LABEL_ERRORS`` knows better."""
    return LABEL_ERRORS.get(photo, {}).get(line, value)


class EvalDataError(ValueError):
    """An evaluation folder that is missing images or has malformed labels."""


class Recognizer(Protocol):
    """Reads one frame."""

    def read(self, frame: np.ndarray) -> Reading:
        """The dice in a BGR frame."""


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: its value and its box in pixels."""

    value: int | str
    x: float
    y: float
    w: float
    h: float


def photo_split(images: Sequence[Path], split: str) -> list[Path]:
    """The images of ``split`` (one of ``PHOTO_SPLITS``) among ``images``, by sorted name."""
    if split not in PHOTO_SPLITS:
        raise EvalDataError(f"unknown split {split!r}; use one of {', '.join(PHOTO_SPLITS)}")
    start, step = PHOTO_SPLITS[split]
    return sorted(images)[start::step]


def read_labels(
    path: Path, width: int, height: int, values: Sequence[int | str] = PIP_VALUES
) -> list[LabelledDie]:
    """Parse a label file; ``values[class]`` is the die's value."""
    dice = []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise EvalDataError(f"{path} is not UTF-8 text; a label file is plain text") from None
    except OSError as exc:
        raise EvalDataError(f"cannot read the label file {path}: {exc.strerror}") from None
    for number, line in enumerate(text.splitlines(), start=1):
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
        if not 0 <= cls < len(values) or len(parts) != 5:
            meaning = ", ".join(f"{i}={v}" for i, v in enumerate(values))
            raise EvalDataError(
                f"{path}:{number}: class must be 0..{len(values) - 1} ({meaning}): {line!r}"
            )
        if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in (x, y, w, h)):
            raise EvalDataError(
                f"{path}:{number}: box values must be numbers from 0 to 1: {line!r}"
            )
        dice.append(LabelledDie(values[cls], x * width, y * height, w * width, h * height))
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


def read_image(path: Path) -> np.ndarray:
    """Decode a labelled image; a file that is not a whole JPEG is an ``EvalDataError``.

    OpenCV decodes a cut-off JPEG with a grey tail and only a warning on stderr, which
    would score a picture nobody took; a JPEG must end with its end-of-image marker.
    """
    import cv2
    import numpy as np

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EvalDataError(f"{path}: cannot be read ({exc.strerror})") from None
    if not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        raise EvalDataError(f"{path} is not a whole JPEG (cut off?); replace or remove it")
    frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise EvalDataError(f"cannot decode {path}")
    return frame


def evaluate(
    directory: Path,
    recognizer: Recognizer,
    values: Sequence[int | str] = PIP_VALUES,
    csv_out: Path | None = None,
    split: str = "all",
    rows_out: list[dict] | None = None,
) -> dict:
    """Run ``recognizer`` over ``directory`` (the images of ``split``, see ``PHOTO_SPLITS``);
    return the figures (one thread, wall clock). Each image's row (see ``write_rows``) goes
    to ``csv_out`` and is appended to ``rows_out`` when given."""
    import cv2

    images = photo_split(list((directory / "images").glob("*.jpg")), split)
    if not images:
        raise EvalDataError(f"no images/*.jpg in {directory}; expected images/ and labels/")
    cv2.setNumThreads(1)
    n_labels = correct = extra = exact = sure_wrong = flagged = 0
    times: list[float] = []
    stages: dict[str, list[float]] = {}
    rows = []
    for image_path in images:
        label_path = directory / "labels" / (image_path.stem + ".txt")
        if not label_path.exists():
            raise EvalDataError(f"{image_path.name} has no label file {label_path}")
        frame = read_image(image_path)
        labels = read_labels(label_path, frame.shape[1], frame.shape[0], values)
        t0 = time.perf_counter()
        reading = recognizer.read(frame)
        ms = (time.perf_counter() - t0) * 1000.0
        times.append(ms)
        for stage, value in reading.timings_ms.items():
            stages.setdefault(stage, []).append(value)
        pairs = match(labels, [d.region.center for d in reading.dice])
        good = sum(1 for i, j in pairs if reading.dice[j].value == labels[i].value)
        unsure = [reading.dice[j].uncertain or reading.dice[j].value is None for _, j in pairs]
        wrong_sure = sum(
            1
            for (i, j), u in zip(pairs, unsure, strict=True)
            if not u and reading.dice[j].value != labels[i].value
        )
        sure_wrong += wrong_sure
        flagged += sum(unsure)
        n_labels += len(labels)
        correct += good
        extra += len(reading.dice) - len(pairs)
        ok = Counter(d.value for d in labels) == Counter(reading.values)
        exact += ok
        rows.append(
            {
                "image": image_path.name,
                "expected": " ".join(sorted(str(d.value) for d in labels)),
                "read": " ".join(sorted(str(v) for v in reading.values if v is not None)),
                "unread": sum(1 for v in reading.values if v is None),
                "correct_dice": good,
                "labelled_dice": len(labels),
                "extra_dice": len(reading.dice) - len(pairs),
                "flagged": sum(unsure),
                "sure_wrong": wrong_sure,
                "exact": int(ok),
                "ms": round(ms, 2),
            }
        )
    if csv_out is not None:
        write_rows(csv_out, rows)
    if rows_out is not None:
        rows_out.extend(rows)
    return {
        "images": len(images),
        "labelled_dice": n_labels,
        "right_dice": correct,
        "exact_images": exact,
        "die_accuracy": round(correct / n_labels, 4) if n_labels else 0.0,
        "extra_dice": extra,
        "image_exact": round(exact / len(images), 4),
        "sure_wrong": sure_wrong,
        "sure_wrong_rate": round(sure_wrong / n_labels, 4) if n_labels else 0.0,
        "flagged": flagged,
        "flagged_rate": round(flagged / n_labels, 4) if n_labels else 0.0,
        "ms_per_image_median": round(statistics.median(times), 2),
        "stage_ms_median": {k: round(statistics.median(v), 2) for k, v in stages.items()},
    }


def write_rows(csv_out: Path, rows: Sequence[dict]) -> None:
    """Write the per-image rows of ``evaluate`` (one per image) as a CSV file."""
    if not rows:
        raise EvalDataError(f"no images were read: nothing to write to {csv_out}")
    csv_out.parent.mkdir(parents=True, exist_ok=True)
    with csv_out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def evaluate_sets(
    directory: Path,
    recognizer_for: Callable[[Path | None], Recognizer],
    values: Sequence[int | str],
    csv_out: Path | None = None,
    split: str = "all",
    profile: Path | None = None,
    own_profiles: bool = True,
) -> dict | None:
    """The figures of a ``directory`` of camera set-up folders (each with ``images/``, as
    ``companion scene`` writes them), taken together (``combine_figures``); None when it
    holds none. Each folder is read by a recogniser of its own,
    ``recognizer_for(PROFILE)``: ``profile`` when given, else the folder's own
    ``tray.json`` (None without one, or when not ``own_profiles``: the recogniser finds
    each tray itself). The CSV has every folder's rows, its name in a first column
    ``set``."""
    sets = sorted(d for d in directory.glob("*/") if (d / "images").is_dir())
    if (directory / "images").is_dir() or not sets:
        return None
    named, rows = {}, []
    for folder in sets:
        own = folder / "tray.json"
        chosen = profile or (own if own.is_file() and own_profiles else None)
        found: list[dict] = []
        named[folder.name] = evaluate(
            folder, recognizer_for(chosen), values, None, split, found
        )
        rows += [{"set": folder.name, **row} for row in found]
    if csv_out is not None:
        write_rows(csv_out, rows)
    return combine_figures(named)


def combine_figures(named: dict[str, dict]) -> dict:
    """The figures of several labelled folders (camera set-ups) taken together; each
    folder's own figures stay under ``"sets"``."""
    total = {k: sum(f[k] for f in named.values()) for k in (
        "images", "labelled_dice", "right_dice", "exact_images", "extra_dice", "sure_wrong",
        "flagged")}
    n, images = total["labelled_dice"], total["images"]
    stages: dict[str, list[float]] = {}
    for f in named.values():
        for k, v in f["stage_ms_median"].items():
            stages.setdefault(k, []).append(v)
    return {
        **total,
        "die_accuracy": round(total["right_dice"] / n, 4) if n else 0.0,
        "image_exact": round(total["exact_images"] / images, 4) if images else 0.0,
        "sure_wrong_rate": round(total["sure_wrong"] / n, 4) if n else 0.0,
        "flagged_rate": round(total["flagged"] / n, 4) if n else 0.0,
        "ms_per_image_median": round(
            statistics.median(f["ms_per_image_median"] for f in named.values()), 2
        ),
        # The median of the folders' medians: each set-up counts once.
        "stage_ms_median": {k: round(statistics.median(v), 2) for k, v in stages.items()},
        "sets": named,
    }


def print_figures(figures: dict, as_json: bool) -> None:
    """Print the figures one per line; with ``as_json`` end with one JSON line of them."""
    import json

    for name, f in figures.get("sets", {}).items():
        print(
            f"{name}: die_accuracy {f['die_accuracy']} image_exact {f['image_exact']}"
            f" extra_dice {f['extra_dice']} sure_wrong {f['sure_wrong']}"
            f" flagged {f['flagged']} ms {f['ms_per_image_median']}"
        )
    for key in ("images", "labelled_dice", "die_accuracy", "image_exact", "extra_dice",
                "sure_wrong", "sure_wrong_rate", "flagged", "flagged_rate",
                "ms_per_image_median"):
        print(f"{key}: {figures[key]}")
    stages = ", ".join(f"{k} {v}" for k, v in figures["stage_ms_median"].items())
    print(f"stages (median ms): {stages}")
    if as_json:
        print(json.dumps(figures))
