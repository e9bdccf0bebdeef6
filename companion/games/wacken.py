"""Kacken auf Wacken: the festival card game, scored in Wacken-Bändchen (wristbands).

No dice here: the companion keeps the wristband tally and does the arithmetic
of an Abrocken that tables get wrong. Gigfaktor = songs of the band on stage ×
every beer before the stage; each participant's Fanfaktor = matching Rock!
cards + 1 per matching song; wristbands = Gigfaktor × Fanfaktor.
RULES.md section 3 and seeds/kacken-auf-wacken.txt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.games import RuleFlag
from companion.games.errors import IllegalAction, ParseError, RuleError
from companion.games.parsing import count as _count
from companion.games.parsing import expect_keys as _expect_keys
from companion.games.parsing import text as _text

NAME = "wacken"
MIN_PLAYERS = 2

# RULES.md lists no house rules for Kacken auf Wacken.
RULE_FLAGS: tuple[RuleFlag, ...] = ()

GAME_END_REASONS = {
    "rock_deck_empty": ("the Rock! deck is empty", "der Rock!-Stapel ist leer"),
    "on_stage_deck_empty": ("the On-Stage deck is empty", "der On-Stage-Stapel ist leer"),
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


# ---------------------------------------------------------------------------
# The arithmetic of an Abrocken


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
                "a matching song is one of the player's Rock! cards"
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
            f"the game is over ({GAME_END_REASONS[state.end_reason][0]}); nothing more is scored"
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


LANGUAGES = ("en", "de")


def _language(language: str) -> int:
    if language not in LANGUAGES:
        raise ParseError(f"unknown language {language!r}; use one of: {', '.join(LANGUAGES)}")
    return LANGUAGES.index(language)


def describe(event: Event, language: str = "en") -> str:
    """A one-line account of a recorded action, in English (``en``) or German (``de``).

    A scored Abrocken is told with its arithmetic; one that breaks a rule
    raises :class:`IllegalAction` (:func:`check_abrocken`).
    """
    de = _language(language) == 1
    if isinstance(event, GameEnd):
        reason = GAME_END_REASONS[event.reason][int(de)]
        return f"Spielende: {reason}." if de else f"Game over: {reason}."
    if isinstance(event, AbrockenCancelled):
        if de:
            return (f"Abrocken von {event.initiator} bei {event.band} fällt aus: Kack-Karte am "
                    "Bierstand, keine Bändchen.")
        return (f"{event.initiator}'s Abrocken at {event.band} is off: a Kack card on the "
                "beer run, nothing scored.")
    result = abrocken_result(event)
    shares = ", ".join(f"{f.player} {result.gigfaktor} × {f.fanfaktor} = {f.wristbands}"
                       for f in result.fans)
    if de:
        return (f"{event.initiator} rockt bei {result.band} ab: {result.songs_on_stage} Songs × "
                f"{result.beers} Bier = {result.gigfaktor}; {shares}.")
    return (f"{event.initiator} rocks out at {result.band}: {result.songs_on_stage} songs × "
            f"{result.beers} beers = {result.gigfaktor}; {shares}.")


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
                "text": {lang: describe(e.event, lang) for lang in LANGUAGES},
            }
            for i, e in enumerate(state.history, start=1)
        ],
        "rules": [],
    }

