"""What the table accepts from people: names, texts and sizes; the table's own error.

Every name is shown on every phone and in every export, so it must be short and read as
what it is. One limit per kind of name, used by the table and by the web forms alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ACTION_CHARS_MAX",
    "COLOURS",
    "NAME_MAX",
    "NICKNAME_MAX",
    "PLAYERS_MAX",
    "SETUP_CHARS_MAX",
    "TEXT_MAX",
    "WHO_MAX",
    "TableError",
    "check_name",
    "check_players",
    "check_texts",
    "check_who",
    "player_names",
]

# Who recorded an entry (the scorekeeper's name, "camera", "import"): the web's unlock
# form and the table check against this one limit.
WHO_MAX = 40
NICKNAME_MAX = 12
COLOURS = ("", "red", "blue", "green", "yellow")


class TableError(ValueError):
    """A request to the table that cannot be carried out as given.

    Like the engines' errors it may carry a ``key`` and ``fields`` so that the dashboard
    words it in the page's language (:mod:`companion.games.errors`).
    """

    def __init__(self, message: str, *, key: str | None = None, **fields: object) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields


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


def check_who(who: str) -> str:
    """``who`` (whoever records an entry) stripped, if it is a short visible name."""
    return check_name(who, "say who records this (a name)", WHO_MAX)


def check_texts(value: Any, what: str, chars_max: int) -> None:
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


def player_names(setup: Any) -> list[str]:
    """The names of the players seated by ``setup``, in seat order."""
    names = getattr(setup, "names", None)
    if names is not None:
        return [str(n) for n in names]
    return [p if isinstance(p, str) else str(p.name) for p in setup.players]



def check_players(setup: Any) -> None:
    """At most :data:`PLAYERS_MAX` players, each with a name :func:`check_name` accepts."""
    names = player_names(setup)
    if len(names) > PLAYERS_MAX:
        raise TableError(f"at most {PLAYERS_MAX} players fit a table, not {len(names)}",
                         key="too_many_players", limit=PLAYERS_MAX, n=len(names))
    for name in names:
        check_name(name, f"the player name {name[:NAME_MAX]!r}…" if len(name) > NAME_MAX
                   else "a player name")
