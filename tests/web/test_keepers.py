"""The scorekeeper stays scorekeeper across a restart of the companion (issue 14, item 6)."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from companion.keepers import KeeperStore, session_hash
from companion.store import Store
from companion.table import Table
from companion.web.security import Grants

PIN = "246810"
SETUP = {"players": ["Anna", "Ben"], "starter": "Anna"}


def test_grants_written_through_come_back_in_a_new_process_state(tmp_path):
    store = KeeperStore(tmp_path / "keepers.sqlite3")
    grants = Grants(store=store)
    grants.grant("phone-a", 1)
    grants.grant("phone-b", 1)
    grants.revoke("phone-b", 1)  # locked again: no longer allowed, still known
    store.close()

    again = Grants(store=KeeperStore(tmp_path / "keepers.sqlite3"))
    assert again.allows("phone-a", 1) and again.known("phone-a", 1)
    assert not again.allows("phone-b", 1) and again.known("phone-b", 1)
    assert not again.allows("phone-a", 2) and not again.allows("stranger", 1)


def test_the_file_holds_no_session_id_and_is_owner_only(tmp_path):
    store = KeeperStore(tmp_path / "keepers.sqlite3")
    Grants(store=store).grant("the-secret-session-id", 3)
    store.close()
    path = tmp_path / "keepers.sqlite3"
    assert path.stat().st_mode & 0o077 == 0
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT session, game_id, unlocked FROM keeper_sessions").fetchall()
    assert rows == [(session_hash("the-secret-session-id"), 3, 1)]
    assert b"the-secret-session-id" not in path.read_bytes()


def test_old_sessions_are_forgotten_and_the_limit_holds_in_the_file(tmp_path):
    now = [1_000_000.0]
    store = KeeperStore(tmp_path / "k.sqlite3", clock=lambda: now[0], max_age_seconds=3600)
    grants = Grants(limit=2, store=store)
    for sid in ("a", "b", "c"):
        grants.grant(sid, 1)
    assert [r.session for r in store.rows()] == [session_hash("b"), session_hash("c")]
    store.close()
    now[0] += 1800
    assert len(KeeperStore(tmp_path / "k.sqlite3", clock=lambda: now[0],
                           max_age_seconds=3600).rows()) == 2
    now[0] += 3600  # the next evening
    assert KeeperStore(tmp_path / "k.sqlite3", clock=lambda: now[0],
                       max_age_seconds=3600).rows() == []


def test_a_file_that_is_no_database_is_moved_aside(tmp_path, caplog):
    path = tmp_path / "keepers.sqlite3"
    path.write_bytes(b"this is not SQLite " * 100)
    store = KeeperStore(path)
    assert store.rows() == []
    Grants(store=store).grant("phone", 1)
    assert [p.name.split(".bad-")[0] for p in tmp_path.glob("keepers.sqlite3.bad-*")] == [
        "keepers.sqlite3"]
    assert "moved to" in caplog.text


def test_a_store_that_cannot_write_still_lets_the_right_pin_in(tmp_path, caplog):
    store = KeeperStore(tmp_path / "keepers.sqlite3")
    grants = Grants(store=store)
    store.close()  # as good as a failing card: every write raises
    grants.grant("phone", 1)
    assert grants.allows("phone", 1)
    grants.revoke("phone", 1)
    assert not grants.allows("phone", 1)
    assert "will ask for the PIN again" in caplog.text


# -- against the real server, restarted ------------------------------------------------


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Phone:
    """One browser: its own cookies, the CSRF token the page hands out."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def page(self, game_id: int) -> dict:
        with self.opener.open(f"{self.base}/games/{game_id}", timeout=10) as response:
            html = response.read().decode()
        boot = re.search(r'<script id="boot" type="application/json">(.*?)</script>', html)
        assert boot is not None
        return json.loads(boot.group(1))

    def post(self, path: str, fields: dict[str, str]) -> int:
        boot = self.page(1)
        data = urllib.parse.urlencode({**fields, "csrf_token": boot["csrf"]}).encode()
        try:
            with self.opener.open(f"{self.base}{path}", data=data, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code


class Server:
    def __init__(self, data: Path) -> None:
        self.data, self.port = data, _port()
        self.base = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Server:
        env = dict(os.environ, COMPANION_DATA_DIR=str(self.data), COMPANION_HOST="127.0.0.1")
        env.pop("COMPANION_CONFIG", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--port", str(self.port)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # the banner
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(f"{self.base}/games.json", timeout=5).close()
                return self
            except OSError:
                assert time.monotonic() < deadline, "the dashboard did not answer"
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=20)
        assert self.proc.stderr is not None and self.proc.stdout is not None
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        assert self.proc.returncode == 0, err


@pytest.mark.slow
def test_the_scorekeeper_is_still_scorekeeper_after_the_server_restarts(tmp_path):
    data = tmp_path / "data"
    with Store(data / "companion.sqlite3") as store:
        table = Table(store)
        table.activate(table.create_game("schocken", SETUP, PIN))
        table.close()
    keeper, guest = Phone(""), Phone("")
    with Server(data) as server:
        keeper.base = guest.base = server.base
        assert keeper.post("/games/1/unlock", {"pin": PIN, "who": "Kim"}) == 200
        assert keeper.page(1)["unlocked"] and not guest.page(1)["unlocked"]
    with Server(data) as server:  # a restart: a new process on the same data_dir
        keeper.base = guest.base = server.base
        assert keeper.page(1)["unlocked"]
        assert not guest.page(1)["unlocked"]
        throw = {"player": "Anna", "throws": "1", "d1": "1", "d2": "1", "d3": "4",
                 "hand": "1"}
        assert keeper.post("/games/1/schocken/throw", throw) == 200
        assert guest.post("/games/1/schocken/throw", throw) == 403
        assert keeper.post("/games/1/lock", {}) == 200
        assert not keeper.page(1)["unlocked"]
    with Server(data) as server:  # locked stays locked
        keeper.base = server.base
        assert not keeper.page(1)["unlocked"]
    with Store(data / "companion.sqlite3") as store:
        table = Table(store)
        assert table.snapshot(1)["version"] == 1  # the keeper's one throw, nobody else's
        table.close()


def test_a_grant_does_not_open_another_game_that_came_under_the_same_id(tmp_path):
    # Game 1 of a new event log (or of a restored backup) is another game than the game 1
    # a phone unlocked yesterday: its creation time tells them apart.
    created = {1: 100.0, 2: 200.0}
    store = KeeperStore(tmp_path / "keepers.sqlite3", stamp=created.get)
    grants = Grants(store=store)
    grants.grant("phone-a", 1)
    grants.grant("phone-a", 2)
    grants.grant("phone-a", 3)  # no such game: nothing is written
    store.close()

    created = {1: 150.0, 2: 200.0}  # game 1 is a new game now, game 2 the same
    again = Grants(store=KeeperStore(tmp_path / "keepers.sqlite3", stamp=created.get))
    assert not again.allows("phone-a", 1) and not again.known("phone-a", 1)
    assert again.allows("phone-a", 2)
    assert not again.allows("phone-a", 3)


def test_a_restore_keeps_only_the_grants_of_games_that_are_still_the_same(tmp_path):
    created = {1: 100.0, 2: 200.0}
    grants = Grants(store=KeeperStore(tmp_path / "keepers.sqlite3", stamp=lambda g: created.get(g)))
    grants.grant("phone-a", 1)
    grants.grant("phone-b", 2)
    created.clear()
    created.update({1: 100.0, 2: 250.0})  # the backup holds game 1 as it was, another game 2
    grants.reload()
    assert grants.allows("phone-a", 1)
    assert not grants.allows("phone-b", 2) and not grants.known("phone-b", 2)
    bare = Grants()
    bare.grant("phone-a", 1)
    bare.reload()  # in memory there is no telling: no grant survives a restore
    assert not bare.allows("phone-a", 1)
