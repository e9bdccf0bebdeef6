"""What a settled camera reading means in each game the camera reads: its turn proposer.

Each proposer turns the :class:`~companion.turns.TurnTracker`'s throws of the current
turn into the one log action the turn button would record, reading only the engine's
``view`` (who is to throw, the throw limit, the legal phase) -- never a rule of its own.
What a proposal says is the one catalogue's (:mod:`companion.wording`, keys
``proposal_*``), worded in English and German. Pure otherwise: no camera, no clock, no
store. The registry hands each game's proposer to the tracker (:mod:`companion.registry`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.phrase import Phrase
from companion.turns import Proposal, TurnTracker
from companion.vision.types import Reading
from companion.wording import file_catalogue, say

__all__ = ["RockTheBockProposer", "SchockenProposer"]

SCHOCKEN_DICE = 3


class SchockenProposer:
    """Three dice at rest: the turn of the player to throw, or the awaited reveal."""

    def covered(self, tracker: TurnTracker, view: Mapping[str, Any]) -> Proposal | None:
        """The round's first player (no throw limit yet) keeps the third throw hidden."""
        player = view.get("to_throw")
        if player is None or view.get("throw_limit") is not None:
            return None
        action = {"action": "throw", "player": player, "throws": 3, "hidden": True}
        return Proposal.said(action, Phrase("proposal_sch_hidden", {"player": player}))

    def read(self, tracker: TurnTracker, reading: Reading, view: Mapping[str, Any]) -> Proposal:
        """The dice as a throw (throws counted, hand from the kept dice) or a reveal."""
        dice = sorted((d.value for d in reading.dice if isinstance(d.value, int)), reverse=True)
        if len(reading.dice) != SCHOCKEN_DICE or len(dice) != SCHOCKEN_DICE:
            return Proposal.said(
                None, Phrase("proposal_sch_dice_count", {"count": len(reading.dice)})
            )
        shown = "-".join(map(str, dice))
        if view.get("awaiting_reveal"):
            player = view["awaiting_reveal"]
            action = {"action": "reveal", "player": player, "dice": dice, "hand": tracker.hand}
            return Proposal.said(
                action, Phrase("proposal_sch_reveal", {"player": player, "dice": shown})
            )
        player = view.get("to_throw")
        if player is None:
            return Proposal.said(None, Phrase("proposal_sch_nobody"))
        throws = min(tracker.throws, 3)
        action = {
            "action": "throw",
            "player": player,
            "dice": dice,
            "throws": throws,
            "hand": tracker.hand,
        }
        key = "proposal_sch_throw_hand" if tracker.hand else "proposal_sch_throw"
        return Proposal.said(
            action, Phrase(key, {"player": player, "dice": shown, "throws": throws})
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
            return Proposal.said(None, Phrase("proposal_rtb_choose_first"))
        faces: dict[str, int] = {}
        for die in reading.dice:
            if isinstance(die.value, str):  # a die left unread has no face to count
                faces[die.value] = faces.get(die.value, 0) + 1
        action = {"action": "roll", "player": turn["name"], "faces": faces}
        expected = view.get("dice_left", {}).get(turn["name"])
        if expected is not None and len(reading.dice) != expected:
            # The faces found are a start for the scorekeeper to complete.
            return Proposal.said(None, Phrase("proposal_rtb_dice_count", {
                "count": len(reading.dice), "player": turn["name"], "expected": expected}),
                draft=action if faces else None)
        if sum(faces.values()) != len(reading.dice):
            return Proposal.said(None, Phrase("proposal_unclear"), draft=action if faces else None)
        counted = sorted(faces.items())

        def rolled(lang: str) -> str:
            # Each face by the catalogue's own name (face_goat_red), the count before it.
            shown = ", ".join(say(Phrase("proposal_rtb_face_count", {
                "n": n, "face": _face(face)}), lang) for face, n in counted)
            return say(Phrase("proposal_rtb_rolled", {"player": turn["name"], "faces": shown}),
                       lang)

        return Proposal(action, rolled("en"), rolled("de"))


def _face(face: str) -> Phrase | str:
    """A Rock the Bock face as the catalogue names it; a face it lacks as it was read."""
    key = f"face_{face}"
    return Phrase(key) if key in file_catalogue("en") else face
