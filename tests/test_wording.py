"""One wording for every text a person reads: engines' phrases and refusals from the catalogues."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from companion.domain.gamelog import read_log
from companion.games import Phrase
from companion.registry import GAMES
from companion.wording import file_catalogue, word

ROOT = Path(__file__).resolve().parents[1]
DE, EN = file_catalogue("de"), file_catalogue("en")


def test_counts_pick_one_or_other_and_nested_phrases_and_lists_are_worded():
    throws = Phrase("hist_sch_throws", {"n": 1})
    assert word(throws, DE) == "1 Wurf"
    assert word(Phrase("hist_sch_throws", {"n": 2}), DE) == "2 Würfe"
    line = Phrase("hist_sch_throw", {"player": "Anna", "dice": "1-1-4",
                                     "hand": Phrase("hist_sch_from_hand"), "turned": "",
                                     "throws": throws})
    assert word(line, DE) == "Anna: 1-1-4 aus der Hand (1 Wurf)."
    assert word(line, EN) == "Anna: 1-1-4 from the hand (1 throw)."
    faces = (Phrase("hist_rtb_wolf", {"n": 1}), Phrase("hist_rtb_bock", {"n": 2}),
             Phrase("hist_rtb_goat_red", {"n": 3}))
    assert word(Phrase("hist_rtb_roll", {"player": "Bo", "faces": faces}), DE) == (
        "Bo würfelt 1 Wolf, 2 Böcke und 3 rote Geißen.")
    choice = Phrase("list_or", {"items": ("Anna", "Ben", "Cem")})
    assert word(choice, DE) == "Anna, Ben oder Cem" and word(choice, EN) == "Anna, Ben or Cem"
    # The JSON form a snapshot carries is worded the same.
    assert word(line.to_dict(), DE) == word(line, DE)
    assert Phrase.from_dict(line.to_dict()) == line


def test_a_missing_word_falls_back_to_english_then_to_the_key_and_never_raises():
    assert word(Phrase("only_here", {"n": 2}), {}, {"only_here": "{n} in English"}) == (
        "2 in English")
    assert word(Phrase("no_such_key"), DE, EN) == "no_such_key"
    assert word(Phrase("hist_sch_hidden"), DE) == (
        "{player} würfelt dreimal; der dritte Wurf bleibt unter dem Becher.")  # field missing


@pytest.mark.parametrize("log", sorted((ROOT / "fixtures" / "games").glob("*.jsonl")),
                         ids=lambda p: p.stem)
def test_every_history_line_of_the_fixture_games_has_its_words_in_both_catalogues(log):
    fold = read_log(log.read_text(encoding="utf-8"), GAMES.rules)
    keys: set[str] = set()

    def collect(value: object) -> None:
        if isinstance(value, dict) and "key" in value:
            keys.add(value["key"])
            for inner in value.get("fields", {}).values():
                collect(inner)
        elif isinstance(value, list):
            for inner in value:
                collect(inner)

    for row in fold.history():
        assert row["text"] is not None or row["kind"] != "action"
        collect(row["text"])
    assert keys
    for key in keys:
        for catalogue in (DE, EN):
            assert key in catalogue or f"{key}_one" in catalogue, key


def _refusal_keys() -> set[str]:
    keys = set()
    for path in [*ROOT.glob("companion/games/*.py"), *ROOT.glob("companion/table/*.py"),
                 *ROOT.glob("companion/domain/*.py"), ROOT / "companion/registry.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "key" and isinstance(kw.value, ast.Constant):
                        keys.add(kw.value.value)
    return keys


def test_every_refusal_key_the_engines_and_the_table_raise_is_in_both_catalogues():
    keys = _refusal_keys()
    assert {"rtb_wolves_self", "rtb_unplayed_forbidden", "json_invalid"} <= keys
    for key in sorted(keys):
        for catalogue in (DE, EN):
            assert f"refusal_{key}" in catalogue or key in catalogue, key
