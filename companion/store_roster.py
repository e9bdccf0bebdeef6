"""The Stammtisch's part of the event log: the roster, who sat where, and paid tabs.

Roster players are added, renamed and merged (a merge is recorded, never a delete);
seats tie a game's seat to a roster player; settlements record a paid tab, append-only.
A log older than schema version 3, opened read-only, has none of them: every player is
then a guest and nothing was settled.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from companion.store_file import LogFile, StoreError, UnknownGame, check_id

__all__ = ["PlayerRecord", "Roster", "Settlement"]


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


class Roster:
    """The roster, seats and settlements kept in ``file``."""

    def __init__(self, file: LogFile) -> None:
        self._file = file
        self._present = file.version >= 3

    def players(self, *, include_merged: bool = False) -> list[PlayerRecord]:
        """The roster by name (merged entries only when ``include_merged``)."""
        if not self._present:
            return []
        where = "" if include_merged else " WHERE merged_into IS NULL"
        with self._file.lock:
            rows = self._file.db.execute(
                "SELECT id, name, nickname, colour, created, merged_into, migrated FROM players"
                f"{where} ORDER BY lower(name), id"
            ).fetchall()
        return [PlayerRecord(r[0], r[1], r[2], r[3], float(r[4]), r[5], bool(r[6])) for r in rows]

    def add_player(self, name: str, nickname: str, colour: str, created: float) -> int:
        """Add a roster player; raises StoreError when the name is taken (any case)."""
        with self._file.transaction() as db:
            _name_free(db, name, None)
            cursor = db.execute(
                "INSERT INTO players (name, nickname, colour, created) VALUES (?, ?, ?, ?)",
                (name, nickname, colour, created),
            )
            return int(cursor.lastrowid or 0)

    def update_player(self, player_id: int, name: str, nickname: str, colour: str) -> None:
        """Rename a roster player or change nickname/colour; the games keep pointing at them."""
        with self._file.transaction() as db:
            require_player(db, player_id, merged_ok=False)
            _name_free(db, name, player_id)
            db.execute(
                "UPDATE players SET name = ?, nickname = ?, colour = ?, migrated = 0 WHERE id = ?",
                (name, nickname, colour, player_id),
            )

    def merge_players(self, source: int, target: int) -> None:
        """Record that ``source`` is the same person as ``target`` (who keeps the name)."""
        if source == target:
            raise StoreError("a player cannot be merged with themselves; pick two entries")
        with self._file.transaction() as db:
            require_player(db, source, merged_ok=False)
            require_player(db, target, merged_ok=False)
            # Entries merged into the source earlier follow it, so a chain never forms.
            db.execute("UPDATE players SET merged_into = ? WHERE merged_into = ?",
                       (target, source))
            db.execute("UPDATE players SET merged_into = ? WHERE id = ?", (target, source))

    def seats(self) -> dict[int, dict[int, int]]:
        """game id -> {seat: roster player id}, merges already followed."""
        if not self._present:
            return {}
        with self._file.lock:
            rows = self._file.db.execute(
                "SELECT s.game_id, s.seat, coalesce(p.merged_into, p.id) "
                "FROM seats s JOIN players p ON p.id = s.player_id"
            ).fetchall()
        result: dict[int, dict[int, int]] = {}
        for game_id, seat, player_id in rows:
            result.setdefault(int(game_id), {})[int(seat)] = int(player_id)
        return result

    def add_settlement(self, evening: str, player_id: int | None, guest: str | None,
                       unit: str, amount: float, time: float, who: str) -> int:
        """Record that a tab was paid (append-only); return the settlement's id."""
        with self._file.transaction() as db:
            if player_id is not None:
                require_player(db, player_id)
            cursor = db.execute(
                "INSERT INTO settlements (evening, player_id, guest, unit, amount, time, who) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (evening, player_id, guest, unit, amount, time, who),
            )
            return int(cursor.lastrowid or 0)

    def settlements(self) -> list[Settlement]:
        """Every recorded settlement, oldest first, merges followed."""
        if not self._present:
            return []
        with self._file.lock:
            rows = self._file.db.execute(
                "SELECT s.id, s.evening, coalesce(p.merged_into, p.id), s.guest, s.unit, "
                "s.amount, s.time, s.who FROM settlements s "
                "LEFT JOIN players p ON p.id = s.player_id ORDER BY s.id"
            ).fetchall()
        return [Settlement(r[0], r[1], r[2], r[3], r[4], float(r[5]), float(r[6]), r[7])
                for r in rows]


def require_player(db: sqlite3.Connection, player_id: int, *, merged_ok: bool = True) -> None:
    """Raise unless roster player ``player_id`` exists (and, unless ``merged_ok``, is unmerged)."""
    check_id(player_id, "player")
    row = db.execute("SELECT merged_into FROM players WHERE id = ?", (player_id,)).fetchone()
    if row is None:
        raise UnknownGame(f"there is no roster player {player_id}")
    if row[0] is not None and not merged_ok:
        raise StoreError(f"roster player {player_id} was merged into player {row[0]}; "
                         "use that entry")


def _name_free(db: sqlite3.Connection, name: str, player_id: int | None) -> None:
    row = db.execute(
        "SELECT id, name FROM players WHERE lower(name) = lower(?) AND merged_into IS NULL",
        (name,),
    ).fetchone()
    if row is not None and row[0] != player_id:
        raise StoreError(
            f"{row[1]!r} is already in the roster; choose another name, or merge the two"
        )
