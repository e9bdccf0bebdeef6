"""The Rock the Bock face classifier: features, colour casts, uncertainty, the recognizer."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.synth.render import render_throw
from companion.vision.faces import BockRecognizer
from companion.vision.faces_classify import FaceClassifier
from companion.vision.faces_features import FEATURE_NAMES, FaceFeatures, face_features
from companion.vision.faces_look import FACES
from companion.vision.faces_models import FaceModel, FaceModelError, builtin_models
from companion.vision.faces_topface import fit_top_face
from companion.vision.tray import TrayProfile
from companion.vision.types import DieRegion

SIZE = (960, 720)


def _classify_truth(throw, classifier, gains=None):
    out = []
    for die in throw.dice:
        feats = face_features(throw.image, die.center, die.size, die.angle, gains)
        out.append(classifier.classify(feats))
    return out


@pytest.mark.parametrize("hard", [False, True])
def test_every_face_is_read_at_its_top_face(hard):
    classifier = FaceClassifier()
    faces = list(FACES) + ["bock", "wolf", "goat_yellow", "goat_red"]
    for seed in range(3):
        throw = render_throw(300 + seed, 10, kind="bock", size=SIZE, hard=hard, faces=faces)
        verdicts = _classify_truth(throw, classifier)
        assert [v.face for v in verdicts] == [d.value for d in throw.dice]
        assert all(v.confidence >= 0.9 and not v.uncertain for v in verdicts)


def _cast(image, gains):
    out = image.astype(np.float32) * np.array(gains, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_warm_pub_light_does_not_turn_yellow_into_red():
    faces = ["goat_yellow"] * 4 + ["goat_red"] * 4
    throw = render_throw(21, 8, kind="bock", size=SIZE, faces=faces)
    # Strong tungsten light: blue nearly gone, green reduced. Uncorrected, the yellow
    # goats' background is now orange in the raw pixels.
    warm = _cast(throw.image, (0.3, 0.6, 1.0))
    die = throw.dice[0]
    raw = face_features(warm, die.center, die.size, die.angle)
    b, g, r = raw.dark
    assert r > 1.6 * g and r > 4 * b  # the pixels themselves look orange
    classifier = FaceClassifier()
    for die, verdict in zip(throw.dice, _classify_truth(throw, classifier), strict=True):
        assert verdict.face == die.value
    warm_throw = type(throw)(**{**throw.__dict__, "image": warm})
    read = [v.face for v in _classify_truth(warm_throw, classifier)]
    assert read == [d.value for d in throw.dice]


def test_profile_colour_reference_balances_the_measured_colours():
    throw = render_throw(22, 3, kind="bock", size=SIZE, faces=["bock"] * 3)
    warm = _cast(throw.image, (0.5, 0.8, 1.0))
    die = throw.dice[0]
    # The floor of this profile looked warm in the same way under the same light.
    profile = TrayProfile((960, 720), ((0, 0), (960, 0), (960, 720), (0, 720)), None, (50, 80, 100))
    gains = np.array(profile.white_balance_gains(), np.float32)
    plain = face_features(warm, die.center, die.size, die.angle)
    balanced = face_features(warm, die.center, die.size, die.angle, gains)

    def spread(bgr):
        return max(bgr) / min(bgr)

    # The white background of the bock face is neutral again once balanced.
    assert spread(plain.light) > 1.6
    assert spread(balanced.light) < 1.25


def test_a_colour_between_two_faces_is_flagged_not_guessed():
    classifier = FaceClassifier()
    red = classifier.classify(FaceFeatures((230, 236, 242), (42, 38, 196), 0.8, 0.28))
    assert red.face == "goat_red" and not red.uncertain
    # Orange: halfway between the red and the yellow goat's background.
    orange = classifier.classify(FaceFeatures((230, 236, 242), (40, 120, 216), 0.8, 0.28))
    assert orange.uncertain and orange.face is None
    assert orange.best in ("goat_red", "goat_yellow")
    # Purple is no face at all: far from every model.
    purple = classifier.classify(FaceFeatures((230, 236, 242), (200, 40, 160), 0.8, 0.28))
    assert purple.uncertain and purple.face is None and purple.distance > 4


def test_bock_and_wolf_differ_by_which_colour_the_skull_is():
    classifier = FaceClassifier()
    # The same two greys: a light skull on a dark face is a wolf, the reverse a bock.
    wolf = classifier.classify(FaceFeatures((180, 180, 180), (60, 60, 60), 0.8, 0.3))
    bock = classifier.classify(FaceFeatures((180, 180, 180), (40, 40, 40), 0.25, 0.7))
    assert (wolf.face, bock.face) == ("wolf", "bock")


def test_builtin_models_are_far_apart():
    models = builtin_models()
    assert set(models) == set(FACES)
    for a in FACES:
        for b in FACES:
            if a < b:
                ma, mb = models[a], models[b]
                z = (np.array(ma.mean) - np.array(mb.mean)) / np.maximum(ma.spread, mb.spread)
                assert math.sqrt((z * z).sum()) > 4, (a, b)


def test_face_model_round_trip_and_errors():
    model = builtin_models()["goat_green"]
    again = FaceModel.from_dict("goat_green", model.to_dict())
    assert np.allclose(again.mean, model.mean, atol=1e-4)
    with pytest.raises(FaceModelError, match="unknown face"):
        FaceModel.from_dict("sheep", model.to_dict())
    with pytest.raises(FaceModelError, match="malformed"):
        FaceModel.from_dict("wolf", {"mean": [1, 2]})
    bad = {"mean": [0.0] * len(FEATURE_NAMES), "spread": [0.0] * len(FEATURE_NAMES), "count": 3}
    with pytest.raises(FaceModelError, match="positive spreads"):
        FaceModel.from_dict("wolf", bad)


def test_top_face_is_found_inside_a_loose_region():
    throw = render_throw(23, 4, kind="bock", size=SIZE)
    errors = []
    for k, die in enumerate(throw.dice):
        # A region like a finder's that took in a side wall: 30 % larger, off-centre.
        shift = 0.15 * die.size
        dx, dy = (shift, 0.0) if k % 2 else (0.0, -shift)
        loose = DieRegion(
            center=(die.center[0] + dx, die.center[1] + dy),
            size=die.size * 1.3,
            angle=die.angle,
            corners=die.corners,
            confidence=0.8,
        )
        # The die edge is known, as from the tray calibration or the frame's other dice.
        center, edge, angle = fit_top_face(throw.image, loose, edge=die.size)
        errors.append(math.dist(center, die.center) / die.size)
        assert 0.9 * die.size < edge < 1.1 * die.size
        turn = abs(angle - die.angle) % 90
        assert min(turn, 90 - turn) < 6
    # The sampled disc (0.3 edge) stays on the print (0.42 edge) if off by < 0.12; near
    # the frame's rim, where side walls are wide, the fit slips a little further.
    assert np.mean(errors) < 0.08 and max(errors) < 0.15


def test_recognizer_reads_a_throw_with_timings():
    throw = render_throw(5, 6, kind="bock", size=SIZE)
    reading = BockRecognizer(finder="classic").read(throw.image)
    assert reading.kind == "bock" and reading.frame_size == SIZE
    assert sorted(reading.values) == sorted(d.value for d in throw.dice)
    for die in reading.dice:
        truth = min(throw.dice, key=lambda d: math.dist(d.center, die.region.center))
        assert math.dist(truth.center, die.region.center) < 0.2 * truth.size
        assert die.value == truth.value and not die.uncertain
    assert set(reading.timings_ms) == {"find", "locate", "measure", "classify", "total"}
    assert reading.timings_ms["total"] >= reading.timings_ms["find"]


def test_a_flagged_die_proposes_its_nearest_face():
    # A die the classifier is not sure of stays flagged, but says which face it is most
    # like (as a flagged pip die proposes its value): the scorekeeper confirms or
    # corrects it, and the evaluation scores that proposal. Demanding a confidence
    # no read reaches flags every die of a throw the recogniser otherwise reads right.
    throw = render_throw(5, 6, kind="bock", size=SIZE)
    recognizer = BockRecognizer(finder="classic", min_confidence=1.01)
    reading = recognizer.read(throw.image)
    assert len(reading.dice) == len(throw.dice)
    assert all(d.uncertain for d in reading.dice) and reading.uncertain
    assert sorted(reading.values) == sorted(d.value for d in throw.dice)
    assert not recognizer.unfamiliar


def test_recognizer_ignores_an_empty_tray():
    tray = np.full((480, 640, 3), (120, 122, 124), np.uint8)
    reading = BockRecognizer().read(tray)
    assert reading.dice == ()


def test_a_die_measured_off_its_face_is_looked_at_again():
    throw = render_throw(5, 6, kind="bock", size=SIZE)
    plain = BockRecognizer(finder="classic")  # the top-face fit is the classical path's
    truth = {d.center: d for d in throw.dice}

    def slipped(frame, regions, width):
        # As if the top-face fit had slid a quarter edge onto the side wall.
        out = []
        for region in regions:
            die = min(truth.values(), key=lambda d: math.dist(d.center, region.center))
            a = math.radians(die.angle)
            shift = 0.25 * die.size
            center = (die.center[0] + math.cos(a) * shift, die.center[1] + math.sin(a) * shift)
            out.append((center, die.size, die.angle))
        return out

    plain._locate = slipped
    reading = plain.read(throw.image)
    assert sorted(reading.values) == sorted(d.value for d in throw.dice)
    assert not reading.uncertain
    for die in reading.dice:
        nearest = min(throw.dice, key=lambda d: math.dist(d.center, die.region.center))
        assert math.dist(nearest.center, die.region.center) < 0.25 * nearest.size
