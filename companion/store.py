"""The append-only event log in SQLite: games and their entries, nothing ever deleted.

One file holds several games; at most one of them is *active* (the game at the
table), the others are *archived* (kept, and can be activated again).
Every entry of a game is one row of ``events`` with the key (game_id, version):
a second write of the same version is rejected by SQLite itself and raised as
:class:`DuplicateVersion`; triggers refuse any UPDATE or DELETE of ``events``.

Durability: WAL journal with ``synchronous=FULL``, one transaction per write, so
every write that returned has reached the disk. Thread safety: one connection
per :class:`Store`, guarded by a lock (waitress serves from many threads; the
writes are tiny, so serialising them costs nothing worth a pool).
Timestamps are passed in by the caller, who owns the clock. The schema and its
migrations are in :mod:`companion.store_schema`, whole-file backup and restore in
:mod:`companion.backup`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.domain.entry import Entry
from companion.store_schema import SCHEMA_VERSION, migrate

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


class StoreError(ValueError):
    """The event log cannot do what was asked (the message says why and what to do)."""


class SchemaError(StoreError):
    """The database file is not a companion database of a schema version we know."""


class DuplicateVersion(StoreError):
    """An entry with this (game, version) is already stored: a double write."""


class UnknownGame(StoreError):
    """No stored game has this id."""


class CorruptEntry(StoreError):
    """A stored row does not hold what the companion wrote (changed outside it?)."""


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


@dataclass(frozen=True)
class PlayerRecord:
    """One roster entry; ``merged_into`` names the entry it was merged into, if any."""

    id: int
    name: str
    nickname: str
    colour: str
    created: float
    merged_into: int | None
    migrated: bool


@dataclass(frozen=True)
class Settlement:
    """A paid tab: ``amount`` of ``unit`` for one evening, by a roster player or a guest."""

    id: int
    evening: str
    player_id: int | None
    guest: str | None
    unit: str
    amount: float
    time: float
    who: str


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


class Store:
    """The SQLite event log at ``path`` (created with its schema when new)."""

    def __init__(
        self, path: str | Path, *, timeout: float = 10.0, readonly: bool = False
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._select = _SELECT_GAME
        self._roster = True
        self._lock = threading.RLock()
        memory = str(path) == ":memory:"
        if readonly and not memory and not self.path.is_file():
            raise StoreError(f"there is no event log at {path}; give --db or set data_dir")
        if not readonly and not memory:
            _create_private(self.path)
        try:
            # Autocommit mode: transactions are opened explicitly below, so the
            # sqlite3 module never starts or commits one behind our back. A reader opens
            # the file read-only, so it can never write a schema into someone's file.
            target = f"{self.path.resolve().as_uri()}?mode=ro" if readonly else str(path)
            self._db = sqlite3.connect(
                target, timeout=timeout, isolation_level=None, check_same_thread=False,
                uri=readonly,
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the database {path}: {exc}") from None
        try:
            self._prepare()
        except BaseException:
            self._db.close()
            raise
        if not readonly and not memory:
            _tighten(self.path)

    def _prepare(self) -> None:
        db = self._db
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise SchemaError(
                        f"{self.path} is an SQLite database but not a companion event log; "
                        "point --db / data_dir at another file"
                    )
            elif version not in (1, 2, SCHEMA_VERSION):
                raise SchemaError(
                    f"{self.path} has event-log schema version {version}, but this companion "
                    f"knows version {SCHEMA_VERSION}; use a matching companion version"
                )
            if self.readonly:
                # Read as it is: a reader does not migrate (a version 1 log has no removed
                # game, an older one no roster: every player is then a guest).
                if version == 1:
                    self._select = _SELECT_GAME_V1
                self._roster = version >= 3
                if version == 0:
                    raise SchemaError(
                        f"{self.path} is not a companion event log (it holds no games); "
                        "point --db / data_dir at another file"
                    )
                return
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            if version < SCHEMA_VERSION:
                self._migrate()
        except sqlite3.DatabaseError as exc:
            raise SchemaError(
                f"{self.path} cannot be used as the event log ({exc}); "
                "point --db / data_dir at another file"
            ) from None

    def _migrate(self) -> None:
        with self._transaction() as db:
            migrate(db)

    @contextmanager
    def exclusive(self) -> Iterator[sqlite3.Connection]:
        """The connection with this store's lock held, for whole-file copies (backup, restore)."""
        with self._lock:
            yield self._db

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front, so two processes writing the
        # same file wait for each other (up to the timeout) instead of failing midway.
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(
                    f"the event log {self.path} is busy or cannot be written ({exc}); "
                    "nothing was recorded, try again"
                ) from None
            try:
                yield self._db
            except BaseException:
                self._rollback()
                raise
            try:
                self._db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                self._rollback()
                raise StoreError(
                    f"the event log {self.path} could not be written ({exc}); "
                    "nothing was recorded, try again"
                ) from None

    def _rollback(self) -> None:
        # SQLite rolls some failures back by itself; a second ROLLBACK would raise.
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._db.close()

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
                (game, _dump(setup), pin_hash, created, ACTIVE if activate else ARCHIVED),
            )
            game_id = int(cursor.lastrowid or 0)
            for seat, player_id in sorted((seats or {}).items()):
                self._require_player(db, player_id)
                db.execute("INSERT INTO seats (game_id, seat, player_id) VALUES (?, ?, ?)",
                           (game_id, seat, player_id))
            for entry in entries:
                self._insert(db, game_id, entry)
        return game_id

    def game(self, game_id: int) -> GameRecord:
        """The stored game ``game_id``; raises :class:`UnknownGame`."""
        _check_id(game_id)
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
        _check_id(game_id)
        if db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
            raise UnknownGame(f"there is no game {game_id}; `companion games` lists them")

    # -- entries -----------------------------------------------------------

    def append(self, game_id: int, entry: Entry) -> None:
        """Store ``entry`` durably; raises :class:`DuplicateVersion` if its version exists."""
        if entry.time is None:
            raise StoreError(f"entry {entry.version} has no time; the store keeps when it happened")
        with self._transaction() as db:
            self._require(db, game_id)
            self._insert(db, game_id, entry)

    @staticmethod
    def _insert(db: sqlite3.Connection, game_id: int, entry: Entry) -> None:
        if entry.time is None:
            raise StoreError(f"entry {entry.version} has no time; the store keeps when it happened")
        try:
            db.execute(
                "INSERT INTO events (game_id, version, time, who, kind, payload) "
                "VALUES (?,?,?,?,?,?)",
                (game_id, entry.version, entry.time, entry.who, entry.kind, _dump(entry.to_dict())),
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

    def entries(self, game_id: int, after: int = 0) -> list[Entry]:
        """The entries of ``game_id`` with a version above ``after``, in order."""
        with self._lock:
            self._require(self._db, game_id)
            rows = self._db.execute(
                "SELECT version, time, who, kind, payload FROM events "
                "WHERE game_id = ? AND version > ? ORDER BY version",
                (game_id, after),
            ).fetchall()
        result = []
        expected = after + 1
        for version, time, who, kind, payload in rows:
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
                entry = Entry(version, data, float(time), str(who))
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


    # -- the roster ----------------------------------------------------------

    def players(self, *, include_merged: bool = False) -> list[PlayerRecord]:
        """The roster by name (merged entries only when ``include_merged``)."""
        if not self._roster:
            return []
        where = "" if include_merged else " WHERE merged_into IS NULL"
        with self._lock:
            rows = self._db.execute(
                "SELECT id, name, nickname, colour, created, merged_into, migrated FROM players"
                f"{where} ORDER BY lower(name), id"
            ).fetchall()
        return [PlayerRecord(r[0], r[1], r[2], r[3], float(r[4]), r[5], bool(r[6])) for r in rows]

    def add_player(self, name: str, nickname: str, colour: str, created: float) -> int:
        """Add a roster player; raises StoreError when the name is taken (any case)."""
        with self._transaction() as db:
            self._name_free(db, name, None)
            cursor = db.execute(
                "INSERT INTO players (name, nickname, colour, created) VALUES (?, ?, ?, ?)",
                (name, nickname, colour, created),
            )
            return int(cursor.lastrowid or 0)

    def update_player(self, player_id: int, name: str, nickname: str, colour: str) -> None:
        """Rename a roster player or change nickname/colour; the games keep pointing at them."""
        with self._transaction() as db:
            self._require_player(db, player_id, merged_ok=False)
            self._name_free(db, name, player_id)
            db.execute(
                "UPDATE players SET name = ?, nickname = ?, colour = ?, migrated = 0 WHERE id = ?",
                (name, nickname, colour, player_id),
            )

    def merge_players(self, source: int, target: int) -> None:
        """Record that ``source`` is the same person as ``target`` (who keeps the name)."""
        if source == target:
            raise StoreError("a player cannot be merged with themselves; pick two entries")
        with self._transaction() as db:
            self._require_player(db, source, merged_ok=False)
            self._require_player(db, target, merged_ok=False)
            # Entries merged into the source earlier follow it, so a chain never forms.
            db.execute("UPDATE players SET merged_into = ? WHERE merged_into = ?",
                       (target, source))
            db.execute("UPDATE players SET merged_into = ? WHERE id = ?", (target, source))

    def seats(self) -> dict[int, dict[int, int]]:
        """game id -> {seat: roster player id}, merges already followed."""
        if not self._roster:
            return {}
        with self._lock:
            rows = self._db.execute(
                "SELECT s.game_id, s.seat, coalesce(p.merged_into, p.id) "
                "FROM seats s JOIN players p ON p.id = s.player_id"
            ).fetchall()
        result: dict[int, dict[int, int]] = {}
        for game_id, seat, player_id in rows:
            result.setdefault(int(game_id), {})[int(seat)] = int(player_id)
        return result

    @staticmethod
    def _name_free(db: sqlite3.Connection, name: str, player_id: int | None) -> None:
        row = db.execute(
            "SELECT id, name FROM players WHERE lower(name) = lower(?) AND merged_into IS NULL",
            (name,),
        ).fetchone()
        if row is not None and row[0] != player_id:
            raise StoreError(
                f"{row[1]!r} is already in the roster; choose another name, or merge the two"
            )

    @staticmethod
    def _require_player(db: sqlite3.Connection, player_id: int, *, merged_ok: bool = True) -> None:
        _check_id(player_id, "player")
        row = db.execute("SELECT merged_into FROM players WHERE id = ?", (player_id,)).fetchone()
        if row is None:
            raise UnknownGame(f"there is no roster player {player_id}")
        if row[0] is not None and not merged_ok:
            raise StoreError(f"roster player {player_id} was merged into player {row[0]}; "
                             "use that entry")

    # -- the tab -------------------------------------------------------------

    def add_settlement(self, evening: str, player_id: int | None, guest: str | None,
                       unit: str, amount: float, time: float, who: str) -> int:
        """Record that a tab was paid (append-only); return the settlement's id."""
        with self._transaction() as db:
            if player_id is not None:
                self._require_player(db, player_id)
            cursor = db.execute(
                "INSERT INTO settlements (evening, player_id, guest, unit, amount, time, who) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (evening, player_id, guest, unit, amount, time, who),
            )
            return int(cursor.lastrowid or 0)

    def settlements(self) -> list[Settlement]:
        """Every recorded settlement, oldest first, merges followed."""
        if not self._roster:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT s.id, s.evening, coalesce(p.merged_into, p.id), s.guest, s.unit, "
                "s.amount, s.time, s.who FROM settlements s "
                "LEFT JOIN players p ON p.id = s.player_id ORDER BY s.id"
            ).fetchall()
        return [Settlement(r[0], r[1], r[2], r[3], r[4], float(r[5]), float(r[6]), r[7])
                for r in rows]

