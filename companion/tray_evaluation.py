"""How well ``companion calibrate tray`` finds the tray and the die on whole camera frames.

Measured on folders written by ``companion scene``: each holds frames of one camera
set-up (``images/``), their labelled dice (``labels/``, YOLO) and the tray's true corners
(``corners.txt``). For every frame the tray is looked for (``find_tray``) and compared
corner by corner with the truth; where it is found, the die edge is measured in it by the
spotter (``finder``) and by the classical finder, each against the labelled dice: the
spotter's edge is ``PHOTO_EDGE`` of a labelled box's longer side on the tray photos, and
the box around a turned die is wider by cos + sin of the turn.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from companion.evaluation import EvalDataError, read_image, read_labels

# A die size within this share of the labelled one counts as matching.
DIE_TOLERANCE = 0.15


def scene_folders(dirs: list[Path]) -> list[Path]:
    """The set-up folders among ``dirs``: each one itself, or its sub-folders that have a
    ``corners.txt``; raises ``EvalDataError`` for a folder with neither."""
    out = []
    for d in dirs:
        if (d / "corners.txt").is_file():
            out.append(d)
            continue
        subs = sorted(p.parent for p in d.glob("*/corners.txt"))
        if not subs:
            raise EvalDataError(
                f"{d} has no corners.txt (nor sub-folders with one); write it with"
                " `companion scene DIR --photos PHOTOS`"
            )
        out.extend(subs)
    return out


def read_corners(path: Path) -> np.ndarray:
    """The four true corners (4, 2) from a ``corners.txt``."""
    try:
        numbers = [float(v) for v in path.read_text(encoding="utf-8").strip().split(",")]
    except (OSError, ValueError) as exc:
        raise EvalDataError(f"{path}: not eight comma-separated numbers ({exc})") from None
    if len(numbers) != 8:
        raise EvalDataError(f"{path}: expected 8 numbers, got {len(numbers)}")
    return np.array(numbers, np.float64).reshape(4, 2)


def _labelled_die(labels: list, corners: np.ndarray) -> float | None:
    """The die edge as the spotter reports it, from the labelled boxes of one frame."""
    from companion.vision.spot import PHOTO_EDGE

    if not labels:
        return None
    dx, dy = corners[1] - corners[0]
    turn = math.atan2(abs(dy), abs(dx))
    widen = math.cos(turn) + math.sin(turn)
    return PHOTO_EDGE * float(np.median([max(d.w, d.h) for d in labels])) / widen


def evaluate_folder(folder: Path, limit: int = 0, finder: str = "auto") -> dict:
    """The figures of one set-up folder (see the module's docstring)."""
    from companion.vision.calibrate import classic_die_size, measure_die
    from companion.vision.spot import PIP_MODEL, PipSpotter, choose_spotter
    from companion.vision.trayfind import TrayNotFound, find_tray

    truth = read_corners(folder / "corners.txt")
    side = float(np.mean(np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1)))
    images = sorted((folder / "images").glob("*.jpg"))
    if not images:
        raise EvalDataError(f"no images/*.jpg in {folder}")
    if limit:
        images = images[:limit]
    spotter = choose_spotter(finder, None, PipSpotter, PIP_MODEL)
    found = 0
    worst: list[float] = []
    mean: list[float] = []
    times: list[float] = []
    ratios: dict[str, list[float]] = {"spotter": [], "classic": []}
    for path in images:
        frame = read_image(path)
        h, w = frame.shape[:2]
        labels = read_labels(folder / "labels" / f"{path.stem}.txt", w, h)
        t0 = time.perf_counter()
        try:
            corners = find_tray(frame)
        except TrayNotFound:
            continue
        finally:
            times.append((time.perf_counter() - t0) * 1000.0)
        found += 1
        errors = np.linalg.norm(np.array(corners) - truth, axis=1)
        worst.append(float(errors.max()))
        mean.append(float(errors.mean()))
        reference = _labelled_die(labels, truth)
        if reference is None:
            continue
        if spotter is not None:
            size, _ = measure_die(frame, corners, spotter)
            if size is not None:
                ratios["spotter"].append(size / reference)
        size = classic_die_size(frame, corners)
        if size is not None:
            ratios["classic"].append(size / reference)

    def die_figures(values: list[float]) -> dict:
        if not values:
            return {"measured": 0, "median_ratio": None, "within": None}
        arr = np.array(values)
        return {
            "measured": len(values),
            "median_ratio": round(float(np.median(arr)), 3),
            "within": round(float(np.mean(np.abs(arr - 1) <= DIE_TOLERANCE)), 3),
        }

    return {
        "setup": folder.name,
        "frames": len(images),
        "found": found,
        "found_rate": round(found / len(images), 3),
        "tray_side_px": round(side, 1),
        "corner_mean_px": None if not mean else round(float(np.mean(mean)), 1),
        "corner_worst_median_px": None if not worst else round(float(np.median(worst)), 1),
        "corner_worst_p90_px": None if not worst else round(float(np.percentile(worst, 90)), 1),
        "corner_mean_pct": None if not mean else round(100 * float(np.mean(mean)) / side, 2),
        "corner_worst_median_pct": (
            None if not worst else round(100 * float(np.median(worst)) / side, 2)
        ),
        "within_2pct": None if not worst else round(
            float(np.mean(np.array(worst) <= 0.02 * side)), 3
        ),
        "die_spotter": die_figures(ratios["spotter"]),
        "die_classic": die_figures(ratios["classic"]),
        "find_ms_median": round(float(np.median(times)), 1),
    }


def evaluate(dirs: list[Path], limit: int = 0, finder: str = "auto") -> dict:
    """Figures per set-up folder and over all of them."""
    rows = [evaluate_folder(f, limit, finder) for f in scene_folders(dirs)]
    frames = sum(r["frames"] for r in rows)
    found = sum(r["found"] for r in rows)
    return {"setups": rows, "frames": frames, "found": found,
            "found_rate": round(found / frames, 3) if frames else None}


def print_figures(figures: dict, as_json: bool = False) -> None:
    """One line per set-up, then the total; with ``as_json`` one JSON line at the end."""
    for r in figures["setups"]:
        sp, cl = r["die_spotter"], r["die_classic"]
        print(
            f"{r['setup']:<14} found {r['found']}/{r['frames']}  corners: mean"
            f" {r['corner_mean_px']} px ({r['corner_mean_pct']} % of side), worst median"
            f" {r['corner_worst_median_px']} px ({r['corner_worst_median_pct']} %), p90"
            f" {r['corner_worst_p90_px']} px, within 2 %: {r['within_2pct']}  die/label:"
            f" spotter {sp['median_ratio']} ({sp['within']} within 15 %), classic"
            f" {cl['median_ratio']} ({cl['within']})  {r['find_ms_median']} ms"
        )
    print(f"found {figures['found']} of {figures['frames']} frames ({figures['found_rate']})")
    if as_json:
        print(json.dumps(figures))
