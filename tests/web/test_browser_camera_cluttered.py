"""Browser test: the camera page says so, live, when the table around the tray was taken
for dice and nothing was read (no tray calibrated)."""

from __future__ import annotations

import pytest

from companion.turns import reading_to_dict
from companion.vision.types import Reading

pytestmark = pytest.mark.browser

JPEG = b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9"


def _publish(table, cluttered):
    reading = Reading(kind="pips", dice=(), frame_size=(1280, 960), cluttered=cluttered)
    table.publish_picture(JPEG, reading_to_dict(reading))


def test_the_cluttered_table_notice_follows_the_latest_picture(server, phone):
    _publish(server.table, cluttered=False)
    page = phone(f"{server.url}/camera")
    assert not page.is_visible("#cluttered")
    # A picture of the tray on a printed menu, read whole, arrives while the page is open.
    _publish(server.table, cluttered=True)
    page.wait_for_selector("#cluttered", state="visible")
    said = page.inner_text("#cluttered")
    assert "sieht für die Kamera wie Würfel aus" in said
    assert "Schale einmessen" in said
    # Once the tray is calibrated, the next picture takes the notice away again.
    _publish(server.table, cluttered=False)
    page.wait_for_selector("#cluttered", state="hidden")
