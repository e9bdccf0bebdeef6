"""Kacken auf Wacken game logs in fixtures/games replay to their expected standings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games import wacken as wk
from companion.registry import GAMES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "games"
LOGS = sorted(FIXTURES.glob("wacken-*.jsonl"))


def replay_log(path: Path) -> wk.State:
    """Replay a dice-companion-log file (no undo lines in these fixtures) to its final state."""
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()
             if text.strip()]
    header = lines[0]
    assert header["format"] == "dice-companion-log" and header["version"] == 1
    assert GAMES.rules(header["game"]) is wk
    state = wk.start(wk.Setup.from_dict(header["setup"]))
    for line in lines[1:]:
        state = wk.apply(state, wk.event_from_dict(line))
    return state


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_log_replays_to_expected_standings(path: Path):
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    assert wk.standings(replay_log(path)) == expected


def test_seed_game_by_hand():
    state = replay_log(FIXTURES / "wacken-seed.jsonl")
    # 1: the seed example, 2 songs × 3 beers = 6: Anna 6 × 1 = 6, Ben 6 × (2 + 1) = 18
    # 2: cancelled by a Kack card: nothing
    # 3: 3 songs × (1 + 2) beers = 9: Cleo 9 × (2 + 1) = 27, Anna 9 × 1 = 9
    results = [e.result for e in state.history]
    assert results[1] is None
    assert [f.wristbands for f in results[0].fans] == [6, 18]
    assert [f.wristbands for f in results[2].fans] == [27, 9]
    assert state.wristbands == (15, 18, 27)
    table = wk.standings(state)
    assert table["winners"] == ["Cleo"] and table["reason"] == "rock_deck_empty"
