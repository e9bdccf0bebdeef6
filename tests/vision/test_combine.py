"""Several readings of one rest become one: dice matched by position, values voted."""

import pytest

from companion.vision.combine import combine_readings, combine_with_left_out
from companion.vision.types import Die, DieRegion, Reading, VisionError


def die(value, x, y, confidence=0.9, uncertain=False, size=40.0):
    region = DieRegion((x, y), size, 0.0, ((x - 20, y - 20), (x + 20, y - 20),
                                           (x + 20, y + 20), (x - 20, y + 20)), 0.9)
    return Die(region, value, confidence, uncertain)


def reading(*dice):
    return Reading("pips", tuple(dice), (640, 480), {"total": 10.0})


def test_agreeing_readings_give_the_dice_at_their_mean_position():
    a = reading(die(1, 100, 100), die(5, 300, 200))
    b = reading(die(5, 304, 198), die(1, 102, 100))
    c = reading(die(1, 98, 103), die(5, 302, 202))
    out = combine_readings([a, b, c])
    assert sorted(d.value for d in out.dice) == [1, 5]
    one = next(d for d in out.dice if d.value == 1)
    assert one.region.center == pytest.approx((100.0, 101.0))
    assert not out.uncertain
    assert one.confidence == pytest.approx(0.9)
    assert out.timings_ms["total"] == pytest.approx(30.0)


def test_disagreeing_values_take_the_majority_and_mark_the_die_uncertain():
    out = combine_readings([
        reading(die(6, 100, 100)), reading(die(6, 101, 100)), reading(die(5, 100, 101, 0.95)),
    ])
    (only,) = out.dice
    assert only.value == 6 and only.uncertain
    assert only.confidence == pytest.approx(0.9 * 2 / 3, abs=1e-3)


def test_a_ghost_seen_once_is_dropped_and_a_die_missed_once_is_kept():
    a = reading(die(2, 100, 100), die(3, 300, 300))
    b = reading(die(2, 100, 100), die(3, 300, 300), die(4, 500, 100))  # ghost
    c = reading(die(2, 100, 100))  # missed the 3
    out = combine_readings([a, b, c])
    assert sorted(d.value for d in out.dice) == [2, 3]
    three = next(d for d in out.dice if d.value == 3)
    assert not three.uncertain  # both readings that saw it agree
    assert three.confidence == pytest.approx(0.9 * 2 / 3, abs=1e-3)


def test_the_dice_seen_too_seldom_are_the_ones_left_out_and_are_flagged():
    a = reading(die(2, 100, 100), die(3, 300, 300))
    b = reading(die(2, 100, 100), die(4, 500, 100, confidence=0.95))  # seen once
    c = reading(die(2, 101, 100), die(3, 300, 301))
    (once,) = combine_with_left_out([a, b, c])[1]
    assert once.value == 4 and once.uncertain and once.region.center == (500, 100)
    assert once.confidence == pytest.approx(0.95 / 3, abs=1e-3)
    assert combine_with_left_out([a, c])[1] == ()
    # Of two readings, a die seen by one is kept (half of them saw it).
    assert combine_with_left_out([a, reading(die(2, 100, 100))])[1] == ()


def test_dice_further_apart_than_half_an_edge_are_different_dice():
    out = combine_readings([reading(die(1, 100, 100)), reading(die(1, 125, 100))])
    assert len(out.dice) == 2  # 25 px apart with 40 px dice: not the same die


def test_a_die_no_reading_was_sure_of_stays_uncertain():
    out = combine_readings([reading(die(4, 100, 100, 0.4, True))] * 3)
    assert out.dice[0].uncertain and out.dice[0].value == 4


def test_a_die_most_readings_flag_stays_flagged_though_one_was_sure():
    """One frame of three sure of a die the other two flag is no sure die: a camera
    evening (89-5, validation) read a four as a six that way, sure."""
    sure, unsure = die(6, 100, 100, 0.71), die(6, 101, 100, 0.49, True)
    out = combine_readings([reading(sure), reading(unsure), reading(unsure)])
    assert out.dice[0].value == 6 and out.dice[0].uncertain
    # Of two readings, one sure is not most of them either; two sure of three are.
    assert combine_readings([reading(sure), reading(unsure)]).dice[0].uncertain
    assert not combine_readings([reading(sure), reading(sure), reading(unsure)]).dice[0].uncertain


def test_bad_input_is_refused():
    with pytest.raises(VisionError, match="at least one"):
        combine_readings([])
    with pytest.raises(VisionError, match="share kind and frame size"):
        combine_readings([reading(), Reading("pips", (), (320, 240))])


def test_a_cluttered_frame_among_them_makes_the_combined_reading_cluttered():
    calm = reading(die(3, 100, 100, 0.99))
    cluttered = Reading("pips", (), (640, 480), {"total": 10.0}, cluttered=True)
    assert not combine_readings([calm, calm]).cluttered
    assert combine_readings([calm, cluttered, calm]).cluttered
