"""Every recorded game in fixtures/games replays to its hand-checked standings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.domain.gamelog import format_log, read_log
from companion.registry import GAMES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "games"
LOGS = sorted(FIXTURES.glob("*.jsonl"))


def test_fixtures_exist_for_every_game_and_come_in_pairs():
    expected = sorted(FIXTURES.glob("*.expected.json"))
    assert [p.name.removesuffix(".jsonl") for p in LOGS] == [
        p.name.removesuffix(".expected.json") for p in expected
    ]
    # File names start with the game they record, so a reader knows what to expect.
    games = {p.name.split("-")[0] for p in LOGS}
    assert games == set(GAMES.names())


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_replay_gives_the_expected_standings(log: Path):
    fold = read_log(log.read_text(encoding="utf-8"), GAMES.rules)
    assert log.name.startswith(fold.module.NAME + "-")
    expected = json.loads(log.with_name(log.stem + ".expected.json").read_text(encoding="utf-8"))
    assert fold.module.standings(fold.state) == expected


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_replay_of_the_written_log_rebuilds_the_same_state(log: Path):
    fold = read_log(log.read_text(encoding="utf-8"), GAMES.rules)
    again = read_log(format_log(fold), GAMES.rules)
    assert again.state == fold.state
    assert format_log(again) == format_log(fold)


def _readme_examples() -> dict[str, str]:
    text = (FIXTURES / "README.md").read_text(encoding="utf-8")
    examples = {}
    for block in text.split("```json\n")[1:]:
        block = block.split("```", 1)[0]
        if "{...}" in block:
            continue  # the format's template, not an example
        examples[json.loads(block.splitlines()[0])["game"]] = block
    return examples


def test_readme_examples_replay_as_the_readme_says():
    examples = _readme_examples()
    assert sorted(examples) == sorted(GAMES.names())
    schocken = read_log(examples["schocken"], GAMES.rules)
    standings = schocken.module.standings(schocken.state)
    assert standings["deckel"] == {"Anna": 0, "Ben": 0, "Cleo": 4} and standings["middle"] == 9
    bock = read_log(examples["rockthebock"], GAMES.rules)
    ben, anna = bock.module.standings(bock.state)["players"][1], bock.state
    assert (ben["current"]["bocks"], ben["current"]["wolves"], ben["current"]["crossed"]) == (
        4,
        3,
        4,
    )
    assert bock.module.standings(anna)["players"][0]["current"]["crossed"] == 3
    wacken = read_log(examples["wacken"], GAMES.rules)
    tally = {p["name"]: p["wristbands"] for p in wacken.module.standings(wacken.state)["players"]}
    assert tally == {"Anna": 6, "Ben": 18}
