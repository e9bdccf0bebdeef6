"""The status page: the pre-flight checks of the running companion (``companion doctor``).

Its words live here, not in the shared translation files: the page is the installer's
and the landlord's, and its check lines come in English from the doctor anyway.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, redirect, render_template, url_for

from companion.web import error_response, get_table, i18n
from companion.web.security import is_unlocked

bp = Blueprint("status", __name__)

WORDS = {
    "de": {"title": "Status", "none": "Keine Prüfungen: die Anzeige läuft ohne Kamera-Programm.",
           "remeasure": "Belichtung neu messen", "asked": "Die Kamera misst neu.",
           "locked": "Nur wer das laufende Spiel führt, kann neu messen lassen.",
           "ok": "ok", "warn": "Hinweis", "fail": "Fehler"},
    "en": {"title": "Status", "none": "No checks: the dashboard runs without the camera program.",
           "remeasure": "Measure exposure again", "asked": "The camera is measuring again.",
           "locked": "Only the running game's scorekeeper can ask for a new measurement.",
           "ok": "ok", "warn": "warning", "fail": "failed"},
}


def _words() -> dict[str, str]:
    return WORDS.get(i18n.current_language(), WORDS["en"])


@bp.get("/status")
def status_page() -> str:
    """One line per check, as ``companion doctor`` prints them."""
    return render_template("status.html", checks=get_table().status(), words=_words())


@bp.get("/status.json")
def status_json() -> Response:
    """The checks as JSON, with ``ok`` false when any failed (for monitoring)."""
    checks = get_table().status()
    return jsonify(checks=checks, ok=all(c["level"] != "fail" for c in checks))


@bp.post("/status/remeasure")
def remeasure():
    """Ask the camera to measure exposure and white balance again."""
    table = get_table()
    active = table.active_game_id()
    # Re-measuring lets the picture drift for a second or two: the scorekeeper's call.
    if active is not None and not is_unlocked(active):
        return error_response(403, _words()["locked"])
    table.request_remeasure()
    return redirect(url_for("status.status_page", asked=1), code=303)
