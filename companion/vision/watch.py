"""From camera frames to throws: settle, read the rest from several frames, compare with the
last accepted rest.

``ThrowWatcher`` is the runtime's per-frame path for the dice (``Companion`` and
``companion eval throws`` both use it). Per frame it asks the settle detector whether
the tray is at rest with nothing else in it, and keeps the last ``frames_to_read``
frames since anything moved; at a rest it reads those still frames with the
recogniser and combines them (:func:`~companion.vision.combine.combine_readings`), so
reading several frames adds no wait after the still time. The combined reading is then
compared with the last accepted dice rest:

- a die the combined reading left out for being seen in too few of the frames
  (``combine.combine_with_left_out``) is kept, flagged uncertain, where at least
  ``SELDOM_OCCUPIED`` of its top face differs from the tray as last seen at rest
  (``OcclusionDetector.occupied``): something lies there, and the finder can see a die
  at the edge of its threshold in one frame of three. Left out, it vanished from the
  throw unnoticed, or its picture blocked the rest. A ghost on the bare floor is not
  kept;
- a die read on a thing set aside in the tray (a phone, a beer mat) where that thing
  looks as it did is part of it (``OcclusionDetector.on_standing``): a phone's camera
  bump is a square with round dark lenses, a die's face to the recogniser;
- foreground that no die explains (a coaster beside the dice) blocks the rest;
- the same dice, each within ``nudge_edges`` die edges of where it lay and showing
  the same value (or flagged uncertain in one of the two readings: a die read as a four
  unsure one time and as a five unsure the next did not turn over), are the same rest:
  a hand nudged a die, or an occluder left. This tolerance is **0.5 die edges** by
  default: a die pushed by less than half its edge is the same die; a die thrown
  again lands further away, or shows another face. Two or more dice that all moved by
  one shift of at most ``KNOCK_EDGES`` die edges (``occlusion.KNOCK_EDGES``, as far as
  the occlusion check follows a knock), each to within the tolerance, are the same
  rest too: the camera (or the tray) was knocked, the dice did not move apart;
- anything else is a new throw.

With ``follow``, a rest is read after the recognisers were told how far knocks moved
the picture (``OcclusionDetector.knocked``): a calibrated tray is read where it lies now.

With ``find`` and no calibration, the tray the recogniser found in the frame
(``TrayKeeper.found_profile``) is handed to the occlusion check (``adopt``) at a rest
before it is read (the tray its reads found; none: the whole frame again), and looked
for while the tray is blocked at start-up (when it becomes blocked, then every
``LOOK_SECONDS``): the settle detector then watches it as a calibrated one, starting
afresh from the same picture (still since it was still: the rest is read without
waiting again). Without it, a camera that shows a table around the tray watched the
table as floor (the first rest was "something in the tray" until the start-up check
gave up) and its dice were a few small pixels across. A tray that fills the frame is
not handed over: the frame is the tray.

An empty tray holds no dice to confirm a tray by, so the looks at start-up find none,
and once the start-up checks give up (about 12 s) the whole frame is the reference,
watched with its dice a few small pixels across: a throw there need not move the
frame's small copy at all (validation camera evenings without their calibration and
20 s empty at the start read 0 of 14 and 3 of 10 throws right in the two set-ups whose
tray is small in the frame). So while no tray is watched and the last look saw one it could
not confirm (``seen``, the recognisers' ``seen_tray``), the tray is looked for at every
still moment, and whenever that outline's part of the picture changed since the last
look (``SEEN_CHANGE``, checked every ``SEEN_EVERY`` seconds). The outline is only
looked at, never watched: at start-up it may be a sleeve lying in the tray.

A tray found is proven by the first clean rest of dice under it (an empty tray says
nothing of the die's size). One that blocks every rest instead -- ``DOUBT_BLOCKS``
blocked still moments over ``DOUBT_SECONDS`` with no clean rest of dice since it was
taken -- is doubted: with ``forget`` (the recognisers' ``forget_tray``)
the recogniser forgets it and what it measured in it, the whole frame is watched again
and the tray is looked for afresh. A beer mat lying in the tray at start-up, its print
read as a sure die, confirmed a tray the size of its letters for the die's: every die
was then a blob of several "die areas", every rest "a hand in the tray", all evening.
A hand lying in a right tray that long costs a look for it again, nothing more.

A calibrated tray is not looked for: the camera moved further than a knock is followed
(``occlusion.KNOCK_EDGES``) left every rest after it blocked, "a hand in the tray" all
evening. When a rest is blocked and the steps in brightness across the tray's sides
have left the places they had at the last clean rest (``autotray.moved_across``), the
whole picture then and now are phase-correlated: where the sides' steps lie at the tray
moved by that shift as they lay at the rest, the tray is followed there
(``OcclusionDetector.follow_move``, the recognisers through ``follow``) and the dice of
that rest move along; where they do not (the camera turned or zoomed), once the rests
were blocked ``DOUBT_BLOCKS`` times over ``DOUBT_SECONDS`` since the clean one, the
blocked rests say so (``MOVED``, ``moved``) and the camera page asks for a new
calibration. Before the first clean rest there is no picture to compare with, but the
calibration keeps where its frame showed the sides' steps (``TrayProfile.sides``): where
they have left (the camera or the tray moved while the companion was off), the tray is
looked for by those steps alone within ``START_MOVE_EDGES`` die edges
(``autotray.find_shift``) and followed; where it is not found, no rest is read (its dice
would be read in the old outline) and each says ``MOVED``.

The occlusion check counts "die areas" by the calibration's die until the first rest of
dice is read (every read sets it from the dice after). A calibration whose die is far
off the dice's (an old profile, one that measured something else) made every throw a
blob of several die areas, a cup or a thing, never read. So before any dice were read,
a still moment blocked by a cup or a thing is read (``_size_dice``, at most every
``SIZE_EVERY`` seconds): two or more sure dice more than ``tray.DIE_SIZE_OFF`` times off
the calibration's die make the check count by theirs (``resized``, on /status).

A die read where the picture is what it was when the tray was last seen empty (the
last clean rest without dice) is a mark on the floor, not a die: a speck, a stain or a
scratch the net reads as a one. Its square must differ from the empty tray's by more
than ``MARK_CHANGE`` grey levels (the ``MARK_SHARE`` share of its pixels that changed
most, after a 5x5 blur) to be kept. A die on the floor changes its square by a hundred
levels and more; a mark there before changes it by the camera's noise. Until the tray
was seen empty, or after the picture changed as a whole (the light, the camera moved),
nothing is taken away.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from companion.vision.autotray import (
    Corners,
    find_shift,
    moved_across,
    side_steps,
    sides_moved,
    steps_match,
)
from companion.vision.combine import combine_with_left_out
from companion.vision.occlusion import (
    CUP,
    DEFAULT_DIE_SHARE,
    KNOCK_EDGES,
    THING,
    OcclusionDetector,
    TrayState,
    channel_max,
)
from companion.vision.settle import (
    AT_REST,
    BLOCKED,
    COVERED,
    MOVING,
    SettleDetector,
    SettleEvent,
)
from companion.vision.tray import TrayProfile, die_size_off
from companion.vision.types import Die, Reading

log = logging.getLogger(__name__)

NUDGE_EDGES = 0.5
FRAMES_TO_READ = 3
# A read die whose square changed less than this since the tray was last seen empty is a
# mark on the floor (see the module's docstring); grey levels, of the most changed
# ``MARK_SHARE`` of its pixels. Chosen on a validation sequence (tray-a validation
# photos, seed 79): a speck changed 3-5, the dice 150-180.
MARK_CHANGE = 25
MARK_SHARE = 0.1
# A die seen in too few of a rest's frames is kept (flagged) where at least this share of
# its top face is foreground to the occlusion check: more of it than not is no floor.
SELDOM_OCCUPIED = 0.5

# Without a calibration, while the tray is blocked at start-up and no tray was found, it
# is looked for again this often (seconds; ``ThrowWatcher.find``).
LOOK_SECONDS = 2.0
# Without a calibration and no tray watched, where the last look saw a tray it could not
# confirm (no dice lay in it: ``ThrowWatcher.seen``), the part of the picture it covers,
# shrunk to ``SEEN_SIDE`` pixels, is compared with what it showed at that look every
# ``SEEN_EVERY`` seconds; where more than ``SEEN_CHANGE`` of its pixels changed by more
# than ``MARK_CHANGE`` grey levels, it is looked at again. Three dice on a tray 15 edges
# wide cover 1.3 % of it; the camera's noise, after the shrinking, next to none.
SEEN_EVERY = 0.5
SEEN_SIDE = 96
SEEN_CHANGE = 0.002
# A tray found and watched under which no dice have lain clean yet, blocked at this many
# still moments over at least this many seconds since it was taken, is doubted: it is
# forgotten and looked for afresh (``ThrowWatcher.forget``; module's docstring).
DOUBT_BLOCKS = 4
DOUBT_SECONDS = 10.0
# How far from where the calibration saw it the tray is looked for at a start whose
# first rests show its sides elsewhere (``ThrowWatcher._calibration_fits``), in die edges:
# a camera stand bumped or the tray pushed along the table while the companion was off.
START_MOVE_EDGES = 6.0
# Before the first rest of dice is read under a calibrated tray, a still moment blocked
# by a cup or a thing is read (``_size_dice``) at most once per this many seconds.
SIZE_EVERY = 2.0
# A calibrated tray blocked as often and as long since the last clean rest whose sides'
# steps in brightness are no longer where they were then (``autotray.sides_moved``,
# ``moved_across``: three sides, or two opposite ones; a hand covers one, or two at a
# corner) no longer fits the picture: the camera was moved further than a knock is
# followed (``occlusion.KNOCK_EDGES``). It is followed where one shift of the whole
# picture puts the sides back (``ThrowWatcher._follow_move``, at the first such blocked
# moment); else, once the rests were blocked as often and as long as a found tray's
# before it is doubted, the blocked rests say this:
MOVED = "camera moved since calibration"
# The picture phase-correlated to find how far the camera moved (``_view``), this wide.
VIEW_SIDE = 480

THROW = "throw"  # new dice at rest
SAME = "same"  # the dice of the last rest again (nudged, or an occluder left)
EMPTY = "empty"  # a clean rest without dice


@dataclass(frozen=True)
class WatchEvent:
    """What the watcher saw: ``kind`` is THROW, SAME, EMPTY, MOVING, BLOCKED or COVERED.

    ``reading`` is the combined reading for THROW, SAME and EMPTY; ``reason`` says what
    blocks.
    """

    kind: str
    time: float
    reading: Reading | None = None
    reason: str = ""


class ThrowWatcher:
    """Feed frames; get a ``WatchEvent`` when a throw lands or the tray's state changes."""

    def __init__(
        self,
        read: Callable[[np.ndarray], Reading],
        settle: SettleDetector,
        frames_to_read: int = FRAMES_TO_READ,
        nudge_edges: float = NUDGE_EDGES,
        follow: Callable[[tuple[float, float]], None] | None = None,
        find: Callable[[np.ndarray, bool], TrayProfile | None] | None = None,
        forget: Callable[[tuple[int, int]], None] | None = None,
        seen: Callable[[tuple[int, int]], Corners | None] | None = None,
    ) -> None:
        if frames_to_read < 1:
            raise ValueError(f"frames_to_read must be at least 1, got {frames_to_read}")
        self.read = read
        # Told ``OcclusionDetector.knocked`` before a rest is read, when it changed: the
        # recognisers' ``follow_tray``.
        self.follow = follow
        self._followed = (0.0, 0.0)
        # Asked for the tray in a frame when no calibration gives one: the recognisers'
        # ``found_tray``.
        self.find = find
        self._looked = -math.inf  # when ``find`` was last asked
        # Told to forget a tray found that no clean rest proved (module's docstring):
        # the recognisers' ``forget_tray``.
        self.forget = forget
        # Asked, while no tray is watched, for the outline the last look saw with no dice
        # to confirm it (the recognisers' ``seen_tray``).
        self.seen = seen
        # The outline seen's part of the picture at the last look, and when it was last
        # compared with the frame (``_seen_changed``).
        self._seen_view: np.ndarray | None = None
        self._seen_checked = -math.inf
        self._doubted_since: float | None = None  # when an unproven found tray was taken
        self._doubts = 0  # blocked still moments under it since
        # With a calibration: the last clean rest as ``_doubt_calibration`` compares
        # with it. ``moved``: the calibration no longer fits the picture and the move was
        # not found (``MOVED``).
        self._rest: _CleanRest | None = None
        self.moved = False
        # The calibration's die and the dice's (frame pixels) when they differed by more
        # than ``tray.DIE_SIZE_OFF`` and the dice's is counted by (``_size_dice``).
        self.resized: tuple[float, float] | None = None
        self._sized = -math.inf  # when a blocked still moment was last read for it
        self.settle = settle
        settle.auto_accept = False
        self.frames_to_read = frames_to_read
        self.nudge_edges = nudge_edges
        self.last: Reading | None = None  # the last accepted dice rest
        self._still: deque[np.ndarray] = deque(maxlen=frames_to_read)
        self._empty: np.ndarray | None = None  # a frame of the last rest without dice

    def reset(self) -> None:
        """Forget everything seen (a new camera, another frame size)."""
        self.settle.reset()
        self.last = None
        self._still.clear()
        self._empty = None
        self._doubted_since = None
        self._rest = None
        self.moved = False
        self.resized = None
        self._sized = -math.inf

    @property
    def state(self) -> str:
        """The settle state: moving, at rest, blocked or covered."""
        return self.settle.state

    def update(
        self, frame: np.ndarray, now: float, lores: np.ndarray | None = None
    ) -> WatchEvent | None:
        """Take the next frame; return an event when something happened.

        ``lores``, a small copy of the same moment, is what settle detection looks at
        when given (the Pi camera's second stream): cheaper than shrinking ``frame``.
        """
        size = (frame.shape[1], frame.shape[0]) if frame.ndim >= 2 else None
        if self.settle.frame_size is not None and size != self.settle.frame_size:
            self.reset()
        small = frame if lores is None else lores
        event = self.settle.update(small, now, size=size)
        if self.settle.still_since != now:
            self._still.append(frame)
        else:  # something moved: the frames before are another picture
            self._still.clear()
            self._still.append(frame)
        look = self._looks_for_tray(event, now, frame)
        if look is not None and self._look(frame, now, look):
            # The same picture in the tray's window, still since it was still before.
            self.settle.restart(small, now, size)
            event = self.settle.update(small, now, size=size)
        if event is None:
            return None
        if event.state in (MOVING, BLOCKED, COVERED):
            reason = event.reason
            if event.state == BLOCKED:
                self._doubt(small, size, now)
                reason = MOVED if self.moved else reason
            if event.reason in (THING, CUP):
                self._size_dice(now)
            return WatchEvent(event.state, now, reason=reason)
        if event.state != AT_REST:
            return None
        fits = self._calibration_fits(now)
        if fits is None:
            return None  # the tray was found moved and is followed: its rest comes again
        if not fits:
            self.settle.block(TrayState(True, MOVED))
            return WatchEvent(BLOCKED, now, reason=MOVED)
        if not event.new_throw and self.last is not None:
            self._accept(self.last, now)
            return WatchEvent(SAME, now, self.last)
        self._follow_knock()
        try:
            readings = [self.read(f) for f in self._still]
        except Exception:
            self.settle.retry()  # look at the rest again with the next frame
            raise
        reading, left_out = combine_with_left_out(readings)
        seldom = replace(reading, dice=left_out)
        return self._decide(
            self._without_marks(reading, self._still[-1]), now,
            self._without_marks(seldom, self._still[-1]).dice,
        )

    def _looks_for_tray(self, event: SettleEvent | None, now: float,
                        frame: np.ndarray) -> bool | None:
        """Whether to ask ``find`` for the tray now, and whether it should look at the
        frame (True) or say what the reads found (False); None: not now. It says at a
        rest about to be read; it looks while no tray is watched and the tray is blocked
        at start-up (no clean reference yet: the table around a tray is no floor), when
        it becomes so and every ``LOOK_SECONDS`` while it stays so (the dice a few small
        pixels across need not move the picture enough to end the block). While no tray
        is watched in a frame where the last look saw one with no dice to confirm it
        (``seen``) -- the start-up check took the frame as it is, and the whole frame is
        watched with the dice a few small pixels across -- it looks at every still
        moment, and when that tray's part of the picture changed (``_seen_changed``):
        dice thrown without a hand need not move the whole frame's small copy at all."""
        occlusion = self.settle.occlusion
        if self.find is None or occlusion is None or occlusion.calibrated is not None:
            return None
        if occlusion.profile is None and not occlusion.provisional and self.seen is not None:
            still = event is not None and event.state != MOVING
            due = self._seen_view is not None and now - self._seen_checked >= SEEN_EVERY
            if still or due:  # asked only then: the runtime asks the active game
                outline = self.seen((frame.shape[1], frame.shape[0]))
                if outline is None:
                    self._seen_view = None  # nothing to compare
                elif still or self._seen_changed(frame, outline, now):
                    return True
        if event is not None and event.state == AT_REST:
            return False if event.new_throw or self.last is None else None
        if (occlusion.profile is not None or not occlusion.provisional
                or self.settle.state not in (BLOCKED, COVERED)):
            return None
        return True if event is not None or now - self._looked >= LOOK_SECONDS else None

    def _seen_changed(self, frame: np.ndarray, outline: Corners, now: float) -> bool:
        """Whether the part of ``frame`` that ``outline`` (a tray the last look saw with
        no dice in it) covers changed since that look (``SEEN_CHANGE``); asked every
        ``SEEN_EVERY`` seconds."""
        assert self._seen_view is not None
        self._seen_checked = now
        view = _outline_view(frame, outline)
        if view.shape != self._seen_view.shape:
            return True
        changed = cv2.absdiff(view, self._seen_view) > MARK_CHANGE
        return cv2.countNonZero(changed.view(np.uint8)) > SEEN_CHANGE * changed.size

    def _look(self, frame: np.ndarray, now: float, look: bool) -> bool:
        """Hand the occlusion check the tray ``find`` sees in ``frame`` (``look``: looking
        at it now); whether it took another tray (the settle detector must start afresh:
        its window changed)."""
        occlusion = self.settle.occlusion
        assert self.find is not None and occlusion is not None
        self._looked = now
        found = self.find(frame, look)
        seen = None
        if found is None and self.seen is not None:
            seen = self.seen((frame.shape[1], frame.shape[0]))
        occlusion.seen = seen  # what a thing at start-up lies in (``_in_seen_tray``)
        # What the outline seen shows now, to tell when it changed (``_seen_changed``).
        self._seen_view = None if seen is None else _outline_view(frame, seen)
        self._seen_checked = now
        if found is None and self.settle.state != AT_REST:
            return False  # a hand may hide a side of the tray watched
        if not occlusion.adopt(found):
            return False
        if found is None:
            log.info("no tray found at a rest: watching the whole frame again")
        else:
            log.info("watching the tray found at %s (die %.0f px), not the whole frame",
                     _corners(found), found.die_size or 0.0)
        self._doubted_since = None if found is None else now
        self._doubts = 0
        self._followed = (0.0, 0.0)
        return True

    def _doubt(self, frame: np.ndarray, size: tuple[int, int] | None, now: float) -> None:
        """A still moment blocked (``frame``: the picture or its small copy): under a found
        tray no clean rest of dice has proven, once ``DOUBT_BLOCKS`` such over
        ``DOUBT_SECONDS``, forget it and watch the whole frame again (module's
        docstring); the tray is looked for afresh from the next frame. Under a calibrated
        tray, see whether the camera moved (``_doubt_calibration``)."""
        self._doubt_calibration(now)
        occlusion = self.settle.occlusion
        if self._doubted_since is None or self.forget is None or occlusion is None:
            return
        self._doubts += 1
        if self._doubts < DOUBT_BLOCKS or now - self._doubted_since < DOUBT_SECONDS:
            return
        self._doubted_since = None
        if occlusion.profile is None or size is None:
            return  # the whole frame is watched already
        log.warning("the tray found at %s (die %.0f px) blocked %d still moments and no dice"
                    " lay clean in it: looking for it afresh",
                    _corners(occlusion.profile), occlusion.profile.die_size or 0.0,
                    self._doubts)
        self.forget(size)
        if occlusion.adopt(None):
            self.settle.restart(frame, now, size)
            self._looked = -math.inf  # look at the next frame

    def _size_dice(self, now: float) -> None:
        """A still moment blocked by something larger than the dice may be (a cup, a
        thing) under a calibrated tray, before any rest of dice was read: read it (at
        most every ``SIZE_EVERY`` seconds); when two or more dice are read sure and their
        median edge is off the die the occlusion check counts by (the calibration's) by
        more than ``tray.DIE_SIZE_OFF``, count by theirs (``count_by``) and look again
        (``resized``). A calibration of half the die made every throw a blob of several
        "die areas": a cup or a thing, never read, so the reads that set the die at every
        rest (``OcclusionDetector.unexplained``) never came."""
        occlusion = self.settle.occlusion
        if (occlusion is None or occlusion.calibrated is None or self.resized is not None
                or (self.last is not None and self.last.dice) or not self._still
                or not occlusion.die_edge or now - self._sized < SIZE_EVERY):
            return
        self._sized = now
        sure = [d.region.size for d in self.read(self._still[-1]).dice if not d.uncertain]
        if len(sure) < 2:
            return
        measured, counted = float(np.median(sure)), float(occlusion.die_edge)
        if not die_size_off(measured, counted):
            return
        log.warning("the dice measure %.0f px, the calibration's die %.0f px: counting by the"
                    " dice's; calibrate the tray again", measured, counted)
        occlusion.count_by(measured)
        self.resized = (counted, measured)
        self.settle.recheck()

    def _doubt_calibration(self, now: float) -> None:
        """A still moment blocked under a calibrated tray: when three of the tray's sides,
        or two opposite ones, are not where they were at the last clean rest
        (``autotray.moved_across``), follow the tray where the picture moved
        (``_follow_move``); where no one shift puts its sides back, once such moments were
        ``DOUBT_BLOCKS`` over ``DOUBT_SECONDS`` since that rest, every blocked rest says so
        (``MOVED``, ``moved``) until a clean one."""
        occlusion, rest = self.settle.occlusion, self._rest
        if occlusion is None or occlusion.calibrated is None or self.moved or not self._still:
            return
        if rest is None and occlusion.calibrated.sides is not None:
            # No clean rest yet: the sides as the calibration's frame showed them.
            rest = self._rest = _CleanRest(occlusion.calibrated.sides, None, (0.0, 0.0), now)
        if rest is None:
            return
        rest.blocks += 1
        frame = self._still[-1]
        moved = sides_moved(rest.sides, _tray_steps(occlusion, frame))
        if not moved_across(moved) or self._follow_move(frame, now, rest):
            return
        if rest.blocks < DOUBT_BLOCKS or now - rest.at < DOUBT_SECONDS:
            return
        self.moved = True
        log.warning("sides %s of the calibrated tray are no longer where they were and %d"
                    " still moments were blocked since the last clean rest, and no one shift"
                    " of the picture puts them back: calibrate again", list(moved),
                    rest.blocks)

    def _follow_move(self, frame: np.ndarray, now: float, rest: _CleanRest) -> bool:
        """Follow the calibrated tray where the picture moved since the clean ``rest``
        (``_view``s phase-correlated) when its sides' steps lie there as they lay then;
        the dice of that rest move along (the same dice are no new throw). Whether it
        did."""
        occlusion = self.settle.occlusion
        assert occlusion is not None and occlusion.calibrated is not None
        size = (frame.shape[1], frame.shape[0])
        if rest.view is None:
            # The calibration's sides, no picture: look for them around where they were.
            # It checks the sides at the shift it finds, and a pixel beside it.
            shift = find_calibrated(frame, occlusion.calibrated.corners_in(size), rest.sides,
                                    occlusion.die_edge)
            if shift is None:
                return False
            dx, dy = shift
            total = (dx / size[0], dy / size[1])
        else:
            view = _view(frame)
            if view.shape != rest.view.shape:
                return False
            window = cv2.createHanningWindow((view.shape[1], view.shape[0]), cv2.CV_64F)
            (sx, sy), _ = cv2.phaseCorrelate(rest.view, view, window)
            dx, dy = sx * size[0] / view.shape[1], sy * size[1] / view.shape[0]
            # From where the tray lay at that rest: a knock followed since may be wrong.
            total = (rest.knocked[0] + dx / size[0], rest.knocked[1] + dy / size[1])
            there = occlusion.calibrated.moved(total).corners_in(size)
            if not steps_match(rest.sides, side_steps(frame, there)):
                return False
        log.warning("the camera moved by %.0f x %.0f px %s: the calibrated tray follows it;"
                    " calibrate again when there is a moment", dx, dy,
                    "since it was calibrated" if rest.view is None
                    else "further than a knock is followed")
        occlusion.follow_move(total)
        self.settle.restart(frame, now, size)
        self._followed = total
        if self.follow is not None:
            self.follow(total)
        if self.last is not None:
            self.last = replace(self.last, dice=tuple(
                replace(d, region=d.region.moved_to((d.region.center[0] + dx,
                                                     d.region.center[1] + dy)))
                for d in self.last.dice))
        self._empty = None  # the floor's marks are elsewhere now
        self._rest = None
        return True

    def _calibration_fits(self, now: float) -> bool | None:
        """Before any clean rest in a calibrated tray: are its sides where the
        calibration's frame showed them (``TrayProfile.sides``)? Where three of them, or
        two opposite ones, are not, the camera or the tray moved while the companion was
        off: the tray is looked for within ``START_MOVE_EDGES`` die edges by those sides'
        steps alone (``autotray.find_shift``) and followed there (None: the rest is seen
        afresh); where it is not found, the rest is not read (False: dice outside the
        old outline would be left out of the throw) and says ``MOVED``."""
        occlusion = self.settle.occlusion
        if (occlusion is None or occlusion.calibrated is None or not self._still
                or occlusion.calibrated.sides is None
                or (self._rest is not None and self._rest.view is not None)):
            return True
        frame = self._still[-1]
        moved = sides_moved(occlusion.calibrated.sides, _tray_steps(occlusion, frame))
        if not moved_across(moved):
            return True
        start = _CleanRest(occlusion.calibrated.sides, None, (0.0, 0.0), now)
        if self._follow_move(frame, now, start):
            return None
        if not self.moved:
            log.warning("sides %s of the calibrated tray are not where the calibration saw"
                        " them, nor anywhere near: the camera or the tray moved since;"
                        " calibrate again", list(moved))
        self.moved = True
        return False

    def _follow_knock(self) -> None:
        """Tell ``follow`` how far knocks have moved the picture, when that changed."""
        occlusion = self.settle.occlusion
        if self.follow is None or occlusion is None or occlusion.knocked == self._followed:
            return
        self._followed = occlusion.knocked
        self.follow(occlusion.knocked)

    def _without_marks(self, reading: Reading, frame: np.ndarray) -> Reading:
        """``reading`` less the dice that are marks on the floor (module's docstring)."""
        empty = self._empty
        if empty is None or empty.shape != frame.shape or not reading.dice:
            return reading
        dice = tuple(d for d in reading.dice if _changed_since(d, frame, empty))
        if len(dice) == len(reading.dice):
            return reading
        return replace(reading, dice=dice)

    def _decide(
        self, reading: Reading, now: float, seldom: tuple[Die, ...] = ()
    ) -> WatchEvent:
        occlusion = self.settle.occlusion
        assert self.settle.small is not None and self.settle.frame_size is not None
        if occlusion is not None:
            small, size = self.settle.small, self.settle.frame_size
            on_thing = occlusion.on_standing(small, reading.dice)
            if any(on_thing):
                reading = replace(reading, dice=tuple(
                    d for d, on in zip(reading.dice, on_thing, strict=True) if not on))
            shares = occlusion.occupied(small, size, seldom)
            there = tuple(d for d, share in zip(seldom, shares, strict=True)
                          if share >= SELDOM_OCCUPIED)
            if there:
                reading = replace(reading, dice=reading.dice + there)
            view = occlusion.unexplained(small, size, reading, self.last)
            if view.blocked:
                self.settle.block(view)
                reason = view.reason
                if not view.covered:
                    self._doubt(self._still[-1], size, now)
                    reason = MOVED if self.moved else reason
                return WatchEvent(BLOCKED, now, reason=reason)
        same = self.last is not None and same_dice(reading, self.last, self.nudge_edges)
        self._accept(reading, now)
        if not reading.dice:
            return WatchEvent(EMPTY, now, reading)
        return WatchEvent(SAME if same else THROW, now, reading)

    def _accept(self, reading: Reading, now: float) -> None:
        """``reading`` is the clean rest new throws are compared with from now on (and
        whose dice a cup may take out of sight)."""
        self.settle.accept()
        if reading.dice:
            self._doubted_since = None  # dice read clean: the tray watched is proven
        occlusion = self.settle.occlusion
        if occlusion is not None:
            occlusion.rest(reading)
            if occlusion.calibrated is not None and self._still:
                frame = self._still[-1]
                steps = _tray_steps(occlusion, frame)
                self._rest = None if steps is None else _CleanRest(
                    steps, _view(frame), occlusion.knocked, now)
                self.moved = False
        self.last = reading
        if not reading.dice and self._still:
            self._empty = self._still[-1]


