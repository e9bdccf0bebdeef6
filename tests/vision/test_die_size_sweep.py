"""tools/die_size_sweep.py: the same photos read with the tray nearer and further."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pipdraw import drawn_photos

from companion.vision.pipnet import DEFAULT_MODEL, PipNet

ROOT = Path(__file__).resolve().parents[2]
DICE = [(140, 150, 10, 3), (320, 220, 40, 5), (470, 170, 0, 1), (220, 430, 25, 6),
        (450, 450, 70, 2)]


@pytest.fixture(scope="module")
def sweep_tool():
    spec = importlib.util.spec_from_file_location(
        "die_size_sweep", ROOT / "tools" / "die_size_sweep.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_tray_size_and_surround_is_one_row_with_the_die_measured(sweep_tool, tmp_path):
    photos = drawn_photos(tmp_path / "photos", DICE, edge=44)
    rows = sweep_tool.sweep(photos, "all", PipNet(DEFAULT_MODEL), [330, 660], seed=3)
    assert [(r["tray_px"], r["surround"]) for r in rows] == [
        (330, "wood"), (330, "cloth"), (660, "wood"), (660, "cloth")
    ]
    assert all(r["labelled_dice"] == 10 for r in rows)
    # The calibration measures the die twice as large in a tray twice as large.
    for near, far in ((rows[2], rows[0]), (rows[3], rows[1])):
        assert near["die_px"] == pytest.approx(2 * far["die_px"], rel=0.2)
    # Drawn dice this size are read.
    assert all(r["die_accuracy"] >= 0.9 for r in rows)
    with pytest.raises(SystemExit):
        sweep_tool.main(["--trays", "50"])
