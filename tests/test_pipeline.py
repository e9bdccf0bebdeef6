"""The whole pipeline on recorded frames: replay source -> settle -> recogniser -> tracker
-> table (real SQLite) -> the button records the throw."""

import threading

import cv2
import numpy as np
import pytest

from companion.hardware.camera import ReplaySource
from companion.pipeline import Companion
from companion.synth.render import render_throw
from companion.synth.stage import render_stage
from companion.synth.writer import Writer
from companion.vision.occlusion import OcclusionDetector
from companion.vision.recognizer import PipRecognizer
from companion.vision.settle import SettleDetector
from companion.vision.types import Reading


def easy_scene(seed, faces):
    """The first render from ``seed`` on that is an easy scene by its ground truth: a grey
    tray, dice lying apart and well inside the tray floor. This test is about the wiring,
    not the recogniser's limits (those are measured by ``companion eval``)."""
    for s in range(seed, seed + 200):
        shot = render_throw(s, len(faces), size=(1280, 960), faces=faces)
        centers = [d.center for d in shot.dice]
        edge = max(d.size for d in shot.dice)
        apart = all(
            ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 > 2.5 * edge
            for i, a in enumerate(centers) for b in centers[i + 1:]
        )
        floor = np.array(shot.tray_corners, np.float32)
        inside = all(
            cv2.pointPolygonTest(floor, (float(x), float(y)), True) > 1.5 * edge
            for x, y in centers
        )
        if shot.tray == "grey" and apart and inside:
            return shot.image
    raise AssertionError("no easy scene found")


def record_throw(folder, index, seed, faces, still_frames=6):
    """Frames of one throw: two moving frames, then the dice lying still (long enough for
    the rest to be read from three frames)."""
    paths = []
    moving = [render_throw(seed + 1000 + k, 3, size=(1280, 960)).image for k in range(2)]
    still = easy_scene(seed, faces)
    for k, image in enumerate(moving + [still] * still_frames):
        path = folder / f"{index:03d}-{k:02d}.png"
        cv2.imwrite(str(path), image)
        paths.append(path)
    return paths


@pytest.mark.slow
def test_recorded_throws_are_read_and_recorded_by_the_button(tmp_path, table):
    game = table.create_game(
        "schocken", {"players": ["Anna", "Ben"], "starter": "Anna", "rules": {}}, pin="1234"
    )
    companion = Companion(
        table, {"schocken": PipRecognizer()}, SettleDetector(still_seconds=0.2)
    )
    throws = {"Anna": (1, 1, 4), "Ben": (6, 5, 2)}
    for index, (player, faces) in enumerate(throws.items()):
        paths = record_throw(tmp_path, index, seed=40 + index, faces=faces)
        ticks = iter(float(i) * 0.1 for i in range(100))
        source = ReplaySource(paths, clock=ticks.__next__)
        companion.run_camera(source, threading.Event())
        picture = table.latest_picture()
        assert picture is not None, "a settled throw publishes an annotated picture"
        jpeg, info = picture
        assert jpeg[:2] == b"\xff\xd8"
        assert sorted(d["value"] for d in info["dice"]) == sorted(faces)
        assert info["annotated"] and info["frame_size"] == [1280, 960]
        assert info["proposal"]["action"]["player"] == player
        outcome = companion.confirm()
        assert outcome.recorded is not None, outcome.message
    snap = table.snapshot(game)
    stored = [h["action"] for h in snap["history"]]
    assert stored == [
        {"action": "throw", "player": "Anna", "throws": 1, "dice": [4, 1, 1], "hand": True},
        {"action": "throw", "player": "Ben", "throws": 1, "dice": [6, 5, 2], "hand": True},
    ]
    # Schock 4 beats 6-5-2: Ben takes 4 Deckel from the middle.
    players = {p["name"]: p["deckel"] for p in snap["view"]["players"]}
    assert players == {"Anna": 0, "Ben": 4}


def test_button_without_a_new_throw_records_nothing(table):
    table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234")
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.2))
    outcome = companion.confirm()
    assert outcome.recorded is None
    assert "no throw seen" in outcome.message


