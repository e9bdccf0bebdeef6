"""Fold a recorded game into its state; read and write game logs; export CSV.

Everything here is pure: no clock, no database. :mod:`companion.store` keeps the
entries, :mod:`companion.table` wires the two together.

A game is its setup plus a list of **entries**, numbered 1, 2, 3, ... (the
*version*). Each entry's payload is exactly one line of a game log:

- an **action**: the engine's ``event_to_dict(event)``, a JSON object whose
  ``"action"`` names the engine's event (``"throw"``, ``"roll"``, ...);
- an **undo**: ``{"action": "undo"}`` cancels the latest action not yet undone.
  Undo never cancels an undo or a correction, and there is no redo: record the
  action again instead;
- a **correction**: ``{"action": "correct", "version": 4, "event": {...}}``
  replaces what the action of entry 4 recorded. It is rejected when the
  replacement is illegal at that point or when any action in force after it
  would then become illegal. Only actions still in force can be corrected.
  Undo never cancels a correction; it cancels actions.

Game log format (JSON lines, UTF-8, blank lines ignored; see
``fixtures/games/README.md``)::

    {"format": "dice-companion-log", "version": 1, "game": "schocken", "setup": {...}}
    {"action": "throw", ...}
    {"action": "undo"}
    {"action": "correct", "version": 1, "event": {"action": "throw", ...}}

The ``"correct"`` line is this module's addition to the common format so that
an exported game keeps its corrections; in a file, an entry's version is its
position among the non-blank lines after the header (line 2 is version 1 when
there are no blank lines).

CSV export (:func:`format_csv`): one file a spreadsheet opens directly. First a
header row and one row per entry (version, time as ISO 8601 UTC, who, action,
details as compact JSON of the remaining fields, status such as ``undone by 7``
or ``corrected by 9``, and the engine's short English text when it offers one). Then one
empty row, then the standings block: a ``standings,key,value`` header and one
row per leaf of ``standings(state)``, keys as dotted paths
(``players.0.deckel``). Machines should read the JSON-lines export instead.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType, ModuleType
from typing import Any

from companion.games import GameError, IllegalAction, ParseError, game_module
from companion.games.parsing import read_json

__all__ = [
    "CORRECT",
    "LOG_FORMAT",
    "LOG_VERSION",
    "TEXT_LANGUAGES",
    "UNDO",
    "Entry",
    "Fold",
    "LogError",
    "describe",
    "fold_entries",
    "format_csv",
    "format_log",
    "iso_time",
    "parse_action",
    "read_header",
    "read_log",
]

LOG_FORMAT = "dice-companion-log"
LOG_VERSION = 1
UNDO = "undo"
CORRECT = "correct"
_RESERVED = (UNDO, CORRECT)
TEXT_LANGUAGES = ("en", "de")


class LogError(GameError):
    """A game log (a file or a stored game) cannot be replayed at one place.

    ``where`` names the place (``"line 7"`` or ``"version 6"``); ``cause`` is
    the engine's or parser's error, kept so callers can tell a parse error
    from an illegal action.
    """

    def __init__(self, where: str, cause: Exception) -> None:
        super().__init__(f"{where}: {cause}")
        self.where = where
        self.cause = cause


def _check_action_payload(payload: object, what: str) -> dict[str, Any]:
    if not isinstance(payload, Mapping):
        raise ParseError(f"{what} must be a JSON object, not {type(payload).__name__}")
    name = payload.get("action")
    if not isinstance(name, str) or not name:
        raise ParseError(f'{what} needs an "action" field naming what happened')
    return dict(payload)


@dataclass(frozen=True)
class Entry:
    """One recorded entry of a game: an action, an undo or a correction.

    ``payload`` is the log line; ``time`` (seconds since the epoch, from the
    injected clock) and ``who`` (the scorekeeper, ``"camera"``, ...) are only
    known for entries kept by the store.
    """

    version: int
    payload: Mapping[str, Any]
    time: float | None = None
    who: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.version, bool) or not isinstance(self.version, int):
            raise ParseError(f"entry version must be a whole number, not {self.version!r}")
        if self.version < 1:
            raise ParseError(f"entry versions start at 1, not {self.version}")
        payload = _check_action_payload(self.payload, f"entry {self.version}")
        try:
            # A deep private copy that is strict JSON: what is kept is what a log file holds.
            payload = json.loads(json.dumps(_plain(payload), allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ParseError(f"entry {self.version} is not plain JSON data: {exc}") from None
        name = payload["action"]
        if name == UNDO and set(payload) != {"action"}:
            raise ParseError('an undo line is exactly {"action": "undo"}; it has no other fields')
        if name == CORRECT:
            if set(payload) != {"action", "version", "event"}:
                raise ParseError(
                    'a correction is {"action": "correct", "version": N, "event": {...}}'
                )
            target = payload["version"]
            if isinstance(target, bool) or not isinstance(target, int):
                raise ParseError(f"a correction names the version it replaces, not {target!r}")
            if not 1 <= target < self.version:
                raise ParseError(
                    f"entry {self.version} corrects version {target}, which is not an earlier entry"
                )
            event = _check_action_payload(payload["event"], "the corrected action")
            if event["action"] in _RESERVED:
                raise ParseError(f'a correction must replace an action, not "{event["action"]}"')
            payload["event"] = event
        # Behind a read-only view: nobody can change a recorded line.
        object.__setattr__(self, "payload", MappingProxyType(payload))

    @property
    def kind(self) -> str:
        """``"action"``, ``"undo"`` or ``"correct"``."""
        name = self.payload["action"]
        return name if name in _RESERVED else "action"

    def to_dict(self) -> dict[str, Any]:
        """The payload as a plain (JSON-able) dict, a fresh copy."""
        return _plain(self.payload)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def parse_action(module: ModuleType, payload: Mapping[str, Any]) -> Any:
    """The engine's event for the action dict ``payload``; anything unreadable is a ParseError."""
    if not isinstance(payload, Mapping):
        raise ParseError(f"an action must be a JSON object, not {payload!r}")
    if payload.get("action") in _RESERVED:
        raise ParseError(f'"{payload["action"]}" is not an action of {module.NAME}')
    try:
        return module.event_from_dict(_plain(payload))
    except GameError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        # A sloppy payload must read as a person's mistake, not as a crash.
        raise ParseError(f"cannot read action {dict(payload)!r}: {exc!r}") from None


