"""Rock the Bock's engine: the sheets, the legal choices and :func:`apply` (RULES.md 2).

Pure: frozen state; :func:`apply` never changes the state it is given and raises
:class:`IllegalAction` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.games.errors import IllegalAction
from companion.games.phrase import Phrase
from companion.games.rockthebock_codec import DICE_PER_ROUND, ROUNDS, Choice, Event, Roll, Setup

__all__ = [
    "Option",
    "Sheet",
    "State",
    "apply",
    "is_over",
    "legal_choices",
    "needs_reroll",
    "round_score",
    "start",
]


def round_score(bocks: int, wolves: int, goats: int) -> int:
    """Score one sheet of one round: more bocks than wolves → +goats, fewer → −goats, else 0."""
    if bocks > wolves:
        return goats
    if wolves > bocks:
        return -goats
    return 0




# ---------------------------------------------------------------------------
# State


@dataclass(frozen=True)
class Sheet:
    """One player's sheet in one round: animals recorded and dice crossed off."""

    bocks: int = 0
    wolves: int = 0
    goats: int = 0
    crossed: int = 0

    @property
    def score(self) -> int:
        """The round score this sheet gives (:func:`round_score`)."""
        return round_score(self.bocks, self.wolves, self.goats)

    @property
    def dice_left(self) -> int:
        """Dice the player may still roll this round."""
        return DICE_PER_ROUND - self.crossed

    def to_dict(self) -> dict[str, int]:
        """JSON-able sheet, with ``score`` and ``dice_left``."""
        return {
            "bocks": self.bocks,
            "wolves": self.wolves,
            "goats": self.goats,
            "crossed": self.crossed,
            "dice_left": self.dice_left,
            "score": self.score,
        }


@dataclass(frozen=True)
class State:
    """Everything known about a game: a frozen value, replaced by :func:`apply`.

    ``sheets`` are the current round's sheets in seat order; ``completed``
    holds the sheets of finished rounds. ``turn`` is the seat to act (None once
    the game is over); ``pending`` the roll that still awaits a choice.
    """

    setup: Setup
    round_no: int
    starter: int
    turn: int | None
    sheets: tuple[Sheet, ...]
    completed: tuple[tuple[Sheet, ...], ...] = ()
    pending: Roll | None = None

    @property
    def over(self) -> bool:
        """True once three rounds are played."""
        return len(self.completed) == ROUNDS


def start(setup: Setup) -> State:
    """The state before the youngest player's first roll."""
    first = setup.seat(setup.youngest)
    return State(
        setup=setup,
        round_no=1,
        starter=first,
        turn=first,
        sheets=tuple(Sheet() for _ in setup.players),
    )


def is_over(state: State) -> bool:
    """True once the third round has been scored."""
    return state.over


# ---------------------------------------------------------------------------
# Legal choices


