"""``companion eval throws`` and ``companion record``: the interface, the figures, bad input."""

import json
import shutil
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands.sequences import ExpectedThrow, score

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "sequences"
KEYS = ["expected", "right", "wrong_values", "missed", "false_throws", "latency_median_s"]


def test_eval_throws_on_the_fixture_counts_every_throw_once(capsys):
    assert main(["eval", "throws", str(FIXTURE), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert list(figures) == KEYS
    expected = json.loads((FIXTURE / "evening" / "expected.json").read_text())
    assert figures["expected"] == len(expected)
    assert figures["missed"] == 0 and figures["false_throws"] == 0
    assert figures["right"] + figures["wrong_values"] == figures["expected"]
    assert 0 < figures["latency_median_s"] <= 1.0
    for key in KEYS:
        assert any(line.startswith(f"{key}: ") for line in lines)


def test_scoring_rules():
    expected = [ExpectedThrow(10, (1, 2, 3)), ExpectedThrow(40, (4, 5, 6)),
                ExpectedThrow(80, (1, 1, 1))]
    reported = [
        (15, (1, 2, 3)),  # right, 5 frames late
        (20, (1, 2, 3)),  # the same throw again: false
        (45, (4, 5, 5), True),  # wrong values, a die marked uncertain
        (200, (1, 1, 1)),  # far too late: false, and the expected one is missed
    ]
    figures = score(expected, reported, fps=10)
    assert (figures["right"], figures["wrong_values"], figures["missed"],
            figures["false_throws"], figures["wrong_values_flagged"]) == (1, 1, 1, 2, 1)
    assert figures["latency"] == [0.5, 0.5]


def copy_fixture(tmp_path):
    target = tmp_path / "seq"
    shutil.copytree(FIXTURE / "evening", target)
    return target


@pytest.mark.parametrize("change, message", [
    (lambda d: (d / "sequence.json").write_text('{"fps": "x", "frames": 3}'), "fps must be"),
    (lambda d: (d / "sequence.json").write_text('{"fps": 8}'), "frames must be"),
    (lambda d: (d / "expected.json").write_text("nope"), "not valid JSON"),
    (lambda d: (d / "expected.json").write_text('[{"frame": -1, "values": [1]}]'), "frame must"),
    (lambda d: (d / "expected.json").write_text('[{"frame": 1, "values": [7]}]'), "values must"),
    (lambda d: (d / "expected.json").unlink(), "expected.json is missing"),
    (lambda d: next((d / "frames").iterdir()).unlink(), "holds"),
])
def test_bad_sequences_are_one_clear_error_line(tmp_path, capsys, change, message):
    folder = copy_fixture(tmp_path)
    change(folder)
    assert main(["eval", "throws", str(folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err


def test_a_folder_without_sequences_is_refused(tmp_path, capsys):
    assert main(["eval", "throws", str(tmp_path)]) == 2
    assert "holds no sequence" in capsys.readouterr().err


def test_record_writes_a_sequence_that_replays(tmp_path, capsys):
    out = tmp_path / "rec"
    source = f"replay:{FIXTURE / 'evening'}?fps=200"
    assert main(["record", str(out), "--seconds", "0.1", "--camera", source]) == 0
    n = json.loads((out / "sequence.json").read_text())["frames"]
    assert n >= 1 and len(list((out / "frames").iterdir())) == n
    assert "frames at" in capsys.readouterr().out
    # Into a folder that is not empty: refused, nothing changed.
    assert main(["record", str(out), "--seconds", "0.1", "--camera", source]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert len(list((out / "frames").iterdir())) == n


def test_record_checks_its_options(tmp_path, capsys):
    assert main(["record", str(tmp_path / "a"), "--seconds", "0", "--camera",
                 f"replay:{FIXTURE / 'evening'}"]) == 2
    assert "--seconds" in capsys.readouterr().err
    assert main(["record", str(tmp_path / "b"), "--seconds", "1", "--camera",
                 f"replay:{FIXTURE / 'evening'}?fps=zero"]) == 2
    assert "fps must be a number" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
