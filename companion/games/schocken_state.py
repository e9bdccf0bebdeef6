"""Schocken's state: where a game stands between two events, and the game before the first.

Frozen dataclasses only -- the round's entries, each player's counters, the last round's
result, the tab -- plus :func:`start` and the helpers that begin a half or the Finale.
How an event changes a state is :mod:`schocken_engine`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.games.schocken_codec import Setup
from companion.games.schocken_rules import Rules
from companion.games.schocken_throws import Throw

__all__ = [
    "FINALE",
    "Entry",
    "Part",
    "PlayerStats",
    "RoundResult",
    "State",
    "TabEntry",
    "is_over",
    "start",
    "start_part",
    "takes_part",
    "turn_order",
]

FINALE = "finale"

Part = int | str  # 1, 2 or FINALE


@dataclass(frozen=True)
class Entry:
    """One player's turn in the current round (``throw`` None while hidden)."""

    player: str
    throws: int
    throw: Throw | None
    turned: int = 0


@dataclass(frozen=True)
class PlayerStats:
    """What the table wants to know about one player after the game."""

    halves_lost: int = 0
    finale_lost: int = 0
    schock_aus: int = 0
    schocks: int = 0
    handschocks: int = 0
    generals: int = 0
    strassen: int = 0
    deckel_received: int = 0
    rounds_lost: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able, with the Handschock rate (None before the first Schock)."""
        rate = round(self.handschocks / self.schocks, 3) if self.schocks else None
        return {
            "halves_lost": self.halves_lost,
            "finale_lost": self.finale_lost,
            "schock_aus": self.schock_aus,
            "schocks": self.schocks,
            "handschocks": self.handschocks,
            "handschock_rate": rate,
            "generals": self.generals,
            "strassen": self.strassen,
            "deckel_received": self.deckel_received,
            "rounds_lost": self.rounds_lost,
        }


@dataclass(frozen=True)
class RoundResult:
    """A finished round: the ranking and where the Deckel went."""

    part: Part
    number: int
    phase: int
    ranking: tuple[Entry, ...]
    deckel: int
    source: str  # "middle", the giving player's name, or "schock_aus"
    loser: str
    ended_part: bool
    starter: str | None = None


@dataclass(frozen=True)
class TabEntry:
    """One line of the club tab: who owes for which lost half."""

    player: str
    part: Part
    amount: int | float


@dataclass(frozen=True)
class State:
    """Everything about a Schocken game at one moment; replaying its events rebuilds it."""

    setup: Setup
    part: Part
    half_players: tuple[str, ...]
    deckel: tuple[int, ...]
    middle: int
    phase: int
    round_number: int
    starter: str | None
    turn_order: tuple[str, ...]
    entries: tuple[Entry, ...]
    half_losers: tuple[str, ...]
    game_loser: str | None
    durchmarsch: bool
    stats: tuple[PlayerStats, ...]
    tab: tuple[TabEntry, ...]
    last_round: RoundResult | None
    rounds_played: int
    rounds: tuple[RoundResult, ...] = ()  # every finished round, for the scoreboard

    @property
    def rules(self) -> Rules:
        """The house rules in force."""
        return self.setup.rules

    def deckel_of(self, player: str) -> int:
        """How many Deckel ``player`` holds."""
        return self.deckel[self.setup.players.index(player)]

    @property
    def to_throw(self) -> str | None:
        """Who throws next (None while a reveal is awaited or the game is over)."""
        if self.game_loser is not None or len(self.entries) == len(self.turn_order):
            return None
        return self.turn_order[len(self.entries)]

    @property
    def awaiting_reveal(self) -> str | None:
        """The first player whose hidden throw must be revealed to end the round, if any."""
        if (
            self.game_loser is None
            and self.entries
            and len(self.entries) == len(self.turn_order)
            and self.entries[0].throw is None
        ):
            return self.entries[0].player
        return None

    @property
    def throw_limit(self) -> int | None:
        """Throws each later player may use this round (None until the first player threw)."""
        return self.entries[0].throws if self.entries else None


def takes_part(state_setup: Setup, half_players: tuple[str, ...], deckel: tuple[int, ...],
               phase: int) -> tuple[str, ...]:
    """Who throws in ``phase`` of the half (phase 2 without ``reentry``: Deckel holders)."""
    if phase == 1 or state_setup.rules.reentry:
        return half_players
    seats = state_setup.players
    return tuple(p for p in half_players if deckel[seats.index(p)] > 0)


def turn_order(setup: Setup, starter: str, players: tuple[str, ...]) -> tuple[str, ...]:
    """``players`` in seat order, beginning with ``starter``."""
    seats = setup.players
    first = seats.index(starter)
    around = seats[first:] + seats[:first]
    return tuple(p for p in around if p in players)


def start_part(state: State, part: Part, players: tuple[str, ...], starter: str) -> State:
    """All Deckel back in the middle; ``players`` take part; ``starter`` throws first."""
    deckel = (0,) * len(state.setup.players)
    return replace(
        state,
        part=part,
        half_players=players,
        deckel=deckel,
        middle=state.rules.deckel,
        phase=1,
        round_number=1,
        starter=starter,
        turn_order=turn_order(state.setup, starter, players),
        entries=(),
    )


def start(setup: Setup) -> State:
    """The game before the first throw: half 1, all Deckel in the middle."""
    blank = State(
        setup=setup,
        part=1,
        half_players=setup.players,
        deckel=(0,) * len(setup.players),
        middle=setup.rules.deckel,
        phase=1,
        round_number=1,
        starter=setup.starter,
        turn_order=(),
        entries=(),
        half_losers=(),
        game_loser=None,
        durchmarsch=False,
        stats=(PlayerStats(),) * len(setup.players),
        tab=(),
        last_round=None,
        rounds_played=0,
    )
    return start_part(blank, 1, setup.players, setup.starter)


def is_over(state: State) -> bool:
    """True once the game has a loser."""
    return state.game_loser is not None
