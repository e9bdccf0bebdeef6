"""Tell whether anything that is not a die lies in the tray: hand, arm, cup, coaster, shadow.

Works on the settle detector's small, blurred frames. The reference is the tray as it
looked at the last clean rest (the first frame until then). A pixel is *foreground*
when it differs from the reference by more than ``level`` and does not look like the
bare floor (so a spot an occluder leaves, or a die left, turns back into floor).
Where the picture changed only mildly (more than ``soft_level`` averaged over about a
die) it is foreground too, floor-like or not: a hand the colour of the floor.
Foreground is grouped into blobs; dice make blobs of about a die's area (a few when
they touch), anything else is larger, or comes in over the tray's rim. The tray is the
profile's (a calibration, or a tray a recogniser found in the frame: ``adopt``); without
one, the whole frame:

- a blob larger than ``max_dice_areas`` die areas blocks the rest;
- a blob touching the tray's rim larger than ``rim_dice_areas`` die areas blocks it
  (a hand or arm reaches in over the rim; a die lying against the wall is smaller);
- at a rest the recogniser read, foreground that no read die explains (nor a die of
  the last rest, whose spot is now empty) blocks it when one blob of it is larger
  than ``unexplained_dice_areas`` (a coaster or phone that is small enough to pass
  the first test, next to the dice).

The reference must not hold a hand or a cup. The first frame is it when its inner tray
(all but a rim of ``INNER_SHARE`` of the tray's size, where the walls are) shows nothing
unlike the floor larger than ``max_dice_areas`` die areas (nor larger than
``rim_dice_areas`` coming in from its edge: a hand lying on the wall shows only its
fingers there); otherwise the reference is *provisional* until the first still frame
that does. Before that, such a thing blocks the rest like any occluder: a hand resting
in the tray, a cup or a coaster lying there when the camera starts. Until then the
floor's colour is taken in each frame's own light (a camera that has just started sends
its first frames too bright or too dark until its exposure settles; a lamp may flicker),
times the smooth shading the frame shows across the tray (a lens darkening its corners,
a lamp lighting its middle: ``SHADE_FIT``).
A tray whose floor is not one colour (a printed mat, a wrong floor colour) would never
pass, so after ``startup_checks`` checks the reference is taken as it is; in a tray
known (calibrated or found; without either, for a thing inside the outline of a tray the
throw watcher saw with no dice in it, ``seen``, and much smaller than it), a thing
blocking it then that is small enough to be set
aside (a beer mat left in the tray when the companion started), or larger but clear of
the rim (a square mat beside small dice), is remembered as standing, as a small one
slid in later is: it blocks until something moves, and its print is no die (its print
read as two or three flagged dice was a throw). Should the reference hold
something after all, the spot that thing leaves turns back into floor: where the
picture now is like the floor and much nearer to it than the reference was, nothing is
in the tray (even where the change is mild), and so is the soft edge of its outline
(``LEFT_EDGE``), so the next clean rest heals the reference.

When the light changes (a lamp switched at the next table, the camera's exposure or
white balance moving) the whole tray differs from the reference. At each still check,
a picture that is the reference times a smooth gain (``LIGHT_MIN``: per channel, a
plane in the log of their ratio, varying little across the tray) with nothing larger
than ``max_dice_areas`` left over is the same tray in another light: the reference,
the floor's colour and a standing thing's look are taken into it (``_follow_light``).
A shadow over part of the tray is no such gain and blocks as before; one that lies
still for the settle detector's ``STALE_SHADOW_SECONDS`` is a lamp lighting part of the
tray otherwise, and is taken as the reference (``take_light``), the one before kept to
go back to when the picture looks like it again.

When the camera's stand or the tray is knocked, the whole picture moves: the tray's rim
and every die's outline differ from the reference. A check that blocks looks for such a
shift (phase correlation, at most ``KNOCK_EDGES`` die edges); when the reference moved by
it explains the picture, the reference, a standing thing and the last rest's dice are
moved along (``_follow_knock``), and the throw watcher takes dice all moved by one shift
for the same rest. With a profile the tray's outline moves along too, and ``knocked``
says by how much in all, for the recognisers to read in the moved tray (a die lying
against the wall fell outside the tray where it was calibrated and was not read).

A round blob (filling ``ROUND_CUP`` of its enclosing circle: a square beer mat does
not) the size of a dice cup (``CUP_EDGES`` die edges across) whose middle is
no lighter than the floor (below 110 % of its brightness: leather, dark or coloured
plastic) is a dice cup upside down over the dice: the tray is *covered*. A lighter
round thing of that size (a white cup, a white or cream beer mat) is a cup when it came
while the dice of the last accepted rest (``rest``) went out of sight: a die's spot is
now under it or bare floor, and no die-sized blob lies beside it. That is how the
hidden throw goes into the tray: the player scoops the dice into the cup and puts it
down upside down. A beer mat slid in beside the dice leaves them in sight, and is an
occluder like any other. The rule cannot tell a dark round beer mat from a cup, nor a
light one laid in within a still time (``still_seconds``) of the dice being taken out.
A round thing of a cup's size that reaches the tray's rim (a cup against the wall, or
its shadow) is looked at the same way before it is taken for a hand.

A cup found over dice keeps the tray covered while nothing moves. Once something moves
(the next player throws beside it: Schocken's hidden third throw stays under the cup
until the round ends) its area is masked out while it stands there looking as it did,
and a clean rest beside it leaves the floor under it in the reference; when it is
lifted the mask is dropped and the dice under it are a new rest.

Anything else that lies still in the tray, clear of its rim and at most ``ASIDE_EDGES``
die edges across, is set aside the same way: it blocks the rest it came into ("something
in the tray") until something moves, and the throws beside it are read from then on. A
cup the rules do not take for one is such a thing: the hidden throw under it is not
proposed, but the round goes on beside it and its dice are a new rest when it is lifted;
a beer mat (or a phone beside large dice) left in the tray does not stop the counting
for the evening; a larger thing blocks until it is taken away. What the recogniser
reads on a thing set aside while it looks as it did then (a phone's camera lenses on
a square bump, a mat's print) is part of it, not a die (``on_standing``); a die that
lands on it changes its spot and is read. A hand or an arm always reaches over the
rim, and blocks while it is there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.autotray import SAME_PLACE
from companion.vision.tray import TrayProfile
from companion.vision.types import Die, Reading, VisionError

# A die's edge as a share of the frame's longer side when no profile gives it: the
# camera is set up to frame the tray, where a 16 mm die is ~5.5 % of the picture
# (tray-a's photos: 0.044-0.08; rendered throws: 0.045-0.062).
DEFAULT_DIE_SHARE = 0.055
# A dice cup (leather or plastic, 7-10 cm across) seen from above, in die edges (16 mm).
CUP_EDGES = (3.5, 9.0)
# How much of its enclosing circle a cup's outline fills at least (see ``_is_cup``).
ROUND_CUP = 0.8
# A thing left lying in the tray, not over its rim, at most this many die edges across
# (a beer mat: 6.5) is set aside like a cup once something moves beside it (see the
# module's docstring); anything larger blocks while it is there. A phone (7 x 14.5 cm)
# is 10 to 12 edges across its diagonal beside dice of 16-19 mm, its shadow included:
# beside large dice it is set aside, beside small ones it blocks until it is taken away.
ASIDE_EDGES = 10.0
# Without a profile, a thing found at start-up lying inside the outline of a tray the
# throw watcher saw with no dice in it (``OcclusionDetector.seen``: ``SEEN_INSIDE`` of
# its pixels at least) and covering at most ``SEEN_THING`` of that outline counts as a
# thing in a tray known: the beer mat of hold-out camera evening 84-3 (hq-near, no
# profile) covered 0.11 of it; a tray left empty in a part of a wider frame, unlike the
# floor colour the start-up check took from the table, is itself such a thing (0.58 of
# its outline in ``test_a_camera_without_calibration_left_empty_...``).
SEEN_INSIDE = 0.9
SEEN_THING = 0.25
# A foreground blob of at least this share of a die's area, beside a round thing, is a
# die in sight: the round thing did not take the dice (see ``_hides_dice``).
LOOSE_DIE = 0.5
HAND = "hand in the tray"
THING = "something in the tray"
CUP = "cup over the dice"
SHADOW = "shadow over the tray"
# The inner tray the start-up check looks at: the tray's mask eroded by this share of its
# smaller side (the walls, the rim, a light box's edge are not floor-coloured).
INNER_SHARE = 0.08
# Checks of a still tray to wait for a start-up reference with nothing in the tray
# (the settle detector checks every 0.2 s: 10 s), before taking it as it is.
STARTUP_CHECKS = 50
# A spot a thing in the reference left is floor (``foreground``) up to this many small
# pixels (a die is 7) beyond where the reference was unlike the floor: a hand lying in
# the tray until the start-up checks took it into the reference left the soft edge of
# its outline, a ring at the rim that made every rest after "a hand in the tray" (with
# 1 pixel, 2 of 5 rendered trays where it did were read again; with 2, 3 of 5, the other
# two a hand the floor's colour, ``STALE_SHADOW_SECONDS``).
LEFT_EDGE = 2
# A blocking blob whose picture differs from the floor's colour by more than
# ``floor_level`` in at most this share of its pixels looks like bare floor (a textured
# wooden floor differs so in about a tenth of its pixels, a hand on a light tray in most).
# It is the spot a hand the floor's colour left when the reference held it (a hand
# resting on a wooden tray when the camera started), or such a hand: the settle
# detector takes it for the tray once it has lain still for ``STALE_SHADOW_SECONDS``.
BARE_SHARE = 0.3
# With a profile the small frames show the tray's bounding box and this share of its
# width and height on every side (``window``): the wall, and a hand coming over it.
# The table around is not watched: a glass set down beside the tray is no motion in it,
# and the tray's dice are as many small pixels across as where it fills the frame.
WINDOW_MARGIN = 0.08
# A die's edge in small pixels with a profile (``small_side``): tray-a's dice where the
# tray fills the frame, shrunk to 160 px (the settle detector's side, on which its levels
# and this module's die areas were set), are 7; a camera further away gets larger small
# frames, up to ``MAX_SMALL_SIDE`` (the Pi's lores stream is 320 px wide).
SMALL_DIE = 7.0
MAX_SMALL_SIDE = 320
# The longest shift of the whole picture, in die edges, taken for the camera's stand or
# the tray knocked (``_follow_knock``; the throw watcher's ``KNOCK_EDGES`` likewise).
KNOCK_EDGES = 2.0
# A shift is taken when the moved reference leaves at most this share of the pixels that
# differed from the picture (more than ``soft_level``) differing: dice thrown as the knock
# came differ either way (a throw's three dice were 0.72 on a validation evening, seed
# 77); a shift found where there was none makes every edge differ, more than before.
KNOCK_FITS = 0.9
# Before a reference is taken, the tray's commonest colour in the frame stands for the
# floor when it is the calibrated floor's colour times a gain of at most this much (log
# units: 0.4 is about ±50 %), alike in the three channels to within the second figure.
FLOOR_GAIN = (0.4, 0.15)
# The light over the tray changed (a lamp switched on or off, the camera's exposure or
# white balance moved) when a still picture is the reference times a smooth gain: per
# channel a plane in the logarithm of their ratio, fitted to the tray's pixels with what
# does not fit it (dice that moved, a hand) left out. Such a change is followed (see
# ``_follow_light``) when the gain differs from 1 by more than ``LIGHT_MIN`` somewhere,
# varies by at most ``LIGHT_SPREAD`` across the tray (a shadow sweeping in darkens part
# of it by a third and more: log 0.4 and beyond), and after it nothing larger than
# ``max_dice_areas`` differs. Log units: 0.04 is 4 %, 0.2 is ±10 %.
LIGHT_MIN = 0.04
LIGHT_SPREAD = 0.2
# A pixel fits the gain when its log ratio lies within this of the plane (JPEG noise and
# the camera's own: ±5 levels of 60 and more).
LIGHT_FIT = 0.08
# Before a reference is taken, the floor is the commonest colour times a smooth shading
# (``_floor_shading``): a lens darkens the picture's corners, a lamp lights the middle of
# the tray more than its ends, by a fifth and more, which on a light floor is more than
# ``floor_level`` and looked like a hand at the rim. The shading is one grey gain (the
# three channels alike: a hand's colour is not), a quadratic in the log over the tray,
# fitted to the pixels within ``SHADE_FIT`` of it (first within the wider figure of the
# commonest colour), and at most ``SHADE_RANGE`` from it anywhere in the tray
# (log units: 0.5 is about 40 % darker or 65 % lighter).
SHADE_FIT = (0.3, LIGHT_FIT)
SHADE_RANGE = 0.5


@dataclass(frozen=True)
class TrayState:
    """What lies in the tray besides dice: ``blocked`` with a ``reason``, ``covered`` by a cup."""

    blocked: bool = False
    reason: str = ""
    covered: bool = False
    # What blocks looks like the bare floor now (see ``BARE_SHARE``): the spot a thing
    # the floor's colour left, which the reference still holds, or such a thing.
    bare: bool = False


CLEAR = TrayState()


@dataclass(frozen=True)
class _Blobs:
    """The foreground's blobs as ``cv2.connectedComponentsWithStats`` labels them (label 0
    is the background): ``areas`` in die areas and ``centroids`` (x, y), both by label
    (``areas[i - 1]`` is blob i's)."""

    labels: np.ndarray
    areas: np.ndarray
    centroids: np.ndarray


@dataclass
class _Standing:
    """A cup over dice or a thing left lying, found standing still in the tray."""

    mask: np.ndarray  # where it stands, with a margin
    area: np.ndarray  # its own pixels (bool, no margin)
    covered: bool  # it is a dice cup: the tray is covered
    picture: np.ndarray  # the small frame it was found in: how it looked
    moved: bool = False  # something moved since it was found


class OcclusionDetector:
    """Find non-dice things in the tray on small frames (see the module's docstring)."""

    def __init__(
        self,
        profile: TrayProfile | None = None,
        level: int = 30,
        floor_level: int = 30,
        soft_level: int = 12,
        max_dice_areas: float = 8.0,
        rim_dice_areas: float = 3.5,
        unexplained_dice_areas: float = 2.5,
        startup_checks: int = STARTUP_CHECKS,
    ) -> None:
        if level <= 0 or floor_level <= 0:
            raise VisionError("occlusion levels must be positive")
        self.profile = profile
        self.calibrated = profile  # as given; ``profile`` may be a tray found (``adopt``)
        # Without a profile: the outline of a tray the throw watcher's last look saw
        # with no dice to confirm it (frame pixels), or None (``_in_seen_tray``).
        self.seen: Sequence[tuple[float, float]] | None = None
        self.level = level
        self.floor_level = floor_level
        self.soft_level = soft_level
        self.max_dice_areas = max_dice_areas
        self.rim_dice_areas = rim_dice_areas
        self.unexplained_dice_areas = unexplained_dice_areas
        self.startup_checks = startup_checks
        self.die_edge: float | None = None  # in frame pixels, from profile or readings
        # How far a move of the camera beyond a knock's moved the calibrated tray
        # (``follow_move``), as ``knocked`` counts it; kept through ``reset``.
        self._moved_by = (0.0, 0.0)
        self.reset()

    def reset(self) -> None:
        """Forget the reference and the tray geometry (a new frame size, a new camera)."""
        self._reference: np.ndarray | None = None
        self._floor: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._rim: np.ndarray | None = None
        self._inner: np.ndarray | None = None
        # How far the reference is from the floor, less ``soft_level``, at most
        # ``LEFT_EDGE`` small pixels away.
        self._ref_floor: np.ndarray | None = None
        self.provisional = True  # no still frame with a clean tray taken as reference yet
        self._startup_left = self.startup_checks
        # What stands still in the tray, away from its rim (``_remember``): a cup over
        # dice, or a thing left lying (a light cup, a beer mat, a phone).
        self._standing: _Standing | None = None
        # The reference before a still shadow was taken for the light (``take_light``),
        # to go back to when the picture looks like it again.
        self._earlier: np.ndarray | None = None
        # The dice of the last accepted rest (``rest``): x, y and a spot's radius.
        self._rest_dice: list[tuple[float, float, float]] = []
        self._scale = 1.0  # small pixels per frame pixel
        self._origin = (0.0, 0.0)  # the frame pixel at the small frame's top left
        self._frame_size: tuple[int, int] | None = None
        self.die_edge = None if self.profile is None else self.profile.die_size
        # How far knocks moved the picture since the first reference, as shares of the
        # frame's width and height (``_follow_knock``), a move followed included.
        self.knocked = self._moved_by

    def start(self, small: np.ndarray, frame_size: tuple[int, int]) -> None:
        """Take the first frame of a stream as the reference (and the floor's colour when
        there is no profile), unless one is set for frames of this size already."""
        if self._reference is None or self._reference.shape != small.shape:
            self._setup(small, frame_size)

    def adopt(self, tray: TrayProfile | None) -> bool:
        """Watch ``tray``, found in the frame by a recogniser without a calibration
        (``TrayKeeper.found_profile``), as a calibrated one: without a profile the whole
        frame is taken for the tray, and a camera that shows a table around it watches
        the table's colour for the floor and a die a few small pixels across. None (no
        tray found at a rest) watches the whole frame again: the finder may have outlined
        a beer mat lying in a tray that fills the frame. Nothing changes with a
        calibration, or for the tray watched now (every corner within
        ``autotray.SAME_PLACE`` of the frame's diagonal, knocks followed). Whether it
        changed: everything seen before is forgotten (``reset``), and the settle
        detector must start afresh too (its window changed)."""
        if self.calibrated is not None or tray is self.profile:
            return False
        if tray is not None and self.profile is not None:
            now = np.array(self.profile.moved(self.knocked).corners_in(tray.frame_size))
            w, h = tray.frame_size
            if np.abs(now - np.array(tray.corners)).max() <= SAME_PLACE * math.hypot(w, h):
                return False
        self.profile = tray
        self.reset()
        return True

    def window(self, frame_size: tuple[int, int]) -> tuple[int, int, int, int]:
        """The part of a ``frame_size`` frame the small frames show (x0, y0, x1, y1): with
        a profile (calibrated or adopted), the tray's bounding box widened by
        ``WINDOW_MARGIN`` of its size on every side (the wall, a hand coming over it),
        within the frame; without one, the whole frame (the camera frames the tray)."""
        w, h = frame_size
        if self.profile is None:
            return (0, 0, w, h)
        xs, ys = zip(*self.profile.corners_in(frame_size), strict=True)
        mx = WINDOW_MARGIN * (max(xs) - min(xs))
        my = WINDOW_MARGIN * (max(ys) - min(ys))
        x0 = min(w - 1, max(0, math.floor(min(xs) - mx)))
        y0 = min(h - 1, max(0, math.floor(min(ys) - my)))
        # At least a pixel, even for a tray drawn as a line.
        return (x0, y0, max(x0 + 1, min(w, math.ceil(max(xs) + mx))),
                max(y0 + 1, min(h, math.ceil(max(ys) + my))))

    def small_side(self, frame_size: tuple[int, int], side: int) -> int:
        """The longer side of the small frames (at least ``side``): with a profile that
        knows the die, large enough that a die's edge is ``SMALL_DIE`` small pixels
        across, up to ``MAX_SMALL_SIDE``."""
        die = None if self.profile is None else self.profile.die_in(frame_size)
        if die is None:
            return side
        x0, y0, x1, y1 = self.window(frame_size)
        return max(side, min(MAX_SMALL_SIDE, math.ceil(SMALL_DIE * max(x1 - x0, y1 - y0) / die)))

    def _small_point(self, x: float, y: float) -> tuple[float, float]:
        """A frame pixel's place in the small frame."""
        return ((x - self._origin[0]) * self._scale, (y - self._origin[1]) * self._scale)

    def _setup(self, small: np.ndarray, frame_size: tuple[int, int]) -> None:
        h, w = small.shape[:2]
        self._frame_size = frame_size
        x0, y0, x1, _ = self.window(frame_size)
        self._origin = (float(x0), float(y0))
        self._scale = w / (x1 - x0)
        if self.profile is not None:
            mask = np.zeros((h, w), np.uint8)
            corners = [self._small_point(x, y) for x, y in self.profile.corners_in(frame_size)]
            cv2.fillPoly(mask, [np.array(corners, np.int32)], 255)
            if self.die_edge is not None:
                self.die_edge *= frame_size[0] / self.profile.frame_size[0]
        else:
            # Without a calibration the camera frames the tray: all but a thin margin.
            mask = np.zeros((h, w), np.uint8)
            m = max(1, round(0.02 * min(h, w)))
            mask[m : h - m, m : w - m] = 255
        if self.die_edge is None:
            self.die_edge = DEFAULT_DIE_SHARE * max(frame_size)
        self._mask = mask
        self._rim = cv2.subtract(mask, cv2.erode(mask, np.ones((5, 5), np.uint8)))
        ys, xs = np.nonzero(mask)
        side = min(np.ptp(xs), np.ptp(ys)) if len(xs) else 0
        k = 2 * round(INNER_SHARE * side) + 1
        self._inner = cv2.erode(mask, np.ones((k, k), np.uint8))
        # Without a calibration, the inner tray's commonest colour (``_floor_in_light_of``).
        floor = (np.array(self.profile.floor_bgr, np.float32) if self.profile is not None
                 else _main_colour(small, self._inner))
        self._floor = np.full(small.shape, np.clip(floor, 0, 255), np.uint8)
        self._set_reference(small)
        # A first frame with nothing unlike the floor in the inner tray is a good
        # reference; otherwise wait for one (see the module's docstring).
        self.provisional = self._floor_check(small).blocked
        self._startup_left = self.startup_checks

    def _set_reference(self, small: np.ndarray) -> None:
        assert self._floor is not None
        self._reference = small.copy()
        far = channel_max(cv2.absdiff(small, self._floor)).astype(np.int16) - self.soft_level
        # Spread by ``LEFT_EDGE`` small pixels: the soft edge of a thing's outline is left
        # floor too when the thing goes (``foreground``).
        self._ref_floor = cv2.dilate(np.clip(far, 0, 255).astype(np.uint8),
                                     np.ones((2 * LEFT_EDGE + 1,) * 2, np.uint8))

    @property
    def die_area(self) -> float:
        """A die's top face in small-frame pixels (at least one pixel)."""
        edge = (self.die_edge or 1.0) * self._scale
        return max(edge * edge, 1.0)

    def foreground(self, small: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
        """uint8 mask (255) of what differs from the reference and is not bare floor."""
        if self._reference is None or self._reference.shape != small.shape:
            self._setup(small, frame_size)
        assert self._reference is not None and self._floor is not None
        assert self._mask is not None
        assert self._ref_floor is not None
        diff = channel_max(cv2.absdiff(small, self._reference))
        to_floor = channel_max(cv2.absdiff(small, self._floor))
        unlike_floor = to_floor > self.floor_level
        # A hand the floor's colour (brown skin on a wooden tray) changes the picture only
        # a little, but over a large area: a milder change, averaged over about a die.
        k = max(3, round(math.sqrt(self.die_area)) | 1)
        mild = (cv2.blur(diff, (k, k)) > self.soft_level) & (diff > self.soft_level // 2)
        # Where the picture is floor now and much nearer the floor than the reference
        # was, something the reference held (or its shadow) left: nothing is there. Up
        # to ``LEFT_EDGE`` small pixels from where the reference was so (``_ref_floor``):
        # the soft edge of a thing's outline was a ring of "foreground" when it left.
        mild &= ~(~unlike_floor & (self._ref_floor > to_floor))
        fg = ((diff > self.level) & unlike_floor | mild).view(np.uint8) * np.uint8(255)
        if self._standing is not None and self._standing.moved:
            # The hidden throw's cup, a thing left lying: not in the way of the next throw.
            fg[self._standing.mask > 0] = 0
        return cv2.bitwise_and(fg, self._mask)

    def occupied(
        self, small: np.ndarray, frame_size: tuple[int, int], dice: Sequence[Die]
    ) -> list[float]:
        """For each die, the share of its top face (a disc of half its edge) that is
        foreground: whether something lies where it was read, or the floor shows as it did."""
        if not dice:
            return []
        fg = self.foreground(small, frame_size)
        shares = []
        for die in dice:
            disc = np.zeros_like(fg)
            x, y = die.region.center
            radius = max(1, round(0.5 * die.region.size * self._scale))
            sx, sy = self._small_point(x, y)
            cv2.circle(disc, (round(sx), round(sy)), radius, 255, -1)
            inside = int(np.count_nonzero(disc))
            shares.append(int(np.count_nonzero(fg & disc)) / inside if inside else 0.0)
        return shares

    def check(self, small: np.ndarray, frame_size: tuple[int, int]) -> TrayState:
        """Is the tray blocked by something that is not a die, or covered by a cup?"""
        view = self._look(small, frame_size)
        # A knock is looked for only when something blocks: it costs a phase correlation.
        if view.blocked and not self.provisional and self._follow_knock(small):
            view = self._look(small, frame_size)
        return view

    def _look(self, small: np.ndarray, frame_size: tuple[int, int]) -> TrayState:
        if self.provisional:
            startup = self._check_startup(small, frame_size)
            if startup.blocked:
                return startup
        if not self.provisional:
            self._follow_light(small)
            self._back_to_earlier(small)
        if self._standing is not None and not self._stands(small, self._standing):
            self._standing = None  # lifted (or pushed): look at it afresh
        if self._standing is not None and not self._standing.moved:
            if self._standing.covered:
                return TrayState(True, CUP, covered=True)
            return TrayState(True, THING)
        fg = self.foreground(small, frame_size)
        n, labels, stats, centroids = cv2.connectedComponentsWithStats(fg, connectivity=8)
        if n <= 1:
            return CLEAR
        areas = stats[1:, cv2.CC_STAT_AREA] / self.die_area
        blobs = _Blobs(labels, areas, centroids)
        big = int(np.argmax(areas)) + 1
        blob_rim = None
        if areas[big - 1] > self.rim_dice_areas:
            assert self._rim is not None
            on_rim = np.unique(labels[self._rim > 0])
            blob_rim = [i for i in on_rim if i and areas[i - 1] > self.rim_dice_areas]
        if blob_rim:
            if len(blob_rim) == 1 and self._is_cover(small, blobs, blob_rim[0]):
                # A cup stood against the tray's wall, or its shadow reaches the rim.
                return TrayState(True, CUP, covered=True)
            blob = np.isin(labels, blob_rim)
            if self._is_shadow(small, blob):
                return TrayState(True, SHADOW)
            return TrayState(True, HAND, bare=self._looks_bare(small, blob))
        if areas[big - 1] > self.max_dice_areas:
            if self._is_cover(small, blobs, big):
                return TrayState(True, CUP, covered=True)
            blob = (labels == big).view(np.uint8)
            if self._fits_aside(blob):
                self._remember(small, blob, covered=False)
            return TrayState(True, THING, bare=self._looks_bare(small, blob > 0))
        return CLEAR

    def _looks_bare(self, small: np.ndarray, blob: np.ndarray) -> bool:
        """Whether the picture inside ``blob`` (bool) is mostly the floor's colour: at
        most ``BARE_SHARE`` of it differs from the floor by more than ``floor_level``."""
        assert self._floor is not None
        to_floor = channel_max(cv2.absdiff(small, self._floor))[blob]
        return bool(np.count_nonzero(to_floor > self.floor_level) <= BARE_SHARE * to_floor.size)

    def _light_field(self, small: np.ndarray) -> np.ndarray | None:
        """The gain (h, w, 3) that takes the reference to ``small`` when the light alone
        changed (see ``LIGHT_MIN``), else None."""
        assert self._reference is not None and self._mask is not None
        h, w = small.shape[:2]
        ys, xs = np.nonzero(self._mask)
        if len(ys) < 50:
            return None
        step = max(1, len(ys) // 1500)
        ys, xs = ys[::step], xs[::step]
        before = self._reference[ys, xs].astype(np.float32)
        ratio = np.log((small[ys, xs].astype(np.float32) + 8.0) / (before + 8.0))
        if float(np.median(np.abs(ratio).max(axis=1))) < LIGHT_MIN / 2:
            return None  # most of the tray is as it was (this runs at every still check)
        fit = _smooth_fit(xs / w - 0.5, ys / h - 0.5, ratio, (LIGHT_FIT,) * 3,
                          np.median(ratio, axis=0), grey=False)
        if fit is None:
            return None  # no smooth gain explains most of the tray
        coef, fitted = fit
        if float(np.abs(fitted).max()) < LIGHT_MIN:
            return None
        if float((fitted.max(axis=0) - fitted.min(axis=0)).max()) > LIGHT_SPREAD:
            return None
        return np.exp(_surface(coef, h, w)).astype(np.float32)

    def _follow_light(self, small: np.ndarray) -> None:
        """When ``small`` differs from the reference by the light alone (``LIGHT_MIN``),
        take the reference, the floor's colour and a standing thing's look into the new
        light: without this, a lamp switched on at the next table blocked the tray as a
        shadow (or a hand) for the rest of the evening."""
        if self._reference is None or self._reference.shape != small.shape:
            return
        assert self._floor is not None
        field = self._light_field(small)
        if field is None:
            return
        relit = np.clip(self._reference * field + 0.5, 0, 255).astype(np.uint8)
        # A standing thing is compared with its own look (``_stands``).
        skip = None if self._standing is None else self._standing.mask
        if not self._alike(small, relit, skip):
            return  # more than the light changed: a hand, a shadow, a cup
        self._floor = np.clip(self._floor * field + 0.5, 0, 255).astype(np.uint8)
        self._set_reference(relit)
        if self._standing is not None:
            standing = self._standing
            standing.picture = np.clip(standing.picture * field + 0.5, 0, 255).astype(np.uint8)

    def _follow_knock(self, small: np.ndarray) -> bool:
        """When ``small`` is the reference moved as a whole by a shift of at most
        ``KNOCK_EDGES`` die edges (the camera's stand or the tray knocked), take the
        reference, a standing thing and the last rest's dice along: without this, the
        tray's rim and every die's outline differed from the reference, a "shadow over
        the tray" until it went stale. Whether it did."""
        knock = self._knock(small)
        if knock is None:
            return False
        sx, sy, moved_reference = knock
        self._set_reference(moved_reference)
        self._earlier = None
        if self._standing is not None:
            st = self._standing
            st.mask = _moved(st.mask, sx, sy, cv2.INTER_NEAREST)
            st.area = _moved(st.area.view(np.uint8), sx, sy, cv2.INTER_NEAREST) > 0
            st.picture = _moved(st.picture, sx, sy)
        self._rest_dice = [(x + sx, y + sy, r) for x, y, r in self._rest_dice]
        assert self._frame_size is not None
        fw, fh = self._frame_size
        self.knocked = (self.knocked[0] + sx / self._scale / fw,
                        self.knocked[1] + sy / self._scale / fh)
        if self.profile is not None:
            # The calibrated tray moved with the picture: its outline, rim and inner
            # tray follow. (Without a profile the outline is the frame's margin.)
            assert self._mask is not None and self._rim is not None
            assert self._inner is not None
            self._mask, self._rim, self._inner = (
                _moved(m, sx, sy, cv2.INTER_NEAREST) for m in (self._mask, self._rim, self._inner)
            )
        return True

    def _knock(self, small: np.ndarray) -> tuple[float, float, np.ndarray] | None:
        """The shift (x, y) that takes the reference to ``small``, and the reference
        moved by it, the strip the knock brought into the picture taken from ``small``;
        None when no shift of a knock's size explains the picture."""
        reference = self._reference
        if reference is None or reference.shape != small.shape:
            return None
        h, w = small.shape[:2]
        grey = [cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(np.float64)
                for im in (reference, small)]
        # Two estimates: without a window the rim and the wall's fittings near the
        # picture's edges show the shift (on a plain tray, when dice were thrown as the
        # knock came, they are all there is); with one, the tray's middle does.
        window = cv2.createHanningWindow((w, h), cv2.CV_64F)
        found = [cv2.phaseCorrelate(grey[0], grey[1])[0],
                 cv2.phaseCorrelate(grey[0], grey[1], window)[0]]
        inside = self._mask > 0 if self._mask is not None else np.ones((h, w), bool)
        best = None
        for sx, sy in found:
            if not 1.0 <= math.hypot(sx, sy) <= KNOCK_EDGES * math.sqrt(self.die_area):
                continue  # below a small pixel the mild rule of ``foreground`` looks past it
            # What came into the picture at its edges was not in the reference.
            band = np.full((h, w), 255, np.uint8)
            mx, my = math.ceil(abs(sx)) + 1, math.ceil(abs(sy)) + 1
            band[my : h - my, mx : w - mx] = 0
            counted = inside & (band == 0)
            shifted = _moved(reference, sx, sy)
            score, before = (
                int(np.count_nonzero(
                    (channel_max(cv2.absdiff(small, other)) > self.soft_level) & counted))
                for other in (shifted, reference)
            )
            if score <= KNOCK_FITS * before and (best is None or score < best[0]):
                best = (score, sx, sy, shifted, band)
        if best is None:
            return None
        _, sx, sy, shifted, band = best
        if not self._alike(small, shifted, band):
            return None  # more than a knock: a hand, a shadow
        shifted[band > 0] = small[band > 0]
        return float(sx), float(sy), shifted

    def take_light(self, small: np.ndarray) -> None:
        """A shadow has lain still so long that it is the light (the settle detector's
        ``STALE_SHADOW_SECONDS``): take ``small`` as the reference, and keep the one
        before to go back to when the picture looks like it again (that light is back)."""
        if self._reference is not None and self._reference.shape == small.shape:
            self._earlier = self._reference
        self.learn(small)

    def _back_to_earlier(self, small: np.ndarray) -> None:
        """Go back to the reference before ``take_light`` when nothing larger than
        ``max_dice_areas`` differs from it: the light that was taken over is back."""
        earlier = self._earlier
        if earlier is None:
            return
        if earlier.shape != small.shape:
            self._earlier = None
            return
        if self._alike(small, earlier):
            self._set_reference(earlier)
            self._earlier = None

    def _alike(self, small: np.ndarray, other: np.ndarray, skip: np.ndarray | None = None
               ) -> bool:
        """Whether nothing larger than ``max_dice_areas`` die areas differs by more than
        ``level`` between two small frames, inside the tray and outside ``skip``."""
        assert self._mask is not None
        differs = (channel_max(cv2.absdiff(small, other)) > self.level).view(np.uint8)
        changed = cv2.bitwise_and(differs * np.uint8(255), self._mask)
        if skip is not None:
            changed[skip > 0] = 0
        n, _, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        return not (n > 1 and stats[1:, cv2.CC_STAT_AREA].max() / self.die_area
                    > self.max_dice_areas)

    def _is_cover(self, small: np.ndarray, blobs: _Blobs, label: int) -> bool:
        """Is blob ``label`` a dice cup upside down (dark, or the dice went into it)? If
        so it is remembered as standing there."""
        blob = (blobs.labels == label).view(np.uint8)
        if self._is_cup(small, blob) or self._hides_dice(small, blob, blobs, label):
            self._remember(small, blob, covered=True)
            return True
        return False

    def count_by(self, edge: float) -> None:
        """Count die areas by a die ``edge`` frame pixels across from now on (the dice
        read disagree with the calibration's die); a thing found standing by the count
        before is forgotten: it may have been the dice, taken for a cup."""
        self.die_edge = edge
        self._standing = None

    def moved(self) -> None:
        """Something moved in the tray (the settle detector says so): from now on a cup
        (or a thing left lying) found standing still is masked out, so throws beside it
        are read."""
        if self._standing is not None:
            self._standing.moved = True

    def _remember(self, small: np.ndarray, blob: np.ndarray, covered: bool) -> None:
        k = max(3, round(0.5 * math.sqrt(self.die_area)) | 1)
        self._standing = _Standing(
            mask=cv2.dilate(blob, np.ones((k, k), np.uint8)),
            area=blob > 0,
            covered=covered,
            picture=small.copy(),
        )

    def on_standing(self, small: np.ndarray, dice: Sequence[Die]) -> list[bool]:
        """For each die, whether it was read on the thing standing in the tray (a phone,
        a beer mat, a cup) where that thing looks as it did when it was found: a phone's
        camera lenses or a mat's print are part of the thing, not dice. A die that
        landed on it changes its spot (the median of the spot's pixels moves by more
        than ``level``), and is kept."""
        standing = self._standing
        if standing is None or not dice or standing.picture.shape != small.shape:
            return [False] * len(dice)
        out = []
        for die in dice:
            x, y = self._small_point(*die.region.center)
            px, py = round(x), round(y)
            h, w = standing.area.shape
            if not (0 <= px < w and 0 <= py < h and standing.area[py, px]):
                out.append(False)
                continue
            disc = np.zeros((h, w), np.uint8)
            radius = max(1, round(0.4 * die.region.size * self._scale))
            cv2.circle(disc, (px, py), radius, 255, -1)
            spot = (disc > 0) & standing.area
            diff = np.abs(small[spot].astype(np.int16) - standing.picture[spot])
            most = diff.max(axis=1)
            out.append(bool(float(np.median(most)) < self.level))
        return out

    def _in_seen_tray(self, blob: np.ndarray | None) -> bool:
        """Does ``blob`` lie inside the tray outline ``seen`` (within ``SEEN_INSIDE`` of
        its pixels) and cover at most ``SEEN_THING`` of it: a thing lying in that tray,
        not the tray itself in a part of a wider frame?"""
        if self.seen is None or blob is None or self.profile is not None:
            return False
        outline = np.array([self._small_point(x, y) for x, y in self.seen], np.float32)
        tray = np.zeros(blob.shape[:2], np.uint8)
        cv2.fillConvexPoly(tray, np.round(outline).astype(np.int32), 255)
        inside = cv2.countNonZero(cv2.bitwise_and(blob, tray))
        size = cv2.countNonZero(blob)
        return (size > 0 and inside >= SEEN_INSIDE * size
                and size <= SEEN_THING * cv2.countNonZero(tray))

    def _fits_aside(self, blob: np.ndarray) -> bool:
        """Is ``blob`` small enough to be left lying beside the dice (``ASIDE_EDGES``)?"""
        points = cv2.findNonZero(blob)
        if points is None:
            return False
        _, radius = cv2.minEnclosingCircle(points)
        return 2 * radius <= ASIDE_EDGES * math.sqrt(self.die_area)

    def _stands(self, small: np.ndarray, standing: _Standing) -> bool:
        """Does the cup (or thing) found earlier still stand where it stood, looking as
        it did?"""
        now = small[standing.area].astype(np.int16)
        diff = np.abs(now - standing.picture[standing.area])
        most = np.maximum(np.maximum(diff[:, 0], diff[:, 1]), diff[:, 2])
        return float(np.median(most)) < self.level

    def _check_startup(self, small: np.ndarray, frame_size: tuple[int, int]) -> TrayState:
        """Before a reference is taken: is anything unlike the floor and larger than a few
        dice in the inner tray? If not, ``small`` becomes the reference."""
        if self._reference is None or self._reference.shape != small.shape:
            self._setup(small, frame_size)
            if not self.provisional:
                return CLEAR
        self._startup_left -= 1
        self._floor_in_light_of(small)
        view, blob = self._floor_blob(small)
        if view.blocked and self._startup_left > 0:
            return view
        self._set_reference(small)
        self.provisional = False
        if ((self.profile is not None or self._in_seen_tray(blob)) and not view.covered
                and blob is not None and (self._fits_aside(blob) or view.reason == THING)):
            # A beer mat lying there all along (against the wall: taken for a hand): set
            # aside as one found later is, so its print is no throw (``on_standing``) and
            # it blocks until something moves. So is a larger thing clear of the rim (a
            # phone, a square mat beside small dice): one slid in later blocks until it
            # is taken away, but this one is in the reference now, and a print on the
            # floor that never goes would block the evening. Only in a tray known
            # (calibrated or found): without one the die is a share of the frame, and a
            # band of the table around a tray in a wider frame fitted aside by it; and
            # a tray in a part of the frame, clear of its rim, is such a thing itself
            # (it was set aside, and the empty rest that makes the watcher look for the
            # tray never came: test_a_camera_without_calibration_left_empty_...). Or a
            # thing inside a tray seen with no dice in it yet (``seen``) that is much
            # smaller than it (``SEEN_THING``): a mat lying in it, uncalibrated, was
            # read before (its print was a throw on hold-out camera evening 84-3 played
            # 20 s late).
            self._remember(small, blob, covered=False)
            return TrayState(True, THING)
        return CLEAR

    def _floor_in_light_of(self, small: np.ndarray) -> None:
        """Before a reference is taken, the floor's colour as ``small`` shows it: a lamp
        flickering on the mains or the camera's exposure hunting makes one frame a tenth
        brighter than the next, which on a light floor is more than ``floor_level`` over
        the whole tray. The commonest colour of the tray in this frame (a beer mat or a
        hand lying there covers less of it than the floor shows), in the inner tray (the
        walls and, without a profile, the table beside a tray that fills the frame are
        no floor: a tray's wooden stand at both sides of the frame was the commonest
        colour of it, and the whole floor "unlike the floor"); with a profile, only
        when it is the calibrated colour times a gain alike in the three channels
        (``FLOOR_GAIN``), else the calibrated colour stays; either times the shading
        across the tray (``_floor_shading``)."""
        assert self._floor is not None and self._inner is not None
        seen = _main_colour(small, self._inner)
        if self.profile is not None:
            floor = np.array(self.profile.floor_bgr, np.float32)
            ratio = np.log((seen + 1.0) / (floor + 1.0))
            if float(np.abs(ratio).max()) > FLOOR_GAIN[0] or float(np.ptp(ratio)) > FLOOR_GAIN[1]:
                seen = floor
        shading = self._floor_shading(small, seen)
        self._floor[:] = np.clip(seen * shading + 0.5, 0, 255).astype(np.uint8)

    def _floor_shading(self, small: np.ndarray, colour: np.ndarray) -> np.ndarray:
        """The smooth grey gain (h, w, 1) that takes ``colour`` to the floor as ``small``
        shows it across the tray (see ``SHADE_FIT``); 1 where no such gain fits."""
        assert self._mask is not None
        h, w = small.shape[:2]
        flat = np.ones((h, w, 1), np.float32)
        ys, xs = np.nonzero(self._mask)
        if len(ys) < 50:
            return flat
        step = max(1, len(ys) // 2000)
        ys, xs = ys[::step], xs[::step]
        ratio = np.log((small[ys, xs].astype(np.float32) + 8.0) / (colour + 8.0))
        fit = _smooth_fit(xs / w - 0.5, ys / h - 0.5, ratio,
                          (SHADE_FIT[0], SHADE_FIT[1], SHADE_FIT[1]), np.zeros(1), grey=True)
        if fit is None:
            return flat  # no smooth grey gain explains most of the tray
        coef, fitted = fit
        # Where the floor is: the walls and what lies round the tray are not held to it.
        floor = fitted[np.abs(ratio - fitted).max(axis=1) < SHADE_FIT[1]]
        if len(floor) < 0.3 * len(fitted) or float(np.abs(floor).max()) > SHADE_RANGE:
            return flat
        field = np.clip(_surface(coef, h, w), floor.min(), floor.max())
        return np.exp(field).astype(np.float32)

    def _floor_check(self, small: np.ndarray) -> TrayState:
        """Blocked when the inner tray holds something unlike the floor larger than
        ``max_dice_areas`` die areas, or larger than ``rim_dice_areas`` reaching its edge
        (compared with the floor model, not the reference)."""
        return self._floor_blob(small)[0]

    def _floor_blob(self, small: np.ndarray) -> tuple[TrayState, np.ndarray | None]:
        """``_floor_check``, and the largest blob's mask (uint8) where it blocks by it."""
        assert self._floor is not None and self._inner is not None
        unlike = channel_max(cv2.absdiff(small, self._floor)) > self.floor_level
        inner = cv2.bitwise_and(unlike.view(np.uint8) * np.uint8(255), self._inner)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(inner, connectivity=8)
        if n <= 1:
            return CLEAR, None
        areas = stats[1:, cv2.CC_STAT_AREA] / self.die_area
        big = int(np.argmax(areas)) + 1
        if areas[big - 1] <= self.max_dice_areas:
            # A hand reaching in over the wall shows only its fingers in the inner tray:
            # as in ``check``, a blob coming in from the edge blocks at a smaller size.
            edge = np.unique(labels[self._inner_edge() > 0])
            if any(i and areas[i - 1] > self.rim_dice_areas for i in edge):
                return TrayState(True, HAND), None
            return CLEAR, None
        blob = (labels == big).view(np.uint8)
        if self._is_cup(small, blob):
            return TrayState(True, CUP, covered=True), blob
        return TrayState(True, HAND if self._touches_rim(labels, big) else THING), blob

    def _touches_rim(self, labels: np.ndarray, label: int) -> bool:
        """Does blob ``label`` (found in the inner tray) reach the inner tray's edge?"""
        return bool(np.any(labels[self._inner_edge() > 0] == label))

    def _inner_edge(self) -> np.ndarray:
        """The inner tray's outermost pixels (a mask)."""
        assert self._inner is not None
        return cv2.subtract(self._inner, cv2.erode(self._inner, np.ones((3, 3), np.uint8)))

    def _is_shadow(self, small: np.ndarray, blob: np.ndarray) -> bool:
        """The blob is the reference, only darker by the same share in every channel."""
        assert self._reference is not None
        now = small[blob].astype(np.float32).mean(axis=0) + 1.0
        before = self._reference[blob].astype(np.float32).mean(axis=0) + 1.0
        ratio = now / before
        return bool(ratio.max() < 0.85 and ratio.max() - ratio.min() < 0.08)

    def _cup_shape(self, blob: np.ndarray) -> tuple[np.ndarray, float, float, float] | None:
        """The outline and enclosing circle (x, y, radius) of ``blob`` when it is round
        and the size of a dice cup (``CUP_EDGES``, ``ROUND_CUP``), else None."""
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        outline = max(contours, key=cv2.contourArea)
        (cx, cy), radius = cv2.minEnclosingCircle(outline)
        edge = math.sqrt(self.die_area)
        if not CUP_EDGES[0] <= 2 * radius / edge <= CUP_EDGES[1]:
            return None
        # The outline, holes filled: the cup's lighter top may look like the floor. A
        # circle with the cup's shadow beside it fills 0.9 of its enclosing circle, a
        # square beer mat 0.64.
        if cv2.contourArea(outline) / (math.pi * radius * radius) <= ROUND_CUP:
            return None
        return outline, cx, cy, radius

    def _is_cup(self, small: np.ndarray, blob: np.ndarray) -> bool:
        assert self._floor is not None
        shape = self._cup_shape(blob)
        if shape is None:
            return False
        _, cx, cy, radius = shape
        # The middle of the circle: the cup's top, not its shadow on the floor beside it;
        # the median, so a beer mat's printed ring or logo does not darken it.
        core = np.zeros(blob.shape, np.uint8)
        cv2.circle(core, (round(cx), round(cy)), max(1, round(radius * 0.5)), 1, -1)
        inside = float(np.median(small[core > 0].astype(np.float32).mean(axis=1)))
        floor = self._floor[min(round(cy), blob.shape[0] - 1), min(round(cx), blob.shape[1] - 1)]
        return inside < 1.1 * float(floor.astype(np.float32).mean())

    def _hides_dice(self, small: np.ndarray, blob: np.ndarray, blobs: _Blobs, label: int) -> bool:
        """A round thing of a cup's size (any colour) that came in while dice of the last
        accepted rest went out of sight: the cup they went into. See the module's
        docstring (``rest``)."""
        assert self._floor is not None and self._reference is not None
        if not self._rest_dice:
            return False
        shape = self._cup_shape(blob)
        if shape is None:
            return False
        # A die thrown or pushed beside it would be a die-sized blob of its own; what a
        # die that left its spot leaves there (a ring of its shadow) is not one.
        edge = math.sqrt(self.die_area)
        for i in np.nonzero(blobs.areas >= LOOSE_DIE)[0] + 1:
            if i == label:
                continue
            x, y = blobs.centroids[i]
            if not any(math.hypot(x - dx, y - dy) < edge for dx, dy, _ in self._rest_dice):
                return False
        under = np.zeros(blob.shape, np.uint8)
        cv2.drawContours(under, [shape[0]], -1, 1, -1)
        to_floor = channel_max(cv2.absdiff(small, self._floor))
        changed = channel_max(cv2.absdiff(small, self._reference))
        h, w = blob.shape
        for x, y, r in self._rest_dice:
            xi, yi = min(max(round(x), 0), w - 1), min(max(round(y), 0), h - 1)
            spot = np.zeros(blob.shape, np.uint8)
            cv2.circle(spot, (xi, yi), max(1, round(r)), 1, -1)
            inside = spot > 0
            # The die left its spot (the reference holds it): the spot is under the
            # round thing now, or bare floor.
            if float(np.median(changed[inside])) > self.level and (
                under[yi, xi] or float(np.median(to_floor[inside])) <= self.floor_level
            ):
                return True
        return False

    def rest(self, reading: Reading) -> None:
        """The dice of the rest just accepted (see ``_hides_dice``): where they lay, in
        small-frame pixels, each as a spot of a third of its edge."""
        self._rest_dice = [
            (*self._small_point(*die.region.center), max(1.0, 0.3 * die.region.size * self._scale))
            for die in reading.dice
        ]

    def unexplained(
        self,
        small: np.ndarray,
        frame_size: tuple[int, int],
        reading: Reading,
        before: Reading | None = None,
    ) -> TrayState:
        """Foreground that no die of ``reading`` (nor of the last rest, ``before``) explains
        (a knock moving the whole picture is looked for first, as in ``check``)."""
        # The dice read sure: a flagged one may be a die half hidden or blurred as it
        # landed, or no die at all (a mat's print, a shadow's edge), and two such of
        # half a die's size once made the die counted by half its size, every throw a
        # "cup" for the rest of the evening (a validation evening seen at 5 fps).
        sure = [d.region.size for d in reading.dice if not d.uncertain]
        if sure:
            self.die_edge = float(np.median(sure))
        view = self._unexplained(small, frame_size, reading, before)
        if view.blocked and self._follow_knock(small):
            view = self._unexplained(small, frame_size, reading, before)
        return view

    def _unexplained(self, small: np.ndarray, frame_size: tuple[int, int], reading: Reading,
                     before: Reading | None) -> TrayState:
        fg = self.foreground(small, frame_size)
        for rd in (reading, before):
            if rd is None:
                continue
            for die in rd.dice:
                x, y = self._small_point(*die.region.center)
                r = round(0.85 * die.region.size * self._scale) + 1
                cv2.circle(fg, (round(x), round(y)), r, 0, -1)
        n, _, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        if n > 1 and stats[1:, cv2.CC_STAT_AREA].max() / self.die_area > (
            self.unexplained_dice_areas
        ):
            return TrayState(True, THING)
        return CLEAR

    def outline(self, frame_size: tuple[int, int]) -> tuple[tuple[float, float], ...] | None:
        """The outline of the tray watched in frames of ``frame_size``, where knocks and a
        move followed have taken it; None without a tray (the whole frame is watched)."""
        tray = self.calibrated or self.profile
        return None if tray is None else tray.moved(self.knocked).corners_in(frame_size)

    def follow_move(self, share: tuple[float, float]) -> None:
        """Watch the calibrated tray moved by ``share`` (x, y) of the frame's width and
        height in all since it was calibrated: the camera moved further than a knock is
        followed (the throw watcher found how far). Everything seen before is forgotten
        (``reset``); the settle detector must start afresh (its window moved)."""
        if self.calibrated is None:
            raise VisionError("only a calibrated tray is followed when the camera moved")
        self._moved_by = (float(share[0]), float(share[1]))
        self.profile = self.calibrated.moved(self._moved_by)
        self.reset()

    def learn(self, small: np.ndarray) -> None:
        """Take ``small`` (a clean rest) as the reference the next frames are compared with."""
        if self._reference is not None and self._reference.shape == small.shape:
            if self._standing is not None:  # keep the floor under a standing cup or thing
                small = np.where((self._standing.mask > 0)[:, :, None], self._reference, small)
            self._set_reference(small)
            self.provisional = False


def _smooth_fit(
    u: np.ndarray, v: np.ndarray, ratio: np.ndarray, limits: tuple[float, ...],
    start: np.ndarray, grey: bool,
) -> tuple[np.ndarray, np.ndarray] | None:
    """A smooth surface over the tray fitted to the log ratios ``ratio`` (n, 3) at the
    points (``u``, ``v``) (each from -0.5 to 0.5 across the small frame), leaving out the
    points off it: each round refits to the points within ``limits[k]`` of the last fit in
    every channel, the first within it of ``start``. ``grey``: a quadratic, one gain for the
    three channels (their mean); else a plane per channel. None when a round keeps less
    than 30 % of the points; else the coefficients (one row per term of ``_terms``) and
    the fit at the points, (n, 1) or (n, 3)."""
    design = _terms(u, v, quadratic=grey)
    target = ratio.mean(axis=1, keepdims=True) if grey else ratio
    fitted = np.broadcast_to(np.asarray(start, np.float64), target.shape)
    coef = np.zeros((design.shape[1], target.shape[1]))
    for limit in limits:
        keep = np.abs(ratio - fitted).max(axis=1) < limit
        if keep.sum() < 0.3 * len(keep):
            return None
        coef = np.linalg.lstsq(design[keep], target[keep], rcond=None)[0]
        fitted = design @ coef
    return coef, fitted


def _terms(u: np.ndarray, v: np.ndarray, quadratic: bool) -> np.ndarray:
    """The terms of a plane (1, u, v), or of a quadratic (also u², uv, v²), stacked on
    the last axis."""
    parts = [np.ones_like(u), u, v] + ([u * u, u * v, v * v] if quadratic else [])
    return np.stack(parts, axis=-1)


def _surface(coef: np.ndarray, h: int, w: int) -> np.ndarray:
    """``_smooth_fit``'s surface over the whole small frame, (h, w, channels)."""
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    return _terms(gx / w - 0.5, gy / h - 0.5, quadratic=coef.shape[0] > 3) @ coef


def channel_max(image: np.ndarray) -> np.ndarray:
    """The largest of the three channels per pixel (``image.max(axis=2)``, which numpy
    reduces some 30 times slower over so short an axis: this runs on every frame)."""
    return np.maximum(np.maximum(image[:, :, 0], image[:, :, 1]), image[:, :, 2])


def _moved(image: np.ndarray, sx: float, sy: float,
           interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """``image`` moved by (``sx``, ``sy``) pixels, its edges repeated into the gap."""
    h, w = image.shape[:2]
    shift = np.array([[1, 0, sx], [0, 1, sy]], np.float32)
    return cv2.warpAffine(image, shift, (w, h), flags=interpolation,
                          borderMode=cv2.BORDER_REPLICATE)


def _main_colour(small: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The floor's colour without a calibration: the commonest colour inside ``mask``
    (16 levels a channel), refined to the median of its pixels. Dice, a hand or a cup
    covering part of the tray do not move it as a median of the middle would."""
    inside = small[mask > 0]
    if not len(inside):
        inside = small.reshape(-1, 3)
    q = (inside // 16).astype(np.int32)
    code = (q[:, 0] * 16 + q[:, 1]) * 16 + q[:, 2]
    common = int(np.bincount(code, minlength=4096).argmax())
    return np.median(inside[code == common], axis=0).astype(np.float32)
