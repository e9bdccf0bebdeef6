"""Rock the Bock: the roll-and-write dice game by Inka and Markus Brand.

Each player rolls the dice they have left, takes every die of one kind that
shows and crosses that many dice off their own sheet; bocks and own-colour
goats go on their own sheet, other colours' goats on that colour's sheet and
wolves on the sheet of another player of the roller's choice. A round ends
when nobody has dice left; three rounds make a game. RULES.md section 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.games import RuleFlag
from companion.games.errors import IllegalAction, ParseError, RuleError
from companion.games.parsing import expect_keys as _expect_keys
from companion.games.parsing import text as _text

NAME = "rockthebock"

FACES = ("wolf", "bock", "goat_red", "goat_blue", "goat_green", "goat_yellow")
COLOURS = ("red", "blue", "green", "yellow")
DICE_PER_ROUND = 10
ROUNDS = 3
MIN_PLAYERS = 2
MAX_PLAYERS = len(COLOURS)

RULE_FLAGS = (
    RuleFlag(
        name="unused_colour_goats",
        default="dump",
        choices=("dump", "forbidden"),
        help_en=(
            "Goats of a colour nobody plays may be taken and crossed off without anyone "
            "recording them (dump), or may not be taken, so a roll showing nothing else is "
            "rolled again (forbidden)."
        ),
        help_de=(
            "Geißen einer Farbe, die niemand spielt, dürfen genommen und abgestrichen werden, "
            "ohne dass jemand sie einträgt („abwerfen“), oder dürfen nicht genommen werden, sodass "
            "ein Wurf mit nichts anderem wiederholt wird („verboten“)."
        ),
    ),
    RuleFlag(
        name="start_player",
        default="rotate",
        choices=("rotate", "same"),
        help_en=(
            "Each new round is started by the next player clockwise (rotate) or always by "
            "the youngest player (same)."
        ),
        help_de=(
            "Jede neue Runde beginnt der nächste Spieler im Uhrzeigersinn („reihum“) oder immer "
            "der jüngste Spieler („immer der Jüngste“)."
        ),
    ),
)

_FLAGS = {flag.name: flag for flag in RULE_FLAGS}


def _goat(colour: str) -> str:
    return f"goat_{colour}"


def round_score(bocks: int, wolves: int, goats: int) -> int:
    """Score one sheet of one round: more bocks than wolves → +goats, fewer → −goats, else 0."""
    if bocks > wolves:
        return goats
    if wolves > bocks:
        return -goats
    return 0


# ---------------------------------------------------------------------------
# Rules and setup


@dataclass(frozen=True)
class Rules:
    """The house rules in force for one game (see :data:`RULE_FLAGS`)."""

    unused_colour_goats: str = "dump"
    start_player: str = "rotate"

    def __post_init__(self) -> None:
        for name, flag in _FLAGS.items():
            value = getattr(self, name)
            if value not in flag.choices:
                choices = ", ".join(str(c) for c in flag.choices)
                raise RuleError(
                    f"rule {name!r} does not accept {value!r}; use one of: {choices}"
                )

    @classmethod
    def from_dict(cls, mapping: Mapping[str, object]) -> Rules:
        """Build rules from ``{flag: value}``; missing flags keep their default."""
        if not isinstance(mapping, Mapping):
            raise RuleError(f"rules must be a mapping of flag to value, not {mapping!r}")
        unknown = sorted(set(mapping) - set(_FLAGS))
        if unknown:
            raise RuleError(
                f"unknown Rock the Bock rule {unknown[0]!r}; known rules: {', '.join(_FLAGS)}"
            )
        return cls(**{name: mapping[name] for name in mapping})

    def to_dict(self) -> dict[str, str]:
        """Every flag with its value, defaults included, so a log states the rules in force."""
        return {name: getattr(self, name) for name in _FLAGS}


@dataclass(frozen=True)
class Player:
    """A player at the table: a name and a colour."""

    name: str
    colour: str


@dataclass(frozen=True)
class Setup:
    """Players in clockwise seat order, who is youngest (starts round 1), and the rules."""

    players: tuple[Player, ...]
    youngest: str
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= len(self.players) <= MAX_PLAYERS:
            raise ParseError(
                f"Rock the Bock needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                f"not {len(self.players)}",
                key="rtb_players", low=MIN_PLAYERS, high=MAX_PLAYERS,
            )
        names = [p.name for p in self.players]
        colours = [p.colour for p in self.players]
        for player in self.players:
            if not isinstance(player.name, str) or not player.name.strip():
                raise ParseError("every player needs a non-empty name")
            if player.colour not in COLOURS:
                raise ParseError(
                    f"{player.name}: colour {player.colour!r} is not one of {', '.join(COLOURS)}"
                )
        if len(set(names)) != len(names):
            raise ParseError(f"player names must differ: {', '.join(names)}", key="names_differ")
        if len(set(colours)) != len(colours):
            raise ParseError(f"each player needs a different colour: {', '.join(colours)}",
                             key="rtb_colours")
        if self.youngest not in names:
            raise ParseError(
                f"the youngest player {self.youngest!r} is not one of: {', '.join(names)}"
            )

    @property
    def names(self) -> tuple[str, ...]:
        """Player names in seat order."""
        return tuple(p.name for p in self.players)

    def seat(self, name: str) -> int:
        """Seat index of ``name``; raises :class:`IllegalAction` for someone not playing."""
        try:
            return self.names.index(name)
        except ValueError:
            raise IllegalAction(
                f"{name!r} is not playing; the players are {', '.join(self.names)}"
            ) from None

    def owner_of(self, kind: str) -> int | None:
        """Seat of the player whose colour a goat face shows, or None if nobody plays it."""
        for i, player in enumerate(self.players):
            if kind == _goat(player.colour):
                return i
        return None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setup:
        """Read the setup line of a game log (see :meth:`to_dict`)."""
        _expect_keys(d, required={"players", "youngest"}, optional={"rules"}, what="setup")
        raw_players = d["players"]
        if not isinstance(raw_players, list):
            raise ParseError("setup 'players' must be a list of {name, colour} objects")
        players = []
        for raw in raw_players:
            if not isinstance(raw, Mapping):
                raise ParseError(f"setup player {raw!r} must be an object with name and colour")
            _expect_keys(raw, required={"name", "colour"}, optional=set(), what="setup player")
            players.append(Player(name=_text(raw["name"], "name"), colour=raw["colour"]))
        rules = Rules.from_dict(d.get("rules", {}))
        return cls(players=tuple(players), youngest=_text(d["youngest"], "youngest"), rules=rules)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-able setup: players (seat order), youngest and every rule."""
        return {
            "players": [{"name": p.name, "colour": p.colour} for p in self.players],
            "youngest": self.youngest,
            "rules": self.rules.to_dict(),
        }


