"""The SQLite event log on a real file: append-only, durable, one active game."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from counter_game import add

from companion.domain.entry import Entry
from companion.store import (
    SCHEMA_VERSION,
    CorruptEntry,
    DuplicateVersion,
    SchemaError,
    Store,
    StoreError,
    UnknownGame,
)

SETUP = {"players": ["Anna", "Ben"], "rules": {"limit": 10}}


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "log.sqlite3") as s:
        yield s


def entry(version: int, payload: dict | None = None, who: str = "Mia") -> Entry:
    return Entry(version, payload or add("Anna", 1), 1000.0 + version, who)


def test_new_file_gets_schema_wal_and_full_sync(tmp_path: Path):
    path = tmp_path / "sub" / "log.sqlite3"
    with Store(path) as store:
        db = store._db
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_games_and_entries_survive_reopening(tmp_path: Path):
    path = tmp_path / "log.sqlite3"
    with Store(path) as store:
        game_id = store.create_game("counter", SETUP, "hash", 123.5)
        store.append(game_id, entry(1))
        store.append(game_id, entry(2, {"action": "undo"}, who="camera"))
    with Store(path) as store:
        record = store.game(game_id)
        assert (record.game, record.setup, record.pin_hash, record.created) == (
            "counter",
            SETUP,
            "hash",
            123.5,
        )
        entries = store.entries(game_id)
        assert [(e.version, e.kind, e.who, e.time) for e in entries] == [
            (1, "action", "Mia", 1001.0),
            (2, "undo", "camera", 1002.0),
        ]
        assert entries[0].to_dict() == add("Anna", 1)
        assert store.latest_version(game_id) == 2
        assert [e.version for e in store.entries(game_id, after=1)] == [2]


def test_double_write_of_a_version_is_rejected_and_keeps_the_first(store: Store):
    game_id = store.create_game("counter", SETUP, "hash", 0.0)
    store.append(game_id, entry(1, add("Anna", 1)))
    with pytest.raises(DuplicateVersion, match="already has version 1"):
        store.append(game_id, entry(1, add("Anna", 3)))
    assert [e.to_dict() for e in store.entries(game_id)] == [add("Anna", 1)]
    # Versions are per game: another game may have its own version 1.
    other = store.create_game("counter", SETUP, "hash", 0.0)
    store.append(other, entry(1))
    assert store.latest_version(other) == 1


def test_events_are_never_updated_or_deleted_even_by_raw_sql(store: Store):
    game_id = store.create_game("counter", SETUP, "hash", 0.0)
    store.append(game_id, entry(1))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store._db.execute("UPDATE events SET who = 'x'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store._db.execute("DELETE FROM events")
    with pytest.raises(sqlite3.IntegrityError, match="never deleted"):
        store._db.execute("DELETE FROM games")
    assert len(store.entries(game_id)) == 1


def test_unknown_game_is_a_clear_error(store: Store):
    with pytest.raises(UnknownGame, match="there is no game 7; `companion games` lists them"):
        store.game(7)
    with pytest.raises(UnknownGame):
        store.append(7, entry(1))
    with pytest.raises(UnknownGame):
        store.activate(7)
    assert isinstance(UnknownGame("x"), ValueError)


def test_exactly_one_active_game_or_none(store: Store):
    first = store.create_game("counter", SETUP, "h", 0.0, activate=True)
    second = store.create_game("counter", SETUP, "h", 0.0)
    assert store.active_game_id() == first
    store.activate(second)
    assert store.active_game_id() == second
    assert [g.status for g in store.games()] == ["archived", "active"]
    third = store.create_game("counter", SETUP, "h", 0.0, activate=True)
    assert [g.active for g in store.games()] == [False, False, True]
    store.archive(third)
    assert store.active_game_id() is None
    # The partial unique index refuses a second active row whatever writes it.
    store.activate(first)
    with pytest.raises(sqlite3.IntegrityError):
        store._db.execute("UPDATE games SET status = 'active' WHERE id = ?", (second,))


def test_create_game_with_entries_is_all_or_nothing(store: Store):
    with pytest.raises(DuplicateVersion):
        store.create_game("counter", SETUP, "h", 0.0, [entry(1), entry(1)])
    assert store.games() == []
    game_id = store.create_game("counter", SETUP, "h", 0.0, [entry(1), entry(2)])
    assert store.latest_version(game_id) == 2


def test_entry_without_time_is_refused(store: Store):
    game_id = store.create_game("counter", SETUP, "h", 0.0)
    with pytest.raises(StoreError, match="has no time"):
        store.append(game_id, Entry(1, add("Anna", 1)))
    assert store.latest_version(game_id) == 0


def _raw_insert(path: Path, game_id: int, version: int, kind: str, payload: str) -> None:
    # A separate connection without our triggers' help: what a careless tool could do.
    raw = sqlite3.connect(path)
    raw.execute(
        "INSERT INTO events (game_id, version, time, who, kind, payload) "
        "VALUES (?, ?, 1.0, 'tool', ?, ?)", (game_id, version, kind, payload)
    )
    raw.commit()
    raw.close()


@pytest.mark.parametrize(
    "kind, payload, message",
    [
        ("action", "{not json", "version 1: the stored payload is not valid JSON"),
        ("action", "[1, 2]", "version 1: the stored entry cannot be read"),
        ("action", '{"player": "Anna"}', 'needs an "action" field'),
        (
            "undo",
            json.dumps(add("Anna", 1)),
            "stored as kind 'undo', but its payload is kind 'action'",
        ),
    ],
)
def test_corrupt_or_ill_typed_payload_gives_a_clear_error(tmp_path, kind, payload, message):
    path = tmp_path / "log.sqlite3"
    with Store(path) as store:
        game_id = store.create_game("counter", SETUP, "h", 0.0)
    _raw_insert(path, game_id, 1, kind, payload)
    with Store(path) as store, pytest.raises(CorruptEntry, match=message):
        store.entries(game_id)


def test_gap_in_versions_is_reported(tmp_path: Path):
    path = tmp_path / "log.sqlite3"
    with Store(path) as store:
        game_id = store.create_game("counter", SETUP, "h", 0.0)
    _raw_insert(path, game_id, 2, "action", json.dumps(add("Anna", 1)))
    with Store(path) as store, pytest.raises(CorruptEntry, match="version 1 is missing"):
        store.entries(game_id)


def test_unknown_schema_version_is_refused(tmp_path: Path):
    path = tmp_path / "log.sqlite3"
    Store(path).close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 9")
    raw.close()
    known = f"schema version 9, but this companion knows version {SCHEMA_VERSION}"
    with pytest.raises(SchemaError, match=known):
        Store(path)


def test_foreign_sqlite_file_and_garbage_file_are_refused(tmp_path: Path):
    foreign = tmp_path / "other.sqlite3"
    raw = sqlite3.connect(foreign)
    raw.execute("CREATE TABLE notes (x)")
    raw.close()
    with pytest.raises(SchemaError, match="not a companion event log"):
        Store(foreign)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(SchemaError, match="cannot be used as the event log"):
        Store(garbage)


_WRITER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {tests!r})
    from counter_game import add
    from companion.domain.entry import Entry
    from companion.store import Store

    store = Store(sys.argv[1])
    game_id = store.create_game("counter", {{"players": ["Anna", "Ben"]}}, "h", 0.0)
    version = 0
    while True:
        version += 1
        store.append(game_id, Entry(version, add("Anna", 1), time.time(), "writer"))
        print(version, flush=True)  # only after the commit returned
    """
)


