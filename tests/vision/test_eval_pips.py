"""``companion eval pips`` and ``calibrate tray`` end to end on drawn and real folders."""

from __future__ import annotations

import csv
import json

import cv2
import pytest
from pipdraw import frame_with_dice, photo_sample

from companion.cli import main
from companion.commands._pips import evaluate
from companion.evaluation import EvalDataError, LabelledDie, match, read_labels

THROWS = [
    [(100, 100, 10, 1), (250, 120, 33, 2), (400, 300, 0, 3)],
    [(150, 300, 60, 4), (500, 100, 17, 5), (320, 220, 80, 6), (520, 380, 5, 2)],
    [(300, 240, 45, 6)],
]


def _write_folder(root, throws, wrong_label=False):
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for k, dice in enumerate(throws):
        frame = frame_with_dice(dice, size=(640, 480), seed=k)
        cv2.imwrite(str(root / "images" / f"throw{k}.jpg"), frame)
        lines = []
        for i, (x, y, _, value) in enumerate(dice):
            shown = value % 6 + 1 if wrong_label and k == 0 and i == 0 else value
            lines.append(f"{shown - 1} {x / 640:.6f} {y / 480:.6f} {48 / 640:.6f} {48 / 480:.6f}")
        (root / "labels" / f"throw{k}.txt").write_text("\n".join(lines) + "\n")
    return root


def test_perfect_folder_scores_one(tmp_path):
    figures = evaluate(_write_folder(tmp_path / "set", THROWS))
    assert figures["images"] == 3
    assert figures["labelled_dice"] == 8
    assert figures["die_accuracy"] == 1.0
    assert figures["image_exact"] == 1.0
    assert figures["extra_dice"] == 0
    assert figures["ms_per_image_median"] > 0


def test_a_wrong_label_costs_one_die_and_one_image(tmp_path, capsys):
    folder = _write_folder(tmp_path / "set", THROWS, wrong_label=True)
    out_csv = tmp_path / "out" / "rows.csv"
    code = main(["eval", "pips", str(folder), "--json", "--csv", str(out_csv)])
    assert code == 0
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert figures["die_accuracy"] == pytest.approx(7 / 8, abs=1e-4)
    assert figures["image_exact"] == pytest.approx(2 / 3, abs=1e-4)
    assert set(figures) == {
        "images",
        "labelled_dice",
        "right_dice",
        "exact_images",
        "die_accuracy",
        "extra_dice",
        "image_exact",
        "sure_wrong",  # labelled dice read wrong and not flagged: the unnoticed error
        "sure_wrong_rate",
        "flagged",  # labelled dice flagged uncertain or left unread
        "flagged_rate",
        "ms_per_image_median",
        "stage_ms_median",  # per-stage breakdown, so a slowdown shows where it is
    }
    assert set(figures["stage_ms_median"]) >= {"detect", "total"}
    rows = list(csv.DictReader(out_csv.read_text().splitlines()))
    assert [r["image"] for r in rows] == ["throw0.jpg", "throw1.jpg", "throw2.jpg"]
    assert rows[0]["expected"] == "2 2 3" and rows[0]["read"] == "1 2 3"
    assert rows[0]["exact"] == "0" and rows[1]["exact"] == "1"
    assert float(rows[2]["ms"]) > 0


def test_bad_folders_exit_2_with_a_message(tmp_path, capsys):
    assert main(["eval", "pips", str(tmp_path)]) == 2
    assert "images/*.jpg" in capsys.readouterr().err
    folder = _write_folder(tmp_path / "set", THROWS[:1])
    (folder / "labels" / "throw0.txt").write_text("7 0.5 0.5 0.1 0.1\n")
    assert main(["eval", "pips", str(folder)]) == 2
    assert "class must be 0..5" in capsys.readouterr().err
    with pytest.raises(EvalDataError, match="x_center"):
        bad = tmp_path / "bad.txt"
        bad.write_text("1 0.5 half 0.1 0.1\n")
        read_labels(bad, 640, 480)


def test_matching_pairs_closest_first_and_within_half_a_box():
    labels = [LabelledDie(1, 100, 100, 40, 40), LabelledDie(2, 130, 100, 40, 40)]
    assert sorted(match(labels, [(128, 101), (101, 99)])) == [(0, 1), (1, 0)]
    assert match(labels, [(100, 125)]) == []  # 25 px away, reach is 20


