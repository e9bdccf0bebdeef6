"""Scorekeeper PINs: a salted, slow hash to store and a constant-time check against it."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from companion.table.checks import TableError

__all__ = ["PIN_ITERATIONS", "PinError", "hash_pin", "pin_matches"]

PIN_PATTERN = re.compile(r"[0-9]{4,12}")
PIN_ITERATIONS = 100_000


class PinError(TableError):
    """A PIN that is not 4 to 12 digits."""


def hash_pin(pin: str, *, iterations: int = PIN_ITERATIONS, salt: bytes | None = None) -> str:
    """A salted PBKDF2-SHA256 hash of ``pin`` as ``pbkdf2_sha256$iterations$salt$hash``.

    Raises :class:`PinError` unless ``pin`` is 4 to 12 digits.
    """
    if not isinstance(pin, str) or not PIN_PATTERN.fullmatch(pin):
        raise PinError("the PIN must be 4 to 12 digits (0-9), e.g. 4711; choose another",
                       key="pin_format")
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode("ascii"), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def pin_matches(pin: str, stored: str) -> bool:
    """Whether ``pin`` hashes to ``stored`` (constant-time comparison of the digests)."""
    if not isinstance(pin, str) or not PIN_PATTERN.fullmatch(pin):
        return False
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != "pbkdf2_sha256":
            return False
        expected = bytes.fromhex(digest)
        actual = hashlib.pbkdf2_hmac(
            "sha256", pin.encode("ascii"), bytes.fromhex(salt), int(iterations)
        )
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)

