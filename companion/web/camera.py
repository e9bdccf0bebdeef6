"""The last camera picture with what the recogniser read, when a camera is in use."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template

from companion.web import get_table

bp = Blueprint("camera", __name__)


@bp.get("/camera")
def camera_page() -> str:
    """The page that shows the latest picture and its reading (and updates live)."""
    latest = get_table().latest_picture()
    return render_template("camera.html", reading=latest[1] if latest else None)


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
