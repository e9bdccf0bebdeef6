"""Pip-dice vision commands: ``calibrate tray`` and ``eval pips``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion import evaluation
from companion.vision.types import VisionError


def evaluate(
    directory: Path,
    csv_out: Path | None = None,
    finder: str = "auto",
    profile: Path | None = None,
    split: str = "all",
    own_profiles: bool = True,
) -> dict:
    """The pip recogniser's figures on ``directory`` (see ``companion.evaluation``).

    ``finder`` picks where the dice come from: ``auto`` (the learned spotter when its
    model is there), ``spotter`` or ``classic`` (``PipRecognizer``); ``profile`` is the
    tray calibration of the camera set-up the frames come from. A ``directory`` without
    ``images/`` but with labelled sub-folders (one per camera set-up, as ``companion
    scene`` writes them) is measured folder by folder, each with its own ``tray.json``
    unless ``profile`` is given (or ``own_profiles`` is False: then without one, the
    recogniser finding each tray itself), and the figures are taken together; the CSV
    then has every folder's rows, its name in a first column ``set``.
    """
    from companion.vision.recognizer import PipRecognizer
    from companion.vision.tray import TrayProfile

    def recognizer_for(chosen: Path | None) -> PipRecognizer:
        tray = None if chosen is None else TrayProfile.load(chosen)
        return PipRecognizer(tray, finder=finder)

    sets = evaluation.evaluate_sets(
        directory, recognizer_for, evaluation.PIP_VALUES, csv_out, split, profile,
        own_profiles,
    )
    if sets is not None:
        return sets
    return evaluation.evaluate(
        directory, recognizer_for(profile), evaluation.PIP_VALUES, csv_out, split
    )


def _eval_pips(args: argparse.Namespace) -> int:
    figures = evaluate(
        Path(args.dir),
        Path(args.csv) if args.csv else None,
        args.finder,
        Path(args.profile) if args.profile else None,
        args.split,
        not args.no_profile,
    )
    evaluation.print_figures(figures, args.json)
    return 0


def _calibrate_tray(args: argparse.Namespace) -> int:
    import cv2

    from companion.vision.calibrate import (
        calibrate,
        draw_calibration,
        small_die,
        small_die_advice,
    )
    from companion.vision.tray import parse_corners
    from companion.vision.trayfind import TrayNotFound

    frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if frame is None:
        raise VisionError(f"cannot read an image from {args.image}; give a JPEG or PNG file")
    corners = parse_corners(args.corners) if args.corners else None
    try:
        result = calibrate(frame, corners, args.finder)
    except TrayNotFound as exc:
        raise TrayNotFound(f"could not find the tray in {args.image}: {exc}") from None
    if args.show:
        picture = draw_calibration(frame, result)
        if not cv2.imwrite(args.show, picture):
            raise VisionError(f"cannot write {args.show}; give a .png or .jpg path in a folder")
    result.profile.save(args.out)
    profile = result.profile
    size = (
        "no die seen" if profile.die_size is None
        else f"die edge {profile.die_size:.1f} px ({result.die_method})"
    )
    how = "found" if result.found else "given"
    corners_text = " ".join(f"({x:.0f},{y:.0f})" for x, y in profile.corners)
    print(f"tray {how}: corners {corners_text}", file=sys.stdout)
    print(f"tray profile written to {args.out} ({size})", file=sys.stdout)
    if profile.die_size is not None and small_die(profile.die_size):
        print(f"note: {small_die_advice(profile.die_size)}", file=sys.stdout)
    if args.show:
        print(f"check the picture {args.show}; if the outline is wrong, give --corners")
    return 0


def _eval_tray(args: argparse.Namespace) -> int:
    from companion import tray_evaluation

    figures = tray_evaluation.evaluate([Path(d) for d in args.dirs], args.limit, args.finder)
    tray_evaluation.print_figures(figures, args.json)
    return 0


def register(
    calibrate_sub: argparse._SubParsersAction, eval_sub: argparse._SubParsersAction
) -> None:
    """Hang the pip-dice subcommands on ``calibrate`` and ``eval``."""
    tray = calibrate_sub.add_parser("tray", help="find the tray, die size and floor colour")
    tray.add_argument("image", metavar="IMAGE", help="a frame of the (empty) tray")
    tray.add_argument("--corners", help="tray corners x,y,x,y,x,y,x,y instead of finding them")
    tray.add_argument("--out", default="calibration/tray.json", help="profile file to write")
    tray.add_argument(
        "--show", metavar="OUT.png",
        help="write the frame with the tray outline, numbered corners and die size drawn",
    )
    tray.add_argument(
        "--finder", default="auto", choices=("auto", "spotter", "classic"),
        help="what measures the die: the pip spotter (auto: when its model is there)"
        " or the classical finder",
    )
    tray.set_defaults(func=_calibrate_tray)

    tray_eval = eval_sub.add_parser(
        "tray", help="measure finding the tray and its die size on composed camera frames"
    )
    tray_eval.add_argument(
        "dirs", metavar="DIR", nargs="+",
        help="folders written by `companion scene` (images/, labels/, corners.txt), or"
        " their parent",
    )
    tray_eval.add_argument("--limit", type=int, default=0, help="at most this many per folder")
    tray_eval.add_argument(
        "--finder", default="auto", choices=("auto", "spotter", "classic"),
        help="what measures the die in the found tray (the classical finder is always"
        " measured too)",
    )
    tray_eval.add_argument("--json", action="store_true", help="end with one JSON line")
    tray_eval.set_defaults(func=_eval_tray)

    pips = eval_sub.add_parser("pips", help="measure the pip reader on a labelled folder")
    pips.add_argument(
        "dir", metavar="DIR",
        help="folder with images/*.jpg and labels/*.txt, or a folder of such folders"
        " (camera set-ups, each read with its own tray.json)",
    )
    pips.add_argument("--json", action="store_true", help="end with one JSON line of figures")
    pips.add_argument("--csv", metavar="OUT", help="write one row per image to this CSV")
    pips.add_argument(
        "--finder", default="auto", help="auto (default), spotter or classic: where dice come from"
    )
    pips.add_argument("--profile", help="tray profile of the camera set-up the frames come from")
    pips.add_argument(
        "--no-profile", action="store_true",
        help="read set-up folders without their tray.json: the recogniser finds each tray itself",
    )
    pips.add_argument(
        "--split", default="all", choices=sorted(evaluation.PHOTO_SPLITS),
        help="only these images (by sorted name): train, validation, holdout or all (default)",
    )
    pips.set_defaults(func=_eval_pips)
