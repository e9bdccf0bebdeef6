"""The Table over a real SQLite file: validation before storing, PINs, undo/correct,
change notices, concurrency, export/import, the camera picture."""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
from pathlib import Path

import counter_game as cg
import pytest
from counter_game import add

from companion.domain.entry import Entry
from companion.domain.fold import LogError
from companion.games import IllegalAction, ParseError, RuleError
from companion.store import CorruptEntry, DuplicateVersion, Store, UnknownGame
from companion.table import PinError, Table, TableError, hash_pin, pin_matches

SETUP = {"players": ["Anna", "Ben"]}
PIN = "4711"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "companion.sqlite3"


@pytest.fixture
def store(path: Path):
    with Store(path) as s:
        yield s


def make_table(store: Store) -> Table:
    ticks = itertools.count(1_700_000_000, 10)
    return Table(store, clock=lambda: float(next(ticks)), pin_iterations=1000, games=cg.REGISTRY)


@pytest.fixture
def table(store: Store) -> Table:
    return make_table(store)


def drain(subscription) -> list[dict]:
    notices = []
    while (notice := subscription.get(timeout=0)) is not None:
        notices.append(notice)
    return notices


# -- creating games, PINs ---------------------------------------------------------


def test_create_game_stores_the_engines_canonical_setup_and_activates_it(table, store):
    game_id = table.create_game("counter", SETUP, PIN)
    assert store.game(game_id).setup == {"players": ["Anna", "Ben"], "rules": {"limit": 10}}
    assert table.active_game_id() == game_id
    [row] = table.list_games()
    assert row == {
        "id": game_id,
        "game": "counter",
        "created": 1_700_000_000.0,
        "status": "active",
        "active": True,
        "players": ["Anna", "Ben"],
        "version": 0,
        "over": False,
    }
    second = table.create_game("counter", SETUP, PIN, activate=False)
    assert table.active_game_id() == game_id
    assert [g["status"] for g in table.list_games()] == ["active", "archived"]
    assert second != game_id


@pytest.mark.parametrize(
    "game, setup, pin, error, message",
    [
        ("poker", SETUP, PIN, ParseError, "unknown game 'poker'"),
        ("counter", {"players": ["Anna"]}, PIN, ParseError, "2 or more"),
        ("counter", ["Anna", "Ben"], PIN, ParseError, "must be an object"),
        ("counter", {**SETUP, "rules": {"limit": 7}}, PIN, RuleError, "limit 7"),
        ("counter", SETUP, "123", PinError, "4 to 12 digits"),
        ("counter", SETUP, "1234567890123", PinError, "4 to 12 digits"),
        ("counter", SETUP, "12a4", PinError, "4 to 12 digits"),
        ("counter", SETUP, "١٢٣٤", PinError, "4 to 12 digits"),  # Arabic-Indic digits
        ("counter", SETUP, 4711, PinError, "4 to 12 digits"),
    ],
)
def test_bad_game_setup_or_pin_stores_nothing(table, store, game, setup, pin, error, message):
    with pytest.raises(error, match=message):
        table.create_game(game, setup, pin)
    assert store.games() == []
    assert isinstance(error(""), ValueError)


def test_pin_is_stored_salted_and_hashed_and_verified(table, store):
    first = table.create_game("counter", SETUP, "0815")
    second = table.create_game("counter", SETUP, "0815")
    hashes = [store.game(first).pin_hash, store.game(second).pin_hash]
    assert hashes[0] != hashes[1]  # salted
    assert all("0815" not in h and h.startswith("pbkdf2_sha256$1000$") for h in hashes)
    assert table.verify_pin(first, "0815")
    assert not table.verify_pin(first, "0816")
    assert not table.verify_pin(first, "08155")
    assert not table.verify_pin(first, "abc")
    assert not table.verify_pin(first, None)  # type: ignore[arg-type]
    with pytest.raises(UnknownGame):
        table.verify_pin(99, "0815")


