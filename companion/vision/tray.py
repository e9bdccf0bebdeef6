"""Tray calibration: where the tray floor is, how big a die is, what white looks like.

A profile is made once per camera set-up (``companion calibrate tray``) and saved as JSON
under ``calibration/`` (format in ``calibration/README.md``). Recognition then looks
inside the tray only and starts from the known die size.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from companion.vision.detect import WORK_SIDE, FinderOptions, find_dice
from companion.vision.types import DieRegion, VisionError

PROFILE_VERSION = 1
# Dice read more than this many times larger or smaller than a profile's die (scaled to
# the picture) mean its die no longer fits: an old calibration, or one that measured
# something else. The dice read in the calibrated validation scenes measure 0.90-1.03 of
# their profile's die; one of half the die made the settle detector take a throw for a
# cup. ``companion doctor`` warns; the watcher counts by the dice (``watch``).
DIE_SIZE_OFF = 1.4


def die_size_off(measured: float, expected: float) -> bool:
    """Whether dice ``measured`` across are off a profile's die of ``expected`` (both in
    the picture's pixels) by more than ``DIE_SIZE_OFF`` either way."""
    return max(measured / expected, expected / measured) > DIE_SIZE_OFF


class TrayProfileError(VisionError):
    """A calibration profile that is missing, malformed or does not fit the frame."""


