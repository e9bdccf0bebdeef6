"""``companion run``: the whole companion -- camera, turn button and dashboard."""

from __future__ import annotations

import argparse
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.commands import whole
from companion.config import load_settings, validate


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``run``."""
    parser = sub.add_parser(
        "run", help="run the companion: camera, button and dashboard (what systemd starts)"
    )
    parser.add_argument("--camera", help="none, picamera, usb:N or replay:DIR (default: settings)")
    parser.add_argument("--port", type=whole, help="dashboard port (default: settings)")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Load the settings, apply the command-line overrides, run until interrupted."""
    from companion.app import run

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    settings = load_settings(Path(args.config) if args.config else None)
    overrides: dict[str, Any] = {}
    if args.camera:
        overrides["camera"] = args.camera
    if args.port is not None:
        overrides["port"] = args.port
    return run(validate(replace(settings, **overrides)))
