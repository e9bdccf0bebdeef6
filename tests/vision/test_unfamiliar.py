"""Sets the models never saw: flagged out of the box, read once enrolled; drawings checked."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from bockenrol import enrolled_at_the_table, enrolled_models, read_surely

from companion.synth.render import render_throw
from companion.vision.combine import combine_readings
from companion.vision.enrol import enrol_face
from companion.vision.faces import BockRecognizer
from companion.vision.faces_classify import MIN_SEPARATION, FaceClassifier
from companion.vision.faces_features import (
    PATTERN_SIZE,
    TINT_SIZE,
    face_features,
    pattern_distance,
)
from companion.vision.faces_look import FACES
from companion.vision.faces_models import (
    BRIGHT_DICE,
    FaceModel,
    FaceModelError,
    builtin_models,
)

SIZE = (960, 720)


def _throws(artwork, seed, count=3, hard=False):
    return [
        render_throw(seed + i, 10, kind="bock", size=SIZE, hard=hard, artwork=artwork)
        for i in range(count)
    ]


@pytest.mark.parametrize("artwork", ["stencil", "badge", "etched", "mosaic", "woodcut"])
@pytest.mark.parametrize("look_for_tray", [False, True])
def test_every_die_of_a_set_of_unknown_artwork_is_flagged(artwork, look_for_tray):
    # Also as the runtime reads without a calibration: the tray looked for in the frame.
    recognizer = BockRecognizer(look_for_tray=look_for_tray)
    readings = []
    for throw in _throws(artwork, 610):
        reading = recognizer.read(throw.image)
        assert len(reading.dice) >= 8
        assert all(d.uncertain and d.value is None for d in reading.dice)
        readings.append(reading)
    assert recognizer.unfamiliar
    # The reading says so too (the dashboard shows "enrol your set"), also once combined.
    assert readings[-1].unfamiliar
    assert combine_readings(readings[1:]).unfamiliar


def test_the_builtin_set_is_familiar_and_read():
    recognizer = BockRecognizer()
    for throw in _throws("classic", 620, hard=True):
        reading = recognizer.read(throw.image)
        assert sorted(map(str, reading.values)) == sorted(d.value for d in throw.dice)
        assert not reading.unfamiliar
    assert not recognizer.unfamiliar


@pytest.fixture(scope="module")
def badge_models():
    return enrolled_models("badge", 700, SIZE)


def test_an_enrolled_set_of_unknown_artwork_is_read(badge_models):
    recognizer = BockRecognizer(models=badge_models)
    # Its wolf and bock show a bright part on most enrolled dice, its goats do not: too
    # few faces to read the set with bright pixels kept as print (``reads_bright``).
    assert sum(badge_models[f].bright >= BRIGHT_DICE for f in FACES) == 2
    assert not recognizer.keep_bright
    right, sure_wrong = read_surely(recognizer, _throws("badge", 630, count=4))
    assert not recognizer.unfamiliar
    # 39 of 40 on OpenCV 5, 38 on OpenCV 4.6: wolves under a large reflection lie just
    # beyond max_distance (2.7) once the glare and its rim are left out, and are flagged.
    assert right >= 38 and sure_wrong == 0
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


@pytest.fixture(scope="module")
def stencil_models():
    recognizer = BockRecognizer()
    models = {}
    for k, face in enumerate(FACES):
        frames = [
            render_throw(800 + 10 * k + i, 6, kind="bock", size=SIZE, artwork="stencil",
                         faces=[face] * 6).image
            for i in range(3)
        ]
        models[face] = enrol_face(face, frames, recognizer, models).model
    return models


def _goat_throws(seed, count):
    """Hard stencil frames: one die of each other face, three of each of the two goats."""
    faces = ["wolf", "bock", "goat_red", "goat_blue"] + ["goat_green", "goat_yellow"] * 3
    return [
        render_throw(seed + i, 10, kind="bock", size=SIZE, hard=True, artwork="stencil",
                     faces=faces)
        for i in range(count)
    ]


def _read_goats(recognizer, throws):
    right = sure_wrong = flagged = 0
    for throw in throws:
        reading = recognizer.read(throw.image)
        for truth in throw.dice:
            die = min(reading.dice, key=lambda d: np.hypot(*np.subtract(d.region.center,
                                                                        truth.center)))
            if truth.value not in ("goat_green", "goat_yellow"):
                continue
            # Read right surely (a flagged die proposes a face too, and is counted flagged).
            right += not die.uncertain and die.value == truth.value
            sure_wrong += not die.uncertain and die.value != truth.value
            flagged += die.uncertain
    return right, sure_wrong, flagged


def test_goats_that_differ_only_in_hue_are_told_apart_by_the_frames_light(stencil_models):
    # The stencil set's goats are the same dark print on lime and on mustard: under a
    # strong cast the ratios cannot tell them apart, their colours less the cast can.
    assert FaceClassifier(stencil_models).confusable == {"goat_green", "goat_yellow"}
    throws = _goat_throws(660, 4)
    right, sure_wrong, flagged = _read_goats(BockRecognizer(models=stencil_models), throws)
    assert right >= 18 and sure_wrong <= 1, (right, sure_wrong, flagged)
    # Models enrolled before tints were kept: the pair is never read (or only wrongly).
    old = {f: replace(m, tint=None) for f, m in stencil_models.items()}
    right, sure_wrong, flagged = _read_goats(BockRecognizer(models=old), throws)
    assert right == 0 and flagged >= 20


def test_goats_left_uncertain_are_read_by_the_frames_own_sure_goats(stencil_models, monkeypatch):
    # Lime and mustard goats in hard light: a goat the cast leaves unclear is read by the
    # sure goats beside it, lit alike; without that rule it stays flagged.
    throws = _goat_throws(1660, 40)
    right, sure_wrong, flagged = _read_goats(BockRecognizer(models=stencil_models), throws)
    import companion.vision.faces as faces_module

    monkeypatch.setattr(faces_module, "NEIGHBOUR_NEAR", -1.0)
    alone = _read_goats(BockRecognizer(models=stencil_models), throws)
    # These 40 frames: 2 goats flagged without the rule are read right with it (the
    # spotter that ships leaves fewer goats unclear than the one before: over frames
    # 1660-1759, 11 flagged without the rule, 7 with it; the one before, 11 and 3).
    assert alone[2] >= flagged + 2 and right >= alone[0] + 2, (right, sure_wrong, flagged, alone)
    assert sure_wrong <= alone[1], (sure_wrong, alone)


def test_what_the_neighbours_say(stencil_models):
    recognizer = BockRecognizer(models=stencil_models)
    pair = ["goat_green", "goat_yellow"]
    green = np.array([0.3, 0.1, -0.4])
    step = np.asarray(stencil_models["goat_yellow"].tint) - np.asarray(
        stencil_models["goat_green"].tint)
    yellow = green + step  # where the enrolled colours put the yellow goats in this light
    both = {"goat_green": green, "goat_yellow": yellow}
    assert recognizer._neighbours_say(yellow + 0.02, pair, both) == "goat_yellow"
    assert recognizer._neighbours_say(green - 0.02, pair, both) == "goat_green"
    assert recognizer._neighbours_say((green + yellow) / 2, pair, both) is None
    assert recognizer._neighbours_say(yellow + 0.5, pair, both) is None  # near neither
    # Sure dice of one goat only: the other's place follows from the enrolled colours.
    assert recognizer._neighbours_say(yellow, pair, {"goat_green": green}) == "goat_yellow"
    assert recognizer._neighbours_say(green, pair, {"goat_yellow": yellow}) == "goat_green"
    assert recognizer._neighbours_say(green, pair, {}) is None


def test_two_overlapping_faces_need_their_colour_to_differ_from_each_other_only():
    # As the etched set enrols: bock's ratios on wolf's (a cream and a lavender face with
    # the same dark lines), and the blue goat's colour near the wolf's lavender. The
    # ratios rule the blue goat out; the colour has only to tell the wolf from the bock.
    base = builtin_models()
    wolf, bock, blue = base["wolf"], base["bock"], base["goat_blue"]
    lavender, cream = (0.12, -0.2, 0.08), (-0.25, 0.05, 0.2)
    models = {
        "wolf": replace(wolf, tint=lavender, pattern=None),
        "bock": replace(bock, mean=wolf.mean, spread=wolf.spread, tint=cream, pattern=None),
        "goat_blue": replace(blue, tint=(0.15, -0.22, 0.07)),
    }
    classifier = FaceClassifier(models)
    assert {"wolf", "bock"} <= classifier.confusable and "goat_blue" not in classifier.confusable
    x, cast = np.array(wolf.mean, np.float32), np.zeros(TINT_SIZE, np.float32)
    as_wolf = classifier.classify_vector(x, tint=np.array(lavender, np.float32), cast=cast)
    as_bock = classifier.classify_vector(x, tint=np.array(cream, np.float32), cast=cast)
    assert (as_wolf.face, as_bock.face) == ("wolf", "bock"), (as_wolf, as_bock)
    # Halfway between the two faces' colours the colour tells nothing: flagged.
    middle = np.array([(a + b) / 2 for a, b in zip(lavender, cream, strict=True)], np.float32)
    assert classifier.classify_vector(x, tint=middle, cast=cast).uncertain


def test_the_frames_cast_is_measured_on_the_dice():
    classifier = FaceClassifier()
    throw = render_throw(670, 10, kind="bock", size=SIZE, hard=True)

    def cast_of(image):
        feats = [face_features(image, d.center, d.size, d.angle) for d in throw.dice]
        return classifier.frame_cast([f.vector() for f in feats], [f.tint() for f in feats])

    cast = cast_of(throw.image)
    assert cast is not None and abs(float(cast.sum())) < 1e-4
    # A cast put on the frame shows in the estimate: more red, less blue.
    tinted = np.clip(throw.image * np.array([0.7, 1.0, 1.3]), 0, 255).astype(np.uint8)
    cast2 = cast_of(tinted)
    assert cast2[2] - cast[2] > 0.15 and cast2[0] - cast[0] < -0.15
    assert classifier.frame_cast([], []) is None


def test_a_model_keeps_its_tint_and_rejects_a_broken_one():
    model = builtin_models()["goat_red"]
    assert model.tint is not None and len(model.tint) == TINT_SIZE
    again = FaceModel.from_dict("goat_red", model.to_dict())
    assert np.allclose(again.tint, model.tint, atol=1e-3)
    old = {k: v for k, v in model.to_dict().items() if k != "tint"}
    assert FaceModel.from_dict("goat_red", old).tint is None
    with pytest.raises(FaceModelError, match="tint"):
        FaceModel.from_dict("goat_red", {**old, "tint": [0.1, "x"]})


@pytest.mark.parametrize(("artwork", "familiar"), [
    ("classic", True), ("stencil", False), ("etched", False), ("mosaic", False),
])
def test_small_dice_in_a_camera_frame_are_judged_familiar_by_their_set_not_their_size(
    artwork, familiar
):
    # A webcam high over the tray sees the dice about 27 pixels across; enlarged to be
    # read, the built-in set under rough light lay as far from its models as an unknown
    # set and was taken for one: every die left unread. Unknown artwork stays unknown.
    from companion.synth.scene import SETUPS, compose, tray_floor
    from companion.vision.tray import calibrate_tray

    rng = np.random.default_rng(17)
    recognizer = None
    for i in range(4):
        throw = render_throw(
            1700 + i, 10, kind="bock", size=(1280, 960), hard=True, artwork=artwork
        )
        scene = compose(*tray_floor(throw), SETUPS["webcam-small"], rng)
        if recognizer is None:
            corners = tuple((float(x), float(y)) for x, y in scene.corners)
            recognizer = BockRecognizer(calibrate_tray(scene.frame, corners))
        reading = recognizer.read(scene.frame)
        assert len(reading.dice) >= 8
        assert recognizer.die_size(scene.frame) < 32
        assert reading.unfamiliar is not familiar
        if familiar:
            assert sum(d.value is not None for d in reading.dice) >= 8
        else:
            assert all(d.uncertain and d.value is None for d in reading.dice)


@pytest.mark.parametrize(("artwork", "familiar"), [("classic", True), ("stencil", False)])
def test_a_set_enrolled_from_small_dice_knows_another_set_by_its_look(artwork, familiar):
    # Enrolled at the table from a webcam high over the tray (dice about 27 pixels
    # across), the models' colours lay nearly as near another maker's set as their own
    # set under rough light: the stencil set was read, surely and mostly wrong. The
    # enrolled dice's looks tell the sets apart (``FAMILIAR_LOOK``).
    from companion.synth.scene import SETUPS, compose, tray_floor
    from companion.vision.tray import calibrate_tray

    rng = np.random.default_rng(23)
    scenes = [
        compose(*tray_floor(render_throw(1800 + i, 10, kind="bock", hard=i % 2 == 1,
                                         artwork=artwork)), SETUPS["webcam-small"], rng)
        for i in range(4)
    ]
    corners = tuple((float(x), float(y)) for x, y in scenes[0].corners)
    profile = calibrate_tray(scenes[0].frame, corners)
    models = enrolled_at_the_table("classic", 770, "webcam-small", BockRecognizer(profile))
    recognizer = BockRecognizer(profile, models=models)
    for scene in scenes:
        reading = recognizer.read(scene.frame)
        assert len(reading.dice) >= 8
        assert reading.unfamiliar is not familiar
        if familiar:
            assert sum(d.value is not None and not d.uncertain for d in reading.dice) >= 8
        else:
            assert all(d.uncertain and d.value is None for d in reading.dice)


def test_a_face_enrolled_from_too_few_looks_leaves_the_look_check_off(badge_models):
    # One frame of three dice per face keeps three looks a face: a set's own dice lay
    # up to 0.62 from so few and a frame in ten was taken for another set. Below
    # FAMILIAR_LOOKS_MIN looks of any face the set is judged by its colours alone.
    from companion.vision.faces_classify import FAMILIAR_LOOKS_MIN

    throw = render_throw(640, 10, kind="bock", size=SIZE, artwork="badge")
    samples, _ = BockRecognizer(models=badge_models).sample(throw.image)
    looks = [s.features.appearance for s in samples if s.features.appearance is not None]
    assert looks
    assert all(len(m.looks) >= FAMILIAR_LOOKS_MIN for m in badge_models.values())
    full = FaceClassifier(badge_models)
    assert all(full.look_distance(a) is not None for a in looks)
    thin = dict(badge_models)
    thin["goat_red"] = replace(thin["goat_red"], looks=thin["goat_red"].looks[:3])
    assert all(FaceClassifier(thin).look_distance(a) is None for a in looks)
    # The look's other uses stay on with few looks (the veto of another animal's look).
    assert FaceClassifier(thin).looks is not None
