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
from types import ModuleType
from typing import Any

from companion.games import GameError, ParseError, game_module
from companion.session import (
    CORRECT,
    UNDO,
    Entry,
    Fold,
    fold_entries,
    format_csv,
    format_log,
    parse_action,
    read_log,
)
from companion.store import CorruptEntry, DuplicateVersion, GameRecord, Store, UnknownGame

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
                module.NAME, parsed.to_dict(), pin_hash, self._clock(), activate=activate
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
