"""Fixtures for the dashboard tests: a real Table over a SQLite file in tmp_path.

Flaskr-style ``app``/``client`` fixtures; helpers to create games and to get a
CSRF token and the scorekeeper unlock the way a browser does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import CHROMIUM, CHROMIUM_ARGS, PHONE, PIN, live_server
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import sync_playwright

from companion.config import Settings
from companion.table import Table
from companion.web import create_app

TEST_CONFIG = {
    "TESTING": True,
    # Short waits keep the stream tests fast; the framing is the same.
    "SSE_POLL_SECONDS": 0.05,
    "SSE_HEARTBEAT_SECONDS": 0.3,
}

SCHOCKEN_SETUP = {"players": ["Anna", "Ben", "Cem"], "starter": "Anna"}
BOCK_SETUP = {"players": [{"name": "Rita", "colour": "red"}, {"name": "Bo", "colour": "blue"}],
              "youngest": "Rita"}
WACKEN_SETUP = {"players": ["Ozzy", "Lemmy", "Doro"]}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings with the data dir in tmp_path (the secret key is written there)."""
    return Settings(data_dir=tmp_path / "data", language="de", threads=8)


@pytest.fixture
def app(table: Table, settings: Settings) -> Flask:
    """The dashboard app over the test table."""
    return create_app(table, settings, TEST_CONFIG)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A browser without PIN."""
    return app.test_client()


def csrf(client: FlaskClient) -> str:
    """The client's CSRF token, as a page would hand it out."""
    with client.session_transaction() as session:
        token = session.setdefault("csrf_token", "test-token-" + "x" * 20)
    return token


def unlock(client: FlaskClient, game_id: int, pin: str = PIN) -> None:
    """Enter the PIN through the real unlock route."""
    response = client.post(f"/games/{game_id}/unlock",
                           data={"pin": pin, "who": "Kim", "csrf_token": csrf(client)})
    assert response.status_code == 302, response.get_data(as_text=True)


def post(client: FlaskClient, url: str, **kwargs) -> object:
    """POST with the CSRF header and a JSON answer, as the page's script does."""
    headers = {"X-CSRF-Token": csrf(client), "Accept": "application/json"}
    return client.post(url, headers=headers, **kwargs)


# -- browser tests (Playwright on Debian's Chromium against the real waitress server) --------

@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, launched once per test module (skipped when it is missing)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}; install it with apt (chromium)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def server(tmp_path):
    """The dashboard served by waitress on 127.0.0.1 over a fresh database."""
    with live_server(tmp_path) as running:
        yield running


@pytest.fixture
def phone(browser):
    """A factory of phone-sized pages, each in its own browser context (own cookies)."""
    contexts = []

    def open_phone(url: str, lang: str = "de", bypass_csp: bool = True):
        # Playwright's wait_for_function evaluates strings, which the dashboard's CSP
        # (rightly) forbids; test_browser_csp.py checks the pages under the real policy.
        context = browser.new_context(viewport=PHONE, device_scale_factor=1,
                                      bypass_csp=bypass_csp)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(5000)
        page.goto(f"{url}?lang={lang}" if "?" not in url else url)
        return page

    yield open_phone
    for context in contexts:
        context.close()
