"""``PipRecognizer``: one object that turns a frame into a ``Reading`` of pip dice."""

from __future__ import annotations

import time
from dataclasses import replace

import cv2
import numpy as np

from companion.vision.autotray import Corners, TrayKeeper, edges_outside, with_tray_time
from companion.vision.detect import FinderOptions, check_frame, find_dice
from companion.vision.dicelist import limit, suppress_duplicates
from companion.vision.diesize import kept, same_scene, scene
from companion.vision.pipnet import PipNet, load_pipnet
from companion.vision.pipread import Candidate, count_pips, read_with_net
from companion.vision.rectify import CANON_DIE, TrayView, tray_view
from companion.vision.spot import PIP_MODEL, PipSpotter, choose_spotter
from companion.vision.tray import TrayProfile, find_in_tray, load_tray
from companion.vision.types import Die, DieRegion, Reading, VisionError

# The finder's working side for pip dice: a 640-pixel frame halves exactly (OpenCV's
# fast path) and the finder takes half the time it takes at its default 480, finding
# 1,051 of tray-a's 1,063 dice against 1,056 (the net drops what is not a die).
PIP_WORK_SIDE = 320
# The spotter's working scale in the straightened view: a ``CANON_DIE`` die comes out 19.5
# working pixels, the middle of the sizes it was trained on (11-26). At 0.5 (15 pixels, as
# it saw the tray-a photos) it missed touching rendered dice: 0.940 against 0.995 of 600
# dice (seed 8101, 1280x960), 0.842 against 0.962 hard (seed 8102); whole-frame scenes of
# the validation photos read alike at both (0.980).
VIEW_SCALE = 0.65
# Without a profile, a view scale within this share of 1 (or of 0.5) is taken as exactly
# that: a die 15 % off the canonical size reads as well (the nets were trained on tray-a
# dice from 25 to 38 pixels), and the frame need not be resampled.
SNAP = 0.15
# The die size of a camera set-up is the median of this many measures, one per rest: on
# the first rests with dice, then on every ``SIZE_EVERY``-th frame read (a rest is read
# from up to three frames: every 15 throws or so; a measure costs about ten reads' spotter
# passes). Until ``diesize.SIZE_AGREE`` rests are measured the first one's size is kept,
# and a frame that shows what the last one measured showed is not measured again
# (``diesize.same_scene``): one rest is one measure.
SIZE_FRAMES = 5
SIZE_EVERY = 50
# Where the profile knows the die, the die size is measured in the tray straightened so
# that die is this many times ``CANON_DIE`` (never enlarged): large dice no longer make the
# spotter work at up to 1280 pixels. Chosen on the validation scenes (seed 1, the shipped
# 3-channel net): against measuring at the frame's own scale, 0.9868 of 1,518 dice right
# (0.9862), 58 flagged (62), sure wrong alike (11), peak memory of `eval pips` 172 MB (238),
# 21.8 ms a frame (28.8); at 1.0 0.9842 and 164 MB, at 2.0 0.9855 and 232 MB.
MEASURE_ZOOM = 1.25
# A straightened tray narrower than this (pixels, at the spotter's scale) holds no die.
MIN_VIEW = 32
# How sure the pip net must be, at one view, that a region the spotter found is a die for
# it to count in the die size estimate (``_is_die``): the flag threshold of the one-view
# reader this was chosen with.
SIZE_SURE = 0.8
# A frame read whole (no tray calibrated or found) in which the spotter finds more than
# ``CLUTTER_REGIONS`` places, or the net more than ``CLUTTER_DICE`` dice, shows a table
# the nets take for dice (print, tiles, a patterned cloth), not a throw: it is not read
# (``Reading.cluttered``). Whole frames of the validation scenes on wood, cloth and a bar
# show the spotter at most 47 places and the net at most 26 dice (tray-a throws have up to
# 25); a drinks menu around the tray (``scene.UNSEEN_SURROUNDS``) 300-2,000 dice, each read
# costing the net some 10 ms. The caps bound that time and keep those phantoms out.
CLUTTER_REGIONS = 150
CLUTTER_DICE = 40
# A tray looked for at the settle detector's request (``found_tray`` with ``look``: the
# tray blocked at start-up, no throw read yet) is confirmed by at least this many sure
# dice read in it. A beer mat lying in the tray then reads as a row of dice, its
# letters, one of them sure: confirmed by it, the tray got the letters' size for the
# die's (validation evening 82-3, hold-out 66-3). A throw read at a rest confirms it
# by one, as ever.
LOOK_SURE = 2


