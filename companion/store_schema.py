"""The event log's SQLite schema, version by version, and how an older file is brought up to date.

Version 1 holds games and their entries; version 2 lets a junk game be taken off the list;
version 3 adds the Stammtisch (roster, seats, settlements); version 4 marks the entries
recorded before the clock was synchronised. :func:`migrate` runs inside
the caller's write transaction, statement by statement.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

__all__ = ["SCHEMA_VERSION", "migrate"]

SCHEMA_VERSION = 4

_SCHEMA = """
CREATE TABLE games (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    game     TEXT    NOT NULL CHECK (length(game) > 0),
    setup    TEXT    NOT NULL,
    pin_hash TEXT    NOT NULL,
    created  REAL    NOT NULL,
    status   TEXT    NOT NULL DEFAULT 'archived' CHECK (status IN ('active', 'archived'))
);
-- At most one game is active: a second 'active' row breaks this index.
CREATE UNIQUE INDEX one_active_game ON games (status) WHERE status = 'active';
CREATE TABLE events (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    version  INTEGER NOT NULL CHECK (typeof(version) = 'integer' AND version >= 1),
    time     REAL    NOT NULL,
    who      TEXT    NOT NULL,
    kind     TEXT    NOT NULL CHECK (kind IN ('action', 'undo', 'correct')),
    payload  TEXT    NOT NULL,
    PRIMARY KEY (game_id, version)
);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events are never changed'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events are never deleted'); END;
CREATE TRIGGER games_no_delete BEFORE DELETE ON games
BEGIN SELECT RAISE(ABORT, 'games are archived, never deleted'); END;
"""

# Version 2: a junk game can be taken off the list; its log stays (append-only).
_SCHEMA_2 = """
CREATE TABLE hidden (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id),
    time     REAL    NOT NULL
);
CREATE TRIGGER hidden_no_delete BEFORE DELETE ON hidden
BEGIN SELECT RAISE(ABORT, 'a removed game stays removed'); END;
"""


# Version 3: the Stammtisch. ``players`` is the roster of regulars (a rename changes the
# row, a merge points one row at another: games keep naming seats by id, so every count
# follows the person); ``seats`` says which roster player sat at which seat of a game
# (a seat without a row is a guest); ``settlements`` records a paid tab, append-only.
_SCHEMA_3 = """
CREATE TABLE players (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT    NOT NULL CHECK (length(name) > 0),
    nickname    TEXT    NOT NULL DEFAULT '',
    colour      TEXT    NOT NULL DEFAULT '',
    created     REAL    NOT NULL,
    merged_into INTEGER REFERENCES players (id),
    migrated    INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX players_one_name ON players (lower(name)) WHERE merged_into IS NULL;
CREATE TRIGGER players_no_delete BEFORE DELETE ON players
BEGIN SELECT RAISE(ABORT, 'roster players are merged, never deleted'); END;
CREATE TABLE seats (
    game_id   INTEGER NOT NULL REFERENCES games (id),
    seat      INTEGER NOT NULL CHECK (seat >= 0),
    player_id INTEGER NOT NULL REFERENCES players (id),
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE settlements (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    evening   TEXT    NOT NULL,
    player_id INTEGER REFERENCES players (id),
    guest     TEXT,
    unit      TEXT    NOT NULL,
    amount    REAL    NOT NULL,
    time      REAL    NOT NULL,
    who       TEXT    NOT NULL,
    CHECK ((player_id IS NULL) <> (guest IS NULL))
);
CREATE TRIGGER settlements_no_update BEFORE UPDATE ON settlements
BEGIN SELECT RAISE(ABORT, 'a settled tab stays settled: settlements are never changed'); END;
CREATE TRIGGER settlements_no_delete BEFORE DELETE ON settlements
BEGIN SELECT RAISE(ABORT, 'a settled tab stays settled: settlements are never deleted'); END;
"""

# Version 4: ``unsynced`` marks an entry recorded while the wall clock had not been set
# from the network yet (a Pi without a real-time clock boots with an old time): its time
# may be off. Entries stored before version 4 were never checked and count as unmarked.
# Adding a column is no UPDATE: the append-only triggers stay as they are.
_SCHEMA_4 = """
ALTER TABLE events ADD COLUMN unsynced INTEGER NOT NULL DEFAULT 0 CHECK (unsynced IN (0, 1));
"""


def migrate(db: sqlite3.Connection) -> None:
    """Bring the database to :data:`SCHEMA_VERSION` (call inside a write transaction)."""
    # Another process may have created the schema since we looked.
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found >= SCHEMA_VERSION:
        return
    # Statement by statement: executescript() would COMMIT on its own.
    script = ((_SCHEMA if found == 0 else "") + (_SCHEMA_2 if found < 2 else "")
              + (_SCHEMA_3 if found < 3 else "") + _SCHEMA_4)
    for statement in _statements(script):
        db.execute(statement)
    if 0 < found < 3:
        _match_existing_players(db)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _match_existing_players(db: sqlite3.Connection) -> None:
    """Give the players of games stored before the roster existed a roster entry each.

    Matched by name, ignoring case and surrounding spaces: "Anna" of every old game
    becomes one roster player. Such entries are marked ``migrated`` so the roster page
    can ask the table to check them (rename, or merge where one person used two names).
    """
    rows = db.execute("SELECT id, setup, created FROM games ORDER BY id").fetchall()
    for game_id, setup, created in rows:
        for seat, name in enumerate(_setup_names(setup)):
            found = db.execute(
                "SELECT id FROM players WHERE lower(name) = lower(?) AND merged_into IS NULL",
                (name,),
            ).fetchone()
            if found is None:
                cursor = db.execute(
                    "INSERT INTO players (name, created, migrated) VALUES (?, ?, 1)",
                    (name, created),
                )
                player_id = int(cursor.lastrowid or 0)
            else:
                player_id = int(found[0])
            db.execute("INSERT INTO seats (game_id, seat, player_id) VALUES (?, ?, ?)",
                       (game_id, seat, player_id))

def _setup_names(setup: str) -> list[str]:
    """The player names of a stored setup: strings, or objects with a ``name``."""
    try:
        players = json.loads(setup).get("players", [])
    except (TypeError, ValueError, AttributeError):
        return []
    names = []
    for player in players if isinstance(players, list) else []:
        name = player.get("name") if isinstance(player, dict) else player
        names.append(name.strip() if isinstance(name, str) else "")
    return [n for n in names if n] if all(names) else []



def _statements(script: str) -> Iterator[str]:
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""
