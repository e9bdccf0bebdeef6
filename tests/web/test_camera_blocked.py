"""The camera page says when the tray is blocked by something that is not a die."""


def test_camera_page_shows_what_blocks_the_tray(client, table):
    jpeg = b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9"
    table.publish_picture(jpeg, {"kind": "none", "frame_size": [640, 480], "dice": [],
                                 "blocked": "hand in the tray"})
    page = client.get("/camera").get_data(as_text=True)
    assert "Blockiert: eine Hand in der Schale" in page  # German by default
    page = client.get("/camera?lang=en").get_data(as_text=True)
    assert "Blocked: a hand in the tray" in page
    assert client.get("/camera/latest.json").get_json()["reading"]["blocked"] == (
        "hand in the tray")
    table.publish_picture(jpeg, {"kind": "pips", "frame_size": [640, 480], "dice": [],
                                 "blocked": None})
    page = client.get("/camera").get_data(as_text=True)
    assert '<p id="blocked" class="error" hidden></p>' in page


def test_camera_page_asks_for_a_new_calibration_when_the_camera_moved(client, table):
    """The watcher's reason when a calibrated camera moved further than a knock is
    followed (``watch.MOVED``) tells the scorekeeper what to do, in both languages."""
    from companion.vision.watch import MOVED

    jpeg = b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9"
    table.publish_picture(jpeg, {"kind": "none", "frame_size": [640, 480], "dice": [],
                                 "blocked": MOVED})
    page = client.get("/camera").get_data(as_text=True)
    assert "Blockiert: die Kamera wurde seit dem Einmessen bewegt" in page
    assert "bitte die Schale neu einmessen" in page
    page = client.get("/camera?lang=en").get_data(as_text=True)
    assert "Blocked: the camera has moved since the tray was calibrated" in page
    assert "please calibrate it again" in page
