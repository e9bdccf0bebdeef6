"""A guest at the next table cannot freeze, flood or fool the dashboard (issue 11)."""

from __future__ import annotations

import csv
import http.client
import io
import threading
import time

import pytest
from conftest import PIN, SCHOCKEN_SETUP, TEST_CONFIG, WACKEN_SETUP, csrf, post, unlock

from companion.config import Settings
from companion.web import create_app
from companion.web.security import PinThrottle, secret_key

THROW = {"action": "throw", "player": "Anna", "throws": 1, "dice": [1, 1, 4], "hand": True}
HUGE_ID = str(2**63)


@pytest.fixture
def game(table) -> int:
    return table.create_game("schocken", SCHOCKEN_SETUP, PIN)


def new_game(client, **fields):
    data = {"game": "schocken", "name_0": "A", "name_1": "B", "pin": PIN, "pin2": PIN,
            "csrf_token": csrf(client), **fields}
    return client.post("/games/new", data=data)


# -- item 1: a number from a form cannot freeze the server -----------------------------------

@pytest.mark.parametrize("amount", ["1e999999999", "1e1000000", "1e5000", "٣", "1_0", "+3"])
def test_a_huge_or_odd_tab_amount_in_the_form_is_a_quick_400(client, table, amount):
    started = time.monotonic()
    response = new_game(client, rule_tab_amount=amount)
    assert time.monotonic() - started < 1.0
    assert response.status_code == 400
    assert "tab_amount" in response.get_data(as_text=True)
    assert table.list_games() == []


@pytest.mark.parametrize("value", ["٣", "1_0", "+3", "3.0", "9" * 5000])
def test_throw_form_numbers_take_plain_digits_only(client, table, game, value):
    unlock(client, game)
    response = post(client, f"/games/{game}/schocken/throw",
                    data={"d1": value, "d2": "1", "d3": "1", "throws": "1"})
    assert response.status_code == 400
    assert table.snapshot(game)["version"] == 0


# -- item 2: the PIN throttle holds against parallel guesses and many addresses -------------

def test_parallel_guesses_from_one_client_are_counted_before_the_check(server, monkeypatch):
    game = server.table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    checked = []
    verify = server.table.verify_pin

    def counting(game_id, pin):
        checked.append(pin)
        time.sleep(0.05)  # a slow hash: every guess in flight at once
        return verify(game_id, pin)

    monkeypatch.setattr(server.table, "verify_pin", counting)
    # A session (cookie and CSRF token) from the page, as a browser would have one.
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", f"/games/{game}")
    page = conn.getresponse()
    cookie = page.getheader("Set-Cookie").split(";")[0]
    token = page.read().decode().split('"csrf": "')[1].split('"')[0]
    conn.close()
    statuses = []

    def guess(n: int) -> None:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            c.request("POST", f"/games/{game}/unlock", body=f"pin={1000 + n}",
                      headers={"Cookie": cookie, "X-CSRF-Token": token,
                               "Content-Type": "application/x-www-form-urlencoded",
                               "Accept": "application/json"})
            statuses.append(c.getresponse().status)
        except (ConnectionError, http.client.HTTPException):
            statuses.append("closed")  # beyond the per-address connection cap
        finally:
            c.close()

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(36)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(checked) == 5, "only the free tries may reach the PIN check"
    assert statuses.count(403) == 5
    assert len(statuses) == 36 and set(statuses) <= {403, 429, "closed"}