def test_calibrate_tray_writes_a_profile(tmp_path, capsys):
    frame = frame_with_dice([(200, 200, 10, 3), (400, 300, 40, 5)], background=(140, 150, 150))
    image = tmp_path / "empty.png"
    cv2.imwrite(str(image), frame)
    out = tmp_path / "calibration" / "test.json"
    assert (
        main(
            [
                "calibrate",
                "tray",
                str(image),
                "--corners",
                "0,0,639,0,639,479,0,479",
                "--out",
                str(out),
                "--finder",
                "classic",
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert data["version"] == 1 and 36 <= data["die_size"] <= 50
    assert "die edge" in capsys.readouterr().out
    assert main(["calibrate", "tray", str(tmp_path / "missing.png")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.photos
def test_real_photo_sample_end_to_end(tmp_path):
    sample = photo_sample(tmp_path / "sample", slice(None, None, 15))
    figures = evaluate(sample)
    assert figures["images"] == 9
    # Regression floor; the full-set figures are in the report.
    assert figures["die_accuracy"] >= 0.75
    assert figures["extra_dice"] <= 0.08 * figures["labelled_dice"]


def test_finder_option_picks_where_the_dice_come_from(tmp_path, capsys, monkeypatch):
    import companion.vision.recognizer as recognizer

    folder = _write_folder(tmp_path / "set", THROWS)
    classical = []
    original = recognizer.find_in_tray

    def counting(*args, **kwargs):
        classical.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(recognizer, "find_in_tray", counting)
    for finder, calls in (("classic", 3), ("spotter", 0)):
        classical.clear()
        assert main(["eval", "pips", str(folder), "--json", "--finder", finder]) == 0
        figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert figures["die_accuracy"] == 1.0 and figures["extra_dice"] == 0
        assert len(classical) == calls  # the classical finder ran once per image, or never
    assert main(["eval", "pips", str(folder), "--finder", "sideways"]) == 2
    assert "unknown die finder 'sideways'" in capsys.readouterr().err


def test_a_folder_of_camera_setups_is_measured_setup_by_setup_and_together(tmp_path, capsys):
    # Two set-ups: the second's own tray.json limits it to the left half of its frames,
    # where only one of each throw's dice lies.
    root = tmp_path / "scenes"
    _write_folder(root / "a", THROWS)
    _write_folder(root / "b", THROWS[:2])
    (root / "b" / "tray.json").write_text(json.dumps({
        "version": 1, "frame_size": [640, 480],
        "corners": [[0, 0], [200, 0], [200, 480], [0, 480]],
        "die_size": None, "floor_bgr": [128, 128, 128],
    }))
    rows_csv = tmp_path / "rows.csv"
    code = main(["eval", "pips", str(root), "--json", "--csv", str(rows_csv)])
    assert code == 0
    out = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(out[-1])
    assert set(figures["sets"]) == {"a", "b"}
    # The CSV holds every set-up's images, each row naming its set-up.
    rows = list(csv.DictReader(rows_csv.read_text().splitlines()))
    assert [(r["set"], r["correct_dice"]) for r in rows if r["set"] == "b"] == [
        ("b", "1"), ("b", "1")]
    assert sorted({r["set"] for r in rows}) == ["a", "b"] and len(rows) == 5
    assert figures["sets"]["a"]["die_accuracy"] == 1.0
    assert figures["sets"]["b"]["right_dice"] == 2  # (100, 100) and (150, 300)
    assert figures["images"] == 5 and figures["labelled_dice"] == 8 + 7
    assert figures["right_dice"] == 8 + 2
    assert figures["die_accuracy"] == pytest.approx(10 / 15, abs=1e-4)
    assert any(line.startswith("a: die_accuracy 1.0") for line in out)
    # --no-profile leaves each folder's tray.json aside: set-up b reads all its dice.
    assert main(["eval", "pips", str(root), "--json", "--no-profile"]) == 0
    unprofiled = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert unprofiled["sets"]["b"]["right_dice"] == 7


@pytest.mark.parametrize(
    "line", ["0 nan 0.5 0.1 0.1", "0 0.5 inf 0.1 0.1", "0 0.5 0.5 -0.1 0.1", "0 1.5 0.5 0.1 0.1"]
)
def test_label_boxes_must_be_numbers_from_0_to_1(tmp_path, line):
    path = tmp_path / "x.txt"
    path.write_text(line + "\n")
    with pytest.raises(EvalDataError, match="numbers from 0 to 1"):
        read_labels(path, 640, 480)


def test_a_cut_off_jpeg_is_refused_not_scored(tmp_path, capsys):
    folder = _write_folder(tmp_path / "set", THROWS[:2])
    image = folder / "images" / "throw1.jpg"
    image.write_bytes(image.read_bytes()[: image.stat().st_size // 2])
    assert main(["eval", "pips", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "throw1.jpg is not a whole JPEG" in err and "Traceback" not in err
