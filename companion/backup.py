"""Back up and restore the whole event log: one consistent SQLite file, checked before use.

A backup may be written while games are recorded (SQLite's online backup API); a restore
checks the file first (a companion database passing SQLite's integrity check, brought to
the current schema in a private copy) and replaces every game, the roster and the tab in
one transaction.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from companion.store import Store, StoreError
from companion.store_schema import SCHEMA_VERSION

__all__ = ["check_backup", "restore", "write_backup"]


def write_backup(store: Store, target: str | Path) -> None:
    """Write a consistent copy of ``store``'s whole database to ``target`` (replaced atomically).

    SQLite's online backup API copies every page under one read transaction, so games
    recorded meanwhile by this or another process are either wholly in it or not at
    all. The copy is written beside ``target`` and renamed over it when complete.
    """
    target = Path(target)
    partial = target.with_name(f".{target.name}.partial")
    try:
        fd = os.open(partial, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        os.close(fd)
        copy = sqlite3.connect(partial, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot write the backup {target}: {exc}") from None
    try:
        with store.exclusive() as db:
            db.backup(copy)
        # One self-contained file: no -wal beside it to forget when copying it away.
        copy.execute("PRAGMA journal_mode=DELETE")
        copy.close()
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        copy.close()
        partial.unlink(missing_ok=True)
        raise StoreError(
            f"the backup to {target} failed ({exc}); nothing was written"
        ) from None


def restore(store: Store, source: str | Path,
            verify: Callable[[Store], None] | None = None) -> None:
    """Replace the whole database of ``store`` with the companion database ``source``, atomically.

    ``source`` is checked first (:func:`check_backup`: an SQLite file holding a
    companion event log that passes SQLite's integrity check) and brought to the
    current schema in a private copy; then its pages are copied over this database in
    one transaction: an error leaves this database as it was. ``verify`` may look
    at the checked copy first and raise to refuse it.
    """
    if store.readonly:
        raise StoreError("this event log was opened read-only; it cannot be restored")
    source = Path(source)
    staging = store.path.with_name(f".{store.path.name}.restore")
    try:
        with store.exclusive() as live:
            _copy_checked(source, staging)
            with Store(staging) as candidate, candidate.exclusive() as staged:
                _integrity(staged, source)
                if verify is not None:
                    verify(candidate)
                # The live connection holds the write lock for the whole copy.
                staged.backup(live)
            live.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error as exc:
        raise StoreError(f"the restore from {source} failed ({exc}); "
                         "the event log was left as it was") from None
    finally:
        for leftover in (staging, staging.with_name(staging.name + "-wal"),
                         staging.with_name(staging.name + "-shm")):
            leftover.unlink(missing_ok=True)


_SQLITE_MAGIC = b"SQLite format 3\x00"


def check_backup(path: str | Path) -> int:
    """The schema version of the companion database at ``path``; StoreError if it is none.

    Opened read-only: an SQLite file whose user_version is one this companion knows and
    that holds the ``games`` and ``events`` tables.
    """
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from None
    if head != _SQLITE_MAGIC:
        raise StoreError(f"{path} is not an SQLite database, so not a companion backup; "
                         "nothing was restored")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path}: {exc}; nothing was restored") from None
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a readable SQLite database ({exc}); "
                         "nothing was restored") from None
    finally:
        db.close()
    if version not in range(1, SCHEMA_VERSION + 1) or not {"games", "events"} <= tables:
        raise StoreError(f"{path} is an SQLite database but not a companion backup (schema "
                         f"version {version}); nothing was restored")
    return int(version)


def _copy_checked(source: Path, staging: Path) -> None:
    check_backup(source)
    try:
        fd = os.open(staging, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
            while chunk := src.read(1 << 20):
                out.write(chunk)
    except OSError as exc:
        raise StoreError(f"cannot copy {source} for checking: {exc.strerror}; "
                         "nothing was restored") from None


def _integrity(db: sqlite3.Connection, source: Path) -> None:
    result = db.execute("PRAGMA integrity_check").fetchall()
    if result != [("ok",)]:
        raise StoreError(f"{source} fails SQLite's integrity check ({result[0][0]}); "
                         "nothing was restored")