@dataclass(frozen=True)
class TrayProfile:
    """One camera set-up: tray corners, die size and the floor's colour."""

    frame_size: tuple[int, int]  # (width, height) the profile was made for
    corners: tuple[tuple[float, float], ...]  # tray floor polygon, frame pixels, clockwise
    die_size: float | None  # die edge in frame pixels, None when no die was in the frame
    floor_bgr: tuple[float, float, float]  # mean colour of the empty floor
    version: int = PROFILE_VERSION
    # Where the brightness steps across the tray's four sides lay in the calibration's
    # frame (``autotray.side_steps``: (4, points, 3) of offset, steepness and sign, NaN
    # where a point's reach left the frame), or None: a camera moved while the companion was off
    # is told by them (``watch.ThrowWatcher``). Not part of a profile's equality.
    sides: np.ndarray | None = field(default=None, compare=False)

    def white_balance_gains(self) -> tuple[float, float, float]:
        """Per-channel (B, G, R) gains that make the floor neutral grey."""
        b, g, r = (max(v, 1.0) for v in self.floor_bgr)
        grey = (b + g + r) / 3.0
        return (grey / b, grey / g, grey / r)

    def corners_in(self, frame_size: tuple[int, int]) -> tuple[tuple[float, float], ...]:
        """The tray's corners in pixels of a ``frame_size`` (w, h) frame: scaled when the
        profile was made at another size (another camera mode)."""
        sx, sy = frame_size[0] / self.frame_size[0], frame_size[1] / self.frame_size[1]
        return tuple((x * sx, y * sy) for x, y in self.corners)

    def die_in(self, frame_size: tuple[int, int]) -> float | None:
        """The die edge in pixels of a ``frame_size`` (w, h) frame, scaled as
        ``corners_in``; None when the profile has no die size."""
        return self.die_size * frame_size[0] / self.frame_size[0] if self.die_size else None

    def valid_mask(self, shape: tuple[int, ...]) -> np.ndarray:
        """uint8 mask (255 inside the tray) for a frame of ``shape``, rescaled if needed."""
        h, w = shape[:2]
        pts = np.array(self.corners_in((w, h)), np.int32)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [pts], 255)
        return mask

    def moved(self, share: tuple[float, float]) -> TrayProfile:
        """The profile with its tray moved by ``share`` (x, y) of the frame's width and
        height: the camera or the tray knocked (``OcclusionDetector.knocked``). Corners
        that would leave the frame stop at its edge."""
        w, h = self.frame_size
        dx, dy = share[0] * w, share[1] * h
        corners = tuple(
            (min(max(x + dx, 0.0), float(w)), min(max(y + dy, 0.0), float(h)))
            for x, y in self.corners
        )
        return replace(self, corners=corners)

    def to_dict(self) -> dict:
        """The JSON-ready form documented in ``calibration/README.md``."""
        return {
            "version": self.version,
            "frame_size": list(self.frame_size),
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "die_size": None if self.die_size is None else round(self.die_size, 2),
            "floor_bgr": [round(v, 1) for v in self.floor_bgr],
            # Always written, null too: saving merges into the file (faces share it), and
            # the sides of an earlier calibration must not outlive it.
            "sides": None if self.sides is None else [
                [[None if math.isnan(v) else round(float(v), 2) for v in point]
                 for point in side]
                for side in self.sides
            ],
        }

    @classmethod
    def from_dict(cls, data: object) -> TrayProfile:
        """Parse and validate a profile; raises ``TrayProfileError`` saying what is wrong."""
        if not isinstance(data, dict):
            raise TrayProfileError("a tray profile must be a JSON object")
        version = data.get("version")
        if version != PROFILE_VERSION:
            raise TrayProfileError(
                f"tray profile version {version!r} is not supported (expected"
                f" {PROFILE_VERSION}); re-run `companion calibrate tray`"
            )
        try:
            w, h = (int(v) for v in data["frame_size"])
            corners = tuple((float(x), float(y)) for x, y in data["corners"])
            die = data.get("die_size")
            die_size = None if die is None else float(die)
            b, g, r = (float(v) for v in data["floor_bgr"])
            sides = _sides(data.get("sides"), len(corners))
        except KeyError as exc:
            raise TrayProfileError(f"tray profile lacks the field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise TrayProfileError(f"tray profile has a malformed field: {exc}") from None
        if w <= 0 or h <= 0:
            raise TrayProfileError(f"frame_size must be positive, got {w}x{h}")
        if len(corners) < 3:
            raise TrayProfileError(f"the tray needs at least 3 corners, got {len(corners)}")
        for x, y in corners:
            if not (0 <= x <= w and 0 <= y <= h):
                raise TrayProfileError(f"corner ({x}, {y}) lies outside the {w}x{h} frame")
        if die_size is not None and not 4 <= die_size <= min(w, h) / 2:
            raise TrayProfileError(f"die_size {die_size} px is implausible for a {w}x{h} frame")
        return cls((w, h), corners, die_size, (b, g, r), sides=sides)

    def save(self, path: Path | str) -> None:
        """Write the profile into the JSON file at ``path``, keeping its other sections
        (the enrolled faces); the folder is created if needed."""
        update_profile_file(path, self.to_dict())

    @classmethod
    def load(cls, path: Path | str) -> TrayProfile:
        """Read a profile saved by ``save``; errors name the file and the problem."""
        path = Path(path)
        return _profile_of(path, _read_json(path))


def _sides(data: object, corners: int) -> np.ndarray | None:
    """A profile's ``sides`` from JSON (null for a point off the frame), or None."""
    if data is None:
        return None
    try:
        sides = np.array([[[np.nan if v is None else float(v) for v in point] for point in side]
                          for side in data], np.float64)  # type: ignore[attr-defined]
    except (TypeError, ValueError) as exc:
        raise TrayProfileError(f"sides must be lists of [offset, steepness, sign]: {exc}"
                               ) from None
    if sides.ndim != 3 or sides.shape[0] != 4 or sides.shape[2] != 3 or corners != 4:
        raise TrayProfileError(
            f"sides must hold four sides of [offset, steepness, sign] for a tray of four"
            f" corners, got shape {sides.shape} for {corners} corners")
    if np.isinf(sides).any():
        raise TrayProfileError("sides must be finite numbers or null")
    return sides


def finder_options(
    profile: TrayProfile | None, width: int, work_side: int = WORK_SIDE
) -> FinderOptions:
    """The finder's options for a frame ``width`` pixels wide: the profile's die size, scaled
    when the profile was made at another resolution; without a size the finder estimates."""
    if profile is None or not profile.die_size:
        return FinderOptions(work_side=work_side)
    return FinderOptions(
        die_size=profile.die_size * width / profile.frame_size[0], work_side=work_side
    )


@functools.lru_cache(maxsize=8)
def _tray_mask(profile: TrayProfile, height: int, width: int) -> np.ndarray:
    # The same few frame sizes come again and again: draw each tray polygon once.
    return profile.valid_mask((height, width))


def find_in_tray(
    frame: np.ndarray, profile: TrayProfile | None, work_side: int = WORK_SIDE
) -> list[DieRegion]:
    """Find the dice of a frame, inside the tray and at the die size when a profile is given.

    ``work_side`` is the finder's working resolution (``FinderOptions.work_side``).
    """
    h, w = frame.shape[:2]
    mask = None if profile is None else _tray_mask(profile, h, w)
    return find_dice(frame, finder_options(profile, w, work_side), mask)


def load_tray(path: Path | str) -> TrayProfile | None:
    """The tray calibration in the calibration file at ``path``; None when the file holds
    none yet (only enrolled Rock the Bock faces: ``companion calibrate faces`` may come
    first). A missing file or a broken tray section raises ``TrayProfileError``."""
    path = Path(path)
    data = _read_json(path)
    if isinstance(data, dict) and "corners" not in data and "frame_size" not in data:
        return None
    return _profile_of(path, data)


def _read_json(path: Path) -> object:
    """The JSON in the calibration file at ``path``; ``TrayProfileError`` saying why not."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TrayProfileError(
            f"no tray profile at {path}; run `companion calibrate tray`"
        ) from None
    except json.JSONDecodeError as exc:
        raise TrayProfileError(f"{path} is not valid JSON: {exc}") from None


def _profile_of(path: Path, data: object) -> TrayProfile:
    """The tray profile in ``data`` read from ``path``; errors name the file."""
    try:
        return TrayProfile.from_dict(data)
    except TrayProfileError as exc:
        raise TrayProfileError(f"{path}: {exc}") from None


def update_profile_file(path: Path | str, values: dict) -> None:
    """Merge ``values`` into the JSON object stored at ``path`` and write it atomically.

    Keys not in ``values`` stay as they were, so a tray calibration and an enrolment of
    the faces can share one file; a power cut mid-write leaves the old file whole.
    """
    path = Path(path)
    data: dict = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise TrayProfileError(
                f"{path} is not valid JSON ({exc}); move it away or fix it first"
            ) from None
        if not isinstance(data, dict):
            raise TrayProfileError(f"{path} does not hold a calibration profile (a JSON object)")
    data.update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(temporary, path)


def parse_corners(text: str) -> tuple[tuple[float, float], ...]:
    """Parse ``x,y,x,y,x,y,x,y`` into four corner points; raises ``TrayProfileError``."""
    try:
        numbers = [float(v) for v in text.split(",")]
    except ValueError:
        raise TrayProfileError(
            f"corners must be numbers like 10,10,600,10,600,400,10,400: {text!r}"
        ) from None
    if len(numbers) != 8:
        raise TrayProfileError(f"give exactly four corners (8 numbers), got {len(numbers)}")
    return tuple((numbers[i], numbers[i + 1]) for i in range(0, 8, 2))


def find_floor(frame: np.ndarray) -> tuple[tuple[float, float], ...]:
    """Corners of the tray floor in a frame, clockwise from top-left
    (``companion.vision.trayfind.find_tray``)."""
    from companion.vision.trayfind import find_tray

    return find_tray(frame)


def calibrate_tray(
    frame: np.ndarray,
    corners: tuple[tuple[float, float], ...] | None = None,
    finder: str = "auto",
) -> TrayProfile:
    """Make a profile from a frame of the tray (empty, or with a few dice in it).

    The procedure lives in ``companion.vision.calibrate`` (it measures the die with the
    spotter, which itself needs this module); this keeps the old place working.
    """
    from companion.vision.calibrate import calibrate_tray as calibrate

    return calibrate(frame, corners, finder)