def test_pin_hash_round_trip_and_damaged_hash():
    stored = hash_pin("123456789012", iterations=10, salt=b"salt")
    assert pin_matches("123456789012", stored)
    assert not pin_matches("123456789013", stored)
    assert not pin_matches("1234", "garbage")
    assert not pin_matches("1234", "md5$1$00$00")


# -- recording ---------------------------------------------------------------------


def test_submit_records_and_returns_a_json_able_snapshot(table, store):
    game_id = table.create_game("counter", SETUP, PIN)
    snap = table.submit(game_id, add("Anna", 2), "Mia")
    assert json.loads(json.dumps(snap)) == snap
    assert snap["version"] == 1
    assert snap["view"] == {"turn": "Ben", "count": 2}
    assert snap["standings"]["added"] == {"Anna": 2, "Ben": 0}
    assert snap["over"] is False
    assert snap["setup"] == {"players": ["Anna", "Ben"], "rules": {"limit": 10}}
    assert snap["history"] == [
        {
            "version": 1,
            "time": 1_700_000_010.0,
            "unsynced": False,
            "who": "Mia",
            "kind": "action",
            "action": add("Anna", 2),
            "undone": False,
            "corrected": False,
            "undone_by": None,
            "corrected_by": [],
            "target": None,
            "text": {"key": "counter_add", "fields": {"player": "Anna", "amount": 2}},
        }
    ]
    assert [e.to_dict() for e in store.entries(game_id)] == [add("Anna", 2)]
    assert table.snapshot(game_id) == snap


@pytest.mark.parametrize(
    "action, who, error, message",
    [
        (add("Anna", 1), "Mia", IllegalAction, "it is Ben's turn"),
        (add("Ben", 4), "Mia", IllegalAction, "1 to 3"),
        ({"action": "add", "player": "Anna"}, "Mia", ParseError, "exactly player and amount"),
        ({"action": "add", "player": "Anna", "amount": "1"}, "Mia", ParseError, "whole number"),
        ("add Anna 1", "Mia", ParseError, "JSON object"),
        ({"action": "undo"}, "Mia", ParseError, "use the undo button"),
        (
            {"action": "correct", "version": 1, "event": add("Anna", 1)},
            "Mia",
            ParseError,
            "correct button",
        ),
        (add("Anna", 1), "", TableError, "say who records this"),
        (add("Anna", 1), "x" * 65, TableError, "say who records this"),
    ],
)
def test_bad_submissions_change_nothing_and_publish_nothing(
    table, store, action, who, error, message
):
    game_id = table.create_game("counter", SETUP, PIN)
    table.submit(game_id, add("Anna", 1), "Mia")
    before = table.snapshot(game_id)
    with table.subscribe() as sub:
        with pytest.raises(error, match=message):
            table.submit(game_id, action, who)
        assert drain(sub) == []
    assert table.snapshot(game_id) == before
    assert store.latest_version(game_id) == 1


def test_undo_is_an_entry_and_nothing_is_deleted(table, store, path):
    game_id = table.create_game("counter", SETUP, PIN)
    table.submit(game_id, add("Anna", 2), "Mia")
    table.submit(game_id, add("Ben", 3), "Mia")
    snap = table.undo(game_id, "Mia")
    assert snap["version"] == 3
    assert snap["view"] == {"turn": "Ben", "count": 2}
    assert [h["undone"] for h in snap["history"]] == [False, True, False]
    raw = sqlite3.connect(path)
    rows = raw.execute("SELECT version, kind FROM events ORDER BY version").fetchall()
    raw.close()
    assert rows == [(1, "action"), (2, "action"), (3, "undo")]
    table.undo(game_id, "Mia")
    with pytest.raises(IllegalAction, match="nothing to undo"):
        table.undo(game_id, "Mia")
    assert store.latest_version(game_id) == 4


