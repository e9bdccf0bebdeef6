"""Face models: the mean and spread of a face's features, built in or enrolled.

Each face has a model: the mean and spread of its features (``faces_features``), its
drawing and its lighter colour. Built-in models come from the picture of the built-in set
(``faces_look``); enrolment (``companion.vision.enrol``) replaces them face by face with
what the table's own dice look like.
"""

from __future__ import annotations

import base64
import binascii
import functools
import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.faces_appearance import APPEARANCE_LENGTH
from companion.vision.faces_features import (
    FEATURE_NAMES,
    PATTERN_SIZE,
    TINT_SIZE,
    align_patterns,
    face_features,
)
from companion.vision.faces_look import DEFAULT_PALETTE, FACES, Palette, face_texture
from companion.vision.types import VisionError

# How far each feature of a face may stray between lights, blur and glare (measured on
# rendered frames, normal and hard); enrolled models never get less.
BUILTIN_SPREAD = np.array([0.2, 0.08, 0.08, 0.08, 0.1, 0.07], np.float32)
MAX_LOOKS = 24  # appearances kept per enrolled face (3 frames of 6-8 dice)
# Appearances are stored in steps of this (their spread is 1): a profile keeps a face's
# looks in ~9 KB of JSON, and the rounding is far below what tells two animals apart.
LOOK_STEP = 1.0 / 32.0
# Sets whose faces mostly print a small bright part (a bone skull outlined in black on a
# coloured face) are read with every bright pixel taken as print (``reads_bright``): the
# glare rule of ``faces_features`` took the skull for glare on most of their dice and
# measured the background against the outline instead, on some dice and not on others.
# A face counts as such when ``BRIGHT_DICE`` of its enrolled dice show at least
# ``faces_features.BRIGHT_SHARE`` of their disc that bright; a set when ``BRIGHT_FACES``
# of its six faces do. Chosen on the woodcut artwork (tray-filling frames 9033 and 9034
# and their enrolments, which found the gap) and the enrolments of the stencil, badge,
# etched, mosaic and recoloured sets (none of which counts; see models/bockspot.json).
BRIGHT_DICE = 0.6
BRIGHT_FACES = 4


class FaceModelError(VisionError):
    """A face model or enrolment record that cannot be used."""


