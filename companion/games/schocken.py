"""Schocken ("Angry Dice Schocken"): rounds, Deckel, halves, Finale -- RULES.md section 1.

Pure rules: frozen state, frozen events, and :func:`apply` folding one event into
the state. The throw values and THE ranking live in :mod:`schocken_throws`, the
house-rule flags in :mod:`schocken_rules`; both are re-exported here.

Recording a turn
    Only a player's final dice are recorded, as :class:`ThrowRecorded`: the player,
    how many throws they used (1-3), the :class:`Throw` (with its hand status) and,
    under ``turn_sixes``, how many of its 1s were turned from sixes. :func:`apply`
    checks every event, so a log read from disk is held to the same rules.

The first player's hidden third throw (RULES.md, round rule 3)
    When the round's first player uses all three throws, their dice stay under the
    cup until the round ends. The companion records ``ThrowRecorded(player,
    throws=3, throw=None)`` at once: that fixes the limit for everyone after them
    (3) without the dice. When every other player has thrown, the round waits for
    :class:`ThrowRevealed` with the dice and only then is ranked and scored. Dice
    that are already known may also be recorded directly with the throw.

``reentry`` (RULES.md only fixes the default, false)
    false: once the middle is empty only Deckel holders throw; a player left with
    0 Deckel is out of the half. true: every player of the half keeps throwing in
    phase 2; a player without Deckel who loses a round comes back in by receiving
    Deckel. As such a player has nothing to give, the Deckel then come from the
    best-ranked player of the round who holds any (capped by what that player has).

``turn_sixes``
    The engine sees only the final dice, so it checks what those can show: turned
    1s need the flag, at least two throws (a throw must remain after turning), at
    most two turned dice, as many 1s in the result, and the throw cannot be from
    the hand (a turned die is kept aside).

The club tab (flags ``tab_amount``, ``tab_unit``) charges the loser of each half and
of the Finale (the Finale is played as a half).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.games.errors import IllegalAction, ParseError
from companion.games.schocken_rules import RULE_FLAGS, Rules
from companion.games.schocken_throws import (
    Throw,
    ThrowClass,
    classify,
    full_order,
    hand_matters,
    rank_key,
    rank_throws,
)

__all__ = [
    "NAME",
    "RULE_FLAGS",
    "Entry",
    "PlayerStats",
    "RoundResult",
    "Rules",
    "Setup",
    "State",
    "TabEntry",
    "Throw",
    "ThrowClass",
    "ThrowRecorded",
    "ThrowRevealed",
    "apply",
    "classify",
    "describe",
    "event_from_dict",
    "event_to_dict",
    "full_order",
    "hand_matters",
    "is_over",
    "rank_key",
    "rank_throws",
    "ranked_entries",
    "standings",
    "start",
    "view",
]

NAME = "schocken"
MIN_PLAYERS = 2
WARN_ABOVE = 10
FINALE = "finale"

Part = int | str  # 1, 2 or FINALE


# ---------------------------------------------------------------------------
# Setup


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


# ---------------------------------------------------------------------------
# Events


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


LANGUAGES = ("en", "de")


def describe(event: Event, language: str = "en") -> str:
    """A one-line account of a recorded turn, in English (``en``) or German (``de``)."""
    if language not in LANGUAGES:
        raise ParseError(f"unknown language {language!r}; use one of: {', '.join(LANGUAGES)}")
    de = language == "de"
    if isinstance(event, ThrowRecorded) and event.throw is None:
        if de:
            return f"{event.player} würfelt dreimal; der dritte Wurf bleibt unter dem Becher."
        return f"{event.player} throws 3 times; the third throw stays under the cup."
    throw = event.throw
    assert throw is not None  # a hidden throw was told above
    dice = str(Throw(throw.dice))
    how = (" aus der Hand" if de else " from the hand") if throw.hand else ""
    turned = ""
    if event.turned:
        turned = (f", {event.turned} gedreht" if de else f", {event.turned} turned from sixes")
    if isinstance(event, ThrowRevealed):
        if de:
            return f"{event.player} deckt auf: {dice}{how}{turned}."
        return f"{event.player} reveals {dice}{how}{turned}."
    if de:
        count = "1 Wurf" if event.throws == 1 else f"{event.throws} Würfe"
    else:
        count = "1 throw" if event.throws == 1 else f"{event.throws} throws"
    return f"{event.player}: {dice}{how} ({count}{turned})."


# ---------------------------------------------------------------------------
# State


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


def _takes_part(state_setup: Setup, half_players: tuple[str, ...], deckel: tuple[int, ...],
                phase: int) -> tuple[str, ...]:
    if phase == 1 or state_setup.rules.reentry:
        return half_players
    seats = state_setup.players
    return tuple(p for p in half_players if deckel[seats.index(p)] > 0)


def _turn_order(setup: Setup, starter: str, players: tuple[str, ...]) -> tuple[str, ...]:
    seats = setup.players
    first = seats.index(starter)
    around = seats[first:] + seats[:first]
    return tuple(p for p in around if p in players)


def _start_part(state: State, part: Part, players: tuple[str, ...], starter: str) -> State:
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
        turn_order=_turn_order(state.setup, starter, players),
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
    return _start_part(blank, 1, setup.players, setup.starter)


def is_over(state: State) -> bool:
    """True once the game has a loser."""
    return state.game_loser is not None


# ---------------------------------------------------------------------------
# Validation


def _times(n: int) -> str:
    return "1 time" if n == 1 else f"{n} times"


def _check_can_throw(state: State, player: str) -> None:
    if state.game_loser is not None:
        raise IllegalAction(
            f"the game is over ({state.game_loser} lost); start a new game to play on",
            key="game_over", loser=state.game_loser,
        )
    if player not in state.setup.players:
        raise IllegalAction(
            f"{player!r} is not playing; players: {', '.join(state.setup.players)}",
            key="not_playing", player=player, players=", ".join(state.setup.players),
        )
    reveal = state.awaiting_reveal
    if reveal is not None:
        raise IllegalAction(
            f"everyone has thrown; {reveal} must reveal the hidden third throw first",
            key="reveal_first", player=reveal,
        )
    expected = state.to_throw
    if player == expected:
        return
    if player not in state.half_players:
        where = "the Finale" if state.part == FINALE else f"half {state.part}"
        raise IllegalAction(f"{player} is not playing in {where}; it is {expected}'s turn",
                            key="not_in_part", player=player, expected=expected)
    if player not in state.turn_order:
        raise IllegalAction(
            f"{player} has no Deckel and is out of this half; it is {expected}'s turn",
            key="out_of_half", player=player, expected=expected,
        )
    if any(e.player == player for e in state.entries):
        raise IllegalAction(f"{player} has already thrown this round; it is {expected}'s turn",
                            key="thrown_already", player=player, expected=expected)
    raise IllegalAction(f"it is {expected}'s turn, not {player}'s", key="not_your_turn",
                        player=player, expected=expected)


def _check_dice(state: State, player: str, throws: int, throw: Throw, turned: int) -> None:
    if throws == 1 and not throw.hand:
        raise IllegalAction(
            f"{player} used 1 throw, so all three dice came from the hand: mark it as a "
            f"hand throw ({Throw(throw.dice, hand=True)})",
            key="one_throw_is_hand", player=player,
        )
    if turned not in (0, 1, 2) or isinstance(turned, bool):
        raise IllegalAction(
            f"{player} turned {turned!r} dice: at most two 1s can come from turned sixes"
        )
    if turned == 0:
        return
    if not state.rules.turn_sixes:
        raise IllegalAction(
            f"{player} turned sixes into 1s, but that is not allowed (rule turn_sixes=false)",
            key="turn_sixes_off", player=player,
        )
    if throws < 2:
        raise IllegalAction(
            f"{player} turned sixes into 1s but used only 1 throw: sixes may only be turned "
            "while a throw remains",
            key="turn_needs_throw", player=player,
        )
    if throw.hand:
        raise IllegalAction(
            f"{player} turned sixes into 1s, so the throw cannot be from the hand: a turned "
            "die is kept aside",
            key="turned_not_hand", player=player,
        )
    if turned > throw.ones:
        raise IllegalAction(
            f"{player} turned {turned} dice into 1s but the throw {throw} shows {throw.ones}",
            key="turned_too_many", player=player, n=turned, ones=throw.ones,
        )


def _validate(state: State, event: Event) -> None:
    if isinstance(event, ThrowRecorded):
        _check_can_throw(state, event.player)
        if not (isinstance(event.throws, int) and 1 <= event.throws <= 3):
            raise IllegalAction(f"a turn has 1 to 3 throws; {event.player} cannot use "
                                f"{event.throws!r}")
        limit = state.throw_limit
        if limit is not None and event.throws > limit:
            raise IllegalAction(
                f"{event.player} may throw at most {_times(limit)} this round: "
                f"{state.entries[0].player}, who started, used {limit}",
                key="throw_limit", player=event.player, n=limit, starter=state.entries[0].player,
            )
        if event.throw is None:
            if state.entries or event.throws != 3:
                raise IllegalAction(
                    "only the round's first player keeps a throw hidden, and only a third "
                    f"throw; record {event.player}'s dice",
                    key="hidden_only_first", player=event.player,
                )
            if event.turned:
                raise IllegalAction("a hidden throw has no dice yet; give turned with reveal")
        else:
            _check_dice(state, event.player, event.throws, event.throw, event.turned)
    elif isinstance(event, ThrowRevealed):
        if state.game_loser is not None:
            raise IllegalAction(
                f"the game is over ({state.game_loser} lost); there is nothing to reveal",
                key="game_over", loser=state.game_loser,
            )
        waiting = state.awaiting_reveal
        if waiting is None:
            hidden = state.entries[0].player if state.entries and state.entries[0].throw is None \
                else None
            if hidden is None:
                raise IllegalAction("no hidden throw is waiting to be revealed",
                                    key="nothing_hidden")
            raise IllegalAction(
                f"{hidden}'s hidden throw is revealed when the round ends; "
                f"it is {state.to_throw}'s turn",
                key="reveal_later", player=hidden, expected=state.to_throw,
            )
        if event.player != waiting:
            raise IllegalAction(f"only {waiting} has a hidden throw to reveal, not {event.player}",
                                key="reveal_other", player=event.player, expected=waiting)
        _check_dice(state, event.player, 3, event.throw, event.turned)
    else:
        raise IllegalAction(f"not a Schocken event: {event!r}")


# ---------------------------------------------------------------------------
# Folding


def _count_throw(stats: PlayerStats, throw: Throw, rules: Rules) -> PlayerStats:
    cls = classify(throw, rules)
    is_schock = cls.kind in ("schock", "schock_aus")
    return replace(
        stats,
        schock_aus=stats.schock_aus + (cls.kind == "schock_aus"),
        schocks=stats.schocks + is_schock,
        handschocks=stats.handschocks + (is_schock and throw.hand),
        generals=stats.generals + (cls.kind == "general"),
        strassen=stats.strassen + (cls.kind == "strasse"),
    )


def _with_stats(state: State, player: str, stats: PlayerStats) -> tuple[PlayerStats, ...]:
    seat = state.setup.players.index(player)
    return state.stats[:seat] + (stats,) + state.stats[seat + 1:]


def ranked_entries(entries: tuple[Entry, ...], rules: Rules) -> tuple[Entry, ...]:
    """The revealed entries best first (turn order breaks ties; hidden ones are left out)."""
    shown = [e for e in entries if e.throw is not None]
    order = rank_throws([e.throw for e in shown], rules, [e.throws for e in shown])  # type: ignore[misc]
    return tuple(shown[i] for i in order)


def _deckel_move(state: State, ranking: tuple[Entry, ...]) -> tuple[str, int, str | None]:
    """(source, count, giver) of the Deckel the round's loser receives."""
    rules = state.rules
    best, loser = ranking[0], ranking[-1].player
    cls = classify(best.throw, rules)  # type: ignore[arg-type]
    if cls.kind == "schock_aus":
        return "schock_aus", rules.deckel - state.deckel_of(loser), None
    if state.phase == 1:
        return "middle", min(cls.deckel, state.middle), None
    giver = next(e.player for e in ranking if e.player != loser and state.deckel_of(e.player) > 0)
    return giver, min(cls.deckel, state.deckel_of(giver)), giver