def test_reopen_takes_back_the_entry_that_ended_a_game_as_an_undo_entry(table, store, path):
    game_id = table.create_game("counter", SETUP, PIN)
    with pytest.raises(TableError, match="still running") as refused:
        table.reopen(game_id, "Mia")  # nothing ended yet: the plain undo is for that
    assert refused.value.key == "reopen_running"
    for action in (add("Anna", 2), add("Ben", 3), add("Anna", 3), add("Ben", 1), add("Anna", 1)):
        table.submit(game_id, action, "Mia")
    assert table.snapshot(game_id)["over"]
    with table.subscribe() as sub:
        snap = table.reopen(game_id, "Kim")
        assert [n["kind"] for n in drain(sub)] == ["undo"]
    assert snap["over"] is False and snap["version"] == 6
    assert snap["history"][4]["undone_by"] == 6 and snap["history"][5]["who"] == "Kim"
    raw = sqlite3.connect(path)
    kinds = [k for (k,) in raw.execute("SELECT kind FROM events ORDER BY version")]
    raw.close()
    assert kinds == ["action"] * 5 + ["undo"]  # appended, nothing deleted
    with pytest.raises(TableError, match="still running"):
        table.reopen(game_id, "Kim")  # running again: a second reopen stores nothing
    assert store.latest_version(game_id) == 6


def test_correct_replaces_an_action_or_is_rejected_storing_nothing(table, store):
    game_id = table.create_game("counter", SETUP, PIN)
    for action in (add("Anna", 2), add("Ben", 3), add("Anna", 3), add("Ben", 1), add("Anna", 1)):
        table.submit(game_id, action, "Mia")
    assert table.snapshot(game_id)["over"]
    with pytest.raises(IllegalAction, match="would make version 5 illegal"):
        table.correct(game_id, 1, add("Anna", 3), "Mia")
    with pytest.raises(ParseError, match="there is no version 9"):
        table.correct(game_id, 9, add("Anna", 1), "Mia")
    with pytest.raises(ParseError, match="whole number"):
        table.correct(game_id, "1", add("Anna", 1), "Mia")  # type: ignore[arg-type]
    assert store.latest_version(game_id) == 5
    snap = table.correct(game_id, 2, add("Ben", 2), "Mia")
    assert snap["version"] == 6 and snap["standings"]["added"] == {"Anna": 6, "Ben": 3}
    assert snap["over"] is False
    assert snap["history"][1]["corrected_by"] == [6]
    assert snap["history"][5]["action"] == {
        "action": "correct",
        "version": 2,
        "event": add("Ben", 2),
    }


def test_game_is_rebuilt_from_the_log_after_reopening(path):
    with Store(path) as store:
        table = make_table(store)
        game_id = table.create_game("counter", SETUP, PIN)
        table.submit(game_id, add("Anna", 2), "Mia")
        table.submit(game_id, add("Ben", 1), "Mia")
        table.undo(game_id, "Mia")
        table.correct(game_id, 1, add("Anna", 3), "Mia")
        before = table.snapshot(game_id)
    with Store(path) as store:
        assert make_table(store).snapshot(game_id) == before


def test_writes_by_another_process_are_folded_in(path):
    with Store(path) as store_a, Store(path) as store_b:
        table_a, table_b = make_table(store_a), make_table(store_b)
        game_id = table_a.create_game("counter", SETUP, PIN)
        assert table_b.snapshot(game_id)["version"] == 0
        table_a.submit(game_id, add("Anna", 1), "Mia")
        table_a.submit(game_id, add("Ben", 2), "Mia")
        snap = table_b.submit(game_id, add("Anna", 3), "Ben's phone")
        assert snap["version"] == 3 and snap["view"]["count"] == 6
        assert table_a.snapshot(game_id) == table_b.snapshot(game_id)


def test_a_write_racing_ours_is_rejected_as_a_double_write(path):
    with Store(path) as store_a, Store(path) as store_b:
        setup_table = make_table(store_a)
        game_id = setup_table.create_game("counter", SETUP, PIN)

        def clock_with_a_rival() -> float:
            # Another process records version 1 after we checked and before we write.
            store_b.append(game_id, Entry(1, add("Anna", 3), 5.0, "rival"))
            return 6.0

        racing = Table(store_a, clock=clock_with_a_rival, pin_iterations=1000, games=cg.REGISTRY)
        racing.snapshot(game_id)
        with pytest.raises(DuplicateVersion, match="already has version 1"):
            racing.submit(game_id, add("Anna", 1), "Mia")
        # The rival's entry stands, and our table rebuilds from it on the next call.
        assert racing.snapshot(game_id)["standings"]["added"] == {"Anna": 3, "Ben": 0}


