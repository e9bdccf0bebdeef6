"""Translations: German by default, English on request; the page's side of the wording.

The catalogues live in ``translations/<lang>.json`` as flat ``{"key": "text"}`` maps; a
text may hold ``{name}`` fields filled from keyword arguments. Everything a page says --
its own texts, the engines' history lines and refusals -- is worded from them, the
same way (:mod:`companion.wording`). The language of a request comes from ``?lang=``
(remembered in a cookie), else the cookie, else the settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flask import Flask, Response, current_app, g, has_app_context, request

from companion import wording
from companion.games.phrase import Phrase
from companion.wording import LANGUAGES, file_catalogue, word

COOKIE = "lang"
_EXTRA = "companion_messages"


def catalogue(lang: str) -> dict[str, str]:
    """The flat key → text map of one language (the files are read once per process),
    with the words a game of this app brought along (:func:`add_messages`)."""
    base = file_catalogue(lang)
    extra = current_app.extensions.get(_EXTRA, {}).get(lang) if has_app_context() else None
    return {**base, **extra} if extra else base


def add_messages(app: Flask, messages: Iterable[Mapping[str, Mapping[str, str]]]) -> None:
    """Let ``app`` word what a game brings its own words for (``{lang: {key: text}}``).

    The catalogue's own keys stay as they are: a game adds words, it does not reword.
    """
    extra: dict[str, dict[str, str]] = {}
    for by_language in messages:
        for lang, texts in by_language.items():
            base = file_catalogue(lang)
            extra.setdefault(lang, {}).update({k: v for k, v in texts.items() if k not in base})
    app.extensions[_EXTRA] = extra


def translate(lang: str, key: str, **fields: object) -> str:
    """The text for ``key`` in ``lang``, falling back to English, then to the key itself.

    The key fallback keeps a page readable if a catalogue lags behind; the i18n test
    makes sure no key used in the templates is missing from either catalogue.
    """
    text = catalogue(lang).get(key) or catalogue("en").get(key) or key
    return text.format(**fields) if fields else text


def say(phrase: Phrase | Mapping[str, Any] | None, lang: str | None = None) -> str:
    """An engine's phrase (a history line; its JSON) worded in the page's language."""
    if not phrase:
        return ""
    lang = lang or current_language()
    return word(phrase, catalogue(lang), catalogue("en"))


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


def blocked(reason: str) -> str:
    """What blocks the tray (the camera runtime's reason, ``occlusion.HAND`` and the
    like), said in the current request's language; a reason the catalogue does not know
    (``why_`` and its words joined by ``_``) is said as it came."""
    key = "why_" + "_".join(reason.split())
    why = _(key) if key in catalogue(current_language()) else reason
    return _("camera_blocked", why=why)


def refusal(exc: BaseException, lang: str | None = None) -> str:
    """What was refused, in the page's language (:func:`companion.wording.refusal`, with
    the words this app's games brought along)."""
    return wording.refusal(exc, lang or current_language(), catalogue)


def refuse(key: str, **fields: object) -> Exception:
    """A ParseError worded by the catalogue's ``key`` (raise it: a clear 400)."""
    from companion.games.errors import ParseError

    return ParseError(translate("en", key, **fields), key=key, **fields)


def init_app(app: Flask) -> None:
    """Offer ``_`` and the language to templates; remember a ``?lang=`` choice in a cookie."""
    app.jinja_env.globals["_"] = _
    app.jinja_env.globals["current_language"] = current_language
    app.jinja_env.globals["say"] = say
    app.jinja_env.globals["blocked"] = blocked
    app.jinja_env.globals["catalogue_js"] = lambda: catalogue(current_language())

    @app.after_request
    def _remember_language(response: Response) -> Response:
        asked = request.args.get("lang")
        if asked in LANGUAGES and request.cookies.get(COOKIE) != asked:
            response.set_cookie(COOKIE, asked, max_age=365 * 24 * 3600, samesite="Lax")
        return response
