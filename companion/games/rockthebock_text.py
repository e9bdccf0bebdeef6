"""Rock the Bock's history lines: a one-line account of a roll or a choice."""

from __future__ import annotations

from companion.games.errors import ParseError
from companion.games.rockthebock_codec import Event, Roll

__all__ = [
    "LANGUAGES",
    "describe",
]


LANGUAGES = ("en", "de")

# face → (singular, plural) per language; German plural after a number is strong
# ("5 rote Geißen"), after the article weak ("die roten Geißen").
_WORDS = {
    "en": {"wolf": ("wolf", "wolves"), "bock": ("bock", "bocks")},
    "de": {"wolf": ("Wolf", "Wölfe"), "bock": ("Bock", "Böcke")},
}
_COLOUR_WORDS = {
    "red": ("red", "rot"), "blue": ("blue", "blau"),
    "green": ("green", "grün"), "yellow": ("yellow", "gelb"),
}


def _counted(face: str, count: int, language: str) -> str:
    if face.startswith("goat_"):
        en, de = _COLOUR_WORDS[face.removeprefix("goat_")]
        if language == "de":
            return f"{count} {de}e Geiß" + ("en" if count != 1 else "")
        return f"{count} {en} goat" + ("s" if count != 1 else "")
    singular, plural = _WORDS[language][face]
    return f"{count} {singular if count == 1 else plural}"


def _the(face: str, language: str) -> str:
    if face.startswith("goat_"):
        en, de = _COLOUR_WORDS[face.removeprefix("goat_")]
        return f"die {de}en Geißen" if language == "de" else f"the {en} goats"
    plural = _WORDS[language][face][1]
    return f"die {plural}" if language == "de" else f"the {plural}"


def describe(event: Event, language: str = "en") -> str:
    """A one-line account of a roll or a choice, in English (``en``) or German (``de``)."""
    if language not in LANGUAGES:
        raise ParseError(f"unknown language {language!r}; use one of: {', '.join(LANGUAGES)}")
    de = language == "de"
    if isinstance(event, Roll):
        parts = [_counted(face, count, language) for face, count in event.faces]
        joined = parts[0] if len(parts) == 1 else (
            ", ".join(parts[:-1]) + (" und " if de else " and ") + parts[-1]
        )
        return f"{event.player} würfelt {joined}." if de else f"{event.player} rolls {joined}."
    taken = _the(event.kind, language)
    if event.victim is not None:
        if de:
            return f"{event.player} nimmt {taken} und gibt sie {event.victim}."
        return f"{event.player} takes {taken} and gives them to {event.victim}."
    return f"{event.player} nimmt {taken}." if de else f"{event.player} takes {taken}."

