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
``activated``, ``archived``, ``settled``, ``button`` and ``picture`` (``game_id`` is
then the active game or None, ``version`` counts pictures); see :mod:`.notices`.

This package's modules, one job each: :mod:`.checks` (names and sizes a person may
give), :mod:`.pins` (scorekeeper PINs), :mod:`.notices` (pub/sub), :mod:`.folds` (the
fold cache and snapshots), :mod:`.devices` (camera picture, button, status),
:mod:`.stammtisch` (roster, statistics, evenings, the tab: :attr:`Table.stammtisch`),
:mod:`.safekeeping` (restoring a backup without losing what was there). The
:class:`Table` here is the facade over them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from companion.backup import write_backup
from companion.domain.csvexport import format_csv
from companion.domain.entry import CORRECT, UNDO, Entry
from companion.domain.fold import Fold, fold_entries, parse_action
from companion.domain.gamelog import format_log, read_log
from companion.games import ParseError
from companion.registry import GAMES, Registry
from companion.store import (
    DuplicateVersion,
    Store,
    StoreError,
    UnknownGame,
)
from companion.table.checks import (
    ACTION_CHARS_MAX,
    SETUP_CHARS_MAX,
    WHO_MAX,
    TableError,
    check_name,
    check_players,
    check_texts,
    check_who,
    player_names,
)
from companion.table.devices import Devices
from companion.table.folds import FoldCache
from companion.table.notices import Notices, Subscription
from companion.table.pins import PIN_ITERATIONS, PinError, hash_pin, pin_matches
from companion.table.safekeeping import restore_keeping
from companion.table.stammtisch import Stammtisch
from companion.wording import file_catalogue, word

# The store's errors a caller of the Table may see, so callers never import the store.
__all__ = [
    "DuplicateVersion",
    "PinError",
    "Subscription",
    "Table",
    "TableError",
    "WHO_MAX",
    "UnknownGame",
    "check_name",
    "hash_pin",
    "pin_matches",
]


