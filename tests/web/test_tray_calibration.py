"""The scorekeeper calibrates the tray on the camera page: raw frame, proposal, save."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest
from conftest import PIN, SCHOCKEN_SETUP, post, unlock

from companion.evaluation import LabelledDie
from companion.synth.scene import SETUPS, compose
from companion.tray_setup import TraySetup, parse_corner_list
from companion.vision.calibrate import SMALL_DIE
from companion.vision.tray import TrayProfile, TrayProfileError


def tray_scene(setup: str = "webcam-wood", seed: int = 3, tray_px: float | None = None):
    """A tray floor with a few white dice, put into a whole camera frame of ``setup``
    (its tray ``tray_px`` across when given)."""
    photo = np.full((640, 640, 3), (140, 150, 150), np.uint8)
    dice = [(150, 160), (330, 300), (480, 470), (220, 500)]
    for x, y in dice:
        cv2.rectangle(photo, (x - 24, y - 24), (x + 24, y + 24), (235, 235, 235), -1)
        cv2.circle(photo, (x, y), 5, (20, 20, 20), -1)
    labels = [LabelledDie(1, x, y, 48, 48) for x, y in dice]
    mounting = SETUPS[setup] if tray_px is None else replace(SETUPS[setup], tray_px=tray_px)
    return compose(photo, labels, mounting, np.random.default_rng(seed))


class Applied:
    """Stands in for rebuilding the recognisers: remembers each profile handed over."""

    def __init__(self) -> None:
        self.profiles: list[TrayProfile] = []

    def __call__(self, profile: TrayProfile) -> None:
        self.profiles.append(profile)


@pytest.fixture
def scene():
    return tray_scene()


@pytest.fixture
def applied() -> Applied:
    return Applied()


@pytest.fixture
def tray(table, tmp_path, scene, applied) -> TraySetup:
    """A tray setup that has seen one frame, attached to the table as the companion does."""
    setup = TraySetup(tmp_path / "calibration" / "pub.json", applied, finder="classic")
    setup.keep(scene.frame)
    table.attach_tray_setup(setup)
    return setup


@pytest.fixture
def keeper(client, table):
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    unlock(client, game)
    return client


def _corners(scene) -> list[list[float]]:
    return [[float(x), float(y)] for x, y in scene.corners]


def test_the_keeper_sees_the_raw_frame_and_the_found_outline(keeper, tray, scene):
    page = keeper.get("/camera/tray")
    assert page.status_code == 200 and b"tray-overlay" in page.data
    assert b'id="tray-link"' in keeper.get("/camera").data
    image = keeper.get("/camera/tray/frame.jpg")
    assert image.status_code == 200 and image.mimetype == "image/jpeg"
    decoded = cv2.imdecode(np.frombuffer(image.data, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == scene.frame.shape
    # The raw frame, not an annotated picture: within JPEG noise of what the camera sent.
    assert np.abs(decoded.astype(int) - scene.frame.astype(int)).mean() < 4
    proposal = keeper.get("/camera/tray.json").get_json()
    assert proposal["source"] == "found" and proposal["frame_size"] == [1280, 960]
    error = np.linalg.norm(np.array(proposal["corners"]) - scene.corners, axis=1)
    assert error.max() < 20
    assert proposal["current"] is None


def test_saving_writes_the_file_and_applies_the_profile_at_once(keeper, tray, scene, applied):
    # Tapped in any order: the corners come back clockwise from top-left.
    tapped = _corners(scene)
    shuffled = [tapped[2], tapped[0], tapped[3], tapped[1]]
    response = post(keeper, "/camera/tray", json={"corners": shuffled})
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    data = json.loads(tray.path.read_text())
    assert np.allclose(data["corners"], tapped, atol=0.1)
    assert answer["profile"]["corners"] == data["corners"]
    assert data["die_size"] == pytest.approx(48 * 700 / 640, rel=0.2)
    assert len(applied.profiles) == 1 and applied.profiles[0] == TrayProfile.load(tray.path)
    assert not list(tray.path.parent.glob("*.tmp"))  # written atomically, nothing left over
    # The next proposal knows the saved outline.
    assert keeper.get("/camera/tray.json").get_json()["current"] == data["corners"]


def test_saving_says_when_the_dice_are_too_small_to_read_reliably(keeper, tray, scene):
    answer = post(keeper, "/camera/tray", json={"corners": _corners(scene)}).get_json()
    assert answer["small_die"] is False and "closer" not in answer["message"]
    far = tray_scene("webcam-small", tray_px=240)  # the dice about 18 px across
    tray.keep(far.frame)
    answer = post(keeper, "/camera/tray", json={"corners": _corners(far)}).get_json()
    assert answer["profile"]["die_size"] < SMALL_DIE
    assert answer["small_die"] is True and "closer" in answer["message"]


def test_saving_keeps_the_enrolled_faces_in_the_file(keeper, tray, scene):
    tray.path.parent.mkdir(parents=True)
    tray.path.write_text(json.dumps({"faces": {"bock": [1, 2, 3]}}))
    assert post(keeper, "/camera/tray", json={"corners": _corners(scene)}).status_code == 200
    data = json.loads(tray.path.read_text())
    assert data["faces"] == {"bock": [1, 2, 3]} and len(data["corners"]) == 4


@pytest.mark.parametrize(
    ("body", "message", "german"),
    [
        ({"corners": [[10, 10], [600, 10], [600, 400]]}, "four corners", "vier Ecken"),
        ({"corners": [[10, 10], [600, 10], [600, 400], [10, 400], [5, 5]]}, "four corners",
         "vier Ecken"),
        ({"corners": [[10, 10], [1300, 10], [600, 400], [10, 400]]}, "outside", "außerhalb"),
        ({"corners": [[10, 10], [-1, 10], [600, 400], [10, 400]]}, "outside", "außerhalb"),
        ({"corners": [[10, 10], ["a", 10], [600, 400], [10, 400]]}, "numbers", "Zahlen"),
        ({"corners": [[10, 10], [True, 10], [600, 400], [10, 400]]}, "numbers", "Zahlen"),
        ({"corners": [[10, 10], [600], [600, 400], [10, 400]]}, "pair", "Paar"),
        ({"corners": "10,10,600,10,600,400,10,400"}, "four corners", "vier Ecken"),
        ({"corners": [[10, 10], [11, 10], [11, 11], [10, 11]]}, "enclose", "umschließen"),
        ({"points": []}, "corners", None),
        ([], "corners", None),
    ],
)
def test_bad_corners_are_400_and_change_nothing(keeper, tray, applied, body, message, german):
    response = post(keeper, "/camera/tray?lang=en", json=body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]
    if german is not None:
        # German pages say it in German, not with the general refusal.
        response = post(keeper, "/camera/tray?lang=de", json=body)
        assert response.status_code == 400 and german in response.get_json()["error"]
    assert not tray.path.exists() and applied.profiles == []


def test_a_non_number_body_is_400(keeper, tray, applied):
    response = post(keeper, "/camera/tray", data="corners please",
                    content_type="application/json")
    assert response.status_code == 400 and not tray.path.exists()


def test_only_the_keeper_may_calibrate(client, table, tray, scene, applied):
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    for url in ("/camera/tray", "/camera/tray.json", "/camera/tray/frame.jpg"):
        assert client.get(url).status_code == 403
    response = post(client, "/camera/tray", json={"corners": _corners(scene)})
    assert response.status_code == 403 and not tray.path.exists()
    assert b'id="tray-link"' not in client.get("/camera").data
    # Without the CSRF token even the keeper is refused.
    unlock(client, game)
    response = client.post("/camera/tray", json={"corners": _corners(scene)},
                           headers={"Accept": "application/json"})
    assert response.status_code == 400 and not tray.path.exists()
    assert applied.profiles == []


def test_the_keeper_of_another_game_may_not(client, table, tray, scene):
    other = table.create_game("schocken", SCHOCKEN_SETUP, PIN, activate=False)
    table.create_game("schocken", SCHOCKEN_SETUP, "9999")
    unlock(client, other)
    assert post(client, "/camera/tray", json={"corners": _corners(scene)}).status_code == 403


def test_without_a_game_at_the_table_it_says_what_to_do(client, tray):
    response = client.get("/camera/tray.json")
    assert response.status_code == 403
    assert "PIN" in response.get_json()["error"]


def test_without_a_camera_or_a_frame(keeper, table, tmp_path, applied, scene):
    assert keeper.get("/camera/tray.json").status_code == 404  # no camera runs
    setup = TraySetup(tmp_path / "pub.json", applied)
    table.attach_tray_setup(setup)
    assert keeper.get("/camera/tray.json").status_code == 409
    assert keeper.get("/camera/tray/frame.jpg").status_code == 409
    response = post(keeper, "/camera/tray", json={"corners": _corners(scene)})
    assert response.status_code == 409 and not setup.path.exists()


@pytest.mark.slow
def test_a_frame_without_a_tray_proposes_the_saved_outline_or_a_guess(tmp_path):
    from companion.synth.scene import surround

    setup = TraySetup(tmp_path / "pub.json", finder="classic")
    setup.keep(surround("wood", (1280, 960), np.random.default_rng(1), 40.0))
    guess = setup.proposal()
    assert guess["source"] == "guess" and len(guess["corners"]) == 4
    setup.save([[100, 100], [1100, 120], [1090, 850], [110, 840]])
    saved = setup.proposal()
    assert saved["source"] == "profile" and saved["corners"][1] == [1100.0, 120.0]


def test_the_watched_source_keeps_the_latest_frame(tmp_path, scene):
    from companion.hardware.camera import Frame

    class Two:
        def __init__(self):
            self.frames = [Frame(scene.frame, 0.0), Frame(scene.frame[:, ::-1].copy(), 1.0)]
            self.closed = False

        def read(self):
            return self.frames.pop(0) if self.frames else None

        def close(self):
            self.closed = True

    source = Two()
    setup = TraySetup(tmp_path / "pub.json")
    watched = setup.watch(source)
    assert not setup.has_frame() and setup.frame_jpeg() is None
    first = watched.read()
    assert setup.has_frame() and first.image is scene.frame
    jpeg = setup.frame_jpeg()
    assert setup.frame_jpeg() is jpeg  # encoded once per frame
    second = watched.read()
    assert watched.read() is None
    assert setup.frame_jpeg() != jpeg and second.timestamp == 1.0
    watched.close()
    assert source.closed


def test_parse_corner_list():
    assert parse_corner_list([[1, 2], [3, 4], [5, 6], [7, 8.5]])[3] == (7.0, 8.5)
    for bad in (None, {}, [[1, 2]] * 3, [[1, 2], [3, 4], [5, 6], [7, float("inf")]]):
        with pytest.raises(TrayProfileError):
            parse_corner_list(bad)