def _resolve_round(state: State) -> State:
    rules = state.rules
    ranking = ranked_entries(state.entries, rules)
    loser = ranking[-1].player
    source, count, giver = _deckel_move(state, ranking)
    seats = state.setup.players
    deckel = list(state.deckel)
    middle = state.middle
    if source == "schock_aus":
        deckel = [0] * len(seats)
        middle = 0
        deckel[seats.index(loser)] = rules.deckel
    elif source == "middle":
        middle -= count
        deckel[seats.index(loser)] += count
    else:
        deckel[seats.index(giver)] -= count  # type: ignore[arg-type]
        deckel[seats.index(loser)] += count
    seat = seats.index(loser)
    old = state.stats[seat]
    stats = _with_stats(state, loser, replace(
        old, rounds_lost=old.rounds_lost + 1, deckel_received=old.deckel_received + count
    ))
    ended = deckel[seat] == rules.deckel
    result = RoundResult(state.part, state.round_number, state.phase, ranking, count, source,
                         loser, ended, state.starter)
    state = replace(state, deckel=tuple(deckel), middle=middle, stats=stats, last_round=result,
                    rounds_played=state.rounds_played + 1, entries=(),
                    rounds=(*state.rounds, result))
    if ended:
        return _end_part(state, loser)
    phase = 1 if middle > 0 else 2
    players = _takes_part(state.setup, state.half_players, state.deckel, phase)
    return replace(state, phase=phase, round_number=state.round_number + 1, starter=loser,
                   turn_order=_turn_order(state.setup, loser, players))


