"""How far to trust each die's value: the pip net's reading, the pip counter's check and the
flag rule that marks a die uncertain for the scorekeeper."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.vision.pipnet import CLASSES, PipGuess, PipNet
from companion.vision.pips import read_pips
from companion.vision.types import Die, DieRegion

# Every die is read in this many views (quarter turns of its crop) and their
# probabilities averaged: a die looks the same turned, the net's mistakes need not.
# With the flag rule below, on 3,600 rendered dice (seeds 8101, 8102, 8301, 8302; the
# rule was chosen on them too, so a validation figure) the net that ships read 7 wrong
# and unflagged instead of 18 with one view (four where it was under 0.7) and the rule
# before; models/pipnet.json "trust".
READ_VIEWS = 4
# A die flagged uncertain is looked at once more for the value proposed with its "?": its
# crop centred on the top face the net found and this share of the region's edge, read
# in ``READ_VIEWS`` views, its probabilities averaged with a look at the whole
# region. A region that took in a side face (a slanted die's side pips, a spotter edge
# a third too large) then shows the top face alone (``_refocused``).
REFOCUS = 0.8
# The flag rule, chosen by tools/tune_flag.py with a net of the shipped recipe trained
# without the validation photos, on those photos (bare and as camera frames) and on
# renders: the fewest dice wrong and unflagged among rules flagging at most 4 % of the
# photos' dice (models/pipnet.json "trust"; chosen again 2026-12-05 for the net of that
# day).
# A die the net read with less confidence than this (its views averaged) is flagged...
FLAG_BELOW = 0.8
# ...unless the pip counter, sure of its count, counts the net's value and the net is at
# least this sure; None: the counter clears no flag. With the net of 2026-12-04 the
# counter cleared more wrong dice than right ones (glare read as a pip by both) and was
# left out; with the net of 2026-12-05 the rule with it at 0.7 let one die fewer through
# wrong (10 against 11 of 6,889) than 0.75 without it.
COUNTER_FLOOR: float | None = 0.7
# Flag a die whose views do not all read its value. Without the counter this flagged no
# die wrong that the threshold had let through, only right ones, so it is off.
FLAG_SPLIT_VIEWS = False
# A die smaller than ``SMALL_DIE`` pixels across in the frame (the spotter's region, as
# it is read: in frame pixels on the spotter's path, which ships; the classical finder
# reads a view where every die is ``CANON_DIE`` across, so there none is small; a webcam
# high over the tray sees dice of 16-20) shows each pip in a pixel
# or two, and the net is wrong on such dice about ten times as often as on larger ones
# (validation photos as camera frames, the net trained without them: 12 of 337 dice
# under 20 px read wrong, 8 of 2,952 larger). Such a die is flagged below
# ``FLAG_BELOW_SMALL`` instead (None: no such tier). Chosen beside the rule above by
# tools/tune_flag.py (2026-12-07, ``choose``: a tier may only flag more): on those
# photos, 1 die of 3,289 wrong and not flagged -> 0, flagged 3.80 % -> 3.98 %; renders
# unchanged (their dice are larger). 18 px flagged as many of those dice; the tier over
# more dice was taken.
SMALL_DIE: float | None = 20.0
FLAG_BELOW_SMALL = 0.85


@dataclass(frozen=True)
class Candidate:
    """What the net and the pip counter said of one die, before the flag rule
    (``tools/tune_flag.py`` chooses the rule from these)."""

    region: DieRegion  # in frame pixels
    value: int
    confidence: float  # the net's, its ``READ_VIEWS`` views averaged
    count: int | None  # the pip counter's value where it is sure of it, else None
    agree: bool = True  # every view read ``value``


def is_flagged(
    confidence: float,
    value: int,
    count: int | None,
    agree: bool,
    flag_below: float,
    counter_floor: float | None,
    split_views: bool,
) -> bool:
    """The flag rule for one die the net read as ``value`` (``read_with_net`` applies it
    with ``FLAG_BELOW``, ``COUNTER_FLOOR`` and ``FLAG_SPLIT_VIEWS``; ``tools/tune_flag.py``
    tries others): below ``flag_below`` unless the pip counter's sure ``count`` (None:
    none) is the same and the net at least ``counter_floor`` sure; or, with
    ``split_views``, views that did not all read ``value``."""
    confirmed = counter_floor is not None and confidence >= counter_floor and count == value
    return (confidence < flag_below and not confirmed) or (split_views and not agree)


def flag_level(
    size: float,
    flag_below: float = FLAG_BELOW,
    small_die: float | None = SMALL_DIE,
    below_small: float = FLAG_BELOW_SMALL,
) -> float:
    """The confidence under which a die ``size`` pixels across is flagged: ``below_small``
    for a die smaller than ``small_die`` (None: none is), else ``flag_below``."""
    if small_die is not None and size < small_die:
        return max(flag_below, below_small)
    return flag_below


def read_with_net(
    net: PipNet,
    frame: np.ndarray,
    regions: list[DieRegion],
    seen: list[Candidate] | None = None,
) -> list[Die]:
    """Read every region in one pass of the net; drop what it takes for no die.

    Each region is read in ``READ_VIEWS`` turned views and their probabilities averaged.
    A die is marked uncertain when its confidence is below ``FLAG_BELOW`` (a small die:
    ``FLAG_BELOW_SMALL``, ``flag_level``) -- unless,
    where ``COUNTER_FLOOR`` is set, the pip counter, sure of its count, counts the value
    the net read and the net is at least that sure of it -- and, with
    ``FLAG_SPLIT_VIEWS``, when its views do not all read its value. The counter never
    replaces the net's value (a counter that overruled the net was the commonest way to
    be wrong while sure). ``seen`` gets a ``Candidate`` per die, every die's pips counted.
    """
    guesses = net.read(frame, regions, views=READ_VIEWS)
    dice = []
    for region, guess in zip(regions, guesses, strict=True):
        if guess.value is None:
            continue
        # The finder's blob includes the shadow and the sides; the net says where
        # the top face is.
        region = region.moved_to(guess.center)
        # The counter is asked where it could clear the flag, and for every die in ``seen``.
        level = flag_level(region.size, FLAG_BELOW, SMALL_DIE, FLAG_BELOW_SMALL)
        confirmable = COUNTER_FLOOR is not None and COUNTER_FLOOR <= guess.confidence < level
        pips = read_pips(frame, region) if seen is not None or confirmable else None
        count = None if pips is None or pips.uncertain else pips.value
        if seen is not None:
            seen.append(Candidate(region, guess.value, guess.confidence, count, guess.agree))
        dice.append(
            Die(
                region=region,
                value=guess.value,
                confidence=round(min(guess.confidence, region.confidence or 1.0), 3),
                uncertain=is_flagged(
                    guess.confidence, guess.value, count, guess.agree,
                    level, COUNTER_FLOOR, FLAG_SPLIT_VIEWS,
                ),
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
    first = net.read(frame, [dice[i].region for i in flagged], views=READ_VIEWS)
    second = net.read(frame, near, views=READ_VIEWS)
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