@dataclass(frozen=True)
class FaceModel:
    """Mean and spread of the features of one face."""

    face: str
    mean: tuple[float, ...]
    spread: tuple[float, ...]
    count: int  # dice it was learnt from (0: built in)
    # The face's drawing: its mean light/dark pattern, upright (see ``pattern_distance``);
    # None for a model enrolled before patterns were kept (its drawing is not checked).
    pattern: tuple[float, ...] | None = None
    # The face's colours without their brightness (``FaceFeatures.tint``) under the light
    # it was learnt in; None for a model enrolled before tints were kept.
    tint: tuple[float, ...] | None = None
    # Appearances of the dice it was enrolled from (``faces_appearance``), at most
    # ``MAX_LOOKS``; None for built-in models and models enrolled before they were kept.
    looks: tuple[tuple[float, ...], ...] | None = None
    # The share of its enrolled dice whose disc showed a bright part (``reads_bright``),
    # and the face learnt with bright pixels kept as print; None for built-in models and
    # models enrolled before these were kept (their set is read with the glare rule).
    bright: float | None = None
    kept: FaceModel | None = None

    def to_dict(self) -> dict:
        """A JSON-ready dict (see ``from_dict``)."""
        out: dict = {
            "mean": [round(v, 4) for v in self.mean],
            "spread": [round(v, 4) for v in self.spread],
            "count": self.count,
        }
        if self.pattern is not None:
            out["pattern"] = [round(v, 3) for v in self.pattern]
        if self.tint is not None:
            out["tint"] = [round(v, 4) for v in self.tint]
        if self.looks is not None:
            out["looks"] = [_pack_look(look) for look in self.looks]
        if self.bright is not None:
            out["bright"] = round(self.bright, 3)
        if self.kept is not None:
            out["kept"] = self.kept.to_dict()
        return out

    @classmethod
    def from_dict(cls, face: str, data: Mapping) -> FaceModel:
        """Parse the dict written by ``to_dict``; raises ``FaceModelError`` if malformed."""
        if face not in FACES:
            raise FaceModelError(f"unknown face {face!r} in profile; faces are {', '.join(FACES)}")
        try:
            mean = tuple(float(v) for v in data["mean"])
            spread = tuple(float(v) for v in data["spread"])
            count = int(data["count"])
        except (KeyError, TypeError, ValueError) as exc:
            raise FaceModelError(
                f"face {face!r} in profile is malformed ({exc}); enrol it again"
            ) from None
        n = len(FEATURE_NAMES)
        if len(mean) != n or len(spread) != n or min(spread) <= 0:
            raise FaceModelError(
                f"face {face!r} in profile needs {n} means and {n} positive spreads; enrol it again"
            )
        pattern = data.get("pattern")
        if pattern is not None:
            try:
                pattern = tuple(float(v) for v in pattern)
            except (TypeError, ValueError):
                pattern = ()
            if len(pattern) != PATTERN_SIZE or not all(0.0 <= v <= 1.0 for v in pattern):
                raise FaceModelError(
                    f"face {face!r} in profile has a pattern that is not {PATTERN_SIZE} light"
                    " shares from 0 to 1; enrol it again"
                )
        tint = data.get("tint")
        if tint is not None:
            try:
                tint = tuple(float(v) for v in tint)
            except (TypeError, ValueError):
                tint = ()
            if len(tint) != TINT_SIZE or not all(math.isfinite(v) for v in tint):
                raise FaceModelError(
                    f"face {face!r} in profile has a tint that is not {TINT_SIZE} numbers;"
                    " enrol it again"
                )
        looks = data.get("looks")
        if looks is not None:
            looks = _parse_looks(face, looks)
        bright = data.get("bright")
        if bright is not None:
            if not isinstance(bright, (int, float)) or not 0.0 <= float(bright) <= 1.0:
                raise FaceModelError(
                    f"face {face!r} in profile has a bright share that is not a number from"
                    " 0 to 1; enrol it again"
                )
            bright = float(bright)
        kept = data.get("kept")
        if kept is not None:
            if not isinstance(kept, Mapping) or "kept" in kept:
                raise FaceModelError(
                    f"face {face!r} in profile has a kept model that is not one face model;"
                    " enrol it again"
                )
            kept = cls.from_dict(face, kept)
        return cls(
            face=face,
            mean=mean,
            spread=spread,
            count=count,
            pattern=pattern,
            tint=tint,
            looks=looks,
            bright=bright,
            kept=kept,
        )


def _pack_look(look: tuple[float, ...]) -> str:
    """One appearance as text: steps of ``LOOK_STEP`` as signed bytes, base64; a pixel
    hidden by glare (NaN) as ``_HIDDEN``."""
    values = np.asarray(look, np.float32)
    steps = np.clip(np.round(np.nan_to_num(values) / LOOK_STEP), -127, 127)
    steps[np.isnan(values)] = _HIDDEN
    return base64.b64encode(steps.astype(np.int8).tobytes()).decode("ascii")


_HIDDEN = -128  # the one signed byte a look's steps (clipped to +-127) never take


