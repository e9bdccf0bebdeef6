"""The Stammtisch side of the table: the roster of regulars, statistics, evenings and the tab.

Everything is folded from the stored game logs when asked (:mod:`companion.stats`); the
roster and the paid tabs are rows of the store. Web code reaches it through the
:class:`~companion.table.Table`, which delegates here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from companion.stats import (
    GameStats,
    Period,
    Played,
    by_month,
    evening_of,
    statistics,
    tab_owed,
)
from companion.store import CorruptEntry, Store, UnknownGame
from companion.table.checks import (
    COLOURS,
    NICKNAME_MAX,
    TableError,
    check_name,
    check_who,
    player_names,
)
from companion.table.folds import FoldCache

__all__ = ["Stammtisch"]

_EVENING = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_KEY = re.compile(r"p([1-9][0-9]{0,17})|g:(.+)")


def _check_evening(evening: object) -> str:
    if not isinstance(evening, str) or not _EVENING.fullmatch(evening):
        raise TableError("name the evening as a date, YYYY-MM-DD")
    return Period.parse(evening).text


def _number(value: float) -> int | float:
    """A whole amount as an int (2, not 2.0); others rounded to cents."""
    return int(value) if float(value).is_integer() else round(value, 2)


class Stammtisch:
    """Roster, statistics, evenings and the tab over the games in ``store``.

    ``folds`` gives each game's fold, ``clock`` the time, ``lock`` is the table's lock and
    ``publish(game_id, version, kind)`` announces a settled tab; ``kinds`` says what
    each game type counts (the registry's statistics).
    """

    def __init__(
        self,
        store: Store,
        folds: FoldCache,
        clock: Callable[[], float],
        lock: AbstractContextManager[Any],
        publish: Callable[..., None],
        kinds: Mapping[str, GameStats],
    ) -> None:
        self._store = store
        self._folds = folds
        self._clock = clock
        self._lock = lock
        self._publish = publish
        self._kinds = kinds

    def roster_seats(self, names: list[str]) -> dict[int, int]:
        """Seats whose name is a roster player's (any case); the others are guests."""
        by_name = {p.name.casefold(): p.id for p in self._store.roster.players()}
        return {seat: by_name[name.casefold()] for seat, name in enumerate(names)
                if name.casefold() in by_name}

    def roster_names(self) -> list[str]:
        """The roster's names, for offering them where a game is set up (cheap: no folds)."""
        return [p.name for p in self._store.roster.players()]

    def roster(self) -> list[dict[str, Any]]:
        """The roster by name: id, key, name, nickname, colour, migrated, games, played_as."""
        with self._lock:
            games: dict[int, int] = {}
            played_as: dict[int, set[str]] = {}
            for played in self._played():
                names = player_names(played.fold.setup)
                for key, name in zip(played.keys, names, strict=True):
                    if key.startswith("p"):
                        games[int(key[1:])] = games.get(int(key[1:]), 0) + 1
                        played_as.setdefault(int(key[1:]), set()).add(name)
            return [
                {"id": p.id, "key": f"p{p.id}", "name": p.name, "nickname": p.nickname,
                 "colour": p.colour, "migrated": p.migrated, "games": games.get(p.id, 0),
                 "played_as": sorted(played_as.get(p.id, set()) - {p.name})}
                for p in self._store.roster.players()
            ]

    @staticmethod
    def _player_fields(name: object, nickname: object, colour: object) -> tuple[str, str, str]:
        name = check_name(name, "the player's name")
        nickname = "" if nickname in (None, "") or (isinstance(nickname, str)
                                                    and not nickname.strip()) else \
            check_name(nickname, "the nickname", NICKNAME_MAX)
        if colour not in COLOURS:
            raise TableError(f"colour: one of {', '.join(c for c in COLOURS if c)}, or none")
        return name, nickname, str(colour)

    def add_player(self, name: object, nickname: object = "", colour: object = "") -> int:
        """Put a regular on the roster; return their id (TableError/StoreError if refused)."""
        fields = self._player_fields(name, nickname, colour)
        with self._lock:
            return self._store.roster.add_player(*fields, self._clock())

    def update_player(self, player_id: int, name: object, nickname: object = "",
                      colour: object = "") -> None:
        """Rename a roster player (or change nickname/colour); their games stay theirs."""
        fields = self._player_fields(name, nickname, colour)
        with self._lock:
            self._store.roster.update_player(player_id, *fields)

    def merge_players(self, source: int, target: int) -> None:
        """Two roster entries are one person: ``source``'s games count for ``target``."""
        with self._lock:
            self._store.roster.merge_players(source, target)

    def _played(self) -> list[Played]:
        """Every listed game whose log can be rebuilt, with its seats' player keys."""
        seats = self._store.roster.seats()
        result = []
        for record in self._store.games():
            if record.hidden:
                continue
            try:
                _, fold = self._folds.get(record.id)
            except CorruptEntry:
                continue
            linked = seats.get(record.id, {})
            keys = tuple(f"p{linked[seat]}" if seat in linked else f"g:{name}"
                         for seat, name in enumerate(player_names(fold.setup)))
            result.append(Played(record.id, record.game, record.created, fold, keys))
        return result

    def _labels(self, played: list[Played]) -> dict[str, str]:
        labels = {f"p{p.id}": p.name for p in self._store.roster.players()}
        for game in played:
            for key in game.keys:
                if key.startswith("g:"):
                    labels.setdefault(key, key[2:])
        return labels

    def statistics(self, period: str | None = None) -> dict[str, Any]:
        """Counters per game type and player over the games in ``period`` (year, month,
        evening; empty: all time), folded from the logs now: ``{"period", "counters",
        "games": {type: {key: {...}}}, "names": {key: name}}``."""
        chosen = Period.parse(period)
        with self._lock:
            played = self._played()
            return {"period": chosen.text,
                    "counters": {g: list(k.counters) for g, k in self._kinds.items()},
                    "games": statistics(played, self._kinds, chosen),
                    "names": self._labels(played)}

    def player(self, player_id: int) -> dict[str, Any]:
        """One roster player: record, counters per game type, halves lost per month, games."""
        with self._lock:
            found = next((p for p in self._store.roster.players() if p.id == player_id), None)
            if found is None:
                raise UnknownGame(f"there is no roster player {player_id} (merged or never added)")
            key = f"p{player_id}"
            played = [g for g in self._played() if key in g.keys]
            totals = statistics(played, self._kinds)
            return {
                "id": found.id, "key": key, "name": found.name, "nickname": found.nickname,
                "colour": found.colour,
                "statistics": {g: rows[key] for g, rows in totals.items() if key in rows},
                "by_month": {g: {"counter": k.monthly, "months": by_month(played, key, g, k)}
                             for g, k in self._kinds.items() if k.monthly is not None},
                "games": [{"id": g.id, "game": g.game, "evening": g.evening,
                           "over": g.fold.over} for g in reversed(played)],
            }

    def evenings(self) -> list[dict[str, Any]]:
        """The evenings with games, newest first: ``{"evening", "games"}``."""
        with self._lock:
            counts: dict[str, int] = {}
            for played in self._played():
                counts[played.evening] = counts.get(played.evening, 0) + 1
        return [{"evening": e, "games": n} for e, n in sorted(counts.items(), reverse=True)]

    def current_evening(self) -> str:
        """The evening it is now (by the table's clock)."""
        return evening_of(self._clock())

    def evening(self, evening: str) -> dict[str, Any]:
        """One evening: its games with standings, statistics, and the tab with what is paid."""
        evening = _check_evening(evening)
        with self._lock:
            played = [g for g in self._played() if g.evening == evening]
            labels = self._labels(played)
            owed = tab_owed(played)
            paid: dict[tuple[str, str], float] = {}
            for settled in self._store.roster.settlements():
                if settled.evening != evening:
                    continue
                key = f"p{settled.player_id}" if settled.player_id is not None \
                    else f"g:{settled.guest}"
                paid[(key, settled.unit)] = paid.get((key, settled.unit), 0) + settled.amount
            tab = [
                {"key": key, "name": labels.get(key, key), "unit": unit, "owed": _number(amount),
                 "paid": _number(paid.get((key, unit), 0)),
                 "open": _number(max(0, amount - paid.get((key, unit), 0)))}
                for (key, unit), amount in sorted(owed.items(),
                                                  key=lambda kv: (labels.get(kv[0][0], ""), kv[0]))
            ]
            games = [
                {"id": game.id, "game": game.game, "players": player_names(game.fold.setup),
                 "over": game.fold.over, "keys": list(game.keys),
                 "standings": json.loads(json.dumps(game.fold.module.standings(game.fold.state)))}
                for game in played
            ]
            return {"evening": evening, "games": games, "tab": tab, "names": labels,
                    "statistics": statistics(played, self._kinds)}

    def settle(self, evening: str, key: str, unit: str, who: str) -> dict[str, Any]:
        """Record that ``key`` paid their open tab in ``unit`` for ``evening``; the new tab."""
        evening = _check_evening(evening)
        who = check_who(who)
        match = _KEY.fullmatch(key) if isinstance(key, str) else None
        if match is None:
            raise TableError("name the player whose tab is settled (a key from the tab)")
        with self._lock:
            row = next((r for r in self.evening(evening)["tab"]
                        if r["key"] == key and r["unit"] == unit), None)
            if row is None or row["open"] <= 0:
                raise TableError("nothing is open on this tab for that player and unit; "
                                 "reload the evening page")
            player_id = int(match.group(1)) if match.group(1) else None
            self._store.roster.add_settlement(evening, player_id, match.group(2), unit, row["open"],
                                       self._clock(), who)
            self._publish(None, 0, "settled")
            return self.evening(evening)

