"""Folding entries (actions, undo, correct), reading/writing game logs, CSV export."""

from __future__ import annotations

import csv
import io
import json

import counter_game as cg
import pytest
from counter_game import add
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.domain.csvexport import format_csv
from companion.domain.entry import Entry
from companion.domain.fold import Fold, LogError, fold_entries
from companion.domain.gamelog import format_log, read_log
from companion.games import IllegalAction, ParseError
from companion.wording import word

SETUP = cg.Setup(("Anna", "Ben"))


def header(game: str = "counter", setup: dict | None = None, **extra: object) -> str:
    line = {
        "format": "dice-companion-log",
        "version": 1,
        "game": game,
        "setup": setup if setup is not None else SETUP.to_dict(),
        **extra,
    }
    return json.dumps(line)


def log(*lines: object) -> str:
    return "\n".join([header()] + [json.dumps(x) for x in lines]) + "\n"


def fold_of(*payloads: dict) -> Fold:
    fold = Fold.begin(cg, SETUP)
    for payload in payloads:
        fold = fold.add(Entry(fold.version + 1, payload))
    return fold


UNDO = {"action": "undo"}


def correct(version: int, payload: dict) -> dict:
    return {"action": "correct", "version": version, "event": payload}


def test_actions_fold_in_order():
    fold = fold_of(add("Anna", 2), add("Ben", 3), add("Anna", 1))
    assert fold.version == 3
    assert fold.state.count == 6
    assert fold.state.added == (3, 3)
    assert not fold.over


def test_undo_cancels_latest_action_not_yet_undone_and_is_kept_as_an_entry():
    fold = fold_of(add("Anna", 2), add("Ben", 3), UNDO, UNDO, add("Anna", 1))
    assert fold.version == 5
    assert fold.state.count == 1 and fold.state.added == (1, 0)
    history = fold.history()
    assert [row["kind"] for row in history] == ["action", "action", "undo", "undo", "action"]
    assert [row["undone"] for row in history] == [True, True, False, False, False]
    assert [row["target"] for row in history] == [None, None, 2, 1, None]
    assert history[0]["undone_by"] == 4 and history[1]["undone_by"] == 3


def test_undo_with_nothing_in_force_is_refused_and_changes_nothing():
    fold = fold_of(add("Anna", 2), UNDO)
    with pytest.raises(IllegalAction, match="nothing to undo"):
        fold.add(Entry(3, UNDO))
    with pytest.raises(IllegalAction, match="nothing to undo"):
        Fold.begin(cg, SETUP).add(Entry(1, UNDO))
    assert fold.version == 2 and fold.state.count == 0


def test_correction_replaces_an_earlier_action_and_replays_the_rest():
    fold = fold_of(add("Anna", 2), add("Ben", 3), correct(1, add("Anna", 1)))
    assert fold.state.count == 4 and fold.state.added == (1, 3)
    rows = fold.history()
    assert rows[0]["corrected"] and rows[0]["corrected_by"] == [3]
    assert rows[2]["kind"] == "correct" and rows[2]["target"] == 1
    assert rows[2]["text"] == {"key": "counter_add", "fields": {"player": "Anna", "amount": 1}}
    assert rows[0]["text"]["fields"] == {"player": "Anna", "amount": 2}
    # Corrected twice: the latest correction is in force.
    fold = fold.add(Entry(4, correct(1, add("Anna", 3))))
    assert fold.state.added == (3, 3)
    assert fold.history()[0]["corrected_by"] == [3, 4]


def test_correction_that_makes_a_later_action_illegal_is_rejected():
    # limit 10: 2 + 3 + 3 + 1 = 9, then Anna's 1 reaches 10. Raising Anna's first add
    # to 3 reaches 10 one action earlier, so the last add would come after the end.
    fold = fold_of(add("Anna", 2), add("Ben", 3), add("Anna", 3), add("Ben", 1), add("Anna", 1))
    assert fold.over
    with pytest.raises(IllegalAction, match="would make version 5 illegal: the game is over"):
        fold.add(Entry(6, correct(1, add("Anna", 3))))
    with pytest.raises(IllegalAction, match="not allowed at version 2: it is Ben's turn"):
        fold.add(Entry(6, correct(2, add("Anna", 1))))
    assert fold.state.count == 10 and fold.version == 5
    assert fold.add(Entry(6, correct(1, add("Anna", 1)))).state.added == (5, 4)


