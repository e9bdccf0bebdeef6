"""tools/tune_flag.py: how it scores a flag rule, and the shared photos' known label error."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import pytest
from pipdraw import frame_with_dice

from companion.vision import pipread

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tune_flag():
    spec = importlib.util.spec_from_file_location("tune_flag", ROOT / "tools" / "tune_flag.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _die(value, label, p, count=None, agree=True, size=40.0):
    return {"value": value, "label": label, "p": p, "count": count, "agree": agree,
            "size": size}


def test_a_rule_is_scored_as_the_reader_flags(tune_flag):
    dice = [
        _die(4, 4, 0.95),  # right and sure
        _die(5, 4, 0.90),  # wrong and sure
        _die(3, 2, 0.60, count=3),  # wrong, unsure, the counter counts the same wrong 3
        _die(6, 6, 0.97, agree=False),  # right, sure, its views split
        _die(2, None, 0.99),  # no label: an extra die
    ]
    plain = tune_flag.score(dice, 4, 0.75, None, agree=False)
    assert plain == {"die_accuracy": 0.5, "sure_wrong": 0.25, "flagged": 0.25, "extra": 1}
    # A counter that may confirm from 0.5 clears the wrong 3's flag: one more sure wrong.
    counted = tune_flag.score(dice, 4, 0.75, 0.5, agree=False)
    assert (counted["sure_wrong"], counted["flagged"]) == (0.5, 0.0)
    # Flagging split views flags the six as well.
    assert tune_flag.score(dice, 4, 0.75, None, agree=True)["flagged"] == 0.5
    # The rule that ships is one of the rules the tool chooses among.
    shipped = (pipread.FLAG_BELOW, pipread.COUNTER_FLOOR, pipread.FLAG_SPLIT_VIEWS,
               (pipread.SMALL_DIE, pipread.FLAG_BELOW_SMALL))
    assert shipped in tune_flag.rules()


def test_a_small_die_is_flagged_below_its_own_level(tune_flag):
    dice = [
        _die(2, 3, 0.83, size=18.0),  # a small die read wrong at 0.83
        _die(5, 5, 0.83, size=18.0),  # a small die read right at 0.83
        _die(4, 4, 0.83, size=30.0),  # a larger die read right at 0.83
    ]
    alike = tune_flag.score(dice, 3, 0.8, None, agree=False)
    assert (alike["sure_wrong"], alike["flagged"]) == (0.3333, 0.0)
    tiered = tune_flag.score(dice, 3, 0.8, None, agree=False, small=(20.0, 0.85))
    assert (tiered["sure_wrong"], tiered["flagged"]) == (0.0, 0.6667)


def test_the_known_label_error_is_scored_by_what_the_die_shows(tune_flag, tmp_path):
    from companion.evaluation import LABEL_ERRORS

    (photo, errors), = LABEL_ERRORS.items()
    (line, shows), = errors.items()
    frame = frame_with_dice([(320, 240, 10, shows)], seed=3)
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / f"{photo}.jpg"), frame)
    h, w = frame.shape[:2]
    # The label file says 2 (class 1) for the die, as the shared photo's does.
    assert line == 0
    (tmp_path / "labels" / f"{photo}.txt").write_text(
        f"1 {320 / w:.6f} {240 / h:.6f} {60 / w:.6f} {60 / h:.6f}\n", encoding="utf-8"
    )
    dice, labelled = tune_flag.dice_of(tmp_path, None, "all", ROOT / "models" / "pipnet.onnx")
    assert labelled == 1
    assert [(d["value"], d["label"]) for d in dice] == [(shows, shows)]


def test_an_evening_built_from_the_photos_takes_the_value_a_mislabelled_die_shows(tmp_path):
    """The sequences of an evening take their truth from the sprites' values: the die
    whose label is known wrong is a sprite of the value it shows. Before, it was a "2"
    that showed three pips, and a throw of it read right was scored a wrong reading."""
    from companion.evaluation import LABEL_ERRORS
    from companion.synth.stage import TRAY_A_STAGES, tray_a_stage

    (photo, errors), = LABEL_ERRORS.items()
    (line, shows), = errors.items()
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    base = TRAY_A_STAGES["white"][0]
    # Two dice on each photo: the label's line and one labelled right after it.
    dice = [(200, 240, 10, shows), (440, 240, 0, 5)]
    for name in (base, f"{photo}.jpg"):
        frame = frame_with_dice(dice, seed=3)
        cv2.imwrite(str(tmp_path / "images" / name), frame)
        h, w = frame.shape[:2]
        rows = [f"{v - 1} {x / w:.6f} {y / h:.6f} {60 / w:.6f} {60 / h:.6f}" for x, y, _, v in dice]
        if name != base:
            assert line == 0
            rows[0] = f"1 {200 / w:.6f} {240 / h:.6f} {60 / w:.6f} {60 / h:.6f}"  # says 2
        (tmp_path / "labels" / f"{Path(name).stem}.txt").write_text("\n".join(rows) + "\n")
    stage = tray_a_stage(tmp_path, "white")
    sources = {value: sorted(s.source for s in sprites)
               for value, sprites in stage.sprites.items() if sprites}
    wrong = f"{photo}.jpg#{line + 1}"
    assert wrong in sources[shows] and wrong not in sources.get(2, [])
    assert sources[shows] == sorted([f"{base}#1", wrong])
    assert sources[5] == sorted([f"{base}#2", f"{photo}.jpg#2"])


def test_a_small_die_tier_is_chosen_beside_the_rule_never_in_place_of_it(tune_flag):
    def row(t, small=None, level=None, photos_wrong=0.0, flagged=0.03):
        figures = {"die_accuracy": 0.99, "sure_wrong": photos_wrong, "flagged": flagged,
                   "extra": 0}
        return {"flag_below": t, "counter_floor": None, "views_agree": False,
                "small_die": small, "flag_below_small": level, "photos": figures,
                "rendered": {"die_accuracy": 0.99, "sure_wrong": 0.0, "flagged": 0.05,
                             "extra": 0}}

    rows = [
        row(0.8, photos_wrong=0.01, flagged=0.035),  # 1 of 100 dice wrong and sure
        row(0.7, photos_wrong=0.02, flagged=0.02),
        # A lower rule with a tier: as few wrong and sure, fewer flags -- not chosen, it
        # would let larger dice through that the 0.8 rule flags.
        row(0.7, 20.0, 0.85, photos_wrong=0.0, flagged=0.025),
        row(0.8, 18.0, 0.85, photos_wrong=0.0, flagged=0.038),
        row(0.8, 20.0, 0.85, photos_wrong=0.0, flagged=0.038),  # as many flags: more dice
        row(0.8, 20.0, 0.9, photos_wrong=0.0, flagged=0.039),
        row(0.8, 24.0, 0.9, photos_wrong=0.0, flagged=0.05),  # over the budget
    ]
    chosen = tune_flag.choose(rows, 100, 100, 0.04)
    assert (chosen["flag_below"], chosen["small_die"], chosen["flag_below_small"]) == (
        0.8, 20.0, 0.85)
    # Without a tier that lets fewer through, the rule alone.
    same = row(0.8, 20.0, 0.9, photos_wrong=0.01, flagged=0.039)
    assert tune_flag.choose(rows[:2] + [same], 100, 100, 0.04)["small_die"] is None
    assert tune_flag.choose(rows[:2], 100, 100, 0.01) is None
