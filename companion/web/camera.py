"""The last camera picture with what the recogniser read, when a camera is in use; the
scorekeeper's tray calibration (the raw frame, four corners to tap, save); and enrolling
the table's Rock the Bock dice (a face, three pictures, enrolled)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, jsonify, render_template, request

from companion.web import error_response, get_table
from companion.web.security import is_unlocked

bp = Blueprint("camera", __name__)


@bp.get("/camera")
def camera_page() -> str:
    """The page that shows the latest picture and its reading (and updates live)."""
    latest = get_table().latest_picture()
    return render_template(
        "camera.html", reading=latest[1] if latest else None, can_calibrate=_can_calibrate()
    )


def _can_calibrate() -> bool:
    """Whether this browser may calibrate the tray (the scorekeeper, with a camera)."""
    game_id = get_table().active_game_id()
    return (
        game_id is not None and is_unlocked(game_id) and get_table().tray_setup() is not None
    )


@bp.get("/camera/latest.jpg")
def latest_jpeg() -> Response:
    """The latest picture as JPEG; 404 when no camera has sent one."""
    latest = get_table().latest_picture()
    if latest is None:
        return Response("no camera picture yet\n", status=404, mimetype="text/plain")
    return Response(latest[0], mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/camera/latest.json")
def latest_reading() -> Response:
    """What was read from the latest picture (dice, boxes, confidence) for the overlay."""
    latest = get_table().latest_picture()
    return jsonify(reading=latest[1] if latest else None)


# -- tray calibration (scorekeeper only) ----------------------------------------------


def _keeper_tray_setup() -> Any:
    """The companion's tray setup, for the scorekeeper of the game at the table only.

    403 unless this browser entered the active game's PIN; 404 when no camera runs.
    """
    game_id = get_table().active_game_id()
    if game_id is None:
        abort(403, description="tray_no_game")
    if not is_unlocked(game_id):
        abort(403, description="pin_required")
    setup = get_table().tray_setup()
    if setup is None:
        abort(404, description="tray_no_camera")
    return setup


@bp.get("/camera/tray")
def tray_page() -> str:
    """The page where the scorekeeper checks the tray outline and moves its corners."""
    _keeper_tray_setup()
    return render_template("camera_tray.html")


@bp.get("/camera/tray/frame.jpg")
def tray_frame() -> Response:
    """The camera's latest raw frame (not the annotated picture) as JPEG."""
    jpeg = _keeper_tray_setup().frame_jpeg()
    if jpeg is None:
        abort(409, description="tray_no_frame")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/camera/tray.json")
def tray_proposal() -> Response:
    """The outline to start from: found in the latest frame, else the saved one."""
    setup = _keeper_tray_setup()
    if not setup.has_frame():
        abort(409, description="tray_no_frame")
    return jsonify(setup.proposal())


@bp.post("/camera/tray")
def tray_save():
    """Save the four corners: a new profile from the latest frame, used at once."""
    setup = _keeper_tray_setup()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or "corners" not in body:
        return error_response(400, 'send JSON like {"corners": [[x, y], [x, y], [x, y], [x, y]]}')
    if not setup.has_frame():
        abort(409, description="tray_no_frame")
    # A bad corner list raises a ValueError saying what is wrong: 400, nothing saved.
    return jsonify(setup.save(body["corners"]))


# -- enrolling the dice set (scorekeeper only) ----------------------------------------


@bp.get("/camera/faces")
def faces_page() -> str:
    """The page where the scorekeeper enrols the table's Rock the Bock dice, face by face."""
    _keeper_tray_setup()
    return render_template("camera_faces.html")


@bp.get("/camera/faces.json")
def faces_status() -> Response:
    """Which faces are enrolled (from how many dice) and how many pictures of each are
    taken so far."""
    return jsonify(_keeper_tray_setup().faces.status())


@bp.post("/camera/faces")
def faces_capture():
    """Take the latest frame as a picture of one face; the last picture enrols it."""
    setup = _keeper_tray_setup()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or "face" not in body:
        return error_response(400, 'send JSON like {"face": "wolf"}')
    if not setup.has_frame():
        abort(409, description="tray_no_frame")
    # A bad face, a frame without dice or pictures that disagree raise a ValueError
    # saying what is wrong: 400, nothing counted or written.
    return jsonify(setup.faces.capture(body["face"]))


@bp.post("/camera/faces/again")
def faces_start_again():
    """Drop the pictures of one face taken so far: it starts from its first again."""
    setup = _keeper_tray_setup()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or "face" not in body:
        return error_response(400, 'send JSON like {"face": "wolf"}')
    return jsonify(setup.faces.start_again(body["face"]))
