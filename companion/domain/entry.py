"""One recorded entry of a game: an action, an undo or a correction.

A game is its setup plus a list of **entries**, numbered 1, 2, 3, ... (the
*version*). Each entry's payload is exactly one line of a game log:

- an **action**: the engine's ``event_to_dict(event)``, a JSON object whose
  ``"action"`` names the engine's event (``"throw"``, ``"roll"``, ...);
- an **undo**: ``{"action": "undo"}`` cancels the latest action not yet undone.
  Undo never cancels an undo or a correction, and there is no redo: record the
  action again instead;
- a **correction**: ``{"action": "correct", "version": 4, "event": {...}}``
  replaces what the action of entry 4 recorded. It is rejected when the
  replacement is illegal at that point or when any action in force after it
  would then become illegal. Only actions still in force can be corrected.
  Undo never cancels a correction; it cancels actions.

This module only checks that an entry is well formed; :mod:`companion.domain.fold`
decides whether it is legal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from companion.games import ParseError

__all__ = ["CORRECT", "RESERVED", "UNDO", "Entry", "plain_copy"]

UNDO = "undo"
CORRECT = "correct"
RESERVED = (UNDO, CORRECT)

def _check_action_payload(payload: object, what: str) -> dict[str, Any]:
    if not isinstance(payload, Mapping):
        raise ParseError(f"{what} must be a JSON object, not {type(payload).__name__}")
    name = payload.get("action")
    if not isinstance(name, str) or not name:
        raise ParseError(f'{what} needs an "action" field naming what happened')
    return dict(payload)


@dataclass(frozen=True)
class Entry:
    """One recorded entry of a game: an action, an undo or a correction.

    ``payload`` is the log line; ``time`` (seconds since the epoch, from the
    injected clock) and ``who`` (the scorekeeper, ``"camera"``, ...) are only
    known for entries kept by the store. ``unsynced`` marks a time read while the
    wall clock had not been set from the network yet: it may be hours or days off.
    """

    version: int
    payload: Mapping[str, Any]
    time: float | None = None
    who: str = ""
    unsynced: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.version, bool) or not isinstance(self.version, int):
            raise ParseError(f"entry version must be a whole number, not {self.version!r}")
        if self.version < 1:
            raise ParseError(f"entry versions start at 1, not {self.version}")
        if not isinstance(self.unsynced, bool):
            raise ParseError(f"entry {self.version}: unsynced is true or false, "
                             f"not {self.unsynced!r}")
        payload = _check_action_payload(self.payload, f"entry {self.version}")
        try:
            # A deep private copy that is strict JSON: what is kept is what a log file holds.
            payload = json.loads(json.dumps(plain_copy(payload), allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ParseError(f"entry {self.version} is not plain JSON data: {exc}") from None
        name = payload["action"]
        if name == UNDO and set(payload) != {"action"}:
            raise ParseError('an undo line is exactly {"action": "undo"}; it has no other fields')
        if name == CORRECT:
            if set(payload) != {"action", "version", "event"}:
                raise ParseError(
                    'a correction is {"action": "correct", "version": N, "event": {...}}'
                )
            target = payload["version"]
            if isinstance(target, bool) or not isinstance(target, int):
                raise ParseError(f"a correction names the version it replaces, not {target!r}")
            if not 1 <= target < self.version:
                raise ParseError(
                    f"entry {self.version} corrects version {target}, which is not an earlier entry"
                )
            event = _check_action_payload(payload["event"], "the corrected action")
            if event["action"] in RESERVED:
                raise ParseError(f'a correction must replace an action, not "{event["action"]}"')
            payload["event"] = event
        # Behind a read-only view: nobody can change a recorded line.
        object.__setattr__(self, "payload", MappingProxyType(payload))

    @property
    def kind(self) -> str:
        """``"action"``, ``"undo"`` or ``"correct"``."""
        name = self.payload["action"]
        return name if name in RESERVED else "action"

    def to_dict(self) -> dict[str, Any]:
        """The payload as a plain (JSON-able) dict, a fresh copy."""
        return plain_copy(self.payload)


def plain_copy(value: Any) -> Any:
    """A deep copy of JSON-like ``value`` with plain dicts and lists (no read-only views)."""
    if isinstance(value, Mapping):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_copy(v) for v in value]
    return value

