"""``companion rank schocken ...``: the table, JSON, rule flags and clear errors."""

from __future__ import annotations

import json

import pytest

from companion.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["rank", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_table_lists_throws_best_first_with_class_deckel_and_hand(capsys) -> None:
    code, out, err = run(capsys, "schocken", "1-1-4", "6-6-6", "3-2-1", "1-1-4h", "1-1-1", "5-2-6")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "Rules: seed defaults",
        "rank  throw   class         Deckel  hand",
        "   1  1-1-1   Schock aus  all (13)  assembled",
        "   2  1-1-4   Schock 4           4  hand",
        "   3  1-1-4   Schock 4           4  assembled",
        "   4  6-6-6   General            3",
        "   5  3-2-1   Straße             2",
        "   6  6-5-2   normal             1",
    ]


def test_json_rows(capsys) -> None:
    code, out, _ = run(capsys, "schocken", "4-5-3", "1-1-4", "--json",
                       "--rule", "straights=all_runs")
    assert code == 0
    assert json.loads(out) == [
        {"rank": 1, "dice": [4, 1, 1], "text": "1-1-4", "class": "schock", "label": "Schock 4",
         "deckel": 4, "hand": False},
        {"rank": 2, "dice": [5, 4, 3], "text": "5-4-3", "class": "strasse", "label": "Straße",
         "deckel": 2, "hand": None},
    ]


def test_options_may_stand_between_throws(capsys) -> None:
    code, out, _ = run(capsys, "schocken", "6-6-6", "--rule", "general_beats_schock_2=true",
                       "1-1-2", "--json")
    assert code == 0
    assert [row["text"] for row in json.loads(out)] == ["6-6-6", "1-1-2"]


def test_equal_throws_keep_the_order_given(capsys) -> None:
    _, out, _ = run(capsys, "schocken", "6-5-4", "4-6-5h", "--json")
    assert [(r["rank"], r["text"]) for r in json.loads(out)] == [(1, "6-5-4"), (2, "6-5-4h")]


def test_without_throws_prints_the_full_order(capsys) -> None:
    code, out, _ = run(capsys, "schocken", "--rule", "handschock=off", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 56
    assert (rows[0]["text"], rows[-1]["text"]) == ("1-1-1", "2-2-1")
    assert all(r["hand"] is None for r in rows)
    _, text, _ = run(capsys, "schocken")
    lines = text.splitlines()
    assert len(lines) == 2 + 62 + 1  # header lines, Schocks split by hand, the note
    assert lines[-1] == ("(62 rows: the 56 throws, 6 of them listed twice, from the hand and "
                         "assembled, because these rules rank the two apart)")
    _, text, _ = run(capsys, "schocken", "--rule", "handschock=off")
    assert len(text.splitlines()) == 2 + 56


@pytest.mark.parametrize("bad", ["1-1-7", "1-1", "abc"])
def test_bad_dice_exit_2_with_one_line(capsys, bad: str) -> None:
    code, out, err = run(capsys, "schocken", "1-1-4", bad)
    assert (code, out) == (2, "")
    assert err == (f"companion rank: error: {bad!r} is not a throw: write three dice 1 to 6 "
                   "like 1-1-4, with h for a throw from the hand: 1-1-4h\n")


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("colour=red", "unknown Schocken rule 'colour'"),
        ("handschock=maybe", "use one of: tiebreak, above_all, off"),
        ("straights", "write flag=value"),
    ],
)
def test_bad_rules_exit_2(capsys, rule: str, message: str) -> None:
    code, out, err = run(capsys, "schocken", "1-1-4", "--rule", rule)
    assert (code, out) == (2, "")
    assert message in err and err.count("\n") == 1


def test_help_documents_the_hand_notation(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["rank", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "1-1-4h" in out and "straight_general_must_be_hand" in out
