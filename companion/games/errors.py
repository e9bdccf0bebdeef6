r"""Domain errors shared by every game engine.

Parse errors (a malformed throw, an unknown flag) are kept apart from illegal
actions (a well-formed action by the wrong player), as python-chess does.

A refusal a person will see at the table carries a ``key`` and ``fields``: the
message's name and its values (player names, numbers, :class:`~.phrase.Phrase`\ s), so
that a dashboard says it in the page's language from its catalogue (``refusal_<key>``),
as it says the history lines. The English text stays the message (logs, the command
line, tests).
"""

from __future__ import annotations


class GameError(ValueError):
    """Base class: something a person entered does not fit the game."""

    def __init__(self, message: str, *args: object, key: str | None = None,
                 **fields: object) -> None:
        super().__init__(message, *args)
        self.key = key
        self.fields = fields


class ParseError(GameError):
    """Text or a log line could not be read (bad dice, unknown field, wrong type)."""


class RuleError(GameError):
    """An unknown house-rule flag, or a value the flag does not accept."""


class IllegalAction(GameError):
    """A well-formed action that the rules do not allow in the current state."""
