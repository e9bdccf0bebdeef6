"""What a settled camera reading means in each game the camera reads: its turn proposer.

Each proposer turns the :class:`~companion.turns.TurnTracker`'s throws of the current
turn into the one log action the turn button would record, reading only the engine's
``view`` (who is to throw, the throw limit, the legal phase) -- never a rule of its own.
Pure: no camera, no clock, no store. The registry hands each game's proposer to the
tracker (:mod:`companion.registry`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.turns import Proposal, TurnTracker
from companion.vision.types import Reading

__all__ = ["RockTheBockProposer", "SchockenProposer"]

SCHOCKEN_DICE = 3
FACE_NAMES_DE = {
    "wolf": "Wolf",
    "bock": "Bock",
    "goat_red": "rote Geiß",
    "goat_blue": "blaue Geiß",
    "goat_green": "grüne Geiß",
    "goat_yellow": "gelbe Geiß",
}


class SchockenProposer:
    """Three dice at rest: the turn of the player to throw, or the awaited reveal."""

    def covered(self, tracker: TurnTracker, view: Mapping[str, Any]) -> Proposal | None:
        """The round's first player (no throw limit yet) keeps the third throw hidden."""
        player = view.get("to_throw")
        if player is None or view.get("throw_limit") is not None:
            return None
        action = {"action": "throw", "player": player, "throws": 3, "hidden": True}
        return Proposal(
            action,
            f"{player}: third throw under the cup (hidden until the round ends)",
            f"{player}: dritter Wurf unter dem Becher (verdeckt bis zum Rundenende)",
        )

    def read(self, tracker: TurnTracker, reading: Reading, view: Mapping[str, Any]) -> Proposal:
        """The dice as a throw (throws counted, hand from the kept dice) or a reveal."""
        dice = sorted((d.value for d in reading.dice if isinstance(d.value, int)), reverse=True)
        if len(reading.dice) != SCHOCKEN_DICE or len(dice) != SCHOCKEN_DICE:
            n = len(reading.dice)
            return Proposal(
                None,
                f"{n} dice in the tray; Schocken needs 3",
                f"{n} Würfel in der Schale; Schocken braucht 3",
            )
        if view.get("awaiting_reveal"):
            player = view["awaiting_reveal"]
            action = {"action": "reveal", "player": player, "dice": dice, "hand": tracker.hand}
            shown = "-".join(map(str, dice))
            return Proposal(action, f"{player} reveals {shown}", f"{player} deckt auf: {shown}")
        player = view.get("to_throw")
        if player is None:
            return Proposal(None, "nobody is to throw", "Niemand ist mit Würfeln dran")
        throws = min(tracker.throws, 3)
        action = {
            "action": "throw",
            "player": player,
            "dice": dice,
            "throws": throws,
            "hand": tracker.hand,
        }
        shown = "-".join(map(str, dice))
        return Proposal(
            action,
            f"{player}: {shown} in {throws}{', from the hand' if tracker.hand else ''}",
            f"{player}: {shown} mit {throws} Wurf/Würfen{', aus der Hand' if tracker.hand else ''}",
        )


class RockTheBockProposer:
    """The faces of the dice the player to roll has left, counted."""

    def covered(self, tracker: TurnTracker, view: Mapping[str, Any]) -> Proposal | None:
        """A cup means nothing in Rock the Bock: it is only in the way."""
        return None

    def read(self, tracker: TurnTracker, reading: Reading, view: Mapping[str, Any]) -> Proposal:
        """The roll of the player whose turn it is, once the phone chose the last one."""
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