class PipRecognizer:
    """Reads pip dice from frames; set up once per camera and profile, then called per frame.

    Every frame is read in a top-down view at the nets' scale (``view``, ``rectify.py``):
    with a ``TrayProfile`` of four corners the tray polygon straightened (nothing outside
    the tray is looked at); without one, the tray the recogniser finds in the frame itself
    (``tray``, ``autotray.py``; ``look_for_tray=False`` turns that off), else the whole
    frame scaled; the dice are found and read there and their regions mapped back to
    frame pixels. The die size that sets the scale is measured by the spotter
    (``die_size``).
    ``finder`` says where the dice come from: ``"spotter"`` the learned pip spotter
    (``spotter``, or ``models/pipspot.onnx``), which must then exist; ``"classic"`` the
    classical finder (``detect.py``); ``"auto"`` the spotter when its model file is
    there, the classical finder otherwise. The spotter is the default because it read
    more dice right than the classical finder on the held-out tray-a photos (0.986 vs
    0.959, 1 extra die vs 4, both nets trained on the other half; ``models/pipnet.json``)
    and on hard renders (0.983 vs 0.775, the previous spotter; ``models/pipspot.json``),
    in less time.
    The found regions are read by the pip net (``pipnet.py``, ``models/pipnet.onnx``);
    each die in four turned views, and a die it is not sure enough of is flagged
    uncertain (``pipread.read_with_net``). Without the model file, or with
    ``count_pips=True``, every region's pips are counted.
    """

    def __init__(
        self,
        profile: TrayProfile | None = None,
        pipnet: PipNet | None = None,
        count_pips: bool = False,
        finder: str = "auto",
        spotter: PipSpotter | None = None,
        max_dice: int | None = None,
        look_for_tray: bool = True,
    ) -> None:
        if max_dice is not None and (isinstance(max_dice, bool) or max_dice < 1):
            raise ValueError(f"max_dice must be a whole number of at least 1, not {max_dice!r}")
        self.profile = profile
        self.calibrated = profile  # as calibrated; ``profile`` follows knocks
        # How many dice the game in play uses (Schocken: three), or None for any number.
        # A reading with more dice than that drops its surplus *uncertain* dice (``limit``).
        self.max_dice = max_dice
        # The trained net reads better and faster than counting pips (models/pipnet.json);
        # the counter stays for a checkout without the model file, or when asked for.
        self.pipnet = None if count_pips else pipnet or load_pipnet()
        self.spotter = choose_spotter(finder, spotter, PipSpotter, PIP_MODEL)
        self.finder = "classic" if self.spotter is None else "spotter"
        # Without a profile, the tray is looked for in the frame (``autotray.py``).
        self.keeper = (
            TrayKeeper(self._holds_the_dice) if look_for_tray and profile is None else None
        )
        self._die_sizes: dict[tuple[int, int], list[float]] = {}
        self._reads: dict[tuple[int, int], int] = {}
        self._sure_needed = 1  # sure dice a tray found must hold (``LOOK_SURE``)
        self._seen: list[Candidate] | None = None  # while ``candidates`` reads
        # While ``read`` reads a frame: the frame, once its die size has been measured.
        self._frame: np.ndarray | None = None
        self._measured: np.ndarray | None = None
        # Per frame size: the last frame measured, shrunk (``diesize.scene``).
        self._scenes: dict[tuple[int, int], np.ndarray] = {}

    def follow_tray(self, knocked: tuple[float, float]) -> None:
        """Read in the calibrated tray moved by ``knocked`` (shares of the frame's width
        and height; ``OcclusionDetector.knocked``): the camera or the tray was knocked.
        Without a profile nothing changes: the tray is looked for in each frame."""
        if self.calibrated is not None:
            self.profile = self.calibrated.moved(knocked)

    def __repr__(self) -> str:
        return (
            f"PipRecognizer(profile={self.profile!r}, pipnet={self.pipnet!r},"
            f" finder={self.finder!r}, max_dice={self.max_dice!r})"
        )

    def found_tray(self, frame: np.ndarray, look: bool = False) -> TrayProfile | None:
        """Without a calibration, the tray found in frames like ``frame`` as a calibration
        has it (die size, floor colour; ``TrayKeeper.found_profile``, which with ``look``
        looks at ``frame`` now: a tray found so must hold ``LOOK_SURE`` sure dice), for
        the settle detector to watch; None with a calibration, or when none is found or
        it fills the frame."""
        if self.keeper is None:
            return None
        self._sure_needed = LOOK_SURE if look else 1
        try:
            return self.keeper.found_profile(frame, look)
        finally:
            self._sure_needed = 1

    def seen_tray(self, frame_size: tuple[int, int]) -> Corners | None:
        """Without a calibration, the outline the last look at a frame of ``frame_size``
        saw without dice to confirm it (``TrayKeeper.unconfirmed``), else None."""
        return None if self.keeper is None else self.keeper.unconfirmed(frame_size)

    def forget_tray(self, frame_size: tuple[int, int]) -> None:
        """Without a calibration, forget the tray found in frames of ``frame_size`` and
        the die size measured in them (``TrayKeeper.forget``): the next frame looks for
        it afresh. Nothing changes with a calibration."""
        if self.keeper is None:
            return
        self.keeper.forget(frame_size)
        self._die_sizes.pop(frame_size, None)
        self._reads.pop(frame_size, None)
        self._scenes.pop(frame_size, None)

    def tray(self, frame: np.ndarray) -> TrayProfile | None:
        """The tray this frame is read in: the profile's; without one, the tray found in
        the frame and kept while the camera shows it in the same place
        (``autotray.TrayKeeper``); else None (the whole frame is read)."""
        if self.keeper is None:
            return self.profile
        return self.keeper.tray(frame)

    def _holds_the_dice(self, frame: np.ndarray, tray: TrayProfile) -> float | None:
        """The median edge of the sure dice read in a tray found in ``frame``, when the
        tray is where its dice are; else None, and what was measured of the die size in
        it is forgotten (the keeper may try the finder's next outline of the same frame,
        and a printed menu's corner measures its letters).

        It is when, read in it, at least one die is sure, and read in the whole frame, no
        more sure dice lie more than an edge outside it than were sure in it. On the bare
        tray-a photos the finder sometimes outlines a lit strip of the paper the tray
        stands on, with every die outside; in a bar set-up the whole frame shows a few
        sure phantoms on the bar beside the tray's dice, up to 4 beside 5 (validation
        photos and scenes).
        """
        key = (frame.shape[1], frame.shape[0])
        before = (list(self._die_sizes.get(key, [])), self._reads.get(key, 0),
                  self._scenes.get(key), self._measured)
        edge = self._tray_edge(frame, tray)
        if edge is None:
            self._die_sizes[key], self._reads[key], last, self._measured = before
            if last is None:
                self._scenes.pop(key, None)
            else:
                self._scenes[key] = last
        return edge

    def _tray_edge(self, frame: np.ndarray, tray: TrayProfile) -> float | None:
        """``_holds_the_dice`` without forgetting."""
        inside = [d for d in self._read(frame, tray).dice if not d.uncertain]
        if len(inside) < self._sure_needed:
            return None
        edge = float(np.median([d.region.size for d in inside]))
        whole = self._read(frame, None)
        if whole.cluttered:
            # Around the tray lies a table the nets take for dice: the tray is the one
            # place in the frame where dice can be read.
            return edge
        outside = sum(a > 1.0 for a in edges_outside(whole.dice, tray.corners, edge))
        return edge if outside <= len(inside) else None

    def view(self, frame: np.ndarray) -> TrayView | None:
        """The top-down view at the nets' scale the frame is read in (``rectify.py``).

        With a profile: the tray polygon straightened, so its dice come out ``CANON_DIE``
        pixels across. Without one: the whole frame scaled so. The die size is what the
        spotter measures (``die_size``); until it has seen a die, the profile's. None
        without a profile when no die is seen anywhere: there is nothing to read.
        """
        profile = self.tray(frame)
        return self._view(frame, profile, self._die(frame, profile))

    def _die(self, frame: np.ndarray, profile: TrayProfile | None) -> float | None:
        """The die edge in frame pixels: measured, else the profile's, else unknown."""
        die = self.die_size(frame, profile)
        if die is None and profile is not None:
            die = profile.die_in(frame.shape[1::-1])
        return die

    def _view(
        self, frame: np.ndarray, profile: TrayProfile | None, die: float | None
    ) -> TrayView | None:
        h, w = frame.shape[:2]
        if die is not None and self.pipnet is None:
            # The pip counter works on pixels, not on what a net was trained on: a view
            # that shrank the dice would only lose pips, so it straightens but never shrinks.
            die = min(die, CANON_DIE)
        if profile is not None:
            if len(profile.corners) != 4:
                return None  # a hand-made tray of more corners: read the frame as it is
            return tray_view(profile, (w, h), die)
        if die is None:
            return None
        return TrayView.scaled((w, h), _snap(CANON_DIE / die))

    def die_size(
        self, frame: np.ndarray, profile: TrayProfile | None = None
    ) -> float | None:
        """The die edge in frame pixels for this camera set-up, as the spotter measures it.

        Measured (in the straightened tray with a profile) once on each of the first
        ``SIZE_FRAMES`` rests with dice (a frame that shows what the last one measured
        showed is not measured again: ``diesize.same_scene``) and on every ``SIZE_EVERY``-th
        frame after, and the median of the last ``SIZE_FRAMES`` measures is used (the
        first alone until ``diesize.SIZE_AGREE`` are there): a set-up's dice keep their size,
        one rest seen askew should not set the scale, and a camera moved during the
        evening is followed. Until the spotter has measured a size, the
        profile's is used (``companion calibrate tray`` measures it the same way).
        ``profile`` is the tray the frame is read in (``tray``), the recogniser's own
        when not given.
        """
        profile = profile or self.profile
        h, w = frame.shape[:2]
        seen = self._die_sizes.setdefault((w, h), [])
        if self._measured is not None and self._measured is frame:
            # ``read`` may read one frame in a found tray and whole (``_holds_the_dice``)
            # and then in the tray again: the die is the same size in frame pixels each
            # time, so it is measured once per frame (in the first of them, the tray).
            return kept(seen)
        if self._frame is frame:
            self._measured = frame
        count = self._reads[(w, h)] = self._reads.get((w, h), 0) + 1
        if len(seen) < SIZE_FRAMES or count % SIZE_EVERY == 0:
            now = scene(frame)
            if same_scene(self._scenes.get((w, h)), now):
                return kept(seen)
            if profile is not None and len(profile.corners) == 4:
                expected = profile.die_in((w, h))
                view = tray_view(
                    profile, (w, h),
                    None if expected is None else max(CANON_DIE, expected / MEASURE_ZOOM),
                )
                die = None
                if min(view.size) >= MIN_VIEW:
                    die = self._measure(view.warp(frame))
                die = None if die is None else die / view.scale
            else:
                die = self._measure(frame)
            self._scenes[(w, h)] = now
            if die is not None:
                seen.append(die)
                del seen[:-SIZE_FRAMES]
        return kept(seen)

    def _measure(self, image: np.ndarray) -> float | None:
        """The die edge in ``image`` pixels: the spotter's estimate, or the finder's median."""
        if self.spotter is not None:
            return self.spotter.estimate_die_size(image, accept=self._is_die)
        regions = find_in_tray(image, None, PIP_WORK_SIDE)
        return float(np.median([r.size for r in regions])) if regions else None

    def _is_die(self, image: np.ndarray, regions: list[DieRegion]) -> list[bool]:
        """Whether the pip net is sure each region is a die of some value (``SIZE_SURE``),
        for the die size estimate; without a net every region counts.

        The net is asked to be as sure as it must be for a reading it does not flag: it
        reads a coaster's ring or a glass's foot seen as one large die as a one or a two
        at 0.45-0.86 (bar clutter of the validation scenes), and a real die at rest at
        0.97 or more.
        """
        if self.pipnet is None:
            return [True] * len(regions)
        return [
            g.value is not None and g.confidence >= SIZE_SURE
            for g in self.pipnet.read(image, regions)
        ]

    def read(self, frame: np.ndarray) -> Reading:
        """Find and read every die in a BGR frame; timings per stage in ``timings_ms``.

        The dice are found and read in the straightened view of the tray (``view``); their
        regions come back in frame pixels.
        """
        check_frame(frame)
        t0 = time.perf_counter()
        self._frame = frame
        try:
            profile = self.tray(frame)
            reading = self._read(frame, profile)
        finally:
            self._frame = self._measured = None
        if self.keeper is not None:
            outline = None if profile is None else self.keeper.outline(frame.shape[1::-1])
            if outline is not None:
                reading = replace(reading, dice=_sure_in_margin(reading.dice, outline))
            reading = with_tray_time(reading, t0)
        return reading

    def _read(self, frame: np.ndarray, profile: TrayProfile | None) -> Reading:
        """``read`` in the tray ``profile`` (None: the whole frame)."""
        h, w = frame.shape[:2]
        t0 = time.perf_counter()
        die = self._die(frame, profile)
        view = self._view(frame, profile, die)
        whole = profile is None  # read whole: a cluttered table is not read
        cluttered = False
        if (view is None and profile is None) or (
            view is not None and min(view.size) < MIN_VIEW
        ):
            # No die anywhere in the frame at any size, or a tray too narrow for one.
            dice: list[Die] = []
            t1 = t2 = time.perf_counter()
        elif view is None:
            # A tray of more than four corners: read the frame as it is, inside the tray.
            t1 = time.perf_counter()
            dice, t2, _ = self._find_and_read(frame, None, profile)
        elif self.spotter is not None and not view.is_identity:
            # The spotter's working image warped straight from the frame, and each die
            # read from the frame's own pixels (the net's crop is scaled per die): one
            # resampling instead of the whole view's and then the spotter's, which cost
            # a third on top of reading a bare tray view (bench/bench_tray_view.py).
            die_view = CANON_DIE if die is None else die * view.scale
            work = view.zoomed(VIEW_SCALE * CANON_DIE / die_view)
            image = work.warp(frame)
            t1 = time.perf_counter()
            if min(image.shape[:2]) < MIN_VIEW:
                regions = []  # a tray too narrow to hold a die at this scale
            else:
                regions = [work.region_to_frame(r) for r in self.spotter.spot_at(image, 1.0)]
            t2 = time.perf_counter()
            dice, cluttered = self._read_regions(frame, regions, whole)
        else:
            image = frame if view.is_identity else view.warp(frame)
            t1 = time.perf_counter()
            dice, t2, cluttered = self._find_and_read(
                image, CANON_DIE if die is None else die * view.scale, profile, whole
            )
            dice = [view.die_to_frame(d) for d in dice]
            if self._seen and not view.is_identity:
                self._seen[:] = [
                    replace(c, region=view.region_to_frame(c.region)) for c in self._seen
                ]
        t3 = time.perf_counter()
        return Reading(
            kind="pips",
            dice=tuple(dice),
            frame_size=(w, h),
            timings_ms={
                "rectify": (t1 - t0) * 1000.0,
                "detect": (t2 - t1) * 1000.0,
                "pips": (t3 - t2) * 1000.0,
                "total": (t3 - t0) * 1000.0,
            },
            cluttered=cluttered,
        )

    def read_view(self, image: np.ndarray, die: float = CANON_DIE) -> Reading:
        """Read a top-down picture of the bare tray whose dice are ``die`` pixels across:
        what ``read`` does in the straightened view, without straightening or mapping."""
        check_frame(image)
        t0 = time.perf_counter()
        dice, t1, _ = self._find_and_read(image, die)
        t2 = time.perf_counter()
        return Reading(
            kind="pips",
            dice=tuple(dice),
            frame_size=(image.shape[1], image.shape[0]),
            timings_ms={
                "detect": (t1 - t0) * 1000.0,
                "pips": (t2 - t1) * 1000.0,
                "total": (t2 - t0) * 1000.0,
            },
        )

    def _find_and_read(
        self,
        image: np.ndarray,
        die: float | None,
        profile: TrayProfile | None = None,
        whole: bool = False,
    ) -> tuple[list[Die], float, bool]:
        """The dice of ``image`` (a view with dice ``die`` pixels across, or with ``die``
        None the frame itself inside ``profile``'s tray), when finding them ended, and
        whether a ``whole`` frame was too cluttered to read (``_read_regions``)."""
        if self.spotter is not None:
            if die is None:
                regions = self.spotter.spot(image, profile)
            else:
                # A die of ``CANON_DIE`` pixels at ``VIEW_SCALE``, whatever the view's scale
                # came out (the pip counter's views are never shrunk).
                regions = self.spotter.spot_at(image, VIEW_SCALE * CANON_DIE / die)
        elif die is None:
            regions = find_in_tray(image, profile, PIP_WORK_SIDE)
        else:
            regions = find_dice(image, FinderOptions(die_size=die, work_side=PIP_WORK_SIDE))
        found = time.perf_counter()
        dice, cluttered = self._read_regions(image, regions, whole)
        return dice, found, cluttered

    def candidates(self, frame: np.ndarray) -> list[Candidate]:
        """What the net and the pip counter say of every die of ``frame`` before the
        flag rule is applied (for ``tools/tune_flag.py``); needs the pip net.

        The frame is read as ``read`` reads it; regions found in a straightened view by
        the classical finder are mapped back to frame pixels.
        """
        if self.pipnet is None:
            raise VisionError("candidates come from the pip net; this recogniser has none")
        check_frame(frame)
        profile = self.tray(frame)
        self._seen = []
        try:
            self._read(frame, profile)
            return self._seen
        finally:
            self._seen = None

    def _read_regions(
        self, image: np.ndarray, regions: list[DieRegion], whole: bool = False
    ) -> tuple[list[Die], bool]:
        """The dice the net (or the pip counter) reads in ``regions`` of ``image``: one
        reading per die, no more than the game has dice where that can be done safely.

        In a ``whole`` frame, more regions or dice than a throw has (``CLUTTER_REGIONS``,
        ``CLUTTER_DICE``) are a cluttered table: no dice, and True."""
        if whole and len(regions) > CLUTTER_REGIONS:
            return [], True
        if self.pipnet is not None:
            dice = read_with_net(self.pipnet, image, regions, self._seen)
        else:
            dice = count_pips(image, regions)
        dice = suppress_duplicates(dice)
        if whole and len(dice) > CLUTTER_DICE:
            return [], True
        return limit(dice, self.max_dice), False


