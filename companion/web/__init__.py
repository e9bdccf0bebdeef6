"""The dashboard: a Flask app factory with one blueprint per area.

``create_app(table, settings)`` wires the app to the one interface it talks to, the
:class:`companion.table.Table` (never SQLite, never cv2), and to the settings. Pages are
server-rendered HTML that update themselves from JSON snapshots pushed over
Server-Sent Events; ``server.py`` serves the app with waitress. Each game brings its own
part (:class:`~companion.web.part.WebPart`: entry forms, setup seats, score, rules,
script), found through the table's registry; the other modules are the generic pages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.config import Settings
from companion.games.errors import GameError, IllegalAction, ParseError
from companion.games.phrase import Phrase
from companion.table import DuplicateVersion, UnknownGame
from companion.web import i18n, security
from companion.web.part import WebPart


def create_app(
    table: Any, settings: Settings, test_config: Mapping[str, Any] | None = None
) -> Flask:
    """Build the dashboard app over ``table`` (a Table or anything with its methods).

    The games it offers, and each game's part of the pages, come from ``table.games``
    (the registry).
    """
    app = Flask(__name__)
    app.config.from_mapping(
        DEFAULT_LANGUAGE=settings.language,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        # A scorekeeper unlocks once per evening, not once per page.
        PERMANENT_SESSION_LIFETIME=12 * 3600,
        SSE_HEARTBEAT_SECONDS=15.0,
        # How often a stream looks whether its phone is still there: short, so a
        # dropped phone frees its waitress thread within about a second.
        SSE_POLL_SECONDS=1.0,
        # A phone that vanished without closing its connection (battery, lost Wi-Fi) is
        # only noticed when TCP gives up, minutes later; ending every stream after a while
        # bounds that. Live pages reconnect within a second and resume (Last-Event-ID).
        SSE_MAX_STREAM_SECONDS=300.0,
        # Keep a few threads for ordinary requests; further pages fall back to polling.
        SSE_MAX_STREAMS=max(1, settings.threads - 4),
        # A phone needs one stream (a second tab, a big screen: a few); more from one
        # address would only take threads from the rest of the table.
        SSE_STREAMS_PER_CLIENT=4,
        PIN_FREE_TRIES=5,
        PIN_LOCKOUT_SECONDS=30.0,
        DASHBOARD_URL=None,
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        # What the running companion wants everyone to know (e.g. the button is missing).
        NOTICES=(),
    )
    if test_config:
        app.config.update(test_config)
    app.config["SECRET_KEY"] = security.secret_key(
        app.config.get("SECRET_KEY") or os.environ.get("COMPANION_SECRET_KEY"), settings.data_dir
    )
    app.extensions["companion_table"] = table
    app.extensions["companion_settings"] = settings

    i18n.init_app(app)
    security.init_app(app)
    _register_error_handlers(app)

    from companion.web import (
        backup,
        camera,
        charts,
        evening,
        export,
        games,
        live,
        players,
        recording,
        status,
    )

    for module in (games, recording, live, camera, export):
        app.register_blueprint(module.bp)
    # Each game's own part, as the table's registry names it (a new game brings its own).
    parts = {game.name: game.web() for game in table.games if game.web is not None}
    app.extensions["companion_parts"] = parts
    i18n.add_messages(app, [game.words for game in table.games])
    for part in parts.values():
        app.register_blueprint(part.blueprint)
    for module in (status, players, evening, charts, backup):
        app.register_blueprint(module.bp)
    live.init_app(app)
    return app


def get_table() -> Any:
    """The Table this app shows."""
    return current_app.extensions["companion_table"]


def get_parts() -> dict[str, WebPart]:
    """Each game's dashboard part by name, in the registry's order."""
    return current_app.extensions["companion_parts"]


def get_part(name: str) -> WebPart:
    """The dashboard part of game ``name``; ParseError naming the known games if none."""
    parts = get_parts()
    if name not in parts:
        raise ParseError(f"unknown game {name[:30]!r}; choose one of: {', '.join(parts)}",
                         key="unknown_game", name=name[:30],
                         games=Phrase("list_or", {"items": tuple(Phrase(f"game_{n}")
                                                                 for n in parts)}))
    return parts[name]


def get_settings() -> Settings:
    """The settings the app was built with."""
    return current_app.extensions["companion_settings"]


def wants_json() -> bool:
    """Whether the client asked for JSON (the page's fetch calls do) rather than HTML."""
    if request.is_json or request.path.endswith(".json"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_response(status: int, message: str):
    """A 4xx answer: JSON for scripts, a small page for people; says what to do."""
    if wants_json():
        return jsonify(error=message, status=status), status
    return render_template("error.html", status=status, message=message), status


_MESSAGES = {
    "csrf": "error_csrf",
    "pin_required": "error_pin_required",
    "tray_no_game": "tray_no_game",
    "tray_no_camera": "tray_no_camera",
    "tray_no_frame": "tray_no_frame",
}


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(GameError)
    def _game_error(exc: GameError):
        # The engines' text says what was wrong in the game's terms; 409 for a well-formed
        # action the state does not allow, 400 for input that could not be read.
        return error_response(409 if isinstance(exc, IllegalAction) else 400, i18n.refusal(exc))

    @app.errorhandler(UnknownGame)
    def _not_found(exc: UnknownGame):
        game_id = (request.view_args or {}).get("game_id", "?")
        return error_response(404, i18n._("error_no_game", id=game_id))

    @app.errorhandler(DuplicateVersion)
    def _raced(exc: DuplicateVersion):
        # Another writer got there first; nothing of this request was stored.
        return error_response(409, i18n._("error_raced"))

    @app.errorhandler(ValueError)
    def _bad_value(exc: ValueError):
        # Table errors (a bad PIN format, a bad name) and other domain errors: the text
        # says what was wrong; nothing was stored.
        return error_response(400, i18n.refusal(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        if exc.code is None or exc.code >= 500:
            return exc
        key = _MESSAGES.get(str(exc.description))
        message = i18n._(key) if key else str(exc.description)
        if exc.code == 404 and not key:
            message = i18n._("error_not_found")
        return error_response(exc.code, message)