@dataclass
class _CleanRest:
    """A clean rest in a calibrated tray, as ``ThrowWatcher._doubt_calibration`` compares
    with it: where the steps across the tray's sides lay (``autotray.side_steps``), the
    picture (``_view``), ``OcclusionDetector.knocked`` then, when it was, and how many
    still moments were blocked since."""

    sides: np.ndarray
    view: np.ndarray | None  # None: the calibration's sides, no rest seen yet
    knocked: tuple[float, float]
    at: float
    blocks: int = 0


def find_calibrated(frame: np.ndarray, corners: tuple[tuple[float, float], ...],
                    sides: np.ndarray, die_edge: float | None) -> tuple[float, float] | None:
    """Where the tray calibrated at ``corners`` with ``sides`` lies in ``frame``: the shift
    ``autotray.find_shift`` finds within ``START_MOVE_EDGES`` die edges (``die_edge`` in
    frame pixels; without one, ``occlusion.DEFAULT_DIE_SHARE`` of the frame), or None."""
    edge = die_edge or DEFAULT_DIE_SHARE * max(frame.shape[1], frame.shape[0])
    return find_shift(frame, corners, sides, START_MOVE_EDGES * edge)


def _tray_steps(occlusion: OcclusionDetector, frame: np.ndarray) -> np.ndarray | None:
    """The steps across the sides of the tray ``occlusion`` watches, where knocks and a
    move followed took it, in ``frame`` (``autotray.side_steps``); None without one."""
    outline = occlusion.outline((frame.shape[1], frame.shape[0]))
    return None if outline is None else side_steps(frame, outline)


