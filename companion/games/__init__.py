"""Pure game rules, standard library only: no clock, no IO, no randomness.

One module per game (``schocken``, ``rockthebock``, ``wacken``, each re-exporting the
modules it is split into) offers the surface of :class:`GameRules`
(:mod:`.contract`); the errors every engine raises are in :mod:`.errors`, and small
readers of hand-typed numbers and JSON in :mod:`.parsing`. Which games the companion
knows, and what else each plugs in, is the registry's business
(:mod:`companion.registry`): nothing here imports anything of ours outside ``games``.
"""

from __future__ import annotations

from companion.games.contract import GameRules, GameSetup, RuleFlag
from companion.games.errors import GameError, IllegalAction, ParseError, RuleError
from companion.games.phrase import Phrase

__all__ = [
    "GameError",
    "GameRules",
    "GameSetup",
    "IllegalAction",
    "ParseError",
    "Phrase",
    "RuleError",
    "RuleFlag",
]
