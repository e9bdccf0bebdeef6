"""``companion doctor``: the pre-flight check, one line per check with the fix."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.config import load_settings


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``doctor``."""
    parser = sub.add_parser(
        "doctor", help="check camera, calibration, button, LED, data, models and address"
    )
    parser.add_argument("--press", type=float, default=0.0, metavar="SECONDS",
                        help="ask for a button press and wait this long (default: no press)")
    parser.add_argument("--camera-seconds", type=float, default=2.0,
                        help="how long to read frames (default 2)")
    parser.add_argument("--no-camera", action="store_true",
                        help="skip the camera (when the running companion has it)")
    parser.set_defaults(func=doctor_command)


def doctor_command(args: argparse.Namespace) -> int:
    """Run every check; exit 1 when any failed."""
    from dataclasses import replace

    from companion import doctor
    from companion.hardware.camera import open_source

    settings = load_settings(Path(args.config) if args.config else None)
    if args.no_camera:
        settings = replace(settings, camera="none")
    checks = doctor.run_checks(settings, open_source, press_seconds=args.press,
                               camera_seconds=args.camera_seconds)
    for check in checks:
        print(check.line(), flush=True)
    failed = sum(c.level == doctor.FAIL for c in checks)
    warned = sum(c.level == doctor.WARN for c in checks)
    print(f"{len(checks)} checks: {failed} failed, {warned} warnings")
    return 1 if failed else 0
