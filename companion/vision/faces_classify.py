"""Classify one Rock the Bock die's top face: wolf, bock or a goat of one colour.

The nearest face model (``faces_models``) by normalised distance over the features
(``faces_features``), with a tempered posterior as confidence. A die whose features are
far from every model, or close to two, or unlike its face's drawing, or (in an enrolled
set) whose look is like none of the enrolled dice (``LOOK_FAR``) or leans to another
animal's (``LOOK_VETO``; a wolf's to the goats', ``GOAT_AS_WOLF``), is reported
uncertain with no value instead of a guess.

The ratios cancel a colour cast only where the darker colour is a true colour too. A set
whose goats are dark prints on their colour (the renderer's ``stencil`` artwork: lime and
mustard) shows almost black for the print in dim light, and its ratios no longer tell
the goats apart. So each frame's light is estimated from its own dice: every die, taken
as every face, proposes the cast that would make its colour that face's; the proposal
under which the frame's dice fit their faces best is kept (``FaceClassifier.frame_cast``).
The dice are then read with their colour, less that cast, counting too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from companion.vision.faces_appearance import KinLooks, Looks, animal, clear_of, margin_of
from companion.vision.faces_features import TINT_SIZE, FaceFeatures, pattern_distance
from companion.vision.faces_look import FACES
from companion.vision.faces_models import (
    FaceModel,
    builtin_models,
    separation,
)


@dataclass(frozen=True)
class FaceVerdict:
    """The classifier's answer for one die."""

    face: str | None  # None when uncertain
    confidence: float  # posterior of the best face, 0..1
    best: str  # the best face even when uncertain (for display and debugging)
    distance: float  # normalised distance to the best face's model
    uncertain: bool
    unlike: float | None = None  # pattern distance to the best face's drawing, if checked
    # The look's distance to the nearest enrolled die (``FaceClassifier.look_distance``).
    look_distance: float | None = None