def _guest(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_guesses_from_many_addresses_lock_the_game_but_not_its_scorekeeper(app, table, game):
    keeper = _guest(app, "192.168.1.10")
    unlock(keeper, game)  # the scorekeeper's own phone, earlier this evening
    keeper.post(f"/games/{game}/lock", data={"csrf_token": csrf(keeper)})
    statuses = []
    for n in range(20):
        guest = _guest(app, f"192.168.1.{100 + n}")
        statuses.append(guest.post(f"/games/{game}/unlock",
                                   data={"pin": "0000", "csrf_token": csrf(guest)}).status_code)
    assert statuses == [403] * 10 + [429] * 10  # the game's own budget is spent
    # A new phone with the right PIN waits too (no one can tell it from a guesser)...
    newcomer = _guest(app, "192.168.1.50")
    assert newcomer.post(f"/games/{game}/unlock",
                         data={"pin": PIN, "csrf_token": csrf(newcomer)}).status_code == 429
    # ...but the phone that was the scorekeeper's gets in at once, even behind the same
    # shared address as a guesser.
    behind_nat = _guest(app, "192.168.1.100")
    with keeper.session_transaction() as s:
        cookie = dict(s)
    with behind_nat.session_transaction() as s:
        s.update(cookie)
    unlock(behind_nat, game)
    assert post(behind_nat, f"/games/{game}/actions", json=THROW).status_code == 200


def test_a_right_pin_clears_the_game_count():
    throttle = PinThrottle(free_tries=5, game_free_tries=3, clock=lambda: 0.0)
    for client in ("a", "b", "c"):
        assert throttle.begin(7, client) == 0
    assert throttle.begin(7, "d") > 0
    throttle.succeeded(7, "c")
    assert throttle.begin(7, "d") == 0


# -- item 3: the CSV download neutralises formulas ---------------------------------------------

def test_csv_download_neutralises_formula_cells(client, table):
    game = table.create_game("wacken", {"players": ["=1+1", "@A1", "Doro"]}, PIN)
    text = client.get(f"/games/{game}/export.csv").get_data(as_text=True)
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'=1+1" in cells and "'@A1" in cells
    assert not [c for c in cells if c[:1] in ("=", "+", "@")]


# -- item 5: who may start games, how many, with what names; removing a junk game -------------

def test_starting_games_is_rate_limited(app, table):
    client = app.test_client()
    app.extensions["game_creation_limit"]._tokens = 2
    assert new_game(client).status_code == 302
    first = table.active_game_id()
    # The scorekeeper starts the next one and brings it to the table (asked on the form).
    assert new_game(client, activate="1").status_code == 302
    limited = new_game(client, activate="1")
    assert limited.status_code == 429
    assert len(table.list_games()) == 2
    assert table.active_game_id() != first


def test_admin_pin_lets_its_holder_start_a_game(table, settings):
    app = create_app(table, Settings(data_dir=settings.data_dir, admin_pin="24680"),
                     TEST_CONFIG)
    running = table.create_game("wacken", WACKEN_SETUP, PIN)
    guest = app.test_client()
    assert b"admin_pin" in guest.get("/games/new").data
    assert new_game(guest).status_code == 403
    assert new_game(guest, admin_pin="11111").status_code == 403
    assert new_game(guest, admin_pin="24680").status_code == 302
    assert table.active_game_id() == running  # not asked to push it aside: it stays
    assert new_game(guest, admin_pin="24680", activate="1").status_code == 302
    assert table.active_game_id() != running
    # With an admin PIN set, an empty table is not first come, first served either.
    table.archive(table.active_game_id())
    assert new_game(app.test_client()).status_code == 403


@pytest.mark.parametrize("name, words", [
    ("x" * 1_500_000, "zu groß"),
    ("x" * 31, "höchstens 30"),
    ("Anna\u202e", "Schreibrichtungszeichen"),
    ("Ben\u2066x", "Schreibrichtungszeichen"),
    ("Cem\x07", "Steuer"),
])
def test_player_names_are_limited_server_side(client, table, name, words):
    response = new_game(client, name_0=name)
    assert response.status_code in (400, 413)
    if response.status_code == 400:
        page = response.get_data(as_text=True)
        assert words in page
        assert len(page) < 50_000  # the form comes back without the 1.5 MB
    assert table.list_games() == []


def test_band_names_and_who_are_limited(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    unlock(client, game)
    bad = client.post(f"/games/{game}/unlock", data={"pin": PIN, "who": "Kim\u202e",
                                                     "csrf_token": csrf(client)})
    assert bad.status_code == 400
    action = {"action": "abrocken", "band": "x" * 100_000, "initiator": "Ozzy",
              "members": ["Ozzy", "Lemmy"]}
    assert post(client, f"/games/{game}/actions", json=action).status_code == 400
    assert table.snapshot(game)["version"] == 0


def test_the_table_scorekeeper_removes_a_junk_game(app, table, game):
    junk = table.create_game("schocken", {"players": ["spam", "eggs"]}, "9999", activate=False)
    guest = app.test_client()
    assert post(guest, f"/games/{junk}/remove").status_code == 403
    keeper = app.test_client()
    unlock(keeper, game)
    assert "remove-game" in keeper.get("/").get_data(as_text=True)
    assert post(keeper, f"/games/{junk}/remove").status_code == 200
    assert [g["id"] for g in table.list_games()] == [game]
    assert f"/games/{junk}" not in keeper.get("/").get_data(as_text=True)
    # Nothing is lost: the log is still there for an export.
    assert table.export_log(junk).startswith("{")
    assert [g["id"] for g in table.list_games(include_removed=True)] == [game, junk]


# -- item 6: huge ids and deep nesting are 4xx ---------------------------------------------------

GET_ROUTES = ["/games/{id}", "/games/{id}/table", "/games/{id}/history",
              "/games/{id}/snapshot.json", "/games/{id}/export.csv", "/games/{id}/export.jsonl",
              "/events?game={id}"]
POST_ROUTES = ["/games/{id}/unlock", "/games/{id}/lock", "/games/{id}/activate",
               "/games/{id}/archive", "/games/{id}/remove", "/games/{id}/actions",
               "/games/{id}/undo", "/games/{id}/correct/1", "/games/{id}/schocken/throw",
               "/games/{id}/rockthebock/roll", "/games/{id}/wacken/end"]


@pytest.mark.parametrize("game_id", [HUGE_ID, "99999999999999999999999"])
def test_game_ids_beyond_64_bits_are_404(client, game_id):
    for route in GET_ROUTES:
        assert client.get(route.format(id=game_id)).status_code == 404, route
    for route in POST_ROUTES:
        response = post(client, route.format(id=game_id), data={"pin": PIN})
        assert response.status_code in ((200, 404) if "lock" in route else (403, 404)), route


@pytest.mark.parametrize("body", ["[" * 100_000, '{"a":' * 50_000, "[" * 1000 + "]" * 1000,
                                  '{"action": "throw", "dice": [' + "1" * 5000 + "]}"])
def test_deeply_nested_or_huge_json_actions_are_400(client, table, game, body):
    unlock(client, game)
    for route in (f"/games/{game}/actions", f"/games/{game}/correct/1"):
        response = post(client, route, data=body, content_type="application/json")
        assert response.status_code == 400, route
        assert response.get_json()["error"]
    form = post(client, f"/games/{game}/actions", data={"action": body})
    assert form.status_code == 400
    assert table.snapshot(game)["version"] == 0


# -- item 8: an empty or corrupt secret key is replaced -------------------------------------------

@pytest.mark.parametrize("content", [b"", b"   \n", b"0123abc", b"\xff\xfe" * 40])
def test_an_empty_or_corrupt_secret_key_is_regenerated(tmp_path, table, content):
    data = tmp_path / "data"
    data.mkdir()
    (data / "secret_key").write_bytes(content)
    app = create_app(table, Settings(data_dir=data), TEST_CONFIG)
    assert app.test_client().get("/").status_code == 200
    key = (data / "secret_key").read_text()
    assert len(key) == 64 and key == app.secret_key
    assert (data / "secret_key").stat().st_mode & 0o077 == 0
    assert secret_key(None, data) == key  # kept from now on
    assert [p.name for p in data.iterdir()] == ["secret_key"]  # no temporary files left


def test_a_missing_button_is_said_on_the_page(table, settings):
    app = create_app(table, settings, {**TEST_CONFIG, "NOTICES": ("The turn button is gone",)})
    assert "The turn button is gone" in app.test_client().get("/").get_data(as_text=True)


# -- item 10: lock revokes copies of the cookie; headers ------------------------------------------

def test_lock_revokes_a_copied_session_cookie(app, table, game):
    phone = app.test_client()
    unlock(phone, game)
    copy = app.test_client()
    with phone.session_transaction() as s:
        stolen = dict(s)
    with copy.session_transaction() as s:
        s.update(stolen)
    assert post(copy, f"/games/{game}/actions", json=THROW).status_code == 200
    phone.post(f"/games/{game}/lock", data={"csrf_token": csrf(phone)})
    assert post(copy, f"/games/{game}/undo").status_code == 403
    assert table.snapshot(game)["version"] == 1


def test_the_cookie_alone_unlocks_nothing_in_an_app_that_did_not_grant_it(
        table, settings, game):
    # The right is kept on the server (a restarted companion reads it back from
    # data_dir/keepers.sqlite3, tests/web/test_keepers.py), never in the cookie.
    before = create_app(table, settings, TEST_CONFIG)
    phone = before.test_client()
    unlock(phone, game)
    with phone.session_transaction() as s:
        kept = dict(s)
    after = create_app(table, settings, TEST_CONFIG)  # same secret key, its own grants
    same_phone = after.test_client()
    with same_phone.session_transaction() as s:
        s.update(kept)
    assert post(same_phone, f"/games/{game}/actions", json=THROW).status_code == 403


def test_security_headers_on_every_answer(client, game):
    for url in ("/", f"/games/{game}", f"/games/{game}/snapshot.json", "/nowhere",
                f"/games/{game}/history"):
        response = client.get(url)
        csp = response.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, url
        assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    page = client.get(f"/games/{game}")
    nonce = page.headers["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in page.get_data(as_text=True)


# -- item 11: right-to-left overrides in names ------------------------------------------------

def test_rtl_override_in_a_name_is_refused_by_the_table(table):
    with pytest.raises(ValueError, match="text-direction"):
        table.create_game("schocken", {"players": ["\u202eannA", "Ben"]}, PIN)
    assert table.list_games() == []


# -- item 4: idle connections from one device do not shut out the table ---------------------

@pytest.mark.slow
def test_an_idle_connection_flood_from_one_device_does_not_shut_out_the_table(tmp_path):
    import socket

    from companion.store import Store
    from companion.table import Table
    from companion.web.server import ServerThread, make_server

    settings = Settings(data_dir=tmp_path, host="127.0.0.1", threads=8)
    with Store(tmp_path / "log.sqlite3") as store:
        table = Table(store, pin_iterations=1000)
        game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
        app = create_app(table, settings, TEST_CONFIG)
        running = ServerThread(make_server(app, settings, host="127.0.0.1", port=0,
                                           idle_seconds=2)).start()
        flood = []
        try:
            # 150 idle sockets from one device (another loopback address: the same host).
            for _ in range(150):
                s = socket.socket()
                s.bind(("127.0.0.2", 0))
                s.settimeout(2)
                s.connect(("127.0.0.1", int(running.port)))
                flood.append(s)
            time.sleep(0.3)
            for n in range(5):  # the phones at the table still get answers at once
                started = time.monotonic()
                conn = http.client.HTTPConnection("127.0.0.1", int(running.port), timeout=2)
                conn.request("GET", f"/games/{game}/snapshot.json")
                assert conn.getresponse().status == 200
                conn.close()
                assert time.monotonic() - started < 1.0, n
            # The device got its share only: the rest were closed at once, and its idle
            # share is closed after the idle timeout.
            time.sleep(3.5)
            still_open = 0
            for s in flood:
                s.settimeout(0.01)
                try:
                    still_open += s.recv(1) != b""
                except TimeoutError:
                    still_open += 1  # nothing to read, yet not closed
                except ConnectionError:
                    pass
            assert still_open == 0
        finally:
            for s in flood:
                s.close()
            table.close()
            running.stop()