def _view(frame: np.ndarray) -> np.ndarray:
    """``frame`` in grey, ``VIEW_SIDE`` pixels wide, as floats: to phase-correlate."""
    h, w = frame.shape[:2]
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, (VIEW_SIDE, max(1, round(h * VIEW_SIDE / w))),
                       interpolation=cv2.INTER_AREA)
    return small.astype(np.float64)


def _outline_view(frame: np.ndarray, outline: Corners) -> np.ndarray:
    """The grey picture inside ``outline``'s bounding box, shrunk to ``SEEN_SIDE`` pixels
    on its longer side, blurred by 3x3."""
    h, w = frame.shape[:2]
    xs, ys = zip(*outline, strict=True)
    x0, y0 = max(0, math.floor(min(xs))), max(0, math.floor(min(ys)))
    x1, y1 = min(w, math.ceil(max(xs))), min(h, math.ceil(max(ys)))
    part = frame[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)]
    grey = part if part.ndim == 2 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
    factor = SEEN_SIDE / max(grey.shape)
    size = (max(1, round(grey.shape[1] * factor)), max(1, round(grey.shape[0] * factor)))
    return cv2.blur(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), (3, 3))


def _corners(tray: TrayProfile) -> list[tuple[int, int]]:
    """A tray's corners in whole pixels, for the log."""
    return [(round(x), round(y)) for x, y in tray.corners]


