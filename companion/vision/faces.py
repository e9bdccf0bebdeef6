"""Classify the top face of Rock the Bock dice: wolf, bock or a goat of one colour.

Every face is a skull printed on a background: bock black on white, goats light on their
player colour, wolf light on dark grey. Seen from above, the middle of the top face holds
exactly two colours, the skull and its background, and both lie under the same light.
So the classifier splits the middle of each face into its lighter and its darker colour
(glare, brighter than any print, left out) and describes the face by the ratio
dark / light per channel as logarithms: their mean (``level``: how much darker) and
what is left per channel relative to that (``hue``), plus the share of light pixels in
the centre and in a ring around it (a dark skull on white, the bock, is the reverse of
a light skull on dark grey, the wolf). A colour cast multiplies both colours channel by
channel and cancels in the ratio: the skull of a goat is the white reference for its
own background, which is why warm pub light does not turn a yellow goat red. When the
calibration holds a colour reference (white-balance gains), the frame is balanced with
it first.

The ratio cancels a cast only where the darker colour is a true colour too. A set whose
goats are dark prints on their colour (the renderer's ``stencil`` artwork: lime and
mustard) shows almost black for the print in dim light, and its ratios no longer tell
the goats apart. So each face also keeps its lighter colour without its brightness (its
``tint``), and each frame's light is estimated from its own dice: every die, taken as
every face, proposes the cast that would make its colour that face's; the proposal
under which the frame's dice fit their faces best is kept (``FaceClassifier.frame_cast``).
The dice are then read with their colour, less that cast, counting too.

Each face has a model: the mean and spread of those features. Built-in models come from
the picture of the built-in set (``faces_look``); enrolment
(``companion.vision.enrol``) replaces them with what the table's own dice look like.
A die whose features are far from every model, or close to two, is reported uncertain
with no value instead of a guess.

Where the dice are comes from one of two finders. The learned spotter
(``companion.vision.spot``, when ``models/bockspot.onnx`` is there) gives each die's top
face directly: centre, edge and turn. The classical finder (``companion.vision.detect``)
gives an outline that may take in side walls and shadow, so the top face is then fitted
inside it. ``BockRecognizer(finder=...)`` picks one explicitly, to compare them.

Stages and their timings (``Reading.timings_ms``): ``spot`` (the spotter) or ``find``
(the classical finder) and ``locate`` (the top face inside each found outline),
``measure`` (the two colours) and ``classify`` (including a second look, a little off the
fitted centre, at dice that came out uncertain).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.vision.detect import FinderOptions, check_frame
from companion.vision.faces_look import DEFAULT_PALETTE, FACES, Palette, face_texture
from companion.vision.rectify import CANON_DIE, TrayView, tray_view
from companion.vision.spot import DEFAULT_MODEL, WORK_DIE, BockSpotter, choose_spotter
from companion.vision.tray import TrayProfile, find_in_tray, finder_options
from companion.vision.types import Die, DieRegion, Reading, VisionError

# Radius of the sampled disc around the top-face centre, in die edges. The print covers
# the face up to ~0.42 edge from the centre, so a disc of 0.3 tolerates the centre being
# off by a tenth of an edge without sampling the die's plastic or the tray.
SAMPLE_RADIUS = 0.3
_PATCH = 17  # the disc is sampled on a _PATCH x _PATCH grid: enough pixels, little time
FEATURE_NAMES = ("level", "hue_b", "hue_g", "hue_r", "light_centre", "light_ring")
# How far each feature of a face may stray between lights, blur and glare (measured on
# rendered frames, normal and hard); enrolled models never get less.
BUILTIN_SPREAD = np.array([0.2, 0.08, 0.08, 0.08, 0.1, 0.07], np.float32)


class FaceModelError(VisionError):
    """A face model or enrolment record that cannot be used."""


@dataclass(frozen=True)
class FaceFeatures:
    """What the classifier sees of one die's top face."""

    light: tuple[float, float, float]  # median BGR of the lighter colour (balanced)
    dark: tuple[float, float, float]  # median BGR of the darker colour (balanced)
    light_centre: float  # share of light pixels in the middle (the skull of most faces)
    light_ring: float  # share of light pixels around it (mostly background)
    # Where the face is light (1), dark (0) or hidden by glare (0.5), per pixel of the
    # sampled disc in ``_DISC`` order, turned as the die lies (see ``pattern_distance``).
    pattern: np.ndarray | None = None

    def vector(self) -> np.ndarray:
        """The feature vector in ``FEATURE_NAMES`` order."""
        light = np.array(self.light, np.float32)
        dark = np.array(self.dark, np.float32)
        ratio = np.log(dark + 2.0) - np.log(light + 2.0)
        level = float(ratio.mean())
        # Veiling glare and blur shrink the whole ratio towards zero; its hue, relative
        # to how dark the darker colour is, stays put. The 0.3 keeps flat faces finite.
        hue = (ratio - level) / (abs(level) + 0.3)
        return np.array([level, *hue, self.light_centre, self.light_ring], np.float32)

    def tint(self) -> np.ndarray:
        """The lighter colour itself, without its brightness: its log BGR less their mean
        (``TINT_SIZE`` values).

        Unlike the ratios of ``vector`` this moves with the light's colour; the frame's
        cast (``FaceClassifier.frame_cast``) is taken off it before it is compared with a
        face's (``FaceClassifier.classify_vector``). The darker colour is left out: the
        dark prints of some sets sit a few grey levels above black under dim light, where
        their hue is noise (tried on the tuning frames: it read the stencil set worse).
        """
        logs = np.log(np.asarray(self.light, np.float32) + 2.0)
        return (logs - logs.mean()).astype(np.float32)


