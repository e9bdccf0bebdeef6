"""Kacken auf Wacken: the festival card game, scored in Wacken-Bändchen (wristbands).

No dice here: the companion keeps the wristband tally and does the arithmetic
of an Abrocken that tables get wrong. Gigfaktor = songs of the band on stage ×
every beer before the stage; each participant's Fanfaktor = matching Rock!
cards + 1 per matching song; wristbands = Gigfaktor × Fanfaktor.
RULES.md section 3 and seeds/kacken-auf-wacken.txt.

The setup, the events and their log lines are in :mod:`wacken_codec`, re-exported
here; this module is the engine (the Abrocken arithmetic, the state, :func:`apply`),
the standings and view, and the history lines.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.games.errors import IllegalAction, ParseError
from companion.games.phrase import Phrase
from companion.games.wacken_codec import (
    GAME_END_REASONS,
    INITIATOR_BEERS,
    MIN_PLAYERS,
    NAME,
    RULE_FLAGS,
    Abrocken,
    AbrockenCancelled,
    Event,
    GameEnd,
    Participant,
    Rules,
    Setup,
    event_from_dict,
    event_to_dict,
)

__all__ = [
    "Abrocken",
    "AbrockenCancelled",
    "AbrockenResult",
    "Entry",
    "Event",
    "FanScore",
    "GAME_END_REASONS",
    "GameEnd",
    "INITIATOR_BEERS",
    "MIN_PLAYERS",
    "NAME",
    "Participant",
    "RULE_FLAGS",
    "Rules",
    "Setup",
    "State",
    "abrocken_result",
    "apply",
    "check_abrocken",
    "describe",
    "event_from_dict",
    "event_to_dict",
    "is_over",
    "preview",
    "standings",
    "start",
    "view",
]


@dataclass(frozen=True)
class FanScore:
    """One participant's share: Fanfaktor = cards + songs, wristbands = Gigfaktor × Fanfaktor."""

    player: str
    cards: int
    songs: int
    fanfaktor: int
    wristbands: int


