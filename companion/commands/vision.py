"""``companion calibrate …`` and ``companion eval …``: the vision commands.

The pip-dice side lives in ``_pips`` and the Rock the Bock side in ``_bock``; this
module only builds the two parent parsers they hang their subcommands on.
"""

from __future__ import annotations

import argparse

from companion.commands import _bock, _pips, sequences


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``calibrate`` and ``eval`` with their per-dice-kind subcommands."""
    calibrate = sub.add_parser("calibrate", help="calibrate the tray or enrol a dice set")
    calibrate_sub = calibrate.add_subparsers(dest="target", required=True, metavar="WHAT")
    evaluate = sub.add_parser("eval", help="measure the recogniser on a labelled folder")
    eval_sub = evaluate.add_subparsers(dest="kind", required=True, metavar="KIND")
    _pips.register(calibrate_sub, eval_sub)
    _bock.register(sub, calibrate_sub, eval_sub)
    sequences.register_eval(eval_sub)
