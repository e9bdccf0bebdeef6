"""When automatic exposure and white balance have settled, and the controls that hold them."""

from __future__ import annotations

from typing import Any

MEASURE_FRAMES = (8, 60)  # exposure settles after at least 8 frames, at most 60
# AE/AWB have settled when exposure and gains moved less than this over the last frames
STEADY_CHANGE = 0.03


class ExposureLock:
    """Decides when automatic exposure and white balance have settled, then holds them.

    Feed it what the camera measured each frame; it answers with the controls to lock
    once the values stopped moving (or after ``MEASURE_FRAMES[1]`` frames), with the
    exposure shortened to ``max_exposure_us`` and the gain raised to make up the light.
    """

    def __init__(self, max_exposure_us: int = 10000, gain_max: float = 16.0) -> None:
        self.max_exposure_us = max_exposure_us
        self.gain_max = gain_max
        self.locked: dict[str, Any] | None = None
        self._seen: list[tuple[float, ...]] = []

    def restart(self) -> None:
        """Measure again (the light in the room changed)."""
        self.locked = None
        self._seen.clear()

    @property
    def measuring(self) -> bool:
        """True until the values are locked."""
        return self.locked is None

    def feed(
        self, exposure_us: float, gain: float, colour_gains: tuple[float, float]
    ) -> dict[str, Any] | None:
        """One frame's measurement; the controls to set when it is time to lock, else None."""
        if self.locked is not None:
            return None
        self._seen.append((float(exposure_us), float(gain), *map(float, colour_gains)))
        recent = self._seen[-4:]
        steady = len(recent) == 4 and all(
            abs(a - b) <= STEADY_CHANGE * max(abs(b), 1e-6)
            for earlier in recent[:-1] for a, b in zip(earlier, recent[-1], strict=True)
        )
        enough, waited = len(self._seen) >= MEASURE_FRAMES[0], len(self._seen) >= MEASURE_FRAMES[1]
        if not enough or not (steady or waited):
            return None
        exposure, gain, red, blue = self._seen[-1]
        short = min(exposure, float(self.max_exposure_us))
        # The same brightness with a shorter exposure: more gain (as far as the sensor goes).
        gain = min(gain * exposure / short if short else gain, self.gain_max)
        self.locked = {
            "AeEnable": False, "AwbEnable": False, "ExposureTime": int(round(short)),
            "AnalogueGain": round(gain, 3), "ColourGains": (round(red, 4), round(blue, 4)),
        }
        return dict(self.locked)
