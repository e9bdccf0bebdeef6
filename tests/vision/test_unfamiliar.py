"""Sets the models never saw: flagged out of the box, read once enrolled; drawings checked."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.enrol import enrol_face
from companion.vision.faces import (
    MIN_SEPARATION,
    PATTERN_SIZE,
    BockRecognizer,
    FaceClassifier,
    FaceModel,
    FaceModelError,
    builtin_models,
    face_features,
    pattern_distance,
)
from companion.vision.render import FACES, render_throw

SIZE = (960, 720)


def _throws(artwork, seed, count=3, hard=False):
    return [
        render_throw(seed + i, 10, kind="bock", size=SIZE, hard=hard, artwork=artwork)
        for i in range(count)
    ]


@pytest.mark.parametrize("artwork", ["stencil", "badge"])
def test_every_die_of_a_set_of_unknown_artwork_is_flagged(artwork):
    recognizer = BockRecognizer()
    for throw in _throws(artwork, 610):
        reading = recognizer.read(throw.image)
        assert len(reading.dice) >= 8
        assert all(d.uncertain and d.value is None for d in reading.dice)
    assert recognizer.unfamiliar


def test_the_builtin_set_is_familiar_and_read():
    recognizer = BockRecognizer()
    for throw in _throws("classic", 620, hard=True):
        reading = recognizer.read(throw.image)
        assert sorted(map(str, reading.values)) == sorted(d.value for d in throw.dice)
    assert not recognizer.unfamiliar


@pytest.fixture(scope="module")
def badge_models():
    recognizer = BockRecognizer()
    models = {}
    for k, face in enumerate(FACES):
        frames = [
            render_throw(700 + 10 * k + i, 6, kind="bock", size=SIZE, artwork="badge",
                         faces=[face] * 6).image
            for i in range(3)
        ]
        models[face] = enrol_face(face, frames, recognizer, models).model
    return models


def test_an_enrolled_set_of_unknown_artwork_is_read(badge_models):
    recognizer = BockRecognizer(models=badge_models)
    right = sure_wrong = 0
    for throw in _throws("badge", 630, count=4):
        reading = recognizer.read(throw.image)
        for truth in throw.dice:
            die = min(reading.dice, key=lambda d: np.hypot(*np.subtract(d.region.center,
                                                                        truth.center)))
            right += die.value == truth.value
            sure_wrong += not die.uncertain and die.value != truth.value
    assert not recognizer.unfamiliar
    assert right >= 39 and sure_wrong == 0
    # The enrolled drawings are kept with the colours.
    assert all(m.pattern is not None and len(m.pattern) == PATTERN_SIZE
               for m in badge_models.values())


def test_a_die_is_near_its_own_drawing_at_any_quarter_turn():
    models = builtin_models()
    throw = render_throw(640, 10, kind="bock", size=SIZE, faces=list(FACES) + ["bock"] * 4)
    for die in throw.dice:
        feats = face_features(throw.image, die.center, die.size, die.angle)
        own = pattern_distance(feats.pattern, np.array(models[die.value].pattern, np.float32))
        # A wolf is drawn light on dark, a bock dark on light: the most unlike pair.
        other = "wolf" if die.value == "bock" else "bock"
        theirs = pattern_distance(feats.pattern, np.array(models[other].pattern, np.float32))
        assert own < 0.28 and own < theirs, die.value


def test_faces_enrolled_too_close_together_are_never_read_surely():
    models = builtin_models()
    yellow = models["goat_yellow"]
    # A green goat enrolled where the yellow one lies: the two cannot be told apart.
    near = FaceModel("goat_green", tuple(v + 0.02 for v in yellow.mean), yellow.spread, 12)
    classifier = FaceClassifier({"goat_green": near})
    assert classifier.confusable == {"goat_green", "goat_yellow"}
    verdict = classifier.classify_vector(np.array(yellow.mean, np.float32))
    assert verdict.uncertain and verdict.face is None
    assert FaceClassifier().confusable == frozenset()
    assert MIN_SEPARATION > 1


def test_a_model_keeps_its_drawing_and_rejects_a_broken_one():
    model = builtin_models()["bock"]
    again = FaceModel.from_dict("bock", model.to_dict())
    assert np.allclose(again.pattern, model.pattern, atol=1e-3)
    old = {k: v for k, v in model.to_dict().items() if k != "pattern"}
    assert FaceModel.from_dict("bock", old).pattern is None
    with pytest.raises(FaceModelError, match="pattern"):
        FaceModel.from_dict("bock", {**old, "pattern": [0.5] * 3})
