"""The sequence maker writes the format ``companion eval throws`` reads, with honest truth."""

import json

import cv2
import numpy as np
import pytest

from companion.hardware.camera import load_sequence
from companion.synth.sequences import evening
from companion.synth.stage import render_stage
from companion.synth.writer import Writer


@pytest.fixture(scope="module")
def stage():
    return render_stage(7, (320, 240))


def test_a_written_sequence_loads_and_its_expected_throws_are_in_range(tmp_path, stage):
    writer, turns = evening(stage, seed=3, players=2, rounds=1, fps=10.0)
    writer.write(tmp_path / "s", quality=60, turns=turns)
    sequence = load_sequence(tmp_path / "s")
    assert sequence.fps == 10.0 and len(sequence.frames) == len(writer.frames)
    expected = json.loads((tmp_path / "s" / "expected.json").read_text())
    assert len(expected) == sum(t["throws"] for t in turns)
    assert all(0 <= e["frame"] < len(writer.frames) and len(e["values"]) == 3 for e in expected)
    assert [e["frame"] for e in expected] == sorted(e["frame"] for e in expected)


def test_dice_lie_still_from_the_expected_frame_on(stage):
    writer = Writer(stage, np.random.default_rng(5), 10.0, noise=0.0)
    writer.hold(0.5)
    writer.throw()
    writer.hold(1.0)
    i = writer.expected[0]["frame"]
    still = [np.abs(writer.frames[k].astype(int) - writer.frames[i].astype(int)).max()
             for k in range(i, len(writer.frames))]
    assert max(still) <= 10  # only the gain flicker (0.6 % of 255, a few levels)
    assert np.abs(writer.frames[i - 1].astype(int) - writer.frames[i].astype(int)).max() > 50


def test_kept_dice_stay_where_they_lay(stage):
    writer = Writer(stage, np.random.default_rng(6), 10.0)
    writer.throw()
    before = [(d.x, d.y, d.value) for d in writer.dice]
    writer.throw(keep=2)
    after = [(d.x, d.y, d.value) for d in writer.dice]
    assert len(set(before) & set(after)) == 2


def test_a_throw_can_be_told_what_the_dice_show(stage):
    writer = Writer(stage, np.random.default_rng(8), 10.0)
    writer.throw(values=(6, 6, 2))
    assert sorted(d.value for d in writer.dice) == [2, 6, 6]
    assert writer.expected[-1]["values"] == [2, 6, 6]
    writer.throw(keep=1, values=(1, 3))
    assert sorted(d.value for d in writer.dice[1:]) == [1, 3]
    with pytest.raises(ValueError, match="2 dice are thrown, 3 values given"):
        writer.throw(keep=1, values=(1, 2, 3))


def test_a_die_sprite_takes_no_piece_of_the_die_beside_it():
    from companion.synth.stage import _cut_sprite

    # A white die (box 40 px) with a black die touching it on the right, on a grey floor.
    image = np.full((200, 240, 3), 128, np.uint8)
    image[80:120, 80:120] = 250
    image[78:122, 121:165] = 10
    own, other = (100.0, 100.0, 40.0), (143.0, 100.0, 44.0, 44.0)

    def dark_share(sprite):
        seen = sprite.alpha[:, :, 0] > 0.5
        return float((sprite.image[seen].max(axis=1) < 60).mean())

    plain = _cut_sprite(image, *own, 40.0, 3)
    masked = _cut_sprite(image, *own, 40.0, 3, others=(other,))
    assert plain is not None and masked is not None
    assert dark_share(plain) > 0.05  # the round mask reaches into the neighbour
    assert dark_share(masked) == 0.0
    # The die itself is all there.
    centre = slice(masked.alpha.shape[0] // 2 - 12, masked.alpha.shape[0] // 2 + 12)
    assert masked.alpha[centre, centre].min() > 0.99


def test_the_script_says_where_each_thrown_die_was_cut_from(tmp_path, stage):
    writer, turns = evening(stage, seed=4, players=2, rounds=1, fps=10.0)
    writer.write(tmp_path / "s", quality=60, turns=turns)
    events = json.loads((tmp_path / "s" / "script.json").read_text())["events"]
    throws = [e for e in events if "values" in e and "frame" in e]
    assert throws
    sprites = [s for pool in stage.sprites.values() for s in pool]
    by_source = {s.source: s.value for s in sprites}
    assert len(by_source) == len(sprites)  # every sprite has a name of its own
    for event in throws:
        assert [by_source[name] for name in event["sources"]] == event["values"]


def test_an_evening_in_a_camera_frame_keeps_its_calibration_and_eval_reads_by_it(tmp_path):
    """``--camera`` puts the evening into a set-up's frame, the tray a part of it, and
    keeps the calibration by the tray's corners beside it; ``eval throws`` reads each
    sequence by its own ``profile.json`` when no ``--profile`` is given."""
    from companion.commands.sequences import evaluate_throws
    from companion.synth.scene import SETUPS
    from companion.synth.sequences import main
    from companion.vision.tray import TrayProfile

    assert main([str(tmp_path), "--count", "1", "--seed", "4", "--rounds", "1",
                 "--camera"]) == 0
    setup = list(SETUPS.values())[4]  # seed 4, first evening: the set-ups in turn
    folder = tmp_path / f"evening-4-0-{setup.name}"
    sequence = load_sequence(folder)
    frame = cv2.imread(str(sequence.frames[0]))
    assert frame.shape[1::-1] == setup.frame_size
    profile = TrayProfile.load(folder / "profile.json")
    assert np.allclose(profile.corners, setup.corners(), atol=0.1)
    assert profile.die_size is not None
    result = evaluate_throws(folder)
    assert result["expected"] >= 3
    assert result["right"] == result["expected"] and result["false_throws"] == 0, result
