"""The ``companion`` command line.

Each area keeps its subcommands in ``companion/commands/<area>.py`` with a
``register(subparsers)`` function; every subcommand sets ``func(args) -> int``.
Exit codes: 0 fine, 2 bad input (a clear message on stderr), 1 other failure.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import companion.commands
from companion.config import ConfigError


def build_parser() -> argparse.ArgumentParser:
    """The parser with every area's subcommands registered."""
    parser = argparse.ArgumentParser(
        prog="companion", description="Dice Companion: reads dice and keeps score at the table."
    )
    parser.add_argument("--config", help="TOML settings file (default: $COMPANION_CONFIG)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(companion.commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue  # helpers of another command module, registered by it
        module = importlib.import_module(f"companion.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ConfigError, ValueError) as exc:
        # Domain errors (GameError, vision errors) subclass ValueError: a person sees
        # one line saying what was wrong, not a traceback.
        print(f"companion {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
