"""Enrolling a rendered Rock the Bock set the way a table does: three frames per face."""

from __future__ import annotations

import numpy as np

from companion.synth.render import RenderedThrow, render_throw
from companion.vision.enrol import enrol_face
from companion.vision.faces import BockRecognizer
from companion.vision.faces_look import FACES
from companion.vision.faces_models import FaceModel


def enrolled_models(artwork: str, seed: int, size: tuple[int, int]) -> dict[str, FaceModel]:
    """Face models of the ``artwork`` set, each face enrolled from three rendered frames of
    six dice showing it (seeds ``seed + 10 * k + i`` for face k, frame i)."""
    recognizer = BockRecognizer()
    models: dict[str, FaceModel] = {}
    for k, face in enumerate(FACES):
        frames = [
            render_throw(seed + 10 * k + i, 6, kind="bock", size=size, artwork=artwork,
                         faces=[face] * 6).image
            for i in range(3)
        ]
        models[face] = enrol_face(face, frames, recognizer, models).model
    return models


def enrolled_at_the_table(
    artwork: str, seed: int, setup: str, recognizer: BockRecognizer
) -> dict[str, FaceModel]:
    """Face models of the ``artwork`` set enrolled as a table does through its camera:
    three frames of six dice per face (seeds as ``enrolled_models``), rendered throws
    composed into the camera set-up ``setup`` (``companion.synth.scene.SETUPS``) and
    measured through ``recognizer``'s calibrated tray."""
    from companion.synth.scene import SETUPS, compose, tray_floor

    rng = np.random.default_rng(seed)
    models: dict[str, FaceModel] = {}
    for k, face in enumerate(FACES):
        frames = [
            compose(*tray_floor(render_throw(seed + 10 * k + i, 6, kind="bock",
                                             artwork=artwork, faces=[face] * 6)),
                    SETUPS[setup], rng).frame
            for i in range(3)
        ]
        models[face] = enrol_face(face, frames, recognizer, models).model
    return models


def read_surely(recognizer: BockRecognizer, throws: list[RenderedThrow]) -> tuple[int, int]:
    """How many of the ``throws``' dice ``recognizer`` reads right surely, and how many
    surely wrong (a flagged die proposes a face too, and counts as neither)."""
    right = sure_wrong = 0
    for throw in throws:
        reading = recognizer.read(throw.image)
        for truth in throw.dice:
            die = min(reading.dice, key=lambda d: np.hypot(*np.subtract(d.region.center,
                                                                        truth.center)))
            right += not die.uncertain and die.value == truth.value
            sure_wrong += not die.uncertain and die.value != truth.value
    return right, sure_wrong