def test_concurrent_submits_neither_lose_nor_duplicate_versions(table, store):
    game_id = table.create_game("counter", {**SETUP, "rules": {"limit": 1000}}, PIN)
    accepted = []
    rejected = []
    lock = threading.Lock()

    def scorekeeper(name: str) -> None:
        for _ in range(25):
            turn = table.snapshot(game_id)["view"]["turn"]
            try:
                version = table.submit(game_id, add(turn, 1), name)["version"]
            except IllegalAction:
                with lock:
                    rejected.append(name)  # someone else recorded this turn first
            else:
                with lock:
                    accepted.append(version)

    threads = [threading.Thread(target=scorekeeper, args=(f"phone {i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries = store.entries(game_id)
    assert len(accepted) + len(rejected) == 150
    assert sorted(accepted) == list(range(1, len(accepted) + 1)) == [e.version for e in entries]
    assert table.snapshot(game_id)["view"]["count"] == len(accepted)


def test_corrupt_stored_game_is_reported_not_crashing_the_list(table, store, path):
    good = table.create_game("counter", SETUP, PIN)
    bad = table.create_game("counter", SETUP, PIN)
    raw = sqlite3.connect(path)
    raw.execute(
        "INSERT INTO events (game_id, version, time, who, kind, payload) "
        "VALUES (?, 1, 1.0, 'tool', 'action', ?)",
        (bad, json.dumps(add("Ben", 1))),
    )
    raw.commit()
    raw.close()
    fresh = make_table(store)
    rows = {row["id"]: row for row in fresh.list_games()}
    assert rows[good]["version"] == 0 and "error" not in rows[good]
    assert rows[bad]["error"] == (
        f"game {bad} cannot be rebuilt from its log: version 1: it is Anna's turn, not Ben's"
    )
    with pytest.raises(CorruptEntry, match="cannot be rebuilt"):
        fresh.snapshot(bad)


# -- status ------------------------------------------------------------------------


def test_activate_and_archive(table):
    first = table.create_game("counter", SETUP, PIN)
    second = table.create_game("counter", SETUP, PIN)
    assert table.active_game_id() == second
    table.activate(first)
    assert table.active_game_id() == first
    assert table.snapshot(second)["status"] == "archived"
    table.archive(first)
    assert table.active_game_id() is None
    with pytest.raises(UnknownGame):
        table.activate(42)


# -- notices -------------------------------------------------------------------------


def test_every_committed_change_is_announced_to_every_subscriber(table):
    with table.subscribe() as one, table.subscribe() as two:
        game_id = table.create_game("counter", SETUP, PIN)
        assert one.get(timeout=1) == {"game_id": game_id, "version": 0, "kind": "created"}
        table.submit(game_id, add("Anna", 1), "Mia")
        assert one.get(timeout=1) == {"game_id": game_id, "version": 1, "kind": "action"}
        table.undo(game_id, "Mia")
        assert one.get(timeout=1) == {"game_id": game_id, "version": 2, "kind": "undo"}
        table.submit(game_id, add("Anna", 2), "Mia")
        table.correct(game_id, 3, add("Anna", 1), "Mia")
        assert one.get(timeout=1)["kind"] == "correct"  # the action notice was coalesced
        table.archive(game_id)
        assert one.get(timeout=1) == {"game_id": game_id, "version": 4, "kind": "archived"}
        assert one.get(timeout=0.01) is None
        # The second subscriber slept through it all: newest per game and category.
        assert drain(two) == [
            {"game_id": game_id, "version": 4, "kind": "correct"},
            {"game_id": game_id, "version": 4, "kind": "archived"},
        ]


def test_a_stuck_subscriber_holds_a_bounded_number_of_notices(store):
    table = Table(store, pin_iterations=1000, games=cg.REGISTRY, queue_limit=3)
    with table.subscribe() as stuck:
        ids = [
            table.create_game("counter", {**SETUP, "rules": {"limit": 1000}}, PIN, activate=False)
            for _ in range(5)
        ]
        for _ in range(20):
            table.submit(ids[0], add("Anna", 1), "Mia")
            table.submit(ids[0], add("Ben", 1), "Mia")
        notices = drain(stuck)
    assert len(notices) == 3 and stuck.dropped == 3
    # The freshest news survives: game 1 at its latest version.
    assert notices[-1] == {"game_id": ids[0], "version": 40, "kind": "action"}


def test_close_wakes_a_waiting_get_and_unsubscribes(table):
    sub = table.subscribe()
    assert table.subscriber_count == 1
    results = []
    waiter = threading.Thread(target=lambda: results.append(sub.get(timeout=30)))
    waiter.start()
    sub.close()
    waiter.join(timeout=5)
    assert not waiter.is_alive() and results == [None]
    assert table.subscriber_count == 0 and sub.closed
    table.create_game("counter", SETUP, PIN)
    assert sub.get(timeout=0) is None
    sub.close()  # idempotent


def test_table_close_closes_every_subscription(table):
    subs = [table.subscribe() for _ in range(3)]
    table.close()
    assert all(s.closed for s in subs) and table.subscriber_count == 0


# -- export / import -------------------------------------------------------------------


def test_export_log_imports_to_an_equal_game(table):
    game_id = table.create_game("counter", SETUP, PIN)
    table.submit(game_id, add("Anna", 2), "Mia")
    table.submit(game_id, add("Ben", 1), "Mia")
    table.undo(game_id, "Mia")
    table.submit(game_id, add("Ben", 3), "Mia")
    table.correct(game_id, 1, add("Anna", 1), "Mia")
    text = table.export_log(game_id)
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0] == {
        "format": "dice-companion-log",
        "version": 1,
        "game": "counter",
        "setup": {"players": ["Anna", "Ben"], "rules": {"limit": 10}},
    }
    assert lines[3] == {"action": "undo"}
    with table.subscribe() as sub:
        copy = table.import_log(text, "9999")
        assert drain(sub) == [{"game_id": copy, "version": 5, "kind": "imported"}]
    original, imported = table.snapshot(game_id), table.snapshot(copy)
    assert (
        imported["standings"]
        == original["standings"]
        == {
            "count": 4,
            "added": {"Anna": 1, "Ben": 3},
            "winner": None,
        }
    )
    assert [h["who"] for h in imported["history"]] == ["import"] * 5
    assert table.export_log(copy) == text
    assert table.verify_pin(copy, "9999") and not table.verify_pin(copy, PIN)
    assert table.active_game_id() == game_id  # an import does not take over the table


def test_import_of_a_bad_log_stores_nothing(table, store):
    text = table_log = (
        json.dumps(
            {"format": "dice-companion-log", "version": 1, "game": "counter", "setup": SETUP}
        )
        + "\n"
        + json.dumps(add("Anna", 1))
        + "\n"
        + json.dumps(add("Anna", 1))
        + "\n"
    )
    with pytest.raises(LogError, match="^line 3: it is Ben's turn, not Anna's$"):
        table.import_log(text, PIN)
    with pytest.raises(PinError):
        table.import_log(table_log.rsplit("\n", 2)[0] + "\n", "12")
    assert store.games() == []


def test_export_csv_comes_from_the_stored_game(table):
    game_id = table.create_game("counter", SETUP, PIN)
    table.submit(game_id, add("Anna", 2), "Mia")
    lines = table.export_csv(game_id).splitlines()
    assert lines[1] == (
        '1,2023-11-14T22:13:30+00:00,,Mia,add,"{""player"":""Anna"",""amount"":2}",,Anna adds 2'
    )
    assert "standings,added.Anna,2" in lines


# -- camera picture ----------------------------------------------------------------------


def test_pictures_are_kept_in_memory_and_announced(table):
    assert table.latest_picture() is None
    game_id = table.create_game("counter", SETUP, PIN)
    with table.subscribe() as sub:
        drain(sub)
        table.publish_picture(b"\xff\xd8jpeg-1", {"dice": [1, 1, 4]})
        table.publish_picture(b"\xff\xd8jpeg-2", {"dice": [6, 6, 6]})
        assert drain(sub) == [{"game_id": game_id, "version": 2, "kind": "picture"}]
    jpeg, reading = table.latest_picture()
    assert (jpeg, reading) == (b"\xff\xd8jpeg-2", {"dice": [6, 6, 6]})
    reading["dice"] = []
    assert table.latest_picture()[1] == {"dice": [6, 6, 6]}
    with pytest.raises(TableError, match="JPEG"):
        table.publish_picture(b"\x89PNG", {})
    with pytest.raises(TableError, match="dict"):
        table.publish_picture(b"\xff\xd8", [])  # type: ignore[arg-type]


def test_snapshots_are_fresh_copies_of_one_shared_json(table):
    game_id = table.create_game("counter", SETUP, PIN)
    first = table.snapshot(game_id)
    first["view"]["count"] = 99
    first["history"].append("junk")
    assert table.snapshot(game_id)["view"]["count"] == 0
    assert json.loads(table.snapshot_json(game_id)) == table.snapshot(game_id)
    assert table.snapshot_json(game_id) is table.snapshot_json(game_id)  # built once


# -- with the real engines -------------------------------------------------------------


def _throw(player: str, dice: list[int], throws: int = 1, hand: bool = True) -> dict:
    return {"action": "throw", "player": player, "throws": throws, "dice": dice, "hand": hand}


def test_schocken_correction_that_changes_the_next_starter(store):
    table = Table(store, pin_iterations=1000)
    game_id = table.create_game("schocken", {"players": ["Anna", "Ben", "Cleo"]}, PIN)
    table.submit(game_id, _throw("Anna", [6, 5, 3], throws=2, hand=False), "Mia")
    table.submit(game_id, _throw("Ben", [1, 4, 1]), "Mia")
    snap = table.submit(game_id, _throw("Cleo", [4, 2, 1], throws=2, hand=False), "Mia")
    # Ben's Schock 4 is best, Cleo's 4-2-1 worst: Cleo takes 4 and starts round 2.
    assert snap["standings"]["deckel"] == {"Anna": 0, "Ben": 0, "Cleo": 4}
    assert snap["standings"]["middle"] == 9
    table.submit(game_id, _throw("Cleo", [5, 5, 2]), "Mia")
    # Cleo's first throw was really 6-6-6 (a General): now Anna is worst and would have
    # started round 2, so Cleo's round-2 throw would be illegal.
    better = _throw("Cleo", [6, 6, 6], throws=2, hand=False)
    with pytest.raises(IllegalAction, match="would make version 4 illegal"):
        table.correct(game_id, 3, better, "Mia")
    assert table.snapshot(game_id)["version"] == 4
    table.undo(game_id, "Mia")
    snap = table.correct(game_id, 3, better, "Mia")
    assert snap["standings"]["deckel"] == {"Anna": 4, "Ben": 0, "Cleo": 0}
    assert snap["view"]["to_throw"] == "Anna"
    assert [h["kind"] for h in snap["history"]] == ["action"] * 4 + ["undo", "correct"]
    # What is stored is the engine's canonical form of what was submitted.
    assert snap["history"][1]["action"] == _throw("Ben", [4, 1, 1])


def test_rockthebock_through_the_table_with_texts_in_both_languages(store):
    table = Table(store, pin_iterations=1000)
    setup = {
        "players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}],
        "youngest": "Ben",
    }
    game_id = table.create_game("rockthebock", setup, PIN)
    roll = {"action": "roll", "player": "Ben", "faces": {"bock": 4, "wolf": 6}}
    snap = table.submit(game_id, roll, "Mia")
    kinds = {choice["kind"] for choice in snap["view"]["choices"]}
    assert kinds == {"bock", "wolf"}
    with pytest.raises(IllegalAction):
        table.submit(game_id, {"action": "choose", "player": "Ben", "kind": "wolf"}, "Mia")
    snap = table.submit(
        game_id, {"action": "choose", "player": "Ben", "kind": "wolf", "victim": "Anna"}, "Mia"
    )
    assert snap["view"]["dice_left"] == {"Anna": 10, "Ben": 4}
    texts = [h["text"] for h in snap["history"]]
    assert [t["key"] for t in texts] == ["hist_rtb_roll", "hist_rtb_give"]
    assert texts[1]["fields"]["victim"] == "Anna"
    snap = table.correct(game_id, 2, {"action": "choose", "player": "Ben", "kind": "bock"}, "Mia")
    assert snap["view"]["dice_left"] == {"Anna": 10, "Ben": 6}
    assert snap["history"][2]["text"]["key"] == "hist_rtb_take"


def test_the_game_leaving_the_table_is_announced_as_archived(table):
    first = table.create_game("counter", SETUP, PIN)
    with table.subscribe() as sub:
        second = table.create_game("counter", SETUP, PIN)
        assert drain(sub) == [
            {"game_id": second, "version": 0, "kind": "created"},
            {"game_id": first, "version": 0, "kind": "archived"},
        ]
        table.activate(first)
        assert drain(sub) == [
            {"game_id": first, "version": 0, "kind": "activated"},
            {"game_id": second, "version": 0, "kind": "archived"},
        ]
        table.activate(first)
        assert drain(sub) == [{"game_id": first, "version": 0, "kind": "activated"}]


def test_listeners_coming_and_going_while_others_record(table):
    game_id = table.create_game("counter", {**SETUP, "rules": {"limit": 1000}}, PIN)
    stop = threading.Event()
    errors: list[BaseException] = []

    def recorder() -> None:
        try:
            for i in range(60):
                table.submit(game_id, add("Anna" if i % 2 == 0 else "Ben", 1), "Mia")
        except BaseException as exc:  # reported below: a thread's error must fail the test
            errors.append(exc)
        finally:
            stop.set()

    def fickle_listener() -> None:
        try:
            while not stop.is_set():
                with table.subscribe() as sub:
                    sub.get(timeout=0.001)
        except BaseException as exc:
            errors.append(exc)

    with table.subscribe() as steady:
        threads = [threading.Thread(target=fickle_listener) for _ in range(3)]
        threads.append(threading.Thread(target=recorder))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        notices = drain(steady)
    assert errors == []
    assert table.subscriber_count == 0
    assert notices[-1] == {"game_id": game_id, "version": 60, "kind": "action"}


def test_preview_asks_the_engine_and_stores_nothing(store):
    table = Table(store, pin_iterations=1000)
    wacken = table.create_game("wacken", {"players": ["Ozzy", "Lemmy"]}, PIN)
    abrocken = {"action": "abrocken", "band": "Slayer", "songs_on_stage": 2,
                "initiator": "Ozzy", "participants": [
                    {"player": "Ozzy", "beers": 2, "cards": 1, "songs": 0},
                    {"player": "Lemmy", "beers": 1, "cards": 2, "songs": 1}]}
    result = table.preview(wacken, abrocken)
    assert result["gigfaktor_formula"] == "2 × 3 = 6"
    assert [f["wristbands"] for f in result["fans"]] == [6, 18]
    assert table.snapshot(wacken)["version"] == 0
    with pytest.raises(ParseError):
        table.preview(wacken, {"action": "game_end", "reason": "deck empty"})
    schocken = table.create_game("schocken", {"players": ["A", "B"], "starter": "A"}, PIN)
    with pytest.raises(TableError, match="no preview"):
        table.preview(schocken, {"action": "throw"})