# ---------------------------------------------------------------------------
# Events


@dataclass(frozen=True)
class Roll:
    """A player rolled the dice they have left; ``faces`` counts each face that shows.

    ``faces`` is kept in :data:`FACES` order without zero counts, so equal rolls
    compare equal however they were entered.
    """

    player: str
    faces: tuple[tuple[str, int], ...]

    def __post_init__(self) -> None:
        pairs = self.faces.items() if isinstance(self.faces, Mapping) else self.faces
        counts: dict[str, int] = {}
        for face, count in pairs:
            if face not in FACES:
                raise ParseError(f"unknown face {face!r}; the faces are {', '.join(FACES)}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ParseError(f"the count of {face} must be a whole number ≥ 0, not {count!r}")
            if face in counts:
                raise ParseError(f"face {face} is counted twice")
            counts[face] = count
        if sum(counts.values()) == 0:
            raise ParseError("a roll must show at least one die")
        normal = tuple((f, counts[f]) for f in FACES if counts.get(f, 0))
        object.__setattr__(self, "faces", normal)

    @classmethod
    def of(cls, player: str, counts: Mapping[str, int]) -> Roll:
        """Build a roll from ``{face: count}``, e.g. ``Roll.of("Anna", {"bock": 3, "wolf": 1})``."""
        return cls(player=player, faces=tuple(counts.items()))

    def count(self, face: str) -> int:
        """How many dice show ``face``."""
        return dict(self.faces).get(face, 0)

    @property
    def dice(self) -> int:
        """How many dice were rolled."""
        return sum(c for _, c in self.faces)


@dataclass(frozen=True)
class Choice:
    """A player takes every die of one ``kind`` from their roll; wolves go to ``victim``."""

    player: str
    kind: str
    victim: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FACES:
            raise ParseError(f"unknown kind {self.kind!r}; the kinds are {', '.join(FACES)}")


Event = Roll | Choice


def event_from_dict(d: Mapping[str, Any]) -> Event:
    """Read one action line of a game log."""
    if not isinstance(d, Mapping):
        raise ParseError(f"an action must be a JSON object, not {d!r}")
    action = d.get("action")
    if action == "roll":
        _expect_keys(d, required={"action", "player", "faces"}, optional=set(), what="roll")
        faces = d["faces"]
        if not isinstance(faces, Mapping):
            raise ParseError('roll "faces" must be an object like {"bock": 2, "wolf": 1}')
        return Roll(player=_text(d["player"], "player"), faces=tuple(faces.items()))
    if action == "choose":
        _expect_keys(
            d, required={"action", "player", "kind"}, optional={"victim"}, what="choose"
        )
        victim = d.get("victim")
        return Choice(
            player=_text(d["player"], "player"),
            kind=_text(d["kind"], "kind"),
            victim=None if victim is None else _text(victim, "victim"),
        )
    raise ParseError(f"unknown Rock the Bock action {action!r}; use 'roll' or 'choose'")


def event_to_dict(event: Event) -> dict[str, Any]:
    """One action as a JSON-able object with an ``"action"`` key."""
    if isinstance(event, Roll):
        return {"action": "roll", "player": event.player, "faces": dict(event.faces)}
    out: dict[str, Any] = {"action": "choose", "player": event.player, "kind": event.kind}
    if event.victim is not None:
        out["victim"] = event.victim
    return out


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
            "undo the roll if it was read wrongly"
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
            "rule unused_colour_goats=forbidden does not allow to take; roll again"
        )
    by_kind = {o.kind: o for o in options}
    option = by_kind.get(choice.kind)
    allowed = ", ".join(by_kind)
    if option is None:
        if roll.count(choice.kind):
            raise IllegalAction(
                f"nobody plays {choice.kind.removeprefix('goat_')}, and the house rule "
                f"unused_colour_goats=forbidden does not allow taking those goats; "
                f"choose one of: {allowed}"
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
                f"{', '.join(option.receivers)}"
            )
        if choice.victim == choice.player:
            raise IllegalAction(
                f"{choice.player} cannot give wolves to themselves; choose one of: "
                f"{', '.join(option.receivers)}"
            )
        victim = setup.seat(choice.victim)
        sheets[victim] = replace(sheets[victim], wolves=sheets[victim].wolves + option.count)
    else:
        if choice.victim is not None:
            raise IllegalAction(
                f"only wolves go to a chosen player; {choice.kind} cannot be given to "
                f"{choice.victim}"
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


# ---------------------------------------------------------------------------
# Standings and view


def totals(state: State) -> tuple[int, ...]:
    """Each player's total over the completed rounds, in seat order."""
    n = len(state.setup.players)
    return tuple(sum(rnd[i].score for rnd in state.completed) for i in range(n))


def _best(names: tuple[str, ...], values: tuple[int, ...]) -> list[str]:
    top = max(values)
    return [name for name, value in zip(names, values, strict=True) if value == top]


def standings(state: State) -> dict[str, Any]:
    """Each sheet per round, round scores, totals and winner(s).

    ``rounds`` of a player holds the completed rounds; an unfinished round is
    shown apart as ``current`` because its score is not final. ``winners``
    stays empty until the third round is scored; ``leaders`` is always given.
    """
    setup = state.setup
    sums = totals(state)
    players = []
    for i, player in enumerate(setup.players):
        entry: dict[str, Any] = {
            "name": player.name,
            "colour": player.colour,
            "rounds": [rnd[i].to_dict() for rnd in state.completed],
            "total": sums[i],
        }
        if not state.over:
            entry["current"] = state.sheets[i].to_dict()
        players.append(entry)
    return {
        "game": NAME,
        "rounds_played": len(state.completed),
        "over": state.over,
        "players": players,
        "leaders": _best(setup.names, sums),
        "winners": _best(setup.names, sums) if state.over else [],
    }


def view(state: State) -> dict[str, Any]:
    """The live picture for the dashboard: turn, dice left, pending roll and its options."""
    setup = state.setup
    turn = None if state.turn is None else setup.players[state.turn]
    pending = state.pending
    return {
        "game": NAME,
        "round": state.round_no,
        "rounds": ROUNDS,
        "over": state.over,
        "starter": setup.players[state.starter].name,
        "turn": None if turn is None else {"name": turn.name, "colour": turn.colour},
        "phase": None if state.over else ("choose" if pending is not None else "roll"),
        "dice_left": {
            p.name: (0 if state.over else state.sheets[i].dice_left)
            for i, p in enumerate(setup.players)
        },
        "pending_roll": None if pending is None else dict(pending.faces),
        "choices": [o.to_dict() for o in legal_choices(state)],
        "reroll": needs_reroll(state),
        "standings": standings(state),
        "rules": [
            {
                "name": flag.name,
                "value": getattr(setup.rules, flag.name),
                "default": flag.default,
                "help_en": flag.help_en,
                "help_de": flag.help_de,
            }
            for flag in RULE_FLAGS
        ],
    }


# ---------------------------------------------------------------------------
# Descriptions

LANGUAGES = ("en", "de")

# face → (singular, plural) per language; German plural after a number is strong
# ("5 rote Geißen"), after the article weak ("die roten Geißen").
_WORDS = {
    "en": {"wolf": ("wolf", "wolves"), "bock": ("bock", "bocks")},
    "de": {"wolf": ("Wolf", "Wölfe"), "bock": ("Bock", "Böcke")},
}
_COLOUR_WORDS = {
    "red": ("red", "rot"), "blue": ("blue", "blau"),
    "green": ("green", "grün"), "yellow": ("yellow", "gelb"),
}


def _counted(face: str, count: int, language: str) -> str:
    if face.startswith("goat_"):
        en, de = _COLOUR_WORDS[face.removeprefix("goat_")]
        if language == "de":
            return f"{count} {de}e Geiß" + ("en" if count != 1 else "")
        return f"{count} {en} goat" + ("s" if count != 1 else "")
    singular, plural = _WORDS[language][face]
    return f"{count} {singular if count == 1 else plural}"


def _the(face: str, language: str) -> str:
    if face.startswith("goat_"):
        en, de = _COLOUR_WORDS[face.removeprefix("goat_")]
        return f"die {de}en Geißen" if language == "de" else f"the {en} goats"
    plural = _WORDS[language][face][1]
    return f"die {plural}" if language == "de" else f"the {plural}"


def describe(event: Event, language: str = "en") -> str:
    """A one-line account of a roll or a choice, in English (``en``) or German (``de``)."""
    if language not in LANGUAGES:
        raise ParseError(f"unknown language {language!r}; use one of: {', '.join(LANGUAGES)}")
    de = language == "de"
    if isinstance(event, Roll):
        parts = [_counted(face, count, language) for face, count in event.faces]
        joined = parts[0] if len(parts) == 1 else (
            ", ".join(parts[:-1]) + (" und " if de else " and ") + parts[-1]
        )
        return f"{event.player} würfelt {joined}." if de else f"{event.player} rolls {joined}."
    taken = _the(event.kind, language)
    if event.victim is not None:
        if de:
            return f"{event.player} nimmt {taken} und gibt sie {event.victim}."
        return f"{event.player} takes {taken} and gives them to {event.victim}."
    return f"{event.player} nimmt {taken}." if de else f"{event.player} takes {taken}."
