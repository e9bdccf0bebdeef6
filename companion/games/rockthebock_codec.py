"""Rock the Bock's faces, house rules, setup and events, and their JSON form (log lines).

Whether an event is legal is the engine's business (:mod:`rockthebock_engine`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games import RuleFlag
from companion.games.errors import IllegalAction, ParseError, RuleError
from companion.games.parsing import expect_keys as _expect_keys
from companion.games.parsing import text as _text

__all__ = [
    "COLOURS",
    "Choice",
    "DICE_PER_ROUND",
    "Event",
    "FACES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "Player",
    "ROUNDS",
    "RULE_FLAGS",
    "Roll",
    "Rules",
    "Setup",
    "event_from_dict",
    "event_to_dict",
]


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
        values: dict[str, Any] = {name: mapping[name] for name in mapping}
        return cls(**values)

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


