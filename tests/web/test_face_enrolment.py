"""The scorekeeper enrols the table's Rock the Bock dice on the camera page: a face,
three pictures, enrolled and read with at once."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import BOCK_SETUP, PIN, SCHOCKEN_SETUP, post, unlock
from test_tray_calibration import Applied

from companion.face_setup import PICTURES
from companion.synth.render import render_throw
from companion.tray_setup import TraySetup
from companion.vision.enrol import enrol_face, load_models, load_recognizer
from companion.vision.faces_models import FaceModel, builtin_models
from companion.web.i18n import translate


def pictures(face: str, seed: int, count: int = PICTURES) -> list[np.ndarray]:
    """Frames of six dice all showing ``face``, each throw laid out anew."""
    return [render_throw(seed + k, 6, kind="bock", faces=[face] * 6).image for k in range(count)]


@pytest.fixture
def applied() -> Applied:
    return Applied()


@pytest.fixture
def setup(table, tmp_path, applied) -> TraySetup:
    made = TraySetup(tmp_path / "data" / "calibration.json", applied)
    table.attach_tray_setup(made)
    return made


@pytest.fixture
def keeper(client, table):
    game = table.create_game("rockthebock", BOCK_SETUP, PIN)
    unlock(client, game)
    return client


def _capture(client, face, lang="en"):
    return post(client, f"/camera/faces?lang={lang}", json={"face": face})


def test_three_pictures_of_a_face_enrol_it_as_the_command_does(keeper, setup, applied):
    frames = pictures("goat_yellow", 310)
    page = keeper.get("/camera")
    assert b'id="faces-link"' in page.data
    assert b"camera_faces.js" in keeper.get("/camera/faces").data
    status = keeper.get("/camera/faces.json").get_json()
    assert status["pictures"] == PICTURES
    assert [f["enrolled"] for f in status["faces"]] == [None] * 6
    answers = []
    for frame in frames:
        setup.keep(frame)
        response = _capture(keeper, "goat_yellow")
        assert response.status_code == 200, response.get_data(as_text=True)
        answers.append(response.get_json())
        if len(answers) < PICTURES:
            # Nothing is written until the face's pictures are complete.
            assert not setup.path.exists() and applied.profiles == []
            state = keeper.get("/camera/faces.json").get_json()["faces"]
            assert next(f for f in state if f["face"] == "goat_yellow")["pictures"] == len(answers)
    assert [a["pictures"] for a in answers] == [1, 2, 0]
    assert all(a["dice"] == 6 for a in answers)
    done = answers[-1]
    # The model written is the one `companion calibrate faces` learns from these frames.
    learnt = enrol_face("goat_yellow", frames).model
    expected = FaceModel.from_dict("goat_yellow", learnt.to_dict())  # as the file keeps it
    saved = load_models(setup.path)
    assert set(saved) == {"goat_yellow"} and saved["goat_yellow"] == expected
    assert done["enrolled"] == expected.count and done["dropped"] == 0
    assert done["confusable"] is False
    # The recognisers were rebuilt once, with the file (no tray calibrated yet).
    assert applied.profiles == [None]
    assert load_recognizer(setup.path).classifier.models["goat_yellow"] == expected
    state = keeper.get("/camera/faces.json").get_json()["faces"]
    assert [(f["face"], f["enrolled"], f["pictures"]) for f in state if f["enrolled"]] == [
        ("goat_yellow", expected.count, 0)]


def test_a_second_face_keeps_the_first_and_the_tray(keeper, setup, applied):
    setup.path.parent.mkdir(parents=True, exist_ok=True)
    tray = {"version": 1, "frame_size": [1280, 960],
            "corners": [[20, 20], [1260, 20], [1260, 940], [20, 940]],
            "die_size": 70.0, "floor_bgr": [90, 110, 120]}
    setup.path.write_text(json.dumps(tray))
    for face, seed in (("wolf", 320), ("bock", 330)):
        for frame in pictures(face, seed):
            setup.keep(frame)
            assert _capture(keeper, face).status_code == 200
    saved = load_models(setup.path)
    assert set(saved) == {"wolf", "bock"}
    assert saved["wolf"] != builtin_models()["wolf"]
    data = json.loads(setup.path.read_text())
    assert data["corners"] == tray["corners"] and data["die_size"] == 70.0
    assert len(applied.profiles) == 2 and all(p is not None for p in applied.profiles)


def test_a_picture_without_dice_or_the_same_frame_again_is_refused(keeper, setup, applied):
    empty = np.full((960, 1280, 3), (90, 110, 120), np.uint8)
    setup.keep(empty)
    response = _capture(keeper, "wolf")
    assert response.status_code == 400
    assert response.get_json()["error"] == translate("en", "faces_no_dice")
    frame = pictures("wolf", 340, 1)[0]
    setup.keep(frame)
    assert _capture(keeper, "wolf").get_json()["pictures"] == 1
    # The same frame once more (a double tap): refused, in the page's language.
    response = _capture(keeper, "wolf", lang="de")
    assert response.status_code == 400
    assert response.get_json()["error"] == translate("de", "faces_same_picture")
    state = keeper.get("/camera/faces.json").get_json()["faces"]
    assert next(f for f in state if f["face"] == "wolf")["pictures"] == 1
    assert not setup.path.exists() and applied.profiles == []


def test_a_face_started_again_drops_its_pictures_so_far(keeper, setup, applied):
    # The wolf tapped while the dice showed the bock: that picture is dropped, and the
    # same frame may then be taken for the bock (it is not "taken already").
    frame = pictures("bock", 390, 1)[0]
    setup.keep(frame)
    assert _capture(keeper, "wolf").get_json()["pictures"] == 1
    response = post(keeper, "/camera/faces/again?lang=en", json={"face": "wolf"})
    assert response.status_code == 200
    assert response.get_json() == {"face": "wolf", "dropped": 1}
    state = keeper.get("/camera/faces.json").get_json()["faces"]
    assert all(f["pictures"] == 0 for f in state)
    assert _capture(keeper, "bock").get_json()["pictures"] == 1
    # Starting a face with no pictures again drops nothing, and keeps the other's.
    again = post(keeper, "/camera/faces/again?lang=en", json={"face": "wolf"})
    assert again.get_json() == {"face": "wolf", "dropped": 0}
    state = keeper.get("/camera/faces.json").get_json()["faces"]
    assert next(f for f in state if f["face"] == "bock")["pictures"] == 1
    # Nothing was ever written.
    assert not setup.path.exists() and applied.profiles == []


@pytest.mark.parametrize("body", [{"face": "sheep"}, {"face": 3}, {"faces": "wolf"}, ["wolf"]])
def test_starting_a_bad_face_again_is_400_and_changes_nothing(keeper, setup, body):
    setup.keep(pictures("wolf", 395, 1)[0])
    assert _capture(keeper, "wolf").get_json()["pictures"] == 1
    response = post(keeper, "/camera/faces/again?lang=en", json=body)
    assert response.status_code == 400
    assert "face" in response.get_json()["error"]
    state = keeper.get("/camera/faces.json").get_json()["faces"]
    assert next(f for f in state if f["face"] == "wolf")["pictures"] == 1


@pytest.mark.parametrize("body", [{"face": "sheep"}, {"face": 3}, {"face": None}, {"faces": "wolf"},
                                  ["wolf"]])
def test_a_bad_face_is_400_and_changes_nothing(keeper, setup, applied, body):
    setup.keep(pictures("wolf", 350, 1)[0])
    response = post(keeper, "/camera/faces?lang=en", json=body)
    assert response.status_code == 400
    assert "face" in response.get_json()["error"]
    assert all(f["pictures"] == 0 for f in keeper.get("/camera/faces.json").get_json()["faces"])
    assert not setup.path.exists() and applied.profiles == []


def test_only_the_keeper_may_enrol(client, table, setup, applied):
    setup.keep(pictures("wolf", 360, 1)[0])
    assert client.get("/camera/faces.json").status_code == 403  # no game at the table
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    for url in ("/camera/faces", "/camera/faces.json"):
        assert client.get(url).status_code == 403
    assert _capture(client, "wolf").status_code == 403
    assert post(client, "/camera/faces/again", json={"face": "wolf"}).status_code == 403
    assert b'id="faces-link"' not in client.get("/camera").data
    unlock(client, game)
    # Without the CSRF token even the keeper is refused.
    response = client.post("/camera/faces", json={"face": "wolf"},
                           headers={"Accept": "application/json"})
    assert response.status_code == 400
    assert not setup.path.exists() and applied.profiles == []


def test_without_a_camera_or_a_frame(keeper, table, tmp_path, applied):
    assert keeper.get("/camera/faces.json").status_code == 404  # no camera runs
    table.attach_tray_setup(TraySetup(tmp_path / "pub.json", applied))
    response = _capture(keeper, "wolf")
    assert response.status_code == 409 and applied.profiles == []


def test_pictures_taken_before_a_restart_are_kept(keeper, table, setup, applied):
    frames = pictures("goat_red", 370)
    for frame in frames[:2]:
        setup.keep(frame)
        assert _capture(keeper, "goat_red").status_code == 200
    setup.keep(pictures("bock", 375, 1)[0])
    assert _capture(keeper, "bock").get_json()["pictures"] == 1
    assert post(keeper, "/camera/faces/again?lang=en", json={"face": "bock"}).status_code == 200
    kept = sorted(p.name for p in setup.faces.pending_dir.iterdir())
    assert kept == ["goat_red-1.png", "goat_red-2.png"]
    # The companion starts again (a power cut): the two pictures are there, the bock's
    # dropped one is not.
    again = TraySetup(setup.path, applied)
    table.attach_tray_setup(again)
    state = keeper.get("/camera/faces.json").get_json()["faces"]
    assert {f["face"]: f["pictures"] for f in state if f["pictures"]} == {"goat_red": 2}
    again.keep(frames[2])
    done = _capture(keeper, "goat_red").get_json()
    assert done["pictures"] == 0 and done["enrolled"] > 0
    # Enrolled from the same three frames as without the restart; nothing left pending.
    learnt = enrol_face("goat_red", frames).model
    assert load_models(again.path)["goat_red"] == FaceModel.from_dict("goat_red", learnt.to_dict())
    assert list(again.faces.pending_dir.iterdir()) == []


def test_broken_kept_pictures_start_their_face_again(keeper, table, setup, applied, caplog):
    folder = setup.faces.pending_dir
    folder.mkdir(parents=True)
    frame = pictures("wolf", 380, 1)[0]
    setup.keep(frame)
    assert _capture(keeper, "wolf").status_code == 200
    (folder / "bock-1.png").write_bytes(b"not a picture")  # cut off mid-write
    (folder / "goat_blue-2.png").write_bytes((folder / "wolf-1.png").read_bytes())  # no 1st
    (folder / "notes.txt").write_text("the keeper's own file")
    again = TraySetup(setup.path, applied)
    table.attach_tray_setup(again)
    state = keeper.get("/camera/faces.json").get_json()["faces"]
    assert {f["face"]: f["pictures"] for f in state if f["pictures"]} == {"wolf": 1}
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "wolf-1.png"]
    assert "bock" in caplog.text and "goat_blue" in caplog.text
    assert not setup.path.exists() and applied.profiles == []
