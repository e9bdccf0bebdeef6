"""What the classifier sees of one Rock the Bock die's top face: its two colours and drawing.

Every face is a skull (or another maker's picture) printed on a background. Seen from
above, the middle of the top face holds exactly two colours, the print and its
background, and both lie under the same light. So the middle of each face is split into
its lighter and its darker colour (glare, brighter than any print, left out) and the face
is described by the ratio dark / light per channel as logarithms: their mean (``level``:
how much darker) and what is left per channel relative to that (``hue``), plus the share
of light pixels in the centre and in a ring around it (a dark skull on white, the bock, is
the reverse of a light skull on dark grey, the wolf). A colour cast multiplies both
colours channel by channel and cancels in the ratio: the skull of a goat is the white
reference for its own background, which is why warm pub light does not turn a yellow goat
red. When the calibration holds a colour reference (white-balance gains), the pixels are
balanced with it first.

The ratio cancels a cast only where the darker colour is a true colour too; so each face
also keeps its lighter colour without its brightness (``FaceFeatures.tint``), which the
classifier compares under the frame's own light (``faces_classify``). And where the face
is light and where dark, pixel by pixel over the sampled disc, is its drawing
(``FaceFeatures.pattern``), compared with a face's drawing up to a quarter turn
(``pattern_distance``). The whole print as a small picture is its ``appearance``
(``faces_appearance``). Glare, and the soft rim round it, count as neither colour: a
reflection over a goat's dark head made it light in the middle, a wolf's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.vision.faces_appearance import appearance, turned_patch

# Radius of the sampled disc around the top-face centre, in die edges. The print covers
# the face up to ~0.42 edge from the centre, so a disc of 0.3 tolerates the centre being
# off by a tenth of an edge without sampling the die's plastic or the tray.
SAMPLE_RADIUS = 0.3
_PATCH = 17  # the disc is sampled on a _PATCH x _PATCH grid: enough pixels, little time
FEATURE_NAMES = ("level", "hue_b", "hue_g", "hue_r", "light_centre", "light_ring")


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
    # The whole print as a small cast-free picture (``faces_appearance.appearance``).
    appearance: np.ndarray | None = None
    # The share of the disc brighter than the glare ceiling of ``_two_colours``: glare,
    # or a bright part of the print smaller than a third of the disc (``BRIGHT_SHARE``).
    bright: float = 0.0

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
# A die whose disc shows this share or more brighter than the glare ceiling has a
# bright part (``FaceFeatures.bright``): glare on some dice, a small bright print on
# every die of a face (``faces_models.reads_bright``).
BRIGHT_SHARE = 0.05

def face_features(
    frame: np.ndarray,
    center: tuple[float, float],
    size: float,
    angle: float,
    gains: np.ndarray | None = None,
    keep_bright: bool = False,
) -> FaceFeatures:
    """Sample the middle of one top face and split it into its light and dark colour.

    ``keep_bright``: every pixel is print, however bright (for sets whose faces mostly
    print a small bright part, see ``faces_models.reads_bright``); else what is far
    brighter than most of the disc is glare and left out.
    """
    pixels = _sample_disc(frame, center, size, angle)
    if gains is not None:
        pixels = pixels * gains
    feats = _two_colours(pixels, keep_bright=keep_bright)
    rim = _glare_rim(pixels, feats.light)
    if rim is not None:
        feats = _two_colours(pixels, rim, keep_bright=keep_bright)
    # The lighter colour in the frame's own pixels: what glare is brighter than.
    light = np.asarray(feats.light, np.float32)
    if gains is not None:
        light = light / gains
    return replace(
        feats, appearance=appearance(frame, center, size, angle, float(light.sum()))
    )


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
    patch = turned_patch(frame, center, 2 * radius / (_PATCH - 1), angle, _PATCH)
    return patch[_DISC].astype(np.float32)


_KMEANS_STOP = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 8, 0.5)


def _glare_rim(pixels: np.ndarray, light: tuple[float, float, float]) -> np.ndarray | None:
    """The disc's pixels next to glare (brighter than ``_GLARE_GAIN`` times the face's
    lighter colour) that the glare rule of ``_two_colours`` kept, or None when there are
    none. A reflection's soft rim is lamp light over the print: taken as print, it made
    the dark head of a goat light (a wolf's) and pulled its background towards the
    lamp's colour."""
    brightness = pixels.sum(axis=1)
    glare = brightness > float(sum(light)) * _GLARE_GAIN + _GLARE_MARGIN
    if not glare.any():
        return None
    grid = np.zeros((_PATCH, _PATCH), np.uint8)
    grid[_DISC] = glare
    near = cv2.dilate(grid, _NEXT)[_DISC] > 0
    rim = near & ~glare
    return rim if rim.any() else None


# Glare as ``faces_appearance`` sees it; its rim is one sampled pixel round it.
_GLARE_GAIN = 1.25
_GLARE_MARGIN = 24.0
_NEXT = np.ones((3, 3), np.uint8)


def _two_colours(
    pixels: np.ndarray, hidden: np.ndarray | None = None, keep_bright: bool = False
) -> FaceFeatures:
    """Split the disc's pixels into a light and a dark colour (two-means, glare removed);
    ``hidden`` pixels (next to glare) count as glare. ``keep_bright``: nothing is glare
    for being bright (``face_features``)."""
    brightness = pixels.sum(axis=1)
    n = len(brightness)
    # Glare is lamp light added on top of the print: brighter than anything printed.
    # The 70th percentile lies inside the face's lighter colour unless glare covers
    # over a third of the disc; pixels well above it are left out of both colours.
    # A print whose bright part is smaller (a bone skull on a coloured face, outlined
    # in black) is taken for glare that way: ``keep_bright`` keeps it.
    k = int(0.7 * (n - 1))
    ceiling = float(np.partition(brightness, k)[k]) * 1.25 + 24.0
    above = brightness > ceiling
    bright_share = float(above.mean())
    usable = np.ones(n, bool) if keep_bright else ~above
    if hidden is not None:
        usable &= ~hidden
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
        light=_bgr(light),
        dark=_bgr(dark),
        light_centre=_share(light_all, usable, _CENTRE),
        light_ring=_share(light_all, usable, _RING),
        pattern=pattern,
        bright=bright_share,
    )


def _bgr(colour: np.ndarray) -> tuple[float, float, float]:
    b, g, r = (float(v) for v in colour)
    return (b, g, r)


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
