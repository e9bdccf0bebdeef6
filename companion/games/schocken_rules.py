"""Schocken house-rule flags (RULES.md section 1) and the frozen :class:`Rules` value.

Flags whose ``choices`` are empty take a free value of the default's kind:
``deckel`` a whole number, ``tab_amount`` a non-negative decimal, ``tab_unit`` text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from companion.games import RuleFlag
from companion.games.errors import ParseError, RuleError
from companion.games.parsing import decimal_text, whole_number

RULE_FLAGS: tuple[RuleFlag, ...] = (
    RuleFlag(
        name="deckel",
        default=13,
        choices=(),
        help_en="How many Deckel (penalty lids) are in the game; 13 in the original rules.",
        help_de="Wie viele Deckel (Strafsteine) im Spiel sind; 13 nach der Originalregel.",
    ),
    RuleFlag(
        name="straights",
        default="seed",
        choices=("seed", "all_runs"),
        help_en=(
            "Only 4-5-6 and 1-2-3 are a Straße (seed), or 3-4-5 and 2-3-4 too (all_runs)."
        ),
        help_de=(
            "Nur 4-5-6 und 1-2-3 sind eine Straße („Original“) "
            "oder auch 3-4-5 und 2-3-4 („alle Folgen“)."
        ),
    ),
    RuleFlag(
        name="general_beats_schock_2",
        default=False,
        choices=(False, True),
        help_en="Every General ranks above a Schock 2 (a regional custom).",
        help_de="Jeder General schlägt einen Schock 2 (regionaler Brauch).",
    ),
    RuleFlag(
        name="straight_general_must_be_hand",
        default=False,
        choices=(False, True),
        help_en="A Straße or General that was assembled (not from the hand) counts as normal.",
        help_de="Eine zusammengewürfelte Straße oder ein solcher General zählt als normaler Wurf.",
    ),
    RuleFlag(
        name="handschock",
        default="tiebreak",
        choices=("tiebreak", "above_all", "off"),
        help_en=(
            "A Handschock beats an assembled Schock of the same value (tiebreak), beats every "
            "assembled Schock except Schock aus (above_all), or counts the same (off)."
        ),
        help_de=(
            "Ein Handschock schlägt einen zusammengewürfelten Schock gleichen Werts "
            "(„bei Gleichstand“), jeden zusammengewürfelten Schock außer Schock aus "
            "(„über allen“) oder zählt gleich („aus“)."
        ),
    ),
    RuleFlag(
        name="tie_fewer_throws_first",
        default=False,
        choices=(False, True),
        help_en="Between equal throws, the one made with fewer throws ranks higher.",
        help_de="Bei gleichen Würfen gewinnt, wer weniger Würfe gebraucht hat.",
    ),
    RuleFlag(
        name="turn_sixes",
        default=False,
        choices=(False, True),
        help_en=(
            "Two sixes may be turned into a 1 kept aside (three sixes into two 1s) while a "
            "throw remains; the result is never from the hand."
        ),
        help_de=(
            "Zwei Sechsen dürfen zu einer beiseitegelegten 1 gedreht werden (drei zu zwei "
            "Einsen), solange ein Wurf übrig ist; das Ergebnis ist nie aus der Hand."
        ),
    ),
    RuleFlag(
        name="reentry",
        default=False,
        choices=(False, True),
        help_en=(
            "Players without Deckel keep throwing once the middle is empty and come back in "
            "by losing a round; otherwise they leave the half."
        ),
        help_de=(
            "Spieler ohne Deckel würfeln weiter, wenn die Mitte leer ist, und steigen durch "
            "eine verlorene Runde wieder ein; sonst scheiden sie für die Hälfte aus."
        ),
    ),
    RuleFlag(
        name="tab_amount",
        default=0,
        choices=(),
        help_en="Club tab: what each lost half (or Finale) costs its loser; 0 keeps no tab.",
        help_de="Vereinskasse: was jede verlorene Hälfte (oder das Finale) kostet; 0 = keine.",
    ),
    RuleFlag(
        name="tab_unit",
        default="",
        choices=(),
        help_en="Club tab: the unit of the amount, e.g. € or 'round of drinks'.",
        help_de="Vereinskasse: die Einheit des Betrags, z. B. € oder „Runde“.",
    ),
)

_FLAGS = {flag.name: flag for flag in RULE_FLAGS}
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_TAB_UNIT_MAX = 40
_DECKEL_MAX = 999
# A club tab per lost half; anything above is a typo (or someone at the next table).
_TAB_AMOUNT_MAX = 9999


def _as_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise RuleError(f"rule {name!r} takes true or false, not {value!r}")


def _as_deckel(value: object) -> int:
    try:
        return whole_number(value, "rule 'deckel'", 1, _DECKEL_MAX)
    except ParseError as exc:
        raise RuleError(str(exc)) from None


def _as_amount(value: object) -> int | float:
    try:
        amount = decimal_text(value, "rule 'tab_amount'", _TAB_AMOUNT_MAX)
    except ParseError as exc:
        raise RuleError(str(exc)) from None
    return int(amount) if amount == amount.to_integral_value() else float(amount)


@dataclass(frozen=True)
class Rules:
    """The house rules in force for one Schocken game (see :data:`RULE_FLAGS`)."""

    deckel: int = 13
    straights: str = "seed"
    general_beats_schock_2: bool = False
    straight_general_must_be_hand: bool = False
    handschock: str = "tiebreak"
    tie_fewer_throws_first: bool = False
    turn_sixes: bool = False
    reentry: bool = False
    tab_amount: int | float = 0
    tab_unit: str = ""

    def __post_init__(self) -> None:
        # Re-validate so a Rules built in code is as sound as one read from a log.
        for name, flag in _FLAGS.items():
            value = getattr(self, name)
            if isinstance(flag.default, bool) and not isinstance(value, bool):
                raise RuleError(f"rule {name!r} takes true or false, not {value!r}")
            if flag.choices and value not in flag.choices:
                raise RuleError(
                    f"rule {name!r} does not accept {value!r}; use one of: "
                    + ", ".join(str(c).lower() for c in flag.choices)
                )
        if self.deckel != _as_deckel(self.deckel):
            raise RuleError(f"rule 'deckel' takes a whole number, not {self.deckel!r}")
        _as_amount(self.tab_amount)
        if not isinstance(self.tab_unit, str) or len(self.tab_unit) > _TAB_UNIT_MAX:
            raise RuleError(f"rule 'tab_unit' takes text of at most {_TAB_UNIT_MAX} characters")

    @classmethod
    def from_dict(cls, mapping: Mapping[str, object]) -> Rules:
        """Build rules from ``{flag: value}``; strings as the CLI gives them are accepted.

        Missing flags keep their default. Raises :class:`RuleError` for an unknown
        flag or a value the flag does not take.
        """
        if not isinstance(mapping, Mapping):
            raise RuleError(f"rules must be a mapping of flag to value, not {mapping!r}")
        values: dict[str, Any] = {}
        for name, raw in mapping.items():
            flag = _FLAGS.get(name)
            if flag is None:
                raise RuleError(
                    f"unknown Schocken rule {name!r}; known rules: {', '.join(_FLAGS)}"
                )
            if name == "deckel":
                values[name] = _as_deckel(raw)
            elif name == "tab_amount":
                values[name] = _as_amount(raw)
            elif name == "tab_unit":
                if not isinstance(raw, str):
                    raise RuleError(f"rule 'tab_unit' takes text such as €, not {raw!r}")
                values[name] = raw.strip()
            elif isinstance(flag.default, bool):
                values[name] = _as_bool(name, raw)
            else:
                value = str(raw).strip().lower() if isinstance(raw, str) else raw
                if value not in flag.choices:
                    raise RuleError(
                        f"rule {name!r} does not accept {raw!r}; use one of: "
                        + ", ".join(str(c) for c in flag.choices),
                        key="rule_value", rule=name,
                    )
                values[name] = value
        return cls(**values)

    def to_dict(self) -> dict[str, object]:
        """Every flag with its value, JSON-able."""
        return asdict(self)

    @property
    def keeps_tab(self) -> bool:
        """True when the club tab is switched on (a non-zero amount per lost half)."""
        return self.tab_amount != 0
