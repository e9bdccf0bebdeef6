"""Fold a game's entries into its state: actions, undos and corrections, checked by the engine.

A :class:`Fold` is the game folded up to some version; adding an entry returns a new
one or raises a GameError and changes nothing. Pure: no clock, no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.domain.entry import CORRECT, RESERVED, UNDO, Entry, plain_copy
from companion.games import GameError, GameRules, IllegalAction, ParseError

__all__ = [
    "Fold",
    "LogError",
    "describe",
    "fold_entries",
    "parse_action",
]

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



def parse_action(module: GameRules, payload: Mapping[str, Any]) -> Any:
    """The engine's event for the action dict ``payload``; anything unreadable is a ParseError."""
    if not isinstance(payload, Mapping):
        raise ParseError(f"an action must be a JSON object, not {payload!r}")
    if payload.get("action") in RESERVED:
        raise ParseError(f'"{payload["action"]}" is not an action of {module.NAME}')
    try:
        return module.event_from_dict(plain_copy(payload))
    except GameError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        # A sloppy payload must read as a person's mistake, not as a crash.
        raise ParseError(f"cannot read action {dict(payload)!r}: {exc!r}") from None


def describe(module: GameRules, event: Any) -> dict[str, Any] | None:
    """The engine's history line for ``event``: its :class:`Phrase` as JSON.

    The line only decorates the history: an event the engine cannot tell (it raises a
    GameError) simply has none.
    """
    try:
        return module.describe(event).to_dict()
    except GameError:
        return None


@dataclass(frozen=True)
class Fold:
    """A game folded up to some version: an immutable value; :meth:`add` returns a new one.

    ``live`` holds the actions in force as (version, event) and ``states`` the
    state before and after each of them (``states[0]`` is the start), so an
    undo is a step back and a correction replays only what follows it.
    """

    module: GameRules
    setup: Any
    entries: tuple[Entry, ...] = ()
    live: tuple[tuple[int, Any], ...] = ()
    states: tuple[Any, ...] = ()
    undone_by: Mapping[int, int] = field(default_factory=dict)
    corrected_by: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    # The engine's text per entry, worked out once when the entry is added.
    texts: tuple[dict[str, Any] | None, ...] = ()

    @classmethod
    def begin(cls, module: GameRules, setup: Any) -> Fold:
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

        Keys: version, time, unsynced (the time was read before the clock was set from
        the network: it may be off), who, kind, action (the log line), undone,
        corrected, undone_by, corrected_by (versions), target (the version an
        undo cancelled or a correction replaced), text (the engine's history line as a
        phrase, ``{"key", "fields"}``, worded by whoever shows it; or None).
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
                    "unsynced": entry.unsynced,
                    "who": entry.who,
                    "kind": entry.kind,
                    "action": entry.to_dict(),
                    "undone": entry.version in self.undone_by,
                    "corrected": entry.version in self.corrected_by,
                    "undone_by": self.undone_by.get(entry.version),
                    "corrected_by": list(self.corrected_by.get(entry.version, ())),
                    "target": target,
                    "text": None if text is None else plain_copy(text),
                }
            )
        return rows


def fold_entries(module: GameRules, setup: Any, entries: Iterable[Entry]) -> Fold:
    """Fold stored entries; a failing entry raises :class:`LogError` naming its version."""
    return Fold.begin(module, setup).extend(entries)