@pytest.mark.parametrize(
    "payloads, bad, message",
    [
        ([add("Anna", 1), UNDO], correct(1, add("Anna", 2)), "was undone by version 2"),
        ([add("Anna", 1), add("Ben", 1), UNDO], correct(3, add("Anna", 2)), "is an undo"),
        (
            [add("Anna", 1), correct(1, add("Anna", 2))],
            correct(2, add("Anna", 3)),
            "is a correction",
        ),
    ],
)
def test_only_actions_in_force_can_be_corrected(payloads, bad, message):
    fold = fold_of(*payloads)
    with pytest.raises(IllegalAction, match=message):
        fold.add(Entry(fold.version + 1, bad))


def test_undo_after_a_correction_cancels_the_corrected_action():
    fold = fold_of(add("Anna", 2), correct(1, add("Anna", 3)), UNDO)
    assert fold.state.count == 0
    assert fold.history()[0]["undone"] and fold.history()[0]["corrected"]


@pytest.mark.parametrize(
    "version, payload, message",
    [
        (1, {"action": "undo", "x": 1}, "exactly"),
        (2, {"action": "correct", "version": 2, "event": add("Anna", 1)}, "not an earlier"),
        (2, {"action": "correct", "version": "1", "event": add("Anna", 1)}, "names the version"),
        (2, {"action": "correct", "version": 1, "event": UNDO}, "must replace an action"),
        (2, {"action": "correct", "version": 1}, "correct"),
        (1, {"player": "Anna"}, '"action" field'),
        (1, ["add"], "JSON object"),
        (1, {"action": "add", "amount": float("nan")}, "plain JSON"),
        (0, add("Anna", 1), "start at 1"),
        (True, add("Anna", 1), "whole number"),
    ],
)
def test_malformed_entries_are_parse_errors(version, payload, message):
    with pytest.raises(ParseError, match=message):
        Entry(version, payload)


def test_entry_payload_cannot_be_changed_afterwards():
    source = add("Anna", 1)
    entry = Entry(1, source)
    source["amount"] = 3
    assert entry.payload["amount"] == 1
    with pytest.raises(TypeError):
        entry.payload["amount"] = 2  # type: ignore[index]


def test_versions_must_follow_each_other():
    with pytest.raises(ParseError, match="does not follow version 0"):
        Fold.begin(cg, SETUP).add(Entry(2, add("Anna", 1)))


def test_ill_typed_action_is_a_parse_error_not_a_crash():
    with pytest.raises(ParseError, match="whole number"):
        fold_of({"action": "add", "player": "Anna", "amount": "two"})


# -- game log files ---------------------------------------------------------


def test_read_log_replays_and_format_log_round_trips():
    text = log(add("Anna", 2), add("Ben", 1), UNDO, add("Ben", 3), correct(1, add("Anna", 1)))
    fold = read_log(text, cg.games)
    assert fold.state.added == (1, 3)
    again = read_log(format_log(fold), cg.games)
    assert again.state == fold.state
    assert [e.to_dict() for e in again.entries] == [e.to_dict() for e in fold.entries]
    assert format_log(again) == format_log(fold)


def test_blank_lines_are_ignored_and_line_numbers_count_them():
    text = header() + "\n\n" + json.dumps(add("Anna", 2)) + "\n   \n" + json.dumps(add("Anna", 1))
    with pytest.raises(LogError) as caught:
        read_log(text, cg.games)
    assert str(caught.value) == "line 5: it is Ben's turn, not Anna's"
    assert caught.value.where == "line 5"
    assert isinstance(caught.value.cause, IllegalAction)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "line 1: the log is empty"),
        ("\n\n", "line 1: the log is empty"),
        ("{not json\n", "line 1: the header is not valid JSON"),
        ("[1]\n", "line 1: the header must be a JSON object"),
        ('{"format": "other"}\n', "line 1: this is not a game log"),
        (
            header().replace('"version": 1', '"version": 2') + "\n",
            "line 1: log format version 2 is not one this companion reads",
        ),
        (header(extra=1) + "\n", "line 1: unknown header field"),
        (header(game="poker") + "\n", "line 1: unknown game 'poker'"),
        (header(setup={"players": ["Anna"]}) + "\n", "line 1: the counter game needs"),
        (
            header() + "\n" + '{"action": "add", "player": "Anna", "amount": NaN}\n',
            "line 2: not valid JSON",
        ),
        (
            header() + "\n" + '{"action": "add", "player": "Anna", "amount": 9}\n',
            "line 2: Anna may add 1 to 3, not 9",
        ),
        (header() + "\n" + '{"action": "undo"}\n', "line 2: nothing to undo"),
        (header() + "\n" + '{"action": "jump"}\n', "line 2: unknown counter action"),
    ],
)
def test_bad_logs_name_the_line_and_the_reason(text, message):
    with pytest.raises(LogError, match="^" + message.replace("(", r"\(")):
        read_log(text, cg.games)


