"""History lines of entries recorded before the clock was synchronised say so."""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import PIN, live_server, wait_live
from conftest import TEST_CONFIG
from flask.testing import FlaskClient

from companion.config import Settings
from companion.store import Store
from companion.table import Table
from companion.web import create_app

THROW = {"action": "throw", "player": "Anna", "throws": 2, "dice": [6, 6, 5], "hand": False}
SETUP = {"players": ["Anna", "Ben"], "starter": "Anna"}


@pytest.fixture
def synced() -> list[bool]:
    """Whether the test's clock has been set from the network (flip it by hand)."""
    return [False]


@pytest.fixture
def table(tmp_path: Path, synced: list[bool]) -> Iterator[Table]:
    ticks = itertools.count(1_700_000_000)
    store = Store(tmp_path / "companion.sqlite3")
    tbl = Table(store, clock=lambda: float(next(ticks)), clock_synced=lambda: synced[0],
                pin_iterations=1000)
    yield tbl
    tbl.close()
    store.close()


@pytest.fixture
def client(table: Table, settings: Settings) -> FlaskClient:
    return create_app(table, settings, TEST_CONFIG).test_client()


def _line(page: str, version: int) -> str:
    found = re.search(rf'<li data-version="{version}">(.*?)</li>', page, re.S)
    assert found is not None, page
    return html.unescape(found.group(1))


def test_history_marks_the_times_read_before_the_clock_was_set(client, table, synced):
    game = table.create_game("schocken", SETUP, PIN)
    table.submit(game, THROW, "button")
    synced[0] = True
    table.undo(game, "Kim")
    page = client.get(f"/games/{game}/history").get_data(as_text=True)
    first, second = _line(page, 1), _line(page, 2)
    assert "Uhrzeit unsicher" in first and "die Reihenfolge stimmt" in first
    assert "Uhrzeit unsicher" not in second
    english = client.get(f"/games/{game}/history?lang=en").get_data(as_text=True)
    assert "time uncertain" in _line(english, 1) and "time uncertain" not in _line(english, 2)
    # The live script words the mark from the same catalogue the page hands it.
    assert '"js_time_unsynced": "time uncertain"' in english
    snap = client.get(f"/games/{game}/snapshot.json").get_json()["snapshot"]
    assert [row["unsynced"] for row in snap["history"]] == [True, False]


@pytest.mark.browser
def test_the_live_history_marks_the_uncertain_time(tmp_path, phone):
    clock = [False]
    with live_server(tmp_path, clock_synced=lambda: clock[0]) as server:
        game = server.table.create_game("schocken", SETUP, PIN)
        page = phone(f"{server.url}/games/{game}/history")
        wait_live(page)
        server.table.submit(game, THROW, "button")
        page.wait_for_selector("#history li[data-version='1']")
        clock[0] = True
        server.table.undo(game, "Kim")
        page.wait_for_selector("#history li[data-version='2']")
        first = page.locator("#history li[data-version='1']")
        second = page.locator("#history li[data-version='2']")
        assert "Uhrzeit unsicher" in first.inner_text() and "≈" in first.inner_text()
        assert "die Reihenfolge stimmt" in first.locator("span.muted").get_attribute("title")
        assert "Uhrzeit unsicher" not in second.inner_text()
        assert "≈" not in second.inner_text()
