"""Live updates: Server-Sent Events at ``/events`` and JSON snapshots for the pages.

A page listens to ``/events?game=<id>``; every change the Table publishes
(``{"game_id", "version", "kind"}``) goes out at once as one SSE message whose ``id:``
is ``<game_id>:<version>``. The page then fetches ``/games/<id>/snapshot.json`` and redraws.
On reconnect the browser sends ``Last-Event-ID``; when the game moved on meanwhile the
stream starts with a catch-up message, so the page resumes without a reload.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, request

from companion.games.errors import ParseError
from companion.games.parsing import whole_number
from companion.web import get_table
from companion.web.security import is_unlocked

bp = Blueprint("live", __name__)


def sse_frame(data: dict, event_id: str | None = None, event: str | None = None) -> str:
    """One SSE message: optional ``id:``/``event:`` lines, one ``data:`` line, blank line."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if event is not None:
        lines.append(f"event: {event}")
    # json.dumps never emits a raw newline, so one data line holds the whole message.
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


class StreamSlots:
    """Counts open event streams so they cannot take every server thread.

    Each stream holds a thread, so one device opening many would leave the rest of the
    table polling: a client address gets at most ``per_client`` of them.
    """

    def __init__(self, limit: int, per_client: int = 4) -> None:
        self.limit = limit
        self.per_client = per_client
        self._open = 0
        self._by_client: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, client: str = "") -> bool:
        """Reserve a slot for ``client``; False when all (or its share) are in use."""
        with self._lock:
            if self._open >= self.limit or self._by_client.get(client, 0) >= self.per_client:
                return False
            self._open += 1
            self._by_client[client] = self._by_client.get(client, 0) + 1
            return True

    def give_back(self, client: str = "") -> None:
        """Release a slot taken with :meth:`take`."""
        with self._lock:
            self._open -= 1
            left = self._by_client.get(client, 1) - 1
            if left > 0:
                self._by_client[client] = left
            else:
                self._by_client.pop(client, None)

    @property
    def open(self) -> int:
        """How many streams are open now."""
        with self._lock:
            return self._open


def init_app(app: Flask) -> None:
    """Create the stream counter from the app's config."""
    app.extensions["sse_slots"] = StreamSlots(int(app.config["SSE_MAX_STREAMS"]),
                                              int(app.config["SSE_STREAMS_PER_CLIENT"]))


@bp.get("/events")
def events() -> Response:
    """The event stream; ``?game=<id>`` limits it to one game (plus camera pictures)."""
    table = get_table()
    raw_game = request.args.get("game")
    game_id = None
    if raw_game is not None:
        try:
            game_id = whole_number(raw_game, "game", 1, 2**63 - 1)
        except ParseError:
            abort(404)
    resume_from = request.headers.get("Last-Event-ID") or request.args.get("last")
    current = None
    if game_id is not None:
        current = table.snapshot(game_id)["version"]  # also a 404 for an unknown game
    slots: StreamSlots = current_app.extensions["sse_slots"]
    client = request.remote_addr or "?"
    if not slots.take(client):
        # The page falls back to fetching snapshots every few seconds.
        return Response("too many live pages open\n", status=503,
                        headers={"Retry-After": "10"}, mimetype="text/plain")
    poll = float(current_app.config["SSE_POLL_SECONDS"])
    heartbeat = float(current_app.config["SSE_HEARTBEAT_SECONDS"])
    lifetime = float(current_app.config["SSE_MAX_STREAM_SECONDS"])
    # With channel_request_lookahead waitress tells us when the phone went away, so
    # the thread is freed within one poll instead of at the next failed write.
    disconnected = request.environ.get("waitress.client_disconnected", lambda: False)
    subscription = table.subscribe()
    closed = threading.Event()

    def cleanup() -> None:
        if not closed.is_set():
            closed.set()
            subscription.close()
            slots.give_back(client)

    def stream() -> Iterator[str]:
        try:
            yield "retry: 1000\n\n"
            if game_id is not None and resume_from != f"{game_id}:{current}":
                yield sse_frame({"game_id": game_id, "version": current, "kind": "resync"},
                                event_id=f"{game_id}:{current}")
            else:
                yield ": connected\n\n"
            last_write = opened = time.monotonic()
            while not closed.is_set():
                if disconnected() or time.monotonic() - opened >= lifetime:
                    return
                notice = subscription.get(poll)
                if notice is None and getattr(subscription, "closed", False):
                    return  # the Table shut down: end the stream, the browser reconnects
                if notice is None:
                    if time.monotonic() - last_write >= heartbeat:
                        yield ": heartbeat\n\n"
                        last_write = time.monotonic()
                    continue
                notice_game = notice.get("game_id")
                if game_id is not None and notice_game not in (game_id, None):
                    continue
                # Only game versions become the resume point; a picture's counter is not one.
                event_id = (f"{notice_game}:{notice.get('version')}"
                            if notice_game is not None and "version" in notice
                            and notice.get("kind") != "picture"
                            else None)
                yield sse_frame(notice, event_id=event_id)
                last_write = time.monotonic()
        finally:
            cleanup()

    response = Response(stream(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # a reverse proxy must not buffer the stream
    response.call_on_close(cleanup)
    return response


@bp.get("/games/<int:game_id>/snapshot.json")
def snapshot(game_id: int) -> Response:
    """The game as the Table sees it, plus whether this browser may change it."""
    snap = get_table().snapshot(game_id)
    return jsonify(snapshot=snap, unlocked=is_unlocked(game_id))


@bp.get("/games.json")
def games_json() -> Response:
    """Every stored game, newest first, and which one is active."""
    table = get_table()
    return jsonify(games=table.list_games(), active=table.active_game_id())
