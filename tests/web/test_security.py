"""PIN, CSRF, the secret key, and "a bad request changes nothing"."""

from __future__ import annotations

import pytest
from conftest import PIN, SCHOCKEN_SETUP, TEST_CONFIG, csrf, post, unlock

from companion.web import create_app
from companion.web.security import PinThrottle, secret_key

THROW = {"action": "throw", "player": "Anna", "throws": 1, "dice": [1, 1, 4], "hand": True}


@pytest.fixture
def game(table) -> int:
    return table.create_game("schocken", SCHOCKEN_SETUP, PIN)


def test_secret_key_is_generated_once_and_kept_in_the_data_dir(tmp_path):
    first = secret_key(None, tmp_path)
    assert len(first) == 64 and first != "dev"
    assert secret_key(None, tmp_path) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
    assert secret_key("configured-key", tmp_path) == "configured-key"


def test_two_apps_over_one_data_dir_share_the_key(table, settings):
    a = create_app(table, settings, TEST_CONFIG)
    b = create_app(table, settings, TEST_CONFIG)
    assert a.secret_key == b.secret_key
    assert a.secret_key == (settings.data_dir / "secret_key").read_text()


def test_guest_without_pin_cannot_change_anything(client, table, game):
    response = post(client, f"/games/{game}/actions", json=THROW)
    assert response.status_code == 403
    assert "PIN" in response.get_json()["error"]
    for url in (f"/games/{game}/undo", f"/games/{game}/archive",
                f"/games/{game}/schocken/throw", f"/games/{game}/correct/1"):
        assert post(client, url, data={"d1": "1"}).status_code == 403, url
    assert table.snapshot(game)["version"] == 0
    assert table.active_game_id() == game


def test_post_without_or_with_a_wrong_csrf_token_is_refused(client, table, game):
    unlock(client, game)
    no_token = client.post(f"/games/{game}/actions", json=THROW,
                           headers={"Accept": "application/json"})
    assert no_token.status_code == 400
    assert "Sicherheitsprüfung" in no_token.get_json()["error"]
    wrong = client.post(f"/games/{game}/actions", json=THROW,
                        headers={"X-CSRF-Token": "forged", "Accept": "application/json"})
    assert wrong.status_code == 400
    assert table.snapshot(game)["version"] == 0


def test_unlock_without_csrf_token_is_refused(client, game):
    response = client.post(f"/games/{game}/unlock", data={"pin": PIN})
    assert response.status_code == 400
    assert post(client, f"/games/{game}/actions", json=THROW).status_code == 403


def test_wrong_pin_is_refused_and_right_pin_unlocks(client, table, game):
    wrong = client.post(f"/games/{game}/unlock", data={"pin": "0000", "csrf_token": csrf(client)},
                        headers={"Accept": "application/json"})
    assert wrong.status_code == 403
    assert "Falsche PIN" in wrong.get_json()["error"]
    unlock(client, game)
    response = post(client, f"/games/{game}/actions", json=THROW)
    assert response.status_code == 200
    snap = response.get_json()["snapshot"]
    assert snap["version"] == 1
    assert snap["history"][0]["who"] == "Kim"  # the name given at unlock


def test_pin_of_one_game_does_not_unlock_another(client, table, game):
    other = table.create_game("schocken", SCHOCKEN_SETUP, "9999")
    unlock(client, game)
    assert post(client, f"/games/{other}/actions", json=THROW).status_code == 403
    assert table.snapshot(other)["version"] == 0


def test_lock_gives_the_rights_back(client, table, game):
    unlock(client, game)
    client.post(f"/games/{game}/lock", data={"csrf_token": csrf(client)})
    assert post(client, f"/games/{game}/actions", json=THROW).status_code == 403


def test_pin_guessing_is_slowed_down(client, game):
    for _ in range(5):
        client.post(f"/games/{game}/unlock", data={"pin": "1234", "csrf_token": csrf(client)})
    blocked = client.post(f"/games/{game}/unlock", data={"pin": PIN, "csrf_token": csrf(client)},
                          headers={"Accept": "application/json"})
    assert blocked.status_code == 429
    assert "Warte" in blocked.get_json()["error"]


def test_throttle_lets_a_client_try_again_after_the_lockout():
    now = [0.0]
    throttle = PinThrottle(free_tries=2, lockout_seconds=30, clock=lambda: now[0],
                           game_free_tries=100)
    assert throttle.begin(1, "a") == 0
    assert throttle.begin(1, "a") == 0
    assert throttle.begin(1, "a") == 30
    assert throttle.begin(1, "b") == 0  # other phones are not punished
    now[0] = 31.0
    assert throttle.begin(1, "a") == 0
    assert throttle.begin(1, "a") == 60  # each further wrong try doubles the wait
    now[0] = 200.0
    assert throttle.begin(1, "a") == 0
    throttle.succeeded(1, "a")
    assert throttle.begin(1, "a") == 0


@pytest.mark.parametrize(
    "action, status, words",
    [
        ({"action": "throw", "player": "Ben", "throws": 1, "dice": [1, 1, 4]}, 409, "Anna"),
        # A malformed action (only scripts send raw JSON) is worded by the engine in
        # English; German pages say in German that nothing fits (no English words).
        ({"action": "throw", "player": "Anna", "throws": 1, "dice": [1, 1, 7]}, 400,
         "nichts wurde gespeichert"),
        ({"action": "juggle"}, 400, "nichts wurde gespeichert"),
        ({"action": "undo"}, 400, "Rückgängig"),
        (["not", "an", "object"], 400, "JSON-Objekt"),
    ],
)
def test_bad_actions_get_a_clear_4xx_and_change_nothing(client, table, game, action, status,
                                                        words):
    unlock(client, game)
    response = post(client, f"/games/{game}/actions", json=action)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert table.snapshot(game)["version"] == 0


def test_bad_request_as_a_form_gets_a_readable_page(client, table, game):
    unlock(client, game)
    response = client.post(f"/games/{game}/schocken/throw",
                           data={"d1": "9", "d2": "1", "d3": "1", "throws": "1",
                                 "csrf_token": csrf(client)})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "<html" in page and "Würfel: bitte eine Zahl von 1 bis 6" in page
    assert table.snapshot(game)["version"] == 0


def test_undo_and_correct_need_pin_and_work_with_it(client, table, game):
    unlock(client, game)
    post(client, f"/games/{game}/actions", json=THROW)
    fixed = dict(THROW, dice=[1, 1, 6])
    snap = post(client, f"/games/{game}/correct/1", json=fixed).get_json()["snapshot"]
    assert snap["view"]["throws"][0]["dice"] == [6, 1, 1]
    snap = post(client, f"/games/{game}/undo").get_json()["snapshot"]
    assert snap["version"] == 3
    assert snap["view"]["throws"] == []
    assert [e["kind"] for e in snap["history"]] == ["action", "correct", "undo"]


def test_unknown_game_is_404_with_a_message(client):
    response = client.get("/games/99/snapshot.json")
    assert response.status_code == 404
    assert "99" in response.get_json()["error"]
