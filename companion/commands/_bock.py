"""Rock the Bock vision commands: ``render``, ``calibrate faces`` and ``eval bock``."""

from __future__ import annotations

import argparse


def register(
    sub: argparse._SubParsersAction,
    calibrate_sub: argparse._SubParsersAction,
    eval_sub: argparse._SubParsersAction,
) -> None:
    """Add ``render`` and hang the Rock the Bock subcommands on ``calibrate`` and ``eval``."""
