"""Reading log lines into values: the checks every game's ``from_dict`` shares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.errors import ParseError


def expect_keys(
    d: Mapping[str, Any], *, required: set[str], optional: set[str], what: str
) -> None:
    """Raise ParseError when ``d`` lacks a required key or has one nobody knows."""
    missing = sorted(required - set(d))
    if missing:
        raise ParseError(f"{what} is missing {', '.join(repr(k) for k in missing)}")
    unknown = sorted(set(d) - required - optional)
    if unknown:
        known = ", ".join(sorted(required | optional))
        raise ParseError(f"{what} has unknown field {unknown[0]!r}; known fields: {known}")


def text(value: object, what: str) -> str:
    """``value`` if it is non-empty text, else ParseError naming ``what``."""
    if not isinstance(value, str) or not value.strip():
        raise ParseError(f"{what} must be non-empty text, not {value!r}")
    return value


def count(value: object, what: str) -> int:
    """``value`` if it is a whole number ≥ 0 (not a bool), else ParseError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ParseError(f"{what} must be a whole number ≥ 0, not {value!r}")
    return value
