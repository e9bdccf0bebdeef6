"""The camera demo: rendered throws through the camera path end up in the log correctly."""

import pytest

from companion.demo import CameraDemo
from companion.pipeline import Companion
from companion.vision.occlusion import OcclusionDetector
from companion.vision.recognizer import PipRecognizer
from companion.vision.settle import SettleDetector


@pytest.mark.slow
def test_every_turn_is_stored_with_the_dice_that_were_thrown(table):
    game = table.create_game(
        "schocken", {"players": ["Anna", "Ben", "Carl"], "starter": "Anna"}, pin="1234"
    )
    # Settled as the demo settles its camera (``demo_parts``): with the occlusion check.
    settle = SettleDetector(0.6, occlusion=OcclusionDetector(None))
    companion = Companion(table, {"schocken": PipRecognizer()}, settle)
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
    # The camera reads the throws: the button records them as read (none entered by hand
    # because the camera saw something in the tray), and what it recorded is what was thrown.
    assert [r.by for r in results] == ["button"] * 4, results
    for r in results:
        assert r.read == r.truth
    # Every frame went through the companion: 3 or 4 of the dice flying, 5 at rest.
    assert 4 * (3 + 5) <= companion.frames <= 4 * (4 + 5)


def test_the_demo_stops_when_its_game_is_no_longer_active(table):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"},
                             pin="1234")
    table.create_game("schocken", {"players": ["Cleo", "Dan"], "starter": "Dan"}, pin="1234")
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.6))
    assert CameraDemo(table, companion, game, size=(960, 720)).step() is None


def _dice_in_force(snap: dict) -> list[list[int]]:
    stored = {}
    for entry in snap["history"]:
        action = entry["action"]
        if entry.get("undone"):
            continue
        if action["action"] == "correct":
            stored[action["version"]] = action["event"]["dice"]
        else:
            stored[entry["version"]] = action["dice"]
    return list(stored.values())


def test_the_camera_game_starts_a_fresh_game_when_one_ends_and_keeps_playing(table):
    # One Deckel a half: a short game, so the test sees the next one begin.
    players = {"players": ["Anna", "Ben"], "starter": "Anna", "rules": {"deckel": 1}}
    game = table.create_game("schocken", players, pin="1234")
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.6))
    waits = []

    def wait() -> bool:
        waits.append(1)
        return False

    demo = CameraDemo(table, companion, game, seed=5, size=(640, 480), wait=wait, loop=True,
                      pause=2)
    source = demo.source()
    first_turns = 0
    # Play through the demo's camera until the second game has two turns recorded.
    while demo.games < 2 or len(demo.results) < first_turns + 2:
        frame = source.read()
        assert frame is not None, "the demo camera stopped instead of starting a new game"
        companion.process(frame.image, frame.timestamp)
        if demo.games == 1:
            first_turns = len(demo.results) + 1  # + the throw being read
    first, second = table.snapshot(game), table.snapshot(demo.game_id)
    assert first["over"] and not second["over"]
    assert second["active"] and second["setup"] == first["setup"]
    listed = [g["id"] for g in table.list_games()]
    assert game not in listed and demo.game_id in listed  # the finished game left the list
    # Every turn of both games is stored with the dice that were thrown.
    assert _dice_in_force(first) == [r.truth for r in demo.results[:first_turns]]
    assert _dice_in_force(second) == [r.truth for r in demo.results[first_turns:]]
    # One wait before every throw (the last one is still being read), and the pause.
    assert len(waits) == len(demo.results) + 1 + 2


def test_the_camera_game_stops_when_another_game_is_put_at_the_table(table):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"},
                             pin="1234")
    companion = Companion(table, {"schocken": PipRecognizer()}, SettleDetector(0.6))
    demo = CameraDemo(table, companion, game, size=(480, 360), loop=True)
    table.create_game("schocken", {"players": ["Cleo", "Dan"], "starter": "Dan"}, pin="1234")
    assert demo.source().read() is None
