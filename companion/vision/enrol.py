"""Enrolment: teach the classifier the table's own Rock the Bock dice, from frames only.

Guided capture, one face at a time: the players turn several dice to the same face (say
all ten to ``goat_yellow``), the camera takes a few frames, and ``enrol_face`` measures
every die it finds. The face's model becomes the robust mean of those measurements; its
spread is at least the built-in spread, because the enrolment frames show one light
while the game will see others. A die that measures far from the rest (one left on a
different face) is dropped and counted in the result.

Storage: the models live in the calibration profile (the tray profile's JSON file, see
``companion.vision.tray``) under an extra top-level key that the tray code ignores::

    "faces": {"version": 1,
              "models": {"goat_yellow": {"mean": [...], "spread": [...], "count": 30}, ...}}

``mean`` and ``spread`` follow ``faces_features.FEATURE_NAMES``; each model also keeps its drawing
(``pattern``) and its lighter colour without brightness (``tint``, see
``FaceFeatures.tint``), which the recogniser compares under each frame's light, and the
looks of the dice it was learnt from (``looks``: each die's whole print as a small
cast-free picture, ``faces_appearance``), which tell the animals apart where glare or a
dim cast fool the colours. Every face is also learnt with bright pixels kept as print
(``kept``) with the share of its dice that showed a bright part (``bright``); a set most
of whose faces print a small bright skull is read by those (``faces_models.reads_bright``).
Models enrolled before tints or looks were kept still load;
a face pair they cannot tell apart by the ratios then stays flagged, and without looks
the look is not checked (enrol again). ``save_models`` rewrites only that key and keeps
everything else in the file; a file that does not exist yet is created with just the
faces section (``companion calibrate tray`` can add the tray later).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from companion.vision.faces import BockRecognizer, FaceSample
from companion.vision.faces_classify import FaceClassifier
from companion.vision.faces_features import BRIGHT_SHARE, FEATURE_NAMES, align_patterns
from companion.vision.faces_look import FACES
from companion.vision.faces_models import (
    BUILTIN_SPREAD,
    MAX_LOOKS,
    FaceModel,
    FaceModelError,
    as_read,
    nearest_face,
)
from companion.vision.tray import TrayProfile, update_profile_file

FACES_VERSION = 1
MIN_DICE = 3  # fewer measured dice than this give no trustworthy model


@dataclass(frozen=True)
class Enrolment:
    """The outcome of enrolling one face."""

    model: FaceModel
    frames: int
    dice: int  # dice measured and kept
    dropped: int  # dice that measured unlike the rest (probably showing another face)
    nearest: str  # the other face whose model lies closest to the new one
    separation: float  # normalised distance to that face; below ~3 the two may be confused


def enrol_face(
    face: str,
    frames: Iterable[np.ndarray],
    recognizer: BockRecognizer | None = None,
    current: Mapping[str, FaceModel] | None = None,
) -> Enrolment:
    """Learn ``face`` from frames in which (almost) every die shows it.

    ``recognizer`` supplies the die finder, tray profile and colour reference (default:
    none); ``current`` are the models already enrolled, used to report how far the new
    face lies from the others. Raises ``FaceModelError`` for an unknown face or when
    fewer than ``MIN_DICE`` dice were found.
    """
    if face not in FACES:
        raise FaceModelError(f"unknown face {face!r}; use one of {', '.join(FACES)}")
    recognizer = recognizer or BockRecognizer()
    # Every die is measured both ways: with what is far brighter than most of its face
    # left out as glare, and with every pixel kept as print (``faces_models.reads_bright``
    # chooses, once the whole set is enrolled).
    plain: list[FaceSample] = []
    bright: list[FaceSample] = []
    n_frames = 0
    for frame in frames:
        n_frames += 1
        samples, _ = recognizer.sample(frame, keep_bright=False)
        again, _ = recognizer.sample(frame, keep_bright=True)
        plain.extend(samples)
        bright.extend(again)
    if len(plain) < MIN_DICE:
        raise FaceModelError(
            f"found only {len(plain)} dice in {n_frames} frame(s) for {face}; turn at least"
            f" {MIN_DICE} dice to {face}, lay them apart in the tray and capture again",
            key="enrol_too_few", found=len(plain), frames=n_frames, least=MIN_DICE,
        )
    model, keep = _learn(face, plain)
    try:
        kept: FaceModel | None = _learn(face, bright)[0]
    except FaceModelError:  # too few dice measured that way: the set reads the plain way
        kept = None
    shows = np.array([s.features.bright >= BRIGHT_SHARE for s in plain])
    model = replace(model, bright=float(shows[keep].mean()), kept=kept)
    others = dict(FaceClassifier(current).models)
    others[face] = model
    nearest, separation = nearest_face(as_read(others), face)
    return Enrolment(
        model=model,
        frames=n_frames,
        dice=int(keep.sum()),
        dropped=int(len(plain) - keep.sum()),
        nearest=nearest,
        separation=round(separation, 2),
    )


def _learn(face: str, samples: list[FaceSample]) -> tuple[FaceModel, np.ndarray]:
    """The model of ``face`` from the dice ``samples``, and which of them it kept (a die
    far from the rest is dropped)."""
    data = np.array([s.vector for s in samples], np.float32)
    median = np.median(data, axis=0)
    mad = np.median(np.abs(data - median), axis=0) * 1.4826
    scale = np.maximum(mad, BUILTIN_SPREAD * 0.5)
    keep = (np.abs(data - median) / scale).max(axis=1) <= 4.0
    kept = data[keep]
    if len(kept) < MIN_DICE:
        raise FaceModelError(
            f"the dice in the {face} frames disagree with each other; check that every die"
            f" shows {face} and capture again",
            key="enrol_disagree",
        )
    spread = np.maximum(kept.std(axis=0), BUILTIN_SPREAD)
    patterns = np.array([s.features.pattern for s in samples])
    tints = np.array([s.features.tint() for s in samples], np.float32)
    model = FaceModel(
        face=face,
        mean=tuple(float(v) for v in kept.mean(axis=0)),
        spread=tuple(float(v) for v in spread),
        count=int(len(kept)),
        pattern=tuple(float(v) for v in align_patterns(patterns[keep])),
        tint=tuple(float(v) for v in tints[keep].mean(axis=0)),
        looks=_kept_looks([s.features.appearance for s in samples], keep),
    )
    return model, keep


def _kept_looks(
    looks: list[np.ndarray | None], keep: np.ndarray
) -> tuple[tuple[float, ...], ...] | None:
    """The appearances of the kept dice, at most ``MAX_LOOKS`` spread over all frames
    (a die whose print glare hid, all NaN, shows nothing to keep)."""
    kept = [
        look for look, k in zip(looks, keep, strict=True)
        if k and look is not None and not np.isnan(look).all()
    ]
    if not kept:
        return None
    pick = np.linspace(0, len(kept) - 1, min(len(kept), MAX_LOOKS)).round().astype(int)
    return tuple(tuple(float(v) for v in kept[i]) for i in pick)


def load_models(path: Path | str) -> dict[str, FaceModel]:
    """The enrolled face models in the profile at ``path`` (empty when none are enrolled)."""
    data = _read(Path(path))
    section = data.get("faces")
    if section is None:
        return {}
    if not isinstance(section, dict) or section.get("version") != FACES_VERSION:
        raise FaceModelError(
            f"{path}: the faces section has an unsupported version; enrol the faces again"
        )
    models = section.get("models", {})
    if not isinstance(models, dict):
        raise FaceModelError(f"{path}: faces.models must be an object; enrol the faces again")
    return {face: FaceModel.from_dict(face, m) for face, m in models.items()}


def save_models(path: Path | str, models: Mapping[str, FaceModel]) -> None:
    """Store ``models`` in the profile at ``path``, keeping the rest of the file."""
    update_profile_file(path, {
        "faces": {
            "version": FACES_VERSION,
            "features": list(FEATURE_NAMES),
            "models": {face: models[face].to_dict() for face in FACES if face in models},
        }
    })


def load_recognizer(path: Path | str | None, finder: str = "auto") -> BockRecognizer:
    """A ``BockRecognizer`` with the tray profile and enrolled faces at ``path``, if any;
    without a tray calibration it looks for the tray in the frame (``look_for_tray``).

    A file holding only a faces section (no tray calibration yet) is fine. ``finder`` is
    passed on (``auto``, ``spotter`` or ``classic``).
    """
    if path is None:
        return BockRecognizer(finder=finder, look_for_tray=True)
    data = _read(Path(path))
    profile = None
    if "corners" in data:
        profile = TrayProfile.from_dict(data)
    return BockRecognizer(
        profile=profile, models=load_models(path), finder=finder, look_for_tray=True
    )


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FaceModelError(
            f"no calibration profile at {path}; run `companion calibrate tray` or enrol a face"
        ) from None
    except json.JSONDecodeError as exc:
        raise FaceModelError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise FaceModelError(f"{path} must hold a JSON object")
    return data
