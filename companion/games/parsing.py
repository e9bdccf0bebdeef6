"""Reading log lines into values: the checks every game's ``from_dict`` shares."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal
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


# Numbers typed by a person or sent by a stranger: ASCII digits only (no "٣", "1_0" or
# "+3", which int() and Decimal() would take) and a length limit, so that reading one can
# never take long whatever is sent ("1e999999999" would make a number of a billion digits).
_WHOLE = re.compile(r"[0-9]{1,9}")
_DECIMAL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,6})?")


def whole_number(value: object, what: str, low: int, high: int) -> int:
    """``value`` (an int, or text of plain digits) as an int in ``low..high``, else ParseError.

    The message names ``what`` and the range, so a person knows what to type.
    """
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        number = None
    if number is None or not low <= number <= high:
        raise ParseError(
            f"{what} must be a whole number from {low} to {high}, not {_shown(value)}"
        )
    return number


def decimal_text(value: object, what: str, high: int) -> Decimal:
    """``value`` (int, finite float or plain decimal text) as a Decimal in ``0..high``.

    Raises ParseError naming ``what``; exponents, signs, underscores and non-ASCII
    digits are refused before any conversion, so a huge number costs nothing.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ParseError(f"{what} must be a number such as 1 or 0.5, not {_shown(value)}")
    if isinstance(value, int) and not -high - 1 <= value <= high:
        raise ParseError(f"{what} must be a number from 0 to {high}, not {_shown(value)}")
    text = repr(value) if isinstance(value, float) else str(value).strip()
    if not _DECIMAL.fullmatch(text):
        raise ParseError(
            f"{what} must be a number from 0 to {high} such as 1 or 0.5, not {_shown(value)}"
        )
    amount = Decimal(text)
    if amount > high:
        raise ParseError(f"{what} must be a number from 0 to {high}, not {_shown(value)}")
    return amount


def _shown(value: object) -> str:
    # The value goes into a message a person reads: a 1.5 MB value must not, and a
    # huge int is not even turned into digits (that alone can take seconds).
    if isinstance(value, int) and value.bit_length() > 64:
        return "a number that long"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


JSON_DEPTH_MAX = 16
_JSON_INT_DIGITS_MAX = 30


def read_json(text: str, what: str) -> Any:
    """Strict JSON from outside (a log line, a posted action), bounded in depth and numbers.

    Raises ParseError (its text starts with ``what``, e.g. ``"the header is "``; key
    ``json_invalid`` or ``json_deep``) for
    invalid JSON, NaN/Infinity, a number too long or too large for a float, or nesting
    deeper than :data:`JSON_DEPTH_MAX` — the checks that keep a hostile line
    from costing a traceback or minutes of CPU.
    """

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a number JSON allows")

    def bounded_int(digits: str) -> int:
        if len(digits) > _JSON_INT_DIGITS_MAX:
            raise ValueError(f"a number of {len(digits)} digits is far too long")
        return int(digits)

    def finite_float(digits: str) -> float:
        number = float(digits)
        if number in (float("inf"), float("-inf")):
            raise ValueError(f"{digits[:20]} is too large a number")
        return number

    try:
        value = json.loads(text, parse_constant=no_constant, parse_int=bounded_int,
                           parse_float=finite_float)
    except RecursionError:
        raise ParseError(f"{what}nested too deeply (at most {JSON_DEPTH_MAX} levels)",
                         key="json_deep", n=JSON_DEPTH_MAX) from None
    except ValueError as exc:
        raise ParseError(f"{what}not valid JSON ({_short(str(exc))})",
                         key="json_invalid") from None
    if _depth(value) > JSON_DEPTH_MAX:
        raise ParseError(f"{what}nested too deeply (at most {JSON_DEPTH_MAX} levels)",
                         key="json_deep", n=JSON_DEPTH_MAX)
    return value


def _depth(value: Any) -> int:
    # Iterative, so no depth can exhaust the interpreter's stack.
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > JSON_DEPTH_MAX:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."