def describe(module: ModuleType, event: Any) -> dict[str, str] | None:
    """The engine's short human text for ``event`` by language, when it offers one.

    Engines may offer ``describe(event, language)`` (``"en"``/``"de"``) giving a
    str, or ``describe(event)`` giving a str (taken as English) or a
    ``{language: text}`` dict. The text only decorates the history, so an engine
    whose ``describe`` wants something else than an event simply gives none.
    """
    text_of = getattr(module, "describe", None)
    if text_of is None:
        return None
    texts: dict[str, str] = {}
    try:
        for language in TEXT_LANGUAGES:
            try:
                text = text_of(event, language)
            except TypeError:
                text = text_of(event)
                return _texts(text if not isinstance(text, str) else {"en": text})
            texts.update(_texts({language: text}) or {})
    except (GameError, AttributeError, KeyError, TypeError, ValueError):
        return None
    return texts or None


def _texts(value: object) -> dict[str, str] | None:
    if not isinstance(value, Mapping):
        return None
    texts = {str(k): v for k, v in value.items() if isinstance(v, str)}
    return texts or None


@dataclass(frozen=True)
class Fold:
    """A game folded up to some version: an immutable value; :meth:`add` returns a new one.

    ``live`` holds the actions in force as (version, event) and ``states`` the
    state before and after each of them (``states[0]`` is the start), so an
    undo is a step back and a correction replays only what follows it.
    """

    module: ModuleType
    setup: Any
    entries: tuple[Entry, ...] = ()
    live: tuple[tuple[int, Any], ...] = ()
    states: tuple[Any, ...] = ()
    undone_by: Mapping[int, int] = field(default_factory=dict)
    corrected_by: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    # The engine's text per entry, worked out once when the entry is added.
    texts: tuple[dict[str, str] | None, ...] = ()

    @classmethod
    def begin(cls, module: ModuleType, setup: Any) -> Fold:
        """The fold of a game with nothing recorded yet."""
        return cls(module=module, setup=setup, states=(module.start(setup),))

    @property
    def state(self) -> Any:
        """The engine state after every action in force."""
        return self.states[-1]

    @property
    def version(self) -> int:
        """The version of the latest entry (0 before anything was recorded)."""
        return len(self.entries)

    @property
    def over(self) -> bool:
        """Whether the engine says the game has ended."""
        return bool(self.module.is_over(self.state))

    def add(self, entry: Entry) -> Fold:
        """The fold with ``entry`` added; raises a GameError and changes nothing if illegal."""
        if entry.version != self.version + 1:
            raise ParseError(
                f"entry version {entry.version} does not follow version {self.version}"
            )
        entries = (*self.entries, entry)
        if entry.kind == "action":
            event = parse_action(self.module, entry.payload)
            state = self.module.apply(self.state, event)
            return replace(
                self,
                entries=entries,
                texts=(*self.texts, describe(self.module, event)),
                live=(*self.live, (entry.version, event)),
                states=(*self.states, state),
            )
        if entry.kind == UNDO:
            if not self.live:
                raise IllegalAction(
                    "nothing to undo: no action is in force"
                    + (" (every recorded action is already undone)" if self.entries else ""),
                    key="nothing_to_undo",
                )
            target = self.live[-1][0]
            return replace(
                self,
                entries=entries,
                texts=(*self.texts, None),
                live=self.live[:-1],
                states=self.states[:-1],
                undone_by={**self.undone_by, target: entry.version},
            )
        return self._correct(entry, entries)

    def extend(self, entries: Iterable[Entry]) -> Fold:
        """The fold with ``entries`` added; a failing one raises LogError naming its version."""
        fold = self
        for entry in entries:
            try:
                fold = fold.add(entry)
            except GameError as exc:
                raise LogError(f"version {entry.version}", exc) from exc
        return fold

    def _correct(self, entry: Entry, entries: tuple[Entry, ...]) -> Fold:
        target = entry.payload["version"]
        position = next((i for i, (v, _) in enumerate(self.live) if v == target), None)
        if position is None:
            if target in self.undone_by:
                raise IllegalAction(
                    f"version {target} was undone by version {self.undone_by[target]}; "
                    "record the action anew instead of correcting it",
                    key="correct_undone", version=target,
                )
            kind = self.entries[target - 1].kind
            raise IllegalAction(
                f"version {target} is {'an undo' if kind == UNDO else 'a correction'}, "
                "not an action; only actions can be corrected",
                key="correct_not_action", version=target,
            )
        event = parse_action(self.module, entry.payload["event"])
        try:
            state = self.module.apply(self.states[position], event)
        except GameError as exc:
            raise IllegalAction(
                f"the corrected action is not allowed at version {target}: {exc}",
                key="correct_illegal", version=target, cause=exc,
            ) from exc
        states = [*self.states[: position + 1], state]
        for version, later in self.live[position + 1 :]:
            try:
                states.append(self.module.apply(states[-1], later))
            except GameError as exc:
                raise IllegalAction(
                    f"correcting version {target} would make version {version} illegal: {exc}; "
                    "undo the later actions first or correct differently",
                    key="correct_breaks_later", version=target, later=version, cause=exc,
                ) from exc
        live = list(self.live)
        live[position] = (target, event)
        return replace(
            self,
            entries=entries,
            texts=(*self.texts, describe(self.module, event)),
            live=tuple(live),
            states=tuple(states),
            corrected_by={
                **self.corrected_by,
                target: (*self.corrected_by.get(target, ()), entry.version),
            },
        )

    def history(self) -> list[dict[str, Any]]:
        """Every entry as a JSON-able dict for the dashboard, oldest first.

        Keys: version, time, who, kind, action (the log line), undone,
        corrected, undone_by, corrected_by (versions), target (the version an
        undo cancelled or a correction replaced), text (the engine's short text
        as ``{"en": ..., "de": ...}``, languages it has, or None).
        """
        undo_targets = {by: target for target, by in self.undone_by.items()}
        rows = []
        for entry, text in zip(self.entries, self.texts, strict=True):
            target: int | None = None
            if entry.kind == UNDO:
                target = undo_targets.get(entry.version)
            elif entry.kind == CORRECT:
                target = entry.payload["version"]
            rows.append(
                {
                    "version": entry.version,
                    "time": entry.time,
                    "who": entry.who,
                    "kind": entry.kind,
                    "action": entry.to_dict(),
                    "undone": entry.version in self.undone_by,
                    "corrected": entry.version in self.corrected_by,
                    "undone_by": self.undone_by.get(entry.version),
                    "corrected_by": list(self.corrected_by.get(entry.version, ())),
                    "target": target,
                    "text": None if text is None else dict(text),
                }
            )
        return rows


