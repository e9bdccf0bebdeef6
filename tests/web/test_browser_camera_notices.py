"""Browser test: the camera page shows and hides its notices live, with the latest picture:
an unknown Rock the Bock set ("enrol it"), and a table around the tray taken for dice
when no tray is calibrated ("calibrate the tray")."""

from __future__ import annotations

import pytest

from companion.turns import reading_to_dict
from companion.vision.types import Reading

pytestmark = pytest.mark.browser

JPEG = b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9"


@pytest.mark.parametrize(("kind", "flag", "said"), [
    ("bock", "unfamiliar", ("Unbekannter Würfelsatz – bitte anlernen",
                            "companion calibrate faces")),
    ("pips", "cluttered", ("sieht für die Kamera wie Würfel aus", "Schale einmessen")),
])
def test_a_notice_follows_the_latest_picture(server, phone, kind, flag, said):
    def publish(on):
        reading = Reading(kind=kind, dice=(), frame_size=(640, 480), **{flag: on})
        server.table.publish_picture(JPEG, reading_to_dict(reading))

    publish(False)
    page = phone(f"{server.url}/camera")
    assert not page.is_visible(f"#{flag}")
    # A picture with the trouble arrives while the page is open ...
    publish(True)
    page.wait_for_selector(f"#{flag}", state="visible")
    text = page.inner_text(f"#{flag}")
    assert all(part in text for part in said)
    # ... and once it is mended (the set enrolled, the tray calibrated), the next
    # picture takes the notice away again.
    publish(False)
    page.wait_for_selector(f"#{flag}", state="hidden")