# Rendered dice of every face, normal and hard light, lie within an RMS distance of 2.1
# spreads of their own model and at least 34 squared spreads nearer to it than to any
# other; max_distance and the temperature leave room above both before flagging a die.
_TEMPERATURE = 2.0
# A die whose light/dark pattern is further than this from its face's drawing
# (``pattern_distance``) is uncertain. On the tuning frames 0.28 kept all but 4 of 1,491
# sure right reads of the built-in set (seed 4243) and turned one of the shifted set's
# two sure wrong reads into a flag (seed 4244, enrolled); the drawing alone does not tell
# the faces apart (right and wrong reads overlap from 0.13 to 0.3).
MAX_UNLIKE = 0.28
# A set of dice the models were not made from (another maker's artwork, other colours)
# shows in the distances of its dice to their nearest face: most lie further out than a
# known set's do. The median distance of the last ``SET_MEMORY`` dice, over what is
# familiar for their nearest face's model, above 1 marks the whole set as unfamiliar and
# every die uncertain (enrol the set with ``companion calibrate faces``). The limits lie
# 15 % above the largest median of a frame of 10 dice of a known set on the tuning
# frames: the built-in models on seed 4243 (0.87), enrolled models on seeds 4244-4246
# (shifted palette, stencil and badge artwork, each enrolled: 1.52).
FAMILIAR_BUILTIN = 1.0
FAMILIAR_ENROLLED = 1.75
# An enrolled set's dice also look like its enrolled dice (``faces_appearance``): the
# median distance of the last ``SET_MEMORY`` dice's looks to the nearest enrolled die of
# any animal above ``FAMILIAR_LOOK`` marks the set unfamiliar too (when every face was
# enrolled with looks). The ratios alone let another set pass at the sizes a camera sees
# dice (enrolled at the table at 27 pixels, the classic set's own dice lay 0.5-1.35 from
# their models, a stencil set's 1.3-2.1: read surely wrong). Tuning frames (validation):
# five artworks each enrolled at the table in six camera set-ups and on tray-filling
# frames, each read against its own and the four other artworks' scenes (seeds 200-210,
# 4771-4785, enrolment 77 and 78): the median look over 30 dice of a set's own dice
# reached 0.46 (hard light), another set's 0.54 and more (0.36 for the mosaic set against
# the etched set enrolled at 27 pixels, which the ratios catch); up to 0.6 no other set
# passed both checks, at 0.65 3 frames of 2,880 did. 0.5 was tried first: on the fresh
# frames of seeds 400-409 the first frame of a set's own dice, alone in the memory, lay
# at 0.51-0.52 twice (in the one looked into, the first frame's die had been measured a
# quarter too small: 22.7 pixels for dice of 28-33).
FAMILIAR_LOOK = 0.6
# A face enrolled from fewer looks than this (``FaceModel.looks``: one per die kept) gives
# too few to be near, and the look check is off. Enrolled from one frame of three dice
# per face, the classic set's own dice lay up to 0.62 from its looks and a frame in ten
# was taken for another set; from one frame of six, up to 0.59; from three frames of
# three, 0.52; from 12 looks (two frames of six, three of four), 0.48; from three frames
# of six, 0.45 (validation, seeds 400-401 in hq-near and hd-bar-far). The camera page
# asks for three frames of every die showing the face.
FAMILIAR_LOOKS_MIN = 9
SET_MEMORY = 30
SET_MIN_DICE = 3  # fewer dice seen so far say nothing about the set
# Faces whose models lie closer than this (``separation``) are flagged whenever read;
# ``companion calibrate faces`` warns below the same separation. The built-in faces are
# over 4 apart; the stencil set's lime and mustard goats enrolled 1.5 apart and were read
# as each other in a third of their dice (tuning seed 4245).
MIN_SEPARATION = 3.0
# Colour under the frame's light: a die's ``FaceFeatures.tint`` less the frame's cast
# (``FaceClassifier.frame_cast``) against its face's. The distance (root of summed
# squares, log units) counts beyond ``TINT_TOL`` (how far the colour of right reads
# strays: lamp tints, glare), in units of ``TINT_SPREAD``, squared, ``TINT_WEIGHT``
# times next to the ratio features. The colour confirms a face when it is the nearest
# face's by ``TINT_MARGIN`` at least; a confirmed die may lie ``TINT_STRETCH`` times
# further from its face's ratios than ``max_distance``, and two faces that the ratios
# do not tell apart (closer than ``MIN_SEPARATION``) are read only when confirmed. A
# die's cost in the choice of the cast is capped at ``CAST_CAP``. All chosen on tuning
# frames, 200 hard each: seeds 4300 (stencil, enrolled from 7200+k), 4301 (badge,
# 7300+k), 4302 (built-in set), 4303 (shifted colours, 7100+k); see
# models/bockspot.json. The sets that look alike in their lighter colour (the shifted
# set's white skulls, the badge's white badges) are why the dead zone is there: without
# it their reads lost confidence (4303: 6 dice flagged against 1).
TINT_SPREAD = 0.1
TINT_WEIGHT = 8.0
TINT_TOL = 0.08
TINT_MARGIN = 0.1
TINT_STRETCH = 1.4
CAST_CAP = 25.0
# The look of the whole print (``faces_appearance``), when every face was enrolled with
# its dice's appearances: a die whose look lies nearer another animal's enrolled dice by
# more than ``LOOK_VETO`` (mean squared units) is uncertain, whatever its colours say; a
# die whose look is its face's animal's by ``LOOK_CONFIRM`` at least needs its colour to
# tell it only from that animal's other faces (``KIN_MARGIN``), and by
# ``LOOK_STRETCH_AT`` at least it may lie ``LOOK_STRETCH`` times further from its face's
# ratios than ``max_distance``. Chosen on the tuning frames 4300 (stencil, enrolled from
# 7200+k) and 4301 (badge, 7300+k), 200 hard each; see models/bockspot.json. The built-in
# models keep no looks: without enrolment nothing changes. The veto was -0.5 until
# 2026-12-07 (then -0.3 flagged right etched wolves on 4304, 60 hard, 7400+k: their
# blurred drawing lay 0.3-0.4 nearer the bock's; since glare is left out of the look it
# flags none there). -0.3 chosen on validation frames, 32,200 enrolled dice: the six
# camera set-ups of scene seeds 4335 and 4700-4704 and the tray-filling frames
# 9002-9006: sure wrong 33 -> 24, the dice flagged 313 -> 327, right values unchanged;
# a die's look lay 0.3-0.5 nearer another animal for 9 of the 33 and for 5 right reads
# (-0.2: 16 and 31).
LOOK_VETO = -0.3
LOOK_CONFIRM = 0.4
LOOK_STRETCH = 1.6
LOOK_STRETCH_AT = 0.5
# A die read as the wolf whose look lies nearer the goats' enrolled dice than the
# wolf's by ``GOAT_AS_WOLF`` is uncertain too. The wolf is where goats go wrong: dim
# light or glare gives a goat's colour the wolf's, while its picture stays a goat's
# (blurred, so not far nearer). Over the validation dice of ``LOOK_VETO``, the etched
# frames 4304 and the badge tray-filling frames 9014 (37,700 enrolled dice), the sure
# reads whose look lay 0.2-0.3 nearer another animal were wolves nearer the goats 7
# wrong and 3 right; bocks nearer the goats 0 and 9, bocks nearer the wolf 1 and 7,
# goats nearer the wolf 0 and 5, wolves nearer the bock 1 and 7: only the first is
# flagged. (0.15: 10 wrong, 9 right.)
GOAT_AS_WOLF = 0.2
# A die whose look confirms its animal is confirmed by its colour when that is nearest
# its face's among that animal's faces by ``KIN_MARGIN`` (the goats' colours under the
# frame's light; the other animals are ruled out by the look). On tuning seed 4300 all
# 645 stencil dice read as the lime or mustard goat were right; 0.03 read 4 more of them
# than ``TINT_MARGIN`` would, the same as 0 (see models/bockspot.json).
KIN_MARGIN = 0.03
# A die whose look lies nearer one animal's enrolled dice than any other's by
# ``LOOK_CHOOSE`` is read as one of that animal's faces (the colours choose among them).
# On the tuning frames (4300 stencil, 4301 badge, 4304 etched, 200 hard each, looks
# with glare left out) no die lay that clearly nearer a wrong animal (the largest such
# margin was 0.43, badge), while goats read as wolf or bock under glare lay 0.55-0.8
# nearer the goats.
LOOK_CHOOSE = 0.5
# A die left uncertain whose look is clearly a goat's (``LOOK_CHOOSE``) is read as the
# goat whose enrolled dice its look lies nearer than any other goat's by
# ``KIN_LOOK_MARGIN``, in a set whose enrolled goats their look tells apart
# (``KinLooks.tells_apart``: of the tuning sets, the badge set; not the stencil set,
# whose goats are one black head on four colours). On the tuning frames 4301 and 4311
# (badge, 200 hard each) 0.2 read 6 flagged goats right and none wrong; 0.1 read one
# more; without the set's check a stencil goat (4310) was read wrong.
KIN_LOOK_MARGIN = 0.2
# An enrolled set's die whose look lies further than ``LOOK_FAR`` from every enrolled die
# (``FaceVerdict.look_distance``) looks like none of the dice the table showed: it is
# uncertain, whatever its colours say (``FAMILIAR_LOOK`` asks the same of the median of
# a set's dice). Chosen on validation frames: the built-in set enrolled at the table
# (seed 6600) in the six camera set-ups of hard scene seed 4335 (1,197 dice; the 9 read
# surely wrong, bock and wolf for each other and goats for wolves under glare, lay
# 0.75-1.1 from the nearest enrolled die, right reads at a median of 0.3), and the
# tray-filling hard frames of the stencil and badge sets (9003, 9004: 5,000 dice each,
# right reads up to 0.8 and 0.84 in 99 %). Beyond 0.85: 27, 45 and 44 dice, 7 of the
# 9 sure wrong scene dice among them; beyond 0.8: 34, 75 and 66, the same 7.
LOOK_FAR = 0.85