# SQLite integers are 64-bit: a larger id from a URL or the command line names no game
# (sqlite3 would raise OverflowError, a crash rather than "no such game").
_ID_MAX = 2**63 - 1


def _check_id(game_id: object, what: str = "game") -> None:
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 1 <= game_id <= _ID_MAX:
        shown = "that number" if isinstance(game_id, int) and game_id > _ID_MAX else repr(game_id)
        if what == "player":
            raise UnknownGame(f"there is no roster player {shown}")
        raise UnknownGame(f"there is no game {shown}; `companion games` lists them")


def _create_private(path: Path) -> None:
    """Create the folder (0700) and an empty database file (0600) if they are missing.

    The log holds the PIN hashes: other users of the machine must not read it. SQLite
    gives its -wal and -shm files the mode of the database file.
    """
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create the folder for the event log {path}: {exc.strerror}; "
            "choose another data_dir"
        ) from None
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    except OSError as exc:
        raise StoreError(
            f"cannot create the event log {path}: {exc.strerror}; choose another data_dir"
        ) from None


def _tighten(path: Path) -> None:
    # A log made by an older companion (0644) becomes owner-only too; not ours: leave it.
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if file.exists() and file.stat().st_mode & 0o077:
                file.chmod(0o600)
        except OSError:
            pass
