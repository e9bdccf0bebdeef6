"""Domain errors shared by every game engine.

Parse errors (a malformed throw, an unknown flag) are kept apart from illegal
actions (a well-formed throw by the wrong player), as python-chess does.
"""


class GameError(ValueError):
    """Base class: something a person entered does not fit the game."""


class ParseError(GameError):
    """Text or a log line could not be read (bad dice, unknown field, wrong type)."""


class RuleError(GameError):
    """An unknown house-rule flag, or a value the flag does not accept."""


class IllegalAction(GameError):
    """A well-formed action that the rules do not allow in the current state."""
