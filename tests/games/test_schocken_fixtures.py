"""Schocken game logs in fixtures/games replay to their expected standings.

The ``.expected.json`` files were worked out by hand from the throws (each round's
best and worst throw, the Deckel moved); the tests below also walk the key rounds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games import schocken
from companion.registry import GAMES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "games"
LOGS = sorted(FIXTURES.glob("schocken-*.jsonl"))


def states(path: Path) -> list[schocken.State]:
    """The state after every line of a log (these fixtures have no undo lines)."""
    lines = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]
    header = lines[0]
    assert header["format"] == "dice-companion-log" and header["version"] == 1
    assert GAMES.rules(header["game"]) is schocken
    out = [schocken.start(schocken.Setup.from_dict(header["setup"]))]
    for line in lines[1:]:
        out.append(schocken.apply(out[-1], schocken.event_from_dict(line)))
    return out


def rounds(path: Path) -> list[schocken.RoundResult]:
    """Every finished round of the log, in order."""
    results: list[schocken.RoundResult] = []
    for state in states(path):
        if state.last_round is not None and (not results or state.last_round is not results[-1]):
            results.append(state.last_round)
    return results


def test_there_are_schocken_fixtures() -> None:
    assert {p.stem for p in LOGS} >= {"schocken-finale", "schocken-durchmarsch",
                                      "schocken-schock-aus", "schocken-handschock"}


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_log_replays_to_expected_standings(path: Path) -> None:
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    assert schocken.standings(states(path)[-1]) == expected


def _moves(path: Path) -> list[tuple[object, str, int, str]]:
    return [(r.part, r.loser, r.deckel, r.source) for r in rounds(path)]


def test_finale_game_by_hand() -> None:
    assert _moves(FIXTURES / "schocken-finale.jsonl") == [
        (1, "Ben", 3, "middle"),   # Carl's Schock 3 is best; Ben's 4-4-2 worst
        (1, "Anna", 2, "middle"),  # General sets 3, only 2 left in the middle
        (1, "Ben", 2, "Anna"),     # phase 2: Anna reveals 1-1-2 and gives her 2, Ben holds 5
        (2, "Anna", 1, "middle"),  # 5-2-1 twice: Ben threw first and wins; 4-3-2 is normal
        (2, "Carl", 5, "schock_aus"),  # Ben's hand 1-1-1 beats Anna's assembled 1-1-1
        ("finale", "Ben", 2, "middle"),  # Carl's Straße 6-5-4
        ("finale", "Carl", 3, "middle"),  # Schock 6, 3 left in the middle
        ("finale", "Ben", 3, "Carl"),  # 4-4-4 tie: Ben threw later and loses the game
    ]


def test_durchmarsch_game_by_hand() -> None:
    assert _moves(FIXTURES / "schocken-durchmarsch.jsonl") == [
        (1, "Anna", 1, "middle"),
        (1, "Ben", 2, "middle"),       # Carl is out: no Deckel when the middle empties
        (1, "Anna", 2, "schock_aus"),  # Schock aus in phase 2: Anna had 1, gets Ben's 2
        (2, "Anna", 3, "middle"),      # Handschock 4 beats the earlier assembled Schock 4
    ]


def test_schock_aus_game_by_hand() -> None:
    path = FIXTURES / "schocken-schock-aus.jsonl"
    assert _moves(path) == [
        (1, "Ben", 1, "middle"),          # seed example: 6-5-1 beats 5-4-2
        (1, "Anna", 13, "schock_aus"),    # phase 1: middle 12 and Ben's 1
        (2, "Ben", 6, "middle"),
        (2, "Anna", 6, "middle"),
        (2, "Ben", 1, "middle"),          # equal Handschocks 5: the later Ben loses, 1 left
        (2, "Ben", 6, "schock_aus"),      # phase 2: Ben had 7, gets Anna's 6
        ("finale", "Anna", 13, "schock_aus"),  # Ben's hidden 1-1-1h ties Anna's; he threw first
    ]


def test_handschock_tiebreak_against_turn_order() -> None:
    on = rounds(FIXTURES / "schocken-handschock.jsonl")
    assert [e.player for e in on[0].ranking] == ["Ben", "Carl", "Anna"]
    assert [e.player for e in on[1].ranking] == ["Anna", "Ben", "Carl"]  # 1-1-3 > 1-1-2h
    off = rounds(FIXTURES / "schocken-handschock-off.jsonl")
    assert [e.player for e in off[0].ranking] == ["Anna", "Ben", "Carl"]
