"""The event log's SQLite file: opened private and durable, schema checked, one writer at once.

:class:`LogFile` is the connection the game log (:mod:`companion.store`) and the
roster (:mod:`companion.store_roster`) share: WAL journal with ``synchronous=FULL`` and
one transaction per write, so every write that returned has reached the disk; one
connection guarded by a lock (waitress serves from many threads; the writes are tiny,
so serialising them costs nothing worth a pool). A new file is created owner-only
(it holds the PIN hashes). The errors every part of the store raises are here too.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.store_schema import SCHEMA_VERSION, migrate

__all__ = [
    "CorruptEntry",
    "DuplicateVersion",
    "LogFile",
    "SchemaError",
    "StoreError",
    "UnknownGame",
    "check_id",
    "dump",
]


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


def dump(value: Any) -> str:
    """``value`` as the JSON text a row stores (no NaN, umlauts kept)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


# SQLite integers are 64-bit: a larger id from a URL or the command line names no game
# (sqlite3 would raise OverflowError, a crash rather than "no such game").
_ID_MAX = 2**63 - 1


def check_id(game_id: object, what: str = "game") -> None:
    """Raise :class:`UnknownGame` unless ``game_id`` can be a row id of a ``what``."""
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 1 <= game_id <= _ID_MAX:
        shown = "that number" if isinstance(game_id, int) and game_id > _ID_MAX else repr(game_id)
        if what == "player":
            raise UnknownGame(f"there is no roster player {shown}")
        raise UnknownGame(f"there is no game {shown}; `companion games` lists them")


class LogFile:
    """The SQLite file at ``path`` (created with its schema when new), opened once.

    A reader (``readonly``) opens the file read-only and never migrates it; ``version``
    is then the schema version it found, which decides what can be read of it.
    """

    def __init__(self, path: str | Path, *, timeout: float = 10.0,
                 readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.version = SCHEMA_VERSION
        self.lock = threading.RLock()
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
            self.db = sqlite3.connect(
                target, timeout=timeout, isolation_level=None, check_same_thread=False,
                uri=readonly,
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the database {path}: {exc}") from None
        try:
            self._prepare()
        except BaseException:
            self.db.close()
            raise
        if not readonly and not memory:
            _tighten(self.path)

    def _prepare(self) -> None:
        db = self.db
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise SchemaError(
                        f"{self.path} is an SQLite database but not a companion event log; "
                        "point --db / data_dir at another file"
                    )
            elif version not in range(1, SCHEMA_VERSION + 1):
                raise SchemaError(
                    f"{self.path} has event-log schema version {version}, but this companion "
                    f"knows version {SCHEMA_VERSION}; use a matching companion version"
                )
            if self.readonly:
                # Read as it is: a reader does not migrate (a version 1 log has no removed
                # game, an older one no roster: every player is then a guest; before
                # version 4 no entry is marked as recorded before the clock was set).
                self.version = version
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
                with self.transaction() as writing:
                    migrate(writing)
        except sqlite3.DatabaseError as exc:
            raise SchemaError(
                f"{self.path} cannot be used as the event log ({exc}); "
                "point --db / data_dir at another file"
            ) from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one write transaction: committed on leaving, rolled back
        on an error; StoreError (nothing recorded) when the file is busy or unwritable."""
        # BEGIN IMMEDIATE takes the write lock up front, so two processes writing the
        # same file wait for each other (up to the timeout) instead of failing midway.
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(
                    f"the event log {self.path} is busy or cannot be written ({exc}); "
                    "nothing was recorded, try again"
                ) from None
            try:
                yield self.db
            except BaseException:
                self._rollback()
                raise
            try:
                self.db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                self._rollback()
                raise StoreError(
                    f"the event log {self.path} could not be written ({exc}); "
                    "nothing was recorded, try again"
                ) from None

    def _rollback(self) -> None:
        # SQLite rolls some failures back by itself; a second ROLLBACK would raise.
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self.lock:
            self.db.close()


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