def test_long_press_undoes_the_last_entry(table):
    game = table.create_game(
        "schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234"
    )
    table.submit(game, {"action": "throw", "player": "Anna", "dice": [3, 2, 1], "throws": 1},
                 "phone")
    companion = Companion(table, {}, SettleDetector(0.2))
    assert companion.undo().recorded == {"action": "undo"}
    assert table.snapshot(game)["view"]["to_throw"] == "Anna"


@pytest.mark.slow
def test_a_bad_frame_is_skipped_and_the_camera_goes_on(tmp_path, table):
    table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234")
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.2))
    paths = record_throw(tmp_path, 0, seed=40, faces=(2, 2, 2))
    broken = tmp_path / "000-00b.png"
    broken.write_bytes(b"garbage")
    ticks = iter(float(i) * 0.1 for i in range(100))
    source = ReplaySource(sorted([*paths, broken]), clock=ticks.__next__)
    companion.run_camera(source, threading.Event())
    assert companion.bad_frames == 1
    assert companion.confirm().recorded["dice"] == [2, 2, 2]


@pytest.mark.slow
def test_the_camera_is_reopened_after_a_fault(tmp_path, table):
    from companion.hardware.camera import CameraError
    from companion.pipeline import camera_loop

    table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234")
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.2))
    paths = record_throw(tmp_path, 0, seed=3, faces=(5, 5, 5))
    attempts = []

    def opener():
        attempts.append(1)
        if len(attempts) == 1:
            raise CameraError("USB camera 0 could not be opened")
        ticks = iter(float(i) * 0.1 for i in range(100))
        return ReplaySource(paths, clock=ticks.__next__)

    camera_loop(companion, opener, threading.Event(), retry_seconds=0.01, finite=True)
    assert len(attempts) == 2
    assert companion.frames == len(paths)


@pytest.mark.slow
def test_any_exception_in_the_frame_path_is_logged_and_the_loop_goes_on(tmp_path, table, caplog):
    table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234")
    real = PipRecognizer()
    calls = []

    class Flaky:
        def read(self, frame):
            calls.append(1)
            if len(calls) == 1:
                raise RuntimeError("a bug in the recogniser")
            return real.read(frame)

    companion = Companion(table, {"schocken": Flaky()}, SettleDetector(0.2))
    paths = record_throw(tmp_path, 0, seed=40, faces=(2, 2, 2), still_frames=10)
    ticks = iter(float(i) * 0.1 for i in range(100))
    companion.run_camera(ReplaySource(paths, clock=ticks.__next__), threading.Event())
    assert companion.bad_frames == 1
    assert "a bug in the recogniser" in caplog.text
    assert companion.confirm().recorded["dice"] == [2, 2, 2]


def test_a_changed_frame_size_starts_settle_detection_afresh(table):
    companion = Companion(table, {}, SettleDetector(0.2))
    big = np.full((480, 640, 3), 120, np.uint8)
    for i in range(5):
        companion.process(big, i * 0.1)
    assert companion.settle.state != "moving"
    companion.process(np.full((240, 320, 3), 120, np.uint8), 1.0)
    assert companion.settle.state == "moving" and companion.settle.frame_size == (320, 240)


class _Follower:
    """A recogniser that reads no dice and notes where it is told the tray moved."""

    def __init__(self):
        self.knocks = []

    def read(self, frame):
        return Reading("pips", (), (frame.shape[1], frame.shape[0]))

    def follow_tray(self, knocked):
        self.knocks.append(knocked)


class _Reader:
    """A recogniser without a tray to follow (it has no ``follow_tray``)."""

    def read(self, frame):
        return Reading("bock", (), (frame.shape[1], frame.shape[0]))


