"""Schocken throws: notation, classes, Deckel values and the golden 56-throw orders.

The expected orders are written out by hand from RULES.md section 1 and the seed,
never produced by the engine. ``h`` marks a throw from the hand; it appears only
where the rules in force rank hand and assembled differently.
"""

from __future__ import annotations

import itertools

import pytest

from companion.games.errors import ParseError, RuleError
from companion.games.schocken import Rules, Throw, classify, full_order, rank_key, rank_throws

# The 43 normal throws of the seed rules, read high to low as a number.
NORMALS = """
6-6-5 6-6-4 6-6-3 6-6-2 6-6-1  6-5-5 6-5-3 6-5-2 6-5-1  6-4-4 6-4-3 6-4-2 6-4-1
6-3-3 6-3-2 6-3-1  6-2-2 6-2-1
5-5-4 5-5-3 5-5-2 5-5-1  5-4-4 5-4-3 5-4-2 5-4-1  5-3-3 5-3-2 5-3-1  5-2-2 5-2-1
4-4-3 4-4-2 4-4-1  4-3-3 4-3-2 4-3-1  4-2-2 4-2-1
3-3-2 3-3-1  3-2-2
2-2-1
"""

SEED_DEFAULT = """
1-1-1h 1-1-1
1-1-6h 1-1-6 1-1-5h 1-1-5 1-1-4h 1-1-4 1-1-3h 1-1-3 1-1-2h 1-1-2
6-6-6 5-5-5 4-4-4 3-3-3 2-2-2
6-5-4 3-2-1
""" + NORMALS

HANDSCHOCK_OFF = """
1-1-1
1-1-6 1-1-5 1-1-4 1-1-3 1-1-2
6-6-6 5-5-5 4-4-4 3-3-3 2-2-2
6-5-4 3-2-1
""" + NORMALS

HANDSCHOCK_ABOVE_ALL = """
1-1-1h 1-1-1
1-1-6h 1-1-5h 1-1-4h 1-1-3h 1-1-2h
1-1-6 1-1-5 1-1-4 1-1-3 1-1-2
6-6-6 5-5-5 4-4-4 3-3-3 2-2-2
6-5-4 3-2-1
""" + NORMALS

ALL_RUNS = """
1-1-1h 1-1-1
1-1-6h 1-1-6 1-1-5h 1-1-5 1-1-4h 1-1-4 1-1-3h 1-1-3 1-1-2h 1-1-2
6-6-6 5-5-5 4-4-4 3-3-3 2-2-2
6-5-4 5-4-3 4-3-2 3-2-1
""" + NORMALS.replace("5-4-3", "").replace("4-3-2", "")

GENERAL_BEATS_SCHOCK_2 = """
1-1-1h 1-1-1
1-1-6h 1-1-6 1-1-5h 1-1-5 1-1-4h 1-1-4 1-1-3h 1-1-3
6-6-6 5-5-5 4-4-4 3-3-3 2-2-2
1-1-2h 1-1-2
6-5-4 3-2-1
""" + NORMALS

# Assembled Generals and Straßen fall among the normal throws by their number.
MUST_BE_HAND = """
1-1-1h 1-1-1
1-1-6h 1-1-6 1-1-5h 1-1-5 1-1-4h 1-1-4 1-1-3h 1-1-3 1-1-2h 1-1-2
6-6-6h 5-5-5h 4-4-4h 3-3-3h 2-2-2h
6-5-4h 3-2-1h
6-6-6 6-6-5 6-6-4 6-6-3 6-6-2 6-6-1  6-5-5 6-5-4 6-5-3 6-5-2 6-5-1  6-4-4 6-4-3 6-4-2 6-4-1
6-3-3 6-3-2 6-3-1  6-2-2 6-2-1
5-5-5 5-5-4 5-5-3 5-5-2 5-5-1  5-4-4 5-4-3 5-4-2 5-4-1  5-3-3 5-3-2 5-3-1  5-2-2 5-2-1
4-4-4 4-4-3 4-4-2 4-4-1  4-3-3 4-3-2 4-3-1  4-2-2 4-2-1
3-3-3 3-3-2 3-3-1  3-2-2 3-2-1
2-2-2 2-2-1
"""

# My reading of above_all + general_beats_schock_2: every Handschock stays above every
# assembled Schock, so only the assembled Schock 2 drops below the Generals.
ABOVE_ALL_AND_GENERAL = """
1-1-1h 1-1-1
1-1-6h 1-1-5h 1-1-4h 1-1-3h 1-1-2h
1-1-6 1-1-5 1-1-4 1-1-3
6-6-6 5-5-5 4-4-4 3-3-3 2-2-2
1-1-2
6-5-4 3-2-1
""" + NORMALS