def _end_part(state: State, loser: str) -> State:
    seat = state.setup.players.index(loser)
    old = state.stats[seat]
    if state.part == FINALE:
        stats = replace(old, finale_lost=old.finale_lost + 1)
    else:
        stats = replace(old, halves_lost=old.halves_lost + 1)
    tab = state.tab
    if state.rules.keeps_tab:
        tab = tab + (TabEntry(loser, state.part, state.rules.tab_amount),)
    state = replace(state, stats=_with_stats(state, loser, stats), tab=tab)
    if state.part == 1:
        state = replace(state, half_losers=(loser,))
        return _start_part(state, 2, state.setup.players, loser)
    if state.part == 2:
        first = state.half_losers[0]
        state = replace(state, half_losers=(first, loser))
        if first == loser:
            return _game_over(replace(state, durchmarsch=True), loser)
        finalists = tuple(p for p in state.setup.players if p in (first, loser))
        return _start_part(state, FINALE, finalists, loser)
    return _game_over(state, loser)


def _game_over(state: State, loser: str) -> State:
    return replace(state, game_loser=loser, starter=None, turn_order=(), entries=())


def apply(state: State, event: Event) -> State:
    """Validate ``event`` against ``state`` and return the state after it.

    Raises :class:`IllegalAction` with the reason; ``state`` itself never changes.
    """
    _validate(state, event)
    rules = state.rules
    if isinstance(event, ThrowRecorded):
        entry = Entry(event.player, event.throws, event.throw, event.turned)
        entries = state.entries + (entry,)
        stats = state.stats
        if event.throw is not None:
            seat = state.setup.players.index(event.player)
            stats = _with_stats(state, event.player,
                                _count_throw(state.stats[seat], event.throw, rules))
        state = replace(state, entries=entries, stats=stats)
    else:
        first = state.entries[0]
        entry = replace(first, throw=event.throw, turned=event.turned)
        seat = state.setup.players.index(event.player)
        stats = _with_stats(state, event.player,
                            _count_throw(state.stats[seat], event.throw, rules))
        state = replace(state, entries=(entry,) + state.entries[1:], stats=stats)
    if len(state.entries) == len(state.turn_order) and state.entries[0].throw is not None:
        return _resolve_round(state)
    return state


