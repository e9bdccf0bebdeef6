"""Read Rock the Bock dice from camera frames: find them, measure their top faces, classify.

Where the dice are comes from one of two finders. The learned spotter
(``companion.vision.spot``, when ``models/bockspot.onnx`` is there) gives each die's top
face directly: centre, edge and turn. The classical finder (``companion.vision.detect``)
gives an outline that may take in side walls and shadow, so the top face is then fitted
inside it (``faces_topface``). ``BockRecognizer(finder=...)`` picks one explicitly, to
compare them. Each top face is measured (``faces_features``) and classified
(``faces_classify``) against the built-in or enrolled face models (``faces_models``,
``companion.vision.enrol``); the frame's light is estimated from its own dice.

Stages and their timings (``Reading.timings_ms``): ``spot`` (the spotter) or ``find``
(the classical finder) and ``locate`` (the top face inside each found outline),
``measure`` (the two colours) and ``classify`` (including a second look, a little off the
fitted centre, at dice that came out uncertain).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.vision.autotray import Corners, TrayKeeper, edges_outside, with_tray_time
from companion.vision.detect import FinderOptions, check_frame
from companion.vision.diesize import kept, same_scene, scene
from companion.vision.faces_appearance import animal
from companion.vision.faces_classify import (
    FAMILIAR_LOOK,
    SET_MEMORY,
    SET_MIN_DICE,
    FaceClassifier,
    FaceVerdict,
)
from companion.vision.faces_features import FaceFeatures, face_features
from companion.vision.faces_models import FaceModel, as_read, reads_bright
from companion.vision.faces_topface import fit_top_face
from companion.vision.rectify import CANON_DIE, TrayView, tray_view
from companion.vision.spot import (
    DEFAULT_MODEL,
    TRAINED_DIE,
    WORK_DIE,
    WORK_LONG,
    BockSpotter,
    choose_spotter,
    square_corners,
)
from companion.vision.tray import TrayProfile, find_in_tray, finder_options
from companion.vision.types import Die, DieRegion, Reading

# A face always shows a skull on a contrasting background; a found "die" whose two
# colours are closer than this (log ratio) is a speck, a shadow or glare on the tray.
_MIN_CONTRAST = 0.3
# ...unless the spotter is at least this sure it is a die: a pale skull on a pale face
# (the shifted set's yellow goat) under glare and blur falls below the contrast, and the
# spotter rarely reports a speck this surely. On the tuning frames (seeds 4243 and 4244,
# shifted palette enrolled) 0.5 kept those goats without adding extra dice; 0 added some.
_SURE_SPOT = 0.5

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
# The die size is measured once on each of the first this many rests (a frame showing what
# the last one measured showed is not measured again, ``diesize.same_scene``), the first
# rest's size kept until ``diesize.SIZE_AGREE`` are measured, then their median: when each
# frame counted, the three frames the runtime reads of the evening's first rest outvoted
# the next rest and set the scale for the whole evening.
SIZE_FRAMES = 5
# Die sizes are kept for this many trays (a calibrated one, those found, the whole frame).
SIZE_TRAYS = 16
# A frame read without calibration (whole, or in a tray found in it) in which the spotter
# finds more than this many dice shows a table it takes for dice (a printed menu, tiles),
# not a throw of ten: it is not read (``Reading.cluttered``), and a tray found there is
# not confirmed.
CLUTTER_REGIONS = 30
# A tray found without calibration holds the dice when at least this share of what is
# read in it is read surely (a printed menu's box holds letters read as uncertain dice),
# and the frame read whole shows no sure die of the set's look between one and
# ``CUT_OFF`` die edges outside it: a part of the floor cut off along a row of dice (the
# finder's outline along them) leaves sure dice just outside; phantoms on a menu lie
# further out (6-20 edges), and count only when more than the dice inside.
SURE_SHARE = 0.5
CUT_OFF = 3.0
# In a frame read whole because no tray was found, a sure die further than this from its
# face (``FaceClassifier.strangeness``; 1: as far as the set's own dice lie) is flagged.
WHOLE_STRANGE = 2.0
# A die smaller than ``VIEW_DIE`` in the frame is enlarged to be read, and its features
# lie further from the models (learnt on faces of 58-79 pixels) the smaller it is: the
# built-in set on hard renders composed into camera frames (seed 61, a validation
# figure) showed a median distance per frame of 0.53 at 100 pixels, 0.75 at 47, 0.90 at
# 42 and 1.12 at 27, and the set was taken for unfamiliar at 27 and 42 pixels, every die
# left unread. Dice of unknown artwork (stencil, badge, etched, mosaic, not enrolled)
# lay at 1.4-2.5 at every size. In the unfamiliar-set check a die ``d`` pixels across
# lies within the built-in models' familiar distance times ``(VIEW_DIE / d) **
# SMALL_FAMILIAR``, at most ``SMALL_FAMILIAR_MAX`` (reached at 27 pixels): allowed 1.7
# at 20 pixels, the stencil set was taken for familiar in 2 of 10 frames there (seed 82)
# and its dice guessed, so under 27 pixels the built-in set under rough light may still
# be left unread. Enrolled models get no allowance: a table enrols from its own camera,
# and with the stencil set enrolled from large dice, the badge and etched sets read at
# 27 pixels were taken for it in more frames with one (12 dice guessed against 5 of
# 1,200, seed 61).
SMALL_FAMILIAR = 0.6
SMALL_FAMILIAR_MAX = 1.4
# A die left uncertain between two faces only their colour tells apart (the stencil
# set's lime and mustard goats) is read by the frame's sure dice of that pair, which lie
# in the same light (no cast to estimate): as the face whose sure dice (their median
# lighter colour, ``tint``) lie within ``NEIGHBOUR_NEAR`` of it and nearer by
# ``NEIGHBOUR_MARGIN`` than the other face's. Where the frame holds sure dice of one of
# the two only, the other's place is that median moved by the difference of the two
# faces' enrolled tints. The die's drawing may then be a little further from the face's
# (``NEIGHBOUR_UNLIKE`` against ``MAX_UNLIKE``: the pair share one drawing, the colours
# confirm which). On the stencil tuning frames (seed 4310, 507 sure dice of those goats
# in frames with two or more of one face) a sure die lay within 0.08 of its face's median
# in 95 % of cases, 0.29 at most; in the six of its frames with a goat left uncertain
# and sure dice of both goats, their medians lay 0.44-0.62 apart (enrolled: 0.59). The
# limits were chosen there.
NEIGHBOUR_NEAR = 0.25
NEIGHBOUR_MARGIN = 0.15
NEIGHBOUR_UNLIKE = 0.32




class BockRecognizer:
    """Reads Rock the Bock dice from frames; set up once per camera, then called per frame.

    ``profile`` (a ``TrayProfile``) limits the search to the tray, gives the die size and
    the colour reference; ``models`` are enrolled face models that replace the built-in
    ones face by face (see ``companion.vision.enrol``). ``finder`` says where the dice
    come from: ``"spotter"`` the learned spotter (``spotter``, or the model file), which
    must then exist; ``"classic"`` the classical finder; ``"auto"`` the spotter when its
    model file is there, the classical finder otherwise.

    ``look_for_tray`` (without a profile, with the spotter; ``enrol.load_recognizer``,
    which the runtime and the commands use, turns it on): the tray is looked for in the
    frame as the pip recogniser does (``autotray.TrayKeeper``), confirmed when its dice
    are mostly read surely, no sure die lies just outside it, and the frame read whole
    does not show more sure dice with nothing in doubt (``_holds_the_dice``), and read
    straightened at the frame's die size; only dice spotted inside its outline make it
    cluttered, and a die in the margin beyond the outline counts only when read surely
    and of a familiar look at first sight. A frame without a tray found is read whole at
    a scale its dice measure (``die_size``), one whose tray covers more than
    ``autotray.FILLS`` of it at the spotter's plain scale; one that shows more than
    ``CLUTTER_REGIONS`` dice there is not read.
    A die left uncertain keeps the face it is nearest as its value, flagged (as a pip
    die proposes its value), except in a set that looks like none the models know, whose
    dice are left unread.
    Composed camera frames of rendered throws (the six set-ups of
    ``synth.scene.SETUPS``, seeds 5000-5005, a validation figure: these were looked at
    while building it) read 152 of 258 dice right without it (the spotter saw the whole
    frame at 320 pixels: a 33-pixel die became 8) and 252 with it (3 sure wrong, 3
    flagged extra dice); on a printed menu 121 and 226 of 227, on tiles 130 and 229 of
    231, no extra die. Calibrated by the tray's corners the same frames read 257 of 258.
    """

    def __init__(
        self,
        profile: TrayProfile | None = None,
        models: Mapping[str, FaceModel] | None = None,
        min_confidence: float = 0.9,
        finder: str = "auto",
        spotter: BockSpotter | None = None,
        look_for_tray: bool = False,
    ) -> None:
        self.profile = profile
        self.calibrated = profile  # as calibrated; ``profile`` follows knocks
        # A set whose faces mostly print a small bright part is read with bright pixels
        # kept as print, by the models learnt that way (``faces_models.reads_bright``).
        self.keep_bright = reads_bright(models or {})
        self.classifier = FaceClassifier(
            as_read(models) if models else None, min_confidence=min_confidence
        )
        self.enrolled = tuple(sorted(models)) if models else ()
        self.spotter = choose_spotter(finder, spotter, BockSpotter, DEFAULT_MODEL)
        self.finder = "classic" if self.spotter is None else "spotter"
        # How foreign the last dice looked (``FaceClassifier.strangeness``), and whether
        # the set on the table looks like none the models know (then every die is
        # uncertain until the set is enrolled).
        self._recent: deque[float] = deque(maxlen=SET_MEMORY)
        # The last dice's look distances to the enrolled dice (``FAMILIAR_LOOK``).
        self._recent_looks: deque[float] = deque(maxlen=SET_MEMORY)
        self.unfamiliar = False
        # Die edges measured, per frame size and tray (None: the whole frame), and the
        # last frame measured there, shrunk (``diesize.scene``).
        self._die_sizes: dict[tuple[tuple[int, int], Corners | None], list[float]] = {}
        self._scenes: dict[tuple[tuple[int, int], Corners | None], np.ndarray] = {}
        # Without a profile, the tray is looked for in the frame (``autotray.py``), as the
        # pip recogniser does; the spotter is needed to tell where the dice are.
        self.keeper = (
            TrayKeeper(self._holds_the_dice)
            if look_for_tray and profile is None and self.spotter is not None else None
        )

    def follow_tray(self, knocked: tuple[float, float]) -> None:
        """Read in the calibrated tray moved by ``knocked`` (shares of the frame's width
        and height; ``OcclusionDetector.knocked``): the camera or the tray was knocked.
        Without a profile nothing changes: the tray is looked for in each frame."""
        if self.calibrated is not None:
            self.profile = self.calibrated.moved(knocked)

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

    def found_tray(self, frame: np.ndarray, look: bool = False) -> TrayProfile | None:
        """Without a calibration, the tray found in frames like ``frame`` as a calibration
        has it (die size, floor colour; ``TrayKeeper.found_profile``, which with ``look``
        looks at ``frame`` now), for the settle detector to watch; None with a
        calibration, or when none is found or it fills the frame."""
        return None if self.keeper is None else self.keeper.found_profile(frame, look)

    def seen_tray(self, frame_size: tuple[int, int]) -> Corners | None:
        """Without a calibration, the outline the last look at a frame of ``frame_size``
        saw without dice to confirm it (``TrayKeeper.unconfirmed``), else None."""
        return None if self.keeper is None else self.keeper.unconfirmed(frame_size)

    def forget_tray(self, frame_size: tuple[int, int]) -> None:
        """Without a calibration, forget the tray found in frames of ``frame_size``
        (``TrayKeeper.forget``; the die sizes measured are kept per outline): the next
        frame looks for it afresh. Nothing changes with a calibration."""
        if self.keeper is not None:
            self.keeper.forget(frame_size)

    def tray(self, frame: np.ndarray) -> TrayProfile | None:
        """The tray ``frame`` is read in: the profile's; without one, the tray found in
        the frame and kept while the camera shows it (``autotray.TrayKeeper``); else None
        (the whole frame is read)."""
        if self.keeper is None:
            return self.profile
        found = self.keeper.tray(frame)
        if found is not None and self._fills(frame.shape[1::-1]):
            return None
        return found

    def _fills(self, frame_size: tuple[int, int]) -> bool:
        """Whether the tray found in frames of ``frame_size`` covers more than
        ``autotray.FILLS`` of them: such a frame is read whole, as it was before trays
        were looked for. Rendered hold-out folders read in such a tray lost dice
        (built-in 9001: 4,998 -> 4,991 of 5,000; badge 9004: 4,974 -> 4,950)."""
        return self.keeper is not None and self.keeper.fills(frame_size)

    def _scene_read_whole(self, tray: TrayProfile | None, frame_size: tuple[int, int]) -> bool:
        """Whether a frame of ``frame_size`` read in ``tray`` is a scene read whole
        because no tray was found in it (table and all); not a calibrated tray, a found
        one, or a tray that fills the frame (``autotray.FILLS``)."""
        return tray is None and self.keeper is not None and not self._fills(frame_size)

    def view(self, frame: np.ndarray) -> TrayView | None:
        """The straightened tray the dice are read in, or None to read the frame itself.

        With a tray of four corners (the profile's, or one found in the frame) and the
        spotter, the tray polygon is warped to a top-down view in which a top face is
        ``VIEW_DIE`` pixels across (``rectify.py``): slant and turn are undone and nothing
        outside the tray is seen. The die size is what the spotter measures in the
        straightened tray (``die_size``), until it has seen a die the profile's.
        """
        return self._view(frame, self.tray(frame))[0]

    def _view(
        self, frame: np.ndarray, tray: TrayProfile | None
    ) -> tuple[TrayView | None, float | None]:
        """``view`` in ``tray``, and the die size measured there (``_die_size``, frame
        pixels; None when not measured)."""
        if self.spotter is None or tray is None or len(tray.corners) != 4:
            return None, None
        h, w = frame.shape[:2]
        seen = die = self._die_size(frame, tray)
        if die is None:
            die = tray.die_in((w, h))
        if die is None:
            return None, None
        # ``for_tray`` makes a die of the size it is given ``CANON_DIE`` pixels across.
        if tray is not self.profile:
            # A found tray is straightened at the frame's own scale where its dice are
            # larger than ``VIEW_DIE``, as the frame was read before (enrolment too).
            die = min(die, VIEW_DIE)
        return tray_view(tray, (w, h), die * CANON_DIE / VIEW_DIE), seen

    def die_size(self, frame: np.ndarray) -> float | None:
        """The top-face edge in frame pixels for this camera set-up, as the spotter sees it.

        Measured in the straightened tray (without one, in the whole frame) at the
        frame's own scale once on each of the first ``SIZE_FRAMES`` rests with dice (the
        first rest's measure alone until ``diesize.SIZE_AGREE`` are there, then their
        median), then kept: a set-up's dice do not change size, and one rest seen askew
        should not set the scale. (The profile's die size is the classical finder's
        outline, side walls included.)
        """
        return self._die_size(frame, self.tray(frame))

    def _die_size(self, frame: np.ndarray, tray: TrayProfile | None) -> float | None:
        """``die_size`` in ``tray`` (None: the whole frame)."""
        if self.spotter is None or (tray is not None and len(tray.corners) != 4):
            return None
        h, w = frame.shape[:2]
        if tray is not None and self.keeper is not None:
            outline = self.keeper.outline_of(tray)
            if outline is not None:
                # A found tray is measured inside its outline: the margin it is read in
                # beyond that shows the table (a menu's letters measure as small dice).
                tray = replace(tray, corners=outline)
        key = ((w, h), None if tray is None else tray.corners)
        seen = self._die_sizes.setdefault(key, [])
        if len(self._die_sizes) > SIZE_TRAYS:
            self._scenes.pop(oldest := next(iter(self._die_sizes)), None)
            del self._die_sizes[oldest]
        if len(seen) < SIZE_FRAMES:
            now = scene(frame)
            if same_scene(self._scenes.get(key), now):
                return kept(seen)
            self._scenes[key] = now
            if tray is None:
                # Around a tray a table shows wood grain, print and coasters the spotter
                # takes for small dice at a fine scale: only a die read surely as a face
                # counts there.
                die = self.spotter.estimate_die_size(frame, accept=self._is_face)
                if die is not None:
                    seen.append(die)
            else:
                plain = tray_view(tray, (w, h), None)
                # A sliver of a tray (under the 32 px a frame needs) holds no die to measure.
                small = min(plain.size) < 32
                die = None if small else self.spotter.estimate_die_size(plain.warp(frame))
                if die is not None:
                    seen.append(die / plain.scale)
        return kept(seen)

    def _is_face(self, frame: np.ndarray, regions: list[DieRegion]) -> list[bool]:
        """Whether each region the spotter found is a die read surely as one of the faces
        (``DieSpotter.estimate_die_size``'s second opinion)."""
        out = []
        for r in regions:
            feats = face_features(frame, r.center, r.size, r.angle, None, self.keep_bright)
            vector = feats.vector()
            out.append(
                vector[0] <= -_MIN_CONTRAST
                and not self.classifier.classify_vector(vector, feats.pattern).uncertain
            )
        return out

    def sample(
        self, frame: np.ndarray, keep_bright: bool | None = None
    ) -> tuple[list[FaceSample], dict[str, float]]:
        """Find the dice and measure their top faces; returns samples and stage timings.
        ``keep_bright``: measure with bright pixels kept as print or not (default: as
        this recogniser reads, ``keep_bright``).

        The samples' regions are in frame pixels. Enrolment samples this way, in the
        calibrated tray or the whole frame as it is, never in a tray found
        (``look_for_tray``): enrolled through the found tray, the faces of a set it was
        not made for were learnt worse (mosaic artwork, 100 hard frames of seed 4600 with
        the hold-out's enrolment frames: 993 of 1,000 dice right enrolled whole, 936
        enrolled in the found tray, both read through it).
        """
        samples, timings, _, view, _ = self._sample(
            frame, self.profile, look=False, keep_bright=keep_bright
        )
        if view is not None:
            samples = [
                replace(
                    s, region=view.region_to_frame(s.region), found=view.region_to_frame(s.found)
                )
                for s in samples
            ]
        return samples, timings

    def _sample(
        self,
        frame: np.ndarray,
        tray: TrayProfile | None,
        outline: Corners | None = None,
        look: bool = True,
        keep_bright: bool | None = None,
    ) -> tuple[list[FaceSample], dict[str, float], np.ndarray, TrayView | None, bool]:
        """``sample`` in the image the dice are read in: the straightened ``tray``, if
        any (None: the whole frame); ``outline``, a found tray's outline before widening.
        ``look`` False: the whole frame as the spotter sees it by default, no clutter
        check (``sample``).

        Returns the samples (regions in that image's pixels), the timings, the image, the
        view (None: the image is the frame) and whether the frame, read whole, was
        cluttered (``CLUTTER_REGIONS``: no samples then).
        """
        check_frame(frame)
        h, w = frame.shape[:2]
        t0 = time.perf_counter()
        view, seen = self._view(frame, tray)
        quad = _outline_in(view, outline)
        cluttered = False
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
            if view is not None:
                # A found tray is read a margin beyond its outline (``autotray.MARGIN``);
                # the table there (a white menu round a dark tray) would set the
                # spotter's contrast, so the outline's colours set it.
                box = None if quad is None else _box_of(quad)
                face = VIEW_DIE if seen is None else max(VIEW_DIE, seen * view.scale)
                regions = self.spotter.spot_at(frame, WORK_DIE / face, box)
            elif (
                look and self._scene_read_whole(tray, (w, h))
                and (die := self._die_size(frame, None)) is not None
            ):
                # The whole frame at the spotter's plain scale where its dice are a size
                # it knows there (as before trays were looked for), else at the scale
                # where they are its size. (``spot.working_scale``, which clamps that
                # scale, read the wood grain of 50 of 100 frames of a table alone as
                # dice, 25 of them sure.)
                plain = WORK_LONG / max(w, h)
                known = TRAINED_DIE[0] <= die * plain <= TRAINED_DIE[1]
                regions = self.spotter.spot_at(frame, plain if known else WORK_DIE / die)
            else:
                regions = self.spotter.spot(frame, tray)
            if look and self.profile is None:
                # A found tray's margin shows the table (tiles, print): only what is
                # spotted inside its outline makes it cluttered.
                crowd = len(regions) if quad is None else sum(
                    cv2.pointPolygonTest(quad, r.center, False) >= 0 for r in regions
                )
                if crowd > CLUTTER_REGIONS:
                    regions, cluttered = [], True
            tops = [(r.center, r.size, r.angle) for r in regions]
            t1 = t2 = time.perf_counter()
            timings["spot"] = (t1 - t0) * 1e3
        else:
            regions = find_in_tray(frame, tray)
            t1 = time.perf_counter()
            tops = self._locate(frame, regions, w)
            t2 = time.perf_counter()
            timings.update({"find": (t1 - t0) * 1e3, "locate": (t2 - t1) * 1e3})
        gains = self._gains()
        samples = []
        spotted = self.spotter is not None
        keep = self.keep_bright if keep_bright is None else keep_bright
        for region, (center, edge, angle) in zip(regions, tops, strict=True):
            feats = face_features(frame, center, edge, angle, gains, keep)
            vector = feats.vector()
            if vector[0] > -_MIN_CONTRAST and not (spotted and region.confidence >= _SURE_SPOT):
                continue
            top = DieRegion(
                center=center,
                size=edge,
                angle=angle,
                corners=square_corners(center, edge, angle),
                confidence=region.confidence,
            )
            samples.append(FaceSample(region=top, features=feats, vector=vector, found=region))
        timings["measure"] = (time.perf_counter() - t2) * 1e3
        return samples, timings, frame, view, cluttered

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
            feats = face_features(frame, center, e, top.angle, gains, self.keep_bright)
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
                corners=square_corners(center, e, top.angle),
                confidence=top.confidence,
            )
            best = (FaceSample(region, feats, vector, sample.found), again)
        return best

    def _with_cast(
        self,
        sample: FaceSample,
        verdict: FaceVerdict,
        tint: np.ndarray | None,
        cast: np.ndarray | None,
    ) -> FaceVerdict:
        """The final verdict: the die read with its colours under the frame's light
        (``cast``, when the models hold tints) and the look of its whole print (when they
        hold looks). The first verdict and the second look at uncertain dice use neither:
        a look that confirms a die far from its ratios would let the second look take a
        spot off the face (tuning seed 4300: 11 more stencil goats flagged)."""
        again = self.classifier.classify_vector(
            sample.vector, sample.features.pattern, tint, cast, sample.features.appearance
        )
        # The distance to the nearest face stays the ratios' (the unfamiliar-set check).
        return replace(again, distance=verdict.distance)

    def _by_neighbours(
        self, looked: list[tuple[FaceSample, FaceVerdict]]
    ) -> list[tuple[FaceSample, FaceVerdict]]:
        """Read the dice left uncertain between two faces only their colour tells apart
        (``confusable``) by the frame's own sure dice of those faces, in the same light
        (see ``NEIGHBOUR_NEAR``)."""
        confusable = self.classifier.confusable
        sure: dict[str, list[np.ndarray]] = {}
        for s, v in looked:
            if not v.uncertain and v.face in confusable:
                sure.setdefault(v.face, []).append(s.features.tint())
        if not sure:
            return looked
        middle = {f: np.median(np.array(t), axis=0) for f, t in sure.items()}
        out = []
        for s, v in looked:
            face = None
            pair = sorted(f for f in confusable if animal(f) == animal(v.best))
            if (
                v.uncertain and v.best in confusable and len(pair) == 2
                and v.distance <= self.classifier.max_distance
                and (v.unlike is None or v.unlike <= NEIGHBOUR_UNLIKE)
            ):
                face = self._neighbours_say(s.features.tint(), pair, middle)
            if face is not None:
                v = replace(v, face=face, best=face, uncertain=False)
            out.append((s, v))
        return out

    def _neighbours_say(
        self, tint: np.ndarray, pair: list[str], middle: dict[str, np.ndarray]
    ) -> str | None:
        """The face of ``pair`` a die of lighter colour ``tint`` shows by the frame's sure
        dice of those faces (``middle``: the median tint of each face's), or None.

        Where the frame holds sure dice of one face only, the other's are placed where
        the enrolled colours put them: a light's cast shifts every tint alike.
        """
        middle = dict(middle)
        missing = [f for f in pair if f not in middle]
        if len(missing) == 2:
            return None
        if missing:
            (other,) = missing
            (seen,) = [f for f in pair if f != other]
            tints = self.classifier.models[other].tint, self.classifier.models[seen].tint
            if tints[0] is None or tints[1] is None:
                return None
            middle[other] = middle[seen] + np.asarray(tints[0]) - np.asarray(tints[1])
        (d0, f0), (d1, _) = sorted(
            (float(np.linalg.norm(tint - middle[f])), f) for f in pair
        )
        return f0 if d0 <= NEIGHBOUR_NEAR and d1 - d0 >= NEIGHBOUR_MARGIN else None

    def _holds_the_dice(self, frame: np.ndarray, tray: TrayProfile) -> float | None:
        """The median edge of the sure dice read in a tray found in ``frame``, when the
        tray is where its dice are; else None (``autotray.TrayKeeper`` asks this).

        It is when, read in it, at least one die is sure (and ``SURE_SHARE`` of them),
        and read whole, the frame shows no sure die between one and ``CUT_OFF`` edges
        outside it (an outline along a row of dice cuts the throw) and no more sure dice
        further out than were sure in it -- or the whole frame is a cluttered table,
        where the tray is the one place to read.
        """
        reading = self._read(frame, tray, remember=False)
        inside = [d for d in reading.dice if not d.uncertain]
        if reading.cluttered or not inside or len(inside) < SURE_SHARE * len(reading.dice):
            return None
        edge = float(np.median([d.region.size for d in inside]))
        # Counted outside: dice of a familiar look (a menu's print read surely looks
        # like no face of the set, a die cut off from a partial outline does).
        whole = self._read(frame, None, remember=False, familiar_only=True)
        if whole.cluttered:
            return edge
        away = edges_outside(whole.dice, tray.corners, edge)
        if any(1.0 < a <= CUT_OFF for a in away):
            return None
        if sum(a > CUT_OFF for a in away) > len(inside):
            return None
        if len(away) > len(inside):
            # The frame read whole shows more sure dice than the tray: the outline is a
            # part of the floor when nothing there is in doubt (no print, no coaster).
            everything = self._read(frame, None, remember=False).dice
            if all(not d.uncertain for d in everything):
                return None
        return edge

    def read(self, frame: np.ndarray) -> Reading:
        """Find and classify every die in a BGR frame; timings per stage in ``timings_ms``."""
        check_frame(frame)
        t0 = time.perf_counter()
        tray = self.tray(frame)
        outline = None if self.keeper is None or tray is None else self.keeper.outline_of(tray)
        reading = self._read(frame, tray, outline=outline)
        if self.keeper is not None:
            reading = with_tray_time(reading, t0)
        return reading

    def _read(
        self,
        frame: np.ndarray,
        tray: TrayProfile | None,
        remember: bool = True,
        outline: Corners | None = None,
        familiar_only: bool = False,
    ) -> Reading:
        """``read`` in ``tray`` (None: the whole frame). ``remember``: count the dice in
        the unfamiliar-set check, and mark every die uncertain when the set is unfamiliar
        (not when the keeper only asks where the dice are). ``outline``: a found tray's
        outline before it was widened; uncertain dice outside it are dropped.
        ``familiar_only``: drop every die whose look is foreign to the set."""
        t0 = time.perf_counter()
        h, w = frame.shape[:2]
        samples, timings, frame, view, cluttered = self._sample(frame, tray, outline)
        t1 = time.perf_counter()
        dice = []
        gains = self._gains()
        looked = []
        quad = _outline_in(view, outline)
        for s in samples:
            verdict = self.classifier.classify_vector(s.vector, s.features.pattern)
            if (
                quad is not None and cv2.pointPolygonTest(quad, s.region.center, False) < 0
                and (verdict.uncertain or self.classifier.strangeness(verdict) > 1.0)
            ):
                # A tray found without calibration is read ``autotray.MARGIN`` edges
                # beyond its outline, for dice on its walls; what is not a sure die of a
                # familiar look there at first sight is more likely the table around it
                # (a menu's print; looked at again, letters came out sure wolves).
                continue
            # A die near a face the set's colours do not tell apart from another was
            # measured well; looking again only gives it more chances to be read as a
            # third face. On the stencil set (enrolled, seed 4245) looking again at those
            # too left 289 of 1,500 dice read surely wrong, not doing so 51. (Looking
            # again only where it confirms the first nearest face cost the built-in set
            # 0.997 against 0.9997 of its dice, seed 4247.)
            if verdict.uncertain and verdict.best not in self.classifier.confusable:
                s, verdict = self._look_again(frame, s, verdict, gains)
            looked.append((s, verdict))
        if familiar_only:
            looked = [(s, v) for s, v in looked if self.classifier.strangeness(v) <= 1.0]
        if remember:
            scale = 1.0 if view is None else view.scale
            self._recent.extend(
                self.classifier.strangeness(v, _small_allowance(s.region.size / scale))
                for s, v in looked
            )
        # Second look with the frame's light: the dice read surely give its colour, and
        # every die is read again with its colours (less that cast) counting too.
        tints = [s.features.tint() for s, _ in looked]
        cast = self.classifier.frame_cast([s.vector for s, _ in looked], tints)
        if cast is not None or self.classifier.looks is not None:
            looked = [
                (s, self._with_cast(s, v, t, cast))
                for (s, v), t in zip(looked, tints, strict=True)
            ]
        looked = self._by_neighbours(looked)
        if remember:
            # The looks, measured by the final verdicts (enrolled looks make it run).
            self._recent_looks.extend(
                v.look_distance for _, v in looked if v.look_distance is not None
            )
            self.unfamiliar = (
                len(self._recent) >= SET_MIN_DICE and float(np.median(self._recent)) > 1.0
            ) or (
                len(self._recent_looks) >= SET_MIN_DICE
                and float(np.median(self._recent_looks)) > FAMILIAR_LOOK
            )
        # A frame read whole because no tray was found shows the table too: a die there
        # that is sure but looks like no face of the set is more likely print or a
        # coaster than a die, and is left for the scorekeeper to confirm.
        whole = self._scene_read_whole(tray, (w, h))
        for s, verdict in looked:
            # Not the faces of this set: the scorekeeper reads them until it is enrolled.
            unread = self.unfamiliar and remember
            if unread:
                verdict = replace(verdict, face=None, uncertain=True)
            elif (
                whole and not verdict.uncertain
                and self.classifier.strangeness(verdict) > WHOLE_STRANGE
            ):
                verdict = replace(verdict, uncertain=True)
            dice.append(
                Die(
                    region=s.region,
                    # A die left uncertain still proposes the face it is nearest
                    # (``best``; ``face`` is that or None), flagged, as a pip die
                    # proposes its value: the scorekeeper confirms or corrects it.
                    value=None if unread else verdict.best,
                    confidence=round(min(verdict.confidence, s.region.confidence or 1.0), 3),
                    uncertain=verdict.uncertain,
                )
            )
        if view is not None:
            dice = [view.die_to_frame(d) for d in dice]
        t2 = time.perf_counter()
        timings["classify"] = (t2 - t1) * 1e3
        timings["total"] = (t2 - t0) * 1e3
        return Reading(
            kind="bock",
            dice=tuple(dice),
            frame_size=(w, h),
            timings_ms=timings,
            unfamiliar=self.unfamiliar,
            cluttered=cluttered,
        )


def _small_allowance(die: float) -> float:
    """How much further than the built-in models' own dice a die ``die`` pixels across in
    the frame may lie from them and still count as familiar (``SMALL_FAMILIAR``)."""
    return min(SMALL_FAMILIAR_MAX, max(1.0, VIEW_DIE / max(die, 1.0)) ** SMALL_FAMILIAR)


def _outline_in(view: TrayView | None, outline: Corners | None) -> np.ndarray | None:
    """A found tray's ``outline`` (frame pixels) in the pixels of the image read:
    ``view``'s, or the frame's (None); (4, 1, 2) float32, or None without an outline."""
    if outline is None:
        return None
    pts = np.array(outline, np.float64).reshape(-1, 1, 2)
    return (pts if view is None else cv2.perspectiveTransform(pts, view.matrix)).astype(
        np.float32
    )


def _box_of(quad: np.ndarray) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) around the points ``quad``."""
    pts = quad.reshape(-1, 2)
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
    return int(x0), int(y0), int(x1), int(y1)
