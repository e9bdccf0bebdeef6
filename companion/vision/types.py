"""Value types shared by every vision stage."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


class VisionError(ValueError):
    """A frame or profile the recogniser cannot work with (wrong shape, dtype, empty).

    Like the games' errors, one a person sees on the dashboard may carry a ``key`` and
    ``fields`` so the page can say it in its own language; the English text stays the
    message (logs, the command line).
    """

    def __init__(self, message: str, *args: object, key: str | None = None,
                 **fields: object) -> None:
        super().__init__(message, *args)
        self.key = key
        self.fields = fields


@dataclass(frozen=True)
class DieRegion:
    """Where one die lies in the frame, as the die finder saw it."""

    center: tuple[float, float]  # (x, y) in frame pixels
    size: float  # edge length of the top face in pixels
    angle: float  # rotation of the top face in degrees, [0, 90)
    corners: tuple[tuple[float, float], ...]  # four corners of the top face, clockwise
    confidence: float  # 0..1 that this is a die

    def moved_to(self, center: tuple[float, float]) -> DieRegion:
        """The same region with its centre (and corners with it) moved to ``center``."""
        dx, dy = center[0] - self.center[0], center[1] - self.center[1]
        return replace(
            self, center=center, corners=tuple((x + dx, y + dy) for x, y in self.corners)
        )


@dataclass(frozen=True)
class Die:
    """One read die: its region, what its top face shows, and how sure we are."""

    region: DieRegion
    value: int | str | None  # 1..6 for pip dice, a face name for Rock the Bock, None unread
    confidence: float
    uncertain: bool


@dataclass(frozen=True)
class Reading:
    """Everything read from one frame."""

    kind: str  # "pips" or "bock"
    dice: tuple[Die, ...]
    frame_size: tuple[int, int]  # (width, height)
    timings_ms: dict[str, float] = field(default_factory=dict, compare=False)
    # The dice look like no set the recogniser knows (Rock the Bock: another maker's
    # artwork or colours); every die is then flagged until the set is enrolled.
    unfamiliar: bool = False
    # Read whole (no tray calibrated or found), the frame showed more die-like things than
    # a throw has (printed paper, tiles, a patterned cloth around the tray): none is read.
    # Calibrating the tray (``companion calibrate tray``) reads the tray alone.
    cluttered: bool = False

    @property
    def values(self) -> list[int | str | None]:
        """The read values, in the order the dice were found."""
        return [d.value for d in self.dice]

    @property
    def uncertain(self) -> bool:
        """True when any die is unread or flagged uncertain."""
        return any(d.uncertain or d.value is None for d in self.dice)
