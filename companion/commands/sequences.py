"""``companion record DIR --seconds N`` and ``companion eval throws DIR``: camera sequences.

``eval throws`` plays recorded sequences (format: ``companion/hardware/replay.py``) through
the runtime's own path -- settle detection with the occlusion check, the pip recogniser
on several frames, the turn tracker -- with timestamps frame/fps, and compares the
throws it reports with ``expected.json``: a list of ``{"frame": i, "values": [...]}``,
a new throw whose dice lie still from frame ``i`` on. A reported throw is *right* when
an expected throw started at most 1 s before it, was not reported yet, and the values
match; with other values it is *wrong_values*; with no such expected throw it is a
*false_throws*. Expected throws left over are *missed*. A sequence folder may hold its
camera's calibration as ``profile.json`` (``python -m companion.synth.sequences --camera``
writes one); it is used unless ``--profile`` gives one for all. Besides those figures it prints
how many wrong readings had a die marked uncertain (``wrong_values_flagged``): for
those the companion proposes nothing and asks to check the dice by hand.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.hardware.camera import (
    FRAMES_DIR,
    RecordedSequence,
    SequenceError,
    frame_name,
    is_sequence,
    load_sequence,
    read_sequence_json,
    write_sequence_info,
)
from companion.hardware.replay import SEQUENCE_PROFILE

MATCH_SECONDS = 1.0
KEYS = ("expected", "right", "wrong_values", "missed", "false_throws", "latency_median_s")
# A reported throw: (frame, sorted values) or (frame, sorted values, any die uncertain).
Reported = tuple[int, tuple[int, ...]] | tuple[int, tuple[int, ...], bool]


@dataclass(frozen=True)
class ExpectedThrow:
    """A throw the sequence holds: dice still from ``frame`` on, showing ``values``."""

    frame: int
    values: tuple[int, ...]


def load_expected(sequence: RecordedSequence) -> list[ExpectedThrow]:
    """Read and check ``expected.json``; every problem is one :class:`SequenceError` line."""
    path = sequence.folder / "expected.json"
    if not path.is_file():
        raise SequenceError(f"{sequence.folder}: expected.json is missing")
    data = read_sequence_json(path)
    if not isinstance(data, list):
        raise SequenceError(f'{path} must be a list like [{{"frame": 12, "values": [1, 4, 6]}}]')
    out = []
    for k, item in enumerate(data):
        where = f"{path} entry {k}"
        if not isinstance(item, dict) or set(item) != {"frame", "values"}:
            raise SequenceError(f'{where}: must be an object with "frame" and "values" only')
        frame, values = item["frame"], item["values"]
        if not isinstance(frame, int) or isinstance(frame, bool) or not (
            0 <= frame < len(sequence.frames)
        ):
            raise SequenceError(
                f"{where}: frame must be a whole number from 0 to {len(sequence.frames) - 1},"
                f" not {frame!r}"
            )
        if not isinstance(values, list) or not values or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values
        ):
            raise SequenceError(f"{where}: values must be a list of pip values 1-6, not {values!r}")
        out.append(ExpectedThrow(frame, tuple(sorted(values))))
    return sorted(out, key=lambda e: e.frame)


def find_sequences(directory: Path) -> list[RecordedSequence]:
    """``directory`` itself when it is a sequence, else its sequence subfolders (by name)."""
    if not directory.is_dir():
        raise SequenceError(f"{directory} is not a folder")
    if is_sequence(directory):
        return [load_sequence(directory)]
    folders = sorted(p for p in directory.iterdir() if p.is_dir() and is_sequence(p))
    if not folders:
        raise SequenceError(
            f"{directory} holds no sequence (a folder with sequence.json, frames/ and"
            " expected.json), nor subfolders that do"
        )
    return [load_sequence(p) for p in folders]


def reported_throws(
    sequence: RecordedSequence, recognizer: Any, profile: Any, settle_seconds: float
) -> list[Reported]:
    """Play ``sequence`` through the runtime's path; the throws it reports (frame, values,
    whether a die was marked uncertain)."""
    import cv2

    from companion.turns import TurnTracker
    from companion.vision.occlusion import OcclusionDetector
    from companion.vision.settle import SettleDetector
    from companion.vision.watch import THROW, ThrowWatcher

    watcher = ThrowWatcher(
        recognizer.read, SettleDetector(settle_seconds, occlusion=OcclusionDetector(profile)),
        follow=recognizer.follow_tray, find=recognizer.found_tray,
        forget=recognizer.forget_tray, seen=recognizer.seen_tray,
    )
    tracker = TurnTracker()
    out: list[Reported] = []
    for index, path in enumerate(sequence.frames):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SequenceError(f"{path}: not a readable image")
        event = watcher.update(image, index / sequence.fps)
        if event is not None and event.kind == THROW and event.reading is not None:
            tracker.observe(event.reading, "eval")
            values = tuple(sorted(int(v) for v in event.reading.values if isinstance(v, int)))
            out.append((index, values, event.reading.uncertain))
    return out


def score(expected: list[ExpectedThrow], reported: list[Reported], fps: float) -> dict[str, Any]:
    """Match reported throws with expected ones (see the module's docstring)."""
    window = MATCH_SECONDS * fps
    used: set[int] = set()
    right = wrong = flagged = false = 0
    latencies: list[float] = []
    for item in reported:
        frame, values = item[0], item[1]
        unsure = len(item) > 2 and bool(item[2])
        candidates = [
            i for i, e in enumerate(expected)
            if i not in used and 0 <= frame - e.frame <= window
        ]
        if not candidates:
            false += 1
            continue
        same = [i for i in candidates if expected[i].values == values]
        pick = same[0] if same else candidates[-1]
        used.add(pick)
        latencies.append((frame - expected[pick].frame) / fps)
        if same:
            right += 1
        else:
            wrong += 1
            flagged += unsure
    return {
        "expected": len(expected),
        "right": right,
        "wrong_values": wrong,
        "missed": len(expected) - right - wrong,
        "false_throws": false,
        "wrong_values_flagged": flagged,
        "latency": latencies,
    }


def evaluate_throws(
    directory: Path, profile_path: Path | None = None, settle_seconds: float = 0.6
) -> dict[str, Any]:
    """The figures of ``companion eval throws`` over every sequence under ``directory``."""
    from companion.games.schocken_throws import DICE
    from companion.vision.recognizer import PipRecognizer
    from companion.vision.tray import TrayProfile

    given = None if profile_path is None else TrayProfile.load(profile_path)
    sequences = find_sequences(directory)
    # Check everything before running: the expected throws, each sequence's own profile.
    plans = [(s, load_expected(s), given or _own_profile(s)) for s in sequences]
    totals = dict.fromkeys((*KEYS[:-1], "wrong_values_flagged"), 0)
    latencies: list[float] = []
    per_sequence = []
    for sequence, expected, profile in plans:
        # Each sequence is an evening of its own, a camera set-up of its own: the
        # recogniser starts afresh (what it measured of one set-up's dice, the tray it
        # found, is not the next one's). The throws are Schocken throws: it knows the
        # game uses three dice.
        recognizer = PipRecognizer(profile, max_dice=DICE)
        figures = score(
            expected, reported_throws(sequence, recognizer, profile, settle_seconds), sequence.fps
        )
        latencies += figures.pop("latency")
        for key in totals:
            totals[key] += figures[key]
        per_sequence.append((sequence.folder.name, figures))
    result: dict[str, Any] = dict(totals)
    result["latency_median_s"] = (
        round(statistics.median(latencies), 3) if latencies else None
    )
    result["sequences"] = per_sequence
    return result


def _own_profile(sequence: RecordedSequence) -> Any:
    """The calibration kept in the sequence's folder (``profile.json``), or None."""
    from companion.vision.tray import TrayProfile

    path = sequence.folder / SEQUENCE_PROFILE
    return TrayProfile.load(path) if path.is_file() else None


def _eval_throws(args: argparse.Namespace) -> int:
    from companion.config import load_settings

    settings = load_settings(Path(args.config) if args.config else None)
    result = evaluate_throws(
        Path(args.dir), Path(args.profile) if args.profile else None, settings.settle_seconds
    )
    for name, figures in result.pop("sequences"):
        shown = " ".join(f"{k}={figures[k]}" for k in KEYS[:-1])
        print(f"{name}: {shown}")
    for key in KEYS:
        print(f"{key}: {result[key]}")
    print(
        f"wrong_values_flagged: {result['wrong_values_flagged']}"
        " (a die marked uncertain: nothing proposed, the dice are checked by hand)"
    )
    if args.json:
        print(json.dumps({key: result[key] for key in KEYS}))
    return 0


def _record(args: argparse.Namespace) -> int:
    import cv2

    from companion.config import load_settings
    from companion.hardware.camera import FrameError, open_source

    settings = load_settings(Path(args.config) if args.config else None)
    camera = args.camera or settings.camera
    if camera == "none":
        raise SequenceError("no camera to record from: set 'camera' or give --camera")
    if not 0 < args.seconds <= 3600:
        raise SequenceError(f"--seconds must be above 0 and at most 3600, not {args.seconds}")
    out = Path(args.dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SequenceError(f"{out} exists and is not an empty folder; pick a new one")
    source = open_source(camera)
    frames = out / FRAMES_DIR
    stamps: list[float] = []
    try:
        start = time.monotonic()
        while time.monotonic() - start < args.seconds:
            try:
                frame = source.read()
            except FrameError as exc:
                print(f"skipped a frame: {exc}", file=sys.stderr)
                continue
            if frame is None:
                break
            if not stamps:
                frames.mkdir(parents=True, exist_ok=True)
            path = frames / frame_name(len(stamps))
            if not cv2.imwrite(str(path), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 90]):
                raise SequenceError(f"could not write {path}")
            stamps.append(frame.timestamp)
    finally:
        source.close()
    if not stamps:
        raise SequenceError(f"camera {camera} delivered no frame; nothing recorded")
    span = stamps[-1] - stamps[0]
    fps = (len(stamps) - 1) / span if len(stamps) > 1 and span > 0 else 1.0
    write_sequence_info(out, fps, len(stamps))
    print(f"{out}: {len(stamps)} frames at {fps:.1f} fps")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``record``."""
    record = sub.add_parser("record", help="record a camera sequence for replay and eval")
    record.add_argument("dir", metavar="DIR", help="new folder for frames/ and sequence.json")
    record.add_argument("--seconds", type=float, required=True, help="how long to record")
    record.add_argument("--camera", help="picamera, usb:N or replay:DIR (default: settings)")
    record.set_defaults(func=_record)


def register_eval(eval_sub: argparse._SubParsersAction) -> None:
    """Hang ``throws`` on ``eval``."""
    throws = eval_sub.add_parser("throws", help="count throws on recorded camera sequences")
    throws.add_argument("dir", metavar="DIR", help="a sequence folder or a folder of them")
    throws.add_argument("--json", action="store_true", help="end with one JSON line of figures")
    throws.add_argument("--profile", metavar="P",
                        help="tray calibration profile (JSON) for every sequence (default: a"
                             " sequence's own profile.json, if it has one)")
    throws.set_defaults(func=_eval_throws)