def _changed_since(die: Die, frame: np.ndarray, empty: np.ndarray) -> bool:
    """Whether ``die``'s square in ``frame`` differs from ``empty`` by more than a mark's."""
    x, y = die.region.center
    half = max(2, round(0.5 * die.region.size))
    h, w = frame.shape[:2]
    x0, y0 = max(0, round(x) - half), max(0, round(y) - half)
    x1, y1 = min(w, round(x) + half), min(h, round(y) + half)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return True
    change = cv2.absdiff(frame[y0:y1, x0:x1], empty[y0:y1, x0:x1])
    if change.ndim == 3:
        change = channel_max(change)
    change = cv2.GaussianBlur(change, (5, 5), 0)
    return float(np.percentile(change, 100 * (1 - MARK_SHARE))) > MARK_CHANGE


def same_dice(a: Reading, b: Reading, nudge_edges: float = NUDGE_EDGES) -> bool:
    """True when ``a`` and ``b`` show the same dice: as many, each within ``nudge_edges``
    die edges of one of the other's (one to one) with the same value, or one of the two
    flagged uncertain; two or more may also all be moved by one shift of up to
    ``KNOCK_EDGES`` die edges (the camera or the tray knocked)."""
    if len(a.dice) != len(b.dice):
        return False
    if _all_matched(a.dice, b.dice, (0.0, 0.0), nudge_edges):
        return True
    if len(a.dice) < 2:
        return False  # one die moved is a die moved, whatever moved it
    for die in a.dice:
        for other in b.dice:
            if not _alike(die, other):
                continue
            shift = (die.region.center[0] - other.region.center[0],
                     die.region.center[1] - other.region.center[1])
            edge = max(die.region.size, other.region.size, 1.0)
            if math.hypot(*shift) <= KNOCK_EDGES * edge and _all_matched(
                a.dice, b.dice, shift, nudge_edges
            ):
                return True
    return False