TINT_SIZE = 3


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
        return cls(
            face=face, mean=mean, spread=spread, count=count, pattern=pattern, tint=tint
        )


@dataclass(frozen=True)
class FaceVerdict:
    """The classifier's answer for one die."""

    face: str | None  # None when uncertain
    confidence: float  # posterior of the best face, 0..1
    best: str  # the best face even when uncertain (for display and debugging)
    distance: float  # normalised distance to the best face's model
    uncertain: bool
    unlike: float | None = None  # pattern distance to the best face's drawing, if checked


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
            m = cv2.getRotationMatrix2D((tex.shape[1] / 2, tex.shape[0] / 2), angle, scale)
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


def face_features(
    frame: np.ndarray,
    center: tuple[float, float],
    size: float,
    angle: float,
    gains: np.ndarray | None = None,
) -> FaceFeatures:
    """Sample the middle of one top face and split it into its light and dark colour."""
    pixels = _sample_disc(frame, center, size, angle)
    if gains is not None:
        pixels = pixels * gains
    return _two_colours(pixels)


def _disc_masks() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = (_PATCH - 1) / 2
    ys, xs = np.mgrid[0:_PATCH, 0:_PATCH]
    dist = np.sqrt((xs - r) ** 2 + (ys - r) ** 2) / r
    disc = dist <= 1.0 + 0.5 / r
    radius = dist[disc]
    # Centre: within 0.12 edge (the cranium); ring: beyond 0.2 edge (mostly background).
    return disc, radius < 0.4, radius > 0.68


_DISC, _CENTRE, _RING = _disc_masks()


def _turns() -> np.ndarray:
    """Index maps that turn a disc pattern (``_DISC`` order) by 0, 90, 180 and 270 degrees."""
    index = np.full((_PATCH, _PATCH), -1, np.int64)
    index[_DISC] = np.arange(int(_DISC.sum()))
    return np.array([np.rot90(index, k)[_DISC] for k in range(4)])


_TURNS = _turns()
PATTERN_SIZE = int(_DISC.sum())  # pixels of the sampled disc, the length of a pattern


def _smoothing(sigma: float) -> np.ndarray:
    """A Gaussian blur of ``sigma`` patch pixels over the disc, as an (n, n) matrix."""
    ys, xs = np.nonzero(_DISC)
    d2 = (ys[:, None] - ys[None, :]) ** 2 + (xs[:, None] - xs[None, :]) ** 2
    w = np.exp(-d2 / (2.0 * sigma * sigma))
    return (w / w.sum(axis=1, keepdims=True)).astype(np.float32)


# Patterns are compared blurred: a centre off by a tenth of an edge (a patch pixel) or a
# turn off by a few degrees moves every outline of the drawing; 1.5 patch pixels kept the
# rendered dice near their own face's drawing (tuning seeds, see ``MAX_UNLIKE``).
_SMOOTH = _smoothing(1.5)


def pattern_distance(pattern: np.ndarray, template: np.ndarray) -> float:
    """How unlike a face's drawing a sampled light/dark pattern is, 0 (same) to 1.

    The spotter knows a die's turn only up to a quarter turn, so the pattern is compared
    with the template turned each of the four ways; the nearest counts. The distance is
    the mean absolute difference of the (blurred) light shares over the disc.
    """
    turned = pattern[_TURNS] @ _SMOOTH.T  # (4, n)
    return float(np.abs(turned - _SMOOTH @ template).mean(axis=1).min())


def align_patterns(patterns: np.ndarray) -> np.ndarray:
    """The mean drawing of patterns of one face seen at any quarter turn.

    Each pattern is turned to agree best with the running mean (twice over, starting
    from the first), then averaged.
    """
    mean = patterns[0]
    for _ in range(2):
        turned = patterns[:, _TURNS]  # (m, 4, n)
        cost = np.abs(turned - mean[None, None, :]).mean(axis=2)
        best = cost.argmin(axis=1)
        mean = turned[np.arange(len(patterns)), best].mean(axis=0)
    return mean.astype(np.float32)


def _sample_disc(
    frame: np.ndarray, center: tuple[float, float], size: float, angle: float
) -> np.ndarray:
    """Pixels (float32, n x 3) of a disc of SAMPLE_RADIUS edges around ``center``."""
    radius = SAMPLE_RADIUS * size
    step = 2 * radius / (_PATCH - 1)
    a = math.radians(angle)
    ca, sa = math.cos(a) * step, math.sin(a) * step
    half = (_PATCH - 1) / 2
    # Affine map from patch pixels to frame pixels, inverted for warpAffine.
    m = np.array(
        [
            [ca, -sa, center[0] - half * (ca - sa)],
            [sa, ca, center[1] - half * (sa + ca)],
        ],
        np.float64,
    )
    patch = cv2.warpAffine(
        frame,
        m,
        (_PATCH, _PATCH),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return patch[_DISC].astype(np.float32)


_KMEANS_STOP = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 8, 0.5)