def test_an_undone_illegal_line_is_still_rejected():
    # A log is checked line by line: an illegal action cannot hide behind an undo.
    with pytest.raises(LogError, match="line 2"):
        read_log(log(add("Ben", 1), UNDO), cg.games)


# -- CSV export ---------------------------------------------------------------


def test_csv_has_one_row_per_entry_then_the_standings_block():
    fold = Fold.begin(cg, SETUP)
    for version, (payload, who) in enumerate(
        [
            (add("Anna", 2), "Mia"),
            (add("Ben", 3), "camera"),
            (UNDO, "Mia"),
            (add("Ben", 1), "Mia"),
            (correct(1, add("Anna", 1)), "Mia"),
        ],
        start=1,
    ):
        # The camera's entry was recorded before the clock was set from the network.
        fold = fold.add(Entry(version, payload, 1_700_000_000 + 60 * version, who,
                              unsynced=who == "camera"))
    english = cg.WORDS["en"]
    rows = list(csv.reader(io.StringIO(format_csv(fold, lambda p: word(p, english)))))
    assert rows[0] == ["version", "time", "time_uncertain", "who", "action", "details",
                       "status", "text"]
    assert rows[1] == [
        "1",
        "2023-11-14T22:14:20+00:00",
        "",
        "Mia",
        "add",
        '{"player":"Anna","amount":2}',
        "corrected by 5",
        "Anna adds 2",
    ]
    assert rows[2][2:] == [
        "yes",
        "camera",
        "add",
        '{"player":"Ben","amount":3}',
        "undone by 3",
        "Ben adds 3",
    ]
    assert rows[3][2:7] == ["", "Mia", "undo", "", "undoes 2"]
    assert rows[5][4:8] == [
        "correct",
        '{"version":1,"event":{"action":"add","player":"Anna","amount":1}}',
        "corrects 1",
        "Anna adds 1",
    ]
    assert rows[6] == []
    assert rows[7] == ["standings", "key", "value"]
    block = {key: value for _, key, value in rows[8:]}
    assert block == {"count": "2", "added.Anna": "1", "added.Ben": "1", "winner": ""}


# -- properties over random histories -----------------------------------------------

_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.booleans(), st.integers(0, 4)),
        st.tuples(st.just("undo")),
        st.tuples(st.just("correct"), st.integers(1, 40), st.integers(0, 4)),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(ops=_OPS)
def test_any_history_folds_like_its_actions_in_force_and_round_trips(ops):
    setup = cg.Setup(("Anna", "Ben", "Cleo"), cg.Rules(20))
    fold = Fold.begin(cg, setup)
    for op in ops:
        players = setup.players
        if op[0] == "add":
            # Mostly the player whose turn it is, sometimes the next one (illegal).
            player = players[(fold.state.turn + (0 if op[1] else 1)) % len(players)]
            payload = add(player, op[2])
        elif op[0] == "undo":
            payload = UNDO
        else:
            target = min(op[1], max(fold.version, 1))
            old = fold.entries[target - 1].payload if fold.entries else {}
            payload = correct(target, add(str(old.get("player", "Anna")), op[2]))
        try:
            fold = fold.add(Entry(fold.version + 1, payload))
        except (IllegalAction, ParseError):
            continue
    # The state is exactly the actions in force, applied from the start.
    state = cg.start(setup)
    for _, event in fold.live:
        state = cg.apply(state, event)
    assert fold.state == state
    # Undone versions are exactly the actions not in force and not overwritten.
    in_force = {version for version, _ in fold.live}
    actions = {e.version for e in fold.entries if e.kind == "action"}
    assert set(fold.undone_by) == actions - in_force
    # Writing the log and reading it back, or folding the stored entries, rebuilds it.
    assert read_log(format_log(fold), cg.games).state == fold.state
    assert fold_entries(cg, setup, fold.entries).state == fold.state


def test_a_byte_order_mark_before_the_header_is_ignored():
    assert read_log("\ufeff" + log(add("Anna", 2)), cg.games).state.count == 2
