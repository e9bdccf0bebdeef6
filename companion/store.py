"""The append-only event log in SQLite: games and their entries, nothing ever deleted.

One file holds several games; at most one of them is *active* (the game at the
table), the others are *archived* (kept, and can be activated again).
Every entry of a game is one row of ``events`` with the key (game_id, version):
a second write of the same version is rejected by SQLite itself and raised as
:class:`DuplicateVersion`; triggers refuse any UPDATE or DELETE of ``events``.

Timestamps are passed in by the caller, who owns the clock; the store keeps a game's
times in order (an entry is never stored as earlier than the one before it, so a clock
stepped back by NTP cannot reorder history) and keeps whether each was read before the
clock was synchronised (:attr:`Entry.unsynced`). The file itself (durability,
permissions, one writer at a time, the errors) is :mod:`companion.store_file`; its schema
and migrations are in :mod:`companion.store_schema`; the Stammtisch's roster, seats and
tabs are :attr:`Store.roster` (:mod:`companion.store_roster`); whole-file backup and
restore are in :mod:`companion.backup`.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.domain.entry import Entry
from companion.store_file import (
    CorruptEntry,
    DuplicateVersion,
    LogFile,
    SchemaError,
    StoreError,
    UnknownGame,
    check_id,
    dump,
)
from companion.store_roster import PlayerRecord, Roster, Settlement, require_player
from companion.store_schema import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "CorruptEntry",
    "DuplicateVersion",
    "GameRecord",
    "PlayerRecord",
    "Settlement",
    "SchemaError",
    "Store",
    "StoreError",
    "UnknownGame",
]


ACTIVE = "active"
ARCHIVED = "archived"

_SELECT_GAME = (
    "SELECT id, game, setup, pin_hash, created, status, "
    "EXISTS (SELECT 1 FROM hidden WHERE hidden.game_id = games.id) FROM games"
)

_SELECT_GAME_V1 = "SELECT id, game, setup, pin_hash, created, status, 0 FROM games"

_SELECT_EVENTS = "SELECT version, time, who, kind, payload, unsynced FROM events"

# Before schema version 4 no entry was marked (a reader reads older files as they are).
_SELECT_EVENTS_V3 = "SELECT version, time, who, kind, payload, 0 FROM events"


@dataclass(frozen=True)
class GameRecord:
    """One stored game without its entries."""

    id: int
    game: str
    setup: dict[str, Any]
    pin_hash: str
    created: float
    status: str
    hidden: bool = False

    @property
    def active(self) -> bool:
        """Whether this is the game at the table."""
        return self.status == ACTIVE


class Store:
    """The SQLite event log at ``path`` (created with its schema when new).

    A reader (``readonly``) reads the file as it is and never migrates it.
    """

    def __init__(
        self, path: str | Path, *, timeout: float = 10.0, readonly: bool = False
    ) -> None:
        self._file = LogFile(path, timeout=timeout, readonly=readonly)
        self.path = self._file.path
        self.readonly = readonly
        self._select = _SELECT_GAME_V1 if self._file.version == 1 else _SELECT_GAME
        self._select_events = _SELECT_EVENTS_V3 if self._file.version < 4 else _SELECT_EVENTS
        self._lock = self._file.lock
        self._db = self._file.db
        self._transaction = self._file.transaction
        self.roster = Roster(self._file)
        """The Stammtisch's roster, seats and paid tabs in the same file."""

    @contextmanager
    def exclusive(self) -> Iterator[sqlite3.Connection]:
        """The connection with this store's lock held, for whole-file copies (backup, restore)."""
        with self._lock:
            yield self._db

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._file.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games -------------------------------------------------------------

    def create_game(
        self,
        game: str,
        setup: dict[str, Any],
        pin_hash: str,
        created: float,
        entries: Sequence[Entry] = (),
        *,
        activate: bool = False,
        seats: Mapping[int, int] | None = None,
    ) -> int:
        """Store a new game (and its first entries, all in one transaction); return its id.

        ``seats`` maps seat numbers to roster player ids (seats left out are guests).
        """
        with self._transaction() as db:
            if activate:
                db.execute("UPDATE games SET status = 'archived' WHERE status = 'active'")
            cursor = db.execute(
                "INSERT INTO games (game, setup, pin_hash, created, status) VALUES (?,?,?,?,?)",
                (game, dump(setup), pin_hash, created, ACTIVE if activate else ARCHIVED),
            )
            game_id = int(cursor.lastrowid or 0)
            for seat, player_id in sorted((seats or {}).items()):
                require_player(db, player_id)
                db.execute("INSERT INTO seats (game_id, seat, player_id) VALUES (?, ?, ?)",
                           (game_id, seat, player_id))
            for entry in entries:
                self._insert(db, game_id, entry)
        return game_id

    def game(self, game_id: int) -> GameRecord:
        """The stored game ``game_id``; raises :class:`UnknownGame`."""
        check_id(game_id)
        with self._lock:
            row = self._db.execute(
                f"{self._select} WHERE id = ?",
                (game_id,),
            ).fetchone()
        if row is None:
            raise UnknownGame(f"there is no game {game_id}; `companion games` lists them")
        return self._record(row)

    def games(self) -> list[GameRecord]:
        """Every stored game, oldest first."""
        with self._lock:
            rows = self._db.execute(
                f"{self._select} ORDER BY id"
            ).fetchall()
        return [self._record(row) for row in rows]

    @staticmethod
    def _record(row: tuple[Any, ...]) -> GameRecord:
        game_id, game, setup, pin_hash, created, status, hidden = row
        try:
            setup_dict = json.loads(setup)
        except (TypeError, ValueError):
            setup_dict = None
        if not isinstance(setup_dict, dict):
            raise CorruptEntry(f"game {game_id}: the stored setup is not a JSON object")
        return GameRecord(game_id, game, setup_dict, pin_hash, float(created), status,
                          bool(hidden))

    def activate(self, game_id: int) -> None:
        """Make ``game_id`` the active game; the previously active one is archived."""
        with self._transaction() as db:
            self._require(db, game_id)
            db.execute("UPDATE games SET status = 'archived' WHERE status = 'active'")
            db.execute("UPDATE games SET status = 'active' WHERE id = ?", (game_id,))

    def archive(self, game_id: int) -> None:
        """Archive ``game_id`` (no game is active afterwards if it was the active one)."""
        with self._transaction() as db:
            self._require(db, game_id)
            db.execute("UPDATE games SET status = 'archived' WHERE id = ?", (game_id,))

    def hide(self, game_id: int, when: float) -> None:
        """Take ``game_id`` off the list (archived too); its entries stay stored."""
        with self._transaction() as db:
            self._require(db, game_id)
            db.execute("UPDATE games SET status = 'archived' WHERE id = ?", (game_id,))
            db.execute("INSERT OR IGNORE INTO hidden (game_id, time) VALUES (?, ?)",
                       (game_id, when))

    def active_game_id(self) -> int | None:
        """The id of the active game, or None."""
        with self._lock:
            row = self._db.execute("SELECT id FROM games WHERE status = 'active'").fetchone()
        return None if row is None else int(row[0])

    @staticmethod
    def _require(db: sqlite3.Connection, game_id: int) -> None:
        check_id(game_id)
        if db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
            raise UnknownGame(f"there is no game {game_id}; `companion games` lists them")

    # -- entries -----------------------------------------------------------

    def append(self, game_id: int, entry: Entry) -> Entry:
        """Store ``entry`` durably and return it as stored; raises :class:`DuplicateVersion`
        if its version exists.

        Its time is kept as no earlier than the game's latest stored time: a clock stepped
        back (NTP correcting a Pi that booted with a wrong time) never reorders the history.
        An entry kept at the time of an entry marked ``unsynced`` is marked too: that time
        is now its own.
        """
        if entry.time is None:
            raise StoreError(f"entry {entry.version} has no time; the store keeps when it happened")
        with self._transaction() as db:
            self._require(db, game_id)
            return self._insert(db, game_id, entry)

    @staticmethod
    def _insert(db: sqlite3.Connection, game_id: int, entry: Entry) -> Entry:
        if entry.time is None:
            raise StoreError(f"entry {entry.version} has no time; the store keeps when it happened")
        # The entry whose own clock reading set the game's latest time (later entries
        # kept at that time come after it).
        latest = db.execute(
            "SELECT time, unsynced FROM events WHERE game_id = ? "
            "ORDER BY time DESC, version LIMIT 1", (game_id,)).fetchone()
        if latest is not None and entry.time < latest[0]:
            # Kept at the latest time, which is then this entry's time: uncertain if that was.
            entry = dataclasses.replace(entry, time=float(latest[0]),
                                        unsynced=entry.unsynced or latest[1] == 1)
        try:
            db.execute(
                "INSERT INTO events (game_id, version, time, who, kind, payload, unsynced) "
                "VALUES (?,?,?,?,?,?,?)",
                (game_id, entry.version, entry.time, entry.who, entry.kind, dump(entry.to_dict()),
                 int(entry.unsynced)),
            )
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                raise DuplicateVersion(
                    f"game {game_id} already has version {entry.version}: someone else "
                    "recorded at the same moment; reload and try again"
                ) from None
            raise StoreError(
                f"game {game_id}, version {entry.version} was refused: {exc}"
            ) from None
        return entry

    def entries(self, game_id: int, after: int = 0) -> list[Entry]:
        """The entries of ``game_id`` with a version above ``after``, in order."""
        with self._lock:
            self._require(self._db, game_id)
            rows = self._db.execute(
                f"{self._select_events} WHERE game_id = ? AND version > ? ORDER BY version",
                (game_id, after),
            ).fetchall()
        result = []
        expected = after + 1
        for version, time, who, kind, payload, unsynced in rows:
            where = f"game {game_id}, version {version}"
            if version != expected:
                raise CorruptEntry(f"{where}: version {expected} is missing from the log")
            try:
                data = json.loads(payload)
            except (TypeError, ValueError):
                raise CorruptEntry(
                    f"{where}: the stored payload is not valid JSON; the database was changed "
                    "outside the companion; restore it from a backup or export"
                ) from None
            try:
                entry = Entry(version, data, float(time), str(who), unsynced == 1)
            except (TypeError, ValueError) as exc:
                raise CorruptEntry(f"{where}: the stored entry cannot be read: {exc}") from None
            if entry.kind != kind:
                raise CorruptEntry(
                    f"{where}: stored as kind {kind!r}, but its payload is kind {entry.kind!r}"
                )
            result.append(entry)
            expected += 1
        return result

    def latest_version(self, game_id: int) -> int:
        """The version of the latest entry of ``game_id`` (0 if none)."""
        with self._lock:
            self._require(self._db, game_id)
            row = self._db.execute(
                "SELECT max(version) FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()
        return int(row[0] or 0)
