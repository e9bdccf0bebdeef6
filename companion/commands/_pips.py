"""Pip-dice vision commands: ``calibrate tray`` and ``eval pips``."""

from __future__ import annotations

import argparse


def register(
    calibrate_sub: argparse._SubParsersAction, eval_sub: argparse._SubParsersAction
) -> None:
    """Hang the pip-dice subcommands on ``calibrate`` and ``eval``."""
