"""``companion serve`` and ``companion demo``: the dashboard, with or without sample games.

``serve`` shows the games of the configured database. ``demo`` starts on a
temporary database with one sample game per kind taken from ``fixtures/games/``:
each game starts empty and a background thread records the logged actions one by
one, so open pages visibly change, beside a Schocken game the camera path reads from
rendered throws; finished games start again. Both commands are put together by
:func:`companion.app.build`; the demo's scorekeepers are in :mod:`companion.demo`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.commands import whole
from companion.config import Settings, load_settings, validate
from companion.demo import DEMO_PIN

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "games"
DEMO_PAUSE_STEPS = 10  # the finished games stay on show this many steps before the replay
SECONDS_PER_STEP = 2.0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` and ``demo``."""
    serve = sub.add_parser("serve", help="run the dashboard on the configured database")
    _server_options(serve)
    serve.set_defaults(func=run_serve)
    demo = sub.add_parser(
        "demo", help="run the dashboard with sample games played out live",
        description="Start the dashboard with a Schocken, a Rock the Bock and a Kacken auf "
        "Wacken game from fixtures/games/, played out step by step. Open the printed address; "
        f"the demo PIN ({DEMO_PIN}) makes you the scorekeeper.")
    demo.add_argument("--host", default="127.0.0.1",
                      help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones on "
                      "the network join)")
    demo.add_argument("--port", type=whole, help="port (default: from the settings, 8080)")
    demo.add_argument("--data", type=Path,
                      help="data directory (default: a temporary one, removed at exit)")
    demo.add_argument("--speed", type=_positive, default=1.0,
                      help=f"playback speed; 1 = one step every {SECONDS_PER_STEP:g} s "
                      "(default 1)")
    demo.add_argument("--fixtures", type=Path, default=FIXTURES,
                      help="folder with the game logs to play (default: fixtures/games)")
    demo.add_argument("--no-camera", dest="camera", action="store_false",
                      help="leave out the Schocken game played through the camera pipeline "
                      "on rendered throws")
    demo.set_defaults(func=run_demo)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1000:
        raise argparse.ArgumentTypeError("the speed must be above 0 and at most 1000")
    return value


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default: from the settings; "
                        "0.0.0.0 lets phones on the network connect)")
    parser.add_argument("--port", type=whole, help="port (default: from the settings, 8080)")


def _settings(args: argparse.Namespace, **overrides: Any) -> Settings:
    settings = load_settings(Path(args.config) if getattr(args, "config", None) else None)
    if args.host:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    return validate(replace(settings, **overrides))


def run_serve(args: argparse.Namespace) -> int:
    """Serve the dashboard over the configured database until interrupted."""
    from companion.app import build
    from companion.store import Store

    settings = _settings(args)
    with Store(settings.database) as store:
        build(settings, store).serve()
    return 0


def run_demo(args: argparse.Namespace) -> int:
    """Start the dashboard with sample games played out live; print address, QR and PIN."""
    from companion.app import build
    from companion.demo import demo_logs, demo_parts
    from companion.store import Store

    logs = demo_logs(args.fixtures)
    temporary = args.data is None
    data_dir = Path(tempfile.mkdtemp(prefix="companion-demo-")) if temporary else args.data
    settings = _settings(args, data_dir=data_dir)
    try:
        with Store(settings.database) as store:
            demo = demo_parts(settings, logs, seconds_per_step=SECONDS_PER_STEP / args.speed,
                              pause=DEMO_PAUSE_STEPS, camera=args.camera)
            companion = build(settings, store, demo=demo)
            print(f"Demo games: {', '.join(logs)} (from {args.fixtures})"
                  f"{' and a Schocken game read by the camera pipeline' if args.camera else ''};"
                  f" scorekeeper PIN {DEMO_PIN}", file=sys.stderr)
            companion.serve(pin=DEMO_PIN)
    finally:
        if temporary:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 0
