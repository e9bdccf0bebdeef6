"""Count the phantom dice the pip recogniser reads in frames of a table alone.

A camera knocked aside, or set up before the tray is put down, shows a wooden table, a
cloth or the bar with its coasters, glasses, phones and bottle caps, and no die. Every
die read in such a frame is a phantom: a sure one becomes a throw nobody made. This
script draws such frames (``companion.synth.scene.table_alone``, one seed per frame) and
reads each the two ways a pip recogniser without a profile reads (looking for a tray,
and reading the frame whole) -- or, with ``--kind bock``, as the Rock the Bock
recogniser without a profile reads it -- then prints the frames and the sure and flagged
phantoms per surround, and one JSON line with all of it.

    .venv/bin/python tools/table_alone.py [--seeds 31:131] [--model M.onnx] [--kind bock]

``tools/train_pipnet.py --empties`` (the pip net) and ``tools/train_spotter.py --empties``
(the Bock spotter) train on such frames drawn from seeded streams of their own
(``empty_samples``, ``empty_sample``); the seeds here draw other frames.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.synth.scene import SURROUNDS, table_alone  # noqa: E402
from companion.vision.faces import BockRecognizer  # noqa: E402
from companion.vision.pipnet import PipNet  # noqa: E402
from companion.vision.recognizer import PipRecognizer  # noqa: E402


def seeds(text: str) -> range:
    """``A:B`` as the seeds A to B-1."""
    try:
        first, last = (int(part) for part in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds are FIRST:LAST, not {text!r}") from None
    if last <= first:
        raise argparse.ArgumentTypeError(f"no seeds in {text!r}")
    return range(first, last)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seeds, default=range(31, 131))
    parser.add_argument("--model", help="pip net to read with (default: models/pipnet.onnx)")
    parser.add_argument("--kind", choices=("pips", "bock"), default="pips",
                        help="which recogniser reads the frames (default pips)")
    args = parser.parse_args(argv)
    if args.kind == "bock" and args.model:
        parser.error("--model is the pip net's; the Rock the Bock recogniser has no such net")
    net = PipNet(args.model) if args.model else None
    figures: dict[str, dict[str, int]] = {}
    for kind in SURROUNDS:
        tally = {"frames": 0, "frames_with_a_phantom": 0, "sure": 0, "flagged": 0}
        for seed in args.seeds:
            frame = table_alone(kind, np.random.default_rng(seed))
            seen = 0
            readers = (
                [BockRecognizer(look_for_tray=True)] if args.kind == "bock"
                else [PipRecognizer(pipnet=net, look_for_tray=look) for look in (True, False)]
            )
            for reader in readers:
                reading = reader.read(frame)
                flagged = sum(d.uncertain for d in reading.dice)
                tally["sure"] += len(reading.dice) - flagged
                tally["flagged"] += flagged
                seen += len(reading.dice)
            tally["frames"] += 1
            tally["frames_with_a_phantom"] += seen > 0
        figures[kind] = tally
        print(f"{kind}: {tally['frames']} frames, {tally['frames_with_a_phantom']} with a"
              f" phantom; {tally['sure']} sure and {tally['flagged']} flagged phantoms"
              + (" (both ways of reading)" if args.kind == "pips" else ""), flush=True)
    print(json.dumps({"seeds": f"{args.seeds.start}:{args.seeds.stop}", "kind": args.kind,
                      "model": args.model or ("models/pipnet.onnx" if args.kind == "pips"
                                              else "models/bockspot.onnx"), **figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
