"""From settled camera readings to the action the scorekeeper's button records.

Pure: no camera, no clock, no store. The tracker sees each throw once the dice are
at rest and proposes one log action for the game's current ``view``; the button
(or the dashboard) confirms it. It reads the engines' ``view`` dicts but knows no
rule: who is to throw, the throw limit and the legal choices come from the engine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from companion.vision.types import Die, Reading

SCHOCKEN_DICE = 3
FACE_NAMES_DE = {
    "wolf": "Wolf",
    "bock": "Bock",
    "goat_red": "rote Geiß",
    "goat_blue": "blaue Geiß",
    "goat_green": "grüne Geiß",
    "goat_yellow": "gelbe Geiß",
}


@dataclass
class TurnTracker:
    """Counts the throws of the current turn and remembers the last settled reading.

    ``stay_radius`` is the share of a die's edge a die may shift and still count as
    kept aside (not thrown again) between two throws.

    ``covered`` is set when a dice cup stands upside down in the tray: for the round's
    first player (no throw limit yet) that is the hidden third throw (RULES.md, round
    rule 3), proposed as ``{"action": "throw", "throws": 3, "hidden": true}``; the dice
    read when the cup is lifted are proposed as the reveal once the round awaits it.
    Elsewhere a cup is only something in the way.
    """

    stay_radius: float = 0.35
    turn_key: object = None
    throws: int = 0
    reading: Reading | None = None
    hand: bool = True
    covered: bool = False
    history: list[Reading] = field(default_factory=list)

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
        """The same dice again, perhaps nudged: follow where they lie, count no throw."""
        if key == self.turn_key and self.reading is not None:
            self.reading = reading
            if self.history:
                self.history[-1] = reading

    def cover(self, key: object) -> None:
        """A dice cup stands upside down over the dice of the turn identified by ``key``."""
        self.start_turn(key)
        self.covered = True

    def proposal(self, game: str, view: dict[str, Any]) -> Proposal | None:
        """The action the button would record now, or None with nothing to record."""
        if view.get("over"):
            return None
        if self.covered:
            return self._covered(game, view)
        if self.reading is None:
            return None
        reading = self.reading
        if reading.uncertain:
            return Proposal(
                None,
                "a die is unclear: check the picture or enter it by hand",
                "Ein Würfel ist unklar: Bild prüfen oder von Hand eintragen",
            )
        if game == "schocken":
            return self._schocken(reading, view)
        if game == "rockthebock":
            return self._rockthebock(reading, view)
        return None

    def _covered(self, game: str, view: dict[str, Any]) -> Proposal:
        player = view.get("to_throw")
        if game == "schocken" and player is not None and view.get("throw_limit") is None:
            action = {"action": "throw", "player": player, "throws": 3, "hidden": True}
            return Proposal(
                action,
                f"{player}: third throw under the cup (hidden until the round ends)",
                f"{player}: dritter Wurf unter dem Becher (verdeckt bis zum Rundenende)",
            )
        return Proposal(
            None,
            "a cup covers the dice: lift it to read them",
            "Ein Becher verdeckt die Würfel: zum Lesen anheben",
        )

    def _schocken(self, reading: Reading, view: dict[str, Any]) -> Proposal:
        if len(reading.dice) != SCHOCKEN_DICE:
            n = len(reading.dice)
            return Proposal(
                None,
                f"{n} dice in the tray; Schocken needs 3",
                f"{n} Würfel in der Schale; Schocken braucht 3",
            )
        dice = sorted((int(d.value) for d in reading.dice), reverse=True)
        if view.get("awaiting_reveal"):
            player = view["awaiting_reveal"]
            action = {"action": "reveal", "player": player, "dice": dice, "hand": self.hand}
            shown = "-".join(map(str, dice))
            return Proposal(action, f"{player} reveals {shown}", f"{player} deckt auf: {shown}")
        player = view.get("to_throw")
        if player is None:
            return Proposal(None, "nobody is to throw", "Niemand ist mit Würfeln dran")
        throws = min(self.throws, 3)
        action = {
            "action": "throw",
            "player": player,
            "dice": dice,
            "throws": throws,
            "hand": self.hand,
        }
        shown = "-".join(map(str, dice))
        return Proposal(
            action,
            f"{player}: {shown} in {throws}{', from the hand' if self.hand else ''}",
            f"{player}: {shown} mit {throws} Wurf/Würfen{', aus der Hand' if self.hand else ''}",
        )

    def _rockthebock(self, reading: Reading, view: dict[str, Any]) -> Proposal:
        turn = view.get("turn")
        if turn is None or view.get("phase") != "roll":
            return Proposal(
                None,
                "choose what to take on the phone first",
                "Erst auf dem Handy wählen, was genommen wird",
            )
        expected = view.get("dice_left", {}).get(turn["name"])
        if expected is not None and len(reading.dice) != expected:
            n, name = len(reading.dice), turn["name"]
            return Proposal(
                None,
                f"{n} dice in the tray; {name} rolls {expected}",
                f"{n} Würfel in der Schale; {name} würfelt mit {expected}",
            )
        faces: dict[str, int] = {}
        for die in reading.dice:
            faces[str(die.value)] = faces.get(str(die.value), 0) + 1
        action = {"action": "roll", "player": turn["name"], "faces": faces}
        counted = sorted(faces.items())
        shown = ", ".join(f"{n}× {face}" for face, n in counted)
        shown_de = ", ".join(f"{n}× {FACE_NAMES_DE.get(face, face)}" for face, n in counted)
        return Proposal(
            action, f"{turn['name']} rolled {shown}", f"{turn['name']} würfelt {shown_de}"
        )


@dataclass(frozen=True)
class Proposal:
    """An action ready to record (``action``), or why there is none (``action`` None),
    said in English (``text``, also for the log) and German (``text_de``)."""

    action: dict[str, Any] | None
    text: str
    text_de: str


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
    }
