"""Schocken's setup and events, and their JSON form: the lines of a game log.

The setup is the first line of a log (players in seat order, who starts, the house
rules); every later line is one event, :class:`ThrowRecorded` or :class:`ThrowRevealed`.
:func:`event_from_dict` reads a line (raising :class:`ParseError` for anything
malformed) and :func:`event_to_dict` writes one. Whether an event is legal is the
engine's business (:mod:`schocken_engine`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.games.errors import ParseError
from companion.games.schocken_rules import Rules
from companion.games.schocken_throws import Throw

__all__ = [
    "MIN_PLAYERS",
    "NAME",
    "Event",
    "Setup",
    "ThrowRecorded",
    "ThrowRevealed",
    "event_from_dict",
    "event_to_dict",
]

NAME = "schocken"
MIN_PLAYERS = 2


@dataclass(frozen=True)
class Setup:
    """Players in seat order (clockwise), who starts the first round, and the rules."""

    players: tuple[str, ...]
    starter: str
    rules: Rules = Rules()

    def __post_init__(self) -> None:
        players = tuple(self.players)
        object.__setattr__(self, "players", players)
        if len(players) < MIN_PLAYERS:
            raise ParseError(f"Schocken needs at least {MIN_PLAYERS} players, got {len(players)}",
                             key="min_players", n=MIN_PLAYERS)
        for name in players:
            if not isinstance(name, str) or not name.strip() or name != name.strip():
                raise ParseError(
                    f"player names must be non-empty text without outer spaces, not {name!r}"
                )
        if len(set(players)) != len(players):
            raise ParseError(f"player names must differ; got {', '.join(players)}",
                             key="names_differ")
        if self.starter not in players:
            raise ParseError(
                f"the starter {self.starter!r} is not one of the players: {', '.join(players)}"
            )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setup:
        """Read ``{"players": [...], "starter": name, "rules": {...}}``.

        ``starter`` defaults to the first player; missing rules keep their defaults.
        """
        if not isinstance(d, Mapping):
            raise ParseError(f"a Schocken setup must be an object, not {d!r}")
        unknown = set(d) - {"players", "starter", "rules"}
        if unknown:
            raise ParseError(
                f"unknown Schocken setup field(s): {', '.join(sorted(unknown))}; "
                "expected players, starter, rules"
            )
        players = d.get("players")
        if not isinstance(players, list | tuple):
            raise ParseError("a Schocken setup needs \"players\": a list of names in seat order")
        starter = d.get("starter", players[0] if players else "")
        return cls(tuple(players), starter, Rules.from_dict(d.get("rules", {})))

    def to_dict(self) -> dict[str, Any]:
        """The setup as the first line of a game log holds it."""
        return {"players": list(self.players), "starter": self.starter,
                "rules": self.rules.to_dict()}



@dataclass(frozen=True)
class ThrowRecorded:
    """A player's turn: their final dice, how many throws they used, turned sixes.

    ``throw`` is None only for the round's first player's hidden third throw.
    """

    player: str
    throws: int
    throw: Throw | None
    turned: int = 0


@dataclass(frozen=True)
class ThrowRevealed:
    """The round's first player lifts the cup: the dice of their hidden third throw."""

    player: str
    throw: Throw
    turned: int = 0


Event = ThrowRecorded | ThrowRevealed


_KIND_TEXT: dict[type, str] = {str: "text", int: "a whole number"}


def _field(d: Mapping[str, Any], key: str, kind: type, what: str) -> Any:
    value = d.get(key)
    # bool is an int to Python, never to a person writing a log
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ParseError(f"{what}: {key!r} must be {_KIND_TEXT[kind]}, not {value!r}")
    return value


def _throw_from(d: Mapping[str, Any], what: str, default_hand: bool) -> Throw:
    dice = d.get("dice")
    if not isinstance(dice, list):
        raise ParseError(f"{what}: \"dice\" must be a list of three dice such as [1, 1, 4]")
    hand = d.get("hand", default_hand)
    if not isinstance(hand, bool):
        raise ParseError(f"{what}: \"hand\" must be true or false, not {hand!r}")
    return Throw(tuple(dice), hand=hand)  # type: ignore[arg-type]


def event_from_dict(d: Mapping[str, Any]) -> Event:
    """Read one log line (see :func:`event_to_dict`); raises :class:`ParseError`."""
    if not isinstance(d, Mapping):
        raise ParseError(f"a Schocken action must be an object, not {d!r}")
    action = d.get("action")
    if action == "throw":
        allowed = {"action", "player", "throws", "dice", "hand", "turned", "hidden"}
    elif action == "reveal":
        allowed = {"action", "player", "dice", "hand", "turned"}
    else:
        raise ParseError(f"unknown Schocken action {action!r}; expected throw or reveal")
    unknown = set(d) - allowed
    if unknown:
        raise ParseError(f"{action}: unknown field(s) {', '.join(sorted(unknown))}")
    player = _field(d, "player", str, action)
    turned = d.get("turned", 0)
    if not isinstance(turned, int) or isinstance(turned, bool) or not 0 <= turned <= 2:
        raise ParseError(f"{action}: \"turned\" must be 0, 1 or 2, not {turned!r}")
    if action == "reveal":
        return ThrowRevealed(player, _throw_from(d, action, False), turned)
    throws = _field(d, "throws", int, action)
    if not 1 <= throws <= 3:
        raise ParseError(f"throw: \"throws\" must be 1, 2 or 3, not {throws}")
    if d.get("hidden", False) is True:
        if "dice" in d or "hand" in d or turned:
            raise ParseError("throw: a hidden throw has no dice yet; record them with reveal")
        return ThrowRecorded(player, throws, None)
    if "hidden" in d and d["hidden"] is not False:
        raise ParseError(f"throw: \"hidden\" must be true or false, not {d['hidden']!r}")
    # One throw is always from the hand, so "hand" may be left out then.
    return ThrowRecorded(player, throws, _throw_from(d, action, throws == 1), turned)


def event_to_dict(event: Event) -> dict[str, Any]:
    """One event as a JSON-able log line with an ``"action"`` key."""
    if isinstance(event, ThrowRecorded):
        out: dict[str, Any] = {"action": "throw", "player": event.player, "throws": event.throws}
        if event.throw is None:
            out["hidden"] = True
            return out
        throw = event.throw
    elif isinstance(event, ThrowRevealed):
        out = {"action": "reveal", "player": event.player}
        throw = event.throw
    else:
        raise ParseError(f"not a Schocken event: {event!r}")
    out["dice"] = list(throw.dice)
    out["hand"] = throw.hand
    if event.turned:
        out["turned"] = event.turned
    return out

