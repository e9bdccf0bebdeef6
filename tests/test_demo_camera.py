"""The camera demo: rendered throws through the camera path end up in the log correctly."""

from companion.app import Companion
from companion.camera_demo import CameraDemo
from companion.vision.recognizer import PipRecognizer
from companion.vision.settle import SettleDetector


def test_every_turn_is_stored_with_the_dice_that_were_thrown(table):
    game = table.create_game(
        "schocken", {"players": ["Anna", "Ben", "Carl"], "starter": "Anna"}, pin="1234"
    )
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.6))
    demo = CameraDemo(table, companion, game, seed=5, size=(960, 720))
    results = [demo.step() for _ in range(4)]
    assert [r.player for r in results] == ["Anna", "Ben", "Carl", results[3].player]
    snap = table.snapshot(game)
    in_force = [h for h in snap["history"] if not h.get("undone")]
    stored = {}
    for entry in in_force:
        action = entry["action"]
        if action["action"] == "correct":
            stored[action["version"]] = action["event"]["dice"]
        else:
            stored[entry["version"]] = action["dice"]
    assert list(stored.values()) == [r.truth for r in results]
    # a throw the button recorded is exactly what the camera read
    for r in results:
        if r.by == "button":
            assert r.read == r.truth
    assert companion.frames == 4 * 7


def test_the_demo_stops_when_its_game_is_no_longer_active(table):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"},
                             pin="1234")
    table.create_game("schocken", {"players": ["Cleo", "Dan"], "starter": "Dan"}, pin="1234")
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.6))
    assert CameraDemo(table, companion, game, size=(960, 720)).step() is None