# ---------------------------------------------------------------------------
# Views


def _part_name(part: Part) -> str:
    return "the Finale" if part == FINALE else f"half {part}"


def _deckel_by_half(state: State) -> list[dict[str, Any]]:
    """Deckel each player received in each half (and the Finale) so far, halves in order."""
    parts: dict[Part, dict[str, int]] = {}
    for result in state.rounds:
        received = parts.setdefault(result.part, dict.fromkeys(state.setup.players, 0))
        received[result.loser] += result.deckel
    return [{"half": part, "received": received} for part, received in parts.items()]


def _round_row(result: RoundResult, rules: Rules) -> dict[str, Any]:
    """One line of the round-by-round scoreboard: who started, best, worst, Deckel moved."""
    started = next((e for e in result.ranking if e.player == result.starter), None)
    return {
        "half": result.part,
        "round": result.number,
        "phase": result.phase,
        "starter": result.starter,
        "throws": None if started is None else started.throws,
        "best": _entry_dict(result.ranking[0], rules, 1),
        "worst": _entry_dict(result.ranking[-1], rules, len(result.ranking)),
        "loser": result.loser,
        "deckel": result.deckel,
        "from": "everyone" if result.source == "schock_aus" else result.source,
        "ended_half": result.ended_part,
    }


def _entry_dict(entry: Entry, rules: Rules, place: int | None) -> dict[str, Any]:
    if entry.throw is None:
        return {"player": entry.player, "throws": entry.throws, "hidden": True, "place": None}
    cls = classify(entry.throw, rules)
    return {
        "player": entry.player,
        "place": place,
        "dice": list(entry.throw.dice),
        "text": str(entry.throw),
        "class": cls.kind,
        "label": cls.label,
        "deckel": cls.deckel,
        "hand": entry.throw.hand,
        "hand_matters": hand_matters(entry.throw, rules),
        "throws": entry.throws,
        "turned": entry.turned,
        "hidden": False,
    }


