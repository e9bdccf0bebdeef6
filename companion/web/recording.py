"""The scorekeeper's generic actions on a game: record, undo, correct, reopen, to the table,
put away.

Each game's own forms (its :class:`~companion.web.part.WebPart`) post through
:func:`respond_with` too; every rule check happens in the engine via the Table, and a
refused action changes nothing.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, redirect, request, session, url_for

from companion.games.parsing import read_json
from companion.table import TableError
from companion.web import error_response, get_table, i18n, wants_json
from companion.web.games import grant, pin_refusal, who_from_form
from companion.web.security import is_unlocked, scorekeeper_required

__all__ = ["bp", "ensure_game", "respond_with", "who"]

bp = Blueprint("recording", __name__)


def who() -> str:
    """The name recorded in the history for actions from this browser."""
    return session.get("who") or i18n.translate("en", "scorekeeper")


def ensure_game(game_id: int, name: str) -> dict[str, Any]:
    """The snapshot of ``game_id``; 404 unless it is a game of kind ``name``."""
    snap = get_table().snapshot(game_id)
    if snap["game"] != name:
        abort(404)
    return snap


@bp.post("/games/<int:game_id>/activate")
@scorekeeper_required
def activate(game_id: int) -> Any:
    """Make the game the table's active one (resume it)."""
    get_table().activate(game_id)
    return redirect(url_for("games.game_page", game_id=game_id))


@bp.post("/games/<int:game_id>/archive")
@scorekeeper_required
def archive(game_id: int) -> Any:
    """Put the game away (end it at the table); it stays readable, exportable, resumable."""
    get_table().archive(game_id)
    return redirect(url_for("games.game_page", game_id=game_id))


@bp.post("/games/<int:game_id>/remove")
def remove(game_id: int) -> Any:
    """Take a junk game off the list: for its own scorekeeper or the table's scorekeeper.

    Its log stays stored (``companion export`` still writes it); only the list forgets it.
    """
    table = get_table()
    active = table.active_game_id()
    if not (is_unlocked(game_id) or (active is not None and is_unlocked(active))):
        if not table.has_game(game_id):
            abort(404)
        abort(403, description="pin_required")
    table.hide(game_id)
    if wants_json():
        return jsonify(removed=game_id)
    return redirect(url_for("games.index"))


def _action_from_request() -> dict[str, Any]:
    if request.is_json:
        data = read_json(request.get_data(as_text=True), "the action is ")
    else:
        raw = request.form.get("action", "")
        data = read_json(raw, "the action is ") if raw else None
    if not isinstance(data, dict):
        raise i18n.refuse("error_action_shape")
    data = {k: v for k, v in data.items() if k != "csrf_token"}
    return data


def respond_with(game_id: int, snap: dict[str, Any]) -> Any:
    """The answer to a recorded action: the new snapshot as JSON, or back to the game's page."""
    if wants_json():
        return jsonify(snapshot=snap, unlocked=True)
    return redirect(url_for("games.game_page", game_id=game_id))


@bp.post("/games/<int:game_id>/actions")
@scorekeeper_required
def submit(game_id: int) -> Any:
    """Record one action (the engine's action dict, as JSON); the engine decides if it is legal."""
    action = _action_from_request()
    if action.get("action") == "undo":
        # Undo has its own route and meaning in the log; keep the two doors apart.
        raise i18n.refuse("error_undo_route")
    return respond_with(game_id, get_table().submit(game_id, action, who()))


@bp.post("/games/<int:game_id>/undo")
@scorekeeper_required
def undo(game_id: int) -> Any:
    """Cancel the latest action not yet undone."""
    return respond_with(game_id, get_table().undo(game_id, who()))


@bp.post("/games/<int:game_id>/reopen")
def reopen(game_id: int) -> Any:
    """Take back the entry that ended a finished game, with the game's PIN in the form.

    For the scorekeeper who locked or left before noticing the mis-tap: a finished game
    offers no unlocking, so the PIN goes with this one request. The undo is an entry
    like any other; the game runs again and this browser keeps it unlocked.
    """
    table = get_table()
    if not table.has_game(game_id):
        abort(404)  # before counting: made-up ids must not fill the throttle's memory
    name = who_from_form()
    refused = pin_refusal(game_id)
    if refused is not None:
        return refused
    try:
        snap = table.reopen(game_id, name or who())
    except TableError as exc:
        return error_response(409, i18n.refusal(exc))
    grant(game_id, name)
    return respond_with(game_id, snap)


@bp.post("/games/<int:game_id>/correct/<int:version>")
@scorekeeper_required
def correct(game_id: int, version: int) -> Any:
    """Replace the action stored at ``version``; refused if the later log becomes illegal."""
    snap = get_table().correct(game_id, version, _action_from_request(), who())
    return respond_with(game_id, snap)