def _two_colours(pixels: np.ndarray) -> FaceFeatures:
    """Split the disc's pixels into a light and a dark colour (two-means, glare removed)."""
    brightness = pixels.sum(axis=1)
    n = len(brightness)
    # Glare is lamp light added on top of the print: brighter than anything printed.
    # The 70th percentile lies inside the face's lighter colour unless glare covers
    # over a third of the disc; pixels well above it are left out of both colours.
    k = int(0.7 * (n - 1))
    ceiling = float(np.partition(brightness, k)[k]) * 1.25 + 24.0
    usable = brightness <= ceiling
    if np.count_nonzero(usable) < n // 2:
        usable[:] = True
    sample = np.ascontiguousarray(pixels[usable])
    level = brightness[usable]
    # Seeded by brightness (above or below the median), so the result is deterministic.
    init = (level > _median(level)).astype(np.int32).reshape(-1, 1)
    light = dark = None
    is_light = init.ravel() > 0
    if is_light.any() and not is_light.all():
        _, labels, centers = cv2.kmeans(
            sample, 2, init, _KMEANS_STOP, 1, cv2.KMEANS_USE_INITIAL_LABELS
        )
        bright = int(np.argmax(centers.sum(axis=1)))
        is_light = labels.ravel() == bright
        if is_light.any() and not is_light.all():
            # Blur mixes the skull's thin parts with the background; the half of each
            # colour farther from the other one is the print itself, not the mixed rim.
            light = _core(sample[is_light], centers[1 - bright])
            dark = _core(sample[~is_light], centers[bright])
    if light is None or dark is None:
        # A face of one flat colour: both colours are that colour.
        light = dark = _median(sample)
        is_light = np.ones(len(sample), bool)
    # Light shares by zone; glare pixels hide the print, so they count as neither.
    light_all = np.zeros(n, np.float32)
    light_all[usable] = is_light
    pattern = np.full(n, 0.5, np.float32)
    pattern[usable] = is_light
    return FaceFeatures(
        light=tuple(float(v) for v in light),
        dark=tuple(float(v) for v in dark),
        light_centre=_share(light_all, usable, _CENTRE),
        light_ring=_share(light_all, usable, _RING),
        pattern=pattern,
    )


def _share(light: np.ndarray, usable: np.ndarray, zone: np.ndarray) -> float:
    seen = usable & zone
    if not seen.any():
        return float(light[zone].mean())
    return float(light[seen].mean())


def _core(members: np.ndarray, other: np.ndarray) -> np.ndarray:
    dist = ((members - other) ** 2).sum(axis=1)
    far = members[dist >= _median(dist)]
    return _median(far)


def _median(values: np.ndarray) -> np.ndarray:
    """Upper median along the first axis; np.median's checks cost more than the sort."""
    k = len(values) // 2
    return np.partition(values, k, axis=0)[k]


# Rendered dice of every face, normal and hard light, lie within an RMS distance of 2.1
# spreads of their own model and at least 34 squared spreads nearer to it than to any
# other; max_distance and the temperature leave room above both before flagging a die.
_TEMPERATURE = 2.0
# A die whose light/dark pattern is further than this from its face's drawing
# (``pattern_distance``) is uncertain. On the tuning frames 0.28 kept all but 4 of 1,491
# sure right reads of the built-in set (seed 4243) and turned one of the shifted set's
# two sure wrong reads into a flag (seed 4244, enrolled); the drawing alone does not tell
# the faces apart (right and wrong reads overlap from 0.13 to 0.3).
MAX_UNLIKE = 0.28
# A set of dice the models were not made from (another maker's artwork, other colours)
# shows in the distances of its dice to their nearest face: most lie further out than a
# known set's do. The median distance of the last ``SET_MEMORY`` dice, over what is
# familiar for their nearest face's model, above 1 marks the whole set as unfamiliar and
# every die uncertain (enrol the set with ``companion calibrate faces``). The limits lie
# 15 % above the largest median of a frame of 10 dice of a known set on the tuning
# frames: the built-in models on seed 4243 (0.87), enrolled models on seeds 4244-4246
# (shifted palette, stencil and badge artwork, each enrolled: 1.52).
FAMILIAR_BUILTIN = 1.0
FAMILIAR_ENROLLED = 1.75
SET_MEMORY = 30
SET_MIN_DICE = 3  # fewer dice seen so far say nothing about the set
# Faces whose models lie closer than this (``nearest_face``) are flagged whenever read;
# ``companion calibrate faces`` warns below the same separation. The built-in faces are
# over 4 apart; the stencil set's lime and mustard goats enrolled 1.5 apart and were read
# as each other in a third of their dice (tuning seed 4245).
MIN_SEPARATION = 3.0
# Colour under the frame's light: a die's ``FaceFeatures.tint`` less the frame's cast
# (``FaceClassifier.frame_cast``) against its face's. The distance (root of summed
# squares, log units) counts beyond ``TINT_TOL`` (how far the colour of right reads
# strays: lamp tints, glare), in units of ``TINT_SPREAD``, squared, ``TINT_WEIGHT``
# times next to the ratio features. The colour confirms a face when it is the nearest
# face's by ``TINT_MARGIN`` at least; a confirmed die may lie ``TINT_STRETCH`` times
# further from its face's ratios than ``max_distance``, and two faces that the ratios
# do not tell apart (closer than ``MIN_SEPARATION``) are read only when confirmed. A
# die's cost in the choice of the cast is capped at ``CAST_CAP``. All chosen on tuning
# frames, 200 hard each: seeds 4300 (stencil, enrolled from 7200+k), 4301 (badge,
# 7300+k), 4302 (built-in set), 4303 (shifted colours, 7100+k); see
# models/bockspot.json. The sets that look alike in their lighter colour (the shifted
# set's white skulls, the badge's white badges) are why the dead zone is there: without
# it their reads lost confidence (4303: 6 dice flagged against 1).
TINT_SPREAD = 0.1
TINT_WEIGHT = 8.0
TINT_TOL = 0.08
TINT_MARGIN = 0.1
TINT_STRETCH = 1.4
CAST_CAP = 25.0


