"""Rock the Bock vision commands: ``render``, ``calibrate faces`` and ``eval bock``.

``eval bock`` uses the same definitions as ``eval pips`` (and its position matching):
a labelled die counts as right only when a read die lies within half its box and shows
the same face, so a missed or unread die counts wrong; extra dice are read dice that
match no label; an image is exact when the multiset of read faces equals the labels'.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion import evaluation
from companion.evaluation import EvalDataError
from companion.synth.artwork import ARTWORKS


def read_bock_labels(path: Path, width: int, height: int) -> list[evaluation.LabelledDie]:
    """Parse a label file ``class x_c y_c w h`` (0..1); ``class`` indexes ``FACES``."""
    from companion.vision.faces_look import FACES

    return evaluation.read_labels(path, width, height, FACES)


def evaluate_bock(
    directory: Path,
    profile: Path | None = None,
    csv_out: Path | None = None,
    finder: str = "auto",
) -> dict:
    """Run the Rock the Bock recogniser over a labelled folder; return the figures.

    A ``directory`` of camera set-up folders (``companion scene --rendered bock`` writes
    them) is measured folder by folder, each with its own ``tray.json`` unless
    ``profile`` is given (``evaluation.evaluate_sets``)."""
    from companion.vision.enrol import load_recognizer
    from companion.vision.faces_look import FACES

    sets = evaluation.evaluate_sets(
        directory, lambda chosen: load_recognizer(chosen, finder), FACES, csv_out,
        profile=profile,
    )
    if sets is not None:
        return sets
    return evaluation.evaluate(directory, load_recognizer(profile, finder), FACES, csv_out)


def _eval_bock(args: argparse.Namespace) -> int:
    figures = evaluate_bock(
        Path(args.dir),
        Path(args.profile) if args.profile else None,
        Path(args.csv) if args.csv else None,
        args.finder,
    )
    evaluation.print_figures(figures, args.json)
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
    from companion.synth.render import (
        PIP_STYLES,
        UNSEEN_PIP_STYLES,
        RenderError,
        artwork_palette,
        shifted_palette,
        write_dataset,
    )

    if args.pip_styles != "usual" and args.kind != "pips":
        raise RenderError("--pip-styles colours pip dice: give it with --kind pips")
    palette = artwork_palette(args.artwork)
    if args.palette == "shifted":
        palette = shifted_palette(palette)
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
        artwork=args.artwork,
        pip_styles=UNSEEN_PIP_STYLES if args.pip_styles == "unseen" else PIP_STYLES,
    )
    print(f"wrote {len(paths)} images with labels to {args.dir}")
    return 0


def _calibrate_faces(args: argparse.Namespace) -> int:
    import cv2

    from companion.vision.enrol import enrol_face, load_models, load_recognizer, save_models
    from companion.vision.faces_classify import MIN_SEPARATION

    profile = Path(args.profile)
    current = load_models(profile) if profile.exists() else {}
    if args.show:
        from companion.vision.faces_look import FACES

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
    if result.separation < MIN_SEPARATION:
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
        help="Rock the Bock dice colours: the artwork's own or a differently coloured set",
    )
    render.add_argument(
        "--artwork",
        choices=ARTWORKS,
        default="classic",
        help="Rock the Bock drawings: classic (the built-in set) or a set the models never saw",
    )
    render.add_argument(
        "--pip-styles",
        choices=("usual", "unseen"),
        default="usual",
        help="pip dice colours: the usual ones (the pip nets trained on renders of them) or"
        " eight styles no net was trained on (orange, pink, wood, teal, light blue, navy with"
        " gold pips, white with blue, dark green)",
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
    bock.add_argument(
        "--finder", default="auto", help="auto (default), spotter or classic: where dice come from"
    )
    bock.set_defaults(func=_eval_bock)
