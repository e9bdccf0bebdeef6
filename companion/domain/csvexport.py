"""Export a folded game as CSV, one file a spreadsheet opens directly.

First a header row and one row per entry (version, time as ISO 8601 UTC, time_uncertain
(``yes`` when the time was read before the clock was set from the network), who, action,
details as compact JSON of the remaining fields, status such as ``undone by 7``
or ``corrected by 9``, and the engine's history line, worded as the caller says). Then one
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
from datetime import UTC, datetime
from typing import Any

from companion.domain.entry import CORRECT, UNDO
from companion.domain.fold import Fold

__all__ = ["csv_cell", "format_csv", "iso_time"]


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


Word = Callable[[Mapping[str, Any]], str]


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


def format_csv(fold: Fold, word: Word) -> str:
    """The game as CSV: one row per entry, an empty row, then the standings block.

    ``word`` says an entry's history line (a phrase's JSON) as text. Text cells that a
    spreadsheet would run as a formula are neutralised (:func:`csv_cell`).
    """
    out = io.StringIO()
    writer = _SafeWriter(out)
    writer.writerow(["version", "time", "time_uncertain", "who", "action", "details", "status",
                     "text"])
    for row in fold.history():
        payload = dict(row["action"])
        name = payload.pop("action")
        details = json.dumps(payload, ensure_ascii=False, separators=(",", ":")) if payload else ""
        writer.writerow(
            [
                row["version"],
                iso_time(row["time"]),
                "yes" if row["unsynced"] else "",
                row["who"],
                name,
                details,
                _status(row),
                word(row["text"]) if row["text"] else "",
            ]
        )
    writer.writerow([])
    writer.writerow(["standings", "key", "value"])
    for key, value in _flatten(fold.module.standings(fold.state)):
        writer.writerow(["standings", key, value])
    return out.getvalue()
