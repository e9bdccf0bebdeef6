"""The running companion takes a tray calibration saved on the dashboard at once."""

from __future__ import annotations

import json

import numpy as np

from companion.app import tray_setup
from companion.config import Settings
from companion.pipeline import Companion
from companion.synth.scene import SETUPS, compose
from companion.vision.settle import SettleDetector
from companion.vision.tray import TrayProfile


def _frame():
    photo = np.full((640, 640, 3), (140, 150, 150), np.uint8)
    return compose(photo, [], SETUPS["webcam-wood"], np.random.default_rng(1))


def test_a_saved_calibration_rebuilds_the_recognisers(tmp_path, table):
    path = tmp_path / "pub.json"
    settings = Settings(data_dir=tmp_path / "data", calibration=path)
    companion = Companion(table, {"schocken": object()}, SettleDetector(0.6))
    setup = tray_setup(settings, companion)
    scene = _frame()
    setup.keep(scene.frame)
    setup.save([[float(x), float(y)] for x, y in scene.corners])
    saved = TrayProfile.load(path)
    assert companion.recognizers["schocken"].load().profile == saved
    assert companion.recognizers["rockthebock"].load().profile == saved


def test_without_a_configured_file_it_goes_to_the_data_dir(tmp_path, table):
    settings = Settings(data_dir=tmp_path / "data")
    companion = Companion(table, {}, SettleDetector(0.6))
    setup = tray_setup(settings, companion)
    assert setup.path == tmp_path / "data" / "calibration.json"
    scene = _frame()
    setup.keep(scene.frame)
    setup.save([[float(x), float(y)] for x, y in scene.corners])
    assert json.loads(setup.path.read_text())["frame_size"] == [1280, 960]
    assert companion.recognizers["schocken"].load().profile == TrayProfile.load(setup.path)
