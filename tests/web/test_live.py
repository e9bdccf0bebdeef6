"""Server-Sent Events: framing, catch-up on reconnect, heartbeat, freeing the stream."""

from __future__ import annotations

import json
import threading
import time

from conftest import PIN, SCHOCKEN_SETUP, TEST_CONFIG, WACKEN_SETUP

from companion.web import create_app
from companion.web.live import StreamSlots, sse_frame

ABROCKEN = {"action": "abrocken", "band": "Slayer", "songs_on_stage": 2, "initiator": "Ozzy",
            "participants": [{"player": "Ozzy", "beers": 2, "cards": 1, "songs": 0},
                             {"player": "Lemmy", "beers": 1, "cards": 2, "songs": 1}]}


def frames(response):
    """Yield the SSE messages (blank-line separated) of a streamed test response."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            yield frame


def next_message(stream, seconds: float = 5.0) -> str:
    """The next non-comment message; fails instead of hanging (heartbeats keep it ticking)."""
    deadline = time.monotonic() + seconds
    for frame in stream:
        if not frame.startswith(":"):
            return frame
        assert time.monotonic() < deadline, "no message arrived in time"
    raise AssertionError("the stream ended")


def parse(frame: str) -> dict[str, str]:
    fields = {}
    for line in frame.split("\n"):
        key, _, value = line.partition(": ")
        fields[key] = value
    return fields


def test_sse_frame_is_one_message_with_id_and_one_data_line():
    text = sse_frame({"game_id": 3, "version": 7, "kind": "action"}, event_id="3:7")
    assert text == 'id: 3:7\ndata: {"game_id":3,"version":7,"kind":"action"}\n\n'
    multi = sse_frame({"text": "two\nlines"})
    assert multi.count("\n") == 2 and multi.endswith("\n\n")  # newline stays escaped in JSON


def test_stream_sends_catch_up_then_every_change_of_its_game(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    other = table.create_game("wacken", WACKEN_SETUP, PIN)
    response = client.get(f"/events?game={game}", buffered=False)
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    stream = frames(response)
    assert next(stream) == "retry: 1000"
    first = parse(next(stream))
    assert first["id"] == f"{game}:0"
    assert json.loads(first["data"])["kind"] == "resync"

    errors: list[BaseException] = []

    def play() -> None:
        try:
            time.sleep(0.1)
            table.submit(other, ABROCKEN, "Kim")  # another game: not on this stream
            table.submit(game, ABROCKEN, "Kim")
        except BaseException as exc:  # reported below instead of dying silently
            errors.append(exc)

    threading.Thread(target=play, daemon=True).start()
    fields = parse(next_message(stream))
    assert not errors
    assert fields["id"] == f"{game}:1"
    assert json.loads(fields["data"]) == {"game_id": game, "version": 1, "kind": "action"}
    response.close()
    assert table.subscriber_count == 0


def test_reconnect_with_current_last_event_id_sends_no_catch_up(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    table.submit(game, ABROCKEN, "Kim")
    response = client.get(f"/events?game={game}", headers={"Last-Event-ID": f"{game}:1"},
                          buffered=False)
    stream = frames(response)
    assert next(stream) == "retry: 1000"
    assert next(stream) == ": connected"
    response.close()
    behind = client.get(f"/events?game={game}", headers={"Last-Event-ID": f"{game}:0"},
                        buffered=False)
    stream = frames(behind)
    next(stream)
    caught_up = parse(next(stream))
    assert caught_up["id"] == f"{game}:1"  # the page missed version 1 and fetches it now
    behind.close()


def test_heartbeat_comment_when_nothing_happens(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    response = client.get(f"/events?game={game}", buffered=False)
    stream = frames(response)
    next(stream), next(stream)
    started = time.monotonic()
    assert next(stream) == ": heartbeat"
    assert 0.2 < time.monotonic() - started < 2.0  # SSE_HEARTBEAT_SECONDS is 0.3 here
    response.close()


def test_a_client_that_went_away_frees_its_stream(table, settings):
    gone = threading.Event()
    app = create_app(table, settings, dict(TEST_CONFIG, SSE_MAX_STREAMS=1))
    client = app.test_client()
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    environ = {"waitress.client_disconnected": gone.is_set}
    response = client.get(f"/events?game={game}", buffered=False, environ_overrides=environ)
    stream = frames(response)
    next(stream), next(stream)
    # The only slot is taken: a second page is told to come back later (it polls meanwhile).
    refused = client.get(f"/events?game={game}")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    gone.set()
    assert list(stream) == []  # the generator notices within one poll and ends
    assert table.subscriber_count == 0
    assert app.extensions["sse_slots"].open == 0
    again = client.get(f"/events?game={game}", buffered=False)
    assert again.status_code == 200
    again.close()


def test_stream_slots_count_and_refuse_beyond_the_limit():
    slots = StreamSlots(2)
    assert slots.take() and slots.take()
    assert not slots.take()
    slots.give_back()
    assert slots.open == 1 and slots.take()


def test_stream_for_an_unknown_game_is_404(client):
    assert client.get("/events?game=42").status_code == 404


def test_snapshot_json_says_whether_this_browser_may_change_the_game(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    data = client.get(f"/games/{game}/snapshot.json").get_json()
    assert data["unlocked"] is False
    assert data["snapshot"]["view"]["tally"][0] == {"name": "Ozzy", "wristbands": 0}
    listing = client.get("/games.json").get_json()
    assert listing["active"] == game and listing["games"][0]["id"] == game


def test_stream_ends_when_the_table_closes_its_subscriptions(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    response = client.get(f"/events?game={game}", buffered=False)
    stream = frames(response)
    next(stream), next(stream)
    table.close()
    assert list(stream) == []


def test_picture_notices_reach_game_pages_without_moving_the_resume_point(client, table):
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)  # the active game
    response = client.get(f"/events?game={game}", headers={"Last-Event-ID": f"{game}:0"},
                          buffered=False)
    stream = frames(response)
    next(stream), next(stream)
    table.publish_picture(b"\xff\xd8\xff\xd9", {"kind": "pips", "dice": []})
    fields = parse(next_message(stream))
    assert "id" not in fields
    assert json.loads(fields["data"])["kind"] == "picture"
    response.close()


def test_streams_end_after_their_lifetime_so_vanished_phones_cannot_hold_threads(table, settings):
    app = create_app(table, settings, dict(TEST_CONFIG, SSE_MAX_STREAM_SECONDS=0.3))
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    response = app.test_client().get(f"/events?game={game}", buffered=False)
    started = time.monotonic()
    rest = list(frames(response))  # ends by itself
    assert rest[0] == "retry: 1000"
    assert time.monotonic() - started < 3
    assert table.subscriber_count == 0 and app.extensions["sse_slots"].open == 0