class Table:
    """Games at the table: create, record, undo, reopen, correct, watch and export them.

    ``clock`` times each entry; ``clock_synced`` says whether that clock has been set from
    the network yet: entries recorded while it says no are marked as of uncertain time.
    The default trusts the clock; the composition root passes
    :func:`companion.timesync.clock_synced`.
    """

    def __init__(
        self,
        store: Store,
        clock: Callable[[], float] = time.time,
        *,
        clock_synced: Callable[[], bool] = lambda: True,
        queue_limit: int = 64,
        pin_iterations: int = PIN_ITERATIONS,
        games: Registry = GAMES,
    ) -> None:
        self._store = store
        self._games = games
        self._clock = clock
        self._clock_synced = clock_synced
        self._pin_iterations = pin_iterations
        self._lock = threading.RLock()
        self._folds = FoldCache(store, games.rules)
        self._notices = Notices(queue_limit)
        self._publish = self._notices.publish
        self._devices = Devices(self._publish, store.active_game_id, self._lock)
        self._stammtisch = Stammtisch(store, self._folds, clock, self._lock, self._publish,
                                      games.stats())

    @property
    def games(self) -> Registry:
        """The games this table knows (the dashboard offers them)."""
        return self._games

    @property
    def stammtisch(self) -> Stammtisch:
        """The roster of regulars, statistics, evenings and the tab (:mod:`.stammtisch`)."""
        return self._stammtisch

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
                rows.append(self._folds.listing(record))
            return rows

    def create_game(
        self, game: str, setup: Mapping[str, Any], pin: str, *, activate: bool = True
    ) -> int:
        """Store a new game after the engine accepted ``setup``; return its id.

        The new game becomes the active one unless ``activate`` is False.
        Raises ParseError/RuleError for a bad game or setup, PinError for a bad PIN.
        """
        module = self._games.rules(game)
        if not isinstance(setup, Mapping):
            raise ParseError(f"the setup must be an object with players and rules, not {setup!r}")
        check_texts(setup, "the setup", SETUP_CHARS_MAX)
        parsed = module.Setup.from_dict(dict(setup))
        check_players(parsed)
        module.start(parsed)
        pin_hash = hash_pin(pin, iterations=self._pin_iterations)
        with self._lock:
            previous = self._store.active_game_id() if activate else None
            game_id = self._store.create_game(
                module.NAME, parsed.to_dict(), pin_hash, self._clock(), activate=activate,
                seats=self._stammtisch.roster_seats(player_names(parsed)),
            )
            self._folds.put(game_id, Fold.begin(module, parsed))
            self._publish(game_id, 0, "created")
            self._announce_archived(previous)
        return game_id

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
            self._publish(game_id, self._folds.get(game_id)[1].version, "archived")
            if was_active:
                self._announce_archived(None)

    def import_log(self, text: str, pin: str, *, activate: bool = False) -> int:
        """Create a game from a game log (every line checked first); return its id.

        Entries are stored as recorded now by ``"import"``. Raises LogError
        naming the bad line, PinError for a bad PIN; a bad log stores nothing.
        """
        fold = read_log(text, self._games.rules)
        check_texts(fold.setup.to_dict(), "the setup", SETUP_CHARS_MAX)
        check_players(fold.setup)
        pin_hash = hash_pin(pin, iterations=self._pin_iterations)
        with self._lock:
            now = self._clock()
            unsynced = not self._clock_synced()
            entries = [Entry(e.version, e.payload, now, "import", unsynced)
                       for e in fold.entries]
            game_id = self._store.create_game(
                fold.module.NAME,
                fold.setup.to_dict(),
                pin_hash,
                now,
                entries,
                activate=activate,
                seats=self._stammtisch.roster_seats(player_names(fold.setup)),
            )
            self._folds.put(game_id, fold_entries(fold.module, fold.setup, entries))
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
            self._publish(game_id, self._folds.get(game_id)[1].version, "activated")
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
            self._publish(game_id, self._folds.get(game_id)[1].version, "archived")

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
            record, fold = self._folds.get(game_id)
            return self._folds.snapshot_json(record, fold)

    def _record(self, game_id: int, payload: dict[str, Any], who: str) -> dict[str, Any]:
        who = check_who(who)
        with self._lock:
            record, fold = self._folds.get(game_id)
            entry = Entry(fold.version + 1, payload, self._clock(), who,
                          not self._clock_synced())
            folded = fold.add(entry)  # raises before anything is stored
            try:
                stored = self._store.append(game_id, entry)
            except DuplicateVersion:
                # Another process wrote this version first: forget our fold so the next
                # call rebuilds from the log, and let the caller try again.
                self._folds.forget(game_id)
                raise
            if stored != entry:  # the clock went back: kept at the latest time instead
                folded = fold.add(stored)
            self._folds.put(game_id, folded)
            text = self._folds.snapshot_json(record, folded)
            self._publish(game_id, folded.version, entry.kind)
        return json.loads(text)

    def submit(self, game_id: int, action: Mapping[str, Any], who: str) -> dict[str, Any]:
        """Record ``action`` (an engine event as a dict) by ``who``; return the new snapshot.

        On any GameError (ParseError, IllegalAction, ...) nothing is stored.
        """
        with self._lock:
            _, fold = self._folds.get(game_id)
            if isinstance(action, Mapping) and action.get("action") in (UNDO, CORRECT):
                raise ParseError(
                    f'"{action["action"]}" is not submitted as an action; use '
                    f"the {action['action']} button instead",
                    key="not_an_action", action=action["action"],
                )
            check_texts(action, "the action", ACTION_CHARS_MAX)
            event = parse_action(fold.module, action)
            return self._record(game_id, fold.module.event_to_dict(event), who)

    def undo(self, game_id: int, who: str) -> dict[str, Any]:
        """Cancel the latest action not yet undone (an undo entry is recorded)."""
        return self._record(game_id, {"action": UNDO}, who)

    def reopen(self, game_id: int, who: str) -> dict[str, Any]:
        """Take back the entry that ended the finished game ``game_id``: it runs again.

        An undo entry like any other (the log stays append-only). Raises TableError,
        storing nothing, while the game is still running: it has no ending to take back.
        """
        with self._lock:
            _, fold = self._folds.get(game_id)
            if not fold.over:
                raise TableError(f"game {game_id} is still running; undo its entries instead",
                                 key="reopen_running")
            return self._record(game_id, {"action": UNDO}, who)

    def correct(
        self, game_id: int, version: int, action: Mapping[str, Any], who: str
    ) -> dict[str, Any]:
        """Replace what the action of entry ``version`` recorded (a correction entry).

        Rejected (IllegalAction, nothing stored) if the replacement is illegal
        there or makes any later action in force illegal.
        """
        with self._lock:
            _, fold = self._folds.get(game_id)
            if isinstance(version, bool) or not isinstance(version, int):
                raise ParseError(f"name the version to correct as a whole number, not {version!r}")
            if not 1 <= version <= fold.version:
                raise ParseError(
                    f"there is no version {version} to correct; game {game_id} is at "
                    f"version {fold.version}",
                    key="no_such_version", version=version, latest=fold.version,
                )
            check_texts(action, "the action", ACTION_CHARS_MAX)
            event = parse_action(fold.module, action)
            payload = {
                "action": CORRECT,
                "version": version,
                "event": fold.module.event_to_dict(event),
            }
            return self._record(game_id, payload, who)

    def preview(self, game_id: int, action: Mapping[str, Any]) -> dict[str, Any]:
        """What ``action`` would work out to in ``game_id`` (the engine's ``preview``);
        nothing is stored and anyone may ask.

        Raises TableError when the game's engine offers no preview, a GameError when
        the engine cannot read or refuses the action.
        """
        with self._lock:
            _, fold = self._folds.get(game_id)
        preview = getattr(fold.module, "preview", None)
        if preview is None:
            raise TableError(f"a {fold.module.NAME} game has no preview")
        return dict(preview(parse_action(fold.module, action)))

    def export_log(self, game_id: int) -> str:
        """The game as a game log (JSON lines), corrections and undos included."""
        with self._lock:
            return format_log(self._folds.get(game_id)[1])

    def export_csv(self, game_id: int) -> str:
        """The game as CSV: one row per entry (history lines in English), then the standings."""
        with self._lock:
            texts = {**file_catalogue("en"), **self._games.words("en")}
            return format_csv(self._folds.get(game_id)[1], lambda phrase: word(phrase, texts))

    def game_series(self, game_id: int) -> dict[str, Any]:
        """What the game's chart draws: players and one list of values per round.

        The values are the registry entry's ``series`` (Schocken: the Deckel each player
        held after every round; Rock the Bock: running totals); a game without one has
        an empty ``series``.
        """
        with self._lock:
            _, fold = self._folds.get(game_id)
            series = self._games.find(fold.module.NAME).series
            return {"game": fold.module.NAME, "players": player_names(fold.setup),
                    "series": [] if series is None else series(fold)}

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
        def rebuildable(candidate: Store) -> None:
            broken = [g for g in Table(candidate, games=self._games).list_games(
                include_removed=True) if "error" in g]
            if broken:
                raise StoreError(f"the backup's game {broken[0]['id']} cannot be rebuilt "
                                 f"({broken[0]['error']}); nothing was restored")

        with self._lock:
            kept = restore_keeping(self._store, path, self._clock(), keep_dir, rebuildable)
            self._folds.clear()
            for record in self._store.games():
                self._publish(record.id, self._store.latest_version(record.id), "imported")
            return kept

    # -- notices -------------------------------------------------------------

    def subscribe(self) -> Subscription:
        """A new listener for change notices; close it when the client goes away."""
        return self._notices.subscribe()

    @property
    def subscriber_count(self) -> int:
        """How many subscriptions are open (for health pages and tests)."""
        return self._notices.count

    def close(self) -> None:
        """Close every subscription (waking their waiting clients); the store stays open."""
        self._notices.close()

    # -- the devices (companion.table.devices) ---------------------------------

    def publish_picture(self, jpeg: bytes, reading: Mapping[str, Any]) -> None:
        """Keep the camera's latest picture (JPEG) and reading and announce it."""
        self._devices.publish_picture(jpeg, reading)

    def latest_picture(self) -> tuple[bytes, dict[str, Any]] | None:
        """The latest camera picture and its reading, or None before the first."""
        return self._devices.latest_picture()

    def publish_button(
        self, outcome: str, text_en: str, text_de: str, game_id: int | None = None
    ) -> None:
        """Announce what the turn button did (``recorded``, ``refused``, ``undone``) and why."""
        self._devices.publish_button(outcome, text_en, text_de, game_id)

    def provide_status(self, checks: Callable[[], list[dict[str, Any]]]) -> None:
        """Let the running companion say how it is (``companion doctor``'s checks)."""
        self._devices.provide_status(checks)

    def status(self) -> list[dict[str, Any]]:
        """The pre-flight checks as dicts (name, level, detail, fix); empty without a provider."""
        return self._devices.status()

    def request_remeasure(self) -> None:
        """Ask the camera to measure exposure and white balance again (from the dashboard)."""
        self._devices.request_remeasure()

    def take_remeasure(self) -> bool:
        """Whether a re-measure was asked for since the last call (the camera loop asks)."""
        return self._devices.take_remeasure()

    def attach_tray_setup(self, setup: Any) -> None:
        """Let the dashboard calibrate the tray through ``setup`` (a ``TraySetup``)."""
        self._devices.attach_tray_setup(setup)

    def tray_setup(self) -> Any | None:
        """The companion's tray calibration, or None when no camera runs."""
        return self._devices.tray_setup()