def test_sigkill_mid_writing_leaves_every_committed_event_readable(tmp_path: Path):
    path = tmp_path / "log.sqlite3"
    script = _WRITER.format(tests=str(Path(__file__).parent))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        committed = 0
        deadline = time.monotonic() + 15
        while committed < 40 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            committed = int(line)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    assert committed >= 40, "the writer did not get going"
    with Store(path) as store:
        (game,) = store.games()
        versions = [e.version for e in store.entries(game.id)]
    # Every version reported as committed is there, in order, nothing torn or doubled.
    assert versions[:committed] == list(range(1, committed + 1))
    assert versions == list(range(1, len(versions) + 1))


def test_a_busy_database_is_a_clear_error_and_records_nothing(tmp_path: Path):
    path = tmp_path / "log.sqlite3"
    with Store(path) as store:
        game_id = store.create_game("counter", SETUP, "h", 0.0)
    with Store(path, timeout=0.05) as store:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
        try:
            with pytest.raises(StoreError, match="busy or cannot be written.*nothing was recorded"):
                store.append(game_id, entry(1))
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert store.latest_version(game_id) == 0
        store.append(game_id, entry(1))
        assert store.latest_version(game_id) == 1


def test_a_folder_that_cannot_be_made_is_a_clear_error(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot create the folder for the event log"):
        Store(blocker / "data" / "log.sqlite3")
