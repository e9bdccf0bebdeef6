"""Read and write game logs: the JSON-lines file a game is exported to and imported from.

Game log format (JSON lines, UTF-8, blank lines ignored; see
``fixtures/games/README.md``)::

    {"format": "dice-companion-log", "version": 1, "game": "schocken", "setup": {...}}
    {"action": "throw", ...}
    {"action": "undo"}
    {"action": "correct", "version": 1, "event": {"action": "throw", ...}}

The ``"correct"`` line is this companion's addition to the common format so that
an exported game keeps its corrections; in a file, an entry's version is its
position among the non-blank lines after the header (line 2 is version 1 when
there are no blank lines).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from companion.domain.entry import Entry
from companion.domain.fold import Fold, LogError
from companion.games import GameError, GameRules, ParseError
from companion.games.parsing import read_json

__all__ = ["LOG_FORMAT", "LOG_VERSION", "format_log", "read_header", "read_log"]

LOG_FORMAT = "dice-companion-log"
LOG_VERSION = 1


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, line


def read_header(line: str, games: Callable[[str], GameRules]) -> tuple[GameRules, Any]:
    """The game's rules and parsed ``Setup`` of a log's first line (raises GameError).

    ``games`` maps a game name to its rules (the registry's ``rules``; raising
    ParseError for a game it does not know).
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


def read_log(text: str, games: Callable[[str], GameRules]) -> Fold:
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

