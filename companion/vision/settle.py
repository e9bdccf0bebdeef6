"""Decide from a stream of frames when the dice are at rest, and nothing else is in the tray.

Each frame is shrunk, blurred and compared with the previous one, brought to its overall
brightness first (a light flickering on the mains, the exposure hunting: the whole
picture changes, nothing moved); with a calibrated occlusion check, only the tray's part
of it (``OcclusionDetector.window``), shrunk so a die is ``occlusion.SMALL_DIE`` small
pixels across. While the share of
changed pixels is above ``motion_fraction`` the tray is "moving"; once it has stayed
below for ``still_seconds`` the tray is at rest. With an ``OcclusionDetector`` a rest
with something in the tray that is not a die (a hand resting, a cup, a coaster) is
"blocked" (or "covered" for a dice cup upside down), never "at rest"; it is checked on
the first still frame and then again every ``recheck_seconds`` while nothing moves, so
a shadow that creeps in without motion blocks too. A shadow that has lain still for
``STALE_SHADOW_SECONDS`` is taken for the light and stops blocking; so is a blocker
that looks like the bare floor (``TrayState.bare``: the spot a hand the floor's colour
left, when the reference was taken with it in the tray).

``new_throw`` compares the tray with the last *accepted* rest, not the last quiet
frame: the same dice coming back after a hand or cup left are not new. By default
every rest is accepted; a caller that reads the dice first (``ThrowWatcher``) passes
``auto_accept=False`` and calls :meth:`accept` or :meth:`block` itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.occlusion import CLEAR, SHADOW, OcclusionDetector, TrayState, channel_max
from companion.vision.types import VisionError

MOVING = "moving"
AT_REST = "at rest"
BLOCKED = "blocked"
COVERED = "covered"
# Two frames whose mean brightness differs by more than this share in a channel are
# compared with the first one brought to the second's (``changed_fraction``).
GAIN_FOLLOWED = 0.005
# A "shadow" that has not moved for this long is the light, not someone standing at the
# table: a lamp that lights part of the tray differently, which no smooth gain explains
# (``occlusion.LIGHT_MIN``). The tray as it looks is then taken as the reference, so the
# companion is not blocked for the rest of the evening. A hand, a cup or a thing that
# lies still stays blocking: under them dice may be hidden; under a shadow they are not.
# Nor under a blocker that looks like the bare floor (``TrayState.bare``), which is taken
# the same way: a hand the floor's colour held in the reference leaves such a spot.
STALE_SHADOW_SECONDS = 20.0


@dataclass(frozen=True)
class SettleEvent:
    """A change of state (MOVING, AT_REST, BLOCKED, COVERED); ``new_throw`` only on AT_REST;
    ``reason`` says what blocks the tray."""

    state: str
    time: float
    new_throw: bool = False
    reason: str = ""


class SettleDetector:
    """Feed frames with their timestamps; get a ``SettleEvent`` whenever the state changes."""

    def __init__(
        self,
        still_seconds: float = 0.5,
        motion_fraction: float = 0.002,
        change_level: int = 18,
        side: int = 160,
        occlusion: OcclusionDetector | None = None,
        auto_accept: bool = True,
        recheck_seconds: float = 0.2,
    ) -> None:
        if still_seconds < 0:
            raise VisionError(f"still_seconds must be ≥ 0, got {still_seconds}")
        if not 0 < motion_fraction < 1:
            raise VisionError(f"motion_fraction must be between 0 and 1, got {motion_fraction}")
        self.still_seconds = still_seconds
        self.motion_fraction = motion_fraction
        self.change_level = change_level
        self.side = side
        self.occlusion = occlusion
        self.auto_accept = auto_accept
        self.recheck_seconds = recheck_seconds
        self.reset()

    def reset(self) -> None:
        """Start afresh: nothing seen yet (a new camera, or the frame size changed)."""
        self.state = MOVING
        self.view: TrayState = CLEAR
        self.small: np.ndarray | None = None
        self.frame_size: tuple[int, int] | None = None
        self._still_since: float | None = None
        self._last_rest: np.ndarray | None = None
        self._held = False
        self._checked: float | None = None  # when the occlusion check last ran
        # With an occlusion check: a frame size, the window it watches and the small side.
        self._watched: tuple[tuple[int, int], tuple[int, int, int, int], int] | None = None
        if self.occlusion is not None:
            self.occlusion.reset()

    def _small(self, frame: np.ndarray, size: tuple[int, int] | None = None) -> np.ndarray:
        """``frame`` (the picture, or its small copy when ``size`` gives the picture's
        size) shrunk to ``side``: with a profile, the tray's part of it only
        (``OcclusionDetector.window``)."""
        if frame.ndim != 3 or frame.dtype != np.uint8 or frame.shape[2] != 3:
            raise VisionError(f"expected an 8-bit BGR frame, got {frame.dtype} {frame.shape}")
        h, w = frame.shape[:2]
        side = self.side
        if self.occlusion is not None:
            full = size or (w, h)
            if self._watched is None or self._watched[0] != full:
                # The same for every frame of one camera mode: worked out once.
                self._watched = (full, self.occlusion.window(full),
                                 self.occlusion.small_side(full, side))
            _, (x0, y0, x1, y1), side = self._watched
            fx, fy = w / full[0], h / full[1]
            frame = frame[round(y0 * fy) : max(round(y1 * fy), round(y0 * fy) + 1),
                          round(x0 * fx) : max(round(x1 * fx), round(x0 * fx) + 1)]
            h, w = frame.shape[:2]
        f = side / max(h, w)
        # Colour, not grey: a skin-toned hand over a grey tray can have the tray's lightness.
        small = cv2.resize(
            frame, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA
        )
        # Blur so sensor noise and JPEG blocks do not count as motion.
        return cv2.GaussianBlur(small, (5, 5), 0)

    @property
    def still_since(self) -> float | None:
        """When the tray last moved (the time of the last frame that differed)."""
        return self._still_since

    def changed_fraction(self, a: np.ndarray, b: np.ndarray) -> float:
        """Share of pixels that differ by more than ``change_level`` between two small
        frames, ``a`` first brought to ``b``'s overall brightness per channel: a lamp
        flickering at the mains' frequency, or the camera's exposure hunting, brightens
        or darkens the whole picture from one frame to the next by a few per cent, which
        on a light floor is more than ``change_level``; a die or a hand moves part of it."""
        mean_a, mean_b = cv2.mean(a)[:3], cv2.mean(b)[:3]
        gain = [(mb + 1.0) / (ma + 1.0) for ma, mb in zip(mean_a, mean_b, strict=True)]
        if max(abs(g - 1.0) for g in gain) > GAIN_FOLLOWED:
            a = cv2.multiply(a, np.array([*gain, 1.0], np.float64), dtype=cv2.CV_8U)
        diff = channel_max(cv2.absdiff(a, b))
        return float(np.count_nonzero(diff > self.change_level)) / diff.size

    def update(
        self, frame: np.ndarray, now: float, size: tuple[int, int] | None = None
    ) -> SettleEvent | None:
        """Take the next frame (timestamp ``now`` in seconds); return an event on a change.

        ``frame`` may be a small copy of the camera's picture (the Pi's lores stream):
        ``size`` then gives the full picture's (width, height), which the readings use.
        """
        small = self._small(frame, size)
        size = size or (frame.shape[1], frame.shape[0])
        if self.frame_size is not None and size != self.frame_size:
            self.reset()  # another camera mode: nothing from before compares
        self.frame_size = size
        if self.occlusion is not None:
            self.occlusion.start(small, size)
        previous, self.small = self.small, small
        if previous is None:
            self._still_since = now
            return None
        if self.changed_fraction(previous, small) > self.motion_fraction:
            self._still_since = now
            self._held = False
            self._checked = None
            if self.state != MOVING:
                self.state = MOVING
                self.view = CLEAR
                if self.occlusion is not None:
                    self.occlusion.moved()
                return SettleEvent(MOVING, now)
            return None
        still_since = now if self._still_since is None else self._still_since
        if now - still_since < self.still_seconds or self._held:
            return None
        # Nothing moved since the last check: the tray only changes slowly (a creeping
        # shadow), so look again after a while, not on every frame.
        if self._checked is not None and now - self._checked < self.recheck_seconds:
            return None
        self._checked = now
        view = CLEAR if self.occlusion is None else self.occlusion.check(small, size)
        if (view.reason == SHADOW or view.bare) and now - still_since >= STALE_SHADOW_SECONDS:
            assert self.occlusion is not None
            if view.bare:
                # No way back as for a light: the reference before differs from this
                # picture only mildly, and would be taken back at once.
                self.occlusion.learn(small)
            else:
                self.occlusion.take_light(small)
            view = self.occlusion.check(small, size)
        if view.blocked:
            # Once covered, a cup stays a cup while it lies still: its outline on the
            # edge of the rule must not flap between covered and blocked.
            covered = view.covered or self.state == COVERED
            state = COVERED if covered else BLOCKED
            if state != self.state:
                self.state, self.view = state, view
                return SettleEvent(state, now, reason=view.reason)
            return None
        if self.state == AT_REST:
            return None
        self.state, self.view = AT_REST, CLEAR
        new_throw = (
            self._last_rest is None
            or self.changed_fraction(self._last_rest, small) > self.motion_fraction
        )
        if self.auto_accept:
            self.accept()
        return SettleEvent(AT_REST, now, new_throw)

    def restart(self, frame: np.ndarray, now: float, size: tuple[int, int] | None = None
                ) -> None:
        """Start afresh (``reset``) from ``frame``, seen still since it was still before
        (else since ``now``): the window changed (``OcclusionDetector.adopt``), nothing in
        the tray moved."""
        since = self.still_since
        self.reset()
        self.update(frame, now if since is None else since, size)

    def accept(self) -> None:
        """The current rest is clean: new throws are compared with it from now on."""
        if self.small is None:
            return
        self._last_rest = self.small
        if self.occlusion is not None:
            self.occlusion.learn(self.small)

    def retry(self) -> None:
        """Reading the rest failed: report it again with the next still frame."""
        if self.state == AT_REST:
            self.state = MOVING
            self._checked = None

    def recheck(self) -> None:
        """Check the tray again with the next still frame (what it is checked by changed)."""
        self._checked = None

    def block(self, view: TrayState) -> None:
        """A reader found the current rest blocked after all (something no die explains)."""
        self.state = COVERED if view.covered else BLOCKED
        self.view = view
        self._held = True  # until something moves: the same frames would say the same
