"""Rock the Bock game logs in fixtures/games replay to their expected standings."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from companion.games import rockthebock as rtb
from companion.registry import GAMES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "games"


def replay_log(path: Path) -> tuple[ModuleType, object]:
    """Replay a dice-companion-log file (format in the common contract) to its final state."""
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()
             if text.strip()]
    header = lines[0]
    assert header["format"] == "dice-companion-log" and header["version"] == 1
    module = GAMES.rules(header["game"])
    actions: list[dict] = []
    for line in lines[1:]:
        if line["action"] == "undo":
            actions.pop()
        else:
            actions.append(line)
    state = module.start(module.Setup.from_dict(header["setup"]))
    for action in actions:
        state = module.apply(state, module.event_from_dict(action))
    return module, state


LOGS = sorted(FIXTURES.glob("rockthebock-*.jsonl"))


def test_there_are_rock_the_bock_fixtures():
    assert {p.name for p in LOGS} >= {"rockthebock-2p.jsonl", "rockthebock-4p.jsonl"}


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_log_replays_to_expected_standings(path: Path):
    module, state = replay_log(path)
    assert module is rtb and rtb.is_over(state)
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    assert rtb.standings(state) == expected


def scores(state: rtb.State) -> dict[str, list[int]]:
    return {p["name"]: [r["score"] for r in p["rounds"]] for p in rtb.standings(state)["players"]}


# The facts below were worked out by hand from the logs, turn by turn.


def test_two_player_game_by_hand():
    _, state = replay_log(FIXTURES / "rockthebock-2p.jsonl")
    # Anna R1: B2 W0 G5 → +5; R2: B6 W5 G2 → +2; R3: G6 without bocks or wolves → 0
    # Ben  R1: B4 W4 G3 → 0;  R2: W2 G5 → −5;     R3: B4 G4 → +4
    assert scores(state) == {"Anna": [5, 2, 0], "Ben": [0, -5, 4]}
    assert rtb.totals(state) == (7, -1)
    assert rtb.standings(state)["winners"] == ["Anna"]
    # Ben dumped 1 green goat (R1) and 6 yellow goats (R3): crossed off, recorded by nobody
    first, _, third = state.completed
    assert sum(s.bocks + s.wolves + s.goats for s in first) == 20 - 2
    assert sum(s.bocks + s.wolves + s.goats for s in third) == 20 - 6


def test_four_player_game_by_hand():
    _, state = replay_log(FIXTURES / "rockthebock-4p.jsonl")
    assert scores(state) == {
        "Anna": [2, -10, 11],  # R2: 4 wolves from Cleo after Anna had finished, no bocks
        "Ben": [0, 0, -7],
        "Cleo": [5, 0, 0],
        "Dora": [0, 3, 0],
    }
    assert rtb.totals(state) == (3, -7, 5, 3)
    assert rtb.standings(state)["winners"] == ["Cleo"]
    # wolves given to players who had already finished the round
    assert state.completed[0][0].wolves == 6 and state.completed[0][2].wolves == 3


def test_forbidden_rerolls_and_shared_win_by_hand():
    _, state = replay_log(FIXTURES / "rockthebock-3p-forbidden-tie.jsonl")
    assert scores(state) == {"Anna": [-4, 8, 1], "Ben": [0, 5, 0], "Cleo": [0, 0, 0]}
    assert rtb.standings(state)["winners"] == ["Anna", "Ben"]
