"""The ``companion`` command line: one module per area, each with ``register(subparsers)``.

:mod:`companion.cli` parses and dispatches; these modules only read arguments, call the
companion's own code and print (bad input: one line and exit code 2).
"""


def whole(text: str) -> int:
    """An argparse type: plain ASCII digits only (``int`` would take "٣", "1_0", "+3")."""
    import argparse

    stripped = text.strip()
    if not stripped.isascii() or not stripped.isdigit() or len(stripped) > 30:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number (digits 0-9)")
    return int(stripped)
