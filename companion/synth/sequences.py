"""Camera sequences of an evening at the tray, with the truth: Schocken turns with
hands, cups and coasters in between, written for ``companion eval throws``.

:func:`evening` scripts Schocken rounds for a :class:`~companion.synth.writer.Writer`
(which plays the events: throws, hidden throws, occluders) on a stage
(:mod:`companion.synth.stage`); :func:`fixture_set` writes the small set kept under
``fixtures/sequences``; ``python -m companion.synth.sequences OUT`` writes evenings from
the tray-a photos or rendered trays.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from companion.hardware.replay import SEQUENCE_PROFILE
from companion.synth.scene import SETUPS, Setup, on_a_stand
from companion.synth.stage import Stage, render_stage, tray_a_stage
from companion.synth.writer import OCCLUDERS, STARTERS, Writer, occluder


def evening(stage: Stage, seed: int, players: int = 3, rounds: int = 2, fps: float = 15.0,
            occluder_chance: float = 0.6, hidden: bool = True,
            start: str | None = None) -> tuple[Writer, list[dict]]:
    """Schocken rounds at the tray with occluders in between; returns the writer and turns.

    Each turn is 1-3 throws (later throws keep 0-2 dice aside); the round's first player
    may throw the third time under the cup (``hidden``). With ``start`` (one of
    ``STARTERS``) that occluder already lies in the tray when the camera starts.
    """
    rng = np.random.default_rng(seed)
    w = Writer(stage, rng, fps)
    turns: list[dict] = []
    if start is not None:
        w.start_with(start, float(rng.uniform(1.5, 3.0)))
    w.hold(1.0)
    kinds = list(OCCLUDERS)
    for r in range(rounds):
        for p in range(players):
            n = int(rng.integers(1, 4))
            hand = True
            for t in range(n):
                keep = int(rng.integers(0, 3)) if t else 0
                if r % 2 == 0 and p == 0 and t == 2 and hidden:
                    w.hidden()
                    hand = True
                else:
                    w.throw(keep=keep, quick=bool(rng.integers(2)))
                    hand = keep == 0
                w.hold(float(rng.uniform(1.2, 1.8)))
                if rng.random() < occluder_chance:
                    occluder(w, kinds[int(rng.integers(len(kinds)))])
            turns.append({"player": p, "throws": n, "hand": hand, "values": w.values(),
                          "end": len(w.frames),
                          "hidden": bool(r % 2 == 0 and p == 0 and n == 3 and hidden)})
    return w, turns


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.synth.sequences OUT``: write evening sequences for eval."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--photos", type=Path, help="tray-a folder (default: rendered trays)")
    parser.add_argument("--split", default="all",
                        help="which tray-a photos give the dice (train, validation, holdout, all)")
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fixtures", action="store_true",
                        help="write the small set kept under fixtures/sequences instead")
    parser.add_argument("--camera", action="store_true",
                        help="put each evening into the frame of a camera set-up of `companion"
                             " scene` (the six in turn) and keep its calibration as profile.json")
    args = parser.parse_args(argv)
    if args.fixtures:
        for folder in fixture_set(args.out):
            print(folder)
        return 0
    for k in range(args.count):
        if args.photos:
            s = tray_a_stage(args.photos, ("white", "grey")[k % 2], split=args.split)
        else:
            s = render_stage(args.seed * 100 + k)
        # Three sequences in four start with a hand, a cup or a coaster in the tray.
        start = ((None, *STARTERS))[k % (len(STARTERS) + 1)]
        w, turns = evening(s, args.seed * 1000 + k, rounds=args.rounds, fps=args.fps,
                           start=start)
        folder = args.out / f"evening-{args.seed}-{k}"
        if args.camera:
            setup = list(SETUPS.values())[(args.seed + k) % len(SETUPS)]
            folder = folder.with_name(f"{folder.name}-{setup.name}")
            in_camera(w, setup, np.random.default_rng(args.seed * 1000 + k))
        w.write(folder, turns=turns)
        if args.camera:
            calibrate_by_corners(w, setup, folder / SEQUENCE_PROFILE)
        print(f"{folder}: {len(w.frames)} frames, {len(w.expected)} throws")
    return 0


def in_camera(w: Writer, setup: Setup, rng: np.random.Generator) -> None:
    """The writer's frames as ``setup``'s camera sends them (``scene.on_a_stand``)."""
    w.frames = on_a_stand(w.frames, setup.corners(), setup.frame_size, rng,
                          setup.surround, setup=setup)


def calibrate_by_corners(w: Writer, setup: Setup, path: Path) -> None:
    """Calibrate as the scorekeeper would: by the tray's corners, on a frame of the first
    throw at rest (the dice give the die's size); the profile is written to ``path``."""
    from companion.vision.calibrate import calibrate_tray

    frame = w.frames[min(w.expected[0]["frame"] + 8, len(w.frames) - 1)] if w.expected else (
        w.frames[0])
    corners = tuple((float(x), float(y)) for x, y in setup.corners())
    calibrate_tray(frame, corners).save(path)



def fixture_set(out: Path, size: tuple[int, int] = (320, 240), fps: float = 8.0) -> list[Path]:
    """The small set kept under ``fixtures/sequences``: one short sequence on a rendered
    tray at low resolution: throws with a resting hand, a cup over the dice and a
    coaster in between (the other kinds are made by the tests themselves)."""
    w = Writer(render_stage(21, size), np.random.default_rng(21), fps)
    w.hold(1.0)
    w.throw()
    w.hold(1.3)
    occluder(w, "rest")
    w.throw(keep=1)
    w.hold(1.3)
    occluder(w, "cup")
    occluder(w, "coaster")
    w.throw()
    w.hold(1.3)
    w.write(out / "evening", quality=55)
    return [out / "evening"]

if __name__ == "__main__":
    raise SystemExit(main())