def _names(order: tuple[Throw, ...]) -> list[str]:
    return [str(t) for t in order]


@pytest.mark.parametrize(
    ("flags", "table", "count"),
    [
        ({}, SEED_DEFAULT, 62),
        ({"handschock": "off"}, HANDSCHOCK_OFF, 56),
        ({"handschock": "above_all"}, HANDSCHOCK_ABOVE_ALL, 62),
        ({"straights": "all_runs"}, ALL_RUNS, 62),
        ({"general_beats_schock_2": "true"}, GENERAL_BEATS_SCHOCK_2, 62),
        ({"straight_general_must_be_hand": "true"}, MUST_BE_HAND, 69),
        ({"handschock": "above_all", "general_beats_schock_2": True}, ABOVE_ALL_AND_GENERAL, 62),
    ],
    ids=["seed", "handschock-off", "above-all", "all-runs", "general-beats-2", "must-be-hand",
         "above-all+general"],
)
def test_golden_full_order(flags: dict[str, object], table: str, count: int) -> None:
    expected = table.split()
    assert len(expected) == count
    assert _names(full_order(Rules.from_dict(flags))) == expected


def test_seed_order_has_56_distinct_dice_in_the_documented_classes() -> None:
    order = full_order(Rules(handschock="off"))
    kinds = [classify(t, Rules()).kind for t in order]
    assert len({t.dice for t in order}) == 56
    assert [kinds.count(k) for k in ("schock_aus", "schock", "general", "strasse", "normal")] \
        == [1, 5, 5, 2, 43]
    assert str(order[-1]) == "2-2-1"  # the seed: the lowest throw there is


FLAG_VALUES = {
    "straights": ("seed", "all_runs"),
    "general_beats_schock_2": (False, True),
    "straight_general_must_be_hand": (False, True),
    "handschock": ("tiebreak", "above_all", "off"),
}


@pytest.mark.parametrize(
    "values", list(itertools.product(*FLAG_VALUES.values())), ids=lambda v: str(v)
)
def test_every_flag_combination_gives_one_strict_order(values: tuple[object, ...]) -> None:
    rules = Rules(**dict(zip(FLAG_VALUES, values, strict=True)))
    order = full_order(rules)
    keys = [rank_key(t, rules) for t in order]
    assert all(a > b for a, b in itertools.pairwise(keys)), "order must be strict"
    assert {t.dice for t in order} == {
        tuple(sorted(c, reverse=True))
        for c in itertools.combinations_with_replacement(range(1, 7), 3)
    }
    # Whatever the flags: Schock aus first, 2-2-1 (assembled if that matters) last.
    assert order[0].dice == (1, 1, 1)
    assert order[-1].dice == (2, 2, 1)
    # Hand never makes a throw worse.
    for throw in order:
        hand = Throw(throw.dice, hand=True)
        assert rank_key(hand, rules) >= rank_key(Throw(throw.dice), rules)


@pytest.mark.parametrize(
    ("text", "dice", "hand", "shown"),
    [
        ("1-1-4", (4, 1, 1), False, "1-1-4"),
        ("4-1-1h", (4, 1, 1), True, "1-1-4h"),
        (" 4-5-6 ", (6, 5, 4), False, "6-5-4"),
        ("2-1-2H", (2, 2, 1), True, "2-2-1h"),
        ("1-1-1", (1, 1, 1), False, "1-1-1"),
    ],
)
def test_parse_and_format(text: str, dice: tuple[int, int, int], hand: bool, shown: str) -> None:
    throw = Throw.parse(text)
    assert throw == Throw(dice, hand=hand)
    assert str(throw) == shown
    assert Throw.parse(str(throw)) == throw
    assert eval(repr(throw)) == throw  # noqa: S307 - repr reads like the constructor


@pytest.mark.parametrize("text", ["1-1-7", "1-1", "abc", "0-1-2", "1-1-4x", "1-1-1-1", "114", ""])
def test_bad_dice_are_parse_errors(text: str) -> None:
    with pytest.raises(ParseError, match="write three dice 1 to 6 like 1-1-4"):
        Throw.parse(text)


@pytest.mark.parametrize("dice", [(1, 1, 7), (0, 1, 2), (1, 1), (1.0, 1, 2), (True, 1, 2), 114])
def test_constructor_rejects_bad_dice(dice: tuple) -> None:
    with pytest.raises(ParseError):
        Throw(dice)


