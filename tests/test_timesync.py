"""Times before the clock was synchronised: the check, the mark, the order, the migration.

A Pi without a real-time clock boots with an old time until NTP sets it: entries recorded
meanwhile are marked (store schema 4), and a clock stepped back never reorders a game.
Every test runs on a real SQLite file.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import sqlite3
from pathlib import Path

import counter_game as cg
import pytest
from counter_game import add

from companion import store_schema, timesync
from companion.app import build
from companion.config import Settings
from companion.domain.entry import Entry
from companion.games import ParseError
from companion.store import SCHEMA_VERSION, Store
from companion.table import Table

SETUP = {"players": ["Anna", "Ben"]}
PIN = "4711"


class FakeClock:
    """A wall clock a test sets by hand, and whether NTP has set it yet."""

    def __init__(self, now: float = 1_700_000_000.0, synced: bool = True) -> None:
        self.now = now
        self.synced = synced

    def __call__(self) -> float:
        return self.now


def make_table(store: Store, clock: FakeClock) -> Table:
    return Table(store, clock=clock, clock_synced=lambda: clock.synced, pin_iterations=1000,
                 games=cg.REGISTRY)


# -- the check -----------------------------------------------------------------------------

def test_the_clock_counts_as_synced_once_timesyncd_touched_its_marker(tmp_path: Path) -> None:
    marker = tmp_path / "synchronized"
    assert timesync.clock_synced(marker) is False
    marker.touch()
    assert timesync.clock_synced(marker) is True


def test_the_composition_root_wires_the_real_check(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "run" / "synchronized"
    monkeypatch.setattr(timesync, "TIMESYNC_MARKER", marker)
    settings = Settings(data_dir=tmp_path / "data")
    with Store(settings.database) as store:
        built = build(settings, store, games=cg.REGISTRY)
        try:
            game = built.table.create_game("counter", SETUP, PIN)
            built.table.submit(game, add("Anna", 1), "Kim")
            marker.parent.mkdir()
            marker.touch()  # NTP has set the clock now
            built.table.submit(game, add("Ben", 1), "Kim")
        finally:
            built.close()
        assert [e.unsynced for e in store.entries(game)] == [True, False]


# -- the mark ---------------------------------------------------------------------------------

def test_entries_recorded_before_the_sync_are_marked_and_stay_marked(tmp_path: Path) -> None:
    path = tmp_path / "companion.sqlite3"
    clock = FakeClock(synced=False)
    with Store(path) as store:
        table = make_table(store, clock)
        game = table.create_game("counter", SETUP, PIN)
        table.submit(game, add("Anna", 1), "Kim")
        table.undo(game, "Kim")
        clock.synced = True
        clock.now += 60
        table.submit(game, add("Anna", 2), "Kim")
        history = table.snapshot(game)["history"]
        assert [row["unsynced"] for row in history] == [True, True, False]
        rows = list(csv.reader(io.StringIO(table.export_csv(game))))
        assert rows[0][1:3] == ["time", "time_uncertain"]
        assert [row[2] for row in rows[1:4]] == ["yes", "yes", ""]
    # Kept in the file: a restart (or another process) reads the same marks.
    with Store(path, readonly=True) as reader:
        assert [e.unsynced for e in reader.entries(game)] == [True, True, False]
        assert Table(reader, games=cg.REGISTRY).snapshot(game)["history"][0]["unsynced"] is True
    raw = sqlite3.connect(path)
    assert raw.execute("SELECT version, unsynced FROM events ORDER BY version").fetchall() == [
        (1, 1), (2, 1), (3, 0)]
    raw.close()


def test_a_synced_clock_marks_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "companion.sqlite3") as store:
        table = make_table(store, FakeClock(synced=True))
        game = table.create_game("counter", SETUP, PIN)
        table.submit(game, add("Anna", 1), "Kim")
        table.submit(game, add("Ben", 2), "Kim")
        assert [e.unsynced for e in store.entries(game)] == [False, False]
        assert not any(row["unsynced"] for row in table.snapshot(game)["history"])


def test_an_imported_log_is_marked_when_imported_before_the_sync(tmp_path: Path) -> None:
    with Store(tmp_path / "companion.sqlite3") as store:
        source = make_table(store, FakeClock(synced=True))
        game = source.create_game("counter", SETUP, PIN)
        source.submit(game, add("Anna", 1), "Kim")
        log = source.export_log(game)
        copy = make_table(store, FakeClock(synced=False)).import_log(log, PIN)
        assert [e.unsynced for e in store.entries(copy)] == [True]


def test_an_entry_says_unsynced_with_a_boolean() -> None:
    with pytest.raises(ParseError, match="unsynced is true or false"):
        Entry(1, add("Anna", 1), 1.0, "Kim", 1)  # type: ignore[arg-type]


# -- the order --------------------------------------------------------------------------------

def test_a_clock_stepped_back_never_reorders_the_history(tmp_path: Path) -> None:
    path = tmp_path / "companion.sqlite3"
    # Booted with fake-hwclock's saved time, hours ahead of the truth; NTP steps it back.
    clock = FakeClock(now=1_700_050_000.0, synced=False)
    with Store(path) as store:
        table = make_table(store, clock)
        game = table.create_game("counter", SETUP, PIN)
        table.submit(game, add("Anna", 1), "Kim")
        clock.now, clock.synced = 1_700_000_000.0, True
        table.submit(game, add("Ben", 1), "Kim")
        clock.now += 30
        table.submit(game, add("Anna", 1), "Kim")
        clock.now = 1_700_080_000.0  # and forwards again: kept as it is
        table.submit(game, add("Ben", 1), "Kim")
        expected = [1_700_050_000.0, 1_700_050_000.0, 1_700_050_000.0, 1_700_080_000.0]
        # Kept at the first entry's uncertain time, the next two are uncertain too.
        marks = [True, True, True, False]
        # The snapshot the phones see holds the times the file holds.
        history = table.snapshot(game)["history"]
        assert [row["time"] for row in history] == expected
        assert [row["unsynced"] for row in history] == marks
    with Store(path) as store:
        assert [e.time for e in store.entries(game)] == expected
        assert [e.unsynced for e in store.entries(game)] == marks


def test_the_store_itself_keeps_a_game_in_order(tmp_path: Path) -> None:
    with Store(tmp_path / "companion.sqlite3") as store:
        first = store.create_game("counter", SETUP, "hash", 100.0)
        other = store.create_game("counter", SETUP, "hash", 100.0)
        assert store.append(first, Entry(1, add("Anna", 1), 500.0, "Kim")).time == 500.0
        stored = store.append(first, Entry(2, add("Ben", 1), 400.0, "Kim", unsynced=True))
        assert stored == Entry(2, add("Ben", 1), 500.0, "Kim", unsynced=True)
        # A synced entry kept at a synced time stays unmarked.
        assert store.append(first, Entry(3, add("Anna", 1), 450.0, "Kim")).unsynced is False
        # Another game's history is its own.
        assert store.append(other, Entry(1, add("Anna", 1), 300.0, "Kim")).time == 300.0
        assert [e.time for e in store.entries(first)] == [500.0, 500.0, 500.0]


# -- the migration ------------------------------------------------------------------------------

def _version_3_log(path: Path) -> None:
    """A log as a companion with schema 3 wrote it: a game with two entries, no marks."""
    db = sqlite3.connect(path)
    db.executescript(store_schema._SCHEMA + store_schema._SCHEMA_2 + store_schema._SCHEMA_3)
    db.execute("INSERT INTO games (game, setup, pin_hash, created, status) "
               "VALUES ('counter', ?, 'x', 1767000000, 'active')", (json.dumps(SETUP),))
    for version, payload in enumerate([add("Anna", 1), add("Ben", 2)], start=1):
        db.execute("INSERT INTO events VALUES (1, ?, ?, 'Kim', 'action', ?)",
                   (version, 1767000000 + version, json.dumps(payload)))
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()


def test_a_version_3_log_migrates_and_keeps_its_entries_unmarked(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _version_3_log(path)
    with Store(path, readonly=True) as reader:  # a reader reads it as it is
        assert [(e.time, e.unsynced) for e in reader.entries(1)] == [
            (1767000001.0, False), (1767000002.0, False)]
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 3
    raw.close()
    clock = FakeClock(now=1766000000.0, synced=False)  # booted a day behind
    with Store(path) as store:
        table = make_table(store, clock)
        assert [e.unsynced for e in store.entries(1)] == [False, False]
        table.submit(1, add("Anna", 1), "Kim")
        assert [(e.time, e.unsynced) for e in store.entries(1)] == [
            (1767000001.0, False), (1767000002.0, False), (1767000002.0, True)]
        # Still append-only, and the roster migration did not run twice (no new players).
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store._db.execute("UPDATE events SET unsynced = 0")
        assert store.roster.players() == []
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    raw.close()
    with Store(path) as store:  # a second start changes nothing
        assert len(store.entries(1)) == 3


def test_a_version_3_backup_restores_and_is_migrated(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    _version_3_log(old)
    with Store(tmp_path / "live" / "companion.sqlite3") as store:
        table = make_table(store, FakeClock(synced=False))
        table.create_game("counter", SETUP, PIN)
        table.restore(old)
        assert [(e.version, e.unsynced) for e in store.entries(1)] == [(1, False), (2, False)]
        table.submit(1, add("Anna", 1), "Kim")
        assert store.entries(1)[-1].unsynced is True


def test_a_table_over_counted_ticks_is_unaffected(tmp_path: Path) -> None:
    # The default trusts the clock: tools and tests that pass only a clock mark nothing.
    ticks = itertools.count(1_700_000_000)
    with Store(tmp_path / "companion.sqlite3") as store:
        table = Table(store, clock=lambda: float(next(ticks)), pin_iterations=1000,
                      games=cg.REGISTRY)
        game = table.create_game("counter", SETUP, PIN)
        table.submit(game, add("Anna", 1), "Kim")
        assert store.entries(game)[0].unsynced is False
