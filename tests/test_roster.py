"""The roster in the store: schema 3, the migration of older logs, renames and merges."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion import store_schema
from companion.store import SCHEMA_VERSION, Store, StoreError, UnknownGame
from companion.table import Table, TableError


def _old_database(path: Path, version: int = 2) -> None:
    """A log as a companion before the roster wrote it: two games, players by name only."""
    db = sqlite3.connect(path)
    script = store_schema._SCHEMA + (store_schema._SCHEMA_2 if version >= 2 else "")
    db.executescript(script)
    games = [
        ("schocken", {"players": ["Anna", "ben"], "starter": "Anna", "rules": {}}),
        ("rockthebock", {"players": [{"name": "anna", "colour": "red"},
                                     {"name": "Cleo ", "colour": "blue"}],
                         "youngest": "anna", "rules": {}}),
        ("schocken", {"players": ["Ben", "Cleo"], "starter": "Ben", "rules": {}}),
    ]
    for game, setup in games:
        db.execute("INSERT INTO games (game, setup, pin_hash, created, status) "
                   "VALUES (?, ?, 'x', 1767000000, 'archived')", (game, json.dumps(setup)))
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


@pytest.mark.parametrize("version", [1, 2])
def test_older_logs_get_a_roster_matched_by_name(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.sqlite3"
    _old_database(path, version)
    with Store(path, readonly=True) as reader:  # a reader never migrates
        assert reader.roster.players() == [] and reader.roster.seats() == {}
    with Store(path) as store:
        players = {p.name: p for p in store.roster.players()}
        assert sorted(players, key=str.casefold) == ["Anna", "ben", "Cleo"]
        assert all(p.migrated for p in players.values())
        anna, ben, cleo = players["Anna"].id, players["ben"].id, players["Cleo"].id
        assert store.roster.seats() == {1: {0: anna, 1: ben}, 2: {0: anna, 1: cleo},
                                 3: {0: ben, 1: cleo}}
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()
    # A second start changes nothing.
    with Store(path) as store:
        assert len(store.roster.players()) == 3 and len(store.roster.seats()) == 3


def test_rename_and_merge_follow_the_person(table: Table) -> None:
    anna = table.stammtisch.add_player("Anna", "Anni", "red")
    anne = table.stammtisch.add_player("Anne")
    game = table.create_game("schocken", {"players": ["anne", "Ben"], "starter": "Ben"}, "1234")
    assert table.stammtisch.roster()[1]["games"] == 1  # "anne" typed in lower case is Anne
    table.stammtisch.merge_players(anne, anna)
    table.stammtisch.update_player(anna, "Anna Berger", "", "blue")
    roster = table.stammtisch.roster()
    assert [(p["name"], p["games"], p["played_as"]) for p in roster] == [
        ("Anna Berger", 1, ["anne"])]
    assert table.stammtisch.player(anna)["games"][0]["id"] == game
    with pytest.raises(UnknownGame):
        table.stammtisch.player(anne)  # merged away
    # The name is free again for a new regular, and taken names are refused in any case.
    table.stammtisch.add_player("Anne")
    with pytest.raises(StoreError, match="already in the roster"):
        table.stammtisch.add_player("anna berger")
    with pytest.raises(StoreError, match="already in the roster"):
        table.stammtisch.update_player(anna, "ANNE")


@pytest.mark.parametrize("fields", [
    {"name": ""}, {"name": "x" * 31}, {"name": "A\u202eB"}, {"name": "Anna", "nickname": "y" * 13},
    {"name": "Anna", "colour": "purple"}, {"name": 5},
])
def test_bad_roster_input_is_refused_and_changes_nothing(table: Table, fields: dict) -> None:
    with pytest.raises((TableError, StoreError)):
        table.stammtisch.add_player(fields.get("name"), fields.get("nickname", ""),
                                    fields.get("colour", ""))
    assert table.stammtisch.roster() == []


def test_merges_are_checked(table: Table) -> None:
    a, b = table.stammtisch.add_player("A1"), table.stammtisch.add_player("B1")
    with pytest.raises(StoreError, match="themselves"):
        table.stammtisch.merge_players(a, a)
    with pytest.raises(UnknownGame):
        table.stammtisch.merge_players(a, 99)
    c = table.stammtisch.add_player("C1")
    table.stammtisch.merge_players(a, b)
    table.stammtisch.merge_players(b, c)  # A1 follows B1 into C1: no chains
    assert [p["name"] for p in table.stammtisch.roster()] == ["C1"]
    with pytest.raises(StoreError, match="merged into"):
        table.stammtisch.merge_players(a, c)


def test_roster_rows_cannot_be_deleted_and_settlements_cannot_change(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        store.roster.add_player("Anna", "", "", 1.0)
        store.roster.add_settlement("2026-12-01", 1, None, "€", 2, 1.0, "Kim")
    raw = sqlite3.connect(tmp_path / "db.sqlite3")
    for statement in ("DELETE FROM players", "DELETE FROM settlements",
                      "UPDATE settlements SET amount = 0"):
        with pytest.raises(sqlite3.DatabaseError):
            raw.execute(statement)
    raw.close()
