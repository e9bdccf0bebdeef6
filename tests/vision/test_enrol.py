"""Enrolment: a differently coloured set is learnt from frames and then read right."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.synth.render import render_throw, shifted_palette
from companion.vision.enrol import (
    enrol_face,
    load_models,
    load_recognizer,
    save_models,
)
from companion.vision.faces_classify import FaceClassifier
from companion.vision.faces_features import face_features
from companion.vision.faces_look import FACES
from companion.vision.faces_models import FaceModelError, builtin_models

SIZE = (960, 720)
SHIFTED = shifted_palette()


def _enrol_frames(face, seed, n_frames=3, n_dice=6, palette=SHIFTED):
    return [
        render_throw(
            seed + i, n_dice, kind="bock", size=SIZE, palette=palette, faces=[face] * n_dice
        ).image
        for i in range(n_frames)
    ]


@pytest.fixture(scope="module")
def shifted_models():
    models = {}
    for k, face in enumerate(FACES):
        result = enrol_face(face, _enrol_frames(face, 1000 + 10 * k), current=models)
        assert result.dice >= 8 and result.frames == 3
        models[face] = result.model
    return models


def _read_at_truth(throws, classifier):
    right = unsure = 0
    for throw in throws:
        for die in throw.dice:
            feats = face_features(throw.image, die.center, die.size, die.angle)
            verdict = classifier.classify(feats)
            right += verdict.face == die.value
            unsure += verdict.uncertain
    return right, unsure


def test_enrolled_models_read_a_set_the_builtin_models_do_not(shifted_models):
    faces = list(FACES) + ["wolf", "goat_red", "bock", "goat_yellow"]
    throws = [
        render_throw(
            2000 + s, 10, kind="bock", size=SIZE, palette=SHIFTED, hard=s % 2 == 1, faces=faces
        )
        for s in range(4)
    ]
    builtin_right, builtin_unsure = _read_at_truth(throws, FaceClassifier())
    enrolled_right, enrolled_unsure = _read_at_truth(throws, FaceClassifier(shifted_models))
    assert enrolled_right == 40 and enrolled_unsure == 0
    # Out of the box, the cream bock, brown wolf and shifted goats are not all known: a
    # tenth of them at least are not read (at most 35 before the rim of glare was left
    # out of the colours, 36 since).
    assert builtin_right <= 36 and builtin_unsure > 0


def test_enrolled_faces_are_well_apart(shifted_models):
    result = enrol_face("goat_green", _enrol_frames("goat_green", 3000), current=shifted_models)
    assert result.nearest in FACES and result.nearest != "goat_green"
    assert result.separation > 3


def test_a_die_on_another_face_is_dropped_from_the_enrolment():
    frames = [
        render_throw(4000 + i, 6, kind="bock", size=SIZE, faces=["goat_blue"] * 5 + ["bock"]).image
        for i in range(3)
    ]
    result = enrol_face("goat_blue", frames)
    assert result.dropped >= 2
    builtin = builtin_models()["goat_blue"]
    z = (np.array(result.model.mean) - np.array(builtin.mean)) / np.array(builtin.spread)
    assert np.abs(z).max() < 2


def test_enrolment_needs_a_known_face_and_enough_dice():
    with pytest.raises(FaceModelError, match="unknown face"):
        enrol_face("sheep", [])
    empty = np.full((480, 640, 3), 120, np.uint8)
    with pytest.raises(FaceModelError, match="found only 0 dice in 2 frame"):
        enrol_face("wolf", [empty, empty])


def test_models_are_stored_beside_the_tray_profile(tmp_path, shifted_models):
    path = tmp_path / "tray.json"
    tray = {
        "version": 1,
        "frame_size": [960, 720],
        "corners": [[10, 10], [950, 10], [950, 710], [10, 710]],
        "die_size": 55.0,
        "floor_bgr": [100.0, 110.0, 120.0],
    }
    path.write_text(json.dumps(tray))
    save_models(path, {"wolf": shifted_models["wolf"]})
    data = json.loads(path.read_text())
    assert {k: data[k] for k in tray} == tray
    assert set(data["faces"]["models"]) == {"wolf"}
    loaded = load_models(path)
    assert np.allclose(loaded["wolf"].mean, shifted_models["wolf"].mean, atol=1e-4)
    recognizer = load_recognizer(path)
    assert recognizer.profile is not None and recognizer.profile.die_size == 55.0
    assert recognizer.enrolled == ("wolf",)
    assert recognizer.classifier.models["wolf"].count == shifted_models["wolf"].count


def test_a_file_with_only_faces_and_broken_files(tmp_path, shifted_models):
    path = tmp_path / "faces-only.json"
    save_models(path, shifted_models)
    recognizer = load_recognizer(path)
    assert recognizer.profile is None and set(recognizer.enrolled) == set(FACES)
    bad = tmp_path / "bad.json"
    bad.write_text('{"faces": {"version": 7}}')
    with pytest.raises(FaceModelError, match="unsupported version"):
        load_models(bad)
    bad.write_text("not json")
    with pytest.raises(FaceModelError, match="not valid JSON"):
        load_models(bad)
    with pytest.raises(FaceModelError, match="no calibration profile"):
        load_models(tmp_path / "missing.json")


def test_calibrate_faces_command_enrols_and_shows(tmp_path, capsys):
    names = []
    for i, frame in enumerate(_enrol_frames("goat_yellow", 5000, n_frames=2)):
        name = tmp_path / f"yellow-{i}.png"
        cv2.imwrite(str(name), frame)
        names.append(str(name))
    profile = tmp_path / "profile.json"
    code = main(["calibrate", "faces", "--face", "goat_yellow", *names, "--profile", str(profile)])
    out = capsys.readouterr().out
    assert code == 0
    assert "goat_yellow: enrolled from" in out and "closest other face" in out
    assert main(["calibrate", "faces", "--show", "--profile", str(profile)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert any(line.startswith("goat_yellow") and "enrolled from" in line for line in shown)
    assert any(line.startswith("wolf") and "built-in" in line for line in shown)
    assert (
        main(
            [
                "calibrate",
                "faces",
                "--face",
                "goat_red",
                str(tmp_path / "nope.png"),
                "--profile",
                str(profile),
            ]
        )
        == 2
    )
    assert "cannot read image" in capsys.readouterr().err


def test_calibrating_the_tray_again_keeps_the_enrolled_faces(tmp_path):
    from companion.vision.enrol import load_models, save_models
    from companion.vision.faces_models import builtin_models
    from companion.vision.tray import TrayProfile

    path = tmp_path / "tray.json"
    save_models(path, {"bock": builtin_models()["bock"]})
    profile = TrayProfile((640, 480), ((10, 10), (630, 10), (630, 470), (10, 470)), 40.0,
                          (120.0, 120.0, 120.0))
    profile.save(path)
    assert set(load_models(path)) == {"bock"}
    assert TrayProfile.load(path) == profile
    assert not list(tmp_path.glob("*.tmp"))  # written through a temporary file, then renamed
