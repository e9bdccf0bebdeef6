"""A game's dice count: a reading never shows more dice than the game uses, unless the
surplus is something the recogniser is sure of."""

from __future__ import annotations

import pytest
from pipdraw import frame_with_dice

from companion.vision.dicelist import limit
from companion.vision.recognizer import PipRecognizer
from companion.vision.types import Die, DieRegion


def _die(x: float, value: int, confidence: float, uncertain: bool, size: float = 40.0) -> Die:
    h = size / 2
    corners = ((x - h, 100 - h), (x + h, 100 - h), (x + h, 100 + h), (x - h, 100 + h))
    return Die(DieRegion((x, 100.0), size, 0.0, corners, 0.9), value, confidence, uncertain)


def test_surplus_uncertain_dice_are_dropped_and_the_order_kept():
    dice = [_die(50, 4, 0.9, False), _die(80, 2, 0.3, True, size=18),
            _die(150, 6, 0.85, False), _die(250, 1, 0.95, False)]
    kept = limit(dice, 3)
    assert [d.value for d in kept] == [4, 6, 1]


def test_the_least_confident_go_first():
    dice = [_die(50, 4, 0.7, True), _die(120, 2, 0.3, True),
            _die(190, 6, 0.9, False), _die(260, 1, 0.6, True), _die(330, 5, 0.95, False)]
    assert [d.value for d in limit(dice, 3)] == [4, 6, 5]


def test_sure_dice_apart_from_each_other_all_stay():
    # Dice the recogniser is sure of, well apart: something really lies there, and the
    # scorekeeper should see it; only the uncertain one goes.
    dice = [_die(50, 4, 0.9, False), _die(120, 2, 0.88, False),
            _die(190, 6, 0.9, False), _die(260, 1, 0.3, True)]
    assert limit(dice, 2) == dice[:3]
    assert limit(dice, 3) == dice[:3]


def test_one_die_read_twice_keeps_the_surer_reading():
    # Two sure readings 30 px apart on 40 px dice: one die read twice (its side taken for
    # a second die); the less confident goes.
    dice = [_die(50, 6, 0.76, False), _die(80, 6, 0.73, False, size=30),
            _die(200, 1, 0.81, False), _die(320, 4, 0.6, False)]
    assert limit(dice, 3) == [dice[0], dice[2], dice[3]]


def test_a_pair_that_disagrees_leaves_its_kept_die_flagged():
    dice = [_die(50, 6, 0.76, False), _die(80, 4, 0.73, False, size=30),
            _die(200, 1, 0.81, False), _die(320, 4, 0.6, False)]
    kept = limit(dice, 3)
    assert [(d.value, d.uncertain) for d in kept] == [(6, True), (1, False), (4, False)]


def test_touching_dice_are_not_a_pair():
    # Touching side to side: centres one edge apart; a die cannot lie closer to another.
    dice = [_die(50, 6, 0.9, False), _die(90, 4, 0.8, False),
            _die(130, 1, 0.85, False), _die(170, 4, 0.7, False)]
    assert limit(dice, 3) == dice


def test_no_limit_or_few_enough_dice_changes_nothing():
    dice = [_die(50, 4, 0.9, False), _die(120, 2, 0.3, True)]
    assert limit(dice, None) == dice
    assert limit(dice, 2) == dice
    assert limit([], 3) == []


@pytest.mark.parametrize("bad", [0, -1, True])
def test_a_bad_dice_count_is_refused(bad):
    with pytest.raises(ValueError, match="max_dice"):
        PipRecognizer(max_dice=bad)


def test_four_clear_dice_stay_four_in_a_three_dice_game():
    frame = frame_with_dice(
        [(120, 120, 0, 2), (300, 140, 15, 5), (480, 300, 30, 6), (200, 360, 45, 3)], seed=4
    )
    limited = PipRecognizer(max_dice=3).read(frame)
    free = PipRecognizer().read(frame)
    assert sorted(free.values) == [2, 3, 5, 6]
    assert not any(d.uncertain for d in free.dice)
    assert sorted(limited.values) == [2, 3, 5, 6]
