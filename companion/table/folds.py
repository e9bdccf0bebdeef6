"""Each stored game's fold kept in memory, and its dashboard snapshot built once per change.

A fold is rebuilt from the log when the log grew behind the cache's back (another process
recorded) or shrank (a restore). Not thread-safe by itself: the :class:`~companion.table.Table`
holds its lock around every call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from companion.domain.fold import Fold, fold_entries
from companion.games import GameError, GameRules
from companion.store import CorruptEntry, GameRecord, Store
from companion.table.checks import player_names

__all__ = ["FoldCache", "snapshot"]


class FoldCache:
    """The folds of the games in ``store`` (rules modules from ``games``) and their snapshots."""

    def __init__(self, store: Store, games: Callable[[str], GameRules]) -> None:
        self._store = store
        self._games = games
        self._folds: dict[int, Fold] = {}
        self._snapshots: dict[int, tuple[Fold, str, str]] = {}

    def get(self, game_id: int) -> tuple[GameRecord, Fold]:
        """The stored game and its fold up to the latest stored version (CorruptEntry if not)."""
        record = self._store.game(game_id)
        latest = self._store.latest_version(game_id)
        fold = self._folds.get(game_id)
        try:
            if fold is None or fold.version > latest:
                module = self._games(record.game)
                setup = module.Setup.from_dict(record.setup)
                fold = fold_entries(module, setup, self._store.entries(game_id))
            elif fold.version < latest:
                # Another process recorded meanwhile: fold in just what is new.
                fold = fold.extend(self._store.entries(game_id, fold.version))
        except GameError as exc:
            raise CorruptEntry(f"game {game_id} cannot be rebuilt from its log: {exc}") from None
        self._folds[game_id] = fold
        return record, fold

    def put(self, game_id: int, fold: Fold) -> None:
        """Keep ``fold`` as the game's fold (it was just stored)."""
        self._folds[game_id] = fold

    def forget(self, game_id: int) -> None:
        """Drop the game's fold: the next :meth:`get` rebuilds it from the log."""
        self._folds.pop(game_id, None)

    def clear(self) -> None:
        """Drop every fold and snapshot (the whole log was replaced)."""
        self._folds.clear()
        self._snapshots.clear()

    def listing(self, record: GameRecord) -> dict[str, Any]:
        """The game's row of the list: id, game, created, status, active, players, version,
        over; a game whose log cannot be rebuilt has an ``error`` instead."""
        row: dict[str, Any] = {"id": record.id, "game": record.game, "created": record.created,
                               "status": record.status, "active": record.active}
        try:
            _, fold = self.get(record.id)
        except CorruptEntry as exc:
            row.update(players=[], version=None, over=None, error=str(exc))
        else:
            row.update(players=player_names(fold.setup), version=fold.version, over=fold.over)
        return row

    def snapshot_json(self, record: GameRecord, fold: Fold) -> str:
        """:func:`snapshot` as JSON text, made again only when the fold or status changed."""
        cached = self._snapshots.get(record.id)
        if cached is not None and cached[0] is fold and cached[1] == record.status:
            return cached[2]
        text = json.dumps(snapshot(record, fold), ensure_ascii=False, allow_nan=False)
        self._snapshots[record.id] = (fold, record.status, text)
        return text


def snapshot(record: GameRecord, fold: Fold) -> dict[str, Any]:
    """Everything the dashboard shows of a game as a JSON-able dict."""
    module = fold.module
    return {
        "id": record.id,
        "game": record.game,
        "status": record.status,
        "active": record.active,
        "created": record.created,
        "players": player_names(fold.setup),
        "setup": fold.setup.to_dict(),
        "version": fold.version,
        "view": module.view(fold.state),
        "standings": module.standings(fold.state),
        "over": fold.over,
        "history": fold.history(),
    }
