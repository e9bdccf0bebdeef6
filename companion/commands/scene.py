"""``companion scene``: whole camera frames made from labelled tray photos (``companion.synth``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.evaluation import PHOTO_SPLITS, EvalDataError, photo_split
from companion.synth.artwork import ARTWORKS


def _scene(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from companion.synth.scene import (
        SETUPS,
        check_surround,
        write_rendered_scenes,
        write_scenes,
    )

    if (args.photos is None) == (args.rendered is None):
        raise EvalDataError("give either --photos (labelled tray photos) or --rendered bock|pips")
    if args.artwork != "classic" and args.rendered != "bock":
        raise EvalDataError("--artwork is for Rock the Bock dice: use it with --rendered bock")
    # Options that say nothing for the frames asked for are refused, not ignored.
    if args.rendered is None and (args.count is not None or args.hard):
        raise EvalDataError("--count and --hard are for rendered throws: use --rendered")
    if args.rendered is not None and (args.split is not None or args.limit):
        raise EvalDataError("--split and --limit choose tray photos: use them with --photos")
    chosen: list[Path] = []
    if args.photos is not None:
        photos = Path(args.photos)
        images = sorted((photos / "images").glob("*.jpg"))
        if not images:
            raise EvalDataError(
                f"no images/*.jpg in {photos}; give a labelled folder of tray photos"
            )
        chosen = photo_split(images, args.split or "holdout")
        if args.limit:
            chosen = chosen[: args.limit]
    names = list(SETUPS) if args.setup == "all" else [args.setup]
    unknown = [name for name in names if name not in SETUPS]
    if unknown:
        raise EvalDataError(f"unknown set-up {unknown[0]!r}; use all or one of {', '.join(SETUPS)}")
    if args.surround:
        check_surround(args.surround)  # before any frame is written
    for k, name in enumerate(names):
        out = Path(args.dir) / name if args.setup == "all" else Path(args.dir)
        setup = SETUPS[name]
        if args.surround:
            setup = replace(setup, surround=args.surround)
        if args.rendered is None:
            written = write_scenes(chosen, photos / "labels", out, setup, args.seed + k)
        else:
            written = write_rendered_scenes(
                out, setup, args.seed + k, 10 if args.count is None else args.count,
                args.rendered, args.hard, args.artwork,
            )
        print(f"{name}: wrote {len(written)} frames with labels and tray.json to {out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``scene``."""
    scene = sub.add_parser(
        "scene",
        help="compose labelled tray photos or rendered throws into whole camera frames"
        " (for evaluation)"
    )
    scene.add_argument("dir", metavar="DIR", help="folder to write (one per set-up with 'all')")
    scene.add_argument("--photos", help="labelled tray photos (images/, labels/)")
    scene.add_argument(
        "--rendered", choices=("bock", "pips"),
        help="compose rendered throws of ten dice instead of photos (Rock the Bock or pips;"
        " read them with `eval bock DIR` or `eval pips DIR`)",
    )
    scene.add_argument(
        "--count", type=int, help="with --rendered: throws per set-up (default 10)"
    )
    scene.add_argument(
        "--hard", action="store_true", help="with --rendered: colour cast, dim, glare, blur"
    )
    scene.add_argument(
        "--artwork", choices=ARTWORKS,
        default="classic",
        help="with --rendered bock: the built-in drawings or a set the models never saw",
    )
    scene.add_argument("--setup", default="all", help="set-up name, or all (default)")
    scene.add_argument(
        "--split", choices=sorted(PHOTO_SPLITS),
        help="which photos: holdout (default), validation, train or all",
    )
    scene.add_argument(
        "--surround", default="",
        help="put every set-up's tray on this instead: wood, cloth, bar, or tiles or menu"
        " (surrounds no net was trained on)",
    )
    scene.add_argument("--limit", type=int, default=0, help="at most this many photos")
    scene.add_argument("--seed", type=int, default=1, help="seed of the first set-up")
    scene.set_defaults(func=_scene)