def nearest_face(models: Mapping[str, FaceModel], face: str) -> tuple[str, float]:
    """The face whose model lies nearest ``face``'s, and how far: the distance of the two
    means in units of the larger spread of each feature."""
    model = models[face]
    nearest, separation = "", float("inf")
    for other, m in models.items():
        if other == face:
            continue
        z = (np.array(model.mean) - np.array(m.mean)) / np.maximum(
            np.array(model.spread), np.array(m.spread)
        )
        d = float(np.sqrt((z * z).sum()))
        if d < separation:
            nearest, separation = other, d
    return nearest, separation


class FaceClassifier:
    """Nearest face model by normalised distance, with a posterior as confidence."""

    def __init__(
        self,
        models: Mapping[str, FaceModel] | None = None,
        min_confidence: float = 0.9,
        max_distance: float = 2.5,
        max_unlike: float = MAX_UNLIKE,
    ) -> None:
        base = builtin_models()
        if models:
            base.update(models)
        self.models = base
        self.min_confidence = min_confidence
        self.max_distance = max_distance
        self.max_unlike = max_unlike
        self._faces = list(FACES)
        self._means = np.array([base[f].mean for f in FACES], np.float32)
        self._spreads = np.array([base[f].spread for f in FACES], np.float32)
        self._patterns = [
            None if base[f].pattern is None else np.array(base[f].pattern, np.float32)
            for f in FACES
        ]
        # Every face's tint, or None when one model has none (enrolled before tints).
        tints = [base[f].tint for f in FACES]
        self._tints = (
            None if any(t is None for t in tints) else np.array(tints, np.float32)
        )
        self.confusable = frozenset(
            f for f in FACES if nearest_face(base, f)[1] < MIN_SEPARATION
        )

    def strangeness(self, verdict: FaceVerdict) -> float:
        """A die's distance to its nearest face over what is familiar for that face's model
        (``FAMILIAR_BUILTIN`` or ``FAMILIAR_ENROLLED``); above 1 the die looks foreign."""
        enrolled = self.models[verdict.best].count > 0
        return verdict.distance / (FAMILIAR_ENROLLED if enrolled else FAMILIAR_BUILTIN)

    def classify(self, features: FaceFeatures) -> FaceVerdict:
        """The face of one die, or ``None`` with ``uncertain`` set when unsure."""
        return self.classify_vector(features.vector(), features.pattern)

    def frame_cast(
        self, vectors: Sequence[np.ndarray], tints: Sequence[np.ndarray]
    ) -> np.ndarray | None:
        """The colour of the frame's light relative to the light the models were learnt in
        (log units per channel, zero mean), from the dice of one frame; None without dice
        or without tints in the models.

        A cast multiplies every colour in the frame alike. Each die, taken as each face,
        proposes the cast that makes its light colour that face's; the proposal under
        which the frame's dice fit their nearest faces best (ratios and colours together,
        each die's cost capped so that one odd die does not decide) wins, and is refined
        to the median proposal of the dice that fit it. Dice of the same face that the
        ratios alone read wrong (a frame of mostly one goat) then do not drag the cast
        with them; the two goats of a set whose colours differ only in hue (a dark print
        on lime or on mustard) are then told apart by their colour itself.
        """
        if self._tints is None or not len(vectors):
            return None
        x = np.asarray(vectors, np.float32)
        light = np.asarray(tints, np.float32)
        z = (x[:, None, :] - self._means[None]) / self._spreads[None]
        ratio_d2 = (z * z).sum(axis=2) + 2.0 * np.log(self._spreads).sum(axis=1)[None]
        ratio_d2 -= ratio_d2.min(axis=1, keepdims=True)
        # Proposals: die i as face f; offsets of every die j from every face g under each.
        proposals = (light[:, None, :] - self._tints[None]).reshape(-1, TINT_SIZE)
        rel = light[None, :, None, :] - proposals[:, None, None, :] - self._tints[None, None]
        off = np.sqrt((rel * rel).sum(axis=3))  # (proposal, die, face)
        tint_d2 = (np.maximum(off - TINT_TOL, 0.0) / TINT_SPREAD) ** 2
        cost = (ratio_d2[None] + TINT_WEIGHT * tint_d2).min(axis=2)
        total = np.minimum(cost, CAST_CAP).sum(axis=1)
        best = int(np.argmin(total))
        fits = cost[best] < CAST_CAP
        if not fits.any():
            return proposals[best]
        face = (ratio_d2 + TINT_WEIGHT * tint_d2[best]).argmin(axis=1)
        shifts = light - self._tints[face]
        cast = np.median(shifts[fits], axis=0)
        return (cast - cast.mean()).astype(np.float32)

    def classify_vector(
        self,
        x: np.ndarray,
        pattern: np.ndarray | None = None,
        tint: np.ndarray | None = None,
        cast: np.ndarray | None = None,
    ) -> FaceVerdict:
        """``classify`` for a feature vector in ``FEATURE_NAMES`` order.

        With the die's light/dark ``pattern`` the drawing is checked too: a die whose
        colours fit a face but whose drawing does not (``max_unlike``) is uncertain.
        With its ``tint`` and the frame's ``cast`` (``frame_cast``) its colours count
        as well, and two faces the ratios do not tell apart can be read.
        """
        z = (x[None, :] - self._means) / self._spreads
        d2 = (z * z).sum(axis=1) + 2.0 * np.log(self._spreads).sum(axis=1)
        tint_d2 = off = None
        if tint is not None and cast is not None and self._tints is not None:
            tz = tint - cast - self._tints
            off = np.sqrt((tz * tz).sum(axis=1))
            tint_d2 = (np.maximum(off - TINT_TOL, 0.0) / TINT_SPREAD) ** 2
            d2 = d2 + TINT_WEIGHT * tint_d2
        best = int(np.argmin(d2))
        # Tempered posterior: the Gaussian models are fitted on few, clean samples and
        # would otherwise claim certainty for anything a hair nearer one model.
        logits = -0.5 * (d2 - d2[best]) / _TEMPERATURE
        post = np.exp(logits) / np.exp(logits).sum()
        confidence = float(post[best])
        distance = float(np.sqrt(((z[best]) ** 2).sum() / len(x)))
        # The colour confirms the face when it is the nearest by ``TINT_MARGIN`` at least.
        confirmed = False
        if off is not None:
            near = np.sort(off)
            confirmed = int(np.argmin(off)) == best and float(near[1] - near[0]) >= TINT_MARGIN
        limit = self.max_distance * (TINT_STRETCH if confirmed else 1.0)
        uncertain = confidence < self.min_confidence or distance > limit
        # Two faces whose models overlap (a pair the set's colours do not tell apart) are
        # read only when the colour under the frame's light tells them apart.
        if self._faces[best] in self.confusable:
            uncertain = uncertain or not confirmed
        unlike = None
        template = self._patterns[best]
        if pattern is not None and template is not None:
            unlike = pattern_distance(pattern, template)
            uncertain = uncertain or unlike > self.max_unlike
        face = self._faces[best]
        return FaceVerdict(
            face=None if uncertain else face,
            confidence=round(confidence, 4),
            best=face,
            distance=round(distance, 3),
            uncertain=uncertain,
            unlike=None if unlike is None else round(unlike, 3),
        )


