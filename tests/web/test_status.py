"""The status page shows the running companion's checks; re-measuring is the scorekeeper's."""

from tests.web.conftest import PIN, csrf, unlock


def test_status_page_lists_the_checks_with_their_fix(client, table):
    table.provide_status(lambda: [
        {"name": "camera", "level": "fail", "detail": "usb:0 is not delivering frames",
         "fix": "check the cable"},
        {"name": "models", "level": "ok", "detail": "pipspot.onnx", "fix": ""},
    ])
    page = client.get("/status").get_data(as_text=True)
    assert "usb:0 is not delivering frames" in page and "check the cable" in page
    data = client.get("/status.json").get_json()
    assert data["ok"] is False and [c["name"] for c in data["checks"]] == ["camera", "models"]


def test_status_without_a_running_companion_says_so(client):
    assert client.get("/status.json").get_json() == {"checks": [], "ok": True}
    assert client.get("/status").status_code == 200


def test_remeasure_needs_the_running_games_scorekeeper(client, table):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"},
                             pin=PIN)
    table.activate(game)
    token = csrf(client)
    assert client.post("/status/remeasure", data={"csrf_token": token}).status_code == 403
    assert table.take_remeasure() is False
    unlock(client, game)
    answer = client.post("/status/remeasure", data={"csrf_token": csrf(client)})
    assert answer.status_code == 303
    assert table.take_remeasure() is True and table.take_remeasure() is False


def test_remeasure_without_the_csrf_token_is_refused(client, table):
    assert client.post("/status/remeasure").status_code == 400
    assert table.take_remeasure() is False
