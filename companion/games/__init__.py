"""Pure game rules: standard library only, no clock, no IO, no randomness.

Every game module (``schocken``, ``rockthebock``, ``wacken``) offers the same
small surface, so the store, the CLI and the dashboard treat games alike:

``NAME``
    The registry key, e.g. ``"schocken"``.
``RULE_FLAGS``
    Tuple of :class:`RuleFlag`: every house-rule flag of RULES.md with its default,
    allowed values and a one-sentence explanation in English and German.
``Rules``
    Frozen dataclass of the flags. ``Rules.from_dict(mapping)`` (raises
    :class:`RuleError`; accepts the strings the CLI's ``--rule flag=value`` gives)
    and ``rules.to_dict()``.
``Setup``
    Frozen dataclass: players and game-specific start facts plus ``rules``.
    ``Setup.from_dict(d)`` (raises :class:`ParseError`/:class:`RuleError`) and
    ``setup.to_dict()`` -- this is the first line of a game log.
``event_from_dict(d)`` / ``event_to_dict(event)``
    One recorded action <-> one JSON object with an ``"action"`` key; these are
    the later lines of a game log and the payloads of the SQLite event log.
``start(setup) -> State``
    The state before anything happened.
``apply(state, event) -> State``
    Validate the event against the state and fold it in. Raises
    :class:`IllegalAction` with a readable reason and never mutates ``state``.
``standings(state) -> dict``
    JSON-able summary printed by ``companion replay`` and checked by the fixtures.
``view(state) -> dict``
    JSON-able picture of the live game for the dashboard (whose turn, what is
    legal now, ranked throws, ...). The dashboard never re-implements a rule.
``is_over(state) -> bool``
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from companion.games.errors import GameError, IllegalAction, ParseError, RuleError

__all__ = [
    "GAME_NAMES",
    "GameError",
    "IllegalAction",
    "ParseError",
    "RuleError",
    "RuleFlag",
    "game_module",
]

GAME_NAMES = ("schocken", "rockthebock", "wacken")


@dataclass(frozen=True)
class RuleFlag:
    """One house-rule flag: name, default, the values it takes, and what it means."""

    name: str
    default: object
    choices: tuple[object, ...]
    help_en: str
    help_de: str


def game_module(name: str) -> ModuleType:
    """Return the rules module registered under ``name``.

    Raises :class:`ParseError` naming the known games when ``name`` is unknown.
    """
    if name not in GAME_NAMES:
        raise ParseError(f"unknown game {name!r}; choose one of: {', '.join(GAME_NAMES)}",
                         key="unknown_game", name=name)
    return importlib.import_module(f"companion.games.{name}")