_FIT = 20.0  # working pixels per region size for the top-face fit


def _window(
    frame: np.ndarray, center: tuple[float, float], angle: float, f: float, side: int
) -> tuple[np.ndarray, np.ndarray]:
    """A ``side`` x ``side`` window (float32) turned by ``angle``, and its map to the frame."""
    a = math.radians(angle)
    ca, sa = math.cos(a) / f, math.sin(a) / f
    half = (side - 1) / 2.0
    cx, cy = center
    m = np.array([[ca, -sa, cx - half * (ca - sa)], [sa, ca, cy - half * (sa + ca)]], np.float64)
    win = cv2.warpAffine(
        frame,
        m,
        (side, side),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return win.astype(np.float32), m


def die_angle(frame: np.ndarray, region: DieRegion) -> float:
    """The turn of the die's edges in degrees [0, 90), from the edges around it.

    A finder's outline of die, side wall and shadow together can be turned the wrong way;
    the die's own printed and physical edges all run along its two axes. Gradient
    directions are averaged as fourfold angles, where 0, 90, 180 and 270 degrees agree,
    weighted by the gradient's strength.
    """
    f = _FIT / max(region.size, 1.0)
    side = int(math.ceil(region.size * f)) + 4
    win, _ = _window(frame, region.center, 0.0, f, side)
    gx = cv2.Sobel(win, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(win, cv2.CV_32F, 0, 1, ksize=3)
    c, s = gx.ravel(), gy.ravel()
    mag2 = c * c + s * s
    k = int(len(mag2) * 0.6)
    keep = mag2 > np.partition(mag2, k)[k]
    c, s, mag2 = c[keep], s[keep], mag2[keep]
    # With z = c + i s: z**4 / |z|**2, the fourfold direction weighted by squared strength.
    re2, im2 = c * c - s * s, 2.0 * c * s
    re4, im4 = re2 * re2 - im2 * im2, 2.0 * re2 * im2
    total_re = float((re4 / (mag2 + 1e-6)).sum())
    total_im = float((im4 / (mag2 + 1e-6)).sum())
    return math.degrees(math.atan2(total_im, total_re)) / 4.0 % 90.0


def fit_top_face(
    frame: np.ndarray,
    region: DieRegion,
    edge: float | None = None,
    angle: float | None = None,
) -> tuple[tuple[float, float], float, float]:
    """Centre, edge and angle of the top face inside a found die region (frame pixels).

    The finder's region may hold the die's side walls and shadow as well. The top face
    is the square, turned along the die's edges (``die_angle``), whose outline has the
    strongest colour edges: its rim against the side walls, the tray or a neighbour.
    Positions anywhere inside the region are tried; sizes within 6 % of ``edge`` when the
    die edge is known, otherwise from 0.7 to 1.05 times the region's size, growing on
    (up to 1.45) while the largest size tried is still the best: the finder then saw
    only part of the die. Without a known edge the outline of die and side wall together
    wins now and then; ``BockRecognizer`` refits such dice at the frame's median edge.
    """
    if angle is None:
        angle = die_angle(frame, region)
    f = _FIT / max(region.size, 1.0)
    side = int(math.ceil(region.size * f * 1.6)) + 4
    win, m = _window(frame, region.center, angle, f, side)
    # Edge strength summed over the colour channels: a red face on white plastic has
    # little edge in grey but a strong one in blue and green.
    gx = np.abs(cv2.Sobel(win, cv2.CV_32F, 1, 0, ksize=3)).sum(axis=2)
    gy = np.abs(cv2.Sobel(win, cv2.CV_32F, 0, 1, ksize=3)).sum(axis=2)
    # Column sums of |gx| and row sums of |gy| as prefix sums: each side of a candidate
    # square is then two look-ups.
    cgx = np.vstack([np.zeros((1, side), np.float32), np.cumsum(gx, axis=0)])
    cgy = np.hstack([np.zeros((side, 1), np.float32), np.cumsum(gy, axis=1)])
    half = (side - 1) / 2.0
    best = (-1.0, half, half, _FIT)
    if edge is not None:
        lo = max(6, int(math.floor(edge * f * 0.94)))
        hi = min(side - 2, int(math.ceil(edge * f * 1.06)))
    else:
        lo = max(6, int(_FIT * 0.7))
        hi = min(side - 2, int(round(_FIT * 1.05)))
    t = lo
    while t <= hi:
        n = side - t
        # Row y0, column x0 of each array: the square with top-left corner (x0, y0).
        left = cgx[t : t + n, :n] - cgx[:n, :n]
        right = cgx[t : t + n, t : t + n] - cgx[:n, t : t + n]
        top = cgy[:n, t : t + n] - cgy[:n, :n]
        bottom = cgy[t : t + n, t : t + n] - cgy[t : t + n, :n]
        score = (left + right + top + bottom) / (4.0 * t)
        k = int(np.argmax(score))
        if score.flat[k] > best[0]:
            yy, xx = divmod(k, n)
            best = (float(score.flat[k]), xx + t / 2.0, yy + t / 2.0, float(t))
        if t == hi and edge is None and best[3] == t and hi < int(_FIT * 1.45):
            # Still improving at the largest size: the finder saw only part of the die.
            hi += 1
        t += 1
    _, wx, wy, t = best
    # Window pixel (wx, wy) back to the frame through the same affine map.
    fx = m[0, 0] * wx + m[0, 1] * wy + m[0, 2]
    fy = m[1, 0] * wx + m[1, 1] * wy + m[1, 2]
    return (float(fx), float(fy)), t / f, angle


# A face always shows a skull on a contrasting background; a found "die" whose two
# colours are closer than this (log ratio) is a speck, a shadow or glare on the tray.
_MIN_CONTRAST = 0.3
# ...unless the spotter is at least this sure it is a die: a pale skull on a pale face
# (the shifted set's yellow goat) under glare and blur falls below the contrast, and the
# spotter rarely reports a speck this surely. On the tuning frames (seeds 4243 and 4244,
# shifted palette enrolled) 0.5 kept those goats without adding extra dice; 0 added some.
_SURE_SPOT = 0.5


def _square_corners(
    center: tuple[float, float], edge: float, angle: float
) -> tuple[tuple[float, float], ...]:
    a = math.radians(angle)
    ux = (math.cos(a) * edge / 2, math.sin(a) * edge / 2)
    uy = (-math.sin(a) * edge / 2, math.cos(a) * edge / 2)
    cx, cy = center
    pts = [
        (cx - ux[0] - uy[0], cy - ux[1] - uy[1]),
        (cx + ux[0] - uy[0], cy + ux[1] - uy[1]),
        (cx + ux[0] + uy[0], cy + ux[1] + uy[1]),
        (cx - ux[0] + uy[0], cy - ux[1] + uy[1]),
    ]
    return tuple((float(x), float(y)) for x, y in pts)


@dataclass(frozen=True)
class FaceSample:
    """One found die's top face and its features, before classification."""

    region: DieRegion  # the top face (fitted), not the finder's raw outline
    features: FaceFeatures
    vector: np.ndarray  # features.vector(), computed once
    found: DieRegion  # the finder's outline it came from


# Top-face edge, in pixels of the straightened tray view: the spotter then works at
# ``WORK_DIE / VIEW_DIE`` (0.35), where a die is the 17 working pixels it sees most, and
# the faces are measured with about as many pixels as on the rendered 1280x960 frames
# the built-in models and thresholds were checked on (top faces of 58-79 pixels) allow
# without making the view large.
VIEW_DIE = 48.0
SIZE_FRAMES = 5  # frames with dice the die size is measured on, then kept




class BockRecognizer:
    """Reads Rock the Bock dice from frames; set up once per camera, then called per frame.

    ``profile`` (a ``TrayProfile``) limits the search to the tray, gives the die size and
    the colour reference; ``models`` are enrolled face models that replace the built-in
    ones face by face (see ``companion.vision.enrol``). ``finder`` says where the dice
    come from: ``"spotter"`` the learned spotter (``spotter``, or the model file), which
    must then exist; ``"classic"`` the classical finder; ``"auto"`` the spotter when its
    model file is there, the classical finder otherwise.
    """

    def __init__(
        self,
        profile: TrayProfile | None = None,
        models: Mapping[str, FaceModel] | None = None,
        min_confidence: float = 0.9,
        finder: str = "auto",
        spotter: BockSpotter | None = None,
    ) -> None:
        self.profile = profile
        self.classifier = FaceClassifier(models, min_confidence=min_confidence)
        self.enrolled = tuple(sorted(models)) if models else ()
        self.spotter = choose_spotter(finder, spotter, BockSpotter, DEFAULT_MODEL)
        self.finder = "classic" if self.spotter is None else "spotter"
        # How foreign the last dice looked (``FaceClassifier.strangeness``), and whether
        # the set on the table looks like none the models know (then every die is
        # uncertain until the set is enrolled).
        self._recent: deque[float] = deque(maxlen=SET_MEMORY)
        self.unfamiliar = False
        self._die_sizes: dict[tuple[int, int], list[float]] = {}

    def __repr__(self) -> str:
        return (
            f"BockRecognizer(profile={self.profile!r}, enrolled={self.enrolled!r},"
            f" finder={self.finder!r})"
        )

    def _options(self, width: int) -> FinderOptions:
        return finder_options(self.profile, width)

    def _gains(self) -> np.ndarray | None:
        if self.profile is None:
            return None
        return np.array(self.profile.white_balance_gains(), np.float32)

    def _locate(
        self, frame: np.ndarray, regions: Sequence[DieRegion], width: int
    ) -> list[tuple[tuple[float, float], float, float]]:
        """Top faces of the found regions, with the calibrated die edge when there is one.

        (Fixing the edge to the median of a first fit over the frame's dice was tried: on
        rendered hard frames it read fewer dice right than fitting each die on its own.)
        """
        known = self._options(width).die_size
        tops = [fit_top_face(frame, r, edge=known) for r in regions]
        if known or len(tops) < 3:
            return tops
        # All dice of a set are the same size: a fit far off the frame's median edge took
        # in a side wall or a neighbour; fit it again at the median edge.
        edge = float(np.median([e for _, e, _ in tops]))
        out = []
        for region, top in zip(regions, tops, strict=True):
            _, e, angle = top
            if not 0.8 < e / edge < 1.25:
                top = fit_top_face(frame, region, edge=edge, angle=angle)
            out.append(top)
        return out

    def view(self, frame: np.ndarray) -> TrayView | None:
        """The straightened tray the dice are read in, or None to read the frame itself.

        With a profile of four corners and the spotter, the tray polygon is warped to a
        top-down view in which a top face is ``VIEW_DIE`` pixels across (``rectify.py``):
        slant and turn are undone and nothing outside the tray is seen. The die size is
        what the spotter measures in the straightened tray (``die_size``), until it has
        seen a die the profile's.
        """
        if self.spotter is None or self.profile is None or len(self.profile.corners) != 4:
            return None
        h, w = frame.shape[:2]
        die = self.die_size(frame)
        if die is None and self.profile.die_size:
            die = self.profile.die_size * w / self.profile.frame_size[0]
        if die is None:
            return None
        # ``for_tray`` makes a die of the size it is given ``CANON_DIE`` pixels across.
        return tray_view(self.profile, (w, h), die * CANON_DIE / VIEW_DIE)

    def die_size(self, frame: np.ndarray) -> float | None:
        """The top-face edge in frame pixels for this camera set-up, as the spotter sees it.

        Measured in the straightened tray at the frame's own scale on the first
        ``SIZE_FRAMES`` frames with dice, then kept: a set-up's dice do not change size.
        (The profile's die size is the classical finder's outline, side walls included.)
        """
        if self.spotter is None or self.profile is None or len(self.profile.corners) != 4:
            return None
        h, w = frame.shape[:2]
        seen = self._die_sizes.setdefault((w, h), [])
        if len(seen) < SIZE_FRAMES:
            plain = tray_view(self.profile, (w, h), None)
            die = self.spotter.estimate_die_size(plain.warp(frame))
            if die is not None:
                seen.append(die / plain.scale)
        return float(np.median(seen)) if seen else None

    def sample(self, frame: np.ndarray) -> tuple[list[FaceSample], dict[str, float]]:
        """Find the dice and measure their top faces; returns samples and stage timings.

        The samples' regions are in frame pixels.
        """
        samples, timings, _, view = self._sample(frame)
        if view is not None:
            samples = [
                replace(
                    s, region=view.region_to_frame(s.region), found=view.region_to_frame(s.found)
                )
                for s in samples
            ]
        return samples, timings

    def _sample(
        self, frame: np.ndarray
    ) -> tuple[list[FaceSample], dict[str, float], np.ndarray, TrayView | None]:
        """``sample`` in the image the dice are read in: the straightened view, if any.

        Returns the samples (regions in that image's pixels), the timings, the image and
        the view (None: the image is the frame).
        """
        check_frame(frame)
        h, w = frame.shape[:2]
        t0 = time.perf_counter()
        view = self.view(frame)
        timings: dict[str, float] = {}
        if view is not None:
            frame = view.warp(frame)
            t1 = time.perf_counter()
            timings["rectify"] = (t1 - t0) * 1e3
            t0 = t1
        if self.spotter is not None:
            # The spotter reports top faces already. Fitting each again (``fit_top_face``
            # at the spotter's edge and a re-measured turn) read fewer dice right on the
            # tuning frames (seed 4242, 60 hard: 0.995 against 0.998, 57 exact frames
            # against 59) and cost 6 ms, so the spotter's faces are used as they are.
            if view is None:
                regions = self.spotter.spot(frame, self.profile)
            else:
                regions = self.spotter.spot_at(frame, WORK_DIE / VIEW_DIE)
            tops = [(r.center, r.size, r.angle) for r in regions]
            t1 = t2 = time.perf_counter()
            timings["spot"] = (t1 - t0) * 1e3
        else:
            regions = find_in_tray(frame, self.profile)
            t1 = time.perf_counter()
            tops = self._locate(frame, regions, w)
            t2 = time.perf_counter()
            timings.update({"find": (t1 - t0) * 1e3, "locate": (t2 - t1) * 1e3})
        gains = self._gains()
        samples = []
        spotted = self.spotter is not None
        for region, (center, edge, angle) in zip(regions, tops, strict=True):
            feats = face_features(frame, center, edge, angle, gains)
            vector = feats.vector()
            if vector[0] > -_MIN_CONTRAST and not (spotted and region.confidence >= _SURE_SPOT):
                continue
            top = DieRegion(
                center=center,
                size=edge,
                angle=angle,
                corners=_square_corners(center, edge, angle),
                confidence=region.confidence,
            )
            samples.append(FaceSample(region=top, features=feats, vector=vector, found=region))
        timings["measure"] = (time.perf_counter() - t2) * 1e3
        return samples, timings, frame, view

    def _look_again(
        self, frame: np.ndarray, sample: FaceSample, verdict: FaceVerdict, gains: np.ndarray | None
    ) -> tuple[FaceSample, FaceVerdict]:
        """Re-measure an uncertain die a little off its fitted centre and at the finder's.

        A top-face fit that slid onto a side wall samples the plastic; a few nearby
        positions often show the face clearly. The surest certain reading wins; if none
        is certain the die stays uncertain.
        """
        top = sample.region
        e, a = top.size, math.radians(top.angle)
        step = 0.15 * e
        ux, uy = math.cos(a) * step, math.sin(a) * step
        cx, cy = top.center
        spots = [(cx + ux, cy + uy), (cx - ux, cy - uy), (cx - uy, cy + ux), (cx + uy, cy - ux)]
        spots.append(sample.found.center)
        best = (sample, verdict)
        for center in spots:
            feats = face_features(frame, center, e, top.angle, gains)
            vector = feats.vector()
            if vector[0] > -_MIN_CONTRAST:
                continue
            again = self.classifier.classify_vector(vector, feats.pattern)
            if again.uncertain or (not best[1].uncertain and again.distance >= best[1].distance):
                continue
            region = DieRegion(
                center=center,
                size=e,
                angle=top.angle,
                corners=_square_corners(center, e, top.angle),
                confidence=top.confidence,
            )
            best = (FaceSample(region, feats, vector, sample.found), again)
        return best

    def _with_cast(
        self, sample: FaceSample, verdict: FaceVerdict, tint: np.ndarray, cast: np.ndarray
    ) -> FaceVerdict:
        again = self.classifier.classify_vector(
            sample.vector, sample.features.pattern, tint, cast
        )
        # The distance to the nearest face stays the ratios' (the unfamiliar-set check).
        return replace(again, distance=verdict.distance)

    def read(self, frame: np.ndarray) -> Reading:
        """Find and classify every die in a BGR frame; timings per stage in ``timings_ms``."""
        t0 = time.perf_counter()
        h, w = frame.shape[:2]
        samples, timings, frame, view = self._sample(frame)
        t1 = time.perf_counter()
        dice = []
        gains = self._gains()
        looked = []
        for s in samples:
            verdict = self.classifier.classify_vector(s.vector, s.features.pattern)
            # A die near a face the set's colours do not tell apart from another was
            # measured well; looking again only gives it more chances to be read as a
            # third face. On the stencil set (enrolled, seed 4245) looking again at those
            # too left 289 of 1,500 dice read surely wrong, not doing so 51. (Looking
            # again only where it confirms the first nearest face cost the built-in set
            # 0.997 against 0.9997 of its dice, seed 4247.)
            if verdict.uncertain and verdict.best not in self.classifier.confusable:
                s, verdict = self._look_again(frame, s, verdict, gains)
            looked.append((s, verdict))
        self._recent.extend(self.classifier.strangeness(v) for _, v in looked)
        # Second look with the frame's light: the dice read surely give its colour, and
        # every die is read again with its colours (less that cast) counting too.
        tints = [s.features.tint() for s, _ in looked]
        cast = self.classifier.frame_cast([s.vector for s, _ in looked], tints)
        if cast is not None:
            looked = [
                (s, self._with_cast(s, v, t, cast))
                for (s, v), t in zip(looked, tints, strict=True)
            ]
        self.unfamiliar = (
            len(self._recent) >= SET_MIN_DICE and float(np.median(self._recent)) > 1.0
        )
        for s, verdict in looked:
            if self.unfamiliar:
                # Not the faces of this set: the scorekeeper reads them until it is enrolled.
                verdict = replace(verdict, face=None, uncertain=True)
            dice.append(
                Die(
                    region=s.region,
                    value=verdict.face,
                    confidence=round(min(verdict.confidence, s.region.confidence or 1.0), 3),
                    uncertain=verdict.uncertain,
                )
            )
        if view is not None:
            dice = [view.die_to_frame(d) for d in dice]
        t2 = time.perf_counter()
        timings["classify"] = (t2 - t1) * 1e3
        timings["total"] = (t2 - t0) * 1e3
        return Reading(kind="bock", dice=tuple(dice), frame_size=(w, h), timings_ms=timings)
