"""Backup and restore of the whole database: consistent while recording, atomic, refusing.

A backup taken while games are being recorded (by the companion's own connection, and by
a second connection as ``companion backup`` opens it) restores to an identical database:
SQLite's integrity check passes, the dump is the same, and every game's standings are
those of the source log up to the backed-up version.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
from test_roster import _old_database

from companion.backup import write_backup
from companion.cli import main
from companion.domain.entry import Entry
from companion.domain.fold import fold_entries
from companion.registry import GAMES
from companion.store import Store, StoreError
from companion.table import Table

FIXTURES = Path(__file__).parents[1] / "fixtures" / "games"


def _lines(name: str) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line]
    return lines[0], lines[1:]


def _record_games(table: Table, stop: threading.Event, games: list[int]) -> None:
    """Play fixture games action by action until told to stop (the table at work)."""
    logs = [_lines(n) for n in ("schocken-finale.jsonl", "rockthebock-4p.jsonl",
                                "wacken-seed.jsonl")]
    while not stop.is_set():
        for header, actions in logs:
            game_id = table.create_game(header["game"], header["setup"], "1234")
            games.append(game_id)
            for action in actions:
                table.submit(game_id, action, "Kim")
                if stop.is_set():
                    return


def _dump(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()


def _check_restores_identically(source: Store, backup: Path, tmp_path: Path) -> None:
    db = sqlite3.connect(backup)
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    db.close()
    restored_path = tmp_path / "restored" / "companion.sqlite3"
    restored = Store(restored_path)
    Table(restored).restore(backup)
    assert _dump(restored_path) == _dump(backup)
    table = Table(restored)
    games = restored.games()
    assert games, "the backup holds the games recorded before it"
    for record in games:
        version = restored.latest_version(record.id)
        module = GAMES.rules(record.game)
        setup = module.Setup.from_dict(record.setup)
        # The source's log up to the backed-up version folds to the same standings.
        expected = fold_entries(module, setup, source.entries(record.id)[:version])
        assert table.snapshot(record.id)["standings"] == json.loads(
            json.dumps(module.standings(expected.state)))
    restored.close()


@pytest.mark.parametrize("second_connection", [False, True])
def test_a_backup_while_recording_restores_to_an_identical_database(
    tmp_path: Path, second_connection: bool
) -> None:
    store = Store(tmp_path / "live" / "companion.sqlite3")
    table = Table(store, pin_iterations=1000)
    table.stammtisch.add_player("Anna")
    stop, games = threading.Event(), []
    writer = threading.Thread(target=_record_games, args=(table, stop, games))
    writer.start()
    try:
        while len(games) < 4:
            stop.wait(0.01)
        backup = tmp_path / "backup.sqlite3"
        if second_connection:  # what `companion backup` does beside the running companion
            with Store(store.path, readonly=True) as reader:
                write_backup(reader, backup)
        else:
            table.backup(backup)
        at_backup = len(games)
        while len(games) <= at_backup and writer.is_alive():
            stop.wait(0.01)
    finally:
        stop.set()
        writer.join()
    assert len(games) > at_backup  # recording went on around the backup
    assert _dump(backup) != _dump(store.path)
    _check_restores_identically(store, backup, tmp_path)
    store.close()


def _junk(tmp_path: Path) -> dict[str, Path]:
    files = {}
    files["text"] = tmp_path / "notes.txt"
    files["text"].write_text("Anna owes two rounds\n")
    files["empty"] = tmp_path / "empty.sqlite3"
    files["empty"].write_bytes(b"")
    files["foreign"] = tmp_path / "foreign.sqlite3"
    other = sqlite3.connect(files["foreign"])
    other.execute("CREATE TABLE recipes (name TEXT)")
    other.commit()
    other.close()
    files["newer"] = tmp_path / "newer.sqlite3"
    Store(files["newer"]).close()
    raw = sqlite3.connect(files["newer"])
    raw.execute("PRAGMA user_version = 9")
    raw.close()
    files["truncated"] = tmp_path / "truncated.sqlite3"
    with Store(tmp_path / "whole.sqlite3") as whole:
        Table(whole, pin_iterations=1000).create_game(
            "schocken", {"players": ["A", "B"], "starter": "A"}, "1234")
        write_backup(whole, tmp_path / "whole-backup.sqlite3")
    files["truncated"].write_bytes((tmp_path / "whole-backup.sqlite3").read_bytes()[:5000])
    files["illegal"] = tmp_path / "illegal.sqlite3"
    with Store(files["illegal"]) as bad:
        Table(bad, pin_iterations=1000).create_game(
            "schocken", {"players": ["A", "B"], "starter": "A"}, "1234")
        # A row the companion would never write: B throws out of turn.
        bad.append(1, Entry(1, {"action": "throw", "player": "B", "throws": 1,
                                "dice": [6, 6, 6], "hand": True}, 1.0, "x"))
    files["missing"] = tmp_path / "nothing-here.sqlite3"
    return files


def test_restore_refuses_what_is_not_a_companion_backup_and_changes_nothing(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "live" / "companion.sqlite3")
    table = Table(store, pin_iterations=1000)
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, "1234")
    table.submit(game, {"action": "throw", "player": "Anna", "throws": 1, "dice": [6, 5, 4],
                        "hand": True}, "Kim")
    before = _dump(store.path)
    for what, path in _junk(tmp_path).items():
        with pytest.raises(StoreError, match="nothing was restored|no .*backup|cannot read"):
            table.restore(path)
        assert _dump(store.path) == before, what
    assert table.snapshot(game)["version"] == 1
    store.close()


def test_restore_of_an_older_backup_migrates_it_and_keeps_the_database_as_it_was(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old.sqlite3"
    _old_database(old)
    store = Store(tmp_path / "live" / "companion.sqlite3")
    table = Table(store, pin_iterations=1000)
    game = table.create_game("wacken", {"players": ["Ozzy", "Doro"]}, "1234")
    kept = table.restore(old)
    assert [g["game"] for g in table.list_games()] == ["schocken", "rockthebock", "schocken"]
    assert [p["name"] for p in table.stammtisch.roster()] == ["Anna", "ben", "Cleo"]
    # The database as it was before the restore is kept, whole.
    with Store(kept, readonly=True) as previous:
        assert [g.id for g in previous.games()] == [game]
    # The live log is still in WAL mode and takes new games.
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    table.create_game("wacken", {"players": ["Ozzy", "Doro"]}, "1234")
    store.close()


def test_cli_backup_and_restore(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "data" / "companion.sqlite3"
    with Store(db) as store:
        table = Table(store, pin_iterations=1000)
        table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, "1234")
    backup = tmp_path / "b.sqlite3"
    assert main(["backup", str(backup), "--db", str(db)]) == 0
    assert "backed up 1 games" in capsys.readouterr().err
    with Store(db) as store:
        Table(store, pin_iterations=1000).create_game(
            "wacken", {"players": ["Ozzy", "Doro"]}, "1234")
    assert main(["restore", str(backup), "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert "restored 1 games" in err and "before-restore-" in err
    with Store(db, readonly=True) as store:
        assert [g.game for g in store.games()] == ["schocken"]
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    assert main(["restore", str(text), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an SQLite database" in err
    assert main(["restore", str(tmp_path / "absent"), "--db", str(db)]) == 2
    assert "no backup file" in capsys.readouterr().err
    assert main(["backup", str(db), "--db", str(db)]) == 2
    assert main(["backup", str(backup), "--db", str(tmp_path / "none.sqlite3")]) == 2
    assert "no event log" in capsys.readouterr().err
    with Store(db, readonly=True) as store:
        assert [g.game for g in store.games()] == ["schocken"]
