"""How well pip dice are read at each die size: the same photos, the tray nearer or further.

Each photo of a split of tray-a is composed into a 2028x1520 frame (``companion.synth.scene``,
the ``webcam-wood`` mounting centred) with the tray floor ``--trays`` pixels across, on wood
and on cloth; each folder is calibrated from its tray's corners as a person would
(``write_scenes``) and read through the recogniser that ships with the given pip net
(``companion.evaluation.evaluate``). One line per tray size and surround: the die edge the
calibration measured, the share of labelled dice read right, read wrong and not flagged,
and flagged. ``companion.vision.calibrate.SMALL_DIE`` was chosen from this on the
validation photos with ``models/pipnet-train.onnx`` (the net that ships, trained without
them): a validation figure. Only read the hold-out (``--split holdout``) with the net that
ships, once a choice is made.

    .venv/bin/python tools/die_size_sweep.py [--split validation]
        [--model models/pipnet-train.onnx] [--trays 330,390,450,520,600,700] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.evaluation import PHOTO_SPLITS, evaluate, photo_split  # noqa: E402
from companion.synth.scene import SETUPS, write_scenes  # noqa: E402
from companion.vision.pipnet import PipNet  # noqa: E402
from companion.vision.recognizer import PipRecognizer  # noqa: E402
from companion.vision.tray import TrayProfile  # noqa: E402

FRAME = (2028, 1520)


def sweep(photos: Path, split: str, net: PipNet, trays: list[int], seed: int) -> list[dict]:
    """The figures of every tray size and surround (see the module's docstring)."""
    images = photo_split(sorted((photos / "images").glob("*.jpg")), split)
    if not images:
        raise SystemExit(f"no images of split {split!r} in {photos / 'images'}")
    rows = []
    for tray in trays:
        for surround in ("wood", "cloth"):
            setup = replace(
                SETUPS["webcam-wood"], name=f"tray-{tray}-{surround}", frame_size=FRAME,
                tray_px=float(tray), surround=surround, centre=(0.5, 0.5),
            )
            with tempfile.TemporaryDirectory() as folder:
                out = Path(folder)
                write_scenes(images, photos / "labels", out, setup, seed + tray)
                profile = TrayProfile.load(out / "tray.json")
                figures = evaluate(out, PipRecognizer(profile, pipnet=net))
            rows.append({
                "tray_px": tray,
                "surround": surround,
                "die_px": profile.die_size,
                "labelled_dice": figures["labelled_dice"],
                "die_accuracy": figures["die_accuracy"],
                "sure_wrong_rate": figures["sure_wrong_rate"],
                "flagged_rate": figures["flagged_rate"],
                "extra_dice": figures["extra_dice"],
            })
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", default=str(ROOT.parent / "shared" / "dice-photos" / "tray-a"))
    parser.add_argument("--split", choices=tuple(PHOTO_SPLITS), default="validation")
    parser.add_argument("--model", default=str(ROOT / "models" / "pipnet-train.onnx"))
    parser.add_argument(
        "--trays", default="330,390,450,520,600,700",
        help="tray floor sides in frame pixels, comma-separated (the photos are 640)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    try:
        trays = [int(t) for t in args.trays.split(",")]
    except ValueError:
        parser.error(f"--trays takes whole numbers separated by commas, not {args.trays!r}")
    if any(not 100 <= t <= min(FRAME) for t in trays):
        parser.error(f"each tray side must lie between 100 and {min(FRAME)} pixels")
    rows = sweep(Path(args.photos), args.split, PipNet(args.model), trays, args.seed)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
