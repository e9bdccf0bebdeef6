"""The running companion takes a tray calibration saved on the dashboard at once."""

from __future__ import annotations

import json

import numpy as np

from companion.app import default_recognizers, default_settle, tray_setup
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


def test_a_calibration_saved_on_the_dashboard_is_read_after_a_restart(tmp_path, table):
    # Without ``calibration`` in the config the camera page saves to data_dir; a power
    # cut later, the companion starts with it (before, it started uncalibrated and the
    # scorekeeper had to calibrate again every evening).
    settings = Settings(data_dir=tmp_path / "data")
    assert settings.calibration_file is None
    companion = Companion(table, {}, SettleDetector(0.6))
    setup = tray_setup(settings, companion)
    scene = _frame()
    setup.keep(scene.frame)
    setup.save([[float(x), float(y)] for x, y in scene.corners])
    saved = TrayProfile.load(setup.path)
    # The restart: settings as configured, recognisers and settle detection built afresh.
    assert settings.calibration_file == setup.path
    recognizers = default_recognizers(settings, table.games)
    assert recognizers["schocken"].load().profile == saved
    assert recognizers["rockthebock"].load().profile == saved
    assert default_settle(settings).occlusion.profile == saved
    # A configured file still wins over the saved one.
    other = tmp_path / "other.json"
    moved = TrayProfile(saved.frame_size, tuple((x + 5, y) for x, y in saved.corners),
                        saved.die_size, saved.floor_bgr)
    moved.save(other)
    configured = Settings(data_dir=tmp_path / "data", calibration=other)
    assert default_recognizers(configured, table.games)["schocken"].load().profile == moved


def test_a_calibration_file_with_enrolled_faces_only_starts_without_a_tray(tmp_path, table):
    # ``companion calibrate faces`` may come before the tray: the file then holds the
    # faces alone. The companion starts with them (before, loading the tray from it
    # failed and the companion did not start): pips and settle detection without a
    # tray, Rock the Bock with the enrolled faces.
    from companion.synth.render import render_throw
    from companion.vision.enrol import enrol_face, load_models, save_models
    from companion.vision.faces_models import builtin_models

    frames = [render_throw(70 + k, 6, kind="bock", faces=["wolf"] * 6).image for k in range(2)]
    path = tmp_path / "faces.json"
    save_models(path, {"wolf": enrol_face("wolf", frames).model})
    assert "corners" not in json.loads(path.read_text())
    settings = Settings(data_dir=tmp_path / "data", calibration=path)
    assert default_settle(settings).occlusion.profile is None
    recognizers = default_recognizers(settings, table.games)
    assert recognizers["schocken"].load().profile is None
    bock = recognizers["rockthebock"].load()
    assert bock.profile is None
    assert bock.classifier.models["wolf"] == load_models(path)["wolf"] != builtin_models()["wolf"]


def test_a_face_enrolled_on_the_dashboard_is_read_with_at_once_and_keeps_the_tray_watched(
    tmp_path, table
):
    # The third picture of a face enrols it: the Rock the Bock recogniser reads with it
    # from the next frame, while settle detection keeps watching the tray as it did (a
    # new tray calibration starts it afresh; a face changes nothing there).
    from companion.synth.render import render_throw
    from companion.vision.enrol import load_models

    settings = Settings(data_dir=tmp_path / "data")
    companion = Companion(table, {}, default_settle(settings))
    setup = tray_setup(settings, companion)
    scene = _frame()
    setup.keep(scene.frame)
    setup.save([[float(x), float(y)] for x, y in scene.corners])
    watching = companion.settle
    assert watching.occlusion.profile == TrayProfile.load(setup.path)
    # The pip dice as the evening measured them (their size, a tray found) stay with
    # the pip recogniser: a face is nothing it reads.
    pips = companion.recognizers["schocken"]
    for k in range(3):
        setup.keep(render_throw(380 + k, 6, kind="bock", faces=["bock"] * 6).image)
        setup.faces.capture("bock")
    enrolled = load_models(setup.path)["bock"]
    assert companion.recognizers["rockthebock"].load().classifier.models["bock"] == enrolled
    assert companion.settle is watching
    assert companion.recognizers["schocken"] is pips
    # A new tray calibration does start them afresh, and keeps the face.
    setup.keep(scene.frame)
    corners = [[float(x) + 4, float(y)] for x, y in scene.corners]
    setup.save(corners)
    assert companion.settle is not watching
    assert companion.recognizers["schocken"] is not pips
    assert load_models(setup.path)["bock"] == enrolled
