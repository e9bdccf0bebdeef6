"""Subcommands of ``companion``; one module per area, each with ``register(subparsers)``."""