def test_a_knocked_camera_moves_the_tray_of_every_recogniser(table):
    """The camera's stand knocked by 16x10 px of a 640x480 frame between two rests: the
    next rest is read after each recogniser that reads in a calibrated tray was told how
    far the picture moved; recognisers set up afterwards (a game's models loaded) are
    told too."""
    writer = Writer(render_stage(5), np.random.default_rng(1), 15.0)
    writer.hold(1.0)
    writer.throw()
    writer.hold(1.5)
    knock = len(writer.frames)
    writer.hold(1.5)
    shift = np.float32([[1, 0, 16], [0, 1, 10]])
    for i in range(knock, len(writer.frames)):
        writer.frames[i] = cv2.warpAffine(writer.frames[i], shift, (640, 480),
                                          borderMode=cv2.BORDER_REPLICATE)
    pips = _Follower()
    companion = Companion(table, {"schocken": pips, "rockthebock": _Reader()},
                          SettleDetector(0.6, occlusion=OcclusionDetector()))
    for i, frame in enumerate(writer.frames[:knock]):
        companion.process(frame, i / 15.0)
    assert pips.knocks == []
    for i, frame in enumerate(writer.frames[knock:], start=knock):
        companion.process(frame, i / 15.0)
    assert len(pips.knocks) == 1
    assert pips.knocks[0] == pytest.approx((16 / 640, 10 / 480), abs=0.002)
    later = _Follower()
    companion.use_recognizers({"schocken": later})
    assert later.knocks == pips.knocks


class _Finder:
    """A recogniser that reads no dice and finds the tray ``tray`` in every frame."""

    def __init__(self, tray):
        self.tray = tray
        self.asked = 0
        self.forgotten = []
        self.seen = {}  # outlines seen with no dice in them, by frame size

    def read(self, frame):
        return Reading("pips", (), (frame.shape[1], frame.shape[0]))

    def found_tray(self, frame, look=False):
        self.asked += 1
        return self.tray

    def seen_tray(self, frame_size):
        return self.seen.get(frame_size)

    def forget_tray(self, frame_size):
        self.forgotten.append(frame_size)


def test_without_a_calibration_the_tray_the_active_games_recogniser_finds_is_watched(table):
    """A camera that shows a table around the tray, not calibrated: the settle detector
    watches the tray the active game's recogniser finds (``found_tray``), not the whole
    frame; without a game, or for a recogniser that finds none, nothing changes."""
    from companion.synth.scene import on_a_stand
    from companion.vision.tray import TrayProfile

    writer = Writer(render_stage(5), np.random.default_rng(1), 15.0)
    writer.hold(1.0)
    writer.throw()
    writer.hold(1.5)
    corners = np.array(((700, 300), (1200, 320), (1210, 700), (690, 690)), np.float64)
    frames = on_a_stand(writer.frames, corners, (1920, 1080), np.random.default_rng(3))
    tray = TrayProfile((1920, 1080), tuple((float(x), float(y)) for x, y in corners), 30.0,
                       (150.0, 150.0, 150.0))
    finder = _Finder(tray)
    settle = SettleDetector(0.6, occlusion=OcclusionDetector())
    companion = Companion(table, {"schocken": finder, "rockthebock": _Reader()}, settle)
    for i, frame in enumerate(frames):
        companion.process(frame, i / 15.0)
    assert finder.asked == 0 and settle.occlusion.profile is None  # no game at the table
    table.create_game("rockthebock", {"players": [{"name": "Rita", "colour": "red"},
                                                  {"name": "Bo", "colour": "blue"}],
                                      "youngest": "Rita"}, pin="1234")
    for i, frame in enumerate(frames, start=len(frames)):
        companion.process(frame, i / 15.0)
    assert finder.asked == 0 and settle.occlusion.profile is None  # it finds no tray
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"},
                             pin="1234")
    table.activate(game)
    for i, frame in enumerate(frames, start=2 * len(frames)):
        companion.process(frame, i / 15.0)
    assert finder.asked > 0 and settle.occlusion.profile is tray
    assert settle.occlusion.window((1920, 1080)) == (648, 268, 1252, 732)  # 8 % around
    # A tray the watcher doubts is forgotten by the recogniser that found it.
    companion.watcher.forget((1920, 1080))
    assert finder.forgotten == [(1920, 1080)]
    # The outline a look saw with no dice in it is the active game's recogniser's.
    finder.seen[(1920, 1080)] = tray.corners
    assert companion.watcher.seen((1920, 1080)) == tray.corners
    assert companion.watcher.seen((1280, 960)) is None