def _tab_dict(state: State) -> dict[str, Any] | None:
    rules = state.rules
    if not rules.keeps_tab:
        return None
    totals: dict[str, int | float] = {p: 0 for p in state.setup.players}
    for line in state.tab:
        totals[line.player] += line.amount
    return {
        "amount": rules.tab_amount,
        "unit": rules.tab_unit,
        "ledger": [{"player": t.player, "half": t.part, "amount": t.amount} for t in state.tab],
        "totals": totals,
    }


def standings(state: State) -> dict[str, Any]:
    """Deckel, halves, Finale, game loser, statistics and the club tab, JSON-able."""
    players = state.setup.players
    return {
        "game": NAME,
        "players": list(players),
        "deckel": dict(zip(players, state.deckel, strict=True)),
        "middle": state.middle,
        "half": state.part,
        "over": is_over(state),
        "half_losers": list(state.half_losers),
        "finale_players": list(state.half_players) if state.part == FINALE else [],
        "durchmarsch": state.durchmarsch,
        "game_loser": state.game_loser,
        "rounds_played": state.rounds_played,
        "statistics": {p: s.to_dict() for p, s in zip(players, state.stats, strict=True)},
        "tab": _tab_dict(state),
    }


def _would_receive(state: State) -> dict[str, Any] | None:
    # Provisional by nature: rounds are scored as soon as the last throw is known,
    # so this only ever looks at a round still missing throws or a hidden one.
    ranking = ranked_entries(state.entries, state.rules)
    if len(ranking) < 2:
        return None
    source, count, _ = _deckel_move(state, ranking)
    return {
        "player": ranking[-1].player,
        "deckel": count,
        "from": "everyone" if source == "schock_aus" else source,
        "schock_aus": source == "schock_aus",
    }


def view(state: State) -> dict[str, Any]:
    """What the dashboard shows live: whose turn, limits, ranked throws, Deckel, rules."""
    rules = state.rules
    seats = state.setup.players
    ranking = ranked_entries(state.entries, rules)
    ranked = [_entry_dict(e, rules, i + 1) for i, e in enumerate(ranking)]
    ranked += [_entry_dict(e, rules, None) for e in state.entries if e.throw is None]
    warnings = []
    if len(seats) > WARN_ABOVE:
        warnings.append(
            f"{len(seats)} players: Schocken is meant for at most {WARN_ABOVE}; rounds get long"
        )
    last = state.last_round
    return {
        "game": NAME,
        "over": is_over(state),
        "game_loser": state.game_loser,
        "half": state.part,
        "half_name": _part_name(state.part),
        "phase": state.phase,
        "round": state.round_number,
        "middle": state.middle,
        "players": [
            {
                "name": p,
                "deckel": d,
                "in_half": p in state.half_players,
                "active": p in state.turn_order,
                "thrown": any(e.player == p for e in state.entries),
            }
            for p, d in zip(seats, state.deckel, strict=True)
        ],
        "active_players": list(state.turn_order),
        "starter": state.starter,
        "to_throw": state.to_throw,
        "awaiting_reveal": state.awaiting_reveal,
        "throws_left": (3 if state.throw_limit is None else state.throw_limit)
        if state.to_throw is not None else 0,
        "throw_limit": state.throw_limit,
        "throws": ranked,
        "would_receive": _would_receive(state) if not is_over(state) else None,
        "last_round": None if last is None else {
            "half": last.part,
            "round": last.number,
            "phase": last.phase,
            "ranking": [_entry_dict(e, rules, i + 1) for i, e in enumerate(last.ranking)],
            "loser": last.loser,
            "deckel": last.deckel,
            "from": "everyone" if last.source == "schock_aus" else last.source,
            "ended_half": last.ended_part,
        },
        "rounds": [_round_row(r, rules) for r in state.rounds],
        "deckel_by_half": _deckel_by_half(state),
        "half_losers": list(state.half_losers),
        "durchmarsch": state.durchmarsch,
        "rules": rules.to_dict(),
        "rule_help": {f.name: {"en": f.help_en, "de": f.help_de} for f in RULE_FLAGS},
        "warnings": warnings,
    }
