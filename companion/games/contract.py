"""What every game's rules module offers: the :class:`GameRules` protocol mypy checks.

A game is one module (``schocken``, ``rockthebock``, ``wacken``) whose module-level names
make up this surface, so the fold, the store, the command line and the dashboard treat
every game alike. Commands, events and the fold are kept apart as the eventsourcing
library's aggregates keep them: ``event_from_dict`` reads a command into an event,
``apply`` folds one event into a new state, and nothing else changes a state.

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
    JSON-able summary printed by ``companion replay`` and checked by the fixtures. A
    game that keeps a club tab puts ``"tab": {"unit", "totals": {player: amount}}`` in
    it (None without one); the evening's tab adds those up.
``view(state) -> dict``
    JSON-able picture of the live game for the dashboard (whose turn, what is
    legal now, ranked throws, ...). The dashboard never re-implements a rule.
``is_over(state) -> bool``
``describe(event) -> Phrase``
    A one-line account of an event for the history, as a catalogue key and its fields
    (:mod:`.phrase`); the dashboard words it in the page's language. Refusals carry a
    ``key`` and fields the same way (:mod:`.errors`).

Optional: ``preview(event) -> dict``, what an action would work out to without
recording it (Kacken auf Wacken's Abrocken arithmetic).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from companion.games.phrase import Phrase

__all__ = ["GameRules", "GameSetup", "RuleFlag", "SetupReader"]


@dataclass(frozen=True)
class RuleFlag:
    """One house-rule flag: name, default, the values it takes, and what it means."""

    name: str
    default: object
    choices: tuple[object, ...]
    help_en: str
    help_de: str


class GameSetup(Protocol):
    """A game's parsed setup: its players in seat order and its rules."""

    @property
    def players(self) -> Sequence[Any]:
        """Names, or player records with a ``name``."""

    @property
    def rules(self) -> Any:
        """The frozen house rules."""

    def to_dict(self) -> dict[str, Any]:
        """The setup as the first line of a game log holds it."""


class SetupReader(Protocol):
    """The ``Setup`` class of a game: reads a log's setup line."""

    def from_dict(self, d: Mapping[str, Any], /) -> GameSetup:
        """The setup of ``d``; raises ParseError/RuleError."""


class GameRules(Protocol):
    """One game's pure rules, as a module offers them (see the module docstring)."""

    @property
    def NAME(self) -> str:  # noqa: N802 -- module constants are named so
        """The registry key."""

    @property
    def RULE_FLAGS(self) -> tuple[RuleFlag, ...]:  # noqa: N802
        """Every house-rule flag of the game."""

    @property
    def Setup(self) -> SetupReader:  # noqa: N802 -- the module's class is named so
        """The game's setup class."""

    def event_from_dict(self, d: Mapping[str, Any], /) -> Any:
        """The event of one log line; raises ParseError."""

    def event_to_dict(self, event: Any, /) -> dict[str, Any]:
        """One event as a log line with an ``"action"`` key."""

    def start(self, setup: Any, /) -> Any:
        """The state before anything happened."""

    def apply(self, state: Any, event: Any, /) -> Any:
        """The state after ``event``; raises IllegalAction and changes nothing."""

    def standings(self, state: Any, /) -> dict[str, Any]:
        """The JSON-able standings."""

    def view(self, state: Any, /) -> dict[str, Any]:
        """The JSON-able live view for the dashboard."""

    def is_over(self, state: Any, /) -> bool:
        """Whether the game has ended."""

    def describe(self, event: Any, /) -> Phrase:
        """The history line of ``event``."""
