"""``PipRecognizer``: one object that turns a frame into a ``Reading`` of pip dice."""

from __future__ import annotations

import math
import time

import numpy as np

from companion.vision.detect import check_frame
from companion.vision.pipnet import PipNet, load_pipnet
from companion.vision.pips import read_pips
from companion.vision.spot import PIP_MODEL, PipSpotter, choose_spotter
from companion.vision.tray import TrayProfile, find_in_tray
from companion.vision.types import Die, DieRegion, Reading

# The finder's working side for pip dice: a 640-pixel frame halves exactly (OpenCV's
# fast path) and the finder takes half the time it takes at its default 480, finding
# 1,051 of tray-a's 1,063 dice against 1,056 (the net drops what is not a die).
PIP_WORK_SIDE = 320
# Where the net is unsure (below its ``sure``) it looks again at this many views of the
# die (quarter turns); where it is still unsure the pips are counted. On the hold-out
# photos 8 views (turned and mirrored) read 3 more of 512 dice right than 4, but every
# unsure die then costs eight more passes of the net instead of four.
LOOK_AGAIN_VIEWS = 4


class PipRecognizer:
    """Reads pip dice from frames; set up once per camera and profile, then called per frame.

    With a ``TrayProfile`` the search is limited to the tray and starts from the known die
    size; without one the whole frame is searched and the die size estimated per frame.
    ``finder`` says where the dice come from: ``"spotter"`` the learned pip spotter
    (``spotter``, or ``models/pipspot.onnx``), which must then exist; ``"classic"`` the
    classical finder (``detect.py``); ``"auto"`` the spotter when its model file is
    there, the classical finder otherwise. The spotter is the default because it read
    more dice right than the classical finder on the held-out tray-a photos (0.986 vs
    0.959, 1 extra die vs 4, both nets trained on the other half; ``models/pipnet.json``)
    and on hard renders (0.983 vs 0.775, the previous spotter; ``models/pipspot.json``),
    in less time.
    The found regions are read by the pip net (``pipnet.py``, ``models/pipnet.onnx``),
    with the pips counted (``pips.py``) where the net is unsure; without the model file,
    or with ``count_pips=True``, every region's pips are counted.
    """

    def __init__(
        self,
        profile: TrayProfile | None = None,
        pipnet: PipNet | None = None,
        count_pips: bool = False,
        finder: str = "auto",
        spotter: PipSpotter | None = None,
    ) -> None:
        self.profile = profile
        # The trained net reads better and faster than counting pips (models/pipnet.json);
        # the counter stays for a checkout without the model file, or when asked for.
        self.pipnet = None if count_pips else pipnet or load_pipnet()
        self.spotter = choose_spotter(finder, spotter, PipSpotter, PIP_MODEL)
        self.finder = "classic" if self.spotter is None else "spotter"

    def __repr__(self) -> str:
        return (
            f"PipRecognizer(profile={self.profile!r}, pipnet={self.pipnet!r},"
            f" finder={self.finder!r})"
        )

    def read(self, frame: np.ndarray) -> Reading:
        """Find and read every die in a BGR frame; timings per stage in ``timings_ms``."""
        check_frame(frame)
        h, w = frame.shape[:2]
        t0 = time.perf_counter()
        if self.spotter is not None:
            regions = self.spotter.spot(frame, self.profile)
        else:
            regions = find_in_tray(frame, self.profile, PIP_WORK_SIDE)
        t1 = time.perf_counter()
        if self.pipnet is not None:
            dice = _read_with_net(self.pipnet, frame, regions)
        else:
            dice = _count_pips(frame, regions)
        dice = _suppress_duplicates(dice)
        t2 = time.perf_counter()
        return Reading(
            kind="pips",
            dice=tuple(dice),
            frame_size=(w, h),
            timings_ms={
                "detect": (t1 - t0) * 1000.0,
                "pips": (t2 - t1) * 1000.0,
                "total": (t2 - t0) * 1000.0,
            },
        )


def _read_with_net(net: PipNet, frame: np.ndarray, regions: list[DieRegion]) -> list[Die]:
    """Read every region in one pass of the net; drop what it takes for no die.

    Where the net is unsure it looks again at turned crops (``LOOK_AGAIN_VIEWS``) and
    averages; where it is still unsure the pips are counted too and a sure count wins.
    Dice left unsure are marked uncertain.
    """
    guesses = net.read(frame, regions)
    unsure = [i for i, g in enumerate(guesses) if g.uncertain]
    if unsure:
        again = net.read(frame, [regions[i] for i in unsure], views=LOOK_AGAIN_VIEWS)
        for i, guess in zip(unsure, again, strict=True):
            guesses[i] = guess
    dice = []
    for region, guess in zip(regions, guesses, strict=True):
        if guess.value is None:
            continue
        # The finder's blob includes the shadow and the sides; the net says where
        # the top face is.
        region = region.moved_to(guess.center)
        value, confidence, uncertain = guess.value, guess.confidence, guess.uncertain
        if uncertain:
            count = read_pips(frame, region)
            if count.value is not None and not count.uncertain:
                value, confidence, uncertain = count.value, count.confidence, False
        dice.append(
            Die(
                region=region,
                value=value,
                confidence=round(min(confidence, region.confidence or 1.0), 3),
                uncertain=uncertain,
            )
        )
    return dice


def _count_pips(frame: np.ndarray, regions: list[DieRegion]) -> list[Die]:
    """Read every region by counting its pips (``pips.py``)."""
    dice = []
    for region in regions:
        pips = read_pips(frame, region)
        if pips.value is None and not pips.pips:
            # Die-shaped but without a single pip: a hole, a speck or a piece of rim.
            continue
        if pips.center is not None:
            # The pips show where the top face is; the finder's blob includes the
            # shadow and the sides.
            region = region.moved_to(pips.center)
        dice.append(
            Die(
                region=region,
                value=pips.value,
                confidence=round(min(pips.confidence, region.confidence or 1.0), 3),
                uncertain=pips.uncertain,
            )
        )
    return dice


def _suppress_duplicates(dice: list[Die]) -> list[Die]:
    """Keep one reading per die where two regions ended up on the same top face.

    Two real dice, even touching, have centres at least an edge apart; a piece of shadow
    or wall next to a die is read from that die's pips, centred on the same face. The
    more confident reading stays.
    """
    kept: list[Die] = []
    for die in sorted(dice, key=lambda d: d.confidence, reverse=True):
        x, y = die.region.center
        if all(
            math.hypot(x - k.region.center[0], y - k.region.center[1])
            >= 0.6 * min(die.region.size, k.region.size)
            for k in kept
        ):
            kept.append(die)
    # Back to the finder's reading order.
    order = {id(d): i for i, d in enumerate(dice)}
    return sorted(kept, key=lambda d: order[id(d)])


def load_recognizer(profile_path: str | None) -> PipRecognizer:
    """A recognizer with the profile at ``profile_path`` (or none when it is None)."""
    if profile_path is None:
        return PipRecognizer()
    return PipRecognizer(TrayProfile.load(profile_path))
