"""Combine several readings of the same rest into one: dice matched by position.

A camera frame can miss a die, split one in two or misread a face; the dice at rest do
not change between frames, so reading a few frames and keeping what they agree on is
more trustworthy than any one of them. :func:`combine_readings` takes readings of one
rest (same kind, same frame size) and returns one ``Reading``:

- dice are matched across readings by the centre of their top face: within
  ``match_edges`` die edges of a group's mean centre they are the same die;
- a die is kept when at least half of the readings saw it (a ghost seen once is not);
  :func:`combine_with_left_out` also gives the others, flagged, for a caller that has
  other evidence that something lies there (``watch.py``);
- its value is the one most readings gave (ties: the more confident total); where the
  readings that saw it disagree, or not most of them were sure of it, the die is marked
  uncertain: one frame of three sure of a die the other two flag is the camera's noise
  lifting it over the flag's threshold once (before, one sure frame made the die sure:
  a four read as a six, sure in one frame at 0.71 and flagged at 0.49 in two, was a
  sure wrong throw on validation evening 89-5);
- its confidence is the mean confidence of the readings that gave the kept value,
  times the share of all readings that gave it, so a value seen in every frame
  keeps its confidence and one seen in half of them loses half of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from companion.vision.types import Die, Reading, VisionError

MATCH_EDGES = 0.5


@dataclass
class _Group:
    members: list[Die] = field(default_factory=list)

    @property
    def center(self) -> tuple[float, float]:
        n = len(self.members)
        return (
            sum(d.region.center[0] for d in self.members) / n,
            sum(d.region.center[1] for d in self.members) / n,
        )

    @property
    def size(self) -> float:
        return sum(d.region.size for d in self.members) / len(self.members)


def combine_readings(readings: Sequence[Reading], match_edges: float = MATCH_EDGES) -> Reading:
    """One reading from several readings of the same rest (see the module's docstring)."""
    return combine_with_left_out(readings, match_edges)[0]


def combine_with_left_out(
    readings: Sequence[Reading], match_edges: float = MATCH_EDGES
) -> tuple[Reading, tuple[Die, ...]]:
    """``combine_readings``'s reading, and the dice it leaves out (seen by fewer than half
    the readings), each flagged uncertain: a ghost, or a die the finder sees in one frame
    of three."""
    groups = _grouped(readings, match_edges)
    n = len(readings)
    dice = [_combine_die(g, n) for g in groups if 2 * len(g.members) >= n]
    left_out = tuple(
        replace(_combine_die(g, n), uncertain=True) for g in groups if 2 * len(g.members) < n
    )
    timings: dict[str, float] = {}
    for reading in readings:
        for key, value in reading.timings_ms.items():
            timings[key] = timings.get(key, 0.0) + value
    combined = Reading(
        readings[0].kind,
        tuple(dice),
        readings[0].frame_size,
        timings,
        unfamiliar=any(r.unfamiliar for r in readings),
        cluttered=any(r.cluttered for r in readings),
    )
    return combined, left_out


def _grouped(readings: Sequence[Reading], match_edges: float) -> list[_Group]:
    """The dice of ``readings`` grouped by position (the module's docstring)."""
    if not readings:
        raise VisionError("combine_readings needs at least one reading")
    kinds = {r.kind for r in readings}
    sizes = {r.frame_size for r in readings}
    if len(kinds) > 1 or len(sizes) > 1:
        raise VisionError(
            f"readings of one rest must share kind and frame size, got {sorted(kinds)}"
            f" and {sorted(sizes)}"
        )
    groups: list[_Group] = []
    for reading in readings:
        taken: set[int] = set()
        # Sure dice claim their group first, so a doubtful neighbour cannot take it.
        for die in sorted(reading.dice, key=lambda d: -d.confidence):
            best, best_distance = None, math.inf
            for i, group in enumerate(groups):
                if i in taken:
                    continue
                gx, gy = group.center
                distance = math.hypot(die.region.center[0] - gx, die.region.center[1] - gy)
                limit = match_edges * max(group.size, die.region.size, 1.0)
                if distance <= limit and distance < best_distance:
                    best, best_distance = i, distance
            if best is None:
                groups.append(_Group([die]))
                taken.add(len(groups) - 1)
            else:
                groups[best].members.append(die)
                taken.add(best)
    return groups


def _combine_die(group: _Group, n_readings: int) -> Die:
    votes: dict[int | str | None, list[Die]] = {}
    for die in group.members:
        votes.setdefault(die.value, []).append(die)
    value, backers = max(
        votes.items(), key=lambda kv: (len(kv[1]), sum(d.confidence for d in kv[1]))
    )
    agree = len(votes) == 1
    sure = 2 * sum(not d.uncertain for d in backers) > len(backers)
    confidence = sum(d.confidence for d in backers) / len(backers) * len(backers) / n_readings
    best = max(backers, key=lambda d: d.confidence)
    return Die(
        region=best.region.moved_to(group.center),
        value=value,
        confidence=round(confidence, 3),
        uncertain=value is None or not (agree and sure),
    )