def fold_entries(module: ModuleType, setup: Any, entries: Iterable[Entry]) -> Fold:
    """Fold stored entries; a failing entry raises :class:`LogError` naming its version."""
    return Fold.begin(module, setup).extend(entries)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, line


def read_header(
    line: str, games: Callable[[str], ModuleType] = game_module
) -> tuple[ModuleType, Any]:
    """The game module and parsed ``Setup`` of a log's first line (raises GameError).

    ``games`` maps a game name to its rules module (tests pass a fake game).
    """
    header = read_json(line, "the header is ")
    if not isinstance(header, dict):
        raise ParseError("the header must be a JSON object")
    if header.get("format") != LOG_FORMAT:
        raise ParseError(f'this is not a game log: the header needs "format": "{LOG_FORMAT}"')
    version = header.get("version")
    if version != LOG_VERSION or isinstance(version, bool):
        raise ParseError(
            f"log format version {version!r} is not one this companion reads "
            f"(it reads version {LOG_VERSION}); update the companion"
        )
    extra = set(header) - {"format", "version", "game", "setup"}
    if extra:
        raise ParseError(f"unknown header field(s): {', '.join(sorted(extra))}")
    module = games(str(header.get("game")))
    setup_dict = header.get("setup")
    if not isinstance(setup_dict, dict):
        raise ParseError('the header needs a "setup" object (players and rules)')
    return module, module.Setup.from_dict(setup_dict)