@pytest.mark.parametrize(
    ("text", "kind", "label", "deckel"),
    [
        ("1-1-1", "schock_aus", "Schock aus", 13),
        ("1-1-6", "schock", "Schock 6", 6),
        ("1-1-4", "schock", "Schock 4", 4),  # seed: "eine vier ... vier Deckel"
        ("1-1-2", "schock", "Schock 2", 2),
        ("3-3-3", "general", "General", 3),  # seed: "Drei Deckel für den Verlierer"
        ("4-5-6", "strasse", "Straße", 2),  # seed: "Strafe wären zwei Deckel"
        ("1-2-3", "strasse", "Straße", 2),
        ("3-4-5", "normal", "normal", 1),  # seed: 3-4-5 and 2-3-4 are normal throws
        ("2-3-4", "normal", "normal", 1),
        ("2-2-1", "normal", "normal", 1),  # seed: lowest throw, winner's loser gets one
    ],
)
def test_classes_and_deckel(text: str, kind: str, label: str, deckel: int) -> None:
    cls = classify(Throw.parse(text), Rules())
    assert (cls.kind, cls.label, cls.deckel) == (kind, label, deckel)


def test_schock_aus_sets_all_deckel_of_the_configured_count() -> None:
    assert classify(Throw.parse("1-1-1"), Rules(deckel=7)).deckel == 7


def test_assembled_straight_and_general_count_one_deckel_when_they_must_be_hand() -> None:
    rules = Rules(straight_general_must_be_hand=True)
    assert classify(Throw.parse("6-6-6"), rules).deckel == 1
    assert classify(Throw.parse("6-6-6h"), rules).deckel == 3
    assert classify(Throw.parse("4-5-6"), rules).kind == "normal"
    assert classify(Throw.parse("4-5-6h"), rules).kind == "strasse"
    # Schocks are never affected by this flag.
    assert classify(Throw.parse("1-1-3"), rules).kind == "schock"


def _ranked(texts: list[str], rules: Rules, used: list[int] | None = None) -> list[int]:
    return list(rank_throws([Throw.parse(t) for t in texts], rules, used))


def test_seed_examples_rank_as_written() -> None:
    rules = Rules()
    # "Normaler Wurf - gelesen von höchster zur niedrigsten Zahl": 6-5-1 beats 5-4-2.
    assert _ranked(["5-4-2", "6-5-1"], rules) == [1, 0]
    # 4-5-6 beats 1-2-3; equal Straßen: the one thrown first wins.
    assert _ranked(["1-2-3", "4-5-6", "6-5-4"], rules) == [1, 2, 0]
    # A Schock beats Straßen, Generals and normal throws.
    assert _ranked(["6-6-6", "6-5-4", "6-6-5", "1-1-2"], rules) == [3, 0, 1, 2]
    # "Ein Handschock ist noch einmal höher": hand beats an assembled Schock of that value,
    # even when it was thrown later.
    assert _ranked(["1-1-4", "1-1-4h"], rules) == [1, 0]
    assert _ranked(["1-1-1", "1-1-1h"], rules) == [1, 0]


def test_equal_throws_rank_the_later_player_lower() -> None:
    assert _ranked(["6-6-5", "3-3-1", "6-6-5"], Rules()) == [0, 2, 1]
    # Hand status does not separate equal normal throws.
    assert _ranked(["6-6-5", "6-6-5h"], Rules()) == [0, 1]
    # Under handschock=off a Handschock ties with an assembled Schock: turn order decides.
    assert _ranked(["1-1-4", "1-1-4h"], Rules(handschock="off")) == [0, 1]


def test_fewer_throws_break_a_tie_before_turn_order_only_with_the_flag() -> None:
    texts, used = ["6-6-5", "6-6-5", "3-3-1"], [3, 1, 2]
    assert _ranked(texts, Rules(), used) == [0, 1, 2]
    assert _ranked(texts, Rules(tie_fewer_throws_first=True), used) == [1, 0, 2]
    # Fewer throws never lift a worse throw above a better one.
    assert _ranked(["3-3-1", "6-6-5"], Rules(tie_fewer_throws_first=True), [1, 3]) == [1, 0]


def test_rules_round_trip_and_reject_unknown_flags() -> None:
    rules = Rules.from_dict({"deckel": "9", "straights": "all_runs", "reentry": "yes",
                             "tab_amount": "0.5", "tab_unit": "€"})
    assert (rules.deckel, rules.straights, rules.reentry, rules.tab_amount) == \
        (9, "all_runs", True, 0.5)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules().to_dict()["deckel"] == 13
    with pytest.raises(RuleError, match="unknown Schocken rule 'colour'"):
        Rules.from_dict({"colour": "red"})
    with pytest.raises(RuleError, match="true or false"):
        Rules.from_dict({"reentry": "maybe"})
    with pytest.raises(RuleError, match="from 1 to 999"):
        Rules.from_dict({"deckel": 0})
    with pytest.raises(RuleError, match="from 0 to 9999"):
        Rules.from_dict({"tab_amount": "-1"})
    with pytest.raises(RuleError, match="tiebreak, above_all, off"):
        Rules(handschock="sometimes")