@pytest.mark.slow
def test_a_schocken_turn_with_hands_cups_and_coasters_in_between(table):
    """Throw count and hand status of the recorded turns stay right with occluders."""
    from companion.synth.stage import render_stage
    from companion.synth.writer import Writer, occluder
    from companion.vision.occlusion import OcclusionDetector

    game = table.create_game(
        "schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234"
    )
    companion = Companion(
        table, {"schocken": PipRecognizer()}, SettleDetector(0.6, occlusion=OcclusionDetector())
    )
    writer = Writer(render_stage(5), np.random.default_rng(31), 15.0)
    clock = iter(float(i) / 15.0 for i in range(100000))
    fed = 0

    def feed():
        nonlocal fed
        for frame in writer.frames[fed:]:
            companion.process(frame, next(clock))
        fed = len(writer.frames)

    writer.hold(1.0)
    writer.throw()  # Anna's first throw
    writer.hold(1.5)
    occluder(writer, "rest")
    writer.throw(keep=1)  # second throw, one die kept aside
    writer.hold(1.5)
    occluder(writer, "cup")
    occluder(writer, "coaster")
    feed()
    anna = writer.values()
    outcome = companion.confirm()
    assert outcome.recorded is not None, outcome.message
    assert outcome.recorded["throws"] == 2 and outcome.recorded["hand"] is False
    assert sorted(outcome.recorded["dice"]) == anna
    writer.throw(quick=False)  # Ben: one throw, all dice
    writer.hold(1.5)
    occluder(writer, "rest")
    occluder(writer, "shadow")
    occluder(writer, "pass")
    feed()
    ben = writer.values()
    outcome = companion.confirm()
    assert outcome.recorded is not None, outcome.message
    assert outcome.recorded["throws"] == 1 and outcome.recorded["hand"] is True
    assert sorted(outcome.recorded["dice"]) == ben
    assert len(table.snapshot(game)["history"]) == 2


@pytest.mark.slow
def test_a_blocked_tray_is_shown_on_the_camera_page(table):
    from companion.synth.stage import render_stage
    from companion.synth.writer import Writer, occluder
    from companion.vision.occlusion import OcclusionDetector

    table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234")
    companion = Companion(
        table, {"schocken": PipRecognizer()}, SettleDetector(0.6, occlusion=OcclusionDetector())
    )
    writer = Writer(render_stage(5), np.random.default_rng(2), 15.0)
    writer.hold(1.0)
    occluder(writer, "rest")
    blocked = []
    for i, frame in enumerate(writer.frames):
        companion.process(frame, i / 15.0)
        latest = table.latest_picture()
        if latest is not None and latest[1].get("blocked"):
            blocked.append(latest[1]["blocked"])
    assert blocked and blocked[0] == "hand in the tray"


@pytest.mark.slow
def test_the_first_players_hidden_third_throw_under_a_cup_left_standing(table):
    """The cup over Anna's third throw is "covered" and proposed as the hidden throw; Ben
    throws beside the standing cup and is read; lifted, the cup shows the reveal."""
    from companion.synth.stage import render_stage
    from companion.synth.writer import Writer
    from companion.vision.occlusion import OcclusionDetector

    game = table.create_game(
        "schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234"
    )
    companion = Companion(
        table, {"schocken": PipRecognizer()}, SettleDetector(0.6, occlusion=OcclusionDetector())
    )
    writer = Writer(render_stage(5), np.random.default_rng(41), 15.0)
    fed = 0

    def feed():
        nonlocal fed
        for frame in writer.frames[fed:]:
            companion.process(frame, fed / 15.0)
            fed += 1

    writer.hold(1.0)
    writer.throw()
    writer.hold(1.5)
    writer.throw()
    writer.hold(1.5)
    writer.hidden(2.0, stay=True)
    feed()
    assert companion.settle.state == "covered"
    outcome = companion.confirm()
    assert outcome.recorded == {"action": "throw", "player": "Anna", "throws": 3, "hidden": True}
    writer.throw()  # Ben, beside the cup that stays over Anna's dice
    writer.hold(1.5)
    feed()
    ben = writer.values()
    outcome = companion.confirm()
    assert outcome.recorded is not None, outcome.message
    assert outcome.recorded["player"] == "Ben" and outcome.recorded["throws"] == 1
    assert sorted(outcome.recorded["dice"]) == ben
    writer.take()  # Ben's dice out of the tray; then Anna lifts her cup
    writer.hold(1.0)
    writer.lift()
    writer.hold(1.5)
    feed()
    anna = writer.values()
    outcome = companion.confirm()
    assert outcome.recorded is not None, outcome.message
    assert outcome.recorded["action"] == "reveal" and outcome.recorded["player"] == "Anna"
    assert sorted(outcome.recorded["dice"]) == anna
    assert len(table.snapshot(game)["history"]) == 3


