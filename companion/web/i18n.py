"""Translations: German by default, English on request; JSON catalogues and a tiny lookup.

The catalogues live in ``translations/<lang>.json`` as flat ``{"key": "text"}`` maps; a
text may hold ``{name}`` fields filled from keyword arguments. The language of a request
comes from ``?lang=`` (remembered in a cookie), else the cookie, else the settings.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from flask import Flask, Response, current_app, g, request

LANGUAGES = ("de", "en")
COOKIE = "lang"
_DIR = Path(__file__).parent / "translations"


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The flat key → text map of one language (read once per process)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGUAGES)}")
    with open(_DIR / f"{lang}.json", encoding="utf-8") as fh:
        return json.load(fh)


def translate(lang: str, key: str, **fields: object) -> str:
    """The text for ``key`` in ``lang``, falling back to English, then to the key itself.

    The key fallback keeps a page readable if a catalogue lags behind; the i18n test
    makes sure no key used in the templates is missing from either catalogue.
    """
    text = catalogue(lang).get(key) or catalogue("en").get(key) or key
    return text.format(**fields) if fields else text


def current_language() -> str:
    """The language of the current request (query, then cookie, then the default)."""
    lang = getattr(g, "lang", None)
    if lang:
        return lang
    asked = request.args.get("lang") or request.cookies.get(COOKIE)
    default = current_app.config["DEFAULT_LANGUAGE"]
    g.lang = asked if asked in LANGUAGES else default
    return g.lang


def _(key: str, **fields: object) -> str:
    """Translate ``key`` into the current request's language."""
    return translate(current_language(), key, **fields)


def refusal(exc: BaseException, lang: str | None = None) -> str:
    """What was refused, in the page's language: the one way every refusal is worded.

    Engine and table errors carry a ``key`` and ``fields`` (see
    :mod:`companion.games.errors`); the text is the catalogue's ``refusal_<key>`` (or
    ``<key>`` for the dashboard's own messages) filled with the fields. A nested cause
    (a correction that breaks a later entry) is worded the same way. An error without a
    key keeps its English text on English pages; German pages say what to do in German.
    """
    lang = lang or current_language()
    key = getattr(exc, "key", None)
    if key:
        fields = dict(getattr(exc, "fields", {}) or {})
        cause = fields.get("cause")
        if isinstance(cause, BaseException):
            fields["cause"] = refusal(cause, lang)
        rule = fields.get("rule")
        if isinstance(rule, str) and f"flag_{rule}" in catalogue(lang):
            fields["rule"] = translate(lang, f"flag_{rule}")
        for name in (f"refusal_{key}", key):
            if name in catalogue(lang):
                return translate(lang, name, **fields)
    if lang == "en":
        return str(exc)
    return translate(lang, "refusal_unknown")


def refuse(key: str, **fields: object) -> Exception:
    """A ParseError worded by the catalogue's ``key`` (raise it: a clear 400)."""
    from companion.games.errors import ParseError

    return ParseError(translate("en", key, **fields), key=key, **fields)


def init_app(app: Flask) -> None:
    """Offer ``_`` and the language to templates; remember a ``?lang=`` choice in a cookie."""
    app.jinja_env.globals["_"] = _
    app.jinja_env.globals["current_language"] = current_language
    app.jinja_env.globals["catalogue_js"] = lambda: catalogue(current_language())

    @app.after_request
    def _remember_language(response: Response) -> Response:
        asked = request.args.get("lang")
        if asked in LANGUAGES and request.cookies.get(COOKIE) != asked:
            response.set_cookie(COOKIE, asked, max_age=365 * 24 * 3600, samesite="Lax")
        return response
