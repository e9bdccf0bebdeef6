"""A tiny game obeying the engine contract, so the store/domain/table tests do not
depend on the real engines' rules.

Players take turns in seat order adding 1 to 3 to a shared count; the game is
over when the count reaches the ``limit`` flag (default 10). Whoever reaches it
wins.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games import GameRules, IllegalAction, ParseError, Phrase, RuleError, RuleFlag
from companion.registry import GAMES, Game, Registry

NAME = "counter"
RULE_FLAGS = (RuleFlag("limit", 10, (5, 10, 20, 1000), "Count to reach.", "Zielzahl."),)


@dataclass(frozen=True)
class Rules:
    """The one flag: the count that ends the game."""

    limit: int = 10

    @classmethod
    def from_dict(cls, mapping: Mapping[str, object]) -> Rules:
        """Read the flags; unknown flags or values raise RuleError."""
        unknown = set(mapping) - {"limit"}
        if unknown:
            raise RuleError(f"unknown flag {sorted(unknown)[0]!r}")
        limit = int(str(mapping.get("limit", 10)))
        if limit not in (5, 10, 20, 1000):
            raise RuleError(f"limit {limit} is not one of 5, 10, 20, 1000")
        return cls(limit)

    def to_dict(self) -> dict[str, int]:
        """The flags as JSON."""
        return {"limit": self.limit}


@dataclass(frozen=True)
class Setup:
    """Players in seat order and the rules."""

    players: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setup:
        """Read a setup; needs 2+ distinct player names."""
        players = d.get("players")
        if not isinstance(players, list) or len(players) < 2 or len(set(players)) != len(players):
            raise ParseError("the counter game needs a list of 2 or more distinct players")
        if not all(isinstance(p, str) and p for p in players):
            raise ParseError("player names must be non-empty text")
        return cls(tuple(players), Rules.from_dict(d.get("rules", {})))

    def to_dict(self) -> dict[str, Any]:
        """The setup as JSON."""
        return {"players": list(self.players), "rules": self.rules.to_dict()}


@dataclass(frozen=True)
class Add:
    """``player`` adds ``amount`` to the count."""

    player: str
    amount: int


@dataclass(frozen=True)
class State:
    """The count, whose turn it is, and what each player added."""

    setup: Setup
    count: int = 0
    turn: int = 0
    added: tuple[int, ...] = ()


def event_from_dict(d: Mapping[str, Any]) -> Add:
    """Read ``{"action": "add", "player": .., "amount": ..}``."""
    if d.get("action") != "add":
        raise ParseError(f"unknown counter action {d.get('action')!r}")
    if set(d) != {"action", "player", "amount"}:
        raise ParseError("an add needs exactly player and amount")
    amount = d["amount"]
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ParseError(f"amount must be a whole number, not {amount!r}")
    if not isinstance(d["player"], str):
        raise ParseError("player must be text")
    return Add(d["player"], amount)


def event_to_dict(event: Add) -> dict[str, Any]:
    """The event as a log line."""
    return {"action": "add", "player": event.player, "amount": event.amount}


def start(setup: Setup) -> State:
    """Nothing counted yet."""
    return State(setup, added=(0,) * len(setup.players))


def is_over(state: State) -> bool:
    """Whether the limit is reached."""
    return state.count >= state.setup.rules.limit


def apply(state: State, event: Add) -> State:
    """Fold one add in, or raise IllegalAction."""
    if is_over(state):
        raise IllegalAction("the game is over")
    expected = state.setup.players[state.turn]
    if event.player != expected:
        raise IllegalAction(f"it is {expected}'s turn, not {event.player}'s")
    if not 1 <= event.amount <= 3:
        raise IllegalAction(f"{event.player} may add 1 to 3, not {event.amount}")
    added = list(state.added)
    added[state.turn] += event.amount
    return State(
        state.setup,
        state.count + event.amount,
        (state.turn + 1) % len(state.setup.players),
        tuple(added),
    )


def standings(state: State) -> dict[str, Any]:
    """Count, per-player sums and the winner once over."""
    winner = None
    if is_over(state):
        winner = state.setup.players[(state.turn - 1) % len(state.setup.players)]
    return {
        "count": state.count,
        "added": dict(zip(state.setup.players, state.added, strict=True)),
        "winner": winner,
    }


def view(state: State) -> dict[str, Any]:
    """Whose turn and the count."""
    return {
        "turn": None if is_over(state) else state.setup.players[state.turn],
        "count": state.count,
    }


def describe(event: Add) -> Phrase:
    """A short text for the history."""
    return Phrase("counter_add", {"player": event.player, "amount": event.amount})


WORDS = {"en": {"counter_add": "{player} adds {amount}"},
         "de": {"counter_add": "{player} zählt {amount} dazu"}}

# The real games and this one, as the store/domain/table tests hand it to a Table.
REGISTRY: Registry = GAMES.with_game(Game(rules=sys.modules[__name__], words=WORDS))


def games(name: str) -> GameRules:
    """Game lookup for a log reader: this module as "counter", else a real game."""
    return REGISTRY.rules(name)


def add(player: str, amount: int) -> dict[str, Any]:
    """An add action dict."""
    return {"action": "add", "player": player, "amount": amount}