def _sure_in_margin(
    dice: tuple[Die, ...], outline: tuple[tuple[float, float], ...]
) -> tuple[Die, ...]:
    """The dice of a tray found without calibration, less the uncertain ones in its margin.

    The tray is read ``autotray.MARGIN`` die edges beyond its outline as found, for the
    dice that lie on its sloping walls; a reading there that is not sure is more likely
    the wall or the rim than a die (rendered trays: a rim read as uncertain twos and
    threes, tests/vision/test_rectify.py).
    """
    quad = np.array(outline, np.float32).reshape(-1, 1, 2)
    return tuple(
        d for d in dice
        if not d.uncertain or cv2.pointPolygonTest(quad, d.region.center, False) >= 0
    )


def _snap(scale: float) -> float:
    """A view scale near enough to one (or to a half) made exactly that: the frame is then
    read as it is (or halved on OpenCV's fast path) instead of resampled."""
    for exact in (1.0, 0.5):
        if abs(scale / exact - 1.0) <= SNAP:
            return exact
    return scale


def load_recognizer(profile_path: str | None, max_dice: int | None = None) -> PipRecognizer:
    """A recognizer with the profile at ``profile_path`` (or none when it is None), for a
    game of ``max_dice`` dice (None: any number)."""
    if profile_path is None:
        return PipRecognizer(max_dice=max_dice)
    # A file with enrolled Rock the Bock faces only holds no tray yet: read without one.
    return PipRecognizer(load_tray(profile_path), max_dice=max_dice)
