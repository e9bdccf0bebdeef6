"""The one way every text a person reads is worded: the catalogues and :func:`word`.

The catalogues (``web/translations/<lang>.json``) are flat ``{"key": "text"}`` maps whose
texts hold ``{field}`` places. The dashboard words its own texts from them, and the
engines' :class:`~companion.games.phrase.Phrase` (history lines, refusals) the same way:
a phrase names a key and its fields; a field ``n`` picks ``<key>_one`` or
``<key>_other`` where both exist; a nested phrase is worded first; a tuple is a list
("a, b und c"), and the phrase ``list_or`` with ``items`` a list of alternatives
("a, b oder c"). A key missing from a language falls back to English, then to the key.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from companion.games.phrase import Phrase

__all__ = ["LANGUAGES", "file_catalogue", "refusal", "say", "word"]

LANGUAGES = ("de", "en")
_DIR = Path(__file__).parent / "web" / "translations"


@cache
def file_catalogue(lang: str) -> dict[str, str]:
    """The flat key -> text map of one language as its file holds it (read once)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGUAGES)}")
    with open(_DIR / f"{lang}.json", encoding="utf-8") as fh:
        return json.load(fh)


def _text(key: str, texts: Mapping[str, str], fallback: Mapping[str, str]) -> str:
    return texts.get(key) or fallback.get(key) or key


def word(phrase: Phrase | Mapping[str, Any], texts: Mapping[str, str],
         fallback: Mapping[str, str] | None = None) -> str:
    """``phrase`` (a Phrase or its JSON) worded from the catalogue ``texts``.

    ``fallback`` (the English catalogue) words what ``texts`` lacks.
    """
    if not isinstance(phrase, Phrase):
        phrase = Phrase.from_dict(phrase)
    fallback = fallback if fallback is not None else {}
    if phrase.key == "list_or":  # alternatives: "a, b oder c"
        return _join(phrase.fields.get("items", ()), "list_or", texts, fallback)
    key = phrase.key
    count = phrase.fields.get("n")
    if isinstance(count, int) and not isinstance(count, bool) and (
            f"{key}_one" in texts or f"{key}_one" in fallback):
        key = f"{key}_one" if count == 1 else f"{key}_other"
    filled = {name: _value(value, texts, fallback) for name, value in phrase.fields.items()}
    text = _text(key, texts, fallback)
    try:
        return text.format(**filled)
    except (KeyError, IndexError, ValueError):
        # A catalogue text naming a field the phrase lacks: say it unfilled, not crash.
        return text


def _join(values: Any, last: str, texts: Mapping[str, str], fallback: Mapping[str, str]) -> str:
    parts = [_value(v, texts, fallback) for v in values]
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + _text(last, texts, fallback) + parts[-1]


def _value(value: Any, texts: Mapping[str, str], fallback: Mapping[str, str]) -> str:
    if isinstance(value, Phrase | Mapping):
        return word(value, texts, fallback)
    if isinstance(value, tuple | list):
        return _join(value, "list_and", texts, fallback)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def say(phrase: Phrase, lang: str) -> str:
    """``phrase`` worded from the catalogue file of ``lang`` (English where it lacks a word):
    for what is said away from a page (the button, the log)."""
    return word(phrase, file_catalogue(lang), file_catalogue("en"))


def refusal(
    exc: BaseException,
    lang: str,
    catalogue: Callable[[str], Mapping[str, str]] = file_catalogue,
) -> str:
    """What was refused, in ``lang``: the one way every refusal is worded.

    Engine and table errors carry a ``key`` and ``fields`` (see
    :mod:`companion.games.errors`); the text is the catalogue's ``refusal_<key>`` (or
    ``<key>`` for the dashboard's own messages) filled with the fields, phrases among
    them worded too. A nested cause (a correction that breaks a later entry) is worded
    the same way, a house rule's name as its label. An error without a key keeps its
    English text in English; in German it says what to do in German.
    """
    texts, english = catalogue(lang), catalogue("en")
    key = getattr(exc, "key", None)
    if key:
        fields = dict(getattr(exc, "fields", {}) or {})
        cause = fields.get("cause")
        if isinstance(cause, BaseException):
            fields["cause"] = refusal(cause, lang, catalogue)
        rule = fields.get("rule")
        if isinstance(rule, str) and f"flag_{rule}" in texts:
            fields["rule"] = _text(f"flag_{rule}", texts, english)
        for name in (f"refusal_{key}", key):
            if name in texts:
                return word(Phrase(name, fields), texts, english)
    if lang == "en":
        return str(exc)
    return _text("refusal_unknown", texts, english)