@dataclass(frozen=True)
class AbrockenResult:
    """An Abrocken worked out, with every number the table wants to check."""

    band: str
    songs_on_stage: int
    beers: int
    gigfaktor: int
    fans: tuple[FanScore, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able arithmetic: each product also as a short formula like ``2 × 3 = 6``."""
        return {
            "band": self.band,
            "songs_on_stage": self.songs_on_stage,
            "beers": self.beers,
            "gigfaktor": self.gigfaktor,
            "gigfaktor_formula": f"{self.songs_on_stage} × {self.beers} = {self.gigfaktor}",
            "fans": [
                {
                    "player": f.player,
                    "cards": f.cards,
                    "songs": f.songs,
                    "fanfaktor": f.fanfaktor,
                    "fanfaktor_formula": f"{f.cards} + {f.songs} = {f.fanfaktor}",
                    "wristbands": f.wristbands,
                    "wristbands_formula": f"{self.gigfaktor} × {f.fanfaktor} = {f.wristbands}",
                }
                for f in self.fans
            ],
        }


def check_abrocken(abrocken: Abrocken) -> None:
    """Raise :class:`IllegalAction` when the Abrocken breaks a rule of the game.

    The initiator must be among the participants and put down 1 or 2 beers;
    everyone needs ≥ 1 matching Rock! card and ≥ 1 beer; nobody comes twice;
    a matching song is one of the player's matching cards and one of the
    band's songs on stage, so it counts at most either number.
    """
    if abrocken.songs_on_stage < 1:
        raise IllegalAction(
            f"{abrocken.band} has no songs on stage; an Abrocken needs the band on a stage "
            "with at least one On-Stage card",
            key="wk_no_songs", band=abrocken.band,
        )
    names = [p.player for p in abrocken.participants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise IllegalAction(f"{twice[0]} is listed twice at {abrocken.band}; list each player once",
                            key="wk_twice", player=twice[0])
    if abrocken.initiator not in names:
        raise IllegalAction(
            f"the initiator {abrocken.initiator} must be among the participants with their beers",
            key="wk_initiator_joins", player=abrocken.initiator,
        )
    for p in abrocken.participants:
        if p.player == abrocken.initiator and p.beers not in INITIATOR_BEERS:
            raise IllegalAction(
                f"{p.player} started the Abrocken and puts 1 or 2 beers before the stage, "
                f"not {p.beers}",
                key="wk_initiator_beers", player=p.player,
            )
        if p.beers < 1:
            raise IllegalAction(f"{p.player} needs at least one beer to come to {abrocken.band}",
                                key="wk_beer", player=p.player, band=abrocken.band)
        if p.cards < 1:
            raise IllegalAction(
                f"{p.player} needs at least one matching Rock! card of {abrocken.band} to come",
                key="wk_card", player=p.player, band=abrocken.band,
            )
        if p.songs > abrocken.songs_on_stage:
            raise IllegalAction(
                f"{p.player} cannot match {p.songs} songs: {abrocken.band} has only "
                f"{abrocken.songs_on_stage} on stage",
                key="wk_songs_stage", player=p.player, n=abrocken.songs_on_stage,
            )
        if p.songs > p.cards:
            raise IllegalAction(
                f"{p.player} cannot match {p.songs} songs with {p.cards} matching cards; "
                "a matching song is one of the player's Rock! cards",
                key="wk_songs_cards", player=p.player, songs=p.songs, cards=p.cards,
            )


def abrocken_result(abrocken: Abrocken) -> AbrockenResult:
    """Work out an Abrocken: Gigfaktor, each Fanfaktor and each share of wristbands.

    Raises :class:`IllegalAction` when the Abrocken breaks a rule (:func:`check_abrocken`).
    """
    check_abrocken(abrocken)
    beers = sum(p.beers for p in abrocken.participants)
    gig = abrocken.songs_on_stage * beers
    fans = tuple(
        FanScore(p.player, p.cards, p.songs, p.cards + p.songs, gig * (p.cards + p.songs))
        for p in abrocken.participants
    )
    return AbrockenResult(abrocken.band, abrocken.songs_on_stage, beers, gig, fans)


def preview(event: Event) -> dict[str, Any]:
    """What an Abrocken would score, worked out without recording it (the calculator).

    Raises ParseError for any other event, IllegalAction when the Abrocken breaks a rule.
    """
    if not isinstance(event, Abrocken):
        raise ParseError("only an Abrocken has a result to preview")
    return abrocken_result(event).to_dict()


# ---------------------------------------------------------------------------
# State


@dataclass(frozen=True)
class Entry:
    """One recorded action and, for a scored Abrocken, its worked-out result."""

    event: Event
    result: AbrockenResult | None = None


@dataclass(frozen=True)
class State:
    """The wristband tally (seat order), the history, and why the game ended, if it did."""

    setup: Setup
    wristbands: tuple[int, ...]
    history: tuple[Entry, ...] = ()
    end_reason: str | None = None


def start(setup: Setup) -> State:
    """Nobody has a wristband yet."""
    return State(setup=setup, wristbands=tuple(0 for _ in setup.players))


def is_over(state: State) -> bool:
    """True once a deck ran out."""
    return state.end_reason is not None


def apply(state: State, event: Event) -> State:
    """Validate ``event`` against ``state`` and return the new state.

    Raises :class:`IllegalAction` with a readable reason; ``state`` is never changed.
    """
    if state.end_reason is not None:
        raise IllegalAction(
            f"the game is over ({GAME_END_REASONS[state.end_reason]}); nothing more is scored",
            key="wk_over", reason=Phrase(f"wk_reason_{state.end_reason}"),
        )
    setup = state.setup
    if isinstance(event, GameEnd):
        return replace(state, history=(*state.history, Entry(event)), end_reason=event.reason)
    setup.seat(event.initiator)
    if isinstance(event, AbrockenCancelled):
        return replace(state, history=(*state.history, Entry(event)))
    for p in event.participants:
        setup.seat(p.player)
    result = abrocken_result(event)
    tally = list(state.wristbands)
    for fan in result.fans:
        tally[setup.seat(fan.player)] += fan.wristbands
    return replace(state, wristbands=tuple(tally), history=(*state.history, Entry(event, result)))


# ---------------------------------------------------------------------------
# Standings and view


def _leaders(state: State) -> list[str]:
    top = max(state.wristbands)
    return [n for n, w in zip(state.setup.players, state.wristbands, strict=True) if w == top]


def standings(state: State) -> dict[str, Any]:
    """Wristbands per player, leader(s), and once over the reason and winner(s)."""
    joined = [0] * len(state.setup.players)
    for entry in state.history:
        if entry.result is not None:
            for fan in entry.result.fans:
                joined[state.setup.seat(fan.player)] += 1
    return {
        "game": NAME,
        "players": [
            {"name": name, "wristbands": bands, "abrocken": count}
            for name, bands, count in zip(state.setup.players, state.wristbands, joined,
                                          strict=True)
        ],
        "leaders": _leaders(state),
        "over": is_over(state),
        "reason": state.end_reason,
        "winners": _leaders(state) if is_over(state) else [],
    }


def describe(event: Event) -> Phrase:
    """A one-line account of a recorded action as a :class:`Phrase`.

    A scored Abrocken is told with its arithmetic; one that breaks a rule raises
    :class:`IllegalAction` (:func:`check_abrocken`).
    """
    if isinstance(event, GameEnd):
        return Phrase("hist_wk_end", {"reason": Phrase(f"wk_reason_{event.reason}")})
    if isinstance(event, AbrockenCancelled):
        return Phrase("hist_wk_cancelled", {"player": event.initiator, "band": event.band})
    result = abrocken_result(event)
    shares = tuple(Phrase("hist_wk_share", {"player": f.player, "gig": result.gigfaktor,
                                            "fan": f.fanfaktor, "bands": f.wristbands})
                   for f in result.fans)
    return Phrase("hist_wk_abrocken", {
        "player": event.initiator, "band": result.band,
        "songs": Phrase("hist_wk_songs", {"n": result.songs_on_stage}),
        "beers": Phrase("hist_wk_beers", {"n": result.beers}),
        "gig": result.gigfaktor, "shares": shares,
    })


def view(state: State) -> dict[str, Any]:
    """The live picture for the dashboard: tally, the last Abrocken's arithmetic, history."""
    last = next((e.result for e in reversed(state.history) if e.result is not None), None)
    return {
        "game": NAME,
        "over": is_over(state),
        "reason": state.end_reason,
        "tally": [
            {"name": n, "wristbands": w}
            for n, w in zip(state.setup.players, state.wristbands, strict=True)
        ],
        "leaders": _leaders(state),
        "last_abrocken": None if last is None else last.to_dict(),
        "history": [
            {
                "n": i,
                "action": event_to_dict(e.event)["action"],
                "text": describe(e.event).to_dict(),
            }
            for i, e in enumerate(state.history, start=1)
        ],
        "rules": [],
    }


