"""The one small interface through which the dashboard (and the camera) reach the games.

Web code never touches SQLite or an engine's internals: it asks a :class:`Table`
for JSON-able snapshots, submits actions as dicts and listens for change
notices. The Table checks every action with the game's engine *before* it is
stored (nothing illegal is ever written), keeps the folded state of each game
in memory (rebuilt from the log when the log grew behind its back, e.g. by
another process), and is safe to call from many threads.

Status: at most one game is *active* (the game at the table, the one the
dashboard opens); the others are *archived*. Status only marks which game is at
the table: actions may be recorded in any stored game (the demo plays several
at once).

Change notices, ``{"game_id": int | None, "version": int, "kind": str}``,
kinds: ``created``, ``imported``, ``action``, ``undo``, ``correct``,
``activated``, ``archived`` and ``picture`` (``game_id`` is then the active
game or None, ``version`` counts pictures). A subscriber's queue keeps only the
newest notice per game and category (entries / status / picture), so a stuck
client holds a handful of notices however long it sleeps; every notice means
"fetch the snapshot again", so nothing is lost by coalescing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from companion.backup import check_backup, restore, write_backup
from companion.domain.csvexport import format_csv
from companion.domain.entry import CORRECT, UNDO, Entry
from companion.domain.fold import Fold, fold_entries, parse_action
from companion.domain.gamelog import format_log, read_log
from companion.games import GameError, ParseError, game_module
from companion.stats import (
    COUNTERS,
    Period,
    Played,
    by_month,
    deckel_series,
    evening_of,
    points_series,
    statistics,
    tab_owed,
)
from companion.store import (
    CorruptEntry,
    DuplicateVersion,
    GameRecord,
    Store,
    StoreError,
    UnknownGame,
)

# The store's errors a caller of the Table may see, so callers never import the store.
__all__ = [
    "DuplicateVersion",
    "PinError",
    "Subscription",
    "Table",
    "TableError",
    "UnknownGame",
    "hash_pin",
    "pin_matches",
]

PIN_PATTERN = re.compile(r"[0-9]{4,12}")
PIN_ITERATIONS = 100_000
_WHO_MAX = 64
NICKNAME_MAX = 12
COLOURS = ("", "red", "blue", "green", "yellow")
_EVENING = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_KEY = re.compile(r"p([1-9][0-9]{0,17})|g:(.+)")
_JPEG_START = b"\xff\xd8"


class TableError(ValueError):
    """A request to the table that cannot be carried out as given.

    Like the engines' errors it may carry a ``key`` and ``fields`` so that the dashboard
    words it in the page's language (:mod:`companion.games.errors`).
    """

    def __init__(self, message: str, *, key: str | None = None, **fields: object) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields


class PinError(TableError):
    """A PIN that is not 4 to 12 digits."""


def hash_pin(pin: str, *, iterations: int = PIN_ITERATIONS, salt: bytes | None = None) -> str:
    """A salted PBKDF2-SHA256 hash of ``pin`` as ``pbkdf2_sha256$iterations$salt$hash``.

    Raises :class:`PinError` unless ``pin`` is 4 to 12 digits.
    """
    if not isinstance(pin, str) or not PIN_PATTERN.fullmatch(pin):
        raise PinError("the PIN must be 4 to 12 digits (0-9), e.g. 4711; choose another",
                       key="pin_format")
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode("ascii"), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def pin_matches(pin: str, stored: str) -> bool:
    """Whether ``pin`` hashes to ``stored`` (constant-time comparison of the digests)."""
    if not isinstance(pin, str) or not PIN_PATTERN.fullmatch(pin):
        return False
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != "pbkdf2_sha256":
            return False
        expected = bytes.fromhex(digest)
        actual = hashlib.pbkdf2_hmac(
            "sha256", pin.encode("ascii"), bytes.fromhex(salt), int(iterations)
        )
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)


NAME_MAX = 30
PLAYERS_MAX = 12
TEXT_MAX = 64
SETUP_CHARS_MAX = 4096
ACTION_CHARS_MAX = 2048
# Characters that turn text around or hide it (right-to-left overrides and isolates,
# direction marks): a name "Anna\u202e" can make the history read backwards.
_HIDDEN_CHARS = re.compile("[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f"
                           "\u202a-\u202e\u2066-\u2069]")


def check_name(text: object, what: str, limit: int = NAME_MAX) -> str:
    """``text`` stripped, if it is 1 to ``limit`` visible characters; else TableError.

    Control characters and right-to-left overrides are refused: a name is shown on
    every phone and in every export, so it must read as what it is.
    """
    if not isinstance(text, str) or not text.strip():
        raise TableError(f"{what}: give 1 to {limit} characters", key="name_empty", limit=limit)
    text = text.strip()
    if len(text) > limit:
        raise TableError(f"{what}: at most {limit} characters, not {len(text)}",
                         key="name_long", limit=limit, n=len(text))
    if _HIDDEN_CHARS.search(text):
        raise TableError(f"{what}: no control or text-direction characters, please",
                         key="name_chars")
    return text


def _check_who(who: str) -> str:
    return check_name(who, "say who records this (a name)", _WHO_MAX)


def _check_texts(value: Any, what: str, chars_max: int) -> None:
    """Every text inside ``value`` (a setup or action) is short and plainly visible."""
    size = len(json.dumps(value, ensure_ascii=False))
    if size > chars_max:
        raise TableError(f"{what} is too large ({size} characters, at most {chars_max})",
                         key="too_large", limit=chars_max)
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str) and item:
            check_name(item, f"every text in {what}", TEXT_MAX)


def _player_names(setup: Any) -> list[str]:
    names = getattr(setup, "names", None)
    if names is not None:
        return [str(n) for n in names]
    return [p if isinstance(p, str) else str(p.name) for p in setup.players]


class Subscription:
    """Change notices for one listener; :meth:`get` waits, :meth:`close` stops listening."""

    def __init__(self, on_close: Callable[[Subscription], None], limit: int) -> None:
        self._on_close = on_close
        self._limit = limit
        self._pending: OrderedDict[tuple[Any, str], dict[str, Any]] = OrderedDict()
        self._ready = threading.Condition()
        self._closed = False
        self.dropped = 0

    def _put(self, notice: dict[str, Any]) -> None:
        key = (notice["game_id"], _category(notice.get("kind") or notice.get("type", "")))
        with self._ready:
            if self._closed:
                return
            self._pending.pop(key, None)
            self._pending[key] = notice
            while len(self._pending) > self._limit:
                self._pending.popitem(last=False)
                self.dropped += 1
            self._ready.notify_all()

    def get(self, timeout: float) -> dict[str, Any] | None:
        """The oldest waiting notice, waiting up to ``timeout`` seconds; None if none/closed."""
        with self._ready:
            self._ready.wait_for(lambda: self._pending or self._closed, timeout)
            if self._closed or not self._pending:
                return None
            return self._pending.popitem(last=False)[1]

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def close(self) -> None:
        """Stop listening; a waiting :meth:`get` returns None at once. Idempotent."""
        with self._ready:
            if self._closed:
                return
            self._closed = True
            self._pending.clear()
            self._ready.notify_all()
        self._on_close(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_evening(evening: object) -> str:
    if not isinstance(evening, str) or not _EVENING.fullmatch(evening):
        raise TableError("name the evening as a date, YYYY-MM-DD")
    return Period.parse(evening).text


def _number(value: float) -> int | float:
    """A whole amount as an int (2, not 2.0); others rounded to cents."""
    return int(value) if float(value).is_integer() else round(value, 2)


def _category(kind: str) -> str:
    if kind in ("activated", "archived"):
        return "status"
    if kind in ("picture", "button"):
        return kind
    return "entries"


class Table:
    """Games at the table: create, record, undo, correct, watch and export them."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], float] = time.time,
        *,
        queue_limit: int = 64,
        pin_iterations: int = PIN_ITERATIONS,
        games: Callable[[str], ModuleType] = game_module,
    ) -> None:
        self._store = store
        self._games = games
        self._clock = clock
        self._queue_limit = queue_limit
        self._pin_iterations = pin_iterations
        self._lock = threading.RLock()
        self._folds: dict[int, Fold] = {}
        self._snapshots: dict[int, tuple[Fold, str, str]] = {}
        self._subscribers: set[Subscription] = set()
        self._subscribers_lock = threading.Lock()
        self._picture: tuple[bytes, dict[str, Any]] | None = None
        self._pictures = 0
        self._button: dict[str, Any] | None = None
        self._presses = 0
        self._status: Callable[[], list[dict[str, Any]]] | None = None
        self._remeasure = threading.Event()

    # -- folding -------------------------------------------------------------

    def _fold(self, game_id: int) -> tuple[GameRecord, Fold]:
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

    # -- games -----------------------------------------------------------------

    def list_games(self, *, include_removed: bool = False) -> list[dict[str, Any]]:
        """Every stored game, oldest first: id, game, players, created, status, version, over.

        A game whose stored log cannot be rebuilt is listed with an ``error``. Games
        taken off the list (:meth:`hide`) are left out unless ``include_removed``.
        """
        with self._lock:
            rows = []
            for record in self._store.games():
                if record.hidden and not include_removed:
                    continue
                row: dict[str, Any] = {
                    "id": record.id,
                    "game": record.game,
                    "created": record.created,
                    "status": record.status,
                    "active": record.active,
                }
                try:
                    _, fold = self._fold(record.id)
                except CorruptEntry as exc:
                    row.update(players=[], version=None, over=None, error=str(exc))
                else:
                    row.update(
                        players=_player_names(fold.setup), version=fold.version, over=fold.over
                    )
                rows.append(row)
            return rows

    def create_game(
        self, game: str, setup: Mapping[str, Any], pin: str, *, activate: bool = True
    ) -> int:
        """Store a new game after the engine accepted ``setup``; return its id.

        The new game becomes the active one unless ``activate`` is False.
        Raises ParseError/RuleError for a bad game or setup, PinError for a bad PIN.
        """
        module = self._games(game)
        if not isinstance(setup, Mapping):
            raise ParseError(f"the setup must be an object with players and rules, not {setup!r}")
        _check_texts(setup, "the setup", SETUP_CHARS_MAX)
        parsed = module.Setup.from_dict(dict(setup))
        self._check_players(parsed)
        module.start(parsed)
        pin_hash = hash_pin(pin, iterations=self._pin_iterations)
        with self._lock:
            previous = self._store.active_game_id() if activate else None
            game_id = self._store.create_game(
                module.NAME, parsed.to_dict(), pin_hash, self._clock(), activate=activate,
                seats=self._roster_seats(_player_names(parsed)),
            )
            self._folds[game_id] = Fold.begin(module, parsed)
            self._publish(game_id, 0, "created")
            self._announce_archived(previous)
        return game_id

    @staticmethod
    def _check_players(setup: Any) -> None:
        names = _player_names(setup)
        if len(names) > PLAYERS_MAX:
            raise TableError(f"at most {PLAYERS_MAX} players fit a table, not {len(names)}",
                             key="too_many_players", limit=PLAYERS_MAX, n=len(names))
        for name in names:
            check_name(name, f"the player name {name[:NAME_MAX]!r}…" if len(name) > NAME_MAX
                       else "a player name")

    def has_game(self, game_id: int) -> bool:
        """Whether ``game_id`` names a stored game."""
        try:
            self._store.game(game_id)
        except UnknownGame:
            return False
        return True

    def hide(self, game_id: int) -> None:
        """Take a junk game off the list (its log stays stored and exportable)."""
        with self._lock:
            was_active = self._store.active_game_id() == game_id
            self._store.hide(game_id, self._clock())
            self._publish(game_id, self._fold(game_id)[1].version, "archived")
            if was_active:
                self._announce_archived(None)

    def import_log(self, text: str, pin: str, *, activate: bool = False) -> int:
        """Create a game from a game log (every line checked first); return its id.

        Entries are stored as recorded now by ``"import"``. Raises LogError
        naming the bad line, PinError for a bad PIN; a bad log stores nothing.
        """
        fold = read_log(text, self._games)
        _check_texts(fold.setup.to_dict(), "the setup", SETUP_CHARS_MAX)
        self._check_players(fold.setup)
        pin_hash = hash_pin(pin, iterations=self._pin_iterations)
        with self._lock:
            now = self._clock()
            entries = [Entry(e.version, e.payload, now, "import") for e in fold.entries]
            game_id = self._store.create_game(
                fold.module.NAME,
                fold.setup.to_dict(),
                pin_hash,
                now,
                entries,
                activate=activate,
                seats=self._roster_seats(_player_names(fold.setup)),
            )
            self._folds[game_id] = fold_entries(fold.module, fold.setup, entries)
            self._publish(game_id, fold.version, "imported")
        return game_id

    def verify_pin(self, game_id: int, pin: str) -> bool:
        """Whether ``pin`` is the scorekeeper PIN of ``game_id`` (raises UnknownGame)."""
        return pin_matches(pin, self._store.game(game_id).pin_hash)

    def activate(self, game_id: int) -> None:
        """Make ``game_id`` the game at the table (the previous one is archived)."""
        with self._lock:
            previous = self._store.active_game_id()
            self._store.activate(game_id)
            self._publish(game_id, self._fold(game_id)[1].version, "activated")
            if previous != game_id:
                self._announce_archived(previous)

    def _announce_archived(self, game_id: int | None) -> None:
        # The game that left the table changed status too: pages showing it must know.
        if game_id is not None:
            self._publish(game_id, self._store.latest_version(game_id), "archived")

    def archive(self, game_id: int) -> None:
        """Put ``game_id`` away; if it was active, no game is active afterwards."""
        with self._lock:
            self._store.archive(game_id)
            self._publish(game_id, self._fold(game_id)[1].version, "archived")

    def active_game_id(self) -> int | None:
        """The id of the game at the table, or None."""
        return self._store.active_game_id()

    # -- one game ------------------------------------------------------------

    def snapshot(self, game_id: int) -> dict[str, Any]:
        """Everything the dashboard shows of ``game_id`` as a JSON-able dict.

        Keys: id, game, status, active, created, players, setup, version, view
        (engine's ``view``), standings, over, history (see ``Fold.history``).
        """
        return json.loads(self.snapshot_json(game_id))

    def snapshot_json(self, game_id: int) -> str:
        """:meth:`snapshot` as JSON text, built once per change and shared by every reader.

        Thirty phones asking after each change then cost one snapshot, not thirty.
        """
        with self._lock:
            record, fold = self._fold(game_id)
            return self._snapshot_json(record, fold)

    def _snapshot_json(self, record: GameRecord, fold: Fold) -> str:
        cached = self._snapshots.get(record.id)
        if cached is not None and cached[0] is fold and cached[1] == record.status:
            return cached[2]
        text = json.dumps(self._snapshot(record, fold), ensure_ascii=False, allow_nan=False)
        self._snapshots[record.id] = (fold, record.status, text)
        return text

    @staticmethod
    def _snapshot(record: GameRecord, fold: Fold) -> dict[str, Any]:
        module = fold.module
        return {
            "id": record.id,
            "game": record.game,
            "status": record.status,
            "active": record.active,
            "created": record.created,
            "players": _player_names(fold.setup),
            "setup": fold.setup.to_dict(),
            "version": fold.version,
            "view": module.view(fold.state),
            "standings": module.standings(fold.state),
            "over": fold.over,
            "history": fold.history(),
        }

    def _record(self, game_id: int, payload: dict[str, Any], who: str) -> dict[str, Any]:
        who = _check_who(who)
        with self._lock:
            record, fold = self._fold(game_id)
            entry = Entry(fold.version + 1, payload, self._clock(), who)
            folded = fold.add(entry)  # raises before anything is stored
            try:
                self._store.append(game_id, entry)
            except DuplicateVersion:
                # Another process wrote this version first: forget our fold so the next
                # call rebuilds from the log, and let the caller try again.
                self._folds.pop(game_id, None)
                raise
            self._folds[game_id] = folded
            text = self._snapshot_json(record, folded)
            self._publish(game_id, folded.version, entry.kind)
        return json.loads(text)

    def submit(self, game_id: int, action: Mapping[str, Any], who: str) -> dict[str, Any]:
        """Record ``action`` (an engine event as a dict) by ``who``; return the new snapshot.

        On any GameError (ParseError, IllegalAction, ...) nothing is stored.
        """
        with self._lock:
            _, fold = self._fold(game_id)
            if isinstance(action, Mapping) and action.get("action") in (UNDO, CORRECT):
                raise ParseError(
                    f'"{action["action"]}" is not submitted as an action; use '
                    f"the {action['action']} button instead"
                )
            _check_texts(action, "the action", ACTION_CHARS_MAX)
            event = parse_action(fold.module, action)
            return self._record(game_id, fold.module.event_to_dict(event), who)

    def undo(self, game_id: int, who: str) -> dict[str, Any]:
        """Cancel the latest action not yet undone (an undo entry is recorded)."""
        return self._record(game_id, {"action": UNDO}, who)

    def correct(
        self, game_id: int, version: int, action: Mapping[str, Any], who: str
    ) -> dict[str, Any]:
        """Replace what the action of entry ``version`` recorded (a correction entry).

        Rejected (IllegalAction, nothing stored) if the replacement is illegal
        there or makes any later action in force illegal.
        """
        with self._lock:
            _, fold = self._fold(game_id)
            if isinstance(version, bool) or not isinstance(version, int):
                raise ParseError(f"name the version to correct as a whole number, not {version!r}")
            if not 1 <= version <= fold.version:
                raise ParseError(
                    f"there is no version {version} to correct; game {game_id} is at "
                    f"version {fold.version}"
                )
            _check_texts(action, "the action", ACTION_CHARS_MAX)
            event = parse_action(fold.module, action)
            payload = {
                "action": CORRECT,
                "version": version,
                "event": fold.module.event_to_dict(event),
            }
            return self._record(game_id, payload, who)

    def export_log(self, game_id: int) -> str:
        """The game as a game log (JSON lines), corrections and undos included."""
        with self._lock:
            return format_log(self._fold(game_id)[1])

    def export_csv(self, game_id: int) -> str:
        """The game as CSV: one row per entry, then the standings block."""
        with self._lock:
            return format_csv(self._fold(game_id)[1])

    # -- the Stammtisch: roster, statistics, evenings, the tab ---------------------

    def _roster_seats(self, names: list[str]) -> dict[int, int]:
        """Seats whose name is a roster player's (any case); the others are guests."""
        by_name = {p.name.casefold(): p.id for p in self._store.players()}
        return {seat: by_name[name.casefold()] for seat, name in enumerate(names)
                if name.casefold() in by_name}

    def roster_names(self) -> list[str]:
        """The roster's names, for offering them where a game is set up (cheap: no folds)."""
        return [p.name for p in self._store.players()]

    def roster(self) -> list[dict[str, Any]]:
        """The roster by name: id, key, name, nickname, colour, migrated, games, played_as."""
        with self._lock:
            games: dict[int, int] = {}
            played_as: dict[int, set[str]] = {}
            for played in self._played():
                names = _player_names(played.fold.setup)
                for key, name in zip(played.keys, names, strict=True):
                    if key.startswith("p"):
                        games[int(key[1:])] = games.get(int(key[1:]), 0) + 1
                        played_as.setdefault(int(key[1:]), set()).add(name)
            return [
                {"id": p.id, "key": f"p{p.id}", "name": p.name, "nickname": p.nickname,
                 "colour": p.colour, "migrated": p.migrated, "games": games.get(p.id, 0),
                 "played_as": sorted(played_as.get(p.id, set()) - {p.name})}
                for p in self._store.players()
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
            return self._store.add_player(*fields, self._clock())

    def update_player(self, player_id: int, name: object, nickname: object = "",
                      colour: object = "") -> None:
        """Rename a roster player (or change nickname/colour); their games stay theirs."""
        fields = self._player_fields(name, nickname, colour)
        with self._lock:
            self._store.update_player(player_id, *fields)

    def merge_players(self, source: int, target: int) -> None:
        """Two roster entries are one person: ``source``'s games count for ``target``."""
        with self._lock:
            self._store.merge_players(source, target)

    def _played(self) -> list[Played]:
        """Every listed game whose log can be rebuilt, with its seats' player keys."""
        seats = self._store.seats()
        result = []
        for record in self._store.games():
            if record.hidden:
                continue
            try:
                _, fold = self._fold(record.id)
            except CorruptEntry:
                continue
            linked = seats.get(record.id, {})
            keys = tuple(f"p{linked[seat]}" if seat in linked else f"g:{name}"
                         for seat, name in enumerate(_player_names(fold.setup)))
            result.append(Played(record.id, record.game, record.created, fold, keys))
        return result

    def _labels(self, played: list[Played]) -> dict[str, str]:
        labels = {f"p{p.id}": p.name for p in self._store.players()}
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
            return {"period": chosen.text, "counters": {g: list(c) for g, c in COUNTERS.items()},
                    "games": statistics(played, chosen), "names": self._labels(played)}

    def player(self, player_id: int) -> dict[str, Any]:
        """One roster player: record, counters per game type, halves lost per month, games."""
        with self._lock:
            found = next((p for p in self._store.players() if p.id == player_id), None)
            if found is None:
                raise UnknownGame(f"there is no roster player {player_id} (merged or never added)")
            key = f"p{player_id}"
            played = [g for g in self._played() if key in g.keys]
            totals = statistics(played)
            return {
                "id": found.id, "key": key, "name": found.name, "nickname": found.nickname,
                "colour": found.colour,
                "statistics": {g: rows[key] for g, rows in totals.items() if key in rows},
                "halves_by_month": by_month(played, key, "schocken", "halves_lost"),
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
            for settled in self._store.settlements():
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
                {"id": game.id, "game": game.game, "players": _player_names(game.fold.setup),
                 "over": game.fold.over, "keys": list(game.keys),
                 "standings": json.loads(json.dumps(game.fold.module.standings(game.fold.state)))}
                for game in played
            ]
            return {"evening": evening, "games": games, "tab": tab, "names": labels,
                    "statistics": statistics(played)}

    def settle(self, evening: str, key: str, unit: str, who: str) -> dict[str, Any]:
        """Record that ``key`` paid their open tab in ``unit`` for ``evening``; the new tab."""
        evening = _check_evening(evening)
        who = _check_who(who)
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
            self._store.add_settlement(evening, player_id, match.group(2), unit, row["open"],
                                       self._clock(), who)
            self._publish(None, 0, "settled")
            return self.evening(evening)

    def game_series(self, game_id: int) -> dict[str, Any]:
        """What the game's chart draws: players and one list of values per round.

        Schocken: the Deckel each player held after every round; Rock the Bock: running
        totals after every round; Wacken: nothing per round (``series`` is empty).
        """
        with self._lock:
            _, fold = self._fold(game_id)
            names = _player_names(fold.setup)
            if fold.module.NAME == "schocken":
                return {"game": "schocken", "players": names, "series": deckel_series(fold)}
            if fold.module.NAME == "rockthebock":
                return {"game": "rockthebock", "players": names, "series": points_series(fold)}
            return {"game": fold.module.NAME, "players": names, "series": []}

    # -- backup and restore ----------------------------------------------------

    def backup(self, path: str | Any) -> None:
        """Write a consistent copy of the whole event log to ``path`` (while games go on)."""
        write_backup(self._store, path)

    def restore(self, path: str | Any, *, keep_dir: Any | None = None) -> str | None:
        """Replace every game, the roster and the tab with the backup at ``path``.

        The file must be a companion database whose every game can be rebuilt; the
        database as it was is first saved to ``keep_dir`` (default: ``backups`` beside
        the event log), so a restore never loses a confirmed score. Returns that copy's
        path. Raises StoreError, changing nothing, for a file that is not a backup.
        """
        check_backup(path)

        def rebuildable(candidate: Store) -> None:
            broken = [g for g in Table(candidate, games=self._games).list_games(
                include_removed=True) if "error" in g]
            if broken:
                raise StoreError(f"the backup's game {broken[0]['id']} cannot be rebuilt "
                                 f"({broken[0]['error']}); nothing was restored")

        with self._lock:
            kept = None
            if str(self._store.path) != ":memory:":
                folder = Path(keep_dir) if keep_dir else self._store.path.parent / "backups"
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self._clock()))
                target = folder / f"before-restore-{stamp}.sqlite3"
                number = 1
                while target.exists():
                    number += 1
                    target = folder / f"before-restore-{stamp}-{number}.sqlite3"
                write_backup(self._store, target)
                kept = str(target)
            restore(self._store, path, verify=rebuildable)
            self._folds.clear()
            self._snapshots.clear()
            for record in self._store.games():
                self._publish(record.id, self._store.latest_version(record.id), "imported")
            return kept

    # -- notices and pictures ------------------------------------------------

    def subscribe(self) -> Subscription:
        """A new listener for change notices; close it when the client goes away."""
        subscription = Subscription(self._unsubscribe, self._queue_limit)
        with self._subscribers_lock:
            self._subscribers.add(subscription)
        return subscription

    def _unsubscribe(self, subscription: Subscription) -> None:
        with self._subscribers_lock:
            self._subscribers.discard(subscription)

    @property
    def subscriber_count(self) -> int:
        """How many subscriptions are open (for health pages and tests)."""
        with self._subscribers_lock:
            return len(self._subscribers)

    def _publish(
        self, game_id: int | None, version: int, kind: str, extra: Mapping[str, Any] | None = None
    ) -> None:
        notice = {"game_id": game_id, "version": version, "kind": kind, **(extra or {})}
        with self._subscribers_lock:
            subscribers = list(self._subscribers)
        for subscription in subscribers:
            subscription._put(dict(notice))

    def publish_picture(self, jpeg: bytes, reading: Mapping[str, Any]) -> None:
        """Keep the camera's latest picture (JPEG) and reading in memory and announce it."""
        if not isinstance(jpeg, bytes | bytearray) or not bytes(jpeg[:2]) == _JPEG_START:
            raise TableError("the camera picture must be JPEG bytes (starting with FF D8)")
        if not isinstance(reading, Mapping):
            raise TableError("the camera reading must be a dict")
        with self._lock:
            self._pictures += 1
            self._picture = (bytes(jpeg), dict(reading))
            self._publish(self._store.active_game_id(), self._pictures, "picture")

    def publish_button(
        self, outcome: str, text_en: str, text_de: str, game_id: int | None = None
    ) -> None:
        """Announce what the turn button did (``recorded``, ``refused``, ``undone``) and why.

        The notice (kind and type ``button``, for ``game_id``: the active game unless
        given) carries ``{"outcome", "ok", "text": {"en", "de"}}`` so every scorekeeper's
        page of that game can say what the table's light just showed; its ``version``
        counts presses and is never a point to resume from.
        """
        if outcome not in ("recorded", "refused", "undone"):
            raise TableError(f"unknown button outcome {outcome!r}")
        text = {"en": str(text_en), "de": str(text_de)}
        button = {"outcome": outcome, "text": text}
        with self._lock:
            self._presses += 1
            self._button = {**button, "press": self._presses}
            game = self._store.active_game_id() if game_id is None else game_id
            self._publish(game, self._presses, "button", {
                "type": "button", "button": button, "outcome": outcome,
                "ok": outcome != "refused", "text": text,
            })

    def latest_button(self) -> dict[str, Any] | None:
        """The last button outcome (with its press counter), or None before the first."""
        with self._lock:
            return None if self._button is None else dict(self._button)

    def provide_status(self, checks: Callable[[], list[dict[str, Any]]]) -> None:
        """Let the running companion say how it is (``companion doctor``'s checks)."""
        self._status = checks

    def status(self) -> list[dict[str, Any]]:
        """The pre-flight checks as dicts (name, level, detail, fix); empty without a provider."""
        return [] if self._status is None else list(self._status())

    def request_remeasure(self) -> None:
        """Ask the camera to measure exposure and white balance again (from the dashboard)."""
        self._remeasure.set()

    def take_remeasure(self) -> bool:
        """Whether a re-measure was asked for since the last call (the camera loop asks)."""
        if self._remeasure.is_set():
            self._remeasure.clear()
            return True
        return False

    def latest_picture(self) -> tuple[bytes, dict[str, Any]] | None:
        """The latest camera picture and its reading, or None before the first."""
        with self._lock:
            if self._picture is None:
                return None
            jpeg, reading = self._picture
            return jpeg, dict(reading)

    # -- tray calibration ------------------------------------------------------

    # The running companion's ``TraySetup`` (companion/tray_setup.py), when a camera runs.
    _tray_setup: Any = None

    def attach_tray_setup(self, setup: Any) -> None:
        """Let the dashboard calibrate the tray through ``setup`` (a ``TraySetup``)."""
        self._tray_setup = setup

    def tray_setup(self) -> Any | None:
        """The companion's tray calibration (latest raw frame, proposal, save), or None
        when no camera runs."""
        return self._tray_setup

    def close(self) -> None:
        """Close every subscription (waking their waiting clients); the store stays open."""
        with self._subscribers_lock:
            subscribers = list(self._subscribers)
        for subscription in subscribers:
            subscription.close()
