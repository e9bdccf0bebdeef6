"""A reading's list of dice made plausible: one reading per die, and no more dice than the
game has where that can be done safely."""

from __future__ import annotations

import math
from dataclasses import replace

from companion.vision.types import Die

# In a reading with more dice than the game has, two dice whose centres lie closer than
# this share of the reading's largest die edge are taken for one die read twice
# (``limit``): two real dice lie at least an edge apart (touching side to side), and the
# largest edge measured in a reading is at least a real die's. Set from two such doubles
# in validation sequences (gaps of 0.70 and 0.86 largest edges).
CLOSE_PAIR = 0.9


def suppress_duplicates(dice: list[Die]) -> list[Die]:
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


def limit(dice: list[Die], max_dice: int | None) -> list[Die]:
    """``dice`` brought down to ``max_dice`` where that can be done safely.

    A game played with three dice never shows four. When the recogniser finds more:
    1. the least confident dice go while each of them is flagged uncertain (a speck or a
       shadow next to a die read as a small die);
    2. then, while there are still too many, of the two dice closest together -- closer
       than two real dice can lie (``CLOSE_PAIR``) -- the less
       confident goes: one die read twice, its side or shadow taken for a second die. If the
       two readings disagree on the value, the one kept is flagged uncertain.
    Whatever is left over is left in the reading: something really is there, and the
    scorekeeper should see it.
    """
    if max_dice is None or len(dice) <= max_dice:
        return dice
    # Positions in the finder's reading order, most confident first.
    kept = sorted(range(len(dice)), key=lambda i: dice[i].confidence, reverse=True)
    out = list(dice)
    while len(kept) > max_dice and out[kept[-1]].uncertain:
        kept.pop()
    while len(kept) > max_dice:
        pair = _closest_pair([out[i] for i in kept])
        if pair is None:
            break
        stay, go = kept[pair[0]], kept[pair[1]]
        kept.remove(go)
        if out[stay].value != out[go].value:
            out[stay] = replace(out[stay], uncertain=True)
    return [out[i] for i in sorted(kept)]


def _closest_pair(dice: list[Die]) -> tuple[int, int] | None:
    """Of the two dice closest together, the positions of the more and the less confident,
    if they lie closer than ``CLOSE_PAIR`` times the reading's largest die edge; else None."""
    edge = max(d.region.size for d in dice)
    best: tuple[float, int, int] | None = None
    for i, a in enumerate(dice):
        for j in range(i + 1, len(dice)):
            b = dice[j]
            gap = math.hypot(a.region.center[0] - b.region.center[0],
                             a.region.center[1] - b.region.center[1])
            if best is None or gap < best[0]:
                best = (gap, i, j) if a.confidence >= b.confidence else (gap, j, i)
    if best is None or best[0] >= CLOSE_PAIR * edge:
        return None
    return best[1], best[2]
