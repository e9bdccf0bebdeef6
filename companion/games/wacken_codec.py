"""Kacken auf Wacken's setup and events, and their JSON form (the lines of a game log).

Whether an Abrocken adds up is the engine's business (:mod:`companion.games.wacken`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games import RuleFlag
from companion.games.errors import IllegalAction, ParseError, RuleError
from companion.games.parsing import count as _count
from companion.games.parsing import expect_keys as _expect_keys
from companion.games.parsing import text as _text

__all__ = [
    "Abrocken",
    "AbrockenCancelled",
    "Event",
    "GAME_END_REASONS",
    "GameEnd",
    "INITIATOR_BEERS",
    "MIN_PLAYERS",
    "NAME",
    "Participant",
    "RULE_FLAGS",
    "Rules",
    "Setup",
    "event_from_dict",
    "event_to_dict",
]


NAME = "wacken"
MIN_PLAYERS = 2

# RULES.md lists no house rules for Kacken auf Wacken.
RULE_FLAGS: tuple[RuleFlag, ...] = ()

# Why a game ends, with the English for messages; pages word ``wk_reason_<reason>``.
GAME_END_REASONS = {
    "rock_deck_empty": "the Rock! deck is empty",
    "on_stage_deck_empty": "the On-Stage deck is empty",
}

INITIATOR_BEERS = (1, 2)


# ---------------------------------------------------------------------------
# Rules and setup


@dataclass(frozen=True)
class Rules:
    """The house rules in force: Kacken auf Wacken has none, so any flag is refused."""

    @classmethod
    def from_dict(cls, mapping: Mapping[str, object]) -> Rules:
        """Accept only an empty mapping; name the refused flag otherwise."""
        if not isinstance(mapping, Mapping):
            raise RuleError(f"rules must be a mapping of flag to value, not {mapping!r}")
        if mapping:
            flag = sorted(mapping)[0]
            raise RuleError(
                f"unknown Kacken auf Wacken rule {flag!r}; this game has no house rules"
            )
        return cls()

    def to_dict(self) -> dict[str, object]:
        """No flags: an empty mapping."""
        return {}


@dataclass(frozen=True)
class Setup:
    """The players in seat order (2 or more) and the (empty) rules."""

    players: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        if len(self.players) < MIN_PLAYERS:
            raise ParseError(
                f"Kacken auf Wacken needs at least {MIN_PLAYERS} players, not {len(self.players)}"
            )
        for name in self.players:
            if not isinstance(name, str) or not name.strip():
                raise ParseError(f"every player needs a non-empty name, not {name!r}")
        if len(set(self.players)) != len(self.players):
            raise ParseError(f"player names must differ: {', '.join(self.players)}")

    def seat(self, name: str) -> int:
        """Seat index of ``name``; raises :class:`IllegalAction` for someone not playing."""
        try:
            return self.players.index(name)
        except ValueError:
            raise IllegalAction(
                f"{name!r} is not playing; the players are {', '.join(self.players)}"
            ) from None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setup:
        """Read the setup line of a game log: ``{"players": [...], "rules": {}}``."""
        if not isinstance(d, Mapping):
            raise ParseError(f"the setup must be a JSON object, not {d!r}")
        _expect_keys(d, required={"players"}, optional={"rules"}, what="setup")
        players = d["players"]
        if not isinstance(players, list):
            raise ParseError("setup 'players' must be a list of names")
        return cls(players=tuple(players), rules=Rules.from_dict(d.get("rules", {})))

    def to_dict(self) -> dict[str, Any]:
        """The JSON-able setup."""
        return {"players": list(self.players), "rules": self.rules.to_dict()}


# ---------------------------------------------------------------------------
# Events


@dataclass(frozen=True)
class Participant:
    """One metalhead at the stage: beers put down, matching Rock! cards, matching songs."""

    player: str
    beers: int
    cards: int
    songs: int = 0

    def __post_init__(self) -> None:
        _text(self.player, "participant player")
        for what in ("beers", "cards", "songs"):
            _count(getattr(self, what), f"{self.player}'s {what}")


@dataclass(frozen=True)
class Abrocken:
    """A scored Abrocken: the band, its songs on stage, who started it, everyone who came."""

    band: str
    songs_on_stage: int
    initiator: str
    participants: tuple[Participant, ...]

    def __post_init__(self) -> None:
        _text(self.band, "band")
        _text(self.initiator, "initiator")
        _count(self.songs_on_stage, "songs_on_stage")
        object.__setattr__(self, "participants", tuple(self.participants))


@dataclass(frozen=True)
class AbrockenCancelled:
    """An Abrocken called off: a Kack card came up on a beer run, nothing is scored."""

    band: str
    initiator: str

    def __post_init__(self) -> None:
        _text(self.band, "band")
        _text(self.initiator, "initiator")


@dataclass(frozen=True)
class GameEnd:
    """The game ended because the Rock! deck or the On-Stage deck ran out."""

    reason: str

    def __post_init__(self) -> None:
        if self.reason not in GAME_END_REASONS:
            raise ParseError(
                f"game end reason {self.reason!r}; use one of: {', '.join(GAME_END_REASONS)}"
            )


Event = Abrocken | AbrockenCancelled | GameEnd


def event_from_dict(d: Mapping[str, Any]) -> Event:
    """Read one action line of a game log."""
    if not isinstance(d, Mapping):
        raise ParseError(f"an action must be a JSON object, not {d!r}")
    action = d.get("action")
    if action == "abrocken":
        _expect_keys(
            d,
            required={"action", "band", "songs_on_stage", "initiator", "participants"},
            optional=set(),
            what="abrocken",
        )
        raw = d["participants"]
        if not isinstance(raw, list):
            raise ParseError("abrocken 'participants' must be a list of objects")
        participants = []
        for p in raw:
            if not isinstance(p, Mapping):
                raise ParseError(f"participant {p!r} must be an object")
            _expect_keys(
                p, required={"player", "beers", "cards"}, optional={"songs"}, what="participant"
            )
            participants.append(
                Participant(p["player"], p["beers"], p["cards"], p.get("songs", 0))
            )
        return Abrocken(d["band"], d["songs_on_stage"], d["initiator"], tuple(participants))
    if action == "abrocken_cancelled":
        _expect_keys(
            d, required={"action", "band", "initiator"}, optional=set(), what="abrocken_cancelled"
        )
        return AbrockenCancelled(d["band"], d["initiator"])
    if action == "game_end":
        _expect_keys(d, required={"action", "reason"}, optional=set(), what="game_end")
        return GameEnd(_text(d["reason"], "reason"))
    raise ParseError(
        f"unknown Kacken auf Wacken action {action!r}; "
        "use 'abrocken', 'abrocken_cancelled' or 'game_end'"
    )


def event_to_dict(event: Event) -> dict[str, Any]:
    """One action as a JSON-able object with an ``"action"`` key."""
    if isinstance(event, Abrocken):
        return {
            "action": "abrocken",
            "band": event.band,
            "songs_on_stage": event.songs_on_stage,
            "initiator": event.initiator,
            "participants": [
                {"player": p.player, "beers": p.beers, "cards": p.cards, "songs": p.songs}
                for p in event.participants
            ],
        }
    if isinstance(event, AbrockenCancelled):
        return {"action": "abrocken_cancelled", "band": event.band, "initiator": event.initiator}
    return {"action": "game_end", "reason": event.reason}


