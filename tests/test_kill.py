"""SIGKILL the dashboard again and again while a phone posts: no acknowledged action is lost.

A real ``companion serve`` process on 127.0.0.1 is killed 20 times in the middle of a
stream of throws and undos; every action the server answered 200 to must be in the log
afterwards, as what was sent, and SQLite's integrity check must pass.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.store import Store
from companion.table import Table

KILLS = 20
PIN = "4711"
THROW = {"action": "throw", "player": "Anna", "throws": 1, "dice": [1, 1, 4], "hand": True}
ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_listening(port: int, process: subprocess.Popen, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise AssertionError("the server did not start listening")


class Phone:
    """A scorekeeper's phone: a session cookie, the CSRF token, the PIN entered."""

    def __init__(self, port: int, game: int) -> None:
        self.port = port
        self.game = game
        page = self._call("GET", f"/games/{game}")
        self.cookie = page.getheader("Set-Cookie").split(";")[0]
        self.token = page.read().decode().split('"csrf": "')[1].split('"')[0]
        unlocked = self._call("POST", f"/games/{game}/unlock", f"pin={PIN}",
                              "application/x-www-form-urlencoded")
        assert unlocked.status == 200, unlocked.read()
        unlocked.read()
        # Unlocking names the session on the server: the cookie changes.
        self.cookie = (unlocked.getheader("Set-Cookie") or self.cookie).split(";")[0]

    def _call(self, method: str, url: str, body: str | None = None,
              content_type: str = "application/json") -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        headers = {"Accept": "application/json", "Content-Type": content_type}
        if hasattr(self, "cookie"):
            headers |= {"Cookie": self.cookie, "X-CSRF-Token": self.token}
        try:
            conn.request(method, url, body=body, headers=headers)
            response = conn.getresponse()
        except BaseException:
            conn.close()  # the server died mid-request: leave no socket open
            raise
        response.read = _reader(response, conn)  # type: ignore[method-assign]
        return response

    def record(self, acknowledged: dict[int, str], stop: threading.Event) -> None:
        """Throw and undo in turn until the server dies; note what it acknowledged."""
        snap = json.loads(self._call("GET", f"/games/{self.game}/snapshot.json").read())
        in_force = bool(snap["snapshot"]["view"]["throws"])
        while not stop.is_set():
            try:
                if in_force:
                    response = self._call("POST", f"/games/{self.game}/undo")
                else:
                    response = self._call("POST", f"/games/{self.game}/actions",
                                          json.dumps(THROW))
                body = response.read()
            except (OSError, http.client.HTTPException):
                return  # killed mid-request: not acknowledged
            assert response.status == 200, body
            version = json.loads(body)["snapshot"]["version"]
            acknowledged[version] = "undo" if in_force else "action"
            in_force = not in_force


def _reader(response: http.client.HTTPResponse, conn: http.client.HTTPConnection):
    read = response.read

    def read_and_close(*args: object) -> bytes:
        try:
            return read(*args)
        finally:
            conn.close()

    return read_and_close


@pytest.mark.slow
def test_sigkill_under_posting_load_loses_no_acknowledged_action(tmp_path):
    data = tmp_path / "data"
    with Store(data / "companion.sqlite3") as store:
        game = Table(store, pin_iterations=1000).create_game(
            "schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, PIN)
    env = {**os.environ, "COMPANION_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    env.pop("COMPANION_CONFIG", None)
    acknowledged: dict[int, str] = {}
    for kill in range(KILLS):
        port = _free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
             "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
        try:
            _wait_until_listening(port, process)
            phone = Phone(port, game)
            stop = threading.Event()
            poster = threading.Thread(target=phone.record, args=(acknowledged, stop))
            poster.start()
            time.sleep(0.15 + 0.02 * (kill % 5))  # kill at a different moment each time
            process.send_signal(signal.SIGKILL)
            process.wait(5)
            stop.set()
            poster.join(5)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(5)
            process.stderr.close()
    print(f"{KILLS} kills, {len(acknowledged)} acknowledged actions")
    assert len(acknowledged) >= KILLS * 3, "the load was too light to mean anything"
    raw = sqlite3.connect(data / "companion.sqlite3")
    try:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = dict(raw.execute("SELECT version, kind FROM events WHERE game_id = ?", (game,)))
    finally:
        raw.close()
    lost = {v: kind for v, kind in acknowledged.items() if stored.get(v) != kind}
    assert lost == {}
