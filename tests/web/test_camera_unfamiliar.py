"""The camera page asks to enrol a Rock the Bock set the recogniser does not know."""

from companion.turns import reading_to_dict
from companion.vision.types import Reading

JPEG = b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9"


def _publish(table, unfamiliar):
    reading = Reading(kind="bock", dice=(), frame_size=(640, 480), unfamiliar=unfamiliar)
    table.publish_picture(JPEG, reading_to_dict(reading))


def test_an_unfamiliar_set_shows_how_to_enrol_it(client, table):
    _publish(table, unfamiliar=True)
    page = client.get("/camera").get_data(as_text=True)
    assert "Unbekannter Würfelsatz – bitte anlernen" in page
    assert "companion calibrate faces" in page
    assert 'id="unfamiliar" class="error" hidden' not in page
    english = client.get("/camera?lang=en").get_data(as_text=True)
    assert "Unknown dice set – please enrol it" in english
    assert client.get("/camera/latest.json").get_json()["reading"]["unfamiliar"] is True


def test_a_known_set_shows_no_notice(client, table):
    _publish(table, unfamiliar=False)
    page = client.get("/camera").get_data(as_text=True)
    assert 'id="unfamiliar" class="error" hidden' in page
    assert client.get("/camera/latest.json").get_json()["reading"]["unfamiliar"] is False