def test_what_the_button_says_is_said_in_german_too(table):
    # The phones show the button's answer in German by default: its own messages, and
    # the table's refusals worded by the catalogue like every refusal on the dashboard.
    companion = Companion(table, {}, SettleDetector(0.2))
    none = companion.undo()
    assert (none.message, none.german) == ("no game is running", "Es läuft kein Spiel")
    table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, pin="1234")
    refused = companion.undo()
    assert refused.recorded is None
    assert refused.german and refused.german != refused.message
    from companion.wording import file_catalogue

    assert refused.german != file_catalogue("de")["refusal_unknown"]
    nothing = companion.confirm()
    assert nothing.german == "Seit dem letzten Eintrag wurde kein Wurf gesehen"


@pytest.mark.slow
def test_a_rock_the_bock_picture_carries_outlines_and_leaves_the_names_to_the_page(
    tmp_path, table
):
    # Face names are words in the phone's language (and OpenCV's fonts have no umlauts):
    # the runtime burns in the outlines alone and says so; the page writes the names.
    from companion.vision.faces import BockRecognizer

    table.create_game(
        "rockthebock",
        {"players": [{"name": "Rita", "colour": "red"}, {"name": "Bo", "colour": "blue"}],
         "youngest": "Rita"},
        pin="1234",
    )
    companion = Companion(table, {"rockthebock": BockRecognizer()}, SettleDetector(0.2))
    faces = ("wolf", "bock", "goat_red", "goat_blue", "goat_green")
    moving = [render_throw(s, 5, kind="bock", size=(1280, 960)).image for s in (301, 302)]
    still = render_throw(303, 5, kind="bock", size=(1280, 960), faces=faces).image
    paths = []
    for k, image in enumerate(moving + [still] * 6):
        paths.append(tmp_path / f"{k:02d}.png")
        cv2.imwrite(str(paths[-1]), image)
    ticks = iter(float(i) * 0.1 for i in range(100))
    companion.run_camera(ReplaySource(paths, clock=ticks.__next__), threading.Event())
    picture = table.latest_picture()
    assert picture is not None, "a settled throw publishes a picture"
    jpeg, info = picture
    assert info["annotated"] is True and info["labelled"] is False
    assert sorted(d["value"] for d in info["dice"]) == sorted(faces)
    drawn = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).astype(int)
    for die in info["dice"]:
        (x, y), size = die["region"]["center"], die["region"]["size"]
        # Where a label would stand (above the die, clear of its outline) the picture is
        # the frame as the camera sent it, within JPEG noise ...
        top, left = int(y - size * 1.2), int(x - size * 0.4)
        above = np.s_[max(0, top):int(y - size * 0.8), max(0, left):int(x + size * 0.4)]
        assert np.abs(drawn[above] - still[above].astype(int)).mean() < 6
        # ... and the outline is drawn.
        corners = np.array(die["region"]["corners"], np.int32)
        edge = drawn[corners[0][1], corners[0][0]] - still[corners[0][1], corners[0][0]]
        assert np.abs(edge).max() > 40


def test_the_published_proposal_carries_the_draft_for_the_phones():
    from companion.pipeline import _proposal_dict
    from companion.turns import Proposal

    draft = {"action": "throw", "player": "Ben", "dice": [6, 5, 2], "throws": 1, "hand": True}
    said = _proposal_dict(Proposal(None, "a die is unclear", "Ein Würfel ist unklar", draft))
    assert said == {"action": None, "draft": draft,
                    "text": {"en": "a die is unclear", "de": "Ein Würfel ist unklar"}}
