"""``companion demo`` and ``companion serve``: sample games played out, the real process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import PIN

from companion.cli import main
from companion.commands.web import FIXTURES
from companion.demo import DemoPlayer, demo_logs

ROOT = Path(__file__).resolve().parents[2]


def test_demo_takes_one_log_per_game_kind():
    logs = demo_logs(FIXTURES)
    assert sorted(logs) == ["rockthebock", "schocken", "wacken"]
    assert all(path.name.startswith(f"{name}-") for name, path in logs.items())


def test_demo_without_logs_says_where_it_looked(tmp_path):
    with pytest.raises(ValueError, match="no game logs"):
        demo_logs(tmp_path)


def test_demo_player_starts_empty_and_ends_at_the_logged_standings(table):
    logs = demo_logs(FIXTURES)
    player = DemoPlayer(table, logs, pin=PIN)
    assert [table.snapshot(g)["version"] for g in player.game_ids] == [0, 0, 0]
    assert player.step()
    assert all(table.snapshot(g)["version"] == 1 for g in player.game_ids)
    waits = []
    player.run(lambda: waits.append(1) and False)
    for game_id, path in zip(player.game_ids, logs.values(), strict=True):
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text("utf-8"))
        assert table.snapshot(game_id)["standings"] == expected, path.name
        assert table.verify_pin(game_id, PIN)
    longest = max(len(p.read_text().strip().splitlines()) - 1 for p in logs.values())
    # One wait per remaining step of the longest log, and one more to find nothing left.
    assert len(waits) == longest


def test_demo_player_loops_its_games_for_late_newcomers(table):
    logs = demo_logs(FIXTURES)
    player = DemoPlayer(table, logs, pin=PIN)
    first = player.game_ids
    table.activate(first[0])
    longest = max(len(p.read_text().strip().splitlines()) - 1 for p in logs.values())
    waits = []

    def wait() -> bool:  # stop two steps into the second round of play
        waits.append(1)
        return len(waits) > longest + 1 + 3 + 2

    player.run(wait, loop=True, pause=3)
    second = player.game_ids
    assert not set(first) & set(second)
    listed = [g["id"] for g in table.list_games()]
    assert sorted(listed) == sorted(second)  # the played-out copies left the list
    assert table.active_game_id() == second[0]
    assert all(table.snapshot(g)["version"] == 2 for g in second)
    assert all(table.snapshot(g)["over"] for g in first)  # still stored, played out


def test_demo_refuses_a_bad_speed(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--speed", "0"])
    assert exit_info.value.code == 2
    assert "speed must be above 0" in capsys.readouterr().err


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_demo_process_serves_live_games_and_cleans_up_on_sigterm(tmp_path):
    port = free_port()
    env = dict(os.environ, TMPDIR=str(tmp_path))
    env.pop("COMPANION_CONFIG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "demo", "--port", str(port), "--speed", "20"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any("Scorekeeper PIN" in line for line in lines):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line)
        assert lines[0].strip() == f"Dashboard: http://127.0.0.1:{port}/"
        assert "█" in "".join(lines)  # the text QR code
        first = get_json(f"http://127.0.0.1:{port}/games.json")
        # the three logged games, then the Schocken game the camera pipeline plays
        assert [g["game"] for g in first["games"]] == [
            "schocken", "rockthebock", "wacken", "schocken"
        ]
        assert first["active"] == first["games"][3]["id"]  # the camera drives the active game
        time.sleep(0.5)  # a few steps at 0.1 s each
        later = get_json(f"http://127.0.0.1:{port}/games.json")
        assert later["games"][0]["version"] > first["games"][0]["version"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0, err
    assert not list(tmp_path.glob("companion-demo-*"))  # the temporary data dir is gone
