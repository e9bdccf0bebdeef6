"""Rock the Bock: the roll-and-write dice game by Inka and Markus Brand.

Each player rolls the dice they have left, takes every die of one kind that
shows and crosses that many dice off their own sheet; bocks and own-colour
goats go on their own sheet, other colours' goats on that colour's sheet and
wolves on the sheet of another player of the roller's choice. A round ends
when nobody has dice left; three rounds make a game. RULES.md section 2.

One job per module, all re-exported here so this module is the game as the registry
sees it (:class:`companion.games.GameRules`): :mod:`rockthebock_codec` (faces, rules,
setup, events and their log lines), :mod:`rockthebock_engine` (the sheets, the legal
choices and :func:`apply`), :mod:`rockthebock_view` (standings and the live view),
:mod:`rockthebock_text` (the history line of each event).
"""

from __future__ import annotations

from companion.games.rockthebock_codec import (
    COLOURS,
    DICE_PER_ROUND,
    FACES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    ROUNDS,
    RULE_FLAGS,
    Choice,
    Event,
    Player,
    Roll,
    Rules,
    Setup,
    event_from_dict,
    event_to_dict,
)
from companion.games.rockthebock_engine import (
    Option,
    Sheet,
    State,
    apply,
    is_over,
    legal_choices,
    needs_reroll,
    round_score,
    start,
)
from companion.games.rockthebock_text import describe
from companion.games.rockthebock_view import standings, totals, view

__all__ = [
    "COLOURS",
    "Choice",
    "DICE_PER_ROUND",
    "Event",
    "FACES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "Option",
    "Player",
    "ROUNDS",
    "RULE_FLAGS",
    "Roll",
    "Rules",
    "Setup",
    "Sheet",
    "State",
    "apply",
    "describe",
    "event_from_dict",
    "event_to_dict",
    "is_over",
    "legal_choices",
    "needs_reroll",
    "round_score",
    "standings",
    "start",
    "totals",
    "view",
]



