"""Schocken's history lines: a one-line account of each recorded turn."""

from __future__ import annotations

from companion.games.errors import ParseError
from companion.games.schocken_codec import Event, ThrowRecorded, ThrowRevealed
from companion.games.schocken_throws import Throw

__all__ = ["LANGUAGES", "describe"]

LANGUAGES = ("en", "de")


def describe(event: Event, language: str = "en") -> str:
    """A one-line account of a recorded turn, in English (``en``) or German (``de``)."""
    if language not in LANGUAGES:
        raise ParseError(f"unknown language {language!r}; use one of: {', '.join(LANGUAGES)}")
    de = language == "de"
    if isinstance(event, ThrowRecorded) and event.throw is None:
        if de:
            return f"{event.player} würfelt dreimal; der dritte Wurf bleibt unter dem Becher."
        return f"{event.player} throws 3 times; the third throw stays under the cup."
    throw = event.throw
    assert throw is not None  # a hidden throw was told above
    dice = str(Throw(throw.dice))
    how = (" aus der Hand" if de else " from the hand") if throw.hand else ""
    turned = ""
    if event.turned:
        turned = (f", {event.turned} gedreht" if de else f", {event.turned} turned from sixes")
    if isinstance(event, ThrowRevealed):
        if de:
            return f"{event.player} deckt auf: {dice}{how}{turned}."
        return f"{event.player} reveals {dice}{how}{turned}."
    if de:
        count = "1 Wurf" if event.throws == 1 else f"{event.throws} Würfe"
    else:
        count = "1 throw" if event.throws == 1 else f"{event.throws} throws"
    return f"{event.player}: {dice}{how} ({count}{turned})."