def _parse_looks(face: str, data: object) -> tuple[tuple[float, ...], ...]:
    problem = (
        f"face {face!r} in profile has looks that are not 1 to {MAX_LOOKS} base64 texts"
        f" of {APPEARANCE_LENGTH} bytes; enrol it again"
    )
    if not isinstance(data, list) or not 1 <= len(data) <= MAX_LOOKS:
        raise FaceModelError(problem)
    looks = []
    for text in data:
        try:
            raw = base64.b64decode(str(text), validate=True) if isinstance(text, str) else b""
        except binascii.Error:
            raw = b""
        if len(raw) != APPEARANCE_LENGTH:
            raise FaceModelError(problem)
        packed = np.frombuffer(raw, np.int8)
        steps = packed.astype(np.float32) * LOOK_STEP
        steps[packed == _HIDDEN] = np.nan
        looks.append(tuple(float(v) for v in steps))
    return tuple(looks)



@functools.lru_cache(maxsize=8)
def _builtin_models(palette: Palette) -> tuple[FaceModel, ...]:
    models = []
    for face in FACES:
        tex = face_texture(face, palette)
        vectors = []
        patterns = []
        tints = []
        # The face as a camera sees it: small (45-75 px), a little soft, at any angle.
        for edge, sigma, angle in itertools.product((45, 75), (0.8, 1.6), (0.0, 30.0)):
            scale = edge / tex.shape[0]
            side = int(edge * 1.6)
            m = np.asarray(
                cv2.getRotationMatrix2D((tex.shape[1] / 2, tex.shape[0] / 2), angle, scale),
                np.float64,
            )
            m[:, 2] += side / 2 - np.array([tex.shape[1] / 2, tex.shape[0] / 2])
            view = cv2.warpAffine(tex, m, (side, side), borderMode=cv2.BORDER_REPLICATE)
            view = cv2.GaussianBlur(view, (0, 0), sigma)
            feats = face_features(view, (side / 2, side / 2), float(edge), -angle)
            vectors.append(feats.vector())
            patterns.append(feats.pattern)
            tints.append(feats.tint())
        arr = np.array(vectors, np.float32)
        spread = np.maximum(BUILTIN_SPREAD, arr.std(axis=0))
        models.append(
            FaceModel(
                face=face,
                mean=tuple(float(v) for v in arr.mean(axis=0)),
                spread=tuple(float(v) for v in spread),
                count=0,
                pattern=tuple(float(v) for v in align_patterns(np.array(patterns))),
                tint=tuple(float(v) for v in np.mean(tints, axis=0)),
            )
        )
    return tuple(models)


def builtin_models(palette: Palette = DEFAULT_PALETTE) -> dict[str, FaceModel]:
    """Face models from the renderer's picture of ``palette`` (the out-of-the-box set)."""
    return {m.face: m for m in _builtin_models(palette)}

def reads_bright(models: Mapping[str, FaceModel]) -> bool:
    """Whether a set enrolled as ``models`` is read with bright pixels kept as print:
    every face enrolled with its kept model, ``BRIGHT_FACES`` of them bright."""
    if any(
        f not in models or models[f].kept is None or models[f].bright is None for f in FACES
    ):
        return False
    return sum(float(models[f].bright or 0.0) >= BRIGHT_DICE for f in FACES) >= BRIGHT_FACES


def as_read(models: Mapping[str, FaceModel]) -> dict[str, FaceModel]:
    """``models`` as the set is read: the kept models where ``reads_bright``."""
    if not reads_bright(models):
        return dict(models)
    return {f: m.kept for f, m in models.items() if m.kept is not None}


def separation(a: FaceModel, b: FaceModel) -> float:
    """How far two face models lie apart: the distance of their means in units of the
    larger spread of each feature."""
    z = (np.array(a.mean) - np.array(b.mean)) / np.maximum(
        np.array(a.spread), np.array(b.spread)
    )
    return float(np.sqrt((z * z).sum()))


def nearest_face(models: Mapping[str, FaceModel], face: str) -> tuple[str, float]:
    """The face whose model lies nearest ``face``'s, and how far (``separation``)."""
    nearest, apart = "", float("inf")
    for other, m in models.items():
        if other == face:
            continue
        d = separation(models[face], m)
        if d < apart:
            nearest, apart = other, d
    return nearest, apart

