"""Rock the Bock's history lines: a roll or a choice as a :class:`Phrase` (worded elsewhere)."""

from __future__ import annotations

from companion.games.phrase import Phrase
from companion.games.rockthebock_codec import Event, Roll

__all__ = ["describe"]


def describe(event: Event) -> Phrase:
    """A one-line account: ``hist_rtb_roll`` (the faces counted), ``_take`` or ``_give``."""
    if isinstance(event, Roll):
        faces = tuple(Phrase(f"hist_rtb_{face}", {"n": count}) for face, count in event.faces)
        return Phrase("hist_rtb_roll", {"player": event.player, "faces": faces})
    taken = Phrase(f"hist_rtb_the_{event.kind}")
    if event.victim is not None:
        return Phrase("hist_rtb_give", {"player": event.player, "kind": taken,
                                        "victim": event.victim})
    return Phrase("hist_rtb_take", {"player": event.player, "kind": taken})
