"""Which browser sessions are scorekeepers, kept in a small SQLite file so that a restart
(a power cut, ``systemctl restart``) does not ask the table's scorekeeper for the PIN again.

The dashboard's :class:`companion.web.security.Grants` decides; this only remembers its
answers. A row is one session and one game: ``unlocked`` while the session may change
the game, kept with ``unlocked = 0`` once it locked the game again (the PIN throttle
still knows the scorekeeper's phone). The session id itself, a bearer secret, is never
written: only its SHA-256. The file is owner-only. A file that is not a database of
ours is moved aside (``keepers.sqlite3.bad-…``) and a fresh one started: the worst a
lost file costs is one PIN entry per scorekeeper.

A row also keeps when its game was created (``stamp``, asked of the event log): a game id
comes again after a restore or with a new event log, and a grant for the old game must
not open the new one. Rows whose game is gone or is another game are dropped when the
file is opened and after a restore (``retain``).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("companion")

FILE_NAME = "keepers.sqlite3"
# Rows older than this are forgotten when the file is opened: the session cookie itself
# lasts 12 hours (``PERMANENT_SESSION_LIFETIME``), an evening at most.
MAX_AGE_SECONDS = 24 * 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keeper_sessions (
    session TEXT NOT NULL,      -- SHA-256 of the session id, hex
    game_id INTEGER NOT NULL,
    game_created REAL NOT NULL, -- the game's creation time when the row was written
    unlocked INTEGER NOT NULL,  -- 1: may change the game now; 0: unlocked it once
    seen REAL NOT NULL,         -- when it last unlocked or locked (seconds since 1970)
    PRIMARY KEY (session, game_id)
)
"""


@dataclass(frozen=True)
class KeeperRow:
    """One remembered session and game (``session`` is the hash of the session id)."""

    session: str
    game_id: int
    unlocked: bool
    seen: float


def session_hash(sid: str) -> str:
    """The form a session id is stored in."""
    return hashlib.sha256(sid.encode("utf-8")).hexdigest()


class KeeperStore:
    """The scorekeeper sessions of ``data_dir/keepers.sqlite3``; thread-safe."""

    def __init__(self, path: Path | str, clock: Callable[[], float] = time.time,
                 max_age_seconds: float = MAX_AGE_SECONDS,
                 stamp: Callable[[int], float | None] | None = None) -> None:
        self.path = Path(path)
        self._clock = clock
        # The creation time of a game (None: no such game); without one every game id
        # counts as the same game for good (tests, a bare app).
        self._stamp = stamp or (lambda game_id: 0.0)
        self._lock = threading.Lock()
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            aside = self.path.with_name(f"{self.path.name}.bad-{int(clock())}")
            log.warning("the scorekeeper sessions %s could not be read (%s); moved to %s, "
                        "scorekeepers enter their PIN once more", self.path, exc, aside)
            os.replace(self.path, aside)
            for suffix in ("-wal", "-shm"):  # they belong to the file moved aside
                with contextlib.suppress(FileNotFoundError):
                    os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
            self._db = self._open()
        with self._writing() as db:
            db.execute("DELETE FROM keeper_sessions WHERE seen < ?",
                       (self._clock() - max_age_seconds,))
        self.retain()

    def retain(self) -> None:
        """Drop the rows whose game is gone or is another game under the same id."""
        with self._lock:
            found = self._db.execute(
                "SELECT DISTINCT game_id, game_created FROM keeper_sessions").fetchall()
        stale = [(g, c) for g, c in found if self._stamp(int(g)) != c]
        if stale:
            log.info("forgetting scorekeepers of %d games that are no longer in the event "
                     "log", len(stale))
            with self._writing() as db:
                db.executemany(
                    "DELETE FROM keeper_sessions WHERE game_id = ? AND game_created = ?", stale)

    def _open(self) -> sqlite3.Connection:
        # Created owner-only before SQLite opens it (SQLite would follow the umask).
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # A grant lost in a power cut costs one PIN entry, not a score: no FULL sync.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("the integrity check failed")
            columns = {row[1] for row in db.execute("PRAGMA table_info(keeper_sessions)")}
            if columns != {"session", "game_id", "game_created", "unlocked", "seen"}:
                raise sqlite3.DatabaseError(f"unexpected columns {sorted(columns)}")
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def rows(self) -> list[KeeperRow]:
        """Every remembered session and game, oldest first."""
        with self._lock:
            found = self._db.execute(
                "SELECT session, game_id, unlocked, seen FROM keeper_sessions "
                "ORDER BY seen, rowid").fetchall()
        return [KeeperRow(s, int(g), bool(u), float(t)) for s, g, u, t in found]

    def put(self, session: str, game_id: int, unlocked: bool) -> None:
        """Remember that ``session`` (a hash) unlocked or locked ``game_id`` now."""
        created = self._stamp(int(game_id))
        if created is None:  # no such game: nothing to remember
            return
        self._write("INSERT INTO keeper_sessions (session, game_id, game_created, unlocked, "
                    "seen) VALUES (?, ?, ?, ?, ?) ON CONFLICT (session, game_id) DO UPDATE "
                    "SET game_created = excluded.game_created, unlocked = excluded.unlocked, "
                    "seen = excluded.seen",
                    (session, int(game_id), created, int(unlocked), self._clock()))

    def forget(self, session: str) -> None:
        """Forget ``session`` altogether (the oldest, when too many are kept)."""
        self._write("DELETE FROM keeper_sessions WHERE session = ?", (session,))

    def _write(self, sql: str, values: tuple[object, ...]) -> None:
        # A full or failing SD card must not refuse a right PIN: the grant holds in
        # memory and only a restart forgets it.
        try:
            with self._writing() as db:
                db.execute(sql, values)
        except sqlite3.Error as exc:
            log.warning("could not write the scorekeeper sessions %s (%s); a restart will "
                        "ask for the PIN again", self.path, exc)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"KeeperStore({str(self.path)!r})"
