"""Schocken throws: the :class:`Throw` value, its class and Deckel value, and THE ranking.

Everything that orders throws (a round's winner and loser, ``companion rank``, the
dashboard) asks :func:`rank_key` / :func:`rank_throws`; nothing else ranks throws.

Text form: three dice joined by ``-`` in any order, e.g. ``1-1-4``; a trailing ``h``
marks a throw whose final throw threw all three dice together ("from the hand"),
e.g. ``1-1-4h``. ``str()`` writes Schocks ones first (``1-1-4``) and every other
throw high to low (``6-5-4``), the way the table says them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement

from companion.games.errors import ParseError
from companion.games.schocken_rules import Rules

KINDS = ("schock_aus", "schock", "general", "strasse", "normal")
_LABELS = {
    "schock_aus": "Schock aus",
    "schock": "Schock",
    "general": "General",
    "strasse": "Straße",
    "normal": "normal",
}
_SEED_STRAIGHTS = ((6, 5, 4), (3, 2, 1))
# Schocken is played with three dice: a throw is three dice, and the camera never sees more.
DICE = 3
_HOW_TO_WRITE = "write three dice 1 to 6 like 1-1-4, with h for a throw from the hand: 1-1-4h"


@dataclass(frozen=True)
class Throw:
    """The three dice a player ends a turn with, and whether the final throw was from the hand.

    ``dice`` is stored high to low, so two throws of the same dice compare equal
    whatever order they were entered in.
    """

    dice: tuple[int, int, int]
    hand: bool = False

    def __post_init__(self) -> None:
        try:
            dice = tuple(self.dice)
        except TypeError:
            raise ParseError(f"{self.dice!r} is not a throw: {_HOW_TO_WRITE}") from None
        if len(dice) != DICE or not all(
            isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
        ):
            raise ParseError(f"{self.dice!r} is not a throw: {_HOW_TO_WRITE}")
        if not isinstance(self.hand, bool):
            raise ParseError(f"hand must be true or false, not {self.hand!r}")
        object.__setattr__(self, "dice", tuple(sorted(dice, reverse=True)))

    @classmethod
    def parse(cls, text: str) -> Throw:
        """Read ``"1-1-4"`` or ``"1-1-4h"``; raises :class:`ParseError` saying how to write it."""
        raw = text.strip().lower()
        hand = raw.endswith("h")
        parts = (raw[:-1] if hand else raw).split("-")
        if len(parts) != DICE or not all(p in ("1", "2", "3", "4", "5", "6") for p in parts):
            raise ParseError(f"{text!r} is not a throw: {_HOW_TO_WRITE}")
        return cls((int(parts[0]), int(parts[1]), int(parts[2])), hand=hand)

    def __str__(self) -> str:
        high, mid, low = self.dice
        # Schocks are said ones first ("eins-eins-vier"); everything else high to low.
        shown = (low, mid, high) if mid == 1 else (high, mid, low)
        return "-".join(str(d) for d in shown) + ("h" if self.hand else "")

    def __repr__(self) -> str:
        return f"Throw({self.dice!r}, hand={self.hand!r})"

    @property
    def ones(self) -> int:
        """How many dice show a 1."""
        return self.dice.count(1)


@dataclass(frozen=True)
class ThrowClass:
    """What a throw counts as under some rules, and the Deckel it sets when it is best."""

    kind: str
    value: int
    deckel: int
    handschock: bool

    @property
    def label(self) -> str:
        """Table name: ``Schock aus``, ``Schock 4``, ``General``, ``Straße`` or ``normal``."""
        if self.kind == "schock":
            return f"Schock {self.value}"
        return _LABELS[self.kind]


def _is_straight(dice: tuple[int, int, int], rules: Rules) -> bool:
    if rules.straights == "seed":
        return dice in _SEED_STRAIGHTS
    return dice[0] - 1 == dice[1] and dice[1] - 1 == dice[2]


def classify(throw: Throw, rules: Rules) -> ThrowClass:
    """The class of ``throw`` under ``rules`` and how many Deckel it sets as the best throw.

    Schock aus sets "all Deckel in play", which is always the configured total.
    """
    dice = throw.dice
    if throw.ones == 3:
        return ThrowClass("schock_aus", 1, rules.deckel, throw.hand)
    if throw.ones == 2:
        return ThrowClass("schock", dice[0], dice[0], throw.hand)
    counts_as_special = throw.hand or not rules.straight_general_must_be_hand
    if counts_as_special and dice[0] == dice[2]:
        return ThrowClass("general", dice[0], 3, False)
    if counts_as_special and _is_straight(dice, rules):
        return ThrowClass("strasse", dice[0], 2, False)
    return ThrowClass("normal", dice[0] * 100 + dice[1] * 10 + dice[2], 1, False)


def hand_matters(throw: Throw, rules: Rules) -> bool:
    """True when ``rules`` rank this throw differently from the hand than assembled."""
    if throw.ones >= 2:
        return rules.handschock != "off"
    if rules.straight_general_must_be_hand:
        return classify(Throw(throw.dice, hand=True), rules).kind != "normal"
    return False


# Bands of the rank key, best first. Generals sit in their own band so that
# general_beats_schock_2 can move Schock 2 below them without renumbering.
_SCHOCK_AUS, _SCHOCK, _GENERAL, _SCHOCK_BELOW_GENERAL, _STRASSE, _NORMAL = 7, 6, 5, 4, 3, 2


def rank_key(throw: Throw, rules: Rules) -> tuple[int, int, int]:
    """A key that is larger for a better throw and equal exactly for throws that tie.

    Under ``handschock=above_all`` with ``general_beats_schock_2`` every Handschock
    stays above every assembled Schock, so only the *assembled* Schock 2 drops below
    the Generals (a hand Schock 2 above them would otherwise need a General to beat
    an assembled Schock 3 too).
    """
    cls = classify(throw, rules)
    hand_bit = int(throw.hand) if rules.handschock != "off" else 0
    if cls.kind == "schock_aus":
        return (_SCHOCK_AUS, hand_bit, 0)
    if cls.kind == "schock":
        # above_all: hand status outranks the value; otherwise it only breaks a tie.
        above_all = rules.handschock == "above_all"
        key = (hand_bit, cls.value) if above_all else (cls.value, hand_bit)
        below = (
            rules.general_beats_schock_2
            and cls.value == 2
            and not (rules.handschock == "above_all" and throw.hand)
        )
        return (_SCHOCK_BELOW_GENERAL if below else _SCHOCK, *key)
    band = {"general": _GENERAL, "strasse": _STRASSE, "normal": _NORMAL}[cls.kind]
    return (band, cls.value, 0)


def full_order(rules: Rules) -> tuple[Throw, ...]:
    """Every distinct throw best first: the 56 dice combinations, split by hand where it matters.

    A throw whose hand status does not matter appears once, with ``hand=False``.
    """
    throws: list[Throw] = []
    for combo in combinations_with_replacement(range(1, 7), 3):
        assembled = Throw(combo)
        throws.append(assembled)
        if hand_matters(assembled, rules):
            throws.append(Throw(combo, hand=True))
    return tuple(sorted(throws, key=lambda t: rank_key(t, rules), reverse=True))


def rank_throws(
    throws: Sequence[Throw],
    rules: Rules,
    throws_used: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """Indexes of ``throws`` best first, as a round ranks them.

    ``throws`` are in turn order; equal throws rank the later one lower. With
    ``tie_fewer_throws_first`` and ``throws_used`` given, fewer throws win a tie first.
    """
    def key(i: int) -> tuple[object, ...]:
        rank = tuple(-k for k in rank_key(throws[i], rules))
        fewer = throws_used[i] if (rules.tie_fewer_throws_first and throws_used) else 0
        return (*rank, fewer, i)

    return tuple(sorted(range(len(throws)), key=key))