@dataclass(frozen=True)
class Option:
    """One kind the roller may take from the pending roll, and where the animals go.

    ``receivers`` are the players who may get the animals: the roller for bocks
    and own goats, the colour's owner for other goats, every other player for
    wolves (the roller picks one), nobody for dumped goats of an unused colour.
    ``record`` says which column they go in: ``bocks``, ``wolves``, ``goats`` or
    None when dumped.
    """

    player: str
    kind: str
    count: int
    receivers: tuple[str, ...]
    record: str | None

    def choice(self, victim: str | None = None) -> Choice:
        """The :class:`Choice` event taking this option (``victim`` for wolves)."""
        return Choice(player=self.player, kind=self.kind, victim=victim)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able option for the dashboard."""
        return {
            "kind": self.kind,
            "count": self.count,
            "receivers": list(self.receivers),
            "record": self.record,
            "choose_receiver": self.kind == "wolf",
        }


def _option(setup: Setup, roller: int, kind: str, count: int) -> Option | None:
    name = setup.players[roller].name
    if kind == "wolf":
        others = tuple(p.name for i, p in enumerate(setup.players) if i != roller)
        return Option(name, kind, count, others, "wolves")
    if kind == "bock":
        return Option(name, kind, count, (name,), "bocks")
    owner = setup.owner_of(kind)
    if owner is not None:
        return Option(name, kind, count, (setup.players[owner].name,), "goats")
    if setup.rules.unused_colour_goats == "forbidden":
        return None
    return Option(name, kind, count, (), None)


def legal_choices(state: State) -> tuple[Option, ...]:
    """Every kind the roller may take from the pending roll (empty when nothing is pending).

    Under ``unused_colour_goats=forbidden`` a roll may leave no option at all:
    the player must roll again and the next roll replaces this one.
    """
    roll = state.pending
    if roll is None or state.turn is None:
        return ()
    options = (_option(state.setup, state.turn, face, count) for face, count in roll.faces)
    return tuple(o for o in options if o is not None)


def needs_reroll(state: State) -> bool:
    """True when the pending roll offers no legal choice and must be rolled again."""
    return state.pending is not None and not legal_choices(state)


# ---------------------------------------------------------------------------
# Folding events into state


def apply(state: State, event: Event) -> State:
    """Validate ``event`` against ``state`` and return the new state.

    Raises :class:`IllegalAction` with a readable reason; ``state`` is never changed.
    """
    if state.over or state.turn is None:
        raise IllegalAction("the game is over after three rounds; start a new game",
                            key="rtb_over")
    setup = state.setup
    actor = setup.seat(event.player)
    expected = setup.players[state.turn].name
    if actor != state.turn:
        verb = "choose" if state.pending is not None else "roll"
        raise IllegalAction(f"it is {expected}'s turn to {verb}, not {event.player}'s",
                            key="not_your_turn", player=event.player, expected=expected)
    if isinstance(event, Roll):
        return _apply_roll(state, event)
    return _apply_choice(state, event)


def _apply_roll(state: State, roll: Roll) -> State:
    if state.pending is not None and not needs_reroll(state):
        kinds = ", ".join(o.kind for o in legal_choices(state))
        raise IllegalAction(
            f"{roll.player} has rolled already and must now take one kind ({kinds}); "
            "undo the roll if it was read wrongly",
            key="rtb_choose_first", player=roll.player,
            kinds=tuple(Phrase(f"face_{o.kind}") for o in legal_choices(state)),
        )
    assert state.turn is not None  # apply() returned early when the game is over
    left = state.sheets[state.turn].dice_left
    if roll.dice != left:
        raise IllegalAction(
            f"{roll.player} has {left} dice left this round, but the roll shows {roll.dice}; "
            "count the dice again",
            key="rtb_dice_left", player=roll.player, n=left, shown=roll.dice,
        )
    return replace(state, pending=roll)


def _apply_choice(state: State, choice: Choice) -> State:
    setup = state.setup
    roll = state.pending
    roller = state.turn
    assert roller is not None  # apply() returned early when the game is over
    if roll is None:
        raise IllegalAction(f"{choice.player} must roll before choosing a kind",
                            key="rtb_roll_first", player=choice.player)
    options = legal_choices(state)
    if not options:
        raise IllegalAction(
            f"{choice.player}'s roll shows only goats of colours nobody plays, which the house "
            "rule unused_colour_goats=forbidden does not allow to take; roll again",
            key="rtb_only_unplayed", player=choice.player,
        )
    by_kind = {o.kind: o for o in options}
    option = by_kind.get(choice.kind)
    allowed = ", ".join(by_kind)
    if option is None:
        if roll.count(choice.kind):
            raise IllegalAction(
                f"nobody plays {choice.kind.removeprefix('goat_')}, and the house rule "
                f"unused_colour_goats=forbidden does not allow taking those goats; "
                f"choose one of: {allowed}",
                key="rtb_unplayed_forbidden",
                colour=Phrase(f"colour_{choice.kind.removeprefix('goat_')}"),
            )
        raise IllegalAction(
            f"{choice.player}'s roll shows no {choice.kind}; choose one of: {allowed}",
            key="rtb_not_shown", player=choice.player,
        )
    sheets = list(state.sheets)
    if choice.kind == "wolf":
        if choice.victim is None:
            raise IllegalAction(
                f"say who gets {choice.player}'s {option.count} wolves: "
                f"{', '.join(option.receivers)}",
                key="rtb_say_victim", player=choice.player, n=option.count,
                receivers=Phrase("list_or", {"items": option.receivers}),
            )
        if choice.victim == choice.player:
            raise IllegalAction(
                f"{choice.player} cannot give wolves to themselves; choose one of: "
                f"{', '.join(option.receivers)}",
                key="rtb_wolves_self", player=choice.player,
                receivers=Phrase("list_or", {"items": option.receivers}),
            )
        victim = setup.seat(choice.victim)
        sheets[victim] = replace(sheets[victim], wolves=sheets[victim].wolves + option.count)
    else:
        if choice.victim is not None:
            raise IllegalAction(
                f"only wolves go to a chosen player; {choice.kind} cannot be given to "
                f"{choice.victim}",
                key="rtb_only_wolves_given", kind=Phrase(f"hist_rtb_the_{choice.kind}"),
                victim=choice.victim,
            )
        if option.record is not None:
            receiver = setup.seat(option.receivers[0])
            sheet = sheets[receiver]
            column = option.record
            sheets[receiver] = replace(sheet, **{column: getattr(sheet, column) + option.count})
    sheets[roller] = replace(sheets[roller], crossed=sheets[roller].crossed + option.count)
    return _advance(replace(state, sheets=tuple(sheets), pending=None))


def _advance(state: State) -> State:
    """Pass the turn clockwise to the next player with dice, or end the round."""
    n = len(state.sheets)
    assert state.turn is not None
    for step in range(1, n + 1):
        seat = (state.turn + step) % n
        if state.sheets[seat].dice_left > 0:
            return replace(state, turn=seat)
    completed = (*state.completed, state.sheets)
    if len(completed) == ROUNDS:
        return replace(state, completed=completed, turn=None, sheets=())
    starter = state.starter
    if state.setup.rules.start_player == "rotate":
        starter = (starter + 1) % n
    return replace(
        state,
        completed=completed,
        round_no=state.round_no + 1,
        starter=starter,
        turn=starter,
        sheets=tuple(Sheet() for _ in range(n)),
    )