def read_log(text: str, games: Callable[[str], ModuleType] = game_module) -> Fold:
    """Replay a game log line by line; the first bad line raises :class:`LogError`.

    The message names the line: ``line 7: Ben may throw at most 2 times ...``.
    Every action line is checked when it is read, even one a later undo cancels.
    """
    # A byte-order mark (Windows editors add one) is not part of the header.
    lines = _lines(text.removeprefix("\ufeff"))
    first = next(lines, None)
    if first is None:
        raise LogError("line 1", ParseError("the log is empty; it needs a header line"))
    number, line = first
    try:
        module, setup = read_header(line, games)
        fold = Fold.begin(module, setup)
    except GameError as exc:
        raise LogError(f"line {number}", exc) from exc
    for number, line in lines:
        try:
            payload = read_json(line, "")
            fold = fold.add(Entry(fold.version + 1, payload))
        except GameError as exc:
            raise LogError(f"line {number}", exc) from exc
    return fold


def _header(fold: Fold) -> dict[str, Any]:
    return {
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "game": fold.module.NAME,
        "setup": fold.setup.to_dict(),
    }


def format_log(fold: Fold) -> str:
    """The game as a log (JSON lines) that :func:`read_log` folds to the same state."""
    lines = [_header(fold)] + [entry.to_dict() for entry in fold.entries]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def iso_time(seconds: float | None) -> str:
    """``seconds`` since the epoch as ISO 8601 UTC, or "" when unknown."""
    if seconds is None:
        return ""
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat(timespec="seconds")


def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        if not value:
            yield prefix, ""
        for key, inner in value.items():
            yield from _flatten(inner, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list | tuple):
        if not value:
            yield prefix, ""
        for index, inner in enumerate(value):
            yield from _flatten(inner, f"{prefix}.{index}" if prefix else str(index))
    elif value is None:
        yield prefix, ""
    elif isinstance(value, bool):
        yield prefix, "true" if value else "false"
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        yield prefix, str(int(value))
    else:
        yield prefix, str(value)


def _status(row: Mapping[str, Any]) -> str:
    parts = []
    if row["kind"] == UNDO:
        parts.append(f"undoes {row['target']}")
    elif row["kind"] == CORRECT:
        parts.append(f"corrects {row['target']}")
    if row["corrected_by"]:
        parts.append("corrected by " + ", ".join(str(v) for v in row["corrected_by"]))
    if row["undone"]:
        parts.append(f"undone by {row['undone_by']}")
    return "; ".join(parts)


def _english(texts: Mapping[str, str] | None) -> str:
    if not texts:
        return ""
    return texts.get("en") or next(iter(texts.values()))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def csv_cell(value: object) -> object:
    """``value`` made safe for a spreadsheet: text that would start a formula gets a ``'``.

    Spreadsheets run a cell starting with ``= + - @`` (or a tab or CR before one) as a
    formula, so a player named ``=HYPERLINK(...)`` could act on the scorekeeper's
    computer. The leading apostrophe is how spreadsheet users themselves mark a cell as
    text; plain numbers such as ``-1`` stay numbers.
    """
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    if _PLAIN_NUMBER.fullmatch(value):
        return value
    return "'" + value


class _SafeWriter:
    """A csv writer whose every cell goes through :func:`csv_cell`."""

    def __init__(self, out: io.StringIO) -> None:
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([csv_cell(cell) for cell in row])


def format_csv(fold: Fold) -> str:
    """The game as CSV: one row per entry, an empty row, then the standings block.

    Text cells that a spreadsheet would run as a formula are neutralised (:func:`csv_cell`).
    """
    out = io.StringIO()
    writer = _SafeWriter(out)
    writer.writerow(["version", "time", "who", "action", "details", "status", "text"])
    for row in fold.history():
        payload = dict(row["action"])
        name = payload.pop("action")
        details = json.dumps(payload, ensure_ascii=False, separators=(",", ":")) if payload else ""
        writer.writerow(
            [
                row["version"],
                iso_time(row["time"]),
                row["who"],
                name,
                details,
                _status(row),
                _english(row["text"]),
            ]
        )
    writer.writerow([])
    writer.writerow(["standings", "key", "value"])
    for key, value in _flatten(fold.module.standings(fold.state)):
        writer.writerow(["standings", key, value])
    return out.getvalue()
