"""A Rock the Bock top face as a small picture, and which animal enrolled dice it looks like.

The classifier's features (``faces_features``) are two colours and a light/dark drawing
of the middle of the face. They tell the goats apart by colour, but a goat under glare
or a strong cast can come out with the ratios of a wolf or a bock. The whole print, as a
small picture, does not: a goat's head is drawn differently from a wolf's or a bock's in
every set, even where the colours fool the ratios.

``appearance`` samples the top face (``APPEARANCE_RADIUS`` edges around its centre) as
a ``APPEARANCE_SIZE`` pixel square, takes logarithms and removes each channel's mean,
which cancels a colour cast and the brightness, and scales the result to unit spread,
which cancels most of the contrast that glare and blur take away. ``Looks`` keeps these
pictures of the dice a set was enrolled from (``companion.vision.enrol``) and says, for
a die, how much nearer its picture lies to the enrolled dice of one animal (wolf, bock,
goat: the four goats share one drawing) than to those of any other (``animal_margin``).

Glare is no part of the print: given the face's lighter colour, the pixels brighter
than any printed colour, and a rim round them, are left out (NaN) and compared with
nothing. ``KinLooks`` keeps the looks by face for the animals with several faces (the
goats), for the sets whose enrolled goats their look tells apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import cv2
import numpy as np

APPEARANCE_SIZE = 12  # pixels across the sampled face: the drawing, not its noise
APPEARANCE_RADIUS = 0.42  # the print covers the face up to ~0.42 edge from its centre
_SAMPLE = 36  # the face is first sampled at 3 x APPEARANCE_SIZE, then averaged down


def _disc() -> np.ndarray:
    c = (APPEARANCE_SIZE - 1) / 2
    ys, xs = np.mgrid[0:APPEARANCE_SIZE, 0:APPEARANCE_SIZE]
    return np.hypot(ys - c, xs - c) <= APPEARANCE_RADIUS * APPEARANCE_SIZE + 0.5


_DISC = _disc()


# Glare: brighter than 1.25 times the face's lighter colour plus 24 (as bright as the
# rule by which ``faces_features`` leaves glare out of the two colours), and two sampled
# pixels round it (the reflection's soft rim). A pixel of the small picture counts when
# over half of what it averages is clear of glare; a face with less than half of its
# picture clear is not compared at all.
_GLARE_GAIN = 1.25
_GLARE_MARGIN = 24.0
_HALO = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_MIN_SEEN = 0.5
_MIN_USABLE = 0.5


def _turn_maps() -> np.ndarray:
    """Index maps that turn an appearance (``_DISC`` pixels x 3 channels, flattened) by
    0, 90, 180 and 270 degrees."""
    index = np.full((APPEARANCE_SIZE, APPEARANCE_SIZE), -1, np.int64)
    index[_DISC] = np.arange(int(_DISC.sum()))
    maps = []
    for k in range(4):
        pixels = np.rot90(index, k)[_DISC]
        maps.append((pixels[:, None] * 3 + np.arange(3)[None, :]).ravel())
    return np.array(maps)


_TURN_MAPS = _turn_maps()
APPEARANCE_LENGTH = int(_DISC.sum()) * 3  # values in one appearance


def turned_patch(
    frame: np.ndarray, center: tuple[float, float], step: float, angle: float, n: int
) -> np.ndarray:
    """An ``n`` x ``n`` patch of ``frame`` centred on ``center``, its pixels ``step`` frame
    pixels apart along axes turned ``angle`` degrees (bilinear, edges replicated)."""
    a = math.radians(angle)
    ca, sa = math.cos(a) * step, math.sin(a) * step
    half = (n - 1) / 2
    # Affine map from patch pixels to frame pixels, inverted for warpAffine.
    m = np.array(
        [
            [ca, -sa, center[0] - half * (ca - sa)],
            [sa, ca, center[1] - half * (sa + ca)],
        ],
        np.float64,
    )
    return cv2.warpAffine(
        frame,
        m,
        (n, n),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def appearance(
    frame: np.ndarray,
    center: tuple[float, float],
    size: float,
    angle: float,
    light: float | None = None,
) -> np.ndarray:
    """The top face at ``center`` (edge ``size``, turned ``angle`` degrees) as a small
    cast-free picture: ``APPEARANCE_LENGTH`` float32 values (see the module docstring).

    With ``light``, the brightness (B + G + R, in the frame's pixels) of the face's
    lighter colour (``faces_features``), pixels that glare covers are NaN: a lamp's
    reflection is added light, no part of the print, and taken as print it made goats
    look like wolves (a light blob in the middle of a dark head). Glare is what is
    brighter than any colour printed: ``_GLARE_GAIN`` times the lighter colour and a
    little more, and a little round it; the rest is averaged down without it.
    """
    patch = turned_patch(frame, center, size / _SAMPLE, angle, _SAMPLE).astype(np.float32)
    clear = np.ones(patch.shape[:2], np.float32)
    if light is not None:
        glare = (patch.sum(axis=2) > light * _GLARE_GAIN + _GLARE_MARGIN).astype(np.uint8)
        if glare.any():
            clear -= cv2.dilate(glare, _HALO).astype(np.float32)
    shrink = (APPEARANCE_SIZE, APPEARANCE_SIZE)
    seen = cv2.resize(clear, shrink, interpolation=cv2.INTER_AREA)[_DISC]
    total = cv2.resize(patch * clear[:, :, None], shrink, interpolation=cv2.INTER_AREA)
    usable = seen >= _MIN_SEEN
    if np.count_nonzero(usable) < _MIN_USABLE * len(usable):
        # Glare over most of the face: nothing of the print to compare.
        return np.full(APPEARANCE_LENGTH, np.nan, np.float32)
    values = np.log(total[_DISC] / np.maximum(seen, 1e-3)[:, None] + 4.0)
    values -= values[usable].mean(axis=0)
    values /= float(values[usable].std()) + 0.05
    values[~usable] = np.nan
    return values.ravel().astype(np.float32)


def animal(face: str) -> str:
    """The animal a face shows: ``wolf``, ``bock`` or ``goat`` (the goats differ only in
    colour)."""
    return face.split("_")[0]


class Looks:
    """The enrolled dice's appearances, every one at each quarter turn, by animal.

    Pixels hidden by glare (NaN) in a die or in an enrolled example are left out of
    their comparison: the distance is the mean over the pixels both show.
    """

    def __init__(self, looks: Mapping[str, Sequence[Sequence[float] | np.ndarray]]) -> None:
        rows: list[np.ndarray] = []
        owners: list[str] = []
        for face, examples in looks.items():
            for example in examples:
                values = np.asarray(example, np.float32)
                rows.extend(values[_TURN_MAPS])
                owners.extend([animal(face)] * len(_TURN_MAPS))
        self.animals = sorted(set(owners))
        table = np.array(rows, np.float32)
        self._seen = (~np.isnan(table)).astype(np.float32)
        self._rows = np.nan_to_num(table)
        self._squares = self._rows * self._rows
        self._norms = self._squares.sum(axis=1)  # for a die that shows all its print
        self._counts = self._seen.sum(axis=1)
        self._gaps = bool((self._seen == 0).any())
        self._owner = np.array([self.animals.index(o) for o in owners])

    def distances(self, values: np.ndarray) -> dict[str, float]:
        """Mean squared difference to the nearest enrolled die of each animal, over the
        pixels both show; ``inf`` for every animal when the die shows none of its print."""
        hidden = np.isnan(values)
        x = np.nan_to_num(values)
        if hidden.any():
            seen = (~hidden).astype(np.float32)
            both = self._seen @ seen
            own = self._squares @ seen
        else:  # the common case: no glare on the die, one product fewer
            seen = np.ones(len(values), np.float32)
            both, own = self._counts, self._norms
        theirs = self._seen @ (x * x) if self._gaps else float(x @ x)
        d = own - 2.0 * (self._rows @ x) + theirs
        # Fewer than half of the die's pixels in common: too little to compare.
        d = np.where(both >= 0.5 * max(float(seen.sum()), 1.0), d / np.maximum(both, 1.0),
                     np.inf)
        return {
            name: float(d[self._owner == i].min()) for i, name in enumerate(self.animals)
        }

    def clear_animal(self, values: np.ndarray, margin: float) -> str | None:
        """The animal whose enrolled dice ``values`` lie nearer than any other animal's
        by ``margin`` at least, or None."""
        return clear_of(self.distances(values), margin)

    def animal_margin(self, values: np.ndarray, face: str) -> float:
        """How much nearer ``values`` lie to the enrolled dice of ``face``'s animal than to
        those of the nearest other animal (negative: another animal's look is nearer;
        0 when the die's print cannot be compared)."""
        return margin_of(self.distances(values), face)


def clear_of(distances: Mapping[str, float], margin: float) -> str | None:
    """``Looks.clear_animal`` from the ``Looks.distances`` of a die."""
    d = sorted(distances.items(), key=lambda item: item[1])
    if len(d) < 2 or not np.isfinite(d[1][1]) or d[1][1] - d[0][1] < margin:
        return None
    return d[0][0]


def margin_of(distances: Mapping[str, float], face: str) -> float:
    """``Looks.animal_margin`` from the ``Looks.distances`` of a die."""
    own = distances[animal(face)]
    other = min(v for k, v in distances.items() if k != animal(face))
    if not (np.isfinite(own) and np.isfinite(other)):
        return 0.0
    return other - own


class KinLooks:
    """The enrolled dice's appearances by face, for the animals shown on several faces
    (the goats): which of them a die looks like, where a set's look tells them apart.

    The look is cast-free, but its channels keep how the print's colour stands against
    its background's, which differs from goat to goat in some sets (a coloured head on a
    white badge) and hardly in others (a black head on lime or on mustard). Whether the
    look tells a set's faces apart is judged on the enrolled dice themselves: each, left
    out in turn, must lie nearest the other dice of its own face (``tells_apart``).
    """

    def __init__(self, looks: Mapping[str, Sequence[Sequence[float]]]) -> None:
        names = [animal(f) for f in looks]
        self._faces = {
            face: Looks({face: examples})
            for face, examples in looks.items()
            if names.count(animal(face)) > 1
        }
        self._examples = {face: [np.asarray(e, np.float32) for e in looks[face]]
                          for face in self._faces}
        self.tells_apart = bool(self._faces) and self._left_out_right()

    def _left_out_right(self) -> bool:
        for face, examples in self._examples.items():
            kin = [f for f in self._faces if animal(f) == animal(face)]
            for i, example in enumerate(examples):
                own = [e for j, e in enumerate(examples) if j != i]
                if not own:
                    return False
                mine = _nearest(Looks({face: own}), example)
                others = min(_nearest(self._faces[f], example) for f in kin if f != face)
                if not mine < others:
                    return False
        return True

    def clear_face(self, values: np.ndarray, name: str, margin: float) -> str | None:
        """The face of animal ``name`` whose enrolled dice ``values`` lie nearer than any
        other of its faces' by ``margin`` at least, or None."""
        d = sorted(
            (_nearest(looks, values), face)
            for face, looks in self._faces.items()
            if animal(face) == name
        )
        if len(d) < 2 or not np.isfinite(d[1][0]) or d[1][0] - d[0][0] < margin:
            return None
        return d[0][1]


def _nearest(looks: Looks, values: np.ndarray) -> float:
    """The distance of ``values`` to the nearest of ``looks`` (one animal's)."""
    return min(looks.distances(values).values())