class FaceClassifier:
    """Nearest face model by normalised distance, with a posterior as confidence."""

    def __init__(
        self,
        models: Mapping[str, FaceModel] | None = None,
        min_confidence: float = 0.9,
        max_distance: float = 2.5,
        max_unlike: float = MAX_UNLIKE,
    ) -> None:
        base = builtin_models()
        if models:
            base.update(models)
        self.models = base
        self.min_confidence = min_confidence
        self.max_distance = max_distance
        self.max_unlike = max_unlike
        self._faces = list(FACES)
        self._means = np.array([base[f].mean for f in FACES], np.float32)
        self._spreads = np.array([base[f].spread for f in FACES], np.float32)
        self._patterns = [
            None if base[f].pattern is None else np.array(base[f].pattern, np.float32)
            for f in FACES
        ]
        # Every face's tint, or None when one model has none (enrolled before tints).
        tints = [base[f].tint for f in FACES]
        self._tints = (
            None if any(t is None for t in tints) else np.array(tints, np.float32)
        )
        # The enrolled dice's looks, when every face has them (else the check is off).
        looks = {f: base[f].looks for f in FACES}
        self.looks = (
            None if any(v is None for v in looks.values())
            else Looks({f: v for f, v in looks.items() if v is not None})
        )
        # The looks by face, when the set's goats are told apart by their look.
        kin_looks = None if self.looks is None else KinLooks(
            {f: v for f, v in looks.items() if v is not None}
        )
        self.kin_looks = kin_looks if kin_looks is not None and kin_looks.tells_apart else None
        # Whether the looks are enough for the set check (``FAMILIAR_LOOKS_MIN``).
        self._familiar_looks = self.looks is not None and min(
            len(v or ()) for v in looks.values()) >= FAMILIAR_LOOKS_MIN
        # For each face, the indices of the faces showing the same animal (itself too).
        self._animals = np.array([animal(f) for f in FACES])
        self._kin = [
            np.array([j for j, g in enumerate(FACES) if animal(g) == animal(f)])
            for f in FACES
        ]
        # For each face, the indices of the faces its model overlaps, itself among them.
        self._overlap = {
            f: np.array([i for i, g in enumerate(FACES) if g == f or (
                separation(base[f], base[g]) < MIN_SEPARATION)])
            for f in FACES
        }
        self.confusable = frozenset(f for f, group in self._overlap.items() if len(group) > 1)

    def _tells_apart(self, best: int, off: np.ndarray | None) -> bool:
        """Does the colour (``off``: the die's distance to each face's tint under the
        frame's light) tell face ``best`` from the faces its model overlaps, by
        ``TINT_MARGIN``? The ratios have ruled the other faces out already: a third face
        whose colour is near (a blue goat's beside a lavender wolf) does not matter."""
        return off is not None and _nearest_by(
            off, self._overlap[self._faces[best]], best, TINT_MARGIN
        )

    def strangeness(self, verdict: FaceVerdict, small: float = 1.0) -> float:
        """A die's distance to its nearest face over what is familiar for that face's model
        (``FAMILIAR_BUILTIN``, times ``small`` for a die seen smaller than the built-in
        models were learnt on, or ``FAMILIAR_ENROLLED``: enrolled from the table's own
        camera); above 1 the die looks foreign."""
        enrolled = self.models[verdict.best].count > 0
        return verdict.distance / (FAMILIAR_ENROLLED if enrolled else FAMILIAR_BUILTIN * small)

    def look_distance(self, appearance: np.ndarray | None) -> float | None:
        """How far a die's look lies from the nearest enrolled die of any animal (mean
        squared units, ``Looks.distances``); None without enrolled looks, or too few of
        them (``FAMILIAR_LOOKS_MIN``), or when the die's print cannot be compared (glare
        over most of it)."""
        if appearance is None or self.looks is None:
            return None
        return self._nearest_look(self.looks.distances(appearance))

    def _nearest_look(self, looked: Mapping[str, float] | None) -> float | None:
        """``look_distance`` from a die's ``Looks.distances``."""
        if looked is None or not self._familiar_looks:
            return None
        nearest = min(looked.values())
        return nearest if np.isfinite(nearest) else None

    def classify(self, features: FaceFeatures) -> FaceVerdict:
        """The face of one die, or ``None`` with ``uncertain`` set when unsure."""
        return self.classify_vector(
            features.vector(), features.pattern, appearance=features.appearance
        )

    def frame_cast(
        self, vectors: Sequence[np.ndarray], tints: Sequence[np.ndarray]
    ) -> np.ndarray | None:
        """The colour of the frame's light relative to the light the models were learnt in
        (log units per channel, zero mean), from the dice of one frame; None without dice
        or without tints in the models.

        A cast multiplies every colour in the frame alike. Each die, taken as each face,
        proposes the cast that makes its light colour that face's; the proposal under
        which the frame's dice fit their nearest faces best (ratios and colours together,
        each die's cost capped so that one odd die does not decide) wins, and is refined
        to the median proposal of the dice that fit it. Dice of the same face that the
        ratios alone read wrong (a frame of mostly one goat) then do not drag the cast
        with them; the two goats of a set whose colours differ only in hue (a dark print
        on lime or on mustard) are then told apart by their colour itself.
        """
        if self._tints is None or not len(vectors):
            return None
        x = np.asarray(vectors, np.float32)
        light = np.asarray(tints, np.float32)
        z = (x[:, None, :] - self._means[None]) / self._spreads[None]
        ratio_d2 = (z * z).sum(axis=2) + 2.0 * np.log(self._spreads).sum(axis=1)[None]
        ratio_d2 -= ratio_d2.min(axis=1, keepdims=True)
        # Proposals: die i as face f; offsets of every die j from every face g under each.
        proposals = (light[:, None, :] - self._tints[None]).reshape(-1, TINT_SIZE)
        rel = light[None, :, None, :] - proposals[:, None, None, :] - self._tints[None, None]
        off = np.sqrt((rel * rel).sum(axis=3))  # (proposal, die, face)
        tint_d2 = (np.maximum(off - TINT_TOL, 0.0) / TINT_SPREAD) ** 2
        cost = (ratio_d2[None] + TINT_WEIGHT * tint_d2).min(axis=2)
        total = np.minimum(cost, CAST_CAP).sum(axis=1)
        best = int(np.argmin(total))
        fits = cost[best] < CAST_CAP
        if not fits.any():
            return proposals[best]
        face = (ratio_d2 + TINT_WEIGHT * tint_d2[best]).argmin(axis=1)
        shifts = light - self._tints[face]
        cast = np.median(shifts[fits], axis=0)
        return (cast - cast.mean()).astype(np.float32)

    def classify_vector(
        self,
        x: np.ndarray,
        pattern: np.ndarray | None = None,
        tint: np.ndarray | None = None,
        cast: np.ndarray | None = None,
        appearance: np.ndarray | None = None,
    ) -> FaceVerdict:
        """``classify`` for a feature vector in ``FEATURE_NAMES`` order.

        With the die's light/dark ``pattern`` the drawing is checked too: a die whose
        colours fit a face but whose drawing does not (``max_unlike``) is uncertain.
        With its ``tint`` and the frame's ``cast`` (``frame_cast``) its colours count
        as well, and two faces the ratios do not tell apart can be read. With its
        ``appearance`` and enrolled looks, the look of the whole print must not be
        another animal's (``LOOK_VETO``; a wolf's not the goats', ``GOAT_AS_WOLF``), and
        confirms a die far from its ratios (``LOOK_CONFIRM``).
        """
        z = (x[None, :] - self._means) / self._spreads
        d2 = (z * z).sum(axis=1) + 2.0 * np.log(self._spreads).sum(axis=1)
        tint_d2 = off = None
        if tint is not None and cast is not None and self._tints is not None:
            tz = tint - cast - self._tints
            off = np.sqrt((tz * tz).sum(axis=1))
            tint_d2 = (np.maximum(off - TINT_TOL, 0.0) / TINT_SPREAD) ** 2
            d2 = d2 + TINT_WEIGHT * tint_d2
        chosen = None
        looked = None if appearance is None or self.looks is None else self.looks.distances(
            appearance
        )
        if looked is not None:
            # A look that is clearly one animal's picks among that animal's faces only:
            # glare or a dim cast that gives a goat a wolf's colours leaves its picture
            # a goat's.
            chosen = clear_of(looked, LOOK_CHOOSE)
            if chosen is not None:
                d2 = np.where(self._animals == chosen, d2, np.inf)
        best = int(np.argmin(d2))
        # Tempered posterior: the Gaussian models are fitted on few, clean samples and
        # would otherwise claim certainty for anything a hair nearer one model.
        logits = -0.5 * (d2 - d2[best]) / _TEMPERATURE
        post = np.exp(logits) / np.exp(logits).sum()
        confidence = float(post[best])
        distance = float(np.sqrt(((z[best]) ** 2).sum() / len(x)))
        # The colour confirms the face when it is the nearest by ``TINT_MARGIN`` at least.
        confirmed = False
        if off is not None:
            near = np.sort(off)
            confirmed = int(np.argmin(off)) == best and float(near[1] - near[0]) >= TINT_MARGIN
        look = None
        if looked is not None:
            look = margin_of(looked, self._faces[best])
            if look >= LOOK_CONFIRM and off is not None and not confirmed:
                # The look says which animal; the colour then only has to tell the faces
                # of that animal apart (a mustard goat whose colour under a dim cast lies
                # as near the sand bock's as its own is still not a lime goat).
                confirmed = _nearest_by(off, self._kin[best], best, KIN_MARGIN)
        limit = self.max_distance * (TINT_STRETCH if confirmed else 1.0)
        if look is not None and look >= LOOK_STRETCH_AT:
            limit = max(limit, self.max_distance * LOOK_STRETCH)
        uncertain = confidence < self.min_confidence or distance > limit
        if look is not None and look < LOOK_VETO:
            uncertain = True
        if (
            looked is not None and self._faces[best] == "wolf"
            and looked["goat"] < looked["wolf"] - GOAT_AS_WOLF
        ):
            uncertain = True
        # Two faces whose models overlap (a pair the set's colours do not tell apart) are
        # read only when the colour under the frame's light tells them apart.
        if self._faces[best] in self.confusable:
            uncertain = uncertain or not (confirmed or self._tells_apart(best, off))
        unlike = None
        template = self._patterns[best]
        if pattern is not None and template is not None:
            unlike = pattern_distance(pattern, template)
            uncertain = uncertain or unlike > self.max_unlike
        if (
            uncertain and chosen is not None and appearance is not None
            and self.kin_looks is not None
        ):
            # Colours that glare or blur took far from every goat's, in a set whose goats
            # differ in their look: the look says which goat.
            by_look = self.kin_looks.clear_face(appearance, chosen, KIN_LOOK_MARGIN)
            if by_look is not None:
                best = self._faces.index(by_look)
                distance = float(np.sqrt(((z[best]) ** 2).sum() / len(x)))
                confidence = max(float(post[best]), self.min_confidence)
                uncertain = False
        look_distance = self._nearest_look(looked)
        if look_distance is not None and look_distance > LOOK_FAR:
            uncertain = True
        face = self._faces[best]
        return FaceVerdict(
            face=None if uncertain else face,
            confidence=round(confidence, 4),
            best=face,
            distance=round(distance, 3),
            uncertain=uncertain,
            unlike=None if unlike is None else round(unlike, 3),
            look_distance=look_distance,
        )


def _nearest_by(off: np.ndarray, group: np.ndarray, best: int, margin: float) -> bool:
    """Among the faces ``group`` (indices, two or more), is face ``best`` the one whose
    colour lies nearest (``off``), by ``margin`` at least?"""
    if len(group) < 2:
        return False
    near = np.sort(off[group])
    return int(group[int(np.argmin(off[group]))]) == best and float(near[1] - near[0]) >= margin