def _all_matched(a: tuple[Die, ...], b: tuple[Die, ...], shift: tuple[float, float],
                 nudge_edges: float) -> bool:
    """Whether each die of ``a``, moved back by ``shift``, has its own die in ``b``."""
    free = list(b)
    for die in a:
        match = _nearest_same(die, free, nudge_edges, shift)
        if match is None:
            return False
        free.remove(match)
    return True


def _alike(die: Die, other: Die) -> bool:
    """The same value, or one of the two unsure (it may not have turned over)."""
    return other.value == die.value or die.uncertain or other.uncertain


def _nearest_same(die: Die, others: list[Die], nudge_edges: float,
                  shift: tuple[float, float] = (0.0, 0.0)) -> Die | None:
    best, best_d = None, math.inf
    x, y = die.region.center[0] - shift[0], die.region.center[1] - shift[1]
    for other in others:
        d = math.hypot(x - other.region.center[0], y - other.region.center[1])
        limit = nudge_edges * max(die.region.size, other.region.size, 1.0)
        if _alike(die, other) and d <= limit and d < best_d:
            best, best_d = other, d
    return best


def describe(event: WatchEvent) -> dict[str, Any]:
    """A JSON-able line for logs and the camera page."""
    return {"kind": event.kind, "time": round(event.time, 3), "reason": event.reason}
