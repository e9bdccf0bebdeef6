"""How far to trust each die's value: the pip net's reading, the pip counter's check and the
flag rule that marks a die uncertain for the scorekeeper."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.vision.pipnet import CLASSES, PipGuess, PipNet
from companion.vision.pips import read_pips
from companion.vision.types import Die, DieRegion

# Where the net is unsure (below its ``sure``) it looks again at this many views of the
# die (quarter turns) and averages. On the odd-index photos 8 views (turned and mirrored)
# read 3 more of 512 dice right than 4, but every unsure die then costs eight more passes
# of the net instead of four.
LOOK_AGAIN_VIEWS = 4
# A die flagged uncertain is looked at once more for the value proposed with its "?": its
# crop centred on the top face the net found and this share of the region's edge, read
# in ``LOOK_AGAIN_VIEWS`` views, its probabilities averaged with a look at the whole
# region. A region that took in a side face (a slanted die's side pips, a spotter edge
# a third too large) then shows the top face alone (``_refocused``).
REFOCUS = 0.8
# A die the net read with less confidence than this is flagged for the scorekeeper, unless
# the pip counter agrees (below). Chosen on the validation photos (``PHOTO_SPLITS``) and
# their whole-frame scenes with the net that ships; see models/pipnet.json "trust".
FLAG_BELOW = 0.8
# ... and the net is at least this sure: the counter only confirms a likely reading.
COUNTER_FLOOR = 0.5


@dataclass(frozen=True)
class Candidate:
    """What the net and the pip counter said of one die, before the flag rule
    (``tools/tune_flag.py`` chooses the rule from these)."""

    region: DieRegion  # in frame pixels
    value: int
    confidence: float  # the net's, after looking again where it was unsure
    count: int | None  # the pip counter's value where it is sure of it, else None


def read_with_net(
    net: PipNet,
    frame: np.ndarray,
    regions: list[DieRegion],
    seen: list[Candidate] | None = None,
) -> list[Die]:
    """Read every region in one pass of the net; drop what it takes for no die.

    Where the net is unsure (below its ``sure``) it looks again at turned crops
    (``LOOK_AGAIN_VIEWS``) and averages. A die whose final confidence is below
    ``FLAG_BELOW`` is marked uncertain, unless the pip counter, sure of its count, counts
    the value the net read and the net is at least ``COUNTER_FLOOR`` sure of it. The
    counter never replaces the net's value: where the two disagree, the die stays flagged
    (a counter that overruled the net was the commonest way to be wrong while sure).
    ``seen`` gets a ``Candidate`` per die, every die's pips counted.
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
        uncertain = guess.confidence < FLAG_BELOW
        count = None
        if seen is not None or (uncertain and guess.confidence >= COUNTER_FLOOR):
            count = read_pips(frame, region)
        if uncertain and guess.confidence >= COUNTER_FLOOR and count is not None:
            uncertain = count.uncertain or count.value != guess.value
        if seen is not None and count is not None:
            sure_count = None if count.uncertain else count.value
            seen.append(Candidate(region, guess.value, guess.confidence, sure_count))
        dice.append(
            Die(
                region=region,
                value=guess.value,
                confidence=round(min(guess.confidence, region.confidence or 1.0), 3),
                uncertain=uncertain,
            )
        )
    return _refocused(net, frame, dice)


def _refocused(net: PipNet, frame: np.ndarray, dice: list[Die]) -> list[Die]:
    """``dice`` with the value of each flagged one read once more (``REFOCUS``).

    The flag stays and the confidence never rises: only the value proposed for the
    scorekeeper to confirm changes, to what the two looks together make most likely.
    Letting the averaged confidence unflag a die made one more die sure and wrong on the
    validation camera frames and on hard renders (sure_wrong 3 -> 4 and 6 -> 7).
    """
    flagged = [i for i, d in enumerate(dice) if d.uncertain]
    if not flagged:
        return dice
    near = [replace(dice[i].region, size=dice[i].region.size * REFOCUS) for i in flagged]
    first = net.read(frame, [dice[i].region for i in flagged], views=LOOK_AGAIN_VIEWS)
    second = net.read(frame, near, views=LOOK_AGAIN_VIEWS)
    out = list(dice)
    for i, a, b in zip(flagged, first, second, strict=True):
        value = _likeliest(a, b)
        if value is not None:
            out[i] = replace(dice[i], value=value)
    return out


def _likeliest(first: PipGuess, second: PipGuess) -> int | None:
    """The value two looks at a die make most likely: their probabilities averaged."""
    return CLASSES[int(np.argmax(np.add(first.probs, second.probs)))]


def count_pips(frame: np.ndarray, regions: list[DieRegion]) -> list[Die]:
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
