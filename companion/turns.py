"""From settled camera readings to the action the scorekeeper's button records.

Pure: no camera, no clock, no store. The tracker sees each throw once the dice are
at rest and proposes one log action for the game's current ``view``; the button
(or the dashboard) confirms it. It reads the engines' ``view`` dicts but knows no
rule: who is to throw, the throw limit and the legal choices come from the engine, and
what a reading means in a game is that game's :class:`Proposer`
(:mod:`companion.proposers`, handed in from the registry).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.games.phrase import Phrase
from companion.vision.types import Die, Reading
from companion.wording import say


@dataclass
class TurnTracker:
    """Counts the throws of the current turn and remembers the last settled reading.

    ``stay_radius`` is the share of a die's edge a die may shift and still count as
    kept aside (not thrown again) between two throws.

    ``covered`` is set when a dice cup stands upside down in the tray; whether that
    means something is the game's proposer's business (Schocken: the first player's
    hidden third throw, RULES.md round rule 3). Elsewhere a cup is only in the way.
    ``proposers`` maps a game's name to its :class:`Proposer`.
    """

    stay_radius: float = 0.35
    turn_key: object = None
    throws: int = 0
    reading: Reading | None = None
    hand: bool = True
    covered: bool = False
    history: list[Reading] = field(default_factory=list)
    proposers: Mapping[str, Proposer] = field(default_factory=dict)

    def start_turn(self, key: object) -> None:
        """Forget the previous turn when the game moved on (``key`` changed)."""
        if key != self.turn_key:
            self.turn_key = key
            self.throws = 0
            self.reading = None
            self.hand = True
            self.covered = False
            self.history = []

    def observe(self, reading: Reading, key: object) -> None:
        """Count one settled throw belonging to the turn identified by ``key``."""
        self.start_turn(key)
        previous = self.reading
        self.throws += 1
        # A throw is from the hand when no die stayed where it lay after the last throw.
        self.hand = previous is None or not any(
            _stayed(die, previous.dice, self.stay_radius) for die in reading.dice
        )
        self.reading = reading
        self.covered = False
        self.history.append(reading)

    def moved(self, reading: Reading, key: object) -> None:
        """The same dice again, perhaps nudged: follow where they lie, count no throw.

        The dice are in sight where they lay, so a cup that stood over them was lifted:
        the tray is no longer covered."""
        if key == self.turn_key and self.reading is not None:
            self.reading = reading
            self.covered = False
            if self.history:
                self.history[-1] = reading

    def cover(self, key: object) -> None:
        """A dice cup stands upside down over the dice of the turn identified by ``key``."""
        self.start_turn(key)
        self.covered = True

    def proposal(self, game: str, view: Mapping[str, Any]) -> Proposal | None:
        """The action the button would record now, or None with nothing to record.

        What a reading means in ``game`` is its proposer's business (the registry's
        :class:`Proposer` for that game, in ``proposers``); a game without one
        proposes nothing.
        """
        if view.get("over"):
            return None
        proposer = self.proposers.get(game)
        if self.covered:
            hidden = None if proposer is None else proposer.covered(self, view)
            return hidden or Proposal.said(None, Phrase("proposal_covered"))
        if self.reading is None:
            return None
        reading = self.reading
        if reading.uncertain:
            # Nothing for the button; what the dice would make, for a phone to check.
            read = None if proposer is None else proposer.read(self, reading, view)
            draft = None if read is None else read.action or read.draft
            return Proposal.said(None, Phrase("proposal_unclear"), draft)
        if proposer is None:
            return None
        return proposer.read(self, reading, view)


@dataclass(frozen=True)
class Proposal:
    """An action ready to record (``action``), or why there is none (``action`` None),
    said in English (``text``, also for the log) and German (``text_de``).

    ``draft``: with no action, what the camera did read as that action (a flagged die's
    proposed value, the dice found when some are missing), for the scorekeeper to check
    and mend on the phone before it is recorded; the button never records a draft."""

    action: dict[str, Any] | None
    text: str
    text_de: str
    draft: dict[str, Any] | None = None

    @classmethod
    def said(
        cls, action: dict[str, Any] | None, phrase: Phrase, draft: dict[str, Any] | None = None
    ) -> Proposal:
        """A proposal of ``action`` (None: nothing to record; ``draft`` to check then)
        said by the catalogue's ``phrase``, in both languages."""
        return cls(action, say(phrase, "en"), say(phrase, "de"), draft)


class Proposer(Protocol):
    """What a game makes of the turn tracker's throws (one per game the camera reads)."""

    def covered(self, tracker: TurnTracker, view: Mapping[str, Any]) -> Proposal | None:
        """The action for dice under an upside-down cup, or None: a cup is in the way."""

    def read(self, tracker: TurnTracker, reading: Reading, view: Mapping[str, Any]) -> Proposal:
        """The action for the settled ``reading`` of the current turn. For a reading with
        a die flagged or unread the tracker keeps the answer as a draft, never an action
        (``Proposal.draft``): a die left unread must not be counted as if it were read."""


def _stayed(die: Die, before: tuple[Die, ...], radius: float) -> bool:
    x, y = die.region.center
    for old in before:
        ox, oy = old.region.center
        limit = radius * max(die.region.size, old.region.size, 1.0)
        if old.value == die.value and math.hypot(x - ox, y - oy) <= limit:
            return True
    return False


def reading_to_dict(reading: Reading) -> dict[str, Any]:
    """A JSON-able account of a reading: what the dashboard's camera page lists."""
    return {
        "kind": reading.kind,
        "frame_size": list(reading.frame_size),
        "dice": [
            {
                "value": d.value,
                "confidence": d.confidence,
                "uncertain": d.uncertain,
                "region": {
                    "center": [round(d.region.center[0], 1), round(d.region.center[1], 1)],
                    "size": round(d.region.size, 1),
                    "angle": round(d.region.angle, 1),
                    "corners": [[round(x, 1), round(y, 1)] for x, y in d.region.corners],
                    "confidence": d.region.confidence,
                },
            }
            for d in reading.dice
        ],
        "timings_ms": {k: round(v, 2) for k, v in reading.timings_ms.items()},
        "unfamiliar": reading.unfamiliar,
        "cluttered": reading.cluttered,
    }
