"""Browser test: the camera page shows and hides its notices live, with the latest picture:
an unknown Rock the Bock set ("enrol it"), and a table around the tray taken for dice
when no tray is calibrated ("calibrate the tray"); and it names what was read in the
page's language, a flagged die's proposal marked for checking."""

from __future__ import annotations

import pytest

from companion.turns import reading_to_dict
from companion.vision.types import Die, DieRegion, Reading

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


def _die(value, x, uncertain):
    corners = ((x - 20.0, 80.0), (x + 20.0, 80.0), (x + 20.0, 120.0), (x - 20.0, 120.0))
    return Die(DieRegion((x, 100.0), 40.0, 0.0, corners, 0.9), value, 0.6 if uncertain else 0.97,
               uncertain)


@pytest.mark.parametrize(("lang", "wolf", "goat", "unsure"), [
    ("de", "Wolf", "blaue Geiß", "unsicher"),
    ("en", "wolf", "blue goat", "unsure"),
])
@pytest.mark.parametrize(("drawn", "outlines"), [
    ({"annotated": False}, 3),  # a bare picture: the page draws outlines and names
    ({"annotated": True, "labelled": False}, 0),  # the runtime's: outlines burnt in
])
def test_read_faces_are_named_in_the_pages_language(
    server, phone, lang, wolf, goat, unsure, drawn, outlines
):
    # A flagged Rock the Bock die proposes the face it is nearest; an unread one has none.
    dice = (_die("wolf", 100.0, False), _die("goat_blue", 200.0, True), _die(None, 300.0, True))
    reading = Reading(kind="bock", dice=dice, frame_size=(640, 480))
    server.table.publish_picture(JPEG, {**reading_to_dict(reading), **drawn})
    page = phone(f"{server.url}/camera", lang=lang)
    page.wait_for_selector("#reading li >> nth=2")
    rows = page.locator("#reading li").all_inner_texts()
    assert rows[0].startswith(f"#1: {wolf} (97 %)") and unsure not in rows[0]
    assert rows[1].startswith(f"#2: {goat} (60 %)") and unsure in rows[1]
    assert rows[2].startswith("#3: ? (60 %)") and unsure in rows[2]
    labels = page.locator("#overlay text").all_text_contents()
    assert labels == [wolf, f"{goat}?", "?"]
    assert page.locator("#overlay polygon").count() == outlines


@pytest.mark.parametrize(("lang", "said"), [
    ("de", ("Blockiert: eine Hand in der Schale", "Blockiert: ein Becher über den Würfeln",
            "Blockiert: a dog in the tray")),
    ("en", ("Blocked: a hand in the tray", "Blocked: a cup over the dice",
            "Blocked: a dog in the tray")),
])
def test_what_blocks_the_tray_is_said_in_the_pages_language_live(server, phone, lang, said):
    def publish(why):
        server.table.publish_picture(JPEG, {"kind": "none", "frame_size": [640, 480],
                                            "dice": [], "blocked": why})

    publish("hand in the tray")
    page = phone(f"{server.url}/camera?lang={lang}")
    assert page.inner_text("#blocked") == said[0]  # as the server wrote the page
    publish("cup over the dice")  # ... and as the page writes it, live
    page.wait_for_selector(f"#blocked:has-text('{said[1]}')")
    publish("a dog in the tray")  # a reason no catalogue knows: as it came
    page.wait_for_selector(f"#blocked:has-text('{said[2]}')")
    publish(None)
    page.wait_for_selector("#blocked", state="hidden")
