"""Browser test: the camera page shows and hides the "enrol your set" notice live."""

from __future__ import annotations

import pytest

from companion.turns import reading_to_dict
from companion.vision.types import Reading

pytestmark = pytest.mark.browser

JPEG = b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9"


def _publish(table, unfamiliar):
    reading = Reading(kind="bock", dice=(), frame_size=(640, 480), unfamiliar=unfamiliar)
    table.publish_picture(JPEG, reading_to_dict(reading))


def test_the_unfamiliar_set_notice_follows_the_latest_picture(server, phone):
    _publish(server.table, unfamiliar=False)
    page = phone(f"{server.url}/camera")
    assert not page.is_visible("#unfamiliar")
    # A picture of a set nobody enrolled arrives while the page is open.
    _publish(server.table, unfamiliar=True)
    page.wait_for_selector("#unfamiliar", state="visible")
    said = page.inner_text("#unfamiliar")
    assert "Unbekannter Würfelsatz – bitte anlernen" in said
    assert "companion calibrate faces" in said
    # Once enrolled, the next picture takes the notice away again.
    _publish(server.table, unfamiliar=False)
    page.wait_for_selector("#unfamiliar", state="hidden")
