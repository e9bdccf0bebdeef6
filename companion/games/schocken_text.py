"""Schocken's history lines: each recorded turn as a :class:`Phrase` (worded elsewhere)."""

from __future__ import annotations

from companion.games.phrase import Phrase
from companion.games.schocken_codec import Event, ThrowRecorded, ThrowRevealed
from companion.games.schocken_throws import Throw

__all__ = ["describe"]


def describe(event: Event) -> Phrase:
    """A one-line account of a recorded turn: ``hist_sch_throw``, ``_reveal`` or ``_hidden``."""
    if isinstance(event, ThrowRecorded) and event.throw is None:
        return Phrase("hist_sch_hidden", {"player": event.player})
    throw = event.throw
    assert throw is not None  # a hidden throw was told above
    fields = {
        "player": event.player,
        "dice": str(Throw(throw.dice)),
        "hand": Phrase("hist_sch_from_hand") if throw.hand else "",
        "turned": Phrase("hist_sch_turned", {"n": event.turned}) if event.turned else "",
    }
    if isinstance(event, ThrowRevealed):
        return Phrase("hist_sch_reveal", fields)
    return Phrase("hist_sch_throw", {**fields, "throws": Phrase("hist_sch_throws",
                                                                 {"n": event.throws})})
