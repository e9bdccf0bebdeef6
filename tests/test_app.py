"""The composition root: ``build`` puts ``serve``, ``run`` and ``demo`` together one way."""

import threading
import time

import pytest
from test_pipeline import record_throw

from companion.app import build
from companion.commands.web import FIXTURES
from companion.config import Settings
from companion.demo import demo_logs, demo_parts
from companion.hardware.camera import ReplaySource
from companion.store import Store


def wait_until(predicate, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_serve_is_the_dashboard_alone(tmp_path):
    settings = Settings(data_dir=tmp_path)
    with Store(settings.database) as store:
        built = build(settings, store)
        assert built.companion is None and built.threads == []
        assert built.app.config["NOTICES"] == ()
        assert built.table.status() == [] and built.table.tray_setup() is None
        subscription = built.table.subscribe()
        built.close()
        assert subscription.closed  # closing the companion wakes every live page


def test_run_wires_the_camera_the_tray_setup_and_the_health_checks(tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    paths = record_throw(frames, 0, seed=11, faces=(3, 3, 3))
    settings = Settings(data_dir=tmp_path / "data", camera=f"replay:{frames}")
    opened = []

    def open_source(spec, **options):
        opened.append(spec)
        ticks = iter(float(i) * 0.2 for i in range(100))
        return ReplaySource(paths, clock=ticks.__next__)

    with Store(settings.database) as store:
        built = build(settings, store, hardware=True, open_source=open_source)
        assert [t.name for t in built.threads] == ["camera"]
        assert built.table.tray_setup() is not None
        assert {c["name"] for c in built.table.status()} >= {"camera"}
        built.start()
        wait_until(lambda: not built.threads[0].is_alive())  # a replay plays out once
        assert opened == [settings.camera]
        assert built.companion.frames == len(paths)
        built.close()


def test_the_demo_hands_the_builder_its_scorekeepers_and_its_camera(tmp_path):
    settings = Settings(data_dir=tmp_path)
    demo = demo_parts(settings, demo_logs(FIXTURES), seconds_per_step=0.01, pause=1)
    with Store(settings.database) as store:
        built = build(settings, store, demo=demo)
        games = built.table.list_games()
        assert [g["game"] for g in games] == ["schocken", "rockthebock", "wacken", "schocken"]
        assert built.table.active_game_id() == games[3]["id"]  # the camera plays the active one
        assert sorted(t.name for t in built.threads) == ["demo-camera", "demo-player-1"]
        built.start()
        wait_until(lambda: all(built.table.snapshot(g["id"])["version"] >= 1 for g in games))
        built.close()
        assert not any(t.is_alive() for t in built.threads)
        assert isinstance(built.stop, threading.Event) and built.stop.is_set()


@pytest.mark.slow
def test_companion_run_serves_the_dashboard_with_a_replay_camera(tmp_path):
    import json
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    frames = tmp_path / "frames"
    frames.mkdir()
    record_throw(frames, 0, seed=11, faces=(3, 3, 3))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, COMPANION_DATA_DIR=str(tmp_path / "data"), COMPANION_HOST="127.0.0.1")
    env.pop("COMPANION_CONFIG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--camera", f"replay:{frames}",
         "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout.readline().strip() == f"Dashboard: http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/games.json") as r:
                    listing = json.load(r)
                break
            except OSError:
                assert time.monotonic() < deadline, "the dashboard did not answer"
                time.sleep(0.2)
        assert listing["games"] == []
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0, err
    assert (tmp_path / "data" / "companion.sqlite3").exists()




def test_run_loads_only_the_recogniser_of_the_game_at_the_table(tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    paths = record_throw(frames, 0, seed=11, faces=(3, 3, 3))
    settings = Settings(data_dir=tmp_path / "data", camera=f"replay:{frames}")

    def open_source(spec, **options):
        ticks = iter(float(i) * 0.2 for i in range(100))
        return ReplaySource(paths, clock=ticks.__next__)

    with Store(settings.database) as store:
        built = build(settings, store, hardware=True, open_source=open_source)
        table = built.table
        table.activate(table.create_game(
            "schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, "123456"))
        recognizers = built.companion.recognizers
        assert not recognizers["schocken"].loaded and not recognizers["rockthebock"].loaded
        built.start()
        wait_until(lambda: not built.threads[0].is_alive())
        assert recognizers["schocken"].loaded
        assert not recognizers["rockthebock"].loaded  # a Schocken evening: no face models
        built.close()


def test_a_recogniser_that_fails_to_load_says_so_at_every_read(tmp_path):
    from companion.app import LazyRecognizer, preload
    from companion.registry import Recognition

    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    lazy = LazyRecognizer(Settings(data_dir=tmp_path, calibration=broken), Recognition("pips"))
    preload({"schocken": lazy}, "schocken")  # logged, not raised: the dashboard stays up
    assert not lazy.loaded
    for _ in range(2):
        with pytest.raises(ValueError):
            lazy.read(None)


def test_reading_pip_dice_imports_no_face_models_training_or_synthesis():
    import subprocess
    import sys

    script = (
        "import sys, numpy as np\n"
        "from companion.app import default_recognizers\n"
        "from companion.config import Settings\n"
        "r = default_recognizers(Settings())['schocken']\n"
        "r.read(np.zeros((480, 640, 3), np.uint8))\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('companion.vision.faces',\n"
        "    'companion.vision.enrol', 'companion.synth', 'companion.evaluation', 'tools')))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout
